package world

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
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
// with go test ./model/nextgen/world -run TestCounterexamples -rewrite.
func TestCounterexamples(t *testing.T) {
	files, err := filepath.Glob("testdata/counterexamples/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no counterexample files: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s := &Script{}
			datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
				args := make([]Arg, len(d.CmdArgs))
				for i, a := range d.CmdArgs {
					args[i] = Arg{Key: a.Key, Vals: a.Vals}
				}
				out, err := s.Run(d.Cmd, args)
				if err != nil {
					out += "error: " + err.Error() + "\n"
				}
				return out
			})
			_, law, lines := readCounterexample(t, path)
			on := replay(t, lines)
			if law == spec.EventuallyConverged {
				if len(on.Violations) > 0 {
					t.Fatalf("switch on: want no safety violation, got %v", on.Violations)
				}
				on.Settle(60000, 1000)
				if vs := on.CheckConverged(); len(vs) == 0 {
					t.Fatalf("switch on: the group converged once quiet; the file shows no liveness failure")
				}
			} else if !slices.ContainsFunc(on.Violations, func(v spec.Violation) bool { return v.Law == law }) {
				t.Fatalf("switch on: want a %s violation, got %v", law, on.Violations)
			}
			off := replay(t, stripFaults(lines))
			if len(off.Violations) > 0 {
				t.Fatalf("switch off: the same steps break %v", off.Violations)
			}
			if !off.Settle(60000, 1000) {
				t.Fatalf("switch off: the network never drained")
			}
			if vs := off.CheckConverged(); len(vs) > 0 {
				t.Fatalf("switch off: not converged once quiet: %v", vs)
			}
		})
	}
}

var headerRE = regexp.MustCompile(`^# Counterexample found by rebalance check --protocol (\w+)`)

// readCounterexample returns the protocol and law of a counterexample file
// and its commands, printouts left out.
func readCounterexample(t *testing.T, path string) (string, spec.Law, []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Split(string(b), "\n")
	m := headerRE.FindStringSubmatch(text[0])
	if m == nil || len(text) < 2 {
		t.Fatalf("%s: no header naming the protocol", path)
	}
	law, _, _ := strings.Cut(strings.TrimPrefix(text[1], "# "), ":")
	var cmds []string
	inOutput := false
	for i, l := range text {
		switch {
		case inOutput:
			inOutput = l != ""
		case l == "----":
			inOutput = true
		case l != "" && !strings.HasPrefix(l, "#") && i+1 < len(text) && text[i+1] == "----":
			if l != "ownership" && l != "check" {
				cmds = append(cmds, l)
			}
		}
	}
	return m[1], spec.Law(law), cmds
}

func replay(t *testing.T, lines []string) *World {
	t.Helper()
	s := &Script{}
	for _, l := range lines {
		cmd, args, err := script.ParseLine(l)
		if err != nil {
			t.Fatal(err)
		}
		// A step that no longer applies with the switch off (a message
		// that is not in flight) is skipped; the laws are what matter.
		_, _ = s.Run(cmd, args)
	}
	return s.W
}

var faultsRE = regexp.MustCompile(` faults=\([^)]*\)`)

func stripFaults(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = faultsRE.ReplaceAllString(l, "")
	}
	return out
}
