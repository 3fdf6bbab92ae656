package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// small is a world small enough to explore in well under a second.
func small(protocol string) checkOptions {
	return checkOptions{protocol: protocol, members: 2, joins: 1, topics: 1, partitions: 2, leaves: 1, workers: 2}
}

func TestCheckUsageErrors(t *testing.T) {
	bad := []func(o *checkOptions){
		func(o *checkOptions) { o.protocol = "paxos" },
		func(o *checkOptions) { o.workers = 0 },
		func(o *checkOptions) { o.members = 0 },
		func(o *checkOptions) { o.joins = 5 },
		func(o *checkOptions) { o.partitions = 0 },
		func(o *checkOptions) { o.restarts = 1 },
		func(o *checkOptions) { o.drops = -1 },
		func(o *checkOptions) { o.faults = []string{"no-such-fault"} },
		func(o *checkOptions) { o.leaderFailover = "sometimes" },
		func(o *checkOptions) { o.protocol = "nextgen"; o.leaderBounces = 1 },
		func(o *checkOptions) { o.timeLimit = -1 },
	}
	for i, f := range bad {
		o := small("eager")
		f(&o)
		var out bytes.Buffer
		err := runCheck(&out, o)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("case %d (%+v): got %v, want a usage error", i, o, err)
		}
	}
}

func TestCheckJSON(t *testing.T) {
	var out bytes.Buffer
	o := small("cooperative")
	o.asJSON = true
	if err := runCheck(&out, o); err != nil {
		t.Fatalf("clean run: %v\n%s", err, out.String())
	}
	var r map[string]any
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out.String())
	}
	for _, k := range []string{"protocol", "distinct_states", "transitions", "depth", "elapsed_seconds", "states_per_second", "violations"} {
		if _, ok := r[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, out.String())
		}
	}
	if r["protocol"] != "cooperative" || r["distinct_states"].(float64) < 10 || r["complete"] != true || len(r["violations"].([]any)) != 0 {
		t.Errorf("unexpected summary %s", out.String())
	}
}

// TestCheckFaultWritesScenario: a fault switch is reported as its law with
// exit status 1, and the counterexample is written as a scenario file.
func TestCheckFaultWritesScenario(t *testing.T) {
	dir := t.TempDir()
	o := small("eager")
	o.faults = []string{"eager-no-revoke"}
	o.scenarioDir = dir
	var out bytes.Buffer
	err := runCheck(&out, o)
	if !errors.Is(err, errViolation) || !strings.Contains(out.String(), "ExclusiveOwnership") {
		t.Fatalf("eager-no-revoke: got %v, want ExclusiveOwnership:\n%s", err, out.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	if len(files) != 1 {
		t.Fatalf("want one scenario file, got %v", files)
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), "VIOLATION ExclusiveOwnership") || !strings.HasPrefix(string(b), "# Counterexample found by rebalance check --protocol eager --fault eager-no-revoke") {
		t.Errorf("scenario file does not show the violation:\n%s", b)
	}
}

func TestCheckIncompleteIsNotAPass(t *testing.T) {
	o := small("deferred")
	o.maxStates = 50
	var out bytes.Buffer
	if err := runCheck(&out, o); !errors.Is(err, errViolation) || !strings.Contains(out.String(), "INCOMPLETE") {
		t.Fatalf("got %v, want exit 1 and INCOMPLETE:\n%s", err, out.String())
	}
}

func TestListFaults(t *testing.T) {
	var out bytes.Buffer
	if err := runCheck(&out, checkOptions{listFaults: true}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"eager-no-revoke", "cooperative-no-withholding", "keep-revoked", "assign-before-release", "straight-to-target"} {
		if !strings.Contains(out.String(), name) {
			t.Errorf("--list-faults does not list %s:\n%s", name, out.String())
		}
	}
}
