package world

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/script"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestCounterexamples replays every counterexample the model checker found
// with a fault switch on (testdata/counterexamples, written by
// rebalance check --scenarios). Each file must
//
//   - replay exactly as recorded (the golden outputs show the violation);
//   - with its switches on, break the law its header names: a safety law
//     on the way, or, for EventuallyConverged, no convergence even once the
//     environment falls quiet;
//   - with every switch off, break no law on the same steps and converge
//     once the environment falls quiet.
//
// Regenerate a file with the command in its first line, and the outputs
// with go test ./model/classic/world -run TestCounterexamples -rewrite.
func TestCounterexamples(t *testing.T) {
	files, err := filepath.Glob("testdata/counterexamples/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no counterexample files: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			runScenarioFile(t, path)
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ce, err := script.ParseCounterexample(string(text))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			law := spec.Law(ce.Law)
			on := replay(t, ce.Commands)
			if law == spec.EventuallyConverged {
				if len(on.Violations) > 0 {
					t.Fatalf("switch on: want no safety violation, got %v", on.Violations)
				}
				on.Settle(60000, 1000)
				if vs := on.CheckConverged(BalanceOf(ce.Protocol)); len(vs) == 0 {
					t.Fatalf("switch on: the group converged once quiet; the file shows no liveness failure")
				}
			} else if !slices.ContainsFunc(on.Violations, func(v spec.Violation) bool { return v.Law == law }) {
				t.Fatalf("switch on: want a %s violation, got %v", law, on.Violations)
			}
			off := replay(t, script.WithoutFaults(ce.Commands))
			if len(off.Violations) > 0 {
				t.Fatalf("switch off: the same steps break %v", off.Violations)
			}
			if !off.Settle(60000, 1000) {
				t.Fatalf("switch off: the network never drained")
			}
			if vs := off.CheckConverged(BalanceOf(ce.Protocol)); len(vs) > 0 {
				t.Fatalf("switch off: not converged once quiet: %v", vs)
			}
		})
	}
}

// replay runs the commands on a fresh script. A step that no longer
// applies with the switch off (a message that is not in flight) is
// skipped; the laws are what matter.
func replay(t *testing.T, lines []string) *World {
	t.Helper()
	s := NewScript()
	for _, l := range lines {
		cmd, args, err := script.ParseLine(l)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = s.Run(cmd, args)
	}
	return s.W
}
