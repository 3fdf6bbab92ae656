package impl

import (
	"maps"

	"github.com/rebalance-ref/rebalance/spec"
)

// Offset is one committed offset of a group, as OffsetCommit stores it
// and OffsetFetch returns it.
type Offset struct {
	// Offset is the next record to consume.
	Offset int64
	// LeaderEpoch is the partition leader epoch of the record before
	// Offset; -1 when the client sent none.
	LeaderEpoch int32
	// Metadata is the client's string; nil when null.
	Metadata *string
}

// Offsets is a group's committed offsets. Kafka's group coordinator keeps
// them next to the group but apart from its membership (the
// OffsetMetadataManager beside the GroupMetadataManager); here the group's
// driver holds them, so that a commit is fenced and stored in one step of
// its loop and no rebalance can come in between.
type Offsets map[spec.Resource]Offset

// get returns the offsets of which (all of them when which is nil).
func (o Offsets) get(which []spec.Resource) Offsets {
	if which == nil {
		return maps.Clone(o)
	}
	out := Offsets{}
	for _, r := range which {
		if v, ok := o[r]; ok {
			out[r] = v
		}
	}
	return out
}
