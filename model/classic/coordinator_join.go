package classic

import (
	"fmt"
	"maps"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// This file is the JoinGroup half of the coordinator: request validation,
// new, existing and replaced static members, the join barrier
// (prepareRebalance, maybeCompleteJoin, completeJoin) and the protocol
// vote.

// handleJoin is Kafka's classicGroupJoinToClassicGroup. Checks, in Kafka's
// order, each of which rejects the request without changing anything:
//
//  1. INVALID_SESSION_TIMEOUT: SessionTimeout outside [min, max].
//  2. For an empty MemberID whose InstanceID is not a known static member
//     (a new member): GROUP_MAX_SIZE_REACHED when the group already has
//     MaxSize members (acceptJoiningMember; a static member replacing its
//     old member id does not grow the group and is not checked).
//  3. INCONSISTENT_GROUP_PROTOCOL (supportsProtocols).
//  4. For a non-empty MemberID that is pending (handed out with
//     MEMBER_ID_REQUIRED): GROUP_MAX_SIZE_REACHED when the group filled up
//     meanwhile (the pending id is dropped, as Kafka's acceptJoiningMember
//     path removes it), UNKNOWN_SERVER_ERROR when the request also names
//     an instance id (Kafka throws IllegalStateException: a pending member
//     is never static); otherwise the member joins with that id.
//  5. For any other non-empty MemberID: validateMember
//     (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID).
//
// A new dynamic member whose request has RequireKnownMemberID (JoinGroup
// v4 and later) is not added: it gets a pending id with MEMBER_ID_REQUIRED
// (Kafka's classicGroupJoinNewDynamicMember), and the pending id expires
// after the request's session timeout unless it joins.
func (c *Coordinator) handleJoin(s *coordStep, from string, req JoinGroupRequest) {
	reject := func(code spec.ErrorCode) {
		s.send(from, JoinGroupResponse{Seq: req.Seq, Error: code, MemberID: req.MemberID})
	}
	if req.SessionTimeout < c.cfg.MinSessionTimeout || req.SessionTimeout > c.cfg.MaxSessionTimeout {
		reject(spec.InvalidSessionTimeout)
		return
	}
	if req.MemberID == "" {
		if old, ok := c.instances[req.InstanceID]; ok && req.InstanceID != "" {
			if !c.supportsProtocols(req, old) {
				reject(spec.InconsistentGroupProtocol)
				return
			}
			c.joinReplacingStatic(s, from, req, old)
			return
		}
		if c.cfg.MaxSize > 0 && len(c.members) >= c.cfg.MaxSize {
			reject(spec.GroupMaxSizeReached)
			return
		}
		if !c.supportsProtocols(req, "") {
			reject(spec.InconsistentGroupProtocol)
			return
		}
		if req.RequireKnownMemberID && req.InstanceID == "" {
			c.addPending(s, from, req)
			return
		}
		c.joinNew(s, from, req, c.newMemberID(req.ClientID))
		return
	}
	if !c.supportsProtocols(req, req.MemberID) {
		reject(spec.InconsistentGroupProtocol)
		return
	}
	if c.pending[req.MemberID] {
		switch {
		case req.InstanceID != "":
			reject(spec.UnknownServerError)
		case c.cfg.MaxSize > 0 && len(c.members) >= c.cfg.MaxSize:
			c.dropPending(s, req.MemberID)
			reject(spec.GroupMaxSizeReached)
		default:
			c.dropPending(s, req.MemberID)
			c.joinNew(s, from, req, req.MemberID)
		}
		return
	}
	if code := c.validateMember(req.MemberID, req.InstanceID); code != spec.None {
		reject(code)
		return
	}
	c.joinExisting(s, from, req, c.members.Get(req.MemberID))
}

// supportsProtocols is Kafka's ClassicGroup.supportsProtocols: a JoinGroup
// must name a protocol type and at least one protocol; when the group has
// members its protocol type must be the group's, and at least one of its
// protocol names must be supported by every other member (the member
// itself, named by self, is left out: its old protocols are being
// replaced).
func (c *Coordinator) supportsProtocols(req JoinGroupRequest, self spec.MemberID) bool {
	if req.ProtocolType == "" || len(req.Protocols) == 0 {
		return false
	}
	if len(c.members) == 0 {
		return true
	}
	if req.ProtocolType != c.protocolType {
		return false
	}
	for _, p := range req.Protocols {
		if c.supportedByAllBut(p.Name, self) {
			return true
		}
	}
	return false
}

// supportedByAllBut reports whether every member other than self
// advertises the protocol name, from the counts in c.supported.
func (c *Coordinator) supportedByAllBut(name string, self spec.MemberID) bool {
	others, n := len(c.members), c.supported[name]
	if m := c.members.Get(self); m != nil {
		others--
		if m.advertises(name) {
			n--
		}
	}
	return n == others
}

// advertises reports whether m names the protocol name among its own.
func (m *coordMember) advertises(name string) bool {
	return slices.ContainsFunc(m.protocols, func(p ProtocolMetadata) bool { return p.Name == name })
}

// listedBefore reports whether the name of m's i-th protocol is among its
// first i: a name a member lists twice counts once.
func (m *coordMember) listedBefore(i int) bool {
	name := m.protocols[i].Name
	return slices.ContainsFunc(m.protocols[:i], func(q ProtocolMetadata) bool { return q.Name == name })
}

// count adds d (+1 or -1) to the count of every distinct protocol name m
// advertises: +1 when m becomes a member or after its protocols change, -1
// when it stops being one or before they change.
func (c *Coordinator) count(m *coordMember, d int) {
	c.ownSupported()
	for i, p := range m.protocols {
		if m.listedBefore(i) {
			continue // a name listed twice is one member
		}
		if c.supported[p.Name] += d; c.supported[p.Name] == 0 {
			delete(c.supported, p.Name)
		}
	}
}

// countSupported is c.supported computed from scratch: for each protocol
// name, how many members advertise it (a name a member lists twice counted
// once). CheckInvariants compares it with c.supported; candidates reads
// the names every member advertises from it.
func countSupported(members coordMembers) map[string]int {
	out := map[string]int{}
	for _, row := range members {
		m := row.Rec
		seen := map[string]bool{}
		for _, p := range m.protocols {
			if !seen[p.Name] {
				seen[p.Name] = true
				out[p.Name]++
			}
		}
	}
	return out
}

// newMemberID returns the next generated member id,
// <clientID>-<MemberIDPrefix><n>. Kafka appends a random UUID; a counter
// keeps the model deterministic. Ids are unique: n never repeats, and
// neither n nor the prefix contains '-'.
func (c *Coordinator) newMemberID(clientID string) spec.MemberID {
	id := spec.MemberID(fmt.Sprintf("%s-%s%d", clientID, c.cfg.MemberIDPrefix, c.nextMemberID))
	c.nextMemberID++
	if c.members.Has(id) || c.pending[id] {
		panic(fmt.Sprintf("classic: generated member id %s is already in use", id))
	}
	return id
}

// addPending hands a new dynamic member a pending id with
// MEMBER_ID_REQUIRED (KIP-394) and arms its SessionTimer for the
// request's session timeout. The group is otherwise unchanged: a pending
// id is not a member, but a join barrier raised before it joins waits for
// it.
func (c *Coordinator) addPending(s *coordStep, from string, req JoinGroupRequest) {
	id := c.newMemberID(req.ClientID)
	c.ownPending()
	c.pending[id] = true
	c.arm(s, coordSessionTimer(id), s.now+req.SessionTimeout)
	s.send(from, JoinGroupResponse{Seq: req.Seq, Error: spec.MemberIDRequired, MemberID: id})
}

// dropPending forgets pending id and cancels its SessionTimer.
func (c *Coordinator) dropPending(s *coordStep, id spec.MemberID) {
	c.ownPending()
	delete(c.pending, id)
	c.disarm(s, coordSessionTimer(id))
}

// expirePending is a pending id's SessionTimer firing (Kafka's
// removePendingMemberAndUpdateClassicGroup): the id is forgotten, and a
// barrier that waited only for it completes.
func (c *Coordinator) expirePending(s *coordStep, id spec.MemberID) {
	c.ownPending()
	delete(c.pending, id)
	if c.state == GroupPreparingRebalance {
		c.maybeCompleteJoin(s)
	}
}

// updateFromJoin copies what a JoinGroup says about its member into m.
// A RebalanceTimeout of 0 or less means the session timeout, as in
// JoinGroup v0, which had no rebalance timeout.
func (m *coordMember) updateFromJoin(from string, req JoinGroupRequest) {
	m.node = from
	m.clientID = req.ClientID
	m.clientHost = req.ClientHost
	m.protocols = slices.Clone(req.Protocols)
	m.sessionTimeout = req.SessionTimeout
	m.rebalanceTimeout = req.RebalanceTimeout
	if m.rebalanceTimeout <= 0 {
		m.rebalanceTimeout = req.SessionTimeout
	}
}

// park records m's JoinGroup to be answered when the barrier completes. A
// newer JoinGroup replaces an older parked one, which is never answered
// (Kafka overwrites awaitingJoinFuture); the member keeps its arrival
// rank from its first JoinGroup of this rebalance.
func (c *Coordinator) park(m *coordMember, from string, seq uint64) {
	arrival := m.join.arrival
	if !m.join.ok {
		arrival = c.nextArrival
		c.nextArrival++
	}
	m.join = coordParked{ok: true, from: from, seq: seq, arrival: arrival}
}

// joinNew adds a member with id, generated or pending (Kafka's
// addMemberThenRebalanceOrCompleteJoin) and parks its JoinGroup: in
// GroupPreparingRebalance it may complete the barrier; in any other state
// it starts a rebalance.
func (c *Coordinator) joinNew(s *coordStep, from string, req JoinGroupRequest, id spec.MemberID) {
	m := &coordMember{id: id, instanceID: req.InstanceID}
	m.updateFromJoin(from, req)
	if len(c.members) == 0 {
		c.protocolType = req.ProtocolType
	}
	c.members.Put(m.id, m)
	c.count(m, +1)
	if m.instanceID != "" {
		c.ownInstances()
		c.instances[m.instanceID] = m.id
	}
	c.armSession(s, m)
	c.park(m, from, req.Seq)
	if c.state == GroupPreparingRebalance {
		c.maybeCompleteJoin(s)
	} else {
		c.prepareRebalance(s)
	}
}

// joinExisting handles a validated JoinGroup from member m (Kafka's
// classicGroupJoinExistingMember):
//
//   - GroupPreparingRebalance: park it, then check the barrier.
//   - GroupCompletingRebalance: a member whose protocols are unchanged lost
//     its JoinGroup response, so it gets the current generation's response
//     again at once (with every member's metadata if it is the leader, as
//     in Kafka); changed protocols start a rebalance.
//   - GroupStable: the leader's JoinGroup, or changed protocols, start a
//     rebalance (the leader may rejoin to react to metadata changes the
//     members' protocols do not show); a follower with unchanged protocols
//     gets the current generation's response at once.
func (c *Coordinator) joinExisting(s *coordStep, from string, req JoinGroupRequest, m *coordMember) {
	same := slices.Equal(m.protocols, req.Protocols)
	if !same {
		c.count(m, -1)
	}
	m.updateFromJoin(from, req)
	if !same {
		c.count(m, +1) // with the same protocols, the counts stay as they are
	}
	c.armSession(s, m)
	switch c.state {
	case GroupPreparingRebalance:
		c.park(m, from, req.Seq)
		c.maybeCompleteJoin(s)
	case GroupCompletingRebalance:
		if same {
			s.send(from, c.currentJoinResponse(req.Seq, m.id, m.id == c.leader, false))
			return
		}
		c.park(m, from, req.Seq)
		c.prepareRebalance(s)
	case GroupStable:
		if same && m.id != c.leader {
			s.send(from, c.currentJoinResponse(req.Seq, m.id, false, false))
			return
		}
		c.park(m, from, req.Seq)
		c.prepareRebalance(s)
	default:
		panic(fmt.Sprintf("classic: JoinGroup of member %s validated in state %s", m.id, c.state))
	}
}

// joinReplacingStatic handles a JoinGroup with an empty MemberID from a
// known static instance (KIP-345; Kafka's
// updateStaticMemberThenRebalanceOrCompleteJoin and
// ClassicGroup.replaceStaticMember). The instance gets a new member id that
// takes over the old one's place: its stored assignment and, if the old id
// led, the leadership. The old id is removed, so its later requests are
// fenced (FENCED_INSTANCE_ID); its parked JoinGroup or SyncGroup, if any,
// is answered FENCED_INSTANCE_ID at once. Then:
//
//   - GroupStable when the vote would still select the current protocol
//     (Kafka compares only that, not the metadata): no rebalance. The new
//     id gets the current generation at once, and if it leads, every
//     member's metadata with SkipAssignment=true (KIP-814): the assignment
//     is already stored, and the member's SyncGroup gets its part of it. As
//     in Kafka, a static member that restarts with a changed subscription
//     is not noticed until the next rebalance.
//   - GroupStable when the selected protocol would change, or
//     GroupCompletingRebalance (the
//     leader may be assigning to the old id): park and rebalance.
//   - GroupPreparingRebalance: park and check the barrier.
func (c *Coordinator) joinReplacingStatic(s *coordStep, from string, req JoinGroupRequest, oldID spec.MemberID) {
	old := c.members.Get(oldID)
	if old.join.ok {
		s.send(old.join.from, JoinGroupResponse{Seq: old.join.seq, Error: spec.FencedInstanceID, MemberID: oldID})
	}
	if old.sync.ok {
		s.send(old.sync.from, SyncGroupResponse{Seq: old.sync.seq, Error: spec.FencedInstanceID})
	}
	c.disarm(s, coordSessionTimer(oldID))

	m := &coordMember{id: c.newMemberID(req.ClientID), instanceID: old.instanceID, assignment: old.assignment}
	m.updateFromJoin(from, req)
	c.count(old, -1)
	c.members.Remove(oldID)
	c.members.Put(m.id, m)
	c.count(m, +1)
	c.ownInstances()
	c.instances[m.instanceID] = m.id
	if c.leader == oldID {
		c.leader = m.id
	}
	c.armSession(s, m)
	// Kafka's rule: the replacement rebalances only if the protocol the
	// vote selects would change. Metadata is not compared, so a restarted
	// static member, whose subscription now reports nothing owned, gets its
	// stored assignment back without a rebalance.
	same := c.state == GroupStable && c.selectProtocol() == c.protocol

	switch c.state {
	case GroupStable:
		if same {
			lead := m.id == c.leader
			s.send(from, c.currentJoinResponse(req.Seq, m.id, lead, lead))
			return
		}
		c.park(m, from, req.Seq)
		c.prepareRebalance(s)
	case GroupCompletingRebalance:
		c.park(m, from, req.Seq)
		c.prepareRebalance(s)
	case GroupPreparingRebalance:
		c.park(m, from, req.Seq)
		c.maybeCompleteJoin(s)
	default:
		panic(fmt.Sprintf("classic: static member %s replaced in state %s", oldID, c.state))
	}
}

// currentJoinResponse is the JoinGroup response of the current generation
// for member id; withMembers adds every member's metadata (for the
// leader), skip sets SkipAssignment.
func (c *Coordinator) currentJoinResponse(seq uint64, id spec.MemberID, withMembers, skip bool) JoinGroupResponse {
	r := JoinGroupResponse{
		Seq:            seq,
		Error:          spec.None,
		Generation:     c.generation,
		ProtocolType:   c.protocolType,
		ProtocolName:   c.protocol,
		Leader:         c.leader,
		MemberID:       id,
		SkipAssignment: skip,
	}
	if withMembers {
		r.Members = c.joinedMembers()
	}
	return r
}

// joinedMembers is every member's metadata for the selected protocol,
// sorted by member id: what the leader assigns from.
func (c *Coordinator) joinedMembers() []JoinedMember {
	out := make([]JoinedMember, 0, len(c.members))
	var ids idBuffer
	for _, id := range c.appendSortedIDs(ids[:0]) {
		m := c.members.Get(id)
		i := slices.IndexFunc(m.protocols, func(p ProtocolMetadata) bool { return p.Name == c.protocol })
		if i < 0 {
			panic(fmt.Sprintf("classic: member %s does not support the selected protocol %s", id, c.protocol))
		}
		out = append(out, JoinedMember{MemberID: id, InstanceID: m.instanceID, Metadata: m.protocols[i].Metadata})
	}
	return out
}

// prepareRebalance is Kafka's prepareRebalance: it raises the join barrier.
// From GroupCompletingRebalance, every parked SyncGroup is answered
// REBALANCE_IN_PROGRESS and the stored assignments are dropped
// (resetAndPropagateAssignmentWithError). Then the barrier completes at
// once if every member already has a parked JoinGroup; otherwise the
// JoinTimer is armed at now plus the largest rebalance timeout of the
// members.
//
// Kafka delays the first rebalance of an empty group by
// group.initial.rebalance.delay.ms; this model runs with that delay at 0,
// so a member joining an empty group completes its join at once.
func (c *Coordinator) prepareRebalance(s *coordStep) {
	if c.state == GroupCompletingRebalance {
		var ids idBuffer
		for _, id := range c.appendSortedIDs(ids[:0]) {
			m := c.members.Get(id)
			m.assignment = ""
			if m.sync.ok {
				s.send(m.sync.from, SyncGroupResponse{Seq: m.sync.seq, Error: spec.RebalanceInProgress})
				m.sync = coordParked{}
				c.armSession(s, m)
			}
		}
	}
	c.transitionTo(GroupPreparingRebalance)
	if c.allJoined() {
		c.completeJoin(s)
		return
	}
	var timeout Millis
	for _, row := range c.members {
		m := row.Rec
		timeout = max(timeout, m.rebalanceTimeout)
	}
	if c.cfg.Faults.Has(ZeroRebalanceTimeout) {
		timeout = 0
	}
	c.arm(s, coordJoinTimer, s.now+timeout)
}

// allJoined reports whether every member has a parked JoinGroup and no id
// handed out with MEMBER_ID_REQUIRED is still pending (Kafka's
// hasAllMembersJoined); true for no members and no pending ids.
func (c *Coordinator) allJoined() bool {
	if len(c.pending) > 0 {
		return false
	}
	for _, row := range c.members {
		m := row.Rec
		if !m.join.ok {
			return false
		}
	}
	return true
}

// maybeCompleteJoin completes the barrier if every member has rejoined
// (Kafka's maybeCompleteJoinPhase). It is called only in
// GroupPreparingRebalance.
func (c *Coordinator) maybeCompleteJoin(s *coordStep) {
	if c.state != GroupPreparingRebalance {
		panic(fmt.Sprintf("classic: join barrier checked in state %s", c.state))
	}
	if c.allJoined() {
		c.completeJoin(s)
	}
}

// completeJoin is Kafka's completeClassicGroupJoin: the barrier falls.
//
//  1. The JoinTimer is cancelled if still armed.
//  2. Members without a parked JoinGroup are removed. Kafka removes only
//     dynamic ones and keeps static members that did not rejoin; this
//     model removes both (a static member that comes back is replaced or
//     joins anew).
//  3. The generation is bumped, even for a group left with no members,
//     which becomes GroupEmpty with no protocol and no leader.
//  4. Otherwise the protocol is voted (selectProtocol); the leader stays
//     if it rejoined, else it is the member whose JoinGroup arrived first
//     in this rebalance; every parked JoinGroup is answered with the new
//     generation (the leader's with every member's metadata), every
//     member's session restarts, stored assignments are cleared, and the
//     group moves to GroupCompletingRebalance.
func (c *Coordinator) completeJoin(s *coordStep) {
	c.disarm(s, coordJoinTimer)
	// One sort serves both passes: the first only drops members.
	var ids idBuffer
	sorted := c.appendSortedIDs(ids[:0])
	for _, id := range sorted {
		if m := c.members.Get(id); !m.join.ok {
			c.dropMember(s, m)
		}
	}
	c.generation++
	if len(c.members) == 0 {
		c.protocol, c.protocolType, c.leader = "", "", ""
		c.transitionTo(GroupEmpty)
		return
	}
	c.protocol = c.selectProtocol()
	if !c.IsMember(c.leader) {
		c.leader = c.firstArrival()
	}
	for _, id := range sorted {
		m := c.members.Get(id)
		if m == nil {
			continue // dropped above
		}
		s.send(m.join.from, c.currentJoinResponse(m.join.seq, id, id == c.leader, false))
		m.join = coordParked{}
		m.assignment = ""
		c.armSession(s, m)
	}
	c.transitionTo(GroupCompletingRebalance)
}

// firstArrival returns the member whose parked JoinGroup arrived first.
func (c *Coordinator) firstArrival() spec.MemberID {
	var best *coordMember
	for _, row := range c.members {
		m := row.Rec
		if m.join.ok && (best == nil || m.join.arrival < best.join.arrival) {
			best = m
		}
	}
	if best == nil {
		panic("classic: no parked JoinGroup to choose a leader from")
	}
	return best.id
}

// candidates returns the protocol names every member supports, sorted.
func (c *Coordinator) candidates() []string {
	count := countSupported(c.members)
	var out []string
	for _, name := range slices.Sorted(maps.Keys(count)) {
		if count[name] == len(c.members) {
			out = append(out, name)
		}
	}
	return out
}

// selectProtocol is Kafka's ClassicGroup.selectProtocol: the candidates are
// the protocols every member supports; each member votes for the first
// candidate in its own preference order; the most votes win. Kafka breaks
// ties arbitrarily; this model takes the candidate whose name sorts first.
func (c *Coordinator) selectProtocol() string {
	cands := c.candidates()
	if len(cands) == 0 {
		panic("classic: no protocol every member supports")
	}
	votes := map[string]int{}
	for _, row := range c.members {
		m := row.Rec
		for _, p := range m.protocols {
			if slices.Contains(cands, p.Name) {
				votes[p.Name]++
				break
			}
		}
	}
	best := cands[0]
	for _, name := range cands[1:] {
		if votes[name] > votes[best] {
			best = name
		}
	}
	return best
}
