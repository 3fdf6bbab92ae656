package world

import "github.com/rebalance-ref/rebalance/model/script"

// ScenarioFile replays the scenario commands on a fresh script and returns
// them as a scenario file, each with the output it produces, after the
// comment lines. The model checker writes its counterexamples with it, so
// each one replays as a scenario test.
func ScenarioFile(comment, lines []string) (string, error) {
	s := NewScript()
	return script.File(comment, lines, s.Run)
}
