package classic

import (
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestUnsubscribedIsFilter: Member.unsubscribed returns the resources of a
// set whose topic the member does not subscribe to, in order, nil when
// there are none (as the binary search per run it replaced did), for any
// set and subscription.
func TestUnsubscribedIsFilter(t *testing.T) {
	names := []string{"a", "b", "t-1", "t-2", "c", "zz"}
	rapid.Check(t, func(t *rapid.T) {
		var topics []string
		for _, n := range names {
			if rapid.Bool().Draw(t, "subscribes-"+n) {
				topics = append(topics, n)
			}
		}
		slices.Sort(topics)
		m := &Member{topics: topics}
		res := rapid.Custom(func(t *rapid.T) spec.Resource {
			return spec.Resource{Topic: rapid.SampledFrom(names).Draw(t, "topic"), Partition: rapid.Int32Range(-1, 5).Draw(t, "partition")}
		})
		s := spec.NewSet(rapid.SliceOfN(res, 0, 12).Draw(t, "resources")...)
		var want spec.Set
		for i := 0; i < len(s); {
			j := i + 1
			for j < len(s) && s[j].Topic == s[i].Topic {
				j++
			}
			if _, ok := slices.BinarySearch(topics, s[i].Topic); !ok {
				want = append(want, s[i:j]...)
			}
			i = j
		}
		if got := m.unsubscribed(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("unsubscribed(%v) with topics %q = %v, want %v", s, topics, got, want)
		}
	})
}
