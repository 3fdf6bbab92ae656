package oracle

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestVerdicts: small traces, each with the verdict of the law it is
// about (status, and the line for a broken one).
func TestVerdicts(t *testing.T) {
	const coop = `{"format":"rebalance-trace","version":1,"protocol":"cooperative","coordinator":true}` + "\n" +
		`{"t":0,"kind":"topic","topic":"t","partitions":2}` + "\n" +
		`{"t":0,"kind":"join","process":"A","topics":["t"]}` + "\n" +
		`{"t":0,"kind":"join","process":"B","topics":["t"]}` + "\n" +
		`{"t":1,"kind":"joined","member":"a"}` + "\n" +
		`{"t":1,"kind":"joined","member":"b"}` + "\n" +
		`{"t":3,"call":2,"kind":"assigned","process":"A","member":"a","generation":1,"resources":["t-0","t-1"]}` + "\n"
	counts := map[string]int{"a violation that ends and begins again counts twice": 2}
	for _, tc := range []struct {
		name, trace string
		law         spec.Law
		status      Status
		line        int
		detail      string
	}{
		{"a crash releases", coop + `{"t":10,"kind":"crash","process":"A"}
{"t":12,"call":11,"kind":"assigned","process":"B","member":"b","generation":2,"resources":["t-0"]}`, spec.CooperativeHandoff, Held, 0, ""},
		{"a crash on a later line of the same instant releases too late", coop + `{"t":10,"call":10,"kind":"assigned","process":"B","member":"b","generation":2,"resources":["t-0"]}
{"t":10,"kind":"crash","process":"A"}`, spec.CooperativeHandoff, Broken, 8, "t-0 given to B at line 8 while A (line 7) still held it"},
		{"a removal releases", coop + `{"t":10,"kind":"removed","member":"a"}
{"t":12,"call":11,"kind":"assigned","process":"B","member":"b","generation":2,"resources":["t-0"]}`, spec.CooperativeHandoff, Held, 0, ""},
		{"a rejoin ends the release", coop + `{"t":10,"kind":"removed","member":"a"}
{"t":10,"kind":"joined","member":"a"}
{"t":12,"call":11,"kind":"assigned","process":"B","member":"b","generation":2,"resources":["t-0"]}`, spec.CooperativeHandoff, Broken, 10, "while A (line 7) still held it"},
		{"given again to its holder", coop + `{"t":12,"call":11,"kind":"assigned","process":"A","member":"a","generation":2,"resources":["t-0"]}`, spec.CooperativeHandoff, Held, 0, ""},
		{"a revocation returning as it is given", coop + `{"t":11,"call":10,"kind":"revoked","process":"A","member":"a","generation":1,"resources":["t-0"]}
{"t":12,"call":11,"kind":"assigned","process":"B","member":"b","generation":2,"resources":["t-0"]}`, spec.CooperativeHandoff, Held, 0, ""},
		{"a loss is no revocation", coop + `{"t":11,"call":10,"kind":"lost","process":"A","member":"a","generation":1,"resources":["t-0"]}
{"t":12,"call":11,"kind":"assigned","process":"B","member":"b","generation":1,"resources":["t-0"]}`, spec.CooperativeHandoff, Held, 0, ""},
		{"next-gen hands off within an epoch", strings.Replace(coop, "cooperative", "nextgen", 1) + `{"t":11,"call":10,"kind":"revoked","process":"A","member":"a","generation":2,"resources":["t-0"]}
{"t":12,"call":11,"kind":"assigned","process":"B","member":"b","generation":2,"resources":["t-0"]}`, spec.CooperativeHandoff, Held, 0, ""},
		{"no protocol", strings.Replace(coop, `"protocol":"cooperative",`, "", 1), spec.CooperativeHandoff, NotJudged, 0, "names no protocol"},
		{"rounds at the bound", coop + `{"t":5,"kind":"quiet"}
{"t":6,"kind":"generation","process":"A","member":"a","generation":2}
{"t":7,"kind":"generation","process":"B","member":"b","generation":3}`, spec.BoundedRounds, Held, 0, "2 rounds after the quiet point; at most 2"},
		{"rounds past the bound", coop + `{"t":5,"kind":"quiet"}
{"t":6,"kind":"generation","process":"A","member":"a","generation":2}
{"t":7,"kind":"generation","process":"B","member":"b","generation":3}
{"t":8,"kind":"generation","process":"A","member":"a","generation":4}`, spec.BoundedRounds, Broken, 11, "3 rounds after the quiet point; cooperative promises at most 2"},
		{"a generation reached at the quiet point is before it", coop + `{"t":6,"kind":"generation","process":"A","member":"a","generation":2}
{"t":6,"kind":"quiet"}
{"t":7,"kind":"generation","process":"B","member":"b","generation":2}`, spec.BoundedRounds, Held, 0, "0 rounds after"},
		{"a quiet point at time 0", `{"format":"rebalance-trace","version":1,"protocol":"eager","max_rounds":1}
{"t":0,"kind":"quiet"}
{"t":1,"kind":"assigned","process":"A","member":"a","generation":1,"resources":["t-0"]}
{"t":2,"kind":"assigned","process":"A","member":"a","generation":2,"resources":["t-1"]}`, spec.BoundedRounds, Broken, 4, "the header states at most 1"},
		{"next-gen bumps", `{"format":"rebalance-trace","version":1,"protocol":"nextgen","max_rounds":2}
{"t":0,"kind":"generation","process":"A","member":"a","generation":1}
{"t":1,"kind":"quiet"}
{"t":2,"kind":"generation","process":"A","member":"a","generation":1}
{"t":3,"kind":"generation","process":"A","member":"a","generation":2}
{"t":4,"kind":"generation","process":"B","member":"b","generation":2}
{"t":5,"kind":"generation","process":"B","member":"b","generation":3}
{"t":6,"kind":"assigned","process":"A","member":"a","generation":3,"resources":["t-0"]}`, spec.BoundedRounds, Broken, 7, "4 member epoch bumps after the quiet point; the header states at most 2"},
		{"next-gen without a bound", `{"format":"rebalance-trace","version":1,"protocol":"nextgen"}
{"t":1,"kind":"quiet"}
{"t":6,"kind":"assigned","process":"A","member":"a","generation":3,"resources":["t-0"]}`, spec.BoundedRounds, NotJudged, 0, "state it as max_rounds"},
		{"a topic grows in the instant it is used", `{"format":"rebalance-trace","version":1}
{"t":0,"kind":"topic","topic":"t","partitions":1}
{"t":5,"kind":"topic","topic":"t","partitions":2}
{"t":5,"kind":"assigned","process":"A","resources":["t-1"]}`, spec.ExistingOnly, Held, 0, ""},
		{"a violation that ends and begins again counts twice", `{"format":"rebalance-trace","version":1}
{"t":0,"kind":"topic","topic":"t","partitions":1}
{"t":1,"kind":"assigned","process":"A","resources":["t-1"]}
{"t":2,"kind":"revoked","process":"A","resources":["t-1"]}
{"t":3,"kind":"assigned","process":"A","resources":["t-1"]}`, spec.ExistingOnly, Broken, 3, "t-1"},
		{"two owners at one instant: the first line", `{"format":"rebalance-trace","version":1}
{"t":5,"kind":"assigned","process":"A","resources":["t-0"]}
{"t":5,"kind":"assigned","process":"B","resources":["t-0"]}`, spec.ExclusiveOwnership, Broken, 2, "t-0"},
		{"an assignor named", strings.Replace(coop, `"coordinator":true`, `"coordinator":true,"assignor":"range"`, 1) + `{"t":9,"kind":"quiet"}`, spec.Balance, Held, 0, `as assignor "range" promises`},
		{"an assignor with no guarantee known", strings.Replace(coop, `"coordinator":true`, `"coordinator":true,"assignor":"mine"`, 1) + `{"t":9,"kind":"quiet"}`, spec.Balance, NotJudged, 0, `no balance guarantee known for assignor "mine"`},
		{"no assignor, no protocol", strings.Replace(coop, `"protocol":"cooperative",`, "", 1) + `{"t":9,"kind":"quiet"}`, spec.Balance, NotJudged, 0, "an assignor the trace does not name"},
		{"two resources not linearizable", `{"format":"rebalance-trace","version":1}
{"t":1,"kind":"revoked","process":"A","resources":["t-1"]}
{"t":2,"kind":"revoked","process":"A","resources":["t-0"]}`, Linearizable, Broken, 2, "(and 1 more resources)"},
		{"two resources illegal at one line: the first named", `{"format":"rebalance-trace","version":1}
{"t":1,"kind":"revoked","process":"A","resources":["t-0","t-1"]}`, Linearizable, Broken, 2, "explains t-0's ownership: A's revoked {t-0 t-1} (line 2) cannot be placed (and 1 more resources)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Check(mustRead(t, tc.trace), Options{Name: tc.name})
			if err != nil {
				t.Fatal(err)
			}
			v, ok := rep.Verdict(tc.law)
			if !ok || v.Status != tc.status || v.Line != tc.line || !strings.Contains(v.Detail, tc.detail) {
				t.Fatalf("%s: %s at line %d (%s), want %s at line %d with %q\n%s", tc.law, v.Status, v.Line, v.Detail, tc.status, tc.line, tc.detail, rep)
			}
			if want := counts[tc.name]; want > 0 && v.Count != want {
				t.Fatalf("%s: %d violations, want %d\n%s", tc.law, v.Count, want, rep)
			}
		})
	}
}

// fatalTB records what Require reports instead of failing the test.
type fatalTB struct {
	testing.TB
	dir   string
	fatal string
}

func (f *fatalTB) Helper()         {}
func (f *fatalTB) TempDir() string { return f.dir }
func (f *fatalTB) Fatal(args ...any) {
	f.fatal = fmt.Sprint(args...)
	runtime.Goexit()
}

// TestRequire: Require passes a trace that breaks no law, and fails the
// test with the report (pictures written) for one that breaks a law, and
// with the line for one that cannot be read.
func TestRequire(t *testing.T) {
	require := func(path string) (*fatalTB, Report) {
		f := &fatalTB{TB: t, dir: t.TempDir()}
		var rep Report
		done := make(chan struct{})
		go func() {
			defer close(done)
			rep = Require(f, path)
		}()
		<-done
		return f, rep
	}
	t.Setenv("REBALANCE_ORACLE_OUT", "")
	if f, rep := require(filepath.Join("testdata", "pass.ndjson")); f.fatal != "" || !rep.OK() || rep.Events != 17 {
		t.Fatalf("a passing trace: %q", f.fatal)
	}
	f, _ := require(filepath.Join("testdata", "coverage.ndjson"))
	if !regexp.MustCompile(`Coverage +broken +line 6`).MatchString(f.fatal) || !strings.Contains(f.fatal, filepath.Join(f.dir, "coverage.ndjson.svg")) {
		t.Fatalf("a failing trace: %q", f.fatal)
	}
	bad := filepath.Join(t.TempDir(), "bad.ndjson")
	if err := os.WriteFile(bad, []byte(`{"format":"rebalance-trace","version":7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, _ := require(bad); !strings.Contains(f.fatal, "line 1: header: version 7") {
		t.Fatalf("an unreadable trace: %q", f.fatal)
	}
	out := t.TempDir()
	t.Setenv("REBALANCE_ORACLE_OUT", out)
	if f, _ := require(filepath.Join("testdata", "coverage.ndjson")); !strings.Contains(f.fatal, filepath.Join(out, "coverage.ndjson.svg")) {
		t.Fatalf("pictures not in $REBALANCE_ORACLE_OUT: %q", f.fatal)
	}
}

// TestTimelineMarks: a failing trace's timeline marks each broken law at
// its line's time, red, and each quiet point, grey.
func TestTimelineMarks(t *testing.T) {
	tr := mustRead(t, mustFile(t, "balance.ndjson"))
	rep, err := Check(tr, Options{Name: "balance.ndjson"})
	if err != nil {
		t.Fatal(err)
	}
	tl := rep.Timeline(tr)
	if len(tl.Marks) != 2 || !tl.Marks[0].Alarm || tl.Marks[0].Label != "Balance (line 9)" || tl.Marks[0].At != 0.020 || tl.Marks[1].Alarm || tl.Marks[1].Label != "quiet" {
		t.Fatalf("marks %+v", tl.Marks)
	}
	if len(tl.Lanes) != 4 || tl.XLabel != "time (s)" || !strings.HasPrefix(tl.Title, "balance.ndjson") {
		t.Fatalf("timeline %+v", tl)
	}
}

func mustFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWriteFile: writeFile writes what it is given, and reports, with the
// path, the writer's error (which closing the file must not replace) and
// an error creating the file.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	if err := writeFile(good, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(good); err != nil || string(b) != "x" {
		t.Fatalf("wrote %q (%v), want \"x\"", b, err)
	}
	boom := errors.New("boom")
	bad := filepath.Join(dir, "bad")
	if err := writeFile(bad, func(io.Writer) error { return boom }); !errors.Is(err, boom) || !strings.Contains(err.Error(), bad) {
		t.Fatalf("a failing writer: %v, want boom with the path", err)
	}
	if err := writeFile(filepath.Join(dir, "missing", "f"), func(io.Writer) error { return nil }); err == nil {
		t.Fatal("a file in a missing directory: no error")
	}
}
