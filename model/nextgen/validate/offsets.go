package validate

import (
	"github.com/rebalance-ref/rebalance/spec"
)

// OffsetCommit is ConsumerGroup.validateOffsetCommit for a
// non-transactional commit to an existing consumer group, in Kafka's order:
//
//  1. A negative epoch while the group has no members (static members
//     parked at -2 count) is accepted: the commit comes from outside group
//     management.
//  2. UNKNOWN_MEMBER_ID for a member id the group does not record.
//  3. UNSUPPORTED_VERSION for OffsetCommit below v9, for a member of the
//     consumer protocol: it must send its member epoch. A classic member
//     (MemberInfo.Classic) commits at any version.
//  4. Any epoch but the member's current one: STALE_MEMBER_EPOCH for a
//     member of the consumer protocol (the rule before KIP-1251, which
//     later relaxes it per partition), ILLEGAL_GENERATION for a classic
//     member, whose generation id must equal its member epoch exactly.
//
// The instance id is not checked, as in Kafka.
func OffsetCommit(g Group, member spec.MemberID, epoch spec.Epoch, version int16) Rejection {
	if epoch < 0 && g.Size() == 0 {
		return Rejection{}
	}
	m, ok := g.Member(member)
	if !ok {
		return reject(spec.UnknownMemberID, "Member %s is not a member of group.", member)
	}
	if !m.Classic && version < 9 {
		return reject(spec.UnsupportedVersion, "OffsetCommit version 9 or above must be used by members using the modern group protocol")
	}
	return memberEpoch(epoch, m)
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
