package nextgen

import (
	"fmt"
	"slices"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/spec"
)

// memberTable holds the coordinator's member records (Kafka's members map
// of a ConsumerGroup), one per member id, ordered by id as the canonical
// encoding orders map keys (canon.CompareKeys: by length, then bytes).
//
// A slice rather than a map because the model checker forks the
// coordinator at almost every step: a fork copies a few pointers instead
// of a map's buckets, the encoding writes the records in the order they
// are stored instead of sorting the ids each time, and a lookup among a
// handful of members compares a few strings instead of hashing one.
//
// Invariants: ids strictly increase by canon.CompareKeys, and every entry
// is non-nil (put stores the address of a record, never nil). A record is never written after it is stored (put stores a
// changed copy), so copies of the table share records; a fork shares the
// slice itself until its first write (Coordinator.ownMembers).
type memberTable []*member

// linearLookup is the table size up to which a lookup compares ids one by
// one: below it a scan of equal-length strings beats a binary search's
// ordered comparisons.
const linearLookup = 8

// index is the position of member id in t and whether it is there; when it
// is not, the position it would take.
func (t memberTable) index(id spec.MemberID) (int, bool) {
	if len(t) <= linearLookup {
		for i, m := range t {
			if m.id == id {
				return i, true
			}
		}
		// Not there: the search below finds where it would go.
	}
	return slices.BinarySearchFunc(t, id, func(m *member, id spec.MemberID) int {
		return canon.CompareKeys(string(m.id), string(id))
	})
}

// get returns member id's record, nil when there is none.
func (t memberTable) get(id spec.MemberID) *member {
	if i, ok := t.index(id); ok {
		return t[i]
	}
	return nil
}

// has reports whether member id has a record.
func (t memberTable) has(id spec.MemberID) bool {
	_, ok := t.index(id)
	return ok
}

// put stores m as the record of m.id, in place of the one stored if any.
// The caller owns t's array (Coordinator.ownMembers).
func (t *memberTable) put(m *member) {
	i, ok := t.index(m.id)
	if ok {
		(*t)[i] = m
		return
	}
	*t = slices.Insert(*t, i, m)
}

// remove deletes member id's record; it panics when there is none (a
// caller that removes a member has just looked it up). The caller owns
// t's array.
func (t *memberTable) remove(id spec.MemberID) {
	i, ok := t.index(id)
	if !ok {
		panic(fmt.Sprintf("coordinator: no record of member %s to remove", id))
	}
	*t = slices.Delete(*t, i, i+1)
}

// ids returns the member ids in plain string order (Coordinator.Members),
// which is the table's order when the ids have one length.
func (t memberTable) ids() []spec.MemberID {
	out := make([]spec.MemberID, len(t))
	for i, m := range t {
		out[i] = m.id
	}
	slices.Sort(out)
	return out
}

// ordered returns an error naming the first pair of entries out of the
// table's order (or an entry without an id), nil when there is none.
func (t memberTable) ordered() error {
	for i, m := range t {
		switch {
		case m.id == "":
			return fmt.Errorf("member table entry %d has no member id", i)
		case i > 0 && canon.CompareKeys(string(t[i-1].id), string(m.id)) >= 0:
			return fmt.Errorf("member table holds %q after %q", m.id, t[i-1].id)
		}
	}
	return nil
}
