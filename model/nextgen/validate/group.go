package validate

import (
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// MemberInfo is what the rules need to know about one member of the group,
// as the coordinator stores it (ConsumerGroupMember).
type MemberInfo struct {
	ID spec.MemberID
	// InstanceID is the static membership id; empty for a dynamic member.
	InstanceID string
	// Epoch is the member epoch; spec.StaticLeaveEpoch (-2) for a static
	// member that left temporarily.
	Epoch spec.Epoch
	// PreviousEpoch is the member epoch before the last update
	// (previousMemberEpoch); -1 for a member that has just been created.
	PreviousEpoch spec.Epoch
	// Assigned is the member's assigned partitions (assignedPartitions, not
	// those pending revocation). It must be a valid spec.Set.
	Assigned spec.Set
	// AssignmentEpochs are the epochs at which the member was assigned
	// each partition it holds, assigned or pending revocation (KIP-1251's
	// assignedPartitionsWithEpochs and partitionsPendingRevocationWithEpochs).
	// Invariant: sorted by partition, each partition once.
	AssignmentEpochs []AssignmentEpoch
	// Classic reports that the member uses the classic protocol inside a
	// consumer group (ConsumerGroupMember.useClassicProtocol): it joined
	// with JoinGroup, or was carried over by an online upgrade.
	Classic bool
	// Protocols are the names of the classic protocols (assignors) a classic
	// member supports, as its JoinGroup listed them; nil for a member of the
	// consumer protocol.
	Protocols []string
}

// AssignmentEpoch is the member epoch at which a partition was assigned to
// the member that holds it (KIP-1251): the epoch of the member's first
// assignment that held it since it last did not.
type AssignmentEpoch struct {
	Partition spec.Resource
	Epoch     spec.Epoch
}

// AssignedAt returns the epoch at which the member was assigned r, and
// false when it does not hold r.
func (m MemberInfo) AssignedAt(r spec.Resource) (spec.Epoch, bool) {
	i, ok := slices.BinarySearchFunc(m.AssignmentEpochs, r, func(a AssignmentEpoch, r spec.Resource) int {
		return a.Partition.Compare(r)
	})
	if !ok {
		return 0, false
	}
	return m.AssignmentEpochs[i].Epoch, true
}

// Group is the read-only view of a consumer group that Join and Leave need.
// It is an interface so a coordinator model can answer from its own state
// without copying it; Members is a ready-made implementation.
//
// A nil Group (the interface value itself) means the group does not exist;
// an empty Members, even a nil one, is a group that exists with no members.
//
// Implementations must be consistent: when InstanceOwner returns (id, true),
// Member(id) must return a member whose InstanceID is that instance id.
type Group interface {
	// Member returns the member with the given id.
	Member(id spec.MemberID) (MemberInfo, bool)
	// InstanceOwner returns the id of the static member that holds the
	// instance id (ConsumerGroup.staticMemberId).
	InstanceOwner(instanceID string) (spec.MemberID, bool)
	// Size is the number of members, including static members that left
	// temporarily (epoch -2): they still count towards the maximum size.
	Size() int
}

// Members is a Group given as a list of members. Lookups scan the list, so
// it suits small groups and tests; the first match wins, so a list with a
// duplicated member id or instance id still gives deterministic answers.
type Members []MemberInfo

// Member returns the first member with the given id. An empty id is never
// found.
func (ms Members) Member(id spec.MemberID) (MemberInfo, bool) {
	if id == "" {
		return MemberInfo{}, false
	}
	for _, m := range ms {
		if m.ID == id {
			return m, true
		}
	}
	return MemberInfo{}, false
}

// InstanceOwner returns the id of the first member whose InstanceID is
// instanceID. An empty instance id is never found.
func (ms Members) InstanceOwner(instanceID string) (spec.MemberID, bool) {
	if instanceID == "" {
		return "", false
	}
	for _, m := range ms {
		if m.InstanceID == instanceID {
			return m.ID, true
		}
	}
	return "", false
}

// Size is the number of members.
func (ms Members) Size() int { return len(ms) }
