package validate

import (
	"github.com/rebalance-ref/rebalance/spec"
)

// OffsetCommit is ConsumerGroup.validateOffsetCommit for a
// non-transactional commit of partitions to an existing consumer group,
// in Kafka's order. It returns the verdict on the request as a whole and,
// when that accepts it, the partitions refused one by one (Kafka's
// CommitPartitionValidator), all with STALE_MEMBER_EPOCH:
//
//  1. A negative epoch while the group has no members (static members
//     parked at -2 count) is accepted: the commit comes from outside group
//     management.
//  2. UNKNOWN_MEMBER_ID for a member id the group does not record.
//  3. UNSUPPORTED_VERSION for OffsetCommit below v9, for a member of the
//     consumer protocol: it must send its member epoch. A classic member
//     (MemberInfo.Classic) commits at any version.
//  4. The member's current epoch is accepted for every partition.
//  5. A classic member's generation id must equal its member epoch
//     exactly: ILLEGAL_GENERATION (KIP-1251 keeps this rule for them).
//  6. With sem.BeforeKafka20066, any other epoch is STALE_MEMBER_EPOCH
//     (the rule before KIP-1251).
//  7. An epoch newer than the member's is STALE_MEMBER_EPOCH.
//  8. An older epoch (KIP-1251, Kafka 4.3): each partition is accepted
//     when the member holds it (assigned or pending revocation) and was
//     assigned it at that epoch or before, and refused otherwise. A
//     member that sent its epoch before a heartbeat moved it on commits
//     what it was given then; a partition it was given since, or gave
//     up, is not its to commit at that epoch.
//
// The instance id is not checked, as in Kafka.
func OffsetCommit(g Group, member spec.MemberID, epoch spec.Epoch, version int16, partitions spec.Set, sem Semantics) (Rejection, spec.Set) {
	if epoch < 0 && g.Size() == 0 {
		return Rejection{}, nil
	}
	m, ok := g.Member(member)
	if !ok {
		return reject(spec.UnknownMemberID, "Member %s is not a member of group.", member), nil
	}
	if !m.Classic && version < 9 {
		return reject(spec.UnsupportedVersion, "OffsetCommit version 9 or above must be used by members using the modern group protocol"), nil
	}
	switch {
	case epoch == m.Epoch:
		return Rejection{}, nil
	case m.Classic, sem.BeforeKafka20066:
		return memberEpoch(epoch, m), nil
	case epoch > m.Epoch:
		return reject(spec.StaleMemberEpoch, "The received member epoch %d is newer than the current member epoch %d.", epoch, m.Epoch), nil
	}
	var stale spec.Set
	for _, r := range partitions {
		if at, held := m.AssignedAt(r); !held || at > epoch {
			stale = append(stale, r)
		}
	}
	return Rejection{}, stale
}

// OffsetFetch is ConsumerGroup.validateOffsetFetch: a fetch that names no
// member (nil) with a negative epoch comes from outside the group and is
// accepted; otherwise the member must exist (UNKNOWN_MEMBER_ID) and send
// its current epoch (STALE_MEMBER_EPOCH, or ILLEGAL_GENERATION for a
// classic member).
func OffsetFetch(g Group, member *spec.MemberID, epoch spec.Epoch) Rejection {
	if member == nil && epoch < 0 {
		return Rejection{}
	}
	var id spec.MemberID
	if member != nil {
		id = *member
	}
	m, ok := g.Member(id)
	if !ok {
		return reject(spec.UnknownMemberID, "Member %s is not a member of group.", id)
	}
	return memberEpoch(epoch, m)
}

// memberEpoch is ConsumerGroup.validateMemberEpoch: the received epoch (a
// classic member's generation id) must be m's member epoch exactly.
func memberEpoch(received spec.Epoch, m MemberInfo) Rejection {
	if received == m.Epoch {
		return Rejection{}
	}
	if m.Classic {
		return reject(spec.IllegalGeneration, "The received generation id %d does not match the expected member epoch %d.", received, m.Epoch)
	}
	return reject(spec.StaleMemberEpoch, "The received member epoch %d does not match the expected member epoch %d.", received, m.Epoch)
}
