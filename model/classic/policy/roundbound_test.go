package policy

import (
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
)

// TestRoundBounds: each protocol's stated bound for a few group shapes, as
// its doc comment derives it.
func TestRoundBounds(t *testing.T) {
	incremental2 := Incremental(IncrementalConfig{MaxMovesPerRound: 2})
	for _, c := range []struct {
		p       classic.Protocol
		members int
		res     int
		want    int
	}{
		{Eager(nil), 3, 4, 2},
		{Cooperative(), 2, 2, 2}, // one member revokes: KIP-429's two rounds
		{Cooperative(), 3, 6, 3}, // two revoke
		{Cooperative(), 5, 2, 3}, // at most one revoker per resource
		{Cooperative(), 1, 4, 1}, // nobody to hand anything to
		{Deferred(DeferredConfig{}), 3, 4, 4},
		{Incremental(IncrementalConfig{}), 3, 4, 8}, // 4 + 2·(3−1)
		{incremental2, 3, 4, 6},                     // 4 + 2·(2−1)
		{Incremental(IncrementalConfig{}), 3, 1, 3}, // one resource: no batches
	} {
		got := c.p.(classic.RoundBounder).RoundBound(classic.GroupShape{Members: c.members, Resources: c.res})
		if got != c.want {
			t.Errorf("%s, %d members, %d resources: bound %d, want %d", c.p.Name(), c.members, c.res, got, c.want)
		}
	}
}
