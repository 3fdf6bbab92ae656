package crosscheck

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCompareScript runs tla/compare.sh, the script behind the TLC
// comparison in docs/checker.md, with a stand-in for TLC: a java on PATH
// that prints the state count it is given (TLC is not installed where the
// tests run). The Go side is the real rebalance check. The script must
// print a row per mode with the columns its header names and, below the
// table, the runs of each row: --runs of them with --min-seconds 0, and
// with a --min-seconds beyond one run's time, as many more as it takes the
// one-worker runs to add up to it and not one more (at most 25); its
// medians must be medians; and it must refuse to print a row when TLC
// fails, prints no count, or counts other states than the checker does,
// and to start on a --runs that is not a whole number of at least 1, a
// --min-seconds that is not a number of seconds, or an option it does not
// know.
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
		config     string
		args       []string
		runs       int
		minSeconds float64
	}{
		{config, []string{"--min-seconds", "0"}, 3, 0},
		{config, []string{"--runs", "2", "--min-seconds", "0"}, 2, 0},
		// A run of this world takes about 10 ms on the project's VM:
		// 50 ms take a few of them, and 24 of them more than 50 ms.
		{"classic-eager-m2j1t1p2c1l1d1", []string{"--min-seconds", "0.05", "--runs", "1"}, 1, 0.05},
	} {
		t.Run("rows "+strings.Join(c.args, " ")+" "+c.config, func(t *testing.T) {
			g, err := ReadGolden(filepath.Join("..", "golden", c.config+".json"))
			if err != nil {
				t.Fatal(err)
			}
			counted := "FAKE_TLC_STATES=" + strconv.Itoa(g.States)
			checkCompareRows(t, run, append(c.args, c.config), c.runs, c.minSeconds, counted, c.config, g.States)
		})
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
		// title, when not empty, is in the header the script prints
		// before it stops.
		title string
	}{
		{"other count", []string{config}, []string{"FAKE_TLC_STATES=" + strconv.Itoa(g.States+1)}, "TLC found " + strconv.Itoa(g.States+1) + " states, rebalance check " + strconv.Itoa(g.States),
			compareTitle(3, 5)}, // the defaults
		{"no count", []string{config}, nil, "no state count in TLC's output", ""},
		{"TLC fails", []string{config}, []string{counted, "FAKE_TLC_EXIT=1"}, "TLC failed on " + config, ""},
		{"no runs", []string{"--runs", "0", config}, []string{counted}, "--runs wants a whole number of runs, at least 1, not '0'", ""},
		{"runs not a number", []string{"--runs", "many", config}, []string{counted}, "not 'many'", ""},
		{"runs missing", []string{"--runs"}, []string{counted}, "not ''", ""},
		{"min-seconds not a number", []string{"--min-seconds", "long", config}, []string{counted}, "--min-seconds wants a number of seconds, 0 or more, not 'long'", ""},
		{"min-seconds negative", []string{"--min-seconds", "-1", config}, []string{counted}, "not '-1'", ""},
		{"min-seconds missing", []string{"--min-seconds"}, []string{counted}, "--min-seconds wants a number of seconds, 0 or more, not ''", ""},
		{"unknown option", []string{"--workers", "2", config}, []string{counted}, "unknown option '--workers'", ""},
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
			if c.title != "" && !strings.Contains(out, c.title) {
				t.Errorf("no %q in the header:\n%s", c.title, out)
			}
		})
	}
}

// checkCompareRows runs compare.sh with args and the environment entry
// counted (the configuration config, whose worlds have states states,
// behind a stand-in TLC that counted sets to report that many) and checks
// its output: a header that says it took the medians of at least runs
// runs and until the one-worker runs added up to minSeconds, rows for
// both modes, every column a positive number or ratio, each ratio the
// quotient of the rates it names, and below the table each row's runs:
// exactly runs of them when minSeconds is 0, otherwise at least runs and
// at most 25, the one-worker ones adding up to minSeconds (unless 25),
// and all but the last short of it.
func checkCompareRows(t *testing.T, run func([]string, ...string) (string, string, error), args []string, runs int, minSeconds float64, counted, config string, states int) {
	out, errOut, err := run(args, counted)
	if err != nil {
		t.Fatalf("compare.sh: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	if title := compareTitle(runs, minSeconds); !strings.Contains(out, title) {
		t.Errorf("no %q in the header:\n%s", title, out)
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
			// The speed-ups are printed to two decimals (their target,
			// 1.7x, is closer than a tenth), the ratio to TLC to one.
			for h, decimals := range map[string]int{"go/tlc": 1, speedUp: 2, "hw": 2} {
				if v := col[h]; !regexp.MustCompile(fmt.Sprintf(`^[0-9]+\.[0-9]{%d}x$`, decimals)).MatchString(v) {
					t.Errorf("%s: column %s = %q, want a ratio to %d decimals", col["mode"], h, v, decimals)
				}
			}
			if b, err := strconv.ParseFloat(col["busy"], 64); err != nil || !(b > 0 && b <= 1) || !regexp.MustCompile(`^[01]\.[0-9]{2}$`).MatchString(col["busy"]) {
				t.Errorf("%s: busy %q, want the workers' busy share, above 0 and at most 1, to two decimals", col["mode"], col["busy"])
			}
			if b, err := strconv.ParseFloat(col["B/st"], 64); err != nil || b <= 0 {
				t.Errorf("%s: bytes per state %q, want a positive number", col["mode"], col["B/st"])
			}
		}
	}
	if !modes["safety"] || !modes["liveness"] || len(modes) != 2 {
		t.Fatalf("rows for modes %v, want safety and liveness:\n%s", modes, out)
	}
	// Below the table, each row's runs: seconds on all cores, then as
	// many on one worker; below them, the hw runs, as many again.
	runLines, hwLines, ok := strings.Cut(runLines, "hw runs (")
	if !ok {
		t.Fatalf("no list of the hw runs:\n%s", out)
	}
	listed := map[string]int{}
	for line := range strings.Lines(runLines) {
		mode, all, one, err := splitRuns(line, config)
		if mode == "" {
			continue
		}
		n := len(one)
		listed[mode] = n
		if err != nil || len(all) != n {
			t.Errorf("runs line %q: want as many seconds on each side of | (%v)", line, err)
		}
		if minSeconds == 0 {
			if n != runs {
				t.Errorf("runs line %q: %d runs a side, want %d", line, n, runs)
			}
			continue
		}
		// The seconds are printed to the millisecond: half of one
		// each is what the sums may be off by.
		var before, total float64
		for i, x := range one {
			if i < n-1 {
				before += x
			}
			total += x
		}
		slack := 0.0005 * float64(n)
		switch {
		case n < runs || n > 25:
			t.Errorf("runs line %q: %d runs a side, want %d to 25", line, n, runs)
		case n < 25 && total+slack < minSeconds:
			t.Errorf("runs line %q: the %d one-worker runs add up to %.3f s, short of --min-seconds %g, yet it stopped", line, n, total, minSeconds)
		case n > runs && before-slack >= minSeconds:
			t.Errorf("runs line %q: the one-worker runs before the last add up to %.3f s, already --min-seconds %g, yet it ran again", line, before, minSeconds)
		}
	}
	if listed["safety"] == 0 || listed["liveness"] == 0 || len(listed) != 2 {
		t.Errorf("runs listed for modes %v, want safety and liveness:\n%s", listed, out)
	}
	hwListed := 0
	for line := range strings.Lines(hwLines) {
		mode, alone, side, err := splitRuns(line, config)
		if mode == "" {
			continue
		}
		hwListed++
		if n := listed[mode]; err != nil || len(alone) != n || len(side) != n {
			t.Errorf("hw runs line %q: want the row's %d runs on each side of | (%v)", line, n, err)
		}
	}
	if hwListed != 2 {
		t.Errorf("%d hw runs lines, want one for each mode:\n%s", hwListed, out)
	}
	if !strings.Contains(out, "load average before:") || !strings.Contains(out, "load average after:") {
		t.Errorf("no load averages:\n%s", out)
	}
}

// compareTitle is what compare.sh's header says of our side's runs with
// --runs runs and --min-seconds minSeconds.
func compareTitle(runs int, minSeconds float64) string {
	return fmt.Sprintf(", in turn, at least %d runs each and until the one-worker runs add up to %s s (at most 25): medians",
		runs, strconv.FormatFloat(minSeconds, 'f', -1, 64))
}

// splitRuns reads a line of the runs compare.sh lists below its table,
// "CONFIG MODE SECONDS... | SECONDS...": its mode ("" for a line that is
// not one of config's) and the seconds on either side of the bar. err
// says what a line of config's lacks: the bar, or a number of seconds.
func splitRuns(line, config string) (mode string, left, right []float64, err error) {
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != config {
		return "", nil, nil, nil
	}
	l, r, ok := strings.Cut(strings.Join(f[2:], " "), "|")
	if !ok {
		return f[1], nil, nil, fmt.Errorf("no | in %q", line)
	}
	read := func(side string) ([]float64, error) {
		var out []float64
		for _, v := range strings.Fields(side) {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || x < 0 {
				return out, fmt.Errorf("%q is not a number of seconds", v)
			}
			out = append(out, x)
		}
		return out, nil
	}
	left, err = read(l)
	if err != nil {
		return f[1], left, nil, err
	}
	right, err = read(r)
	return f[1], left, right, err
}
