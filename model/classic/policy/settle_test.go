package policy

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestSettleSkipsKeptClaims: settling with the kept claims known (members
// whose list is still their kept claims are not scanned until they are
// given something) gives what settling without them gives, scanning every
// member in every pass, on random rounds with heterogeneous subscriptions
// (so that a member given a resource may have to give it on).
func TestSettleSkipsKeptClaims(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.IntRange(2, 5).Draw(t, "members")
		topics := spec.Topics{"a": int32(rapid.IntRange(1, 6).Draw(t, "a")), "b": int32(rapid.IntRange(1, 6).Draw(t, "b"))}
		ids := make([]spec.MemberID, w)
		subs := make([][]string, w)
		for p := range ids {
			ids[p] = spec.MemberID(fmt.Sprintf("m%d", p))
			subs[p] = rapid.SampledFrom([][]string{{"a"}, {"b"}, {"a", "b"}}).Draw(t, "subscription")
		}
		u := newUniverse(topics, subs)
		lr := &leaderRound{round: round{ids: ids, owned: spec.Assignment{}}, u: u, claimer: make([]int32, u.size)}
		lr.subscribed = make([][]bool, w)
		for p, s := range subs {
			lr.subscribed[p] = make([]bool, len(u.topics))
			for k, sp := range u.topics {
				lr.subscribed[p][k] = slices.Contains(s, sp.name)
			}
		}
		// Every resource goes to some eligible member or nobody; a held
		// one is its holder's claim or fresh to it.
		a := make([][]int32, w)
		for i := range int32(u.size) {
			p := rapid.IntRange(-1, w-1).Draw(t, "holder")
			if p < 0 || !lr.eligibleIdx(p, i) {
				continue
			}
			a[p] = append(a[p], i)
			if rapid.Bool().Draw(t, "claimed") {
				lr.claimer[i] = int32(p) + 1
				lr.owned[ids[p]] = append(lr.owned[ids[p]], u.resource(i))
			}
		}
		// The members holding only their claims have them as kept claims.
		kept := make([][]int32, w)
		for p, xs := range a {
			if !slices.ContainsFunc(xs, func(i int32) bool { return lr.claimer[i] != int32(p)+1 }) {
				kept[p] = xs
			}
		}
		want := lr.settle(a, lr.settleable, nil, true)
		lr.kept = kept
		got := lr.settle(a, lr.settleable, nil, true)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("settle with the kept claims %v:\n%v\nwithout:\n%v", kept, got, want)
		}
	})
}
