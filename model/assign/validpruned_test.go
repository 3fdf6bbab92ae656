package assign_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestValidPrunedIsValidateThenPrune: ValidPruned fails where
// spec.Set.Validate fails, with its error, and otherwise returns what
// assign.PruneOwned makes of the set (the same slice when it keeps
// everything, nil when it keeps nothing), for any set, valid or not, and
// any universe (including one whose topics hold every resource of the set,
// where only the set's order can fail it).
func TestValidPrunedIsValidateThenPrune(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		topics := spec.Topics{}
		for _, name := range []string{"a", "b", "c"} {
			if rapid.Bool().Draw(t, "has-"+name) {
				topics[name] = int32(rapid.IntRange(0, 4).Draw(t, "count-"+name))
			}
		}
		// Now and then a universe that holds every resource drawn (even
		// an empty topic's), so that a set out of order or with a
		// duplicate is not also pruned: only Validate refuses it.
		lowest := int32(-1)
		if rapid.IntRange(0, 2).Draw(t, "wide") == 0 {
			topics = spec.Topics{"": 7, "a": 7, "b": 7, "c": 7, "d": 7}
			lowest = 0
		}
		// Now and then an invalid resource (an empty topic, a negative
		// partition other than a connector's), which fails the whole set.
		invalid := rapid.IntRange(0, 3).Draw(t, "invalid") == 0
		res := rapid.Custom(func(t *rapid.T) spec.Resource {
			r := spec.Resource{
				Topic:     rapid.SampledFrom([]string{"a", "b", "c", "d"}).Draw(t, "topic"),
				Partition: rapid.Int32Range(lowest, 6).Draw(t, "partition"),
			}
			if invalid && rapid.IntRange(0, 4).Draw(t, "break") == 0 {
				if rapid.Bool().Draw(t, "empty") {
					r.Topic = ""
				} else {
					r.Partition = -2
				}
			}
			return r
		})
		s := spec.Set(rapid.SliceOfN(res, 0, 10).Draw(t, "resources"))
		if rapid.IntRange(0, 3).Draw(t, "sorted") > 0 {
			s = spec.NewSet(s...)
			if len(s) > 0 && rapid.IntRange(0, 4).Draw(t, "duplicate") == 0 {
				k := rapid.IntRange(0, len(s)-1).Draw(t, "duplicate-at")
				s = slices.Insert(slices.Clone(s), k, s[k])
			}
		}
		got, gerr := assign.ValidPruned(topics, s)
		if werr := s.Validate(); werr != nil {
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("ValidPruned(%v) error %v, Validate %v", s, gerr, werr)
			}
			return
		}
		want := assign.PruneOwned(assign.Group{Topics: topics, Members: []assign.Member{{ID: "m", Owned: s}}}).Members[0].Owned
		if gerr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("ValidPruned(%v) = %#v, %v; PruneOwned %#v", s, got, gerr, want)
		}
		if len(got) > 0 && len(got) == len(s) && &got[0] != &s[0] {
			t.Fatalf("ValidPruned(%v) kept everything in a copy", s)
		}
	})
}
