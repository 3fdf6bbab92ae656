package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/checker/oracle"
)

// run runs the rebalance command line args and returns its output and
// error, as main would see them.
func run(args ...string) (string, error) {
	root := newRootCmd()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	return out.String() + errOut.String(), err
}

const examples = "../../checker/oracle/testdata/"

// TestTraceCheck: the exit status of rebalance trace check (no law
// broken, one broken, a trace that cannot be read), its text report (the
// oracle's), and its JSON report (one object per trace).
func TestTraceCheck(t *testing.T) {
	dir := t.TempDir()
	out, err := run("trace", "check", "--out", dir, examples+"pass.ndjson", examples+"fenced-zombie.ndjson")
	if err != nil || strings.Count(out, ": OK (") != 2 {
		t.Fatalf("passing traces: %v\n%s", err, out)
	}
	out, err = run("trace", "check", "--out", dir, examples+"pass.ndjson", examples+"coverage.ndjson")
	if !errors.Is(err, errViolation) || !strings.Contains(out, "coverage.ndjson: FAIL") || !strings.Contains(out, "replay: rebalance replay") {
		t.Fatalf("a failing trace: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "coverage.ndjson.svg")); err != nil {
		t.Fatalf("no timeline for the failing trace: %v", err)
	}
	bad := filepath.Join(dir, "bad.ndjson")
	if err := os.WriteFile(bad, []byte("{\"not\":\"a trace\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = run("trace", "check", bad, examples+"coverage.ndjson")
	if !errors.Is(err, errUnreadable) || !strings.Contains(out, "bad.ndjson: line 1: header") || !strings.Contains(out, "coverage.ndjson: FAIL") {
		t.Fatalf("an unreadable trace among others: %v\n%s", err, out)
	}
	out, err = run("trace", "check", "--json", "--out", dir, examples+"balance.ndjson")
	if !errors.Is(err, errViolation) {
		t.Fatalf("--json on a failing trace: %v", err)
	}
	var rep oracle.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not one JSON report: %v\n%s", err, out)
	}
	if v, ok := rep.Verdict("Balance"); !ok || v.Status != oracle.Broken || v.Line != 9 {
		t.Fatalf("JSON verdict on Balance: %+v", v)
	}
	if _, err := run("trace", "check"); err == nil {
		t.Fatal("no file: want a usage error")
	}
}

// TestReplay: a counterexample file replays exactly as recorded and
// breaks its law (exit 1); one whose recorded output was changed replays
// with the difference shown; a trace is judged again; a file that is
// neither is refused (exit 2).
func TestReplay(t *testing.T) {
	file := "../../model/classic/world/testdata/counterexamples/eager_no_revoke.txt"
	out, err := run("replay", file)
	if !errors.Is(err, errViolation) || !strings.Contains(out, "the replay prints exactly what the file records") || !strings.Contains(out, "broken: ExclusiveOwnership") {
		t.Fatalf("replay: %v\n%s", err, out)
	}
	// --timeline draws the counterexample: the double holding of T-1 by B
	// and C shows as two owners in one lane.
	svg := filepath.Join(t.TempDir(), "ce.svg")
	if out, err := run("replay", "--timeline", svg, file); !errors.Is(err, errViolation) || !strings.Contains(out, "timeline: "+svg) {
		t.Fatalf("replay --timeline: %v\n%s", err, out)
	}
	if pic, err := os.ReadFile(svg); err != nil || !strings.Contains(string(pic), "eager: ExclusiveOwnership broken") || !strings.Contains(string(pic), "T-1") {
		t.Fatalf("the timeline %s: %v", svg, err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(t.TempDir(), "changed.txt")
	if err := os.WriteFile(changed, bytes.Replace(b, []byte("A crashed"), []byte("A crashed twice"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = run("replay", changed)
	if !errors.Is(err, errViolation) || !strings.Contains(out, "recorded: A crashed twice") || !strings.Contains(out, "replayed: A crashed") {
		t.Fatalf("a changed file: %v\n%s", err, out)
	}
	out, err = run("replay", "--out", t.TempDir(), examples+"linearizable.ndjson")
	if !errors.Is(err, errViolation) || !regexp.MustCompile(`Linearizable +broken`).MatchString(out) {
		t.Fatalf("replay of a trace: %v\n%s", err, out)
	}
	if _, err := run("replay", "main.go"); !errors.Is(err, errUnreadable) {
		t.Fatalf("a file that is neither: got %v, want errUnreadable", err)
	}
}
