package assign

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestPruneSetIsFilter: pruneSet gives what the Filter it replaces gives,
// nil for nil, on sorted and unsorted inputs over known, unknown and
// shrunk topics, partitions and connector resources.
func TestPruneSetIsFilter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		topics := spec.Topics{"a": 3, "b": 0}
		topics.AddConnector("c", 2)
		var s spec.Set
		for range rapid.IntRange(0, 12).Draw(t, "len") {
			s = append(s, spec.Resource{
				Topic:     rapid.SampledFrom([]string{"a", "b", "c", "d"}).Draw(t, "topic"),
				Partition: int32(rapid.IntRange(-2, 4).Draw(t, "partition")),
			})
		}
		if rapid.Bool().Draw(t, "sorted") {
			s = spec.NewSet(s...)
		}
		if len(s) == 0 && rapid.Bool().Draw(t, "empty") {
			s = spec.Set{}
		}
		want := s.Filter(func(r spec.Resource) bool { return !r.IsConnector() && topics.Has(r) })
		if got := pruneSet(topics, s); !reflect.DeepEqual(got, want) {
			t.Fatalf("pruneSet(%v) = %#v, want %#v", s, got, want)
		}
	})
}
