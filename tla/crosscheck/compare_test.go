package crosscheck

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCompareScript runs tla/compare.sh, the script behind the TLC
// comparison in docs/checker.md, with a stand-in for TLC: a java on PATH
// that prints the state count it is given (TLC is not installed where the
// tests run). The Go side is the real rebalance check. The script must
// print a row per mode with the columns its header names and, below the
// table, the --runs runs of each row; its medians must be medians; and it
// must refuse to print a row when TLC fails, prints no count, or counts
// other states than the checker does, and to start on a --runs that is
// not a whole number of at least 1.
func TestCompareScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash, which tla/compare.sh needs, is not on PATH")
	}
	const config = "classic-eager-m2j1t1p2"
	g, err := ReadGolden(filepath.Join("..", "golden", config+".json"))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	java := "#!/bin/sh\n" +
		"if [ -n \"$FAKE_TLC_STATES\" ]; then echo \"Model checking completed. No error has been found.\"; echo \"$FAKE_TLC_STATES distinct states found, 0 states left on queue.\"; fi\n" +
		"exit ${FAKE_TLC_EXIT:-0}\n"
	if err := os.WriteFile(filepath.Join(bin, "java"), []byte(java), 0o755); err != nil {
		t.Fatal(err)
	}
	jar := filepath.Join(bin, "tla2tools.jar")
	if err := os.WriteFile(jar, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args []string, env ...string) (string, string, error) {
		cmd := exec.Command("bash", append([]string{filepath.Join("..", "compare.sh")}, args...)...)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "TLA2TOOLS_JAR="+jar)
		cmd.Env = append(cmd.Env, env...)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}

	// counted has the stand-in TLC count the states the checker does.
	counted := "FAKE_TLC_STATES=" + strconv.Itoa(g.States)
	for _, c := range []struct {
		args []string
		runs int
	}{{[]string{config}, 3}, {[]string{"--runs", "2", config}, 2}} {
		t.Run("rows "+strings.Join(c.args, " "), func(t *testing.T) { checkCompareRows(t, run, c.args, c.runs, counted, config, g.States) })
	}

	// The medians the rows print come from the script's median function,
	// which the rows cannot check against our runs' timings: it is taken
	// out of the script and run on numbers with known medians.
	t.Run("median", func(t *testing.T) {
		for _, c := range []struct{ in, want string }{
			{"3 1 2", "2.000000"},
			{"4 1 3 2", "2.500000"},
			{"0.5", "0.500000"},
			{"10 9.5 1e1 0.25", "9.750000"},
			{"1 - 2", "-"},
		} {
			script := `eval "$(sed -n '/^median() {/,/^}/p' "$1")"; shift; median "$@"`
			out, err := exec.Command("bash", append([]string{"-c", script, "bash", filepath.Join("..", "compare.sh")}, strings.Fields(c.in)...)...).CombinedOutput()
			if err != nil || string(out) != c.want {
				t.Errorf("median %s = %q (%v), want %q", c.in, out, err, c.want)
			}
		}
	})

	for _, c := range []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"other count", []string{config}, []string{"FAKE_TLC_STATES=" + strconv.Itoa(g.States+1)}, "TLC found " + strconv.Itoa(g.States+1) + " states, rebalance check " + strconv.Itoa(g.States)},
		{"no count", []string{config}, nil, "no state count in TLC's output"},
		{"TLC fails", []string{config}, []string{counted, "FAKE_TLC_EXIT=1"}, "TLC failed on " + config},
		{"no runs", []string{"--runs", "0", config}, []string{counted}, "--runs wants a whole number of runs, at least 1, not '0'"},
		{"runs not a number", []string{"--runs", "many", config}, []string{counted}, "not 'many'"},
		{"runs missing", []string{"--runs"}, []string{counted}, "not ''"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, err := run(c.args, c.env...)
			if err == nil {
				t.Fatalf("compare.sh succeeded, want it to stop:\n%s", out)
			}
			if !strings.Contains(errOut, c.want) {
				t.Errorf("stderr %q, want it to say %q", errOut, c.want)
			}
			if strings.Contains(out, config+" ") {
				t.Errorf("a row was printed:\n%s", out)
			}
		})
	}
}

// checkCompareRows runs compare.sh with args and the environment entry
// counted (the configuration config, whose worlds have states states,
// behind a stand-in TLC that counted sets to report that many) and checks
// its output: a header that says it took the medians of runs
// runs, rows for both modes, every column a positive number or ratio, and
// each ratio the quotient of the rates it names.
func checkCompareRows(t *testing.T, run func([]string, ...string) (string, string, error), args []string, runs int, counted, config string, states int) {
	out, errOut, err := run(args, counted)
	if err != nil {
		t.Fatalf("compare.sh: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	if want := fmt.Sprintf(", in turn, %d runs each: medians", runs); !strings.Contains(out, want) {
		t.Errorf("no %q in the header:\n%s", want, out)
	}
	table, runLines, ok := strings.Cut(out, "runs (seconds;")
	if !ok {
		t.Fatalf("no list of the runs:\n%s", out)
	}
	var header []string
	var allRate, speedUp string // the header's "goN/s" and "N/1", N the cores
	modes := map[string]bool{}
	for line := range strings.Lines(table) {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "config":
			header = f
			for _, h := range header {
				switch {
				case strings.HasPrefix(h, "go") && strings.HasSuffix(h, "/s") && h != "go/s":
					allRate = h
				case strings.HasSuffix(h, "/1"):
					speedUp = h
				}
			}
		case len(f) > 0 && f[0] == config:
			if len(f) != len(header) {
				t.Fatalf("row %q has %d columns, the header %q %d", line, len(f), header, len(header))
			}
			col := map[string]string{}
			for i, h := range header {
				col[h] = f[i]
			}
			modes[col["mode"]] = true
			if col["states"] != strconv.Itoa(states) {
				t.Errorf("%s: states %s, want TLC's and the checker's %d", col["mode"], col["states"], states)
			}
			for _, h := range header {
				v := col[h]
				switch {
				case strings.HasSuffix(h, "/tlc") || strings.HasSuffix(h, "/1"):
					r, err := strconv.ParseFloat(strings.TrimSuffix(v, "x"), 64)
					if !strings.HasSuffix(v, "x") || err != nil || !(r > 0) || math.IsInf(r, 0) {
						t.Errorf("%s: column %s = %q, want a positive ratio such as 2.5x", col["mode"], h, v)
					}
				case strings.HasSuffix(h, "/s"):
					if n, err := strconv.Atoi(v); err != nil || n <= 0 {
						t.Errorf("%s: column %s = %q, want a positive rate", col["mode"], h, v)
					}
				}
			}
			// Each ratio is the quotient of its two rates, to the
			// tenth it is printed with.
			for _, q := range []struct{ ratio, num, den string }{
				{"go/tlc", "go/s", "tlc/s"},
				{speedUp, allRate, "go/s"},
			} {
				r, _ := strconv.ParseFloat(strings.TrimSuffix(col[q.ratio], "x"), 64)
				num, _ := strconv.ParseFloat(col[q.num], 64)
				den, _ := strconv.ParseFloat(col[q.den], 64)
				if den <= 0 || math.Abs(r-num/den) > 0.05+0.01*num/den {
					t.Errorf("%s: %s = %s, want %s / %s = %s / %s", col["mode"], q.ratio, col[q.ratio], q.num, q.den, col[q.num], col[q.den])
				}
			}
			if b, err := strconv.ParseFloat(col["B/st"], 64); err != nil || b <= 0 {
				t.Errorf("%s: bytes per state %q, want a positive number", col["mode"], col["B/st"])
			}
		}
	}
	if !modes["safety"] || !modes["liveness"] || len(modes) != 2 {
		t.Fatalf("rows for modes %v, want safety and liveness:\n%s", modes, out)
	}
	// Below the table, each row's runs: runs seconds on all cores, then
	// runs on one worker.
	listed := map[string]bool{}
	for line := range strings.Lines(runLines) {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != config {
			continue
		}
		listed[f[1]] = true
		all, one, ok := strings.Cut(strings.Join(f[2:], " "), "|")
		if !ok || len(strings.Fields(all)) != runs || len(strings.Fields(one)) != runs {
			t.Errorf("runs line %q: want %d seconds on each side of |", line, runs)
		}
		for _, v := range strings.Fields(all + " " + one) {
			if x, err := strconv.ParseFloat(v, 64); err != nil || x < 0 {
				t.Errorf("runs line %q: %q is not a number of seconds", line, v)
			}
		}
	}
	if !listed["safety"] || !listed["liveness"] || len(listed) != 2 {
		t.Errorf("runs listed for modes %v, want safety and liveness:\n%s", listed, out)
	}
	if !strings.Contains(out, "load average before:") || !strings.Contains(out, "load average after:") {
		t.Errorf("no load averages:\n%s", out)
	}
}
