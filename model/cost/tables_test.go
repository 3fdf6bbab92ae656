package cost

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// timerName names the k-th timer of TestTimerTable; the first is the zero
// value, which a slot left behind by a delete would look like.
func timerName(k int) string {
	if k == 0 {
		return ""
	}
	return fmt.Sprintf("timer-%d", k)
}

// TestTimerTable: whatever the sequence of puts, gets and deletes, a
// timerTable finds what a map would (its list and, past listMax timers,
// its map), each timer's own entry.
func TestTimerTable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tt timerTable[string]
		model := map[string]*timerEntry{}
		// Up to three times listMax distinct timers, so that some runs
		// stay in the list and some turn it into a map.
		names := rapid.IntRange(1, 3*listMax).Draw(t, "timers")
		for range rapid.IntRange(0, 200).Draw(t, "ops") {
			name := timerName(rapid.IntRange(0, names-1).Draw(t, "timer"))
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				if model[name] == nil {
					ent := &timerEntry{at: 1}
					tt.put(name, ent)
					model[name] = ent
				}
			case 1:
				tt.del(name)
				delete(model, name)
			}
			for k := range names {
				n := timerName(k)
				if got, want := tt.get(n), model[n]; got != want {
					t.Fatalf("get(%s) = %p, want %p (list %d, map %v)", n, got, want, len(tt.list), tt.m != nil)
				}
			}
		}
	})
}

// TestTrackerIndex: a topic cursor walked along a set finds every
// resource's number as a plain lookup does, whether the set is sorted or
// not, names topics the tracker does not know, partitions out of range,
// or shares one topic string along a run (spec.ParseSet) or not.
func TestTrackerIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		topics := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"a", "b", "c", "d", "e"}), 1, 5, rapid.ID[string]).Draw(t, "topics")
		if rapid.Bool().Draw(t, "sorted") {
			slices.Sort(topics)
		}
		parts := int32(rapid.IntRange(1, 4).Draw(t, "partitions"))
		tr := newTracker(topics, parts, parts+1, false)
		plain := func(r spec.Resource) int32 {
			ti := slices.Index(topics, r.Topic)
			if ti < 0 || r.Partition < 0 || r.Partition >= parts {
				return -1
			}
			return int32(ti)*(parts+1) + r.Partition
		}
		rs := rapid.SliceOf(rapid.Custom(func(t *rapid.T) spec.Resource {
			topic := rapid.SampledFrom([]string{"a", "b", "c", "d", "e", "zz"}).Draw(t, "topic")
			// A copy of the name: not the tracker's string.
			topic = string([]byte(topic))
			return spec.Resource{Topic: topic, Partition: int32(rapid.IntRange(-1, int(parts)).Draw(t, "partition"))}
		})).Draw(t, "resources")
		if rapid.Bool().Draw(t, "as-parsed") {
			if s, err := spec.ParseSet(spec.NewSet(rs...).String()); err == nil {
				rs = s
			}
		}
		c := newTopicCursor()
		for i, r := range rs {
			if got, want := tr.index(r, &c), plain(r); got != want {
				t.Fatalf("resource %d (%s) of %v: index %d, want %d", i, r, rs, got, want)
			}
		}
	})
}
