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
		// holdSet, a run at a time, takes and gives back exactly the
		// set's resources in the universe.
		set := spec.NewSet(rs...)
		want := map[int32]bool{}
		for _, r := range set {
			if ix := plain(r); ix >= 0 {
				want[ix] = true
			}
		}
		p := tr.addProcess("m")
		for _, add := range []bool{true, false} {
			cur := newTopicCursor()
			tr.holdSet(set, p, &cur, add)
			for ix := range int32(len(topics)) * (parts + 1) {
				if got := tr.holds(ix, p); got != (add && want[ix]) {
					t.Fatalf("after holdSet(%s, %t): holds resource %d: %t", set, add, ix, got)
				}
			}
		}
	})
}

// TestTrackerLongestOutageTie: of outages of equal length, the longest
// outage is the one of the first resource in spec.Resource order (topic
// name, then partition), whatever order the tracker numbers its topics
// in; a longer outage ending later still wins.
func TestTrackerLongestOutageTie(t *testing.T) {
	for _, c := range []struct {
		name   string
		topics []string
		ends   []spec.Resource // outages ended together, in this order
		want   spec.Resource
	}{
		{"sorted topics", []string{"a", "b"}, []spec.Resource{{Topic: "b", Partition: 0}, {Topic: "a", Partition: 1}}, spec.Resource{Topic: "a", Partition: 1}},
		{"topics numbered against their names", []string{"b", "a"}, []spec.Resource{{Topic: "b", Partition: 0}, {Topic: "a", Partition: 1}}, spec.Resource{Topic: "a", Partition: 1}},
		{"the smaller ended first", []string{"b", "a"}, []spec.Resource{{Topic: "a", Partition: 0}, {Topic: "b", Partition: 1}}, spec.Resource{Topic: "a", Partition: 0}},
		{"partitions of one topic", []string{"c", "b", "a"}, []spec.Resource{{Topic: "b", Partition: 1}, {Topic: "b", Partition: 0}}, spec.Resource{Topic: "b", Partition: 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := newTracker(c.topics, 2, 2, false)
			for ti := range c.topics {
				tr.setSubscribed(int32(ti), true)
			}
			p := tr.addProcess("m")
			tr.setRunning(p, true)
			tr.begin()
			tr.advance(1000)
			for _, r := range c.ends {
				cur := newTopicCursor()
				tr.add(tr.index(r, &cur), p)
			}
			if tr.longest != 1000 || tr.longestRes != c.want {
				t.Fatalf("longest outage %d ms of %s, want 1000 ms of %s", tr.longest, tr.longestRes, c.want)
			}
			// A longer outage wins whatever its resource.
			tr.advance(3000)
			last := spec.Resource{Topic: c.topics[0], Partition: 1}
			if !slices.Contains(c.ends, last) {
				cur := newTopicCursor()
				tr.add(tr.index(last, &cur), p)
				if tr.longest != 3000 || tr.longestRes != last {
					t.Fatalf("longest outage %d ms of %s, want 3000 ms of %s", tr.longest, tr.longestRes, last)
				}
			}
		})
	}
}
