package policy

import (
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestSubscribedTopics: the union of the subscriptions, sorted and
// distinct; the first subscription itself, not a copy, when every member
// subscribes to the same topics, in one slice or in equal ones; nil for
// no members.
func TestSubscribedTopics(t *testing.T) {
	shared := []string{"a", "c"}
	if got := subscribedTopics([][]string{shared, shared, shared}); !slices.Equal(got, shared) || &got[0] != &shared[0] {
		t.Errorf("one shared subscription: got %v, want the subscription itself, not a copy", got)
	}
	if got, want := subscribedTopics([][]string{{"b", "c"}, shared, shared, {"a"}}), []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("several subscriptions: got %v, want %v", got, want)
	}
	// Equal subscriptions in slices of their own: the first is the union.
	equal := [][]string{{"a", "c"}, {"a", "c"}, {"a", "c"}}
	if got := subscribedTopics(equal); !slices.Equal(got, shared) || &got[0] != &equal[0][0] {
		t.Errorf("equal subscriptions: got %v, want the first subscription itself, not a copy", got)
	}
	if got, want := subscribedTopics([][]string{{"a", "c"}, {"a", "c"}, {"b"}, {"b"}, {"a", "c"}}), []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("equal subscriptions, then others: got %v, want %v", got, want)
	}
	if got := subscribedTopics(nil); got != nil {
		t.Errorf("no members: got %v, want nil", got)
	}
}

// TestConnectClaimPastTheEnd: a claim of the partition just past a topic's
// last one names no configured resource (not the next topic's first): it
// is revoked, and the resources of the next topic are handed out as
// unclaimed.
func TestConnectClaimPastTheEnd(t *testing.T) {
	for _, p := range []classic.Protocol{Deferred(DeferredConfig{}), Incremental(IncrementalConfig{})} {
		t.Run(p.Name(), func(t *testing.T) {
			g := newGroup(t, p, spec.Topics{"a": 1, "b": 1}).
				join("A", []string{"a", "b"}, "{a-0 a-1}").
				join("B", []string{"a", "b"}, "{}")
			g.newLeader("A").round()
			g.want("revoked", g.revoked(), "A:{a-1}")
			g.want("assigned", g.assigned(), "A:{a-0} B:{b-0}")
		})
	}
}
