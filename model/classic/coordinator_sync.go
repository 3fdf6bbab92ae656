package classic

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/spec"
)

// This file is the rest of the coordinator's requests: SyncGroup,
// Heartbeat and LeaveGroup, and member removal (leave, session expiry).

// generationOK reports whether a SyncGroup or Heartbeat of generation g is
// of the current generation, or the SkipGenerationCheck fault lets every
// generation through.
func (c *Coordinator) generationOK(g spec.Generation) bool {
	return g == c.generation || c.cfg.Faults.Has(SkipGenerationCheck)
}

// handleSync is Kafka's classicGroupSyncToClassicGroup. Rejections, which
// change nothing: validateMember (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID;
// an empty group has no members), ILLEGAL_GENERATION for another
// generation (unless SkipGenerationCheck), INCONSISTENT_GROUP_PROTOCOL
// for a ProtocolType or ProtocolName that is sent and differs from the
// group's (SyncGroup v5 and later), REBALANCE_IN_PROGRESS in
// GroupPreparingRebalance. Accepted:
//
//   - GroupCompletingRebalance: the SyncGroup is parked (a newer one
//     replaces an older, unanswered). When the leader's arrives, its
//     assignments are stored unread (members it did not list get "";
//     entries for non-members are dropped), every parked SyncGroup is
//     answered with its member's assignment, and the group is
//     GroupStable (setAndPropagateAssignment).
//   - GroupStable: answered at once with the stored assignment (a
//     follower that synced late, or a static member that replaced its
//     old id).
//
// Every accepted SyncGroup restarts the member's session.
func (c *Coordinator) handleSync(s *coordStep, from string, req SyncGroupRequest) {
	reject := func(code spec.ErrorCode) {
		s.send(from, SyncGroupResponse{Seq: req.Seq, Error: code})
	}
	if code := c.validateMember(req.MemberID, req.InstanceID); code != spec.None {
		reject(code)
		return
	}
	if !c.generationOK(req.Generation) {
		reject(spec.IllegalGeneration)
		return
	}
	if inconsistent(req.ProtocolType, c.protocolType) || inconsistent(req.ProtocolName, c.protocol) {
		reject(spec.InconsistentGroupProtocol)
		return
	}
	m := c.members.Get(req.MemberID)
	switch c.state {
	case GroupPreparingRebalance:
		reject(spec.RebalanceInProgress)
	case GroupCompletingRebalance:
		m.node = from
		c.armSession(s, m)
		m.sync = coordParked{ok: true, from: from, seq: req.Seq}
		if m.id != c.leader {
			return
		}
		for _, row := range c.members {
			mm := row.Rec
			mm.assignment = ""
		}
		for _, a := range req.Assignments {
			if mm := c.members.Get(a.MemberID); mm != nil {
				mm.assignment = a.Assignment
			}
		}
		var ids idBuffer
		for _, id := range c.appendSortedIDs(ids[:0]) {
			mm := c.members.Get(id)
			if mm.sync.ok {
				s.send(mm.sync.from, c.syncResponse(mm.sync.seq, mm))
				mm.sync = coordParked{}
				// Kafka's propagateAssignment restarts the session of every
				// member it answers.
				c.armSession(s, mm)
			}
		}
		c.transitionTo(GroupStable)
	case GroupStable:
		m.node = from
		c.armSession(s, m)
		s.send(from, c.syncResponse(req.Seq, m))
	default:
		panic(fmt.Sprintf("classic: SyncGroup of member %s validated in state %s", m.id, c.state))
	}
}

// inconsistent is Kafka's isProtocolInconsistent: a value that is sent
// and differs from the group's.
func inconsistent(sent *string, group string) bool {
	return sent != nil && *sent != group
}

// syncResponse is the successful SyncGroup answer for member m.
func (c *Coordinator) syncResponse(seq uint64, m *coordMember) SyncGroupResponse {
	return SyncGroupResponse{Seq: seq, Error: spec.None, Assignment: m.assignment, ProtocolType: c.protocolType, ProtocolName: c.protocol}
}

// handleHeartbeat is Kafka's classicGroupHeartbeatToClassicGroup.
// Rejections, which change nothing: validateMember (UNKNOWN_MEMBER_ID,
// FENCED_INSTANCE_ID; an empty group has no members), ILLEGAL_GENERATION
// (unless SkipGenerationCheck). Otherwise the member's session restarts
// and the answer is REBALANCE_IN_PROGRESS in GroupPreparingRebalance (the
// member must rejoin) and NONE in GroupCompletingRebalance and
// GroupStable.
func (c *Coordinator) handleHeartbeat(s *coordStep, from string, req HeartbeatRequest) {
	answer := func(code spec.ErrorCode) {
		s.send(from, HeartbeatResponse{Seq: req.Seq, Error: code, Generation: req.Generation})
	}
	m, code := c.validMember(req.MemberID, req.InstanceID)
	if code != spec.None {
		answer(code)
		return
	}
	if !c.generationOK(req.Generation) {
		answer(spec.IllegalGeneration)
		return
	}
	if m.node != from {
		c.ownMembers()
		m = c.members.Get(req.MemberID)
		m.node = from
	}
	c.armSession(s, m)
	switch c.state {
	case GroupPreparingRebalance:
		answer(spec.RebalanceInProgress)
	case GroupCompletingRebalance, GroupStable:
		answer(spec.None)
	default:
		panic(fmt.Sprintf("classic: Heartbeat of member %s validated in state %s", m.id, c.state))
	}
}

// handleLeave is Kafka's classicGroupLeaveToClassicGroup for one member.
// A LeaveGroup with an empty MemberID and a known InstanceID removes that
// instance's member (the administrative removal of KIP-345); one with an
// empty MemberID and an unknown or empty InstanceID is UNKNOWN_MEMBER_ID.
// A pending id (handed out with MEMBER_ID_REQUIRED) is forgotten.
// Otherwise validateMember (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID) rejects,
// changing nothing. An accepted leave is answered NONE and removes the
// member (removeMember).
func (c *Coordinator) handleLeave(s *coordStep, from string, req LeaveGroupRequest) {
	id := req.MemberID
	code := spec.None
	if c.pending[id] {
		// A pending id that leaves is forgotten. Kafka then counts it among
		// the members that left, so a stable group rebalances (and a
		// barrier that waited only for it completes), as after any leave.
		s.send(from, LeaveGroupResponse{Seq: req.Seq, Error: spec.None})
		c.dropPending(s, id)
		c.afterRemoval(s)
		return
	}
	if id == "" {
		mapped, ok := c.instances[req.InstanceID]
		if !ok || req.InstanceID == "" {
			code = spec.UnknownMemberID
		}
		id = mapped
	} else {
		code = c.validateMember(req.MemberID, req.InstanceID)
	}
	s.send(from, LeaveGroupResponse{Seq: req.Seq, Error: code})
	if code != spec.None {
		return
	}
	c.removeMember(s, c.members.Get(id))
}

// expireSession handles member id's SessionTimer reaching its deadline
// (Kafka's expireClassicGroupMemberHeartbeat). A member with a parked
// JoinGroup or SyncGroup is waiting on the group, not gone: Kafka's
// ClassicGroupMember.hasSatisfiedHeartbeat lets it be, and its session
// restarts when the parked request is answered. (Kafka expires a brand-new
// member awaiting its first join after group.new.member.join.timeout; here
// the JoinTimer bounds that wait.) Any other member is removed, as if it
// had left.
func (c *Coordinator) expireSession(s *coordStep, id spec.MemberID) {
	m := c.members.Get(id)
	if m == nil {
		panic(fmt.Sprintf("classic: session timer armed for non-member %s", id))
	}
	if m.join.ok || m.sync.ok {
		return
	}
	c.removeMember(s, m)
}

// removeMember removes m because it left or its session expired (Kafka's
// removeMemberAndUpdateClassicGroup) and moves the group on: from
// GroupStable or GroupCompletingRebalance a rebalance starts (which, with
// no members left, completes at once to GroupEmpty); in
// GroupPreparingRebalance the barrier may now be complete.
func (c *Coordinator) removeMember(s *coordStep, m *coordMember) {
	if c.state == GroupEmpty {
		panic(fmt.Sprintf("classic: member %s removed in state %s", m.id, c.state))
	}
	c.dropMember(s, m)
	c.afterRemoval(s)
}

// afterRemoval moves the group on after a member or a pending id left:
// from GroupStable or GroupCompletingRebalance a rebalance starts; in
// GroupPreparingRebalance the barrier may now be complete; an empty group
// stays as it is.
func (c *Coordinator) afterRemoval(s *coordStep) {
	switch c.state {
	case GroupStable, GroupCompletingRebalance:
		c.prepareRebalance(s)
	case GroupPreparingRebalance:
		c.maybeCompleteJoin(s)
	}
}

// dropMember takes m out of the group and leaves the state alone: its
// session timer is cancelled, a parked JoinGroup is answered
// UNKNOWN_MEMBER_ID so a process still waiting retries (as Kafka does), a
// parked SyncGroup is dropped unanswered, its instance id is released,
// and if it led, the group has no leader until the next join completes.
func (c *Coordinator) dropMember(s *coordStep, m *coordMember) {
	c.disarm(s, coordSessionTimer(m.id))
	if m.join.ok {
		s.send(m.join.from, JoinGroupResponse{Seq: m.join.seq, Error: spec.UnknownMemberID})
	}
	c.members.Remove(m.id)
	c.count(m, -1)
	if m.instanceID != "" {
		c.ownInstances()
		delete(c.instances, m.instanceID)
	}
	if c.leader == m.id {
		c.leader = ""
	}
}
