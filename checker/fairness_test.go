package checker

import (
	"fmt"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/spec"
)

// table is a toy model given as a table: its states are 0 to
// len(steps)-1, steps[s] lists the own actions of state s in order, and
// the states in converged are the liveness target.
type table struct {
	init      []int
	steps     [][]tableStep
	converged []int
}

// tableStep is an own action: its fairness key and the state it leads to.
type tableStep struct {
	key uint64
	to  int
}

func (m table) Init() []int { return m.init }
func (m table) Actions(s int, dst []tableStep) []tableStep {
	return append(dst, m.steps[s]...)
}
func (m table) Step(_ int, a tableStep) (int, []spec.Violation) { return a.to, nil }
func (m table) Encode(e *canon.Encoder, s int)                  { e.Int(int64(s)) }
func (m table) Kind(tableStep) Kind                             { return Own }
func (m table) FairKey(_ int, a tableStep) uint64               { return a.key }
func (m table) Owners(int) uint64                               { return 0 }
func (m table) Line(_ int, a tableStep) string                  { return fmt.Sprintf("k%d to %d", a.key, a.to) }
func (m table) Preamble() []string                              { return nil }
func (m table) Interchangeable() [][]string                     { return nil }
func (m table) Converged(s int) []spec.Violation {
	if slices.Contains(m.converged, s) {
		return nil
	}
	return []spec.Violation{{Law: spec.Coverage, Detail: fmt.Sprint("state ", s)}}
}

// TestFairnessKeysOfSteps: the liveness check judges a cycle by the keys
// of the steps it takes, so each step must carry its own action's key,
// whatever its place among the state's actions. States 0 and 1 both
// enable k1 and k2, and either may lead to the converged state 2. In the
// fair world 0 takes k1 to 1 and 1 takes k2 back, listed after k1 in 0
// and before it in 1 (the two states are expanded in one level): the
// cycle takes both keys, so it is fair and never converges. In the unfair
// world the cycle takes k1 alone while k2 stays enabled. With one worker
// and with two.
func TestFairnessKeysOfSteps(t *testing.T) {
	fair := table{init: []int{0, 1}, converged: []int{2}, steps: [][]tableStep{
		{{1, 1}, {2, 2}},
		{{2, 0}, {1, 2}},
		nil,
	}}
	unfair := table{init: []int{0, 1}, converged: []int{2}, steps: [][]tableStep{
		{{1, 1}, {2, 2}},
		{{2, 2}, {1, 0}},
		nil,
	}}
	for _, w := range []int{1, 2} {
		r, err := Explore[int, tableStep](fair, Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Violations) != 1 || r.Violations[0].Law != spec.EventuallyConverged || r.Violations[0].Loop < 0 {
			t.Fatalf("%d workers: the fair cycle: want one lasso, got %+v", w, r.Violations)
		}
		// The cycle takes both keys, and only the steps between 0 and 1
		// (the tour may go round more than once).
		cycle := lines(r.Violations[0].Steps[r.Violations[0].Loop:])
		if !slices.Contains(cycle, "k1 to 1") || !slices.Contains(cycle, "k2 to 0") || slices.ContainsFunc(cycle, func(l string) bool { return l != "k1 to 1" && l != "k2 to 0" }) {
			t.Errorf("%d workers: the fair cycle is %v", w, cycle)
		}
		if r, err = Explore[int, tableStep](unfair, Options{Workers: w}); err != nil || len(r.Violations) != 0 {
			t.Errorf("%d workers: the unfair cycle: got %+v, %v", w, r.Violations, err)
		}
	}
}
