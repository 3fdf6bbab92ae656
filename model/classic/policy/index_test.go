package policy

import (
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
	"pgregory.net/rapid"
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

// TestLocatorIndex: a locator walked along a list of resources finds each
// one's index as a plain lookup does, whether the list is sorted by topic
// (its next run's topic tried first) or not, and for topics and
// partitions the universe does not configure.
func TestLocatorIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		topics := spec.Topics{}
		names := []string{"a", "b", "c", "d", "e"}
		for _, n := range rapid.SliceOfNDistinct(rapid.SampledFrom(names), 1, 5, rapid.ID[string]).Draw(t, "configured") {
			topics[n] = int32(rapid.IntRange(0, 3).Draw(t, "partitions-"+n))
		}
		if rapid.Bool().Draw(t, "connector") {
			topics = topics.AddConnector("k", int32(rapid.IntRange(0, 2).Draw(t, "tasks")))
		}
		sub := append(spec.AppendSortedKeys(nil, topics), "zz")
		slices.Sort(sub)
		u := newUniverse(topics, [][]string{sub})
		rs := rapid.SliceOf(rapid.Custom(func(t *rapid.T) spec.Resource {
			n := rapid.SampledFrom(append(names, "k", "zz")).Draw(t, "topic")
			return spec.Resource{Topic: n, Partition: int32(rapid.IntRange(-2, 4).Draw(t, "partition"))}
		})).Draw(t, "resources")
		if rapid.Bool().Draw(t, "sorted") {
			slices.SortFunc(rs, spec.Resource.Compare)
		}
		plain := func(r spec.Resource) (int32, bool) {
			p, ok := u.position(r.Topic)
			if !ok {
				return -1, false
			}
			sp := u.topics[p]
			if k := r.Partition - sp.lo; k >= 0 && k < sp.n {
				return sp.start + k, true
			}
			return -1, false
		}
		l := u.locator()
		for i, r := range rs {
			wi, wok := plain(r)
			if gi, gok := l.index(r); gi != wi || gok != wok {
				t.Fatalf("resource %d (%s) of %v: index %d, %t; a plain lookup %d, %t", i, r, rs, gi, gok, wi, wok)
			}
			if wok && u.resource(wi) != r {
				t.Fatalf("index %d of %s names %s", wi, r, u.resource(wi))
			}
		}
	})
}
