package cost

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/node"
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
// its map), each timer's own entry with what was written into it, and a
// put hands out a zero entry.
func TestTimerTable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tt timerTable[string]
		model := map[string]node.Millis{} // each entry's at, all distinct
		stamp := node.Millis(0)
		// Up to three times listMax distinct timers, so that some runs
		// stay in the list and some turn it into a map.
		names := rapid.IntRange(1, 3*listMax).Draw(t, "timers")
		for range rapid.IntRange(0, 200).Draw(t, "ops") {
			name := timerName(rapid.IntRange(0, names-1).Draw(t, "timer"))
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				if _, ok := model[name]; !ok {
					ent := tt.put(name)
					if *ent != (timerEntry{}) {
						t.Fatalf("put(%s) = %+v, want a zero entry", name, *ent)
					}
					stamp++
					ent.at, ent.armed = stamp, true
					model[name] = stamp
				}
			case 1:
				tt.del(name)
				delete(model, name)
			}
			for k := range names {
				n := timerName(k)
				got := tt.get(n)
				want, ok := model[n]
				switch {
				case got == nil && ok:
					t.Fatalf("get(%s) = nil, want the entry stamped %d (list %d, map %v)", n, want, tt.n, tt.m != nil)
				case got != nil && !ok:
					t.Fatalf("get(%s) = %+v, want nil (list %d, map %v)", n, *got, tt.n, tt.m != nil)
				case got != nil && (got.at != want || !got.armed):
					t.Fatalf("get(%s) = %+v, want the entry stamped %d (list %d, map %v)", n, *got, want, tt.n, tt.m != nil)
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
				tr.holdSet(spec.NewSet(r), p, &cur, true)
			}
			if tr.longest != 1000 || tr.longestRes != c.want {
				t.Fatalf("longest outage %d ms of %s, want 1000 ms of %s", tr.longest, tr.longestRes, c.want)
			}
			// A longer outage wins whatever its resource.
			tr.advance(3000)
			last := spec.Resource{Topic: c.topics[0], Partition: 1}
			if !slices.Contains(c.ends, last) {
				cur := newTopicCursor()
				tr.holdSet(spec.NewSet(last), p, &cur, true)
				if tr.longest != 3000 || tr.longestRes != last {
					t.Fatalf("longest outage %d ms of %s, want 3000 ms of %s", tr.longest, tr.longestRes, last)
				}
			}
		})
	}
}

// TestTrackerAgainstReference: whatever processes take and give back,
// pause, resume and crash, and whichever topics the group subscribes to,
// the tracker's counts are those recomputed from who holds what: per topic
// the resources available (a holder runs) and good (one holder, and it
// runs), over the subscribed topics those unavailable and bad, each
// process's count of what it holds, the moves (a resource taken by another
// process than the last to take it, once the workload has started), and
// the longest outage ended so far (an outage is a resource of a subscribed
// topic unavailable; it ends when the resource becomes available or its
// topic unsubscribed).
func TestTrackerAgainstReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		topics := []string{"b", "a"} // numbered against their names
		const parts, stride, procs = 3, 4, 3
		tr := newTracker(topics, parts, stride, rapid.Bool().Draw(t, "keep"))
		subscribed := make([]bool, len(topics))
		for ti := range topics {
			subscribed[ti] = rapid.IntRange(0, 3).Draw(t, "subscribed") > 0
			tr.setSubscribed(int32(ti), subscribed[ti])
		}
		for p := range procs {
			tr.addProcess(fmt.Sprint("p", p))
		}
		var all []int32
		for ti := range int32(len(topics)) {
			for q := range int32(parts) {
				all = append(all, ti*stride+q)
			}
		}
		// The reference: who holds what, who runs, who took each resource
		// last, when each outage began.
		holders := map[int32]map[int32]bool{}
		running := make([]bool, procs)
		last := map[int32]int32{}
		since := map[int32]int64{}
		moves, longest := 0, int64(0)
		avail := func(ix int32) bool {
			for p := range holders[ix] {
				if running[p] {
					return true
				}
			}
			return false
		}
		out := func(ix int32) bool { return subscribed[ix/stride] && !avail(ix) }
		// apply runs op on the tracker and model on the reference, then
		// brings the reference's outages up to date.
		apply := func(op, model func()) {
			was := map[int32]bool{}
			for _, ix := range all {
				was[ix] = out(ix)
			}
			op()
			model()
			for _, ix := range all {
				switch now := out(ix); {
				case !was[ix] && now:
					since[ix] = int64(tr.now)
				case was[ix] && !now && tr.started:
					longest = max(longest, int64(tr.now)-max(since[ix], int64(tr.start)))
				}
			}
		}
		for step := range rapid.IntRange(1, 60).Draw(t, "steps") {
			if step == 3 {
				tr.begin()
			}
			p := int32(rapid.IntRange(0, procs-1).Draw(t, "process"))
			switch rapid.IntRange(0, 6).Draw(t, "op") {
			case 0, 1: // a callback assigning or revoking a set
				var rs []spec.Resource
				var ixs []int32
				for _, ix := range all {
					if rapid.Bool().Draw(t, "in") {
						rs = append(rs, tr.resource(ix))
						ixs = append(ixs, ix)
					}
				}
				hold := rapid.Bool().Draw(t, "hold")
				apply(func() {
					cur := newTopicCursor()
					tr.holdSet(spec.NewSet(rs...), p, &cur, hold)
				}, func() {
					for _, ix := range ixs {
						if holders[ix] == nil {
							holders[ix] = map[int32]bool{}
						}
						switch {
						case !hold:
							delete(holders[ix], p)
						case !holders[ix][p]:
							if l, ok := last[ix]; ok && l != p && tr.started {
								moves++
							}
							last[ix] = p
							holders[ix][p] = true
						}
					}
				})
			case 2, 3: // paused or resumed, down or up
				run := rapid.Bool().Draw(t, "run")
				apply(func() { tr.setRunning(p, run) }, func() { running[p] = run })
			case 4: // crashed: it holds nothing
				apply(func() { tr.dropAll(p) }, func() {
					for _, h := range holders {
						delete(h, p)
					}
				})
			case 5:
				tr.advance(tr.now + node.Millis(rapid.IntRange(1, 1000).Draw(t, "ms")))
			case 6: // the group subscribes to a topic, or no longer does
				ti := rapid.IntRange(0, len(topics)-1).Draw(t, "topic")
				sub := rapid.Bool().Draw(t, "subscribe")
				apply(func() { tr.setSubscribed(int32(ti), sub) }, func() { subscribed[ti] = sub })
			}
			unavailable, bad := 0, 0
			counts := make([]int, procs)
			for ti := range int32(len(topics)) {
				a, g := int32(0), int32(0)
				for q := range int32(parts) {
					ix := ti*stride + q
					if avail(ix) {
						a++
						if len(holders[ix]) == 1 {
							g++
						}
					}
					for x := range int32(procs) {
						if tr.holds(ix, x) != holders[ix][x] {
							t.Fatalf("step %d: holds(%s, p%d) = %t, want %t", step, tr.resource(ix), x, tr.holds(ix, x), holders[ix][x])
						}
						if holders[ix][x] {
							counts[x]++
						}
					}
				}
				if tr.avail[ti] != a || tr.good[ti] != g {
					t.Fatalf("step %d: topic %s: %d available and %d good, want %d and %d", step, topics[ti], tr.avail[ti], tr.good[ti], a, g)
				}
				if subscribed[ti] {
					unavailable += int(parts - a)
					bad += int(parts - g)
				}
			}
			if tr.unavailable != unavailable || tr.bad != bad {
				t.Fatalf("step %d: %d unavailable and %d bad, want %d and %d", step, tr.unavailable, tr.bad, unavailable, bad)
			}
			if !slices.Equal(tr.count, counts) {
				t.Fatalf("step %d: the processes count %v resources held, want %v", step, tr.count, counts)
			}
			if tr.moves != moves || int64(tr.longest) != longest {
				t.Fatalf("step %d: %d moves and a longest outage of %d ms, want %d and %d", step, tr.moves, tr.longest, moves, longest)
			}
		}
	})
}
