package world

import (
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestScenarios runs every scenario file in testdata/scenarios. Each file
// opens with a comment saying what it shows; the expected output after each
// command is what the world logged (with verbose, every heartbeat request
// and response with its epochs), callbacks, violations, or a printout.
//
// If this test fails after a deliberate change, run
//
//	go test ./model/nextgen/world -run TestScenarios -rewrite
//
// and read the diff before committing it: only commit changes you
// understand.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata/scenarios", func(t *testing.T, path string) {
		runScenarioFile(t, path)
	})
}

// runScenarioFile runs one scenario file on a fresh script, comparing each
// command's output with the file's.
func runScenarioFile(t *testing.T, path string) {
	s := NewScript()
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
}
