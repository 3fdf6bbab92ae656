package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSimulateTableAndFiles: rebalance simulate prints a table with one
// column per protocol, writes the CSV, JSON, HTML and SVG files asked for,
// and the same flags give byte-identical CSV.
func TestSimulateTableAndFiles(t *testing.T) {
	dir := t.TempDir()
	args := []string{"simulate", "--workload", "rolling-restart", "--members", "4", "--topics", "2", "--partitions", "4", "--protocol", "all", "--quiet",
		"--csv", filepath.Join(dir, "a.csv"), "--json", filepath.Join(dir, "a.json"), "--html", filepath.Join(dir, "r.html"), "--svg", filepath.Join(dir, "svg")}
	out, err := run(args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, p := range []string{"eager", "cooperative", "deferred", "incremental", "nextgen", "unavailable resource-seconds", "moves needed"} {
		if !strings.Contains(out, p) {
			t.Errorf("the table has no %q:\n%s", p, out)
		}
	}
	for _, f := range []string{"a.csv", "a.json", "r.html", "svg/unavailable.svg", "svg/ownership-eager.svg", "svg/ownership-nextgen.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "r.html"))
	if !strings.Contains(string(html), "rebalance simulate --workload rolling-restart") || strings.Count(string(html), "<svg") < 6 {
		t.Errorf("the report lacks its command or its six pictures")
	}
	first, _ := os.ReadFile(filepath.Join(dir, "a.csv"))
	args[len(args)-7] = filepath.Join(dir, "b.csv")
	if out, err := run(args...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	second, _ := os.ReadFile(filepath.Join(dir, "b.csv"))
	if len(first) == 0 || string(first) != string(second) {
		t.Fatalf("the same flags gave different CSV:\n%s\n%s", first, second)
	}
	if out, err := run("simulate", "--workload", "crash", "--members", "3", "--topics", "1", "--partitions", "6", "--protocol", "eager,nextgen", "--quiet", "--csv", "-"); err != nil || !strings.HasPrefix(out, "protocol,") || strings.Count(out, "\n") != 3 {
		t.Fatalf("--csv - : %v\n%s", err, out)
	}
}

// TestSimulateUsageErrors: flags that make no sense are usage errors, and
// nothing runs.
func TestSimulateUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--protocol", "paxos"},
		{"--protocol", "all,eager"},
		{"--workload", "earthquake"},
		{"--members", "0"},
		{"--workload", "scale-in", "--count", "30"},
		{"--heartbeat", "1m", "--session", "10s"},
		{"--latency", "1500us"},
		{"--parallel", "0"},
		{"--max-moves", "-1"},
		{"--max-moves", "2,2"},
		{"--max-moves", "0,1"}, // 0 is the default, 1
		{"--max-moves", "1,2", "--protocol", "eager,nextgen"},
		{"--step-delay", "-1s"},
	} {
		_, err := run(append([]string{"simulate", "--quiet"}, args...)...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
}

// TestSimulateDesignIIIFlags: --max-moves reaches Design III. Two members
// join four over 40 partitions, 12 moves: by default incremental moves one
// a round, over more rounds than deferred; with a bound of 12 it makes the
// same moves in the same rounds as deferred, the CSV rows equal but for
// the protocol's name. --step-delay spreads the one-a-round steps out.
// Several bounds run incremental once for each.
func TestSimulateDesignIIIFlags(t *testing.T) {
	rows := func(extra ...string) (deferred, incremental []string) {
		t.Helper()
		args := append([]string{"simulate", "--workload", "scale-out", "--count", "2", "--members", "4", "--topics", "1", "--partitions", "40",
			"--protocol", "deferred,incremental", "--quiet", "--csv", "-"}, extra...)
		out, err := run(args...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if err != nil || len(lines) != 3 {
			t.Fatalf("%v: %v\n%s", extra, err, out)
		}
		deferred, incremental = strings.Split(lines[1], ","), strings.Split(lines[2], ",")
		if deferred[0] != "deferred" || incremental[0] != "incremental" {
			t.Fatalf("rows out of order:\n%s", out)
		}
		return deferred[1:], incremental[1:]
	}
	const rounds, converged = 6, 9 // columns after the protocol's
	num := func(s string) int {
		t.Helper()
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("a column that should be a number: %v", err)
		}
		return n
	}
	d, one := rows()
	if num(one[rounds]) <= num(d[rounds]) {
		t.Errorf("one move a round: %s rounds, deferred %s: want more", one[rounds], d[rounds])
	}
	if _, all := rows("--max-moves", "12"); strings.Join(all, ",") != strings.Join(d, ",") {
		t.Errorf("--max-moves 12: %v, want deferred's %v", all, d)
	}
	if _, slow := rows("--step-delay", "5s"); num(slow[converged]) <= num(one[converged]) {
		t.Errorf("--step-delay 5s converges at %s ms, by default at %s ms: want later", slow[converged], one[converged])
	}

	// Several bounds: incremental once for each, named by its bound in the
	// CSV and the pictures; the other protocols once.
	dir := t.TempDir()
	out, err := run("simulate", "--workload", "scale-out", "--count", "2", "--members", "4", "--topics", "1", "--partitions", "40",
		"--protocol", "deferred,incremental", "--max-moves", "1,12", "--quiet", "--csv", "-", "--svg", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]string{}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		name, rest, _ := strings.Cut(l, ",")
		got[name] = rest
		names = append(names, name)
	}
	if want := "deferred incremental-max-moves-1 incremental-max-moves-12"; strings.Join(names, " ") != want {
		t.Fatalf("rows %v, want %s", names, want)
	}
	if got["incremental-max-moves-12"] != strings.Join(d, ",") || got["incremental-max-moves-1"] != strings.Join(one, ",") {
		t.Errorf("the sweep's rows differ from the single runs':\n%s", out)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "unavailable.svg"))
	for _, name := range names {
		if _, err := os.Stat(filepath.Join(dir, "ownership-"+name+".svg")); err != nil {
			t.Errorf("no ownership picture for %s: %v", name, err)
		}
		if !strings.Contains(string(svg), name) {
			t.Errorf("the unavailability picture does not name %s", name)
		}
	}
}
