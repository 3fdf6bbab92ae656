package world_test

import (
	"fmt"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/sim"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// TestDiscardedMemoryChangesNothing walks small worlds of each family
// breadth first (to a depth) and steps every action b of every state
// twice: once as the checker steps (Model.Step, which takes structs the
// walk discarded), and once into a struct whose previous successor, by
// the action before b of the same state or by the last action of the
// state before, was discarded (Model.Discard) with its memory kept as
// spares. The two successors must be the same state and break the same
// laws, the states stepped from must not change, a state kept as the
// checker keeps one must hold no spares, and over the walk the second
// steps must have reused every kind of spare memory. A spare that kept
// something another state still uses, or one not emptied, shows as a
// difference.
func TestDiscardedMemoryChangesNothing(t *testing.T) {
	cl := classicworld.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1, Duplicates: 1}
	t.Run("cooperative", func(t *testing.T) { discardedMemoryChangesNothing(t, classicModel(t, "cooperative", cl), 12) })
	t.Run("eager", func(t *testing.T) { discardedMemoryChangesNothing(t, classicModel(t, "eager", cl), 12) })
	ng := ngworld.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1, Duplicates: 1, Records: 1, RecordsOn: []string{"T-0"}}
	t.Run("nextgen", func(t *testing.T) { discardedMemoryChangesNothing(t, nextgenModel(t, ng), 9) })
	mx := core.DefaultCheckOptions[nextgen.Fault]()
	mx.Members, mx.Migrations = 2, 1
	t.Run("mixed", func(t *testing.T) { discardedMemoryChangesNothing(t, mixedModel(t, mx), 10) })
}

func discardedMemoryChangesNothing[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, m *core.Model[M, T, C, P], depth int) {
	t.Helper()
	type state = *core.State[M, T, C, P]
	seen := map[string]bool{}
	reused := map[string]int{}
	frontier := m.Init()
	steps, spared := 0, 0
	var prev state // the state the last action was taken in
	var prevAct core.Action
	for d := 0; d < depth && len(frontier) > 0; d++ {
		var next []state
		for _, s := range frontier {
			before := core.Describe(s)
			for _, b := range m.Actions(s, nil) {
				if prev == nil {
					prev, prevAct = s, b
				}
				want, wantViols := m.Step(s, b)
				got, gotViols, kinds := core.StepTwice(m, prev, prevAct, s, b)
				steps++
				if g, w := core.Describe(got), core.Describe(want); g != w || fmt.Sprint(gotViols) != fmt.Sprint(wantViols) {
					t.Fatalf("%q stepped into the memory of a successor by %q, discarded:\n%s%v\nstepped afresh:\n%s%v", m.Line(s, b), m.Line(prev, prevAct), g, gotViols, w, wantViols)
				}
				for _, k := range kinds {
					reused[k]++
				}
				// got has no successors: the walk discards it, and the
				// next Step takes its struct, with spares.
				m.Discard(got)
				prev, prevAct = s, b
				e := &canon.Encoder{}
				m.Encode(e, want)
				if k := string(e.Finish()); !seen[k] {
					// As the checker keeps a new state: its encoding
					// recorded, its unused spares let go.
					if core.SparesHeld(want) > 0 {
						spared++
					}
					m.Keep(e, want)
					if n := core.SparesHeld(want); n != 0 {
						t.Fatalf("a kept state holds spares with room for %d elements", n)
					}
					// A clone is a world of its own, outside the checker:
					// sharing the spares of the state it was cloned from,
					// it would take memory that state's struct may hand
					// to the state's next successor.
					if len(seen) < 50 && (!core.HasSpares(want.W) || core.HasSpares(want.W.Clone())) {
						t.Fatalf("a stepped state's world has spares: %t; its clone's: %t", core.HasSpares(want.W), core.HasSpares(want.W.Clone()))
					}
					seen[k] = true
					next = append(next, want)
				} else {
					m.Discard(want)
				}
			}
			if after := core.Describe(s); after != before {
				t.Fatalf("discarding successors changed the state they were stepped from:\n%s\nwas\n%s", after, before)
			}
		}
		frontier = next
	}
	t.Logf("%d states, %d steps, %d kept with spares unused; reused: %v", len(seen), steps, spared, reused)
	for _, k := range []string{"network", "timers", "process list", "view", "process", "node"} {
		if reused[k] == 0 {
			t.Errorf("no second step reused the spare %s (reused: %v)", k, reused)
		}
	}
	if spared == 0 {
		t.Error("no state kept held spares it did not use: the test of their release tests nothing")
	}
}
