// Command tlcgolden turns one TLC run into a golden file: it reads TLC's
// log and the state graph TLC dumped with -dump dot,actionlabels, checks
// that TLC finished without finding an error and that its counts agree
// with the dumped graph, and writes tla/golden/<config>.json (and the
// graph beside it, gzipped, when it is small enough to commit). tla/tlc.sh
// runs it after every TLC run; it is not meant to be run by hand.
//
// Usage:
//
//	tlcgolden -config NAME -cfg FILE -module MODULE -specdir DIR -log FILE -dot FILE -seconds S -workers N -out DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/rebalance-ref/rebalance/tla/crosscheck"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "tlcgolden:", err)
		os.Exit(1)
	}
}

var (
	reVersion   = regexp.MustCompile(`(?m)^TLC2 Version .*$`)
	reGenerated = regexp.MustCompile(`(?m)^(\d+) states generated, (\d+) distinct states found, 0 states left on queue\.$`)
	reDepth     = regexp.MustCompile(`(?m)^The depth of the complete state graph search is (\d+)\.$`)
)

func run() error {
	var (
		config   = flag.String("config", "", "configuration name")
		cfg      = flag.String("cfg", "", "the .cfg file TLC ran")
		module   = flag.String("module", "", "the TLA+ module TLC checked")
		specDir  = flag.String("specdir", "", "the directory of the .tla files")
		logFile  = flag.String("log", "", "TLC's output")
		dotFile  = flag.String("dot", "", "TLC's -dump dot,actionlabels file")
		seconds  = flag.Float64("seconds", 0, "TLC's wall-clock run time")
		workers  = flag.Int("workers", 0, "TLC's worker count")
		out      = flag.String("out", "", "the golden directory")
		maxGraph = flag.Int("max-graph-states", 20000, "commit the whole graph only up to this many states")
	)
	flag.Parse()
	if *config == "" || *cfg == "" || *module == "" || *specDir == "" || *logFile == "" || *dotFile == "" || *out == "" || *seconds <= 0 || *workers <= 0 {
		return fmt.Errorf("every flag is required (see the doc comment)")
	}
	logText, err := os.ReadFile(*logFile)
	if err != nil {
		return err
	}
	log := string(logText)
	if !strings.Contains(log, "Model checking completed. No error has been found.") {
		return fmt.Errorf("%s: TLC did not finish without error; its log is %s", *config, *logFile)
	}
	version := reVersion.FindString(log)
	gen := reGenerated.FindAllStringSubmatch(log, -1)
	depth := reDepth.FindStringSubmatch(log)
	if version == "" || gen == nil || depth == nil {
		return fmt.Errorf("%s: the log has no version line, final counts or depth", *config)
	}
	last := gen[len(gen)-1]
	generated, _ := strconv.Atoi(last[1])
	distinct, _ := strconv.Atoi(last[2])
	tlcDepth, _ := strconv.Atoi(depth[1])

	f, err := os.Open(*dotFile)
	if err != nil {
		return err
	}
	g, err := crosscheck.ReadDot(f)
	f.Close()
	if err != nil {
		return err
	}
	sum := g.Summarize()
	if sum.States != distinct {
		return fmt.Errorf("%s: TLC reports %d distinct states, its dump has %d", *config, distinct, sum.States)
	}
	// With several workers TLC's search is not strictly level by level, so
	// the depth it reports can exceed the graph's breadth-first depth; it
	// can never be less.
	if tlcDepth < sum.Diameter {
		return fmt.Errorf("%s: TLC reports depth %d, its dump has %d levels", *config, tlcDepth, sum.Diameter)
	}
	cfgText, err := os.ReadFile(*cfg)
	if err != nil {
		return err
	}
	invariants, properties := checkedNames(string(cfgText))
	if len(invariants) == 0 || len(properties) == 0 {
		return fmt.Errorf("%s: %s names no INVARIANT or no PROPERTY: a golden file records a run that checked both", *config, *cfg)
	}
	cfgDigest, err := crosscheck.FileDigest(*cfg)
	if err != nil {
		return err
	}
	specs, err := crosscheck.SpecFiles(*specDir, *config)
	if err != nil {
		return err
	}
	specDigest, err := crosscheck.FileDigest(specs...)
	if err != nil {
		return err
	}
	gold := crosscheck.Golden{
		Config: *config, Module: *module, TLCVersion: version, Workers: *workers,
		ConfigSHA256: cfgDigest, SpecSHA256: specDigest,
		Checked: "no error", Invariants: invariants, Properties: properties,
		TLCDistinct: distinct, TLCGenerated: generated, TLCDepth: tlcDepth,
		Summary:    sum,
		RunSeconds: round(*seconds, 2), StatesPerSecond: round(float64(distinct) / *seconds, 0),
	}
	if sum.States <= *maxGraph {
		gold.Graph = *config + ".graph.gz"
		gf, err := os.Create(filepath.Join(*out, gold.Graph))
		if err != nil {
			return err
		}
		if err := crosscheck.WriteGraph(gf, g); err != nil {
			gf.Close()
			return err
		}
		if err := gf.Close(); err != nil {
			return err
		}
	} else {
		os.Remove(filepath.Join(*out, *config+".graph.gz"))
	}
	if err := crosscheck.WriteGolden(filepath.Join(*out, *config+".json"), gold); err != nil {
		return err
	}
	fmt.Printf("%s: %d states, %d transitions, diameter %d, %.2f s, %.0f states/s\n",
		*config, sum.States, sum.Transitions, sum.Diameter, gold.RunSeconds, gold.StatesPerSecond)
	return nil
}

func round(x float64, places int) float64 {
	p := 1.0
	for range places {
		p *= 10
	}
	return float64(int64(x*p+0.5)) / p
}

// cfgKeywords are the TLC configuration file's section keywords.
var cfgKeywords = map[string]bool{
	"SPECIFICATION": true, "INIT": true, "NEXT": true, "INVARIANT": true, "INVARIANTS": true,
	"PROPERTY": true, "PROPERTIES": true, "CONSTANT": true, "CONSTANTS": true, "SYMMETRY": true,
	"VIEW": true, "CONSTRAINT": true, "CONSTRAINTS": true, "ACTION_CONSTRAINT": true,
	"ACTION_CONSTRAINTS": true, "CHECK_DEADLOCK": true, "POSTCONDITION": true, "ALIAS": true,
}

// checkedNames returns the names a TLC configuration lists under
// INVARIANT(S) and PROPERTY/PROPERTIES, in order; \* comments are skipped.
func checkedNames(cfg string) (invariants, properties []string) {
	var section string
	for _, line := range strings.Split(cfg, "\n") {
		line, _, _ = strings.Cut(line, `\*`)
		for _, word := range strings.Fields(line) {
			if cfgKeywords[word] {
				section = word
				continue
			}
			switch section {
			case "INVARIANT", "INVARIANTS":
				invariants = append(invariants, word)
			case "PROPERTY", "PROPERTIES":
				properties = append(properties, word)
			}
		}
	}
	return invariants, properties
}
