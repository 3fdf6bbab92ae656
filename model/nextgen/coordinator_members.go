package nextgen

import (
	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/spec"
)

// memberTable holds the coordinator's member records (Kafka's members map
// of a ConsumerGroup), one per member id, each row keyed by its record's
// id, in the order the canonical encoding orders map keys (canon.Table).
//
// Invariants: the table is canon.Table-ordered, every row's key is its
// record's id, and every record is non-nil (setRecord stores the address
// of a record, never nil). A record is never written after it is stored
// (setRecord stores a changed copy), so copies of the table share records;
// a fork shares the rows themselves until its first write
// (Coordinator.ownMembers).
type memberTable = canon.Table[spec.MemberID, *member]

// keyedRight returns the first row of t whose key is not its record's id,
// nil when every row is keyed right.
func keyedRight(t memberTable) *canon.Row[spec.MemberID, *member] {
	for i := range t {
		if t[i].Rec.id != t[i].Key {
			return &t[i]
		}
	}
	return nil
}
