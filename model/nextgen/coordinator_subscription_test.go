package nextgen

import (
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestRefreshedMetadataIsSubscriptionMetadata: refreshedMetadata, the fast
// path, computes what subscriptionMetadata, the reference, does, on random
// metadata images, stored subscription metadata and subscribed names; and
// it returns the stored map exactly when that is what it computes.
func TestRefreshedMetadataIsSubscriptionMetadata(t *testing.T) {
	universe := []string{"a", "b", "c", "d"}
	topics := func(t *rapid.T, label string) spec.Topics {
		if rapid.IntRange(0, 7).Draw(t, label+"Nil") == 0 {
			return nil
		}
		out := spec.Topics{}
		for _, name := range universe {
			if rapid.Bool().Draw(t, label+"Has") {
				out[name] = int32(rapid.IntRange(0, 2).Draw(t, label+"Count"))
			}
		}
		return out
	}
	rapid.Check(t, func(t *rapid.T) {
		c := &Coordinator{topics: topics(t, "topics"), subscribed: topics(t, "subscribed")}
		var names []string
		for _, name := range universe {
			if rapid.Bool().Draw(t, "subscribes") {
				names = append(names, name)
			}
		}
		if rapid.Bool().Draw(t, "current") {
			// The common case: the stored metadata is current.
			c.subscribed = c.subscriptionMetadata(names)
		}
		want := c.subscriptionMetadata(names)
		got := c.refreshedMetadata(names)
		if !maps.Equal(got, want) || got == nil {
			t.Fatalf("refreshedMetadata(%v) = %v, subscriptionMetadata %v (metadata %v, stored %v)", names, got, want, c.topics, c.subscribed)
		}
		stored := c.subscribed != nil && maps.Equal(c.subscribed, want)
		if same := sameMap(got, c.subscribed); same != stored {
			t.Fatalf("refreshedMetadata(%v) returned the stored map: %t, want %t (stored %v, computed %v)", names, same, stored, c.subscribed, want)
		}
	})
}

// sameMap reports whether a and b are the same map (not merely equal): a
// write to one shows in the other.
func sameMap(a, b spec.Topics) bool {
	if a == nil || b == nil {
		return false
	}
	const probe = "\x00probe"
	_, had := a[probe]
	if had {
		return false
	}
	a[probe] = 1
	_, shared := b[probe]
	delete(a, probe)
	return shared
}

// TestResubscribedKeepsStoredSubscription: a request that resends its
// member's subscription keeps the stored slice; any other is
// distinct(topics), in a new slice, and nil for none.
func TestResubscribedKeepsStoredSubscription(t *testing.T) {
	old := []string{"a", "b"}
	if got := resubscribed(old, []string{"a", "b"}); len(got) != 2 || &got[0] != &old[0] {
		t.Errorf("resubscribed(%v, the same) = %v, not the stored slice", old, got)
	}
	for _, topics := range [][]string{{"b", "a"}, {"a", "b", "b"}, {"a"}, {"c", "a", "b"}} {
		got, want := resubscribed(old, topics), distinct(topics)
		if !slices.Equal(got, want) || &got[0] == &old[0] {
			t.Errorf("resubscribed(%v, %v) = %v, want %v in a new slice", old, topics, got, want)
		}
	}
	if got := resubscribed([]string{}, []string{}); got != nil {
		t.Errorf("resubscribed of no topics = %#v, want nil", got)
	}
	if got := resubscribed(nil, []string{"b", "a"}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("resubscribed(nil, [b a]) = %v, want [a b]", got)
	}
}

// TestTargetMemberLeavesOutEmptyTopic: the target builder's view of a
// member leaves out an empty topic name without writing to the stored
// subscription, and shares a subscription that has none.
func TestTargetMemberLeavesOutEmptyTopic(t *testing.T) {
	sub := []string{"", "a", "b"}
	if got := targetMember(member{id: "A", subscription: sub}).Topics; !slices.Equal(got, []string{"a", "b"}) || !slices.Equal(sub, []string{"", "a", "b"}) {
		t.Errorf("targetMember topics %v (subscription now %v), want [a b] and the subscription unchanged", got, sub)
	}
	plain := []string{"a", "b"}
	if got := targetMember(member{id: "A", subscription: plain}).Topics; len(got) != 2 || &got[0] != &plain[0] {
		t.Errorf("targetMember topics %v, want the stored subscription itself", got)
	}
}
