package world_test

import (
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
)

// TestFailedRoundsCount: a round the leader computes and has to reject
// (here every one after C joins: cooperative-no-withholding hands a moving
// resource over in the round it is revoked) counts for the bounded-rounds
// law as a round sent does. Without the count, no step after the join
// would count a round at all.
func TestFailedRoundsCount(t *testing.T) {
	o := classicworld.DefaultCheckOptions()
	o.Members, o.Joins, o.Topics, o.Partitions = 2, 1, 1, 2
	o.Crashes, o.Leaves, o.Drops = 0, 0, 0
	o.Faults = classic.CooperativeNoWithholding
	m := classicModel(t, "cooperative", o)
	frontier := m.Init()
	counted := false
	for depth := 0; depth < 60 && len(frontier) > 0 && !counted; depth++ {
		var next []*classicworld.State
		for _, s := range frontier {
			for _, a := range m.Actions(s, nil) {
				n, _ := m.Step(s, a)
				if n.Rounds > s.Rounds && len(n.W.Rounds) == len(s.W.Rounds) {
					counted = true // a round counted that no leader sent
				}
				if len(next) < 2000 {
					next = append(next, n)
				}
			}
		}
		frontier = next
	}
	if !counted {
		t.Fatal("no step counted the leader's failed round")
	}
}
