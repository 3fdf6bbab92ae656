package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestSimulateUsageErrors(t *testing.T) {
	for _, o := range []simulateOptions{
		{protocol: "paxos", runs: 1, steps: 1},
		{protocol: "nextgen", runs: 1, steps: 0},
		{protocol: "eager", runs: 0, steps: 10},
		{protocol: "eager", runs: 1, steps: 1, faults: []string{"no-such-fault"}},
	} {
		var out bytes.Buffer
		err := runSimulate(&out, o)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%+v: got %v, want a usage error", o, err)
		}
	}
}

func TestSimulateJSONAndFaults(t *testing.T) {
	var out bytes.Buffer
	if err := runSimulate(&out, simulateOptions{protocol: "cooperative", runs: 20, steps: 40, seed: 7, json: true}); err != nil {
		t.Fatalf("clean run: %v\n%s", err, out.String())
	}
	var r simResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out.String())
	}
	if r.Protocol != "cooperative" || r.Runs != 20 || r.Steps == 0 || len(r.Violations) != 0 {
		t.Fatalf("unexpected summary %+v", r)
	}

	out.Reset()
	err := runSimulate(&out, simulateOptions{protocol: "cooperative", runs: 300, steps: 60, seed: 1, faults: []string{"keep-revoked"}})
	if !errors.Is(err, errViolation) {
		t.Fatalf("keep-revoked: got %v, want a simViolation\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "ExclusiveOwnership") {
		t.Fatalf("keep-revoked: want ExclusiveOwnership reported:\n%s", out.String())
	}
}

func TestSimulateNextgenFault(t *testing.T) {
	var out bytes.Buffer
	err := runSimulate(&out, simulateOptions{protocol: "nextgen", runs: 300, steps: 60, seed: 1, faults: []string{"straight-to-target"}})
	if !errors.Is(err, errViolation) || !strings.Contains(out.String(), "ExclusiveOwnership") {
		t.Fatalf("straight-to-target: got %v, want ExclusiveOwnership reported:\n%s", err, out.String())
	}
}
