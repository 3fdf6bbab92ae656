package assign

import (
	"math/bits"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// This file is the rack-aware half of the client-side Range (KIP-881;
// Kafka's RangeAssignor.assignPartitions since 3.5). Range takes it only
// when racks are known on both sides and matter for some topic; otherwise
// it is the plain range assignment, unchanged.
//
// Kafka keeps one state per topic. Here topics share what they can, with the
// same results: topics with the same subscribers share one subscriber list
// (rangeSubscribers), and topics with the same subscribers and the same
// number of partitions share one assignment state (rangeBucket). Kafka
// assigns such topics together, partition p of all of them to one consumer,
// when their subscribers have racks, so their states stay identical; when no
// subscriber has a rack each of them gets the plain ranges, identical too.
// Racks are numbered (rackNames), and the racks of a partition's replicas
// are a bit mask when the group names at most maskRacks racks. Rack
// matching and plain ranges use per-rack cursors that only move forward, so
// each bucket costs O(partitions × racks + consumers), not O(partitions ×
// consumers).

// maskRacks is the largest number of distinct racks (members' and replicas')
// for which rack sets are bit masks; beyond, they are sorted lists.
const maskRacks = 64

// rangeWithRacks is Range's rack-aware path on the valid group g, order
// being its members in Kafka's order (kafkaOrder). It returns each member's
// partitions (got[i] for member i, sorted, nil when none) and true, or nil
// and false when no topic needs rack-aware assignment (then Range is the
// plain assignment). masks selects bit masks for rack sets while every rack
// number is below maskRacks (it starts again with lists otherwise); tests
// clear it to run the lists.
func rangeWithRacks(g Group, order []int, masks bool) ([]spec.Set, bool) {
	names := g.Topics.Names()
	racks := newRackNames(g.Members)
	subs, subsOf := rangeSubscribersOf(g, names, order, racks)
	// Buckets: topics with the same subscribers and partition count, in
	// name order; bucketOf[t] is topic t's, nil when it has no partitions or
	// no subscriber.
	bucketOf := make([]*rangeBucket, len(names))
	index := map[[2]int]*rangeBucket{}
	var buckets []*rangeBucket
	for t, s := range subsOf {
		p := int(g.Topics[names[t]])
		if s < 0 || p == 0 {
			continue
		}
		b := index[[2]int{s, p}]
		if b == nil {
			b = newRangeBucket(subs[s], p)
			index[[2]int{s, p}] = b
			buckets = append(buckets, b)
		}
		b.topics = append(b.topics, t)
		bucketOf[t] = b
	}
	use := false
	for _, b := range buckets {
		if !b.subs.racked() {
			continue
		}
		for _, t := range b.topics {
			needs, ok := b.addReplicaRacks(g.ReplicaRacks[names[t]], racks, masks)
			if !ok {
				return rangeWithRacks(g, order, false)
			}
			b.needsRacks = needs // read only when b has one topic
			use = use || needs
		}
	}
	if !use {
		return nil, false
	}
	for _, b := range buckets {
		b.assign(racks.members)
	}
	return memberSets(g, names, bucketOf), true
}

// memberSets lays out the buckets' owners as each member's sorted partitions:
// topics in name order, partitions ascending.
func memberSets(g Group, names []string, bucketOf []*rangeBucket) []spec.Set {
	total := make([]int, len(g.Members))
	sum := 0
	for t, b := range bucketOf {
		if b == nil || b.topics[0] != t {
			continue
		}
		for k, c := range b.count {
			total[b.subs.consumers[k]] += int(c) * len(b.topics)
			sum += int(c) * len(b.topics)
		}
	}
	flat := make([]spec.Resource, sum)
	got := make([]spec.Set, len(g.Members))
	at := 0
	for i, n := range total {
		if n > 0 {
			got[i] = flat[at : at : at+n]
			at += n
		}
	}
	for t, b := range bucketOf {
		if b == nil {
			continue
		}
		for p, k := range b.owner {
			if k >= 0 {
				i := b.subs.consumers[k]
				got[i] = append(got[i], spec.TP(names[t], int32(p)))
			}
		}
	}
	return got
}

// rackNames numbers rack names: the members' racks first, 0 to members-1,
// then the other racks of replicas as they are met.
type rackNames struct {
	names   []string
	members int
	// byName indexes names once there are more than a few of them (a
	// linear scan is faster before).
	byName map[string]int32
}

// newRackNames numbers the racks of members.
func newRackNames(members []Member) *rackNames {
	n := &rackNames{}
	for _, m := range members {
		if m.Rack != "" {
			n.id(m.Rack)
		}
	}
	n.members = len(n.names)
	return n
}

// id returns the number of the rack name, numbering it if new.
func (n *rackNames) id(name string) int32 {
	if n.byName == nil {
		for r, s := range n.names {
			if s == name {
				return int32(r)
			}
		}
	} else if r, ok := n.byName[name]; ok {
		return r
	}
	n.names = append(n.names, name)
	r := int32(len(n.names) - 1)
	if n.byName != nil || len(n.names) > 8 {
		if n.byName == nil {
			n.byName = make(map[string]int32, 16)
			for k, s := range n.names {
				n.byName[s] = int32(k)
			}
		}
		n.byName[name] = r
	}
	return r
}

// rangeSubscribers is the subscribers of one or more topics, shared
// read-only by them.
type rangeSubscribers struct {
	// consumers are member indexes in Kafka's member order (kafkaOrder);
	// racks[k] is consumers[k]'s rack number, -1 when it has none.
	consumers []int
	racks     []int32
	// byRack[r], for a member rack r, lists the positions in consumers of
	// the consumers on r, ascending; byRack[len(byRack)-1] those without a
	// rack.
	byRack [][]int32
	// rackSet holds the racks of the consumers.
	rackSet bitset
}

// racked reports whether some consumer has a rack.
func (s *rangeSubscribers) racked() bool { return s.rackSet.any() }

// rangeSubscribersOf returns the distinct subscriber lists of the topics
// names (g.Topics, sorted) with partitions, and subsOf[t], topic t's
// index among them (-1 for a topic without partitions or subscribers).
// Topics have the same subscribers exactly when the same distinct
// subscriptions (subscriptionTable) hold them, so the work is the size of
// the distinct subscriptions plus, per member, its number of distinct
// subscriber lists.
func rangeSubscribersOf(g Group, names []string, order []int, racks *rackNames) ([]*rangeSubscribers, []int) {
	table := newSubscriptionTable(g)
	// holders[t] lists the distinct subscriptions holding topic t.
	holders := make([][]int32, len(names))
	ix := newTopicIndex(names)
	for s, i := range table.first {
		c := ix.cursor()
		for _, name := range g.Members[i].Topics {
			if t, ok := c.find(name); ok && g.Topics[name] > 0 {
				holders[t] = append(holders[t], int32(s))
			}
		}
	}
	subsOf := make([]int, len(names))
	listsOf := make([][]int, len(table.first)) // per distinct subscription
	byKey := map[string]int{}
	var key []byte
	var out []*rangeSubscribers
	for t, h := range holders {
		subsOf[t] = -1
		if len(h) == 0 {
			continue
		}
		key = key[:0]
		for _, s := range h {
			key = append(key, byte(s), byte(s>>8), byte(s>>16), byte(s>>24))
		}
		k, ok := byKey[string(key)]
		if !ok {
			k = len(out)
			byKey[string(key)] = k
			out = append(out, &rangeSubscribers{})
			for _, s := range h {
				listsOf[s] = append(listsOf[s], k)
			}
		}
		subsOf[t] = k
	}
	for _, i := range order {
		for _, k := range listsOf[table.sub[i]] {
			out[k].consumers = append(out[k].consumers, i)
		}
	}
	for _, s := range out {
		s.racks = make([]int32, len(s.consumers))
		s.byRack = make([][]int32, racks.members+1)
		for k, i := range s.consumers {
			r := int32(-1)
			slot := racks.members
			if name := g.Members[i].Rack; name != "" {
				r = racks.id(name)
				slot = int(r)
				s.rackSet.set(r)
			}
			s.racks[k] = r
			s.byRack[slot] = append(s.byRack[slot], int32(k))
		}
	}
	return out, subsOf
}

// rangeBucket is Kafka's TopicAssignmentState shared by the topics with the
// same subscribers and the same number of partitions: Kafka assigns them
// together (co-partitioned) when the subscribers have racks, and each gets
// the same plain ranges otherwise, so they end with the same owners.
type rangeBucket struct {
	subs   *rangeSubscribers
	topics []int // indexes into the sorted topic names, ascending
	// needsRacks is Kafka's needsRackAwareAssignment for the last topic
	// added: it matters only when the bucket has one topic.
	needsRacks bool
	// common holds, per partition p, the racks holding a replica of p of
	// every topic of the bucket; set (addReplicaRacks) only when some
	// subscriber has a rack.
	common rackSets
	// owner[p] is the position in subs.consumers of partition p's owner, -1
	// while it has none; left counts those.
	owner []int32
	left  int
	// count[k] is the number of partitions consumer k (by position) got;
	// quota is ⌊P/n⌋, and extra the consumers that may still get ⌊P/n⌋+1.
	count        []int32
	quota, extra int
}

func newRangeBucket(subs *rangeSubscribers, partitions int) *rangeBucket {
	b := &rangeBucket{subs: subs, owner: make([]int32, partitions), left: partitions}
	for p := range b.owner {
		b.owner[p] = -1
	}
	n := len(subs.consumers)
	b.count = make([]int32, n)
	b.quota, b.extra = partitions/n, partitions%n
	return b
}

// addReplicaRacks adds the replica racks of one topic of b (known, nil when
// unknown) to b.common, and returns whether the topic needs rack-aware
// assignment (Kafka's useRackAwareAssignment, as useRackAware: its
// subscribers' racks meet its replicas' racks, and some partition lacks one
// of those). With masks, it returns ok false when a rack number reaches
// maskRacks; b is then unusable, and the caller starts again with lists.
func (b *rangeBucket) addReplicaRacks(known [][]string, racks *rackNames, masks bool) (needs, ok bool) {
	first := b.common.masks == nil && b.common.lists == nil
	if first && masks {
		b.common.masks = make([]uint64, len(b.owner))
	} else if first {
		b.common.lists = make([][]int32, len(b.owner))
	}
	var union bitset
	fewest := int(^uint(0) >> 1)
	var ids []int32
	for p := range b.owner {
		ids = ids[:0]
		if known != nil {
			for _, name := range known[p] {
				ids = append(ids, racks.id(name))
			}
		}
		if !isStrictlyAscending(ids) {
			slices.Sort(ids)
			ids = slices.Compact(ids)
		}
		fewest = min(fewest, len(ids))
		for _, r := range ids {
			union.set(r)
		}
		switch {
		case !masks && first:
			b.common.lists[p] = slices.Clone(ids)
		case !masks:
			b.common.lists[p] = intersectSorted(b.common.lists[p], ids)
		case len(ids) > 0 && ids[len(ids)-1] >= maskRacks:
			return false, false
		default:
			var m uint64
			for _, r := range ids {
				m |= 1 << r
			}
			if !first {
				m &= b.common.masks[p]
			}
			b.common.masks[p] = m
		}
	}
	needs = b.subs.rackSet.meets(union) && fewest < union.count()
	return needs, true
}

// intersectSorted returns the numbers of a also in b, both ascending,
// reusing a.
func intersectSorted(a, b []int32) []int32 {
	kept := a[:0]
	for _, r := range a {
		if _, ok := slices.BinarySearch(b, r); ok {
			kept = append(kept, r)
		}
	}
	return kept
}

// isStrictlyAscending reports whether ids is sorted without duplicates.
func isStrictlyAscending(ids []int32) bool {
	for k := 1; k < len(ids); k++ {
		if ids[k-1] >= ids[k] {
			return false
		}
	}
	return true
}

// assign runs Kafka's rack-aware assignPartitions on b: rack matching first
// (together when b has several topics, by ranges when its one topic needs
// racks), if some subscriber has a rack, then plain ranges for what is left.
// members is the number of member racks (rackNames.members).
func (b *rangeBucket) assign(members int) {
	if b.subs.racked() {
		switch {
		case len(b.topics) > 1:
			b.assignCoPartitioned(members)
		case b.needsRacks:
			b.assignRanges(true)
		}
	}
	b.assignRanges(false)
}

// room reports whether consumer k may take one more partition (Kafka's
// maxAssignable > 0). Once false it stays false: counts only grow and extra
// only shrinks.
func (b *rangeBucket) room(k int32) bool {
	return b.maxAssignable(k) > 0
}

// maxAssignable is how many more partitions consumer k may take.
func (b *rangeBucket) maxAssignable(k int32) int {
	limit := b.quota
	if b.extra > 0 {
		limit++
	}
	return max(0, limit-int(b.count[k]))
}

// give records that consumer k took partition p (Kafka's onAssigned).
func (b *rangeBucket) give(k int32, p int) {
	b.owner[p] = k
	b.left--
	b.count[k]++
	if int(b.count[k]) == b.quota+1 {
		b.extra--
	}
}

// assignCoPartitioned is Kafka's assignCoPartitionedWithRackMatching:
// partition p (of every topic of b) goes to the first consumer, in order,
// with room and without a rack or on a rack of b.common for p. The first
// consumer with room of each rack is found with a cursor per rack, which
// only moves forward since a consumer without room never gets any again.
func (b *rangeBucket) assignCoPartitioned(members int) {
	byRack := b.subs.byRack
	cursor := make([]int, len(byRack))
	for p := range b.owner {
		best := int32(-1)
		consider := func(slot int) {
			list, c := byRack[slot], cursor[slot]
			for c < len(list) && !b.room(list[c]) {
				c++
			}
			cursor[slot] = c
			if c < len(list) && (best < 0 || list[c] < best) {
				best = list[c]
			}
		}
		consider(members)
		b.common.each(p, members, func(r int32) { consider(int(r)) })
		if best >= 0 {
			b.give(best, p)
		}
	}
}

// assignRanges is Kafka's assignRanges: each consumer in order takes the
// lowest unassigned partitions it may, up to maxAssignable: any of them, or,
// withRacks, those on its rack if it has one (Kafka's racksMatch). The
// lowest candidate of each rack is found with a cursor per rack, which only
// moves forward since partitions are only ever taken.
func (b *rangeBucket) assignRanges(withRacks bool) {
	free := len(b.subs.byRack) - 1 // the slot of consumers without a rack
	cursor := make([]int, len(b.subs.byRack))
	for k := range b.subs.consumers {
		if b.left == 0 {
			return
		}
		limit := b.maxAssignable(int32(k))
		r := b.subs.racks[k]
		slot := free
		if withRacks && r >= 0 {
			slot = int(r)
		}
		p := cursor[slot]
		for ; limit > 0 && p < len(b.owner); p++ {
			if b.owner[p] < 0 && (slot == free || b.common.has(p, r)) {
				b.give(int32(k), p)
				limit--
			}
		}
		cursor[slot] = p
	}
}

// rackSets holds a set of rack numbers per partition: as bit masks (masks,
// every number below maskRacks) or as ascending lists (lists); both nil
// until the first topic is added (addReplicaRacks), and then empty sets.
type rackSets struct {
	masks []uint64
	lists [][]int32
}

// has reports whether rack r is in partition p's set.
func (s *rackSets) has(p int, r int32) bool {
	if s.masks != nil {
		return s.masks[p]&(1<<r) != 0
	}
	if s.lists == nil {
		return false
	}
	_, ok := slices.BinarySearch(s.lists[p], r)
	return ok
}

// each calls f on the racks below limit in partition p's set, ascending.
func (s *rackSets) each(p int, limit int, f func(r int32)) {
	if s.masks != nil {
		for m := s.masks[p]; m != 0; m &= m - 1 {
			if r := bits.TrailingZeros64(m); r < limit {
				f(int32(r))
			}
		}
		return
	}
	if s.lists == nil {
		return
	}
	for _, r := range s.lists[p] {
		if int(r) < limit {
			f(r)
		}
	}
}

// bitset is a set of small non-negative numbers.
type bitset []uint64

func (s *bitset) set(r int32) {
	for int(r)/64 >= len(*s) {
		*s = append(*s, 0)
	}
	(*s)[r/64] |= 1 << (r % 64)
}

func (s bitset) any() bool {
	for _, w := range s {
		if w != 0 {
			return true
		}
	}
	return false
}

func (s bitset) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// meets reports whether s and o have a number in common.
func (s bitset) meets(o bitset) bool {
	for k := range min(len(s), len(o)) {
		if s[k]&o[k] != 0 {
			return true
		}
	}
	return false
}
