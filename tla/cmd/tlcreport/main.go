// Command tlcreport prints the table docs/tla.md shows: for every golden
// file in tla/golden, TLC's counts, run time and states per second next to
// the Go checker's (package checker, liveness included) on the same
// configuration, and the ratio of their speeds.
//
// Usage (from the repository root):
//
//	go run ./tla/cmd/tlcreport [-workers 2] [-golden tla/golden]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/checker"
	"github.com/rebalance-ref/rebalance/tla/crosscheck"
)

func main() {
	workers := flag.Int("workers", 2, "Go checker workers (TLC's golden runs used 2)")
	dir := flag.String("golden", "tla/golden", "the golden directory")
	flag.Parse()
	paths, err := filepath.Glob(filepath.Join(*dir, "*.json"))
	if err != nil || len(paths) == 0 {
		fmt.Fprintln(os.Stderr, "tlcreport: no golden files in", *dir)
		os.Exit(1)
	}
	slices.Sort(paths)
	fmt.Println("| configuration | TLC states | TLC transitions | diameter | TLC time (s) | TLC states/s | Go states | Go time (s) | Go states/s | Go/TLC speed |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, p := range paths {
		g, err := crosscheck.ReadGolden(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tlcreport:", err)
			os.Exit(1)
		}
		res, err := explore(g.Config, *workers)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tlcreport:", err)
			os.Exit(1)
		}
		secs := res.Elapsed.Seconds()
		goRate := float64(res.Distinct) / secs
		fmt.Printf("| %s | %d | %d | %d | %.2f | %.0f | %d | %.2f | %.0f | %.1f× |\n",
			g.Config, g.States, g.Transitions, g.Diameter, g.RunSeconds, g.StatesPerSecond,
			res.Distinct, secs, goRate, goRate/g.StatesPerSecond)
	}
}

// explore runs the Go checker on the named configuration's world.
func explore(config string, workers int) (checker.Result, error) {
	opts := checker.Options{Workers: workers}
	var res checker.Result
	switch {
	case strings.HasPrefix(config, "classic-"):
		m, err := crosscheck.ClassicModel(config)
		if err != nil {
			return res, err
		}
		if res, err = checker.Explore(m, opts); err != nil {
			return res, err
		}
	case strings.HasPrefix(config, "nextgen-"):
		m, err := crosscheck.NextGenModel(config)
		if err != nil {
			return res, err
		}
		if res, err = checker.Explore(m, opts); err != nil {
			return res, err
		}
	default:
		return res, fmt.Errorf("config %q: want classic- or nextgen-", config)
	}
	if !res.Complete || len(res.Violations) > 0 {
		return res, fmt.Errorf("%s: the Go checker did not pass (complete %v, %d violations)", config, res.Complete, len(res.Violations))
	}
	return res, nil
}
