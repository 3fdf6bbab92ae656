package classic

import (
	"github.com/rebalance-ref/rebalance/spec"
)

// handleOffsetCommit is the fencing half of Kafka's OffsetCommit for a
// classic group (ClassicGroup.validateOffsetCommit, non-transactional, and
// OffsetMetadataManager.commitOffset's session rule). In order:
//
//  1. A negative generation while the group is GroupEmpty is accepted:
//     the commit comes from outside group management (an admin client or
//     a consumer that assigns itself partitions).
//  2. A request naming a generation of 0 or more, a member id or an
//     instance id must come from a member (validateMember:
//     UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID) of the current generation
//     (ILLEGAL_GENERATION).
//  3. Otherwise (no generation, no member id, no instance id: OffsetCommit
//     v0) the group must be GroupEmpty (UNKNOWN_MEMBER_ID).
//  4. REBALANCE_IN_PROGRESS in GroupCompletingRebalance: the member's
//     generation is valid but the group has no assignment for it yet.
//     (GroupPreparingRebalance is accepted: an eager member commits in
//     its revocation callback before it rejoins.)
//
// An accepted commit from a member restarts its session when the group is
// GroupStable or GroupPreparingRebalance, as Kafka's commitOffset does;
// nothing else changes. A rejected commit changes nothing. The offsets are
// not the coordinator's to store: the driver keeps them once the answer is
// NONE.
func (c *Coordinator) handleOffsetCommit(s *coordStep, from string, req OffsetCommitRequest) {
	code := c.commitError(req)
	s.send(from, OffsetCommitResponse{Seq: req.Seq, Error: code})
	if code != spec.None {
		return
	}
	if m := c.members.Get(req.MemberID); m != nil && (c.state == GroupStable || c.state == GroupPreparingRebalance) {
		c.armSession(s, m)
	}
}

// commitError is ClassicGroup.validateOffsetCommit for a non-transactional
// commit; see handleOffsetCommit.
func (c *Coordinator) commitError(req OffsetCommitRequest) spec.ErrorCode {
	if c.cfg.Faults.Has(AcceptStaleCommits) {
		return spec.None
	}
	if req.Generation < 0 && c.state == GroupEmpty {
		return spec.None
	}
	if req.Generation >= 0 || req.MemberID != "" || req.InstanceID != "" {
		if code := c.validateMember(req.MemberID, req.InstanceID); code != spec.None {
			return code
		}
		if req.Generation != c.generation {
			return spec.IllegalGeneration
		}
	} else if c.state != GroupEmpty {
		return spec.UnknownMemberID
	}
	if c.state == GroupCompletingRebalance {
		return spec.RebalanceInProgress
	}
	return spec.None
}
