package world_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/node"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// stepBreaks is a classic coordinator whose invariants break in every
// step it takes: CheckInvariants fails on a copy that has stepped since
// it was forked or cloned.
type stepBreaks struct {
	core.Coordinator[classic.Message, classic.Timer, classic.Callback]
	stepped bool
}

func (c *stepBreaks) StepInto(in node.Input, out *node.Output[classic.Message, classic.Timer, classic.Callback]) {
	c.stepped = true
	c.Coordinator.StepInto(in, out)
}

func (c *stepBreaks) CloneCoordinator() core.Coordinator[classic.Message, classic.Timer, classic.Callback] {
	return &stepBreaks{Coordinator: c.Coordinator.CloneCoordinator()}
}

func (c *stepBreaks) CheckInvariants() error {
	if c.stepped {
		return errors.New("stepped")
	}
	return c.Coordinator.CheckInvariants()
}

// TestInvariantsCheckedWhereTheCoordinatorSteps: the world checks the
// coordinator's invariants after each step that changed the coordinator
// (it copies it first, so the state has a coordinator of its own), and
// only then: a state that shares its parent's coordinator shares what
// was checked there. Along a path of the default cooperative world, a
// coordinator whose invariants break whenever it steps is reported in
// exactly the steps that stepped it, with the memo of coordinator steps
// and without it (a step that breaks an invariant is never kept, so it is
// never taken from the memo unchecked).
func TestInvariantsCheckedWhereTheCoordinatorSteps(t *testing.T) {
	for _, memo := range []bool{false, true} {
		t.Run(fmt.Sprintf("memo=%v", memo), func(t *testing.T) {
			m := classicModel(t, "cooperative", classicworld.DefaultCheckOptions())
			core.SetStepMemo(m, memo, false)
			invariantsCheckedWhereTheCoordinatorSteps(t, m)
		})
	}
}

func invariantsCheckedWhereTheCoordinatorSteps(t *testing.T, m *classicworld.Model) {
	s := m.Init()[0]
	s.W.Coordinator = &stepBreaks{Coordinator: s.W.Coordinator.CloneCoordinator()}
	stepped, shared := 0, 0
	for i := range 60 {
		acts := m.Actions(s, nil)
		if len(acts) == 0 {
			break
		}
		// Alternate between the first and the last enabled action, so
		// that the path mixes the coordinator's steps with the others.
		a := acts[0]
		if i%2 == 1 {
			a = acts[len(acts)-1]
		}
		line := m.Line(s, a)
		next, viols := m.Step(s, a)
		reported := slices.ContainsFunc(viols, func(v spec.Violation) bool { return v.Law == core.CoordinatorInvariant })
		if own := next.W.Coordinator != s.W.Coordinator; own {
			stepped++
			if !reported {
				t.Errorf("step %d (%s) stepped the coordinator and its broken invariant went unreported", i+1, line)
			}
		} else {
			shared++
			if reported {
				t.Errorf("step %d (%s) left the coordinator alone and reported its invariant", i+1, line)
			}
		}
		s = next
	}
	if stepped == 0 || shared == 0 {
		t.Fatalf("the path stepped the coordinator %d times and left it alone %d times: want both", stepped, shared)
	}
}
