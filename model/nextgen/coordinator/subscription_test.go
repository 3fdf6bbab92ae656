package coordinator

import (
	"maps"
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
