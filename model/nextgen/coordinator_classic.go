package nextgen

import (
	"fmt"
	"slices"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen/reconcile"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file holds the classic members of a consumer group: the classic
// protocol's requests answered by the consumer-group coordinator (Kafka's
// GroupMetadataManager classicGroupJoinToConsumerGroup,
// classicGroupSyncToConsumerGroup, classicGroupHeartbeatToConsumerGroup,
// classicGroupLeaveToConsumerGroup, and the classic member's OffsetCommit
// rule of ConsumerGroup.validateOffsetCommit). A member joins with a
// JoinGroup and is then a member of the consumer group like any other: it
// is in the target assignment computed by the server-side assignor and is
// reconciled towards it, revoke first, with the partition epochs guarding
// every hand-over. What differs is how it hears of its assignment: it
// rejoins (JoinGroup) to move its reconciliation on, and reads its assigned
// partitions in its SyncGroup answer; revocation is asked for by
// REBALANCE_IN_PROGRESS on its heartbeat.

// classicAnswer sends the classic response msg to from, as a
// Classic message.
func (s *step) classicAnswer(from string, msg classic.Message) {
	s.send(from, Classic{Msg: msg})
}

// handleClassic runs one request of the classic protocol from node from:
//
//   - JoinGroupRequest: classicJoin.
//   - SyncGroupRequest: classicSync.
//   - HeartbeatRequest: classicHeartbeat.
//   - LeaveGroupRequest: classicLeave.
//   - OffsetCommitRequest: classicCommit.
//
// The classic requests carry no group id: every one is for this
// coordinator's group. A response message, or a nil one, is a driver bug
// and panics.
func (c *Coordinator) handleClassic(s *step, from string, msg classic.Message) {
	switch req := msg.(type) {
	case classic.JoinGroupRequest:
		c.classicJoin(s, from, req)
	case classic.SyncGroupRequest:
		c.classicSync(s, from, req)
	case classic.HeartbeatRequest:
		c.classicHeartbeat(s, from, req)
	case classic.LeaveGroupRequest:
		c.classicLeave(s, from, req)
	case classic.OffsetCommitRequest:
		c.classicCommit(s, from, req)
	default:
		panic(fmt.Sprintf("coordinator: Step: classic %T is not a request a coordinator takes", msg))
	}
}

// classicJoin is classicGroupJoinToConsumerGroup: a JoinGroup of a classic
// member, answered at once (there is no join barrier in a consumer group).
//
// The group must have members (State not Empty): Kafka sends a JoinGroup to
// an empty or missing consumer group to the classic coordinator, which
// replaces the group offline (maybeDeleteEmptyConsumerGroup); routing it
// there is the caller's, and Step panics on one.
//
//  1. validate.ClassicJoin, with the request read as Kafka's: no group id
//     (the coordinator's own), the instance id ("" for none), the protocol
//     type and names, and the version 4 when RequireKnownMemberID is set
//     (3 otherwise). Its rejections (GROUP_ID_NOT_FOUND under the
//     "disabled" policy since KAFKA-20640, GROUP_MAX_SIZE_REACHED,
//     INCONSISTENT_GROUP_PROTOCOL, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID)
//     change nothing. MEMBER_ID_REQUIRED carries a generated member id
//     (<ClientID>-<n>), so it moves the id counter and nothing else.
//  2. The embedded consumer protocol's subscription of the first protocol
//     (classic.DecodeSubscription; Kafka reads any one, they are all the
//     same): a malformed one is UNKNOWN_SERVER_ERROR (Kafka's
//     IllegalStateException), changing nothing.
//  3. The member: a new one (under the request's member id, or a generated
//     one) at epoch 0, previous epoch -1, STABLE; an existing one; or, for
//     a static member whose instance id is held (by any member, at any
//     epoch), a copy of the holder under a generated id at epoch 0 and
//     previous epoch 0 with its assignment and target, the holder removed.
//     Then updated from the request: instance id, rebalance timeout (the
//     session timeout when 0 or less), subscription (the subscription's
//     topics), and its classic record: the session timeout, the protocols
//     with their metadata, the client id and host. It uses the classic
//     protocol from now on.
//  4. reconcileAndCommit, as a heartbeat, with the subscription's owned
//     partitions as the owned partitions (always sent): the group epoch,
//     the target, one reconciliation step (revoke first; partitions still
//     held by another member wait), the commit. No rebalance timer: the
//     join timer is cancelled, the sync timer armed for the request's
//     rebalance timeout, the session timer for its session timeout.
//  5. validate.DowngradeOnReplace, when the request names an instance id
//     that some member held before it: if the group downgrades
//     (KAFKA-17317), DowngradeTo reports the classic group in which the
//     joining member takes the replaced member's target assignment, Stable,
//     without a rebalance.
//
// The answer: member id, generation = the member epoch after the
// reconciliation step, protocol type "consumer", protocol name the first
// of the member's protocols, no leader (the member acts as a follower and
// sends a SyncGroup without assignments).
func (c *Coordinator) classicJoin(s *step, from string, req classic.JoinGroupRequest) {
	if len(c.members) == 0 {
		panic(fmt.Sprintf("coordinator: a classic JoinGroup to the empty consumer group %s: the classic coordinator takes it (the group is replaced offline)", c.cfg.GroupID))
	}
	reject := func(code spec.ErrorCode, id spec.MemberID) {
		s.classicAnswer(from, classic.JoinGroupResponse{Seq: req.Seq, Error: code, MemberID: id})
	}
	var instance *string
	if req.InstanceID != "" {
		instance = &req.InstanceID
	}
	version := int16(3)
	if req.RequireKnownMemberID {
		version = 4
	}
	g := groupView{c}
	dec, rej := validate.ClassicJoin(g, validate.ClassicJoinRequest{
		GroupID: c.cfg.GroupID, MemberID: req.MemberID, InstanceID: instance,
		ProtocolType: req.ProtocolType, Protocols: protocolNames(req.Protocols), Version: version,
	}, c.cfg.Migration, c.cfg.MaxSize, validate.Semantics{})
	if rej.Code == spec.MemberIDRequired {
		id, n := c.nextClassicID(req.ClientID)
		c.classicIDs = n
		reject(spec.MemberIDRequired, id)
		return
	}
	if !rej.OK() {
		reject(rej.Code, "")
		return
	}
	sub, err := classic.DecodeSubscription(req.Protocols[0].Metadata)
	if err != nil {
		reject(spec.UnknownServerError, "")
		return
	}

	// 3. The member record the request updates.
	var base member
	var gone []spec.MemberID
	newID, n := c.nextClassicID(req.ClientID)
	holder, held := spec.MemberID(""), false
	if instance != nil {
		holder, held = g.InstanceOwner(*instance)
	}
	switch dec.Kind {
	case validate.NewMember:
		id := req.MemberID
		if id == "" {
			id = newID
		}
		base = member{id: id, cur: reconcile.Member{Epoch: 0, PreviousEpoch: -1, State: reconcile.Stable}}
	case validate.ExistingMember:
		base, _ = c.recordOf(dec.Member)
	case validate.ReplaceStatic:
		old, _ := c.recordOf(dec.Member)
		base = old
		base.id = newID
		base.node = ""
		base.sessionArmed, base.sessionAt = false, 0
		base.rebalanceArmed, base.rebalanceEpoch, base.rebalanceAt = false, 0, 0
		base.cl.joinArmed, base.cl.joinAt, base.cl.syncArmed, base.cl.syncAt = false, 0, false, 0
		base.cur.Epoch, base.cur.PreviousEpoch = 0, 0
		gone = append(gone, dec.Member)
	default:
		panic(fmt.Sprintf("coordinator: validate.ClassicJoin accepted with decision %s", dec))
	}
	updated := base
	if instance != nil {
		updated.instanceID = *instance
	}
	updated.rebalanceTimeout = req.RebalanceTimeout
	if updated.rebalanceTimeout <= 0 {
		updated.rebalanceTimeout = req.SessionTimeout
	}
	updated.subscription = distinct(sub.Topics)
	updated.node = from
	updated.cl.use = true
	updated.cl.sessionTimeout = req.SessionTimeout
	updated.cl.protocols = slices.Clone(req.Protocols)
	updated.cl.clientID, updated.cl.clientHost = req.ClientID, req.ClientHost

	// 5, decided on the group before the join, as Kafka does.
	var downgrade *classic.CoordinatorSnapshot
	if held && validate.DowngradeOnReplace(g, holder, c.cfg.Migration, c.cfg.ClassicMaxSize).Downgrades() {
		d := c.classicGroup(holder, &updated, classic.GroupStable)
		downgrade = &d
	}

	// 4.
	upd, ok := c.reconcileAndCommit(s, admission{
		dec: dec, base: base, updated: updated, gone: gone,
		owned: sub.Owned, ownedSent: true,
	}, func(rej validate.Rejection) { reject(rej.Code, "") })
	if !ok {
		return
	}
	if req.MemberID == "" && dec.Kind != validate.ExistingMember {
		c.classicIDs = n // newID is used
	}
	s.cancelJoin(&upd)
	s.armSync(&upd, updated.rebalanceTimeout)
	c.setRecord(upd)
	if downgrade != nil {
		downgrade.NextMemberID = c.classicIDs + 1
		c.downgrade = downgrade
	}
	s.classicAnswer(from, classic.JoinGroupResponse{
		Seq: req.Seq, MemberID: upd.id, Generation: spec.Generation(upd.cur.Epoch),
		ProtocolType: validate.ConsumerProtocolType, ProtocolName: upd.cl.protocols[0].Name,
	})
}

// nextClassicID returns the member id to generate for a classic member of
// client clientID that joins without one (Kafka's Uuid.randomUuid):
// <clientID>-<n> for the least n above classicIDs whose id no member has.
// Setting classicIDs to n uses it.
func (c *Coordinator) nextClassicID(clientID string) (spec.MemberID, uint64) {
	for n := c.classicIDs + 1; ; n++ {
		id := spec.MemberID(fmt.Sprintf("%s-%d", clientID, n))
		if !c.members.Has(id) {
			return id, n
		}
	}
}

// classicMemberOf is validateConsumerGroupMember followed by
// throwIfMemberDoesNotUseClassicProtocol and throwIfGenerationIdUnmatched
// (ILLEGAL_GENERATION when generation is not the member epoch), the
// checks SyncGroup and Heartbeat share: the member a SyncGroup or
// Heartbeat names. With an instance id, the instance's holder
// (UNKNOWN_MEMBER_ID for an unknown instance, FENCED_INSTANCE_ID when
// another member id holds it); without, the member id (UNKNOWN_MEMBER_ID).
// A member of the consumer protocol is UNKNOWN_MEMBER_ID too.
func (c *Coordinator) classicMemberOf(id spec.MemberID, instance string, generation spec.Generation) (member, spec.ErrorCode) {
	var m member
	if instance == "" {
		var ok bool
		if m, ok = c.recordOf(id); !ok {
			return member{}, spec.UnknownMemberID
		}
	} else {
		holder, ok := c.instances[instance]
		if !ok {
			return member{}, spec.UnknownMemberID
		}
		if holder != id {
			return member{}, spec.FencedInstanceID
		}
		m, _ = c.recordOf(holder)
	}
	if !m.cl.use {
		return member{}, spec.UnknownMemberID
	}
	// throwIfGenerationIdUnmatched: the generation a classic member sends
	// is its member epoch.
	if spec.Epoch(generation) != m.cur.Epoch {
		return member{}, spec.IllegalGeneration
	}
	return m, spec.None
}

// rebalanceInProgress is throwIfRebalanceInProgress's test: the group
// epoch has moved past the member's epoch and the member is not revoking
// (a member in UNREVOKED_PARTITIONS has rejoined already; it finishes its
// revocation first).
func (c *Coordinator) rebalanceInProgress(m member) bool {
	return c.groupEpoch > m.cur.Epoch && m.cur.State != reconcile.UnrevokedPartitions
}

// classicSync is classicGroupSyncToConsumerGroup. In Kafka's order:
// UNKNOWN_MEMBER_ID when the group has no members; classicMemberOf
// (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID); ILLEGAL_GENERATION when the
// generation is not the member epoch; INCONSISTENT_GROUP_PROTOCOL when a
// protocol type other than "consumer", or a protocol name other than the
// member's first, is sent; REBALANCE_IN_PROGRESS when the group epoch has
// moved past the member (rebalanceInProgress), which also arms the
// member's join timer if it is not armed: a rejected SyncGroup changes
// that timer and nothing else. Accepted: the sync timer is cancelled, the
// session timer restarted, and the answer carries the member's assigned
// partitions (not those pending revocation) as a classic.Assignment with
// no leader, and the request's protocol type and name ("" when not sent).
// A leader's assignments in the request are not read.
func (c *Coordinator) classicSync(s *step, from string, req classic.SyncGroupRequest) {
	reject := func(code spec.ErrorCode) {
		s.classicAnswer(from, classic.SyncGroupResponse{Seq: req.Seq, Error: code})
	}
	if len(c.members) == 0 {
		reject(spec.UnknownMemberID)
		return
	}
	m, code := c.classicMemberOf(req.MemberID, req.InstanceID, req.Generation)
	if code != spec.None {
		reject(code)
		return
	}
	if req.ProtocolType != nil && *req.ProtocolType != validate.ConsumerProtocolType ||
		req.ProtocolName != nil && *req.ProtocolName != m.cl.protocols[0].Name {
		reject(spec.InconsistentGroupProtocol)
		return
	}
	if c.rebalanceInProgress(m) {
		s.armJoinIfAbsent(&m, m.rebalanceTimeout)
		c.setRecord(m)
		reject(spec.RebalanceInProgress)
		return
	}
	s.cancelSync(&m)
	s.armSession(&m, s.now+m.cl.sessionTimeout)
	c.setRecord(m)
	resp := classic.SyncGroupResponse{Seq: req.Seq, Assignment: classic.Assignment{Assigned: m.cur.Assigned}.Encode()}
	if req.ProtocolType != nil {
		resp.ProtocolType = *req.ProtocolType
	}
	if req.ProtocolName != nil {
		resp.ProtocolName = *req.ProtocolName
	}
	s.classicAnswer(from, resp)
}

// classicHeartbeat is classicGroupHeartbeatToConsumerGroup: classicMemberOf
// (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID; also for a group without
// members), ILLEGAL_GENERATION when the generation is not the member
// epoch; then the session timer restarts and the answer is
// REBALANCE_IN_PROGRESS, arming the join timer if it is not armed, when
// the member must rejoin:
//
//   - its epoch is behind the group epoch (a new target is coming);
//   - it is UNREVOKED_PARTITIONS (it must revoke and rejoin to report it);
//   - it is UNRELEASED_PARTITIONS and none of the partitions of its target
//     it waits for is held any more (waitingOnUnreleasedPartition is
//     false): a rejoin gets them.
//
// NONE otherwise. A rejected heartbeat changes nothing.
func (c *Coordinator) classicHeartbeat(s *step, from string, req classic.HeartbeatRequest) {
	answer := func(code spec.ErrorCode) {
		s.classicAnswer(from, classic.HeartbeatResponse{Seq: req.Seq, Error: code, Generation: req.Generation})
	}
	m, code := c.classicMemberOf(req.MemberID, req.InstanceID, req.Generation)
	if code != spec.None {
		answer(code)
		return
	}
	s.armSession(&m, s.now+m.cl.sessionTimeout)
	code = spec.None
	if m.cur.Epoch < c.groupEpoch || m.cur.State == reconcile.UnrevokedPartitions ||
		m.cur.State == reconcile.UnreleasedPartitions && !c.waitingOnUnreleased(m) {
		code = spec.RebalanceInProgress
		s.armJoinIfAbsent(&m, m.rebalanceTimeout)
	}
	c.setRecord(m)
	answer(code)
}

// waitingOnUnreleased is ConsumerGroup.waitingOnUnreleasedPartition: m is
// UNRELEASED_PARTITIONS and some partition of its target that it is not
// assigned is still held by a member.
func (c *Coordinator) waitingOnUnreleased(m member) bool {
	if m.cur.State != reconcile.UnreleasedPartitions {
		return false
	}
	var rd rowReader
	for _, p := range c.target[m.id].Minus(m.cur.Assigned) {
		if !rd.get(c.owners, p).empty() {
			return true
		}
	}
	return false
}

// classicLeave is classicGroupLeaveToConsumerGroup for one member: with an
// instance id, its holder (UNKNOWN_MEMBER_ID for an unknown instance;
// FENCED_INSTANCE_ID when the request names another member id, an empty
// member id being an administrative removal by instance id); without, the
// member id (UNKNOWN_MEMBER_ID). A member of the consumer protocol is
// UNKNOWN_MEMBER_ID (the October 2024 source; KAFKA-18150 later removes it
// and may downgrade). The member is removed as a fence removes it (its
// record, target, partitions and timers go; the group epoch is bumped),
// static or not. The October 2024 source runs no downgrade check here;
// fence's check agrees, as the leaving member uses the classic protocol.
func (c *Coordinator) classicLeave(s *step, from string, req classic.LeaveGroupRequest) {
	answer := func(code spec.ErrorCode) {
		s.classicAnswer(from, classic.LeaveGroupResponse{Seq: req.Seq, Error: code})
	}
	id := req.MemberID
	if req.InstanceID != "" {
		holder, ok := c.instances[req.InstanceID]
		if !ok {
			answer(spec.UnknownMemberID)
			return
		}
		if id != "" && id != holder {
			answer(spec.FencedInstanceID)
			return
		}
		id = holder
	}
	if m := c.members.Get(id); m == nil || !m.cl.use {
		answer(spec.UnknownMemberID)
		return
	}
	c.fence(s, id)
	answer(spec.None)
}

// classicCommit is the fencing half of a classic OffsetCommit to the
// consumer group (ConsumerGroup.validateOffsetCommit through
// validate.OffsetCommit): a classic member's generation must be its member
// epoch (ILLEGAL_GENERATION); an unknown member is UNKNOWN_MEMBER_ID; a
// negative generation while the group has no member is accepted. The
// classic message carries no API version: it is taken as below 9, so a
// member of the consumer protocol committing through it gets
// UNSUPPORTED_VERSION. It changes nothing: a commit does not keep a member
// of a consumer group alive (OffsetMetadataManager restarts sessions of
// classic groups only). With the AcceptStaleCommits fault every commit is
// accepted.
func (c *Coordinator) classicCommit(s *step, from string, req classic.OffsetCommitRequest) {
	var rej validate.Rejection
	if !c.cfg.Faults.Has(AcceptStaleCommits) {
		rej, _ = validate.OffsetCommit(groupView{c}, req.MemberID, spec.Epoch(req.Generation), 8, nil,
			validate.Semantics{BeforeKafka20066: c.cfg.Semantics.BeforeKafka20066})
	}
	s.classicAnswer(from, classic.OffsetCommitResponse{Seq: req.Seq, Error: rej.Code})
}
