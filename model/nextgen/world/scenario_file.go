package world

import core "github.com/rebalance-ref/rebalance/model/world"

// ScenarioFile replays the scenario commands on a fresh script and returns
// them as a scenario file (see model/world.ScenarioFile).
func ScenarioFile(comment, lines []string) (string, error) {
	return core.ScenarioFile(Family{}, comment, lines)
}
