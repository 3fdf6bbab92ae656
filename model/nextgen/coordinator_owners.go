package nextgen

import (
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/spec"
)

// ownerMap is the partition-owner map (Coordinator.owners): the holders of
// each partition, sorted by member id, for the partitions that have any.
// It is a map from spec.Resource to a non-empty []holder in all but
// representation: the holders are kept per topic in a slice indexed by
// partition number, so that walking a sorted spec.Set looks each topic up
// once and each partition up by index instead of hashing a resource.
// Nothing else about it is state: the partitions it has are those whose
// slot is not empty, however long a topic's slice has grown, so two owner
// maps with the same entries behave, print and encode the same (only
// reflect.DeepEqual may tell them apart, as it could two Go maps' spare
// capacity; a clone is DeepEqual to its original).
//
// A holder's epoch is stored only under the PerSetEpochUpdate fault, whose
// map may hold a stale one. Otherwise it is always the epoch of the
// holder's member record (Kafka sets the partition epochs from the member
// epoch on every update of the member), so it is left 0 and read from the
// member (Coordinator.holders): a heartbeat that moves its member to a new
// epoch without changing what it holds leaves the map alone.
//
// The zero ownerMap is empty and usable.
type ownerMap struct {
	// topics holds, for every topic that ever had a holder, one slot per
	// partition number p at index p+1 (index 0 is the connector resource,
	// spec.ConnectorTask); a topic's slice is as long as the largest
	// partition it has held needs. Holders come only from targets, which
	// hold existing partitions, so the slices stay within the metadata's
	// partition counts.
	topics map[string][]slot
}

// slot is the holders of one partition: first, then rest.
type slot struct {
	// first is the first holder by member id; its member is "" when the
	// partition has no holder (member ids are never empty).
	first holder
	// rest are the further holders, sorted by member id: only with the
	// AssignBeforeRelease fault. Never written after it is stored, so
	// copies of the slot share it.
	rest []holder
}

// empty reports whether the partition has no holder.
func (s slot) empty() bool { return s.first.member == "" }

// holders returns the holders as stored (see ownerMap for their epochs)
// in a new slice, nil for none.
func (s slot) holders() []holder {
	if s.empty() {
		return nil
	}
	return append([]holder{s.first}, s.rest...)
}

// count is the number of holders.
func (s slot) count() int {
	if s.empty() {
		return 0
	}
	return 1 + len(s.rest)
}

// at is the i-th holder (0 <= i < count), read in place.
func (s slot) at(i int) holder {
	if i == 0 {
		return s.first
	}
	return s.rest[i-1]
}

// index returns the position of id among the holders, or -1.
func (s slot) index(id spec.MemberID) int {
	for i := range s.count() {
		if s.at(i).member == id {
			return i
		}
	}
	return -1
}

// slotOf returns the slot holding hs, sorted by member id and distinct;
// the empty slot for none. It does not retain hs.
func slotOf(hs []holder) slot {
	if len(hs) == 0 {
		return slot{}
	}
	s := slot{first: hs[0]}
	if len(hs) > 1 {
		s.rest = slices.Clone(hs[1:])
	}
	return s
}

// without returns s without its i-th holder.
func (s slot) without(i int) slot {
	if len(s.rest) == 0 {
		return slot{}
	}
	return slotOf(slices.Delete(s.holders(), i, i+1))
}

// slotIndex is the index of partition p in its topic's slice.
func slotIndex(p int32) int { return int(p) + 1 }

// get returns the slot of r; the empty slot when r has no holder.
func (o ownerMap) get(r spec.Resource) slot {
	row := o.topics[r.Topic]
	if i := slotIndex(r.Partition); i >= 0 && i < len(row) {
		return row[i]
	}
	return slot{}
}

// set makes s the slot of r.
func (o *ownerMap) set(r spec.Resource, s slot) {
	var w rowWriter
	*w.at(o, r) = s
}

// clone returns a copy of o that shares no slice it writes with o.
func (o ownerMap) clone() ownerMap {
	if o.topics == nil {
		return ownerMap{}
	}
	n := ownerMap{topics: make(map[string][]slot, len(o.topics))}
	for t, row := range o.topics {
		n.topics[t] = slices.Clone(row)
	}
	return n
}

// len returns the number of partitions with a holder.
func (o ownerMap) len() int {
	n := 0
	for _, row := range o.topics {
		for _, s := range row {
			if !s.empty() {
				n++
			}
		}
	}
	return n
}

// each calls f for every partition with a holder, in resource order
// (spec.Resource.Compare), with its slot.
func (o ownerMap) each(f func(spec.Resource, slot)) {
	var buf [8]string
	names := buf[:0]
	for t := range o.topics {
		names = append(names, t)
	}
	slices.Sort(names)
	for _, t := range names {
		for i, s := range o.topics[t] {
			if !s.empty() {
				f(spec.Resource{Topic: t, Partition: int32(i - 1)}, s)
			}
		}
	}
}

// rowReader reads slots along a sorted walk of resources, looking each
// topic up once for each run of its partitions.
type rowReader struct {
	topic string
	row   []slot
	ok    bool
}

// get returns the slot of r in o, as ownerMap.get.
func (rd *rowReader) get(o ownerMap, r spec.Resource) slot {
	if !rd.ok || rd.topic != r.Topic {
		rd.topic, rd.row, rd.ok = r.Topic, o.topics[r.Topic], true
	}
	if i := slotIndex(r.Partition); i >= 0 && i < len(rd.row) {
		return rd.row[i]
	}
	return slot{}
}

// rowWriter is rowReader for writing: it grows a topic's slice to take a
// partition. It must not be used across writes through another writer.
type rowWriter struct {
	topic string
	row   []slot
	ok    bool
}

// at returns the slot of r in o, to read or write, making room for it.
// The pointer is valid until the next call.
func (w *rowWriter) at(o *ownerMap, r spec.Resource) *slot {
	if !w.ok || w.topic != r.Topic {
		w.topic, w.row, w.ok = r.Topic, o.topics[r.Topic], true
	}
	i := slotIndex(r.Partition)
	if i >= len(w.row) {
		w.row = append(w.row, make([]slot, i+1-len(w.row))...)
		if o.topics == nil {
			o.topics = map[string][]slot{}
		}
		o.topics[r.Topic] = w.row
	}
	return &w.row[i]
}

// compareHolders orders holders by member id.
func compareHolders(a, b holder) int { return strings.Compare(string(a.member), string(b.member)) }
