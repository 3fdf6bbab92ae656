package world_test

import (
	"fmt"
	"runtime"
	"testing"
	"weak"

	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/sim"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// TestForksKeepNoAncestor: a state the model checker keeps shares the
// processes and the coordinator its ancestors made, but must not keep
// those ancestors' worlds alive: the checker drops every state once it
// has expanded it, and a chain of kept ancestors (each holding its own
// processes, coordinator and recorded encodings) made the live heap grow
// with every state explored instead of with the frontier. Along a path of
// the default worlds (the first enabled action that is not a crash, so
// that the path keeps stepping), once only its last state is held, every
// earlier world is collected.
func TestForksKeepNoAncestor(t *testing.T) {
	const steps = 40
	t.Run("classic", func(t *testing.T) {
		checkNoAncestorKept(t, classicModel(t, "cooperative", classicworld.DefaultCheckOptions()), steps)
	})
	t.Run("nextgen", func(t *testing.T) {
		checkNoAncestorKept(t, nextgenModel(t, ngworld.DefaultCheckOptions()), steps)
	})
}

func checkNoAncestorKept[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, m *core.Model[M, T, C, P], steps int) {
	t.Helper()
	s := m.Init()[0]
	var worlds []weak.Pointer[core.World[M, T, C, P]]
	var path []string
	for range steps {
		var next core.Action
		found := false
		for _, a := range m.Actions(s, nil) {
			if a.Kind != core.Crash && a.Kind != core.Leave {
				next, found = a, true
				break
			}
		}
		if !found {
			break
		}
		worlds = append(worlds, weak.Make(s.W))
		path = append(path, m.Line(s, next))
		s, _ = m.Step(s, next)
	}
	if len(worlds) < steps/2 {
		t.Fatalf("the path stopped after %d steps", len(worlds))
	}
	runtime.GC()
	runtime.GC()
	for i, w := range worlds {
		if w.Value() != nil {
			t.Errorf("the world before step %d (%s) is alive while only the state after step %d is held", i+1, path[i], len(worlds))
		}
	}
	runtime.KeepAlive(s)
}
