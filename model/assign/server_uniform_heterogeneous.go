package assign

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/spec"
)

// serverMaxBalancePasses bounds the balancing phase of the heterogeneous
// builder: the number of full passes over the topics (Kafka's
// UniformHeterogeneousAssignmentBuilder.MAX_ITERATION_COUNT). When every
// topic's subscribers share one subscription the phase converges in one pass
// and needs a second to notice; overlapping subscriptions can need more, and
// Kafka assumes each pass roughly halves the imbalance.
const serverMaxBalancePasses = 16

// uniformHeterogeneous is the heterogeneous builder documented on Uniform
// (Kafka's UniformHeterogeneousAssignmentBuilder after KAFKA-17710). It may
// run on any valid group, homogeneous or not. It also reports whether the
// balancing phase converged (a full pass over the topics moved nothing)
// rather than stopping at serverMaxBalancePasses; a converged result fed back
// as the previous target comes back unchanged.
//
// Members are numbered by their position in g.Members (member ID order), and
// every tie is broken by that number, so the result is deterministic.
//
// Guarantees, for the live topics (existing, with partitions) of the
// members' subscriptions: every partition is assigned to exactly one
// subscriber of its topic; a member loses a previously targeted partition
// only because it unsubscribed from its topic or to balance a topic (or
// because an earlier member listed it too); at convergence, for every topic
// with two or more subscribers, either their loads are within one of each
// other or the more loaded ones hold none of the topic's partitions; so the
// subscribers of a topic who all have the same subscription end within one
// of each other (the most loaded of them would otherwise give up a
// partition of some topic of that subscription).
func uniformHeterogeneous(g Group) (spec.Assignment, bool, error) {
	h := newServerHetero(g)
	if len(h.names) == 0 {
		return emptyAssignment(g), true, nil
	}
	h.keepSubscribed()
	h.assignUnassigned()
	converged := h.balance()
	a, err := h.collect()
	return a, converged, err
}

// serverHetero is the state of one run of the heterogeneous builder.
//
// Topics are numbered by their position in names (topic IDs), so that the
// inner loops index slices rather than hash names. Members with one
// subscription slice (the same backing array and length, as Kafka's
// coordinator and the benchmarks share them) form a subscription class,
// resolved to topic IDs once, and topics subscribed by the same classes
// share one subscriber list (shareSubscribers): setting up costs
// O(M + P + Σ distinct subscriptions' lengths + Σ distinct subscriber
// lists' lengths), with no map access per (member, topic).
type serverHetero struct {
	g Group
	// names are the live topics someone subscribes to, sorted; a topic's ID
	// is its position here.
	names []string
	// parts is each topic's number of partitions.
	parts []int64
	// subs is, per member, the IDs of the topics of its subscription that
	// are in names, ascending (shared between members with one
	// subscription slice).
	subs [][]int32
	// subscribers lists, per topic ID, the indexes of its subscribers,
	// ascending; topics with the same subscribers share one slice, which
	// nothing modifies.
	subscribers [][]int
	// rows is the target being built: per topic ID, the index of the member
	// each partition goes to, -1 while it is unassigned. The rows share one
	// backing array, in topic ID order.
	rows [][]int32
	// loads is each member's number of partitions in the target being
	// built, over all topics.
	loads []int
	// classOf is each member's subscription class; classVer counts, per
	// class, the changes to its members' loads.
	classOf  []int
	classVer []uint64
	// listOf is each topic's subscriber list (topics with the same
	// subscribers share one); lists holds, per list, its members and its
	// sorted cache (see sorted).
	listOf []int
	lists  []serverList
	// ladder is reused across topics. spareOrder, spareRuns and
	// spareStarts are scratch space that afterWalk swaps with a list's
	// cache (sorted uses spareOrder too), spareWalked afterWalk's.
	ladder                                          serverLadder
	spareOrder, spareRuns, spareStarts, spareWalked []int
	// heldTop, heldStamp and heldNext are balanceTopic's scratch space; see
	// there.
	heldTop, heldStamp []int32
	heldNext           []int32
	stamp              int32
}

// serverList is one distinct subscriber list: the subscribers of one or
// more topics, with a cache of them sorted by (load, index).
//
// Invariant: when stamp equals the list's current stamp (listStamp: one
// plus the sum of classVer over classes, which only grows), no member of
// the list changed load since the cache was written, so order holds the
// members sorted by (load, index), cut into runs of one load: runs[k] is
// the load of order[starts[k]:starts[k+1]] (starts has one more entry than
// runs, n at the end; loads ascend from run to run). stamp 0 means never
// cached.
type serverList struct {
	members []int
	classes []int
	order   []int
	runs    []int
	starts  []int
	stamp   uint64
}

// loadRange returns the smallest and largest load of a cached list.
func (list *serverList) loadRange() (int, int) {
	return list.runs[0], list.runs[len(list.runs)-1]
}

// serverSubKey identifies a subscription slice by its backing array and
// length; two members with equal keys have the same subscription.
type serverSubKey struct {
	first *string
	n     int
}

func newServerHetero(g Group) *serverHetero {
	h := &serverHetero{g: g, loads: make([]int, len(g.Members))}
	// Distinct subscription slices (classes), and the live topics they
	// name; live maps each of those names to its ID once names are sorted.
	// The first few classes are looked up by a scan of keys, the rest in
	// a map.
	const scanned = 8
	classOf := make([]int, len(g.Members))
	var keys []serverSubKey
	classes := map[serverSubKey]int{}
	var distinct [][]string
	live := map[string]int32{}
	for i, m := range g.Members {
		key := serverSubKey{n: len(m.Topics)}
		if len(m.Topics) > 0 {
			key.first = &m.Topics[0]
		}
		c := slices.Index(keys, key)
		ok := c >= 0
		if !ok && len(keys) == scanned {
			c, ok = classes[key]
		}
		if !ok {
			c = len(distinct)
			if len(keys) < scanned {
				keys = append(keys, key)
			} else {
				classes[key] = c
			}
			distinct = append(distinct, m.Topics)
			for _, t := range m.Topics {
				if _, seen := live[t]; !seen && serverLive(g.Topics, t) {
					live[t] = 0
					h.names = append(h.names, t)
				}
			}
		}
		classOf[i] = c
	}
	slices.Sort(h.names)
	h.parts = make([]int64, len(h.names))
	for k, t := range h.names {
		live[t] = int32(k)
		h.parts[k] = int64(g.Topics[t])
	}
	// Each distinct subscription as topic IDs; names are sorted, so the IDs
	// of a sorted subscription are ascending.
	resolved := make([][]int32, len(distinct))
	for c, topics := range distinct {
		for _, t := range topics {
			if k, ok := live[t]; ok {
				resolved[c] = append(resolved[c], k)
			}
		}
	}
	h.subs = make([][]int32, len(g.Members))
	for i := range g.Members {
		h.subs[i] = resolved[classOf[i]]
	}
	h.classOf, h.classVer = classOf, make([]uint64, len(distinct))
	h.subscribers, h.listOf, h.lists = shareSubscribers(len(h.names), classOf, resolved)
	var total int64
	for _, n := range h.parts {
		total += n
	}
	backing := make([]int32, total)
	for i := range backing {
		backing[i] = -1
	}
	h.rows = make([][]int32, len(h.names))
	for k, n := range h.parts {
		h.rows[k] = backing[:n:n]
		backing = backing[n:]
	}
	h.ladder.loads = h.loads
	return h
}

// shareSubscribers returns, per topic ID of topics, its subscribers
// ascending, given each member's subscription class (classOf) and each
// class's topic IDs (resolved). Topics subscribed by the same set of classes
// share one slice (read only), so that the cost is O(M + Σ classes' lengths
// + Σ distinct subscriber lists' lengths) rather than the sum of all
// subscriptions' lengths. It also returns each topic's list and the
// distinct lists, with their classes, not yet cached.
func shareSubscribers(topics int, classOf []int, resolved [][]int32) ([][]int, []int, []serverList) {
	// The classes subscribing to each topic, ascending, encoded as a key.
	keys := make([][]byte, topics)
	for c, ids := range resolved {
		for _, k := range ids {
			keys[k] = binary.AppendUvarint(keys[k], uint64(c))
		}
	}
	// One list per distinct key; sets[c] are the lists that class c feeds.
	listOf := make([]int, topics)
	byKey := map[string]int{}
	sets := make([][]int, len(resolved))
	lists := 0
	for k, key := range keys {
		l, ok := byKey[string(key)]
		if !ok {
			l = lists
			lists++
			byKey[string(key)] = l
			for rest := key; len(rest) > 0; {
				c, n := binary.Uvarint(rest)
				sets[c] = append(sets[c], l)
				rest = rest[n:]
			}
		}
		listOf[k] = l
	}
	out := make([]serverList, lists)
	for c, ls := range sets {
		for _, l := range ls {
			out[l].classes = append(out[l].classes, c)
		}
	}
	for i, c := range classOf {
		for _, l := range sets[c] {
			out[l].members = append(out[l].members, i)
		}
	}
	subscribers := make([][]int, topics)
	for k, l := range listOf {
		m := out[l].members
		subscribers[k] = m[:len(m):len(m)]
	}
	return subscribers, listOf, out
}

// keepSubscribed is step 1: every member keeps its previously targeted
// partitions of the topics it still subscribes to.
//
// Owned is sorted by topic and the member's subscription IDs are in name
// order, so a cursor into the subscription finds each run's topic: it tries
// the next few entries (runs usually follow the subscription), then
// binary-searches the rest, without hashing names.
func (h *serverHetero) keepSubscribed() {
	for i, m := range h.g.Members {
		var (
			topic string
			row   []int32
			subs  = h.subs[i]
			at    = -1 // position in subs of the last run's topic
		)
		for k, r := range m.Owned {
			if k == 0 || r.Topic != topic {
				topic, row = r.Topic, nil
				if j, ok := h.findSubscribed(subs, at, topic); ok {
					at, row = j, h.rows[subs[j]]
				}
			}
			if row == nil || row[r.Partition] >= 0 {
				continue // unsubscribed or not live, or kept by an earlier member
			}
			row[r.Partition] = int32(i)
			h.loads[i]++
		}
	}
}

// findSubscribed returns the position of topic in subs (topic IDs in name
// order) after position at, and whether it is there. Owned runs come in name
// order, so a topic before position at cannot be found again.
func (h *serverHetero) findSubscribed(subs []int32, at int, topic string) (int, bool) {
	for j := at + 1; j < len(subs) && j <= at+4; j++ {
		if h.names[subs[j]] == topic {
			return j, true
		}
	}
	rest := subs[at+1:]
	j, ok := slices.BinarySearchFunc(rest, topic, func(id int32, t string) int {
		return strings.Compare(h.names[id], t)
	})
	return at + 1 + j, ok
}

// compareTopics orders topic IDs as Kafka's topicComparator does the
// topics: partitions per subscriber, descending (compared exactly, by
// cross-multiplying), then subscriber count, ascending, then name.
func (h *serverHetero) compareTopics(a, b int) int {
	pa, pb := h.parts[a], h.parts[b]
	na, nb := int64(len(h.subscribers[a])), int64(len(h.subscribers[b]))
	switch {
	case pa*nb > pb*na:
		return -1
	case pa*nb < pb*na:
		return 1
	case na != nb:
		if na < nb {
			return -1
		}
		return 1
	}
	return a - b // IDs are in name order
}

// assignUnassigned is step 2: topic by topic in compareTopics order, every
// unassigned partition, ascending, goes to the next least-loaded subscriber.
func (h *serverHetero) assignUnassigned() {
	var pending []int
	for t, row := range h.rows {
		if slices.Contains(row, -1) {
			pending = append(pending, t)
		}
	}
	slices.SortFunc(pending, h.compareTopics)
	for _, t := range pending {
		list := &h.lists[h.listOf[t]]
		h.sorted(list)
		lo, hi := list.loadRange()
		h.ladder.reset(list.order, lo, hi)
		row := h.rows[t]
		for p, o := range row {
			if o < 0 {
				m := h.ladder.nextLeast()
				row[p] = int32(m)
				h.addLoad(m, 1)
			}
		}
		h.afterWalk(list)
	}
}

// addLoad adds d to member m's load, and records the change for the caches
// of the lists m is on.
func (h *serverHetero) addLoad(m, d int) {
	h.loads[m] += d
	h.classVer[h.classOf[m]]++
}

// listStamp is list's current stamp (see serverList).
func (h *serverHetero) listStamp(list *serverList) uint64 {
	st := uint64(1)
	for _, c := range list.classes {
		st += h.classVer[c]
	}
	return st
}

// sorted makes list's cache valid: it keeps it when no member's load
// changed since it was written, and otherwise sorts the members by (load,
// index) again: a counting sort when the loads spread over at most a small
// multiple of their number of levels (the usual case: loads stay close),
// O(members + spread), and a comparison sort otherwise.
func (h *serverHetero) sorted(list *serverList) {
	st := h.listStamp(list)
	if list.stamp == st {
		return
	}
	list.stamp = st
	members := list.members
	n := len(members)
	order := slices.Grow(list.order[:0], n)[:n]
	list.order = order
	list.runs, list.starts = list.runs[:0], list.starts[:0]
	// Gather the loads once; the passes below then read them in order.
	gathered := slices.Grow(h.spareOrder[:0], n)[:n]
	h.spareOrder = gathered
	for j, m := range members {
		gathered[j] = h.loads[m]
	}
	lo, hi := gathered[0], gathered[0]
	for _, v := range gathered[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	switch {
	case lo == hi:
		copy(order, members) // members are ascending
	case hi-lo <= 4*n+64:
		// Counting sort by load; stable, and members are ascending, so
		// equal loads stay in index order.
		count := make([]int, hi-lo+2)
		for _, v := range gathered {
			count[v-lo+1]++
		}
		for k := 1; k < len(count); k++ {
			count[k] += count[k-1]
		}
		for k := range hi - lo + 1 {
			if count[k] < count[k+1] {
				list.runs = append(list.runs, lo+k)
				list.starts = append(list.starts, count[k])
			}
		}
		list.starts = append(list.starts, n)
		for j, m := range members {
			c := &count[gathered[j]-lo]
			order[*c] = m
			*c++
		}
		return
	default:
		copy(order, members)
		slices.SortFunc(order, func(a, b int) int {
			if c := h.loads[a] - h.loads[b]; c != 0 {
				return c
			}
			return a - b
		})
	}
	for j, m := range order {
		if v := h.loads[m]; j == 0 || v != list.runs[len(list.runs)-1] {
			list.runs = append(list.runs, v)
			list.starts = append(list.starts, j)
		}
	}
	list.starts = append(list.starts, n)
}

// afterWalk updates list's cache, valid before the ladder was reset on it,
// after the ladder's nextLeast calls (and nothing else) raised loads: with
// L the ladder's lowLevel, the walked members order[:lowNext] are now at
// L+1, the rest of the range order[lowNext:lowEnd] at L, and the members
// beyond the range (the runs from lowEnd on), at L+1 or more, did not
// change. The new order is the range's unwalked members, then the walked
// ones merged by index into the run beyond at L+1, then the other runs,
// unmoved. Within the range, members are in index order unless the range
// spans several runs; then its two parts are sorted by index first. The
// merge copies the run at L+1 in chunks between the walked members, so
// it costs O(members) of copying plus O(walked · log members).
func (h *serverHetero) afterWalk(list *serverList) {
	lad := &h.ladder
	L, next, end := lad.lowLevel, lad.lowNext, lad.lowEnd
	order, runs, starts := list.order, list.runs, list.starts
	n := len(order)
	// The runs of the range, then the run at L+1 beyond it, if any.
	k := 0
	for k < len(runs) && starts[k] < end {
		k++
	}
	upper := end
	if k < len(runs) && runs[k] == L+1 {
		upper = starts[k+1]
		k++
	}
	out := append(slices.Grow(h.spareOrder[:0], n), order[next:end]...)
	w := append(h.spareWalked[:0], order[:next]...)
	h.spareWalked = w
	if end > 0 && starts[1] < end {
		slices.Sort(out)
		slices.Sort(w)
	}
	beyond := order[end:upper]
	for _, m := range w {
		j, _ := slices.BinarySearch(beyond, m)
		out = append(out, beyond[:j]...)
		out = append(out, m)
		beyond = beyond[j:]
	}
	out = append(out, beyond...)
	out = append(out, order[upper:]...)
	h.spareOrder, list.order = order, out
	// The new runs: L over the unwalked members, L+1 up to upper, then
	// runs[k:] unchanged.
	newRuns, newStarts := h.spareRuns[:0], h.spareStarts[:0]
	if next < end {
		newRuns, newStarts = append(newRuns, L), append(newStarts, 0)
	}
	if end-next < upper {
		newRuns, newStarts = append(newRuns, L+1), append(newStarts, end-next)
	}
	h.spareRuns, list.runs = runs, append(newRuns, runs[k:]...)
	h.spareStarts, list.starts = starts, append(newStarts, starts[k:]...)
	list.stamp = h.listStamp(list)
}

// balance is step 3: passes over the topics with two or more subscribers,
// in compareTopics order, balancing each, until a full pass (counted from
// the last topic that moved anything, or from the first topic) moves
// nothing, at most serverMaxBalancePasses passes. It reports whether it
// converged.
func (h *serverHetero) balance() bool {
	var topics []int
	for t, s := range h.subscribers {
		if len(s) >= 2 {
			topics = append(topics, t)
		}
	}
	if len(topics) == 0 {
		return true
	}
	slices.SortFunc(topics, h.compareTopics)
	last := -1
	for range serverMaxBalancePasses {
		for k, t := range topics {
			if k == last {
				return true
			}
			if h.balanceTopic(t) > 0 || last < 0 {
				last = k
			}
		}
	}
	return false
}

// balanceTopic moves partitions of topic t from its most-loaded subscribers
// to its least-loaded ones while their loads differ by more than one, and
// returns the number moved. A giver gives up its highest-numbered partition
// of t that it held when the call began; a subscriber holding none of t is
// skipped as a giver.
//
// A topic whose subscribers' loads are already within one costs one scan of
// its subscribers. Otherwise what each member held at the start is threaded
// through the scratch arrays: heldTop[m] is m's highest partition of t not
// given up yet (valid only while heldStamp[m] is this call's stamp, so
// nothing needs clearing), heldNext[p] the next lower partition with p's
// starting owner, -1 at the end.
func (h *serverHetero) balanceTopic(t int) int {
	l := &h.ladder
	list := &h.lists[h.listOf[t]]
	h.sorted(list)
	if lo, hi := list.loadRange(); l.reset(list.order, lo, hi) <= 1 {
		return 0
	}
	row := h.rows[t]
	if h.heldTop == nil {
		h.heldTop = make([]int32, len(h.g.Members))
		h.heldStamp = make([]int32, len(h.g.Members))
	}
	h.stamp++
	h.heldNext = slices.Grow(h.heldNext[:0], len(row))[:len(row)]
	for p, o := range row {
		h.heldNext[p] = -1
		if h.heldStamp[o] == h.stamp {
			h.heldNext[p] = h.heldTop[o]
		}
		h.heldStamp[o], h.heldTop[o] = h.stamp, int32(p)
	}
	holds := func(m int) bool { return h.heldStamp[m] == h.stamp && h.heldTop[m] >= 0 }
	moved := 0
	for !l.balanced() {
		giver := l.nextMost()
		for giver >= 0 && !holds(giver) {
			l.excludeMost()
			giver = l.nextMost()
		}
		if giver < 0 {
			break
		}
		p := h.heldTop[giver]
		h.heldTop[giver] = h.heldNext[p]
		taker := l.nextLeast()
		if l.balanced() {
			break
		}
		row[p] = int32(taker)
		h.addLoad(giver, -1)
		h.addLoad(taker, 1)
		moved++
	}
	return moved
}

// collect turns rows into an Assignment naming every member of g, with
// every set sorted: one backing array for all sets, each set capped so that
// appending to one never touches another, nil for a member without
// partitions. loads are the sets' sizes; since each assignment in rows
// counts once in loads, all partitions are assigned exactly when the loads
// add up to the number of partitions (errServerUnassigned otherwise). Rows
// are walked by runs of one owner, which the builder produces.
func (h *serverHetero) collect() (spec.Assignment, error) {
	total, sum := 0, 0
	for _, row := range h.rows {
		total += len(row)
	}
	next := make([]int, len(h.loads))
	for i, n := range h.loads {
		next[i] = sum
		sum += n
	}
	if sum != total {
		return nil, errServerUnassigned
	}
	backing := make([]spec.Resource, total)
	for t, row := range h.rows {
		name := h.names[t]
		for p := 0; p < len(row); {
			i := row[p]
			q := p + 1
			for q < len(row) && row[q] == i {
				q++
			}
			dst := backing[next[i] : next[i]+q-p]
			for k := range dst {
				dst[k] = spec.Resource{Topic: name, Partition: int32(p + k)}
			}
			next[i] += q - p
			p = q
		}
	}
	return splitBacking(h.g.Members, backing, h.loads), nil
}

// serverLadder hands out, for one topic's subscribers, the next
// least-loaded member to give a partition to and the next most-loaded one
// to take a partition from, with the round-robin-within-a-level behaviour
// of Kafka's MemberAssignmentBalancer, so that results match Kafka's.
//
// order holds the subscribers sorted by (load, index) when reset was
// called. The least-loaded range is order[:lowEnd]: members that were all
// at lowLevel when the range last grew; lowNext walks it, and when it runs
// off the end every member of the range has received one more, so lowLevel
// rises by one and the range grows over the members now at that level. The
// most-loaded range order[highStart:highEnd] mirrors it from the top, walked
// downwards by highNext; excludeMost drops a member with nothing left to
// give by swapping it past highEnd. loads is shared with the builder and
// read live.
type serverLadder struct {
	loads []int
	order []int

	lowEnd, lowLevel, lowNext               int
	highStart, highEnd, highLevel, highNext int
}

// reset starts over on order, members sorted by (load, index) (not
// empty), with loads from lo to hi, and returns the spread hi-lo. The
// ladder works on a copy of order.
func (l *serverLadder) reset(order []int, lo, hi int) int {
	n := len(order)
	l.order = append(l.order[:0], order...)
	l.lowEnd, l.lowLevel, l.lowNext = 0, lo-1, 0
	l.highStart, l.highEnd, l.highLevel, l.highNext = n, n, hi+1, n-1
	return hi - lo
}

// nextLeast returns the member to give the next partition to and assumes
// the caller gives it one.
func (l *serverLadder) nextLeast() int {
	if l.lowNext >= l.lowEnd {
		l.lowLevel++
		for l.lowEnd < len(l.order) && l.loads[l.order[l.lowEnd]] == l.lowLevel {
			l.lowEnd++
		}
		l.lowNext = 0
	}
	m := l.order[l.lowNext]
	l.lowNext++
	return m
}

// nextMost returns the member to take the next partition from, or -1 when
// every member was excluded, and assumes the caller takes one from it.
func (l *serverLadder) nextMost() int {
	if l.highNext < l.highStart {
		if l.highEnd <= l.highStart && l.highStart > 0 {
			// Every member of the range was excluded: restart the range
			// at the next member down, whatever its load.
			l.highLevel = l.loads[l.order[l.highStart-1]]
		} else {
			l.highLevel--
		}
		for l.highStart > 0 && l.loads[l.order[l.highStart-1]] == l.highLevel {
			l.highStart--
		}
		l.highNext = l.highEnd - 1
	}
	if l.highNext < 0 {
		return -1
	}
	m := l.order[l.highNext]
	l.highNext--
	return m
}

// excludeMost drops the member nextMost last returned from the most-loaded
// range.
func (l *serverLadder) excludeMost() {
	i := l.highNext + 1
	l.order[i], l.order[l.highEnd-1] = l.order[l.highEnd-1], l.order[i]
	l.highEnd--
}

// balanced reports whether the levels of the two ranges are within one.
func (l *serverLadder) balanced() bool { return l.highLevel-l.lowLevel <= 1 }
