package cost

import (
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// tracker keeps who holds each resource, incrementally: every change
// touches only the resources it names. A resource is held by a process
// from the callback that assigns it until the callback that revokes it or
// reports it lost, or until the process crashes; it is available while at
// least one holder is running (up, not paused), and good while it has
// exactly one holder and that holder runs.
//
// Resources are numbered topic*stride + partition; stride is the most
// partitions a topic ever has in the run.
type tracker struct {
	topics  []string
	topicIx map[string]int32
	stride  int32
	// parts is each topic's partition count now; subscribed whether some
	// member of the group subscribes to it (only those count).
	parts      []int32
	subscribed []bool

	// Per resource: the first holder (-1 none), the number of holders and
	// of running holders, the last process that held it (-1 none), and
	// when its current outage began.
	primary []int32
	holders []uint8
	running []uint8
	last    []int32
	since   []node.Millis
	// mark and stamp deduplicate a process's list (prune).
	mark  []uint32
	stamp uint32
	// extra holds the holders after the first, for the rare resource held
	// twice (a paused zombie, a dynamic leaver still revoking).
	extra map[int32][]int32

	// Per topic: resources available and good.
	avail, good []int32
	// Over subscribed topics: resources unavailable and not good.
	unavailable, bad int

	// Per process: the resources it may hold (lazily pruned: a listed
	// resource counts only while the process holds it), how many it holds,
	// and whether it runs.
	owned   [][]int32
	count   []int
	isRun   []bool
	procs   []string
	started bool // the workload has started: moves and outages count
	start   node.Millis

	// Metrics. lastChange is the last instant at which a resource changed
	// its availability or goodness.
	now        node.Millis
	lastChange node.Millis
	area       float64 // resource-milliseconds unavailable since start
	areaAt     node.Millis
	moves      int
	longest    node.Millis
	longestRes spec.Resource
	longestIx  int32   // longestRes's number, while longest > 0
	topicRank  []int32 // topicRank[ti] is topics[ti]'s place among the sorted names
	samples    []Sample
	keep       bool
	open       map[[2]int32]node.Millis // (resource, process) -> From
	intervals  []Interval
}

func newTracker(topics []string, parts, stride int32, keep bool) *tracker {
	t := &tracker{topics: topics, topicIx: map[string]int32{}, stride: stride, keep: keep, extra: map[int32][]int32{}}
	n := int(stride) * len(topics)
	t.parts = make([]int32, len(topics))
	t.subscribed = make([]bool, len(topics))
	t.avail = make([]int32, len(topics))
	t.good = make([]int32, len(topics))
	byName := make([]int32, len(topics))
	for i := range byName {
		byName[i] = int32(i)
	}
	slices.SortFunc(byName, func(a, b int32) int { return strings.Compare(topics[a], topics[b]) })
	t.topicRank = make([]int32, len(topics))
	for rank, ti := range byName {
		t.topicRank[ti] = int32(rank)
	}
	for i, tp := range topics {
		t.topicIx[tp] = int32(i)
		t.parts[i] = parts
	}
	t.primary = make([]int32, n)
	t.last = make([]int32, n)
	for i := range t.primary {
		t.primary[i], t.last[i] = -1, -1
	}
	t.holders = make([]uint8, n)
	t.running = make([]uint8, n)
	t.since = make([]node.Millis, n)
	t.mark = make([]uint32, n)
	if keep {
		t.open = map[[2]int32]node.Millis{}
	}
	return t
}

// addProcess registers a process and returns its index.
func (t *tracker) addProcess(name string) int32 {
	t.procs = append(t.procs, name)
	t.owned = append(t.owned, nil)
	t.count = append(t.count, 0)
	t.isRun = append(t.isRun, false)
	return int32(len(t.procs) - 1)
}

// topicCursor remembers, along one walk of a set, the topic index of the
// last resource looked up and that resource's topic string: a set keeps
// one string for a run of one topic (spec.ParseSet), so the next resource
// of the run finds the same string, which compares equal at once, where
// the tracker's own copy of the name would be compared byte by byte.
type topicCursor struct {
	ti    int32 // -1 before the first lookup
	topic string
}

func newTopicCursor() topicCursor { return topicCursor{ti: -1} }

// index returns the number of resource r, -1 for one outside the
// universe.
func (t *tracker) index(r spec.Resource, c *topicCursor) int32 {
	ti := t.topicOf(r.Topic, c)
	if ti < 0 || r.Partition < 0 || r.Partition >= t.parts[ti] {
		return -1
	}
	return ti*t.stride + r.Partition
}

// topicOf returns the index of topic, -1 for one outside the universe. At
// a new topic it tries the topic after the cursor's first (a set is
// sorted by topic, and so are the run's topics), and only then the map.
func (t *tracker) topicOf(topic string, c *topicCursor) int32 {
	ti := c.ti
	if ti < 0 || !spec.SameTopic(c.topic, topic) {
		ti++
		if int(ti) >= len(t.topics) || t.topics[ti] != topic {
			var ok bool
			if ti, ok = t.topicIx[topic]; !ok {
				return -1
			}
		}
		c.ti, c.topic = ti, topic
	}
	return ti
}

// holdSet makes process p a holder of every resource of rs in the
// universe when hold is set, else no longer a holder: a callback's set,
// walked a run of one topic at a time, its topic looked up once per run.
// An eager round revokes and assigns every resource.
func (t *tracker) holdSet(rs spec.Set, p int32, c *topicCursor, hold bool) {
	for i := 0; i < len(rs); {
		ti, parts, end := t.run(rs, i, c)
		t.holdRun(rs[i:end], ti, parts, p, hold)
		i = end
	}
}

// holdRun is holdSet for one run of topic ti (parts partitions), in
// order. The common cases are done in place: a resource held by nobody
// taken, or its one holder giving it up (remove's first case); the counts
// they move (the topic's available and good resources, the unavailable
// and bad totals) are moved once for the run, as nothing reads them while
// a callback's set is taken and the sums are the same. Any other resource
// goes through add or remove.
func (t *tracker) holdRun(run spec.Set, ti, parts, p int32, hold bool) {
	base := ti * t.stride
	runs, sub := t.isRun[p], t.subscribed[ti]
	var n int32 // resources that became available and good, less those that became neither
	for _, r := range run {
		if r.Partition < 0 || r.Partition >= parts {
			continue
		}
		ix := base + r.Partition
		switch {
		case hold && t.primary[ix] < 0:
			// From unavailable and bad to available and good when p runs.
			t.primary[ix], t.holders[ix] = p, 1
			t.took(ix, p)
			if runs {
				t.running[ix]++
				t.openInterval(ix, p)
				if sub {
					t.endOutage(ix)
				}
				n++
			}
		case hold:
			t.add(ix, ti, p)
		case t.primary[ix] == p && t.holders[ix] == 1:
			// From available and good to neither when p ran.
			t.primary[ix], t.holders[ix] = -1, 0
			t.count[p]--
			if runs {
				t.running[ix]--
				t.closeInterval(ix, p)
				if sub {
					t.since[ix] = t.now
				}
				n--
			}
		default:
			t.remove(ix, ti, p)
		}
	}
	t.counted(ti, sub, n)
}

// counted moves the counts of topic ti (subscribed or not) by d resources
// that became available and good (d > 0) or unavailable and bad (d < 0).
func (t *tracker) counted(ti int32, sub bool, d int32) {
	if d == 0 {
		return
	}
	t.lastChange = t.now
	t.avail[ti] += d
	t.good[ti] += d
	if sub {
		t.unavailable -= int(d)
		t.bad -= int(d)
	}
}

// run returns, for the run of one topic of rs that starts at i, the
// topic's index and partition count (0 for a topic outside the universe,
// so that no partition is in it), and the run's end.
func (t *tracker) run(rs spec.Set, i int, c *topicCursor) (ti, parts int32, end int) {
	end = rs.RunEnd(i)
	if ti = t.topicOf(rs[i].Topic, c); ti < 0 {
		return 0, 0, end
	}
	return ti, t.parts[ti], end
}

func (t *tracker) resource(ix int32) spec.Resource {
	return spec.Resource{Topic: t.topics[ix/t.stride], Partition: ix % t.stride}
}

// advance moves the clock to now, accumulating the unavailable area.
func (t *tracker) advance(now node.Millis) {
	if t.started && now > t.areaAt {
		t.area += float64(t.unavailable) * float64(now-t.areaAt)
		t.areaAt = now
	}
	t.now = now
}

// sample records the unavailable count at the current time.
func (t *tracker) sample() {
	if !t.started {
		return
	}
	if n := len(t.samples); n > 0 {
		if t.samples[n-1].Unavailable == t.unavailable {
			return
		}
		if t.samples[n-1].At == t.now {
			t.samples[n-1].Unavailable = t.unavailable
			if n > 1 && t.samples[n-2].Unavailable == t.unavailable {
				t.samples = t.samples[:n-1]
			}
			return
		}
	}
	t.samples = append(t.samples, Sample{At: t.now, Unavailable: t.unavailable})
}

// state is a resource's availability and goodness.
func (t *tracker) state(ix int32) (avail, good bool) {
	return t.running[ix] > 0, t.holders[ix] == 1 && t.running[ix] == 1
}

// update accounts for resource ix, of topic ti, going from (wasAvail,
// wasGood) to its state now.
func (t *tracker) update(ix, ti int32, wasAvail, wasGood bool) {
	avail, good := t.state(ix)
	if avail == wasAvail && good == wasGood {
		return
	}
	t.lastChange = t.now
	if avail != wasAvail {
		t.setAvail(ix, ti, avail)
	}
	if good != wasGood {
		t.setGood(ti, good)
	}
}

// setAvail accounts for resource ix, of topic ti, turning available or
// unavailable: an outage ends or begins.
func (t *tracker) setAvail(ix, ti int32, avail bool) {
	sub := t.subscribed[ti]
	if avail {
		t.avail[ti]++
		if sub {
			t.unavailable--
			t.endOutage(ix)
		}
		return
	}
	t.avail[ti]--
	if sub {
		t.unavailable++
		t.since[ix] = t.now
	}
}

// setGood accounts for a resource of topic ti turning good or bad.
func (t *tracker) setGood(ti int32, good bool) {
	sub := t.subscribed[ti]
	if good {
		t.good[ti]++
		if sub {
			t.bad--
		}
		return
	}
	t.good[ti]--
	if sub {
		t.bad++
	}
}

// endOutage closes the outage of resource ix at the current time.
func (t *tracker) endOutage(ix int32) {
	if !t.started {
		return
	}
	from := max(t.since[ix], t.start)
	if d := t.now - from; d > t.longest || (d == t.longest && d > 0 && t.order(ix) < t.order(t.longestIx)) {
		t.longest, t.longestIx, t.longestRes = d, ix, t.resource(ix)
	}
}

// order is resource ix's place in spec.Resource order (topic name, then
// partition), as a number: equal outages are frequent (an eager round
// ends thousands of them at one instant), and the longest outage's tie
// break compared two resources' topic names at each.
func (t *tracker) order(ix int32) int64 {
	return int64(t.topicRank[ix/t.stride])*int64(t.stride) + int64(ix%t.stride)
}

// holds reports whether process p holds resource ix.
func (t *tracker) holds(ix, p int32) bool {
	if t.primary[ix] == p {
		return true
	}
	if t.holders[ix] > 1 {
		return slices.Contains(t.extra[ix], p)
	}
	return false
}

// add makes process p a holder of resource ix, of topic ti, which
// another process holds already (holdRun takes a resource held by
// nobody).
func (t *tracker) add(ix, ti, p int32) {
	if t.holds(ix, p) {
		return
	}
	wasAvail, wasGood := t.state(ix)
	t.extra[ix] = append(t.extra[ix], p)
	t.holders[ix]++
	if t.isRun[p] {
		t.running[ix]++
		t.openInterval(ix, p)
	}
	t.took(ix, p)
	t.update(ix, ti, wasAvail, wasGood)
}

// took records that p took resource ix: a move if another process held
// it last, and ix in p's list.
func (t *tracker) took(ix, p int32) {
	if t.started && t.last[ix] >= 0 && t.last[ix] != p {
		t.moves++
	}
	t.last[ix] = p
	t.owned[p] = append(t.owned[p], ix)
	t.count[p]++
	if len(t.owned[p]) > 2*t.count[p]+64 {
		t.prune(p)
	}
}

// remove makes process p no longer a holder of resource ix, of topic ti.
func (t *tracker) remove(ix, ti, p int32) {
	if t.primary[ix] == p && t.holders[ix] == 1 {
		// Its one holder: the common case, a revocation, goes from
		// available and good to neither when p ran, without update's
		// comparisons of the state before and after.
		t.primary[ix], t.holders[ix] = -1, 0
		t.count[p]--
		if t.isRun[p] {
			t.running[ix]--
			t.closeInterval(ix, p)
			t.lastChange = t.now
			t.setAvail(ix, ti, false)
			t.setGood(ti, false)
		}
		return
	}
	if !t.holds(ix, p) {
		return
	}
	wasAvail, wasGood := t.state(ix)
	if t.primary[ix] == p {
		if x := t.extra[ix]; len(x) > 0 {
			t.primary[ix] = x[0]
			t.setExtra(ix, x[1:])
		} else {
			t.primary[ix] = -1
		}
	} else {
		x := t.extra[ix]
		i := slices.Index(x, p)
		t.setExtra(ix, slices.Delete(slices.Clone(x), i, i+1))
	}
	t.holders[ix]--
	if t.isRun[p] {
		t.running[ix]--
		t.closeInterval(ix, p)
	}
	t.count[p]--
	t.update(ix, ti, wasAvail, wasGood)
}

func (t *tracker) setExtra(ix int32, x []int32) {
	if len(x) == 0 {
		delete(t.extra, ix)
		return
	}
	t.extra[ix] = x
}

// setRunning marks process p running or not (paused, or down).
func (t *tracker) setRunning(p int32, run bool) {
	if t.isRun[p] == run {
		return
	}
	t.isRun[p] = run
	for _, ix := range t.holdings(p) {
		wasAvail, wasGood := t.state(ix)
		if run {
			t.running[ix]++
			t.openInterval(ix, p)
		} else {
			t.running[ix]--
			t.closeInterval(ix, p)
		}
		t.update(ix, ix/t.stride, wasAvail, wasGood)
	}
}

// dropAll removes process p from everything it holds (a crash).
func (t *tracker) dropAll(p int32) {
	for _, ix := range t.holdings(p) {
		t.remove(ix, ix/t.stride, p)
	}
	t.owned[p] = nil
}

// holdings returns the resources p holds, in the order it took them,
// pruning its list of resources it no longer holds and of duplicates.
func (t *tracker) holdings(p int32) []int32 {
	t.prune(p)
	return slices.Clone(t.owned[p])
}

// prune drops from p's list what p no longer holds, and duplicates.
func (t *tracker) prune(p int32) {
	t.stamp++
	l := t.owned[p]
	out := l[:0]
	for _, ix := range l {
		if t.mark[ix] != t.stamp && t.holds(ix, p) {
			t.mark[ix] = t.stamp
			out = append(out, ix)
		}
	}
	t.owned[p] = out
}

func (t *tracker) openInterval(ix, p int32) {
	if t.keep && t.started {
		t.open[[2]int32{ix, p}] = t.now
	}
}

func (t *tracker) closeInterval(ix, p int32) {
	if !t.keep || !t.started {
		return
	}
	k := [2]int32{ix, p}
	if from, ok := t.open[k]; ok {
		delete(t.open, k)
		if t.now > from {
			t.intervals = append(t.intervals, Interval{Resource: t.resource(ix), Owner: t.procs[p], From: from, To: t.now})
		}
	}
}

// setSubscribed changes whether topic ti counts.
func (t *tracker) setSubscribed(ti int32, sub bool) {
	if t.subscribed[ti] == sub {
		return
	}
	t.subscribed[ti] = sub
	sign := 1
	if !sub {
		sign = -1
	}
	t.unavailable += sign * int(t.parts[ti]-t.avail[ti])
	t.bad += sign * int(t.parts[ti]-t.good[ti])
	base := ti * t.stride
	for ix := base; ix < base+t.parts[ti]; ix++ {
		if t.running[ix] == 0 {
			if sub {
				t.since[ix] = t.now
			} else {
				t.endOutage(ix)
			}
		}
	}
	t.lastChange = t.now
}

// grow sets topic ti's partition count to n (never below the current
// count): the new resources are held by nobody.
func (t *tracker) grow(ti, n int32) {
	old := t.parts[ti]
	if n <= old {
		return
	}
	t.parts[ti] = n
	if t.subscribed[ti] {
		t.unavailable += int(n - old)
		t.bad += int(n - old)
	}
	for ix := ti*t.stride + old; ix < ti*t.stride+n; ix++ {
		t.since[ix] = t.now
	}
	t.lastChange = t.now
}

// begin starts the workload's accounting at the current time: every
// holding open now starts an interval, every outage open now starts now.
func (t *tracker) begin() {
	t.started = true
	t.start = t.now
	t.areaAt = t.now
	for p := range t.procs {
		if t.isRun[p] {
			for _, ix := range t.holdings(int32(p)) {
				t.openInterval(ix, int32(p))
			}
		}
	}
	t.samples = append(t.samples, Sample{At: t.now, Unavailable: t.unavailable})
}

// finish closes every open outage and interval at the current time.
func (t *tracker) finish() {
	for ti := range t.topics {
		if !t.subscribed[ti] {
			continue
		}
		base := int32(ti) * t.stride
		for ix := base; ix < base+t.parts[ti]; ix++ {
			if t.running[ix] == 0 {
				t.endOutage(ix)
			}
		}
	}
	if t.keep {
		for k, from := range t.open {
			if t.now > from {
				t.intervals = append(t.intervals, Interval{Resource: t.resource(k[0]), Owner: t.procs[k[1]], From: from, To: t.now})
			}
		}
		t.open = map[[2]int32]node.Millis{}
		slices.SortFunc(t.intervals, func(a, b Interval) int {
			if c := a.Resource.Compare(b.Resource); c != 0 {
				return c
			}
			if a.From != b.From {
				return int(a.From - b.From)
			}
			if a.Owner < b.Owner {
				return -1
			}
			if a.Owner > b.Owner {
				return 1
			}
			return 0
		})
	}
}
