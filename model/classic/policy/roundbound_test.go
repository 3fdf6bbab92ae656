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

// TestDelayBounds: Designs II and III state the delays they may take once
// quiet: one scheduled delay, plus a back-off (Design II) or a step delay
// (Design III) in each of their rounds; delays disabled leave Design III's
// steps. Eager and cooperative take none.
func TestDelayBounds(t *testing.T) {
	g := classic.GroupShape{Members: 3, Resources: 4}
	for _, c := range []struct {
		p    classic.Protocol
		want classic.Millis
	}{
		// 4 rounds: 20 s + back-offs of 40 ms, 1.6 s, then MaxDelay twice.
		{Deferred(DeferredConfig{MaxDelay: 20000, BackoffMultiplier: 40}), 20000 + 40 + 1600 + 20000 + 20000},
		// Multiplier 1: every back-off is 1 ms.
		{Deferred(DeferredConfig{MaxDelay: 3000, BackoffMultiplier: 1}), 3000 + 4},
		{Deferred(DeferredConfig{MaxDelay: -1}), 0},
		// 8 rounds of a 2 s step after one 20 s delay.
		{Incremental(IncrementalConfig{MaxDelay: 20000, StepDelay: 2000}), 20000 + 8*2000},
		{Incremental(IncrementalConfig{MaxDelay: -1, StepDelay: 2000}), 8 * 2000},
	} {
		got := c.p.(classic.DelayBounder).DelayBound(g)
		if got != c.want {
			t.Errorf("%s: delay bound %d, want %d", c.p.Name(), got, c.want)
		}
	}
	for _, p := range []classic.Protocol{Eager(nil), Cooperative()} {
		if _, ok := p.(classic.DelayBounder); ok {
			t.Errorf("%s states delays it never takes", p.Name())
		}
	}
}
