package nextgen

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen/reconcile"
	"github.com/rebalance-ref/rebalance/model/nextgen/target"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file holds the ConsumerGroupHeartbeat handling (GMM
// consumerGroupHeartbeat and consumerGroupLeave) and member removal
// (consumerGroupFenceMember).

// reject answers from with rej and changes nothing.
func (s *step) reject(from string, rej validate.Rejection) {
	s.respond(from, rej.Response())
}

func rejection(code spec.ErrorCode, format string, args ...any) validate.Rejection {
	return validate.Rejection{Code: code, Message: fmt.Sprintf(format, args...)}
}

// handleHeartbeat runs one ConsumerGroupHeartbeat, in Kafka's order:
//
//  1. validate.Request (INVALID_REQUEST, UNSUPPORTED_ASSIGNOR), then two
//     checks of this model's own, both INVALID_REQUEST: an empty MemberId at
//     epoch 0 (members generate their ids, KIP-1082; this core has no id
//     generator, where Kafka before 4.0 made up a UUID), and a regular
//     heartbeat whose TopicPartitions holds an invalid partition (the set is
//     otherwise normalized: sorted, duplicates dropped). A request for
//     another group gets NOT_COORDINATOR.
//  2. Epoch -1 or -2: validate.Leave, then fence or park (handleLeave).
//  3. Otherwise: the regular heartbeat (regularHeartbeat).
func (c *Coordinator) handleHeartbeat(s *step, from string, r HeartbeatRequest) {
	if rej := validate.Request(r, c.cfg.Assignors); !rej.OK() {
		s.reject(from, rej)
		return
	}
	if validate.IsLeave(r.MemberEpoch) {
		if r.GroupID != c.cfg.GroupID {
			s.reject(from, c.notCoordinator(r))
			return
		}
		c.handleLeave(s, from, r)
		return
	}
	if blank(string(r.MemberID)) {
		// Only epoch 0 gets here: validate.Request refuses an empty
		// MemberId at every other epoch.
		s.reject(from, rejection(spec.InvalidRequest, "MemberId can't be empty."))
		return
	}
	owned := spec.NewSet(r.TopicPartitions...)
	if err := owned.Validate(); err != nil {
		s.reject(from, rejection(spec.InvalidRequest, "TopicPartitions is invalid: %v.", err))
		return
	}
	if r.GroupID != c.cfg.GroupID {
		s.reject(from, c.notCoordinator(r))
		return
	}
	c.regularHeartbeat(s, from, r, owned)
}

func (c *Coordinator) notCoordinator(r HeartbeatRequest) validate.Rejection {
	return rejection(spec.NotCoordinator, "This coordinator runs group %s, not %s.", c.cfg.GroupID, r.GroupID)
}

// blank reports whether s is empty once trimmed as Java's String.trim does.
func blank(s string) bool {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' }) == ""
}

// handleLeave is consumerGroupLeave: validate.Leave, then either the fence
// (a dynamic member, or a static member with -1), answered with the
// request's member id and epoch, or the static temporary leave (-2).
// Leave responses carry no heartbeat interval, as in Kafka.
func (c *Coordinator) handleLeave(s *step, from string, r HeartbeatRequest) {
	var g validate.Group
	if c.exists {
		g = groupView{c}
	}
	dec, rej := validate.Leave(g, r)
	if !rej.OK() {
		s.reject(from, rej)
		return
	}
	switch dec.Kind {
	case validate.Fence:
		c.fence(s, dec.Member)
		s.respond(from, HeartbeatResponse{MemberID: r.MemberID, MemberEpoch: r.MemberEpoch})
	case validate.StaticTemporaryLeave:
		c.parkStatic(s, dec.Member)
		s.respond(from, HeartbeatResponse{MemberID: dec.Member, MemberEpoch: spec.StaticLeaveEpoch})
	default:
		panic(fmt.Sprintf("coordinator: validate.Leave accepted with decision %s", dec))
	}
}

// parkStatic is consumerGroupStaticMemberGroupLeave: the member's epoch
// becomes -2 and its partitions pending revocation are dropped (they become
// free); its assigned partitions stay held, at epoch -2, so no other member
// can take them; its target stays; the group epoch is not bumped; its
// session timer keeps running (it is fenced if it does not come back in
// time). Its state and previous epoch are kept, as in Kafka.
//
// Departure: Kafka leaves the member's rebalance timer to fire and be
// ignored (the member is no longer at the timer's epoch); this model
// cancels it, with the same effect.
func (c *Coordinator) parkStatic(s *step, id spec.MemberID) {
	m, _ := c.recordOf(id)
	old := m.cur
	m.cur.Epoch = spec.StaticLeaveEpoch
	m.cur.PendingRevocation = nil
	m.assignedAt = assignmentEpochs(m.assignedAt, old, m.cur)
	c.updateHoldings(id, &old, m.cur)
	s.cancelRebalance(&m)
	c.setRecord(m)
	c.updateState()
}

// fence is consumerGroupFenceMember: the member goes (its record, its
// target, its partitions, its instance id), its timers are cancelled, the
// subscription metadata is recomputed without it and the group epoch is
// bumped. The new target is computed on the next heartbeat of any member.
//
// Before that, validate.DowngradeOnLeave decides whether the removal
// downgrades the group (validateOnlineDowngradeWithFencedMember: the
// member is the last of the consumer protocol, classic members remain,
// the policy allows it, they fit ClassicMaxSize). If it does, the classic
// group Kafka's convertToClassicGroup builds instead is recorded for
// DowngradeTo; the removal is still applied here, so that the coordinator
// stays a consistent consumer group for a caller that keeps it.
func (c *Coordinator) fence(s *step, id spec.MemberID) {
	if validate.DowngradeOnLeave(groupView{c}, id, c.cfg.Migration, c.cfg.ClassicMaxSize).Downgrades() {
		g := c.classicGroup(id, nil, classic.GroupPreparingRebalance)
		c.downgrade = &g
	}
	c.drop(s, id)
	c.ownTarget()
	delete(c.target, id)
	var buf [8]string
	c.subscribed = c.refreshedMetadata(c.subscribedNames(buf[:0], nil))
	c.groupEpoch++
	c.updateState()
}

// drop removes the record of member id: its partitions, its instance id
// mapping and its timers. It does not touch the target or the epochs.
func (c *Coordinator) drop(s *step, id spec.MemberID) {
	m, ok := c.recordOf(id)
	if !ok {
		panic(fmt.Sprintf("coordinator: drop of unknown member %s", id))
	}
	c.removeHoldings(id, m.holds())
	if m.instanceID != "" && c.instances[m.instanceID] == id {
		c.ownInstances()
		delete(c.instances, m.instanceID)
	}
	s.cancelSession(&m)
	s.cancelRebalance(&m)
	s.cancelClassicTimers(&m)
	c.ownMembers()
	c.members.Remove(id)
}

// regularHeartbeat is the regular path of consumerGroupHeartbeat (epoch
// >= 0). Everything that can fail runs before anything changes, so a
// rejected heartbeat changes nothing (in Kafka, the records of a failed
// heartbeat are never written):
//
//  1. validate.Join (GROUP_ID_NOT_FOUND, GROUP_MAX_SIZE_REACHED,
//     UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, UNRELEASED_INSTANCE_ID,
//     FENCED_MEMBER_EPOCH) decides whose heartbeat it is: a new member
//     (epoch 0, previous -1, STABLE), an existing member, or a static
//     member replacing its parked incarnation (a copy of it under the
//     request's member id, epoch 0, previous 0, with its assignment and
//     target). SkipEpochCheck skips the member epoch check.
//  2. The member's fields are updated from the request (instance id, rack,
//     rebalance timeout, server assignor, subscription; unsent fields stay),
//     and the member uses the consumer protocol from now on (Kafka clears
//     its classic metadata; its classic timers are cancelled, where Kafka
//     leaves them to fire).
//
// Steps 3 to 5 and the commit are reconcileAndCommit's, which a classic
// JoinGroup shares:
//
//  3. The group epoch is bumped if the subscription changed (always for a
//     new member) or, when the subscription changed or the metadata
//     expired, if the recomputed subscription metadata differs.
//  4. If the group epoch is ahead of the target epoch, target.Build with the
//     preferred assignor computes a new target (failure:
//     UNKNOWN_SERVER_ERROR).
//  5. reconcile.Next moves the member one step towards its target, unless
//     it is reconciled already (ErrFencedMemberEpoch: FENCED_MEMBER_EPOCH).
//     With the RestartOnNewTarget fault, a member whose target epoch moved
//     since its last reconciliation is recomputed by restartReconciliation
//     instead.
//
// Then it commits: the member record, the partition owners, the epochs and
// target, the rebalance timer (armed at the member's epoch when the member
// changed into UNREVOKED_PARTITIONS, cancelled when it changed into any
// other state), the session timer (reset), the group state. The response
// carries the member id, its epoch, the heartbeat interval and, for a full
// request (epoch 0, or rebalance timeout, subscription and owned
// partitions all sent) or when its assigned partitions changed, the
// assigned partitions (never those pending revocation).
func (c *Coordinator) regularHeartbeat(s *step, from string, r HeartbeatRequest, owned spec.Set) {
	var g validate.Group
	if c.exists {
		g = groupView{c}
		if c.cfg.Faults.Has(SkipEpochCheck) {
			g = skipEpochCheckView{groupView{c}, r}
		}
	}
	dec, rej := validate.Join(g, r, c.cfg.MaxSize, validate.Semantics{BeforeKafka19233: c.cfg.Semantics.BeforeKafka19233})
	if !rej.OK() {
		s.reject(from, rej)
		return
	}

	// 1. The member record the request updates.
	var base member
	var gone []spec.MemberID // records the new one replaces
	switch dec.Kind {
	case validate.NewMember:
		base = member{id: r.MemberID, cur: reconcile.Member{Epoch: 0, PreviousEpoch: -1, State: reconcile.Stable}}
	case validate.ExistingMember:
		base, _ = c.recordOf(dec.Member)
	case validate.ReplaceStatic:
		// getOrMaybeSubscribeStaticConsumerGroupMember + replaceMember:
		// the parked member's record, copied under the new member id with
		// epoch 0 and previous epoch 0, keeps its state, assignment and
		// (below) target. Its own timers are cancelled on commit (Kafka
		// leaves them to go stale).
		old, _ := c.recordOf(dec.Member)
		base = member{
			id: r.MemberID, instanceID: old.instanceID, rack: old.rack, assignor: old.assignor,
			rebalanceTimeout: old.rebalanceTimeout, subscription: old.subscription, cur: old.cur,
			assignedAt: old.assignedAt, targetMemberEpoch: old.targetMemberEpoch,
		}
		base.cur.Epoch, base.cur.PreviousEpoch = 0, 0
		gone = append(gone, dec.Member)
		if c.members.Has(r.MemberID) && r.MemberID != dec.Member {
			// The new member id belongs to another member: Kafka's records
			// overwrite it. Its own partitions are released.
			gone = append(gone, r.MemberID)
		}
	default:
		panic(fmt.Sprintf("coordinator: validate.Join accepted with decision %s", dec))
	}

	// 2. Update the member from the request.
	updated := base
	if r.InstanceID != nil {
		updated.instanceID = *r.InstanceID
	}
	if r.RackID != nil {
		updated.rack = *r.RackID
	}
	if r.RebalanceTimeoutMs != -1 {
		updated.rebalanceTimeout = Millis(r.RebalanceTimeoutMs)
	}
	if r.ServerAssignor != nil {
		updated.assignor = *r.ServerAssignor
	}
	if r.SubscriptionSent {
		updated.subscription = resubscribed(base.subscription, r.SubscribedTopicNames)
	}
	updated.node = from
	// setClassicMemberMetadata(null): a member that used the classic
	// protocol and heartbeats now uses the consumer protocol.
	updated.cl.use = false

	upd, ok := c.reconcileAndCommit(s, admission{
		dec: dec, base: base, updated: updated, gone: gone,
		owned: owned, ownedSent: r.OwnedSent,
	}, func(rej validate.Rejection) { s.reject(from, rej) })
	if !ok {
		return
	}
	next := upd.cur

	resp := HeartbeatResponse{
		MemberID:            updated.id,
		MemberEpoch:         next.Epoch,
		HeartbeatIntervalMs: int32(c.cfg.HeartbeatInterval),
	}
	full := r.MemberEpoch == 0 || (r.RebalanceTimeoutMs != -1 && r.SubscriptionSent && r.OwnedSent)
	if full || !base.cur.Assigned.Equal(next.Assigned) {
		resp.Assignment, resp.AssignmentSent = next.Assigned, true
	}
	s.respond(from, resp)
}

// restartReconciliation is the RestartOnNewTarget fault: Kafka's
// CurrentAssignmentBuilder.transitionToNewTargetAssignmentState before
// KAFKA-16249, which the coordinator ran whenever a new target had been
// installed since the member was last reconciled. It starts over from
// everything the member holds, Assigned ∪ PendingRevocation, as if the
// member were stable at its epoch, and ignores what the heartbeat reports
// owned (Kafka did not read it on this path): whatever the new target
// takes away is pending revocation again, although the heartbeat may
// already acknowledge its revocation. A member that goes back to revoking
// keeps its epochs, as Kafka's REVOKING transition did.
func restartReconciliation(m reconcile.Member, in reconcile.Input) (reconcile.Member, error) {
	restarted := reconcile.Member{
		Epoch: m.Epoch, PreviousEpoch: m.PreviousEpoch, State: reconcile.Stable,
		Assigned: m.Assigned.Union(m.PendingRevocation),
	}
	in.Owned, in.OwnedSent = nil, false
	n, err := reconcile.Next(restarted, in)
	if err == nil && n.State == reconcile.UnrevokedPartitions {
		n.PreviousEpoch = m.PreviousEpoch
	}
	return n, err
}

// knownState reports whether s is one of the states reconcile.Next
// reconciles (an unknown state is fenced, with or without a new target).
func knownState(s reconcile.State) bool {
	return s == reconcile.Stable || s == reconcile.UnrevokedPartitions || s == reconcile.UnreleasedPartitions
}

// partitionOwned answers reconcile's PartitionOwned for member id, whose
// record replaces the records in gone: Kafka's currentPartitionEpoch != -1.
// With the AssignBeforeRelease fault, partitions held by other members
// count as free.
func (c *Coordinator) partitionOwned(id spec.MemberID, gone []spec.MemberID) func(spec.Resource) bool {
	fault := c.cfg.Faults.Has(AssignBeforeRelease)
	// reconcile asks in resource order: rd looks each topic up once.
	var rd rowReader
	return func(p spec.Resource) bool {
		s := rd.get(c.owners, p)
		if s.empty() {
			return false
		}
		if !fault {
			return true
		}
		for _, h := range s.holders() {
			if h.member == id || slices.Contains(gone, h.member) {
				return true
			}
		}
		return false
	}
}

// withholding describes the decision to keep withheld from member id, with
// every holder the owner map records for each withheld partition (before
// this step commits), for observers (node.Output.Withheld).
func (c *Coordinator) withholding(id spec.MemberID, withheld spec.Set) *spec.Withholding {
	w := &spec.Withholding{Member: id, Withheld: withheld, HeldBy: make(map[spec.Resource][]spec.MemberID, len(withheld))}
	for _, p := range withheld {
		for _, h := range c.owners.get(p).holders() {
			w.HeldBy[p] = append(w.HeldBy[p], h.member)
		}
	}
	return w
}

// preferredAssignor is computePreferredServerAssignor: the ServerAssignor
// most members ask for, counting the updated member in place of its old
// record(s), else the default (the first configured). Departure: Kafka
// breaks a tie by hash-map order; this model takes the one listed first in
// the configuration.
func (c *Coordinator) preferredAssignor(updated member, gone []spec.MemberID) string {
	counts := map[string]int{}
	for _, row := range c.members {
		m := row.Rec
		if m.id != updated.id && !slices.Contains(gone, m.id) && m.assignor != "" {
			counts[m.assignor]++
		}
	}
	if updated.assignor != "" {
		counts[updated.assignor]++
	}
	best, bestN := c.cfg.Assignors[0], 0
	for _, name := range c.cfg.Assignors {
		if counts[name] > bestN {
			best, bestN = name, counts[name]
		}
	}
	return best
}

// targetMembers is the group as the target builder sees it before the
// heartbeat's deltas: every member, including static members parked at -2.
func (c *Coordinator) targetMembers() []target.Member {
	out := make([]target.Member, 0, len(c.members))
	for _, id := range c.Members() {
		out = append(out, targetMember(*c.members.Get(id)))
	}
	return out
}

// targetMember is m as the target builder sees it. An empty topic name in
// the subscription is left out: it names no topic, and Kafka's assignors
// ignore topics missing from the metadata. Its Topics may be m's
// subscription itself (target.Build does not write to it).
func targetMember(m member) target.Member {
	topics := m.subscription
	if slices.Contains(topics, "") {
		topics = slices.DeleteFunc(slices.Clone(topics), func(t string) bool { return t == "" })
	}
	return target.Member{ID: m.id, InstanceID: m.instanceID, Rack: m.rack, Topics: topics}
}

// sameMember reports whether a and b are the same current assignment.
func sameMember(a, b reconcile.Member) bool {
	return a.Epoch == b.Epoch && a.PreviousEpoch == b.PreviousEpoch && a.State == b.State &&
		a.Assigned.Equal(b.Assigned) && a.PendingRevocation.Equal(b.PendingRevocation)
}

// distinct returns topics sorted and without duplicates, in a new slice
// (nil for none).
func distinct(topics []string) []string {
	if len(topics) == 0 {
		return nil
	}
	return slices.Compact(slices.Sorted(slices.Values(topics)))
}

// resubscribed is distinct(topics), the subscription a request sends, for
// a member subscribed to old (sorted and distinct): old itself when
// topics is the same subscription in the same order (the common case: a
// full heartbeat that resends it), since stored subscriptions are never
// written.
func resubscribed(old, topics []string) []string {
	if len(old) > 0 && slices.Equal(old, topics) {
		return old
	}
	return distinct(topics)
}

// groupView is the coordinator as validate.Group. It is one pointer, so
// that it goes into the interface without an allocation.
type groupView struct{ c *Coordinator }

// skipEpochCheckView is the coordinator as validate.Join sees it under the
// SkipEpochCheck fault, the heartbeat being req: it reports the requesting
// member at the request's epoch wherever validate runs the member epoch
// check, so the check always passes; a static member parked at -2 is left
// as it is (the fault skips the epoch check, not the parking).
type skipEpochCheckView struct {
	groupView
	req HeartbeatRequest
}

func (v skipEpochCheckView) Member(id spec.MemberID) (validate.MemberInfo, bool) {
	info, ok := v.groupView.Member(id)
	if req := v.req; ok && id == req.MemberID && info.Epoch >= 0 {
		staticJoin := req.InstanceID != nil && req.MemberEpoch == 0 // no epoch check there
		if !staticJoin {
			info.Epoch = req.MemberEpoch
		}
	}
	return info, ok
}

func (v groupView) Member(id spec.MemberID) (validate.MemberInfo, bool) {
	m, ok := v.c.recordOf(id)
	if !ok || id == "" {
		return validate.MemberInfo{}, false
	}
	info := validate.MemberInfo{
		ID: m.id, InstanceID: m.instanceID,
		Epoch: m.cur.Epoch, PreviousEpoch: m.cur.PreviousEpoch, Assigned: m.cur.Assigned,
		AssignmentEpochs: m.assignedAt,
		Classic:          m.cl.use,
	}
	if m.cl.use {
		info.Protocols = protocolNames(m.cl.protocols)
	}
	return info, true
}

func (v groupView) InstanceOwner(instanceID string) (spec.MemberID, bool) {
	id, ok := v.c.instances[instanceID]
	return id, ok && instanceID != ""
}

func (v groupView) Size() int { return len(v.c.members) }

// ClassicMembers counts the members that use the classic protocol.
func (v groupView) ClassicMembers() int {
	n := 0
	for _, row := range v.c.members {
		m := row.Rec
		if m.cl.use {
			n++
		}
	}
	return n
}

// ClassicProtocolSupport counts the classic members that list the protocol
// name.
func (v groupView) ClassicProtocolSupport(name string) int {
	n := 0
	for _, row := range v.c.members {
		m := row.Rec
		if m.cl.use && slices.ContainsFunc(m.cl.protocols, func(p classic.ProtocolMetadata) bool { return p.Name == name }) {
			n++
		}
	}
	return n
}

// protocolNames returns the names of ps, in order.
func protocolNames(ps []classic.ProtocolMetadata) []string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}

// admission is an accepted request about to update one member's record:
// a ConsumerGroupHeartbeat or a classic JoinGroup.
type admission struct {
	dec validate.Decision
	// base is the member's record before the request (a fresh record for
	// a new member, a copy of the replaced one for a static replacement);
	// updated is base with the request's fields applied.
	base, updated member
	// gone are the records the member's replaces (static replacement).
	gone []spec.MemberID
	// owned is what the request reports owned; ownedSent whether it
	// reports it at all.
	owned     spec.Set
	ownedSent bool
}

// reconcileAndCommit is what a heartbeat and a classic JoinGroup share,
// once the member's record is updated from the request (Kafka runs the
// same code in consumerGroupHeartbeat and classicGroupJoinToConsumerGroup):
//
//  3. The group epoch is bumped if the subscription changed (always for a
//     new member) or, when the subscription changed or the metadata
//     expired, if the recomputed subscription metadata differs.
//  4. If the group epoch is ahead of the target epoch, target.Build with the
//     preferred assignor computes a new target (failure:
//     UNKNOWN_SERVER_ERROR).
//  5. reconcile.Next moves the member one step towards its target, unless
//     it is reconciled already (ErrFencedMemberEpoch: FENCED_MEMBER_EPOCH).
//     With the RestartOnNewTarget fault, a member whose target epoch moved
//     since its last reconciliation is recomputed by restartReconciliation
//     instead.
//
// Then it commits (see regularHeartbeat) and returns the committed record.
// A rejection (steps 4 and 5) goes through reject, which answers the
// request in its protocol; it changes nothing and returns false. (reject
// is a parameter rather than a field of a: a function kept in a escapes,
// and would cost every request an allocation.)
func (c *Coordinator) reconcileAndCommit(s *step, a admission, reject func(validate.Rejection)) (member, bool) {
	dec, base, updated, gone := a.dec, a.base, a.updated, a.gone
	// 3. The group epoch.
	groupEpoch, subscribed, expired := c.groupEpoch, c.subscribed, c.metadataExpired
	bump := !slices.Equal(base.subscription, updated.subscription)
	if bump || expired {
		var buf [8]string
		subscribed = c.refreshedMetadata(c.subscribedNames(buf[:0], &updated, gone...))
		if !maps.Equal(subscribed, c.subscribed) {
			bump = true
		}
		expired = false
	}
	if bump {
		groupEpoch++
	}

	// 4. The target.
	tgt, tgtEpoch, tgtTopics := c.target, c.targetEpoch, c.targetTopics
	switch {
	case groupEpoch > tgtEpoch:
		name := c.preferredAssignor(updated, gone)
		res, err := target.Build(target.Input{
			Members:  c.targetMembers(),
			Previous: c.target,
			Topics:   subscribed,
			Assignor: c.assignors[name],
			// addOrUpdateMember. A static replacement is recognised by
			// its instance id: the parked member is removed and its
			// target inherited. Fenced members were removed when they
			// were fenced, so there are no removeMember deltas here.
			Upsert: []target.Member{targetMember(updated)},
		})
		if err != nil {
			reject(rejection(spec.UnknownServerError,
				"Failed to compute a new target assignment for epoch %d: %v.", groupEpoch, err))
			return member{}, false
		}
		tgt, tgtEpoch, tgtTopics = res.Target, groupEpoch, subscribed
		s.out.Target = &res.Round
	case dec.Kind == validate.ReplaceStatic:
		// No new target: the new member id inherits the old one's.
		tgt = maps.Clone(c.target)
		inherited := c.target[dec.Member]
		for _, id := range gone {
			delete(tgt, id)
		}
		tgt[updated.id] = inherited
	}

	// 5. Reconcile.
	next := updated.cur
	owned := a.owned
	if !next.IsReconciledTo(tgtEpoch) {
		in := reconcile.Input{
			TargetEpoch:    tgtEpoch,
			Target:         tgt[updated.id],
			Owned:          owned,
			OwnedSent:      a.ownedSent,
			PartitionOwned: c.partitionOwned(updated.id, gone),
			Semantics:      reconcile.Semantics{BeforeKafka19449: c.cfg.Semantics.BeforeKafka19449},
		}
		if c.cfg.Faults.Has(StraightToTarget) {
			// The fault: the coordinator takes every partition the member
			// must give up as already given up, so the member never waits
			// in UNREVOKED_PARTITIONS and its revoked partitions are free
			// at once while it still works on them.
			in.Owned, in.OwnedSent = owned.Intersect(in.Target), true
		}
		restart := c.cfg.Faults.Has(RestartOnNewTarget)
		var n reconcile.Member
		var err error
		if restart && updated.targetMemberEpoch != tgtEpoch && knownState(updated.cur.State) {
			n, err = restartReconciliation(updated.cur, in)
		} else {
			// The record is valid (CheckInvariants), the target came
			// out of target.Build, and the owned partitions were
			// validated on arrival (a heartbeat's in handleHeartbeat, a
			// classic member's when its subscription was decoded).
			n, err = reconcile.NextValid(updated.cur, in)
		}
		if restart {
			updated.targetMemberEpoch = tgtEpoch
		}
		switch {
		case errors.Is(err, reconcile.ErrFencedMemberEpoch):
			reject(rejection(spec.FencedMemberEpoch,
				"The consumer group member is in an unknown state and must abandon all its partitions and rejoin."))
			return member{}, false
		case err != nil:
			panic(fmt.Sprintf("coordinator: reconcile %s: %v\n%s", updated.id, err, c))
		}
		next = n
		if next.State == reconcile.UnreleasedPartitions {
			s.out.Withheld = c.withholding(updated.id, tgt[updated.id].Minus(next.Assigned))
		}
	}

	// Commit.
	for _, id := range gone {
		if c.members.Has(id) {
			c.drop(s, id)
		}
	}
	var prev *reconcile.Member
	if dec.Kind == validate.ExistingMember {
		prev = &base.cur
		if base.instanceID != "" && base.instanceID != updated.instanceID {
			c.ownInstances()
			delete(c.instances, base.instanceID)
		}
	}
	// Under RestartOnNewTarget a new target epoch alone is a change, as
	// Kafka's record then carries the new targetMemberEpoch: the rebalance
	// timer is re-armed.
	changed := !sameMember(updated.cur, next) || updated.targetMemberEpoch != base.targetMemberEpoch
	// updated.cur holds what the record's did (only its epochs may have
	// changed since), which updated.assignedAt describes.
	updated.assignedAt = assignmentEpochs(updated.assignedAt, updated.cur, next)
	updated.cur = next
	c.updateHoldings(updated.id, prev, next)
	if updated.instanceID != "" && c.instances[updated.instanceID] != updated.id {
		c.ownInstances()
		c.instances[updated.instanceID] = updated.id
	}
	switch {
	case updated.cl.use:
		// maybeReconcile arms no rebalance timeout for a member that uses
		// the classic protocol: it has join and sync timers instead.
		// Departure: a member of the consumer protocol that turns classic
		// (a JoinGroup under its member id) has its rebalance timer
		// cancelled here; Kafka leaves it to fire.
		s.cancelRebalance(&updated)
	case changed || base.cl.use:
		// maybeReconcile: (re)arm the rebalance timeout at the member's
		// epoch when it entered UNREVOKED_PARTITIONS, cancel it otherwise.
		// A classic member that turns to the consumer protocol gets the
		// timer its state calls for.
		if next.State == reconcile.UnrevokedPartitions {
			s.armRebalance(&updated, next.Epoch, s.now+max(updated.rebalanceTimeout, 0))
		} else {
			s.cancelRebalance(&updated)
		}
	}
	if !updated.cl.use {
		// A member that turns to the consumer protocol sheds its classic
		// record and timers. Departure: Kafka leaves its join or sync
		// timer to fire and fence it.
		s.cancelClassicTimers(&updated)
		updated.cl = classicMember{}
	}
	s.armSession(&updated, s.now+c.sessionTimeout(&updated))
	// The group state depends on the members, the two epochs and whether
	// each member is reconciled: a heartbeat of an existing member that
	// changed none of them (a keep-alive in a stable group, the common
	// case) cannot change it, so the O(members) derivation is skipped, as
	// Kafka re-derives it only when a record is written.
	stateMayChange := dec.Kind != validate.ExistingMember || changed || len(gone) > 0 ||
		groupEpoch != c.groupEpoch || tgtEpoch != c.targetEpoch
	c.setRecord(updated)
	c.exists = true
	c.groupEpoch, c.subscribed, c.metadataExpired = groupEpoch, subscribed, expired
	c.target, c.targetEpoch, c.targetTopics = tgt, tgtEpoch, tgtTopics
	if stateMayChange {
		c.updateState()
	}
	return updated, true
}
