package nextgen

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen/reconcile"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file holds the two conversions of the online migration between the
// classic and the consumer group protocols (KIP-848): the upgrade of a
// classic group into a consumer group (FromClassicGroup) and the data of
// the downgrade of a consumer group into a classic group (DowngradeTo,
// which classic.RestoreCoordinator takes). Whether a conversion happens is
// decided by the rules of model/nextgen/validate (HeartbeatToClassic,
// DowngradeOnLeave, DowngradeOnReplace); switching the group's coordinator
// from one node to the other is the caller's.

// FromClassicGroup returns the consumer-group coordinator that Kafka's
// online upgrade builds from a classic group (GroupMetadataManager
// convertToConsumerGroup, ConsumerGroup.fromClassicGroup), and what the
// driver must do at once. g is the classic coordinator's Snapshot; cfg
// configures the new coordinator as NewCoordinator's.
//
// The caller runs it when validate.HeartbeatToClassic answers
// OnlineUpgrade for the ConsumerGroupHeartbeat that arrived at the classic
// group, then steps the returned coordinator with that heartbeat. If the
// heartbeat is rejected (GROUP_MAX_SIZE_REACHED for a group of exactly
// MaxSize members), Kafka writes nothing and the classic group stays: the
// caller keeps its classic coordinator, but the answers in the returned
// Output have been sent all the same (Kafka completes the parked requests'
// futures before the conversion can fail).
//
// What it builds:
//
//   - The group epoch and the target assignment epoch are g.Generation.
//   - Every classic member becomes a member that uses the classic
//     protocol: member epoch and previous epoch g.Generation, STABLE, its
//     instance id, rebalance timeout and node; its subscription is the
//     topics of its metadata for the group's protocol
//     (classic.DecodeSubscription); its assigned partitions and its target
//     are its stored classic assignment (classic.DecodeAssignment's
//     Assigned; none when it has none), without the partitions the
//     metadata image does not have (Kafka drops unknown topics; under
//     CoordinatorConfig.UpgradeKeepsClaims a member of a group in
//     PreparingRebalance or Stable also takes what it claims and nobody's
//     stored assignment has, keptClaims); its
//     classic record keeps its session timeout, protocols, client id and
//     host.
//   - The subscription metadata is left empty and expired, as Kafka's
//     conversion leaves it (no partition metadata record, a refresh
//     deadline of 0): the next accepted request recomputes it, and bumps
//     the group epoch if a member subscribes to a topic that exists.
//   - Generated member ids go on from g.NextMemberID, so that no id of the
//     classic group is generated again.
//
// The Output arms every member's session timer for its classic session
// timeout, and answers every parked JoinGroup and SyncGroup of g with
// REBALANCE_IN_PROGRESS (completeAllJoinFutures, completeAllSyncFutures),
// as Classic messages: the members rejoin the consumer group. Pending
// member ids (MEMBER_ID_REQUIRED) are forgotten.
//
// It returns an error, and no coordinator, for a configuration
// NewCoordinator rejects, and for a classic group Kafka cannot convert:
// one without members (an empty classic group is replaced offline, not
// converted: validate.ReplaceEmptyClassic), one whose protocol type is
// not "consumer" or that has no selected protocol (Kafka's conversion
// fails: the first is refused by HeartbeatToClassic, the second throws),
// a member without metadata for the selected protocol, or with a malformed
// subscription or assignment (Kafka: GROUP_ID_NOT_FOUND, "the embedded
// consumer protocol is malformed"), and assignments that give a partition
// to two members (Kafka's partition epochs refuse it).
func FromClassicGroup(cfg CoordinatorConfig, g classic.CoordinatorSnapshot, now Millis) (*Coordinator, Output, error) {
	c, err := NewCoordinator(cfg)
	if err != nil {
		return nil, Output{}, err
	}
	fail := func(format string, args ...any) (*Coordinator, Output, error) {
		return nil, Output{}, fmt.Errorf("coordinator: cannot upgrade classic group %s: "+format, append([]any{c.cfg.GroupID}, args...)...)
	}
	if len(g.Members) == 0 {
		return fail("it has no members (an empty classic group is replaced, not converted)")
	}
	if g.ProtocolType != validate.ConsumerProtocolType {
		return fail("its protocol type is %q, not %q", g.ProtocolType, validate.ConsumerProtocolType)
	}
	if g.Protocol == "" {
		return fail("no protocol is selected (state %s)", g.State)
	}
	s := &step{now: now}
	claims := keptClaims(cfg, g)
	epoch := spec.Epoch(g.Generation)
	c.exists = true
	c.groupEpoch, c.targetEpoch = epoch, epoch
	c.subscribed, c.metadataExpired = spec.Topics{}, true
	c.classicIDs = max(g.NextMemberID, 1) - 1
	for _, ms := range g.Members {
		i := slices.IndexFunc(ms.Protocols, func(p classic.ProtocolMetadata) bool { return p.Name == g.Protocol })
		if i < 0 {
			return fail("member %s has no metadata for protocol %s", ms.ID, g.Protocol)
		}
		sub, err := classic.DecodeSubscription(ms.Protocols[i].Metadata)
		if err != nil {
			return fail("the embedded consumer protocol of member %s is malformed: %v", ms.ID, err)
		}
		// held is what the member holds, of which assigned keeps the
		// partitions the metadata image has.
		var held spec.Set
		switch {
		case ms.Assignment == "" && g.State == classic.GroupCompletingRebalance:
			// Kafka keeps a member's previous assignment through
			// CompletingRebalance (the leader's SyncGroup replaces it);
			// the classic model clears it when the join completes. The
			// member's JoinGroup of this generation carries what it holds
			// of that assignment (a cooperative member its previous
			// assignment after revoking, an eager member nothing), which
			// stands in for it: what the member owns is never free.
			held = sub.Owned
		case ms.Assignment != "":
			a, err := classic.DecodeAssignment(ms.Assignment)
			if err != nil {
				return fail("the embedded consumer protocol of member %s is malformed: %v", ms.ID, err)
			}
			held = a.Assigned
		}
		// What it claims beyond that nobody's stored assignment has
		// (none but under UpgradeKeepsClaims, and none in
		// CompletingRebalance).
		held = held.Union(claims[ms.ID])
		var assigned spec.Set
		for _, p := range held {
			if c.topics.Has(p) {
				assigned = append(assigned, p)
			}
		}
		if c.members.Has(ms.ID) || ms.ID == "" {
			return fail("member id %q is empty or repeated", ms.ID)
		}
		m := member{
			id: ms.ID, instanceID: ms.InstanceID, rebalanceTimeout: ms.RebalanceTimeout,
			subscription: distinct(sub.Topics), node: ms.Node,
			cur: reconcile.Member{Epoch: epoch, PreviousEpoch: epoch, State: reconcile.Stable, Assigned: assigned},
			cl: classicMember{
				use: true, sessionTimeout: ms.SessionTimeout, protocols: slices.Clone(ms.Protocols),
				clientID: ms.ClientID, clientHost: ms.ClientHost,
			},
		}
		if m.rebalanceTimeout <= 0 {
			m.rebalanceTimeout = ms.SessionTimeout
		}
		m.assignedAt = assignmentEpochs(nil, reconcile.Member{}, m.cur)
		for _, p := range assigned {
			if !c.owners.get(p).empty() {
				return fail("partition %s is assigned to %s and to %s", p, c.owners.get(p).first.member, m.id)
			}
			c.owners.set(p, slotOf([]holder{{member: m.id}}))
		}
		if m.instanceID != "" {
			if _, dup := c.instances[m.instanceID]; dup {
				return fail("instance id %s is held twice", m.instanceID)
			}
			c.instances[m.instanceID] = m.id
		}
		c.target[m.id] = assigned
		c.setRecord(m)
		if ms.Join.Parked {
			s.classicAnswer(ms.Join.From, classic.JoinGroupResponse{Seq: ms.Join.Seq, Error: spec.RebalanceInProgress, MemberID: ms.ID})
		}
		if ms.Sync.Parked {
			s.classicAnswer(ms.Sync.From, classic.SyncGroupResponse{Seq: ms.Sync.Seq, Error: spec.RebalanceInProgress})
		}
	}
	c.targetTopics = c.subscriptionMetadata(c.subscribedNames(nil, nil))
	for _, id := range c.Members() {
		m, _ := c.recordOf(id)
		s.armSession(&m, now+m.cl.sessionTimeout)
		c.setRecord(m)
	}
	c.transitionTo(c.derivedState())
	return c, s.out, nil
}

// keptClaims returns, under cfg.UpgradeKeepsClaims for a classic group
// in PreparingRebalance or Stable, what each member claims in its
// metadata for the group's protocol, but partitions some member's stored
// assignment holds; a partition claimed by two members goes to the claim
// of the later generation and, at one generation, to neither. It returns
// nil otherwise (in CompletingRebalance a member's claims already stand
// in for the assignment the classic model cleared: FromClassicGroup).
// Members whose metadata cannot be read claim nothing (FromClassicGroup
// refuses them).
//
// In PreparingRebalance the claims stand in for the assignments Kafka
// emptied; in Stable they keep what a cooperative member was told to
// revoke and may still own (its stored assignment leaves it out, and
// nobody else's has it: the round withheld it).
func keptClaims(cfg CoordinatorConfig, g classic.CoordinatorSnapshot) map[spec.MemberID]spec.Set {
	if !cfg.UpgradeKeepsClaims || g.State != classic.GroupPreparingRebalance && g.State != classic.GroupStable {
		return nil
	}
	type claim struct {
		member spec.MemberID
		gen    spec.Generation
		tied   bool
	}
	best := map[spec.Resource]claim{}
	stored := map[spec.Resource]bool{}
	for _, ms := range g.Members {
		if a, err := classic.DecodeAssignment(ms.Assignment); ms.Assignment != "" && err == nil {
			for _, p := range a.Assigned {
				stored[p] = true
			}
		}
	}
	for _, ms := range g.Members {
		i := slices.IndexFunc(ms.Protocols, func(p classic.ProtocolMetadata) bool { return p.Name == g.Protocol })
		if i < 0 {
			continue
		}
		sub, err := classic.DecodeSubscription(ms.Protocols[i].Metadata)
		if err != nil {
			continue
		}
		for _, p := range sub.Owned {
			if stored[p] {
				continue // a stored assignment is the group's word
			}
			switch b, ok := best[p]; {
			case !ok || sub.Generation > b.gen:
				best[p] = claim{member: ms.ID, gen: sub.Generation}
			case sub.Generation == b.gen:
				best[p] = claim{member: b.member, gen: b.gen, tied: true}
			}
		}
	}
	out := map[spec.MemberID]spec.Set{}
	for p, b := range best {
		if !b.tied {
			out[b.member] = append(out[b.member], p)
		}
	}
	for id, s := range out {
		out[id] = spec.NewSet(s...)
	}
	return out
}

// DowngradeTo reports whether the last Step downgraded the group to a
// classic group, and if so the classic group Kafka's convertToClassicGroup
// builds (ClassicGroup.fromConsumerGroup), for classic.RestoreCoordinator.
// It is a field Step sets and every Step clears: reading it costs nothing.
//
// A Step downgrades the group when it removes the last member of the
// consumer protocol while members that use the classic protocol remain
// (a leave heartbeat at epoch -1, an expired session or rebalance timeout:
// validate.DowngradeOnLeave), or when a classic static member takes the
// instance id of the last member of the consumer protocol (a classic
// JoinGroup: validate.DowngradeOnReplace); in both cases only if the
// policy (CoordinatorConfig.Migration) allows the downgrade and the
// remaining members fit CoordinatorConfig.ClassicMaxSize.
//
// The data: generation = the group epoch; protocol type "consumer"; no
// protocol and no leader (RestoreCoordinator votes the protocol and takes
// the first member as leader); the member id counter; one member per
// remaining member (the one removed left out, the joining one in place of
// the one it replaced), each with its id, instance id, node, client id and
// host, rebalance timeout, classic session timeout and protocols, and as
// its stored assignment its target assignment (classic.Assignment with
// Assigned only; the joining member gets the replaced member's). State is
// GroupPreparingRebalance after a removal (Kafka starts a rebalance at
// once, "Downgrade group g from consumer to classic.") and GroupStable
// after a replacement (no rebalance).
//
// The coordinator itself is left as the step made it, the removal or the
// join applied as if nothing had been converted, so it stays consistent;
// its responses in the step's Output are Kafka's (the leave heartbeat's,
// the JoinGroup's). The caller that switches the group to the classic
// coordinator drops this one with its armed timers (ArmedTimers), which
// in Kafka no longer find a consumer group and do nothing.
func (c *Coordinator) DowngradeTo() (classic.CoordinatorSnapshot, bool) {
	if c.downgrade == nil {
		return classic.CoordinatorSnapshot{}, false
	}
	g := *c.downgrade
	g.Members = slices.Clone(g.Members)
	for i := range g.Members {
		g.Members[i].Protocols = slices.Clone(g.Members[i].Protocols)
	}
	g.Instances = maps.Clone(c.downgrade.Instances)
	return g, true
}

// classicGroup is ClassicGroup.fromConsumerGroup on the group as it is
// now: every member but leaving, plus joining (nil for none) in place of
// leaving with leaving's target, at the group epoch, in state st. Every
// member it includes must use the classic protocol (DowngradeOnLeave and
// DowngradeOnReplace make sure); it panics otherwise.
func (c *Coordinator) classicGroup(leaving spec.MemberID, joining *member, st classic.GroupState) classic.CoordinatorSnapshot {
	g := classic.CoordinatorSnapshot{
		State:        st,
		Generation:   spec.Generation(c.groupEpoch),
		ProtocolType: validate.ConsumerProtocolType,
		NextMemberID: c.classicIDs + 1,
		Instances:    map[string]spec.MemberID{},
	}
	add := func(m member, target spec.Set) {
		if !m.cl.use {
			panic(fmt.Sprintf("coordinator: downgrade with %s, a member of the consumer protocol", m.id))
		}
		g.Members = append(g.Members, classic.CoordinatorMemberSnapshot{
			ID: m.id, InstanceID: m.instanceID, Node: m.node,
			ClientID: m.cl.clientID, ClientHost: m.cl.clientHost,
			SessionTimeout: m.cl.sessionTimeout, RebalanceTimeout: m.rebalanceTimeout,
			Protocols:  slices.Clone(m.cl.protocols),
			Assignment: classic.Assignment{Assigned: target}.Encode(),
		})
		if m.instanceID != "" {
			g.Instances[m.instanceID] = m.id
		}
	}
	for _, id := range c.Members() {
		if id != leaving && (joining == nil || id != joining.id) {
			add(*c.members.Get(id), c.target[id])
		}
	}
	if joining != nil {
		add(*joining, c.target[leaving])
		slices.SortFunc(g.Members, func(a, b classic.CoordinatorMemberSnapshot) int {
			return cmp.Compare(a.ID, b.ID)
		})
	}
	return g
}

// ArmedTimers returns every timer the coordinator has armed, with its
// deadline, sorted by member then kind: what a driver that drops the
// coordinator (after a downgrade) cancels.
func (c *Coordinator) ArmedTimers() []TimerCmd {
	var out []TimerCmd
	for _, id := range c.Members() {
		m := c.members.Get(id)
		if m.sessionArmed {
			out = append(out, TimerCmd{Timer: sessionTimer(id), At: m.sessionAt})
		}
		if m.rebalanceArmed {
			out = append(out, TimerCmd{Timer: rebalanceTimer(id, m.rebalanceEpoch), At: m.rebalanceAt})
		}
		if m.cl.joinArmed {
			out = append(out, TimerCmd{Timer: classicJoinTimer(id), At: m.cl.joinAt})
		}
		if m.cl.syncArmed {
			out = append(out, TimerCmd{Timer: classicSyncTimer(id), At: m.cl.syncAt})
		}
	}
	return out
}
