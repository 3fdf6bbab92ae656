package classic

import (
	"maps"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// This file is a read-only window on the parts of a Coordinator's and a
// Member's state that their other accessors do not show: the parked
// requests, the static members, the waited-for correlation ids. Tools that
// map a node's whole state onto another description of it (the TLA+
// cross-check in tla/crosscheck) read it here instead of reaching into
// unexported fields. Everything it returns is a copy: changing it changes
// nothing in the node, and stepping the node changes nothing in it.

// ParkedRequest is a request the coordinator holds to answer later: a
// member's parked JoinGroup (Kafka's awaitingJoinFuture) or SyncGroup
// (awaitingSyncFuture).
type ParkedRequest struct {
	// Parked reports whether a request is parked. When it is false, every
	// other field is zero.
	Parked bool
	// From is the node the answer goes to.
	From string
	// Seq is the request's Seq, which the answer echoes.
	Seq uint64
	// Arrival orders the parked JoinGroups of one rebalance (the first to
	// arrive has the lowest); it is 0 for a SyncGroup.
	Arrival uint64
}

// CoordinatorMemberSnapshot is the coordinator's record of one member
// (Kafka's ClassicGroupMember) at the moment of the snapshot.
type CoordinatorMemberSnapshot struct {
	// ID is the member id and InstanceID its static instance id ("" for a
	// dynamic member).
	ID         spec.MemberID
	InstanceID string
	// Node is the From of the member's last accepted request: the process
	// that holds this member id.
	Node string
	// ClientID and ClientHost are the client id and address of the
	// member's last accepted JoinGroup.
	ClientID, ClientHost string
	// SessionTimeout and RebalanceTimeout are the member's timeouts, as its
	// last accepted JoinGroup set them (a RebalanceTimeout of 0 in the
	// request is stored as the session timeout).
	SessionTimeout, RebalanceTimeout Millis
	// Protocols are the member's embedded protocols and their metadata, in
	// its preference order, as its last accepted JoinGroup sent them.
	Protocols []ProtocolMetadata
	// Assignment is the leader's assignment for the member in the current
	// generation, stored unread; "" when none.
	Assignment Metadata
	// Join is the member's parked JoinGroup (only in
	// GroupPreparingRebalance), Sync its parked SyncGroup (only in
	// GroupCompletingRebalance).
	Join, Sync ParkedRequest
}

// CoordinatorSnapshot is a copy of the coordinator's group and membership
// records. It shares nothing mutable with the coordinator. It is also the
// plain data the online migration between the classic and the consumer
// group protocols converts (KIP-848): a consumer group is built from it
// (nextgen.FromClassicGroup, Kafka's
// ConsumerGroup.fromClassicGroup), and RestoreCoordinator builds a classic
// coordinator from one (Kafka's ClassicGroup.fromConsumerGroup).
type CoordinatorSnapshot struct {
	// State, Generation, ProtocolType, Protocol and Leader are the group's
	// (see the accessors of the same names).
	State        GroupState
	Generation   spec.Generation
	ProtocolType string
	Protocol     string
	Leader       spec.MemberID
	// NextMemberID is the number the next generated member id will carry
	// (Coordinator.NextMemberID).
	NextMemberID uint64
	// Members holds one record per current member, sorted by ID (the order
	// of Coordinator.Members).
	Members []CoordinatorMemberSnapshot
	// Pending holds the ids handed out with MEMBER_ID_REQUIRED whose
	// owners have not joined with them yet (Kafka's pendingJoinMembers),
	// sorted. They are not members.
	Pending []spec.MemberID
	// Instances maps each static member's instance id to its current
	// member id (Kafka's staticMembers); it is empty, never nil, when the
	// group has no static member.
	Instances map[string]spec.MemberID
}

// Snapshot returns a copy of the coordinator's group and membership
// records: the group's state, generation, protocol type and protocol,
// leader and member id counter, every member with its node, client,
// timeouts, protocols, stored assignment and parked requests, the pending
// member ids and the static members. It does not change c, and
// the result shares no slice or map with c.
func (c *Coordinator) Snapshot() CoordinatorSnapshot {
	s := CoordinatorSnapshot{
		State: c.state, Generation: c.generation,
		ProtocolType: c.protocolType, Protocol: c.protocol, Leader: c.leader,
		NextMemberID: c.nextMemberID,
		Members:      make([]CoordinatorMemberSnapshot, 0, len(c.members)),
		Pending:      slices.Sorted(maps.Keys(c.pending)),
		Instances:    maps.Clone(c.instances),
	}
	if s.Instances == nil {
		s.Instances = map[string]spec.MemberID{}
	}
	for _, id := range c.sortedIDs() {
		m := c.members.Get(id)
		s.Members = append(s.Members, CoordinatorMemberSnapshot{
			ID:         m.id,
			InstanceID: m.instanceID,
			Node:       m.node,
			ClientID:   m.clientID, ClientHost: m.clientHost,
			SessionTimeout: m.sessionTimeout, RebalanceTimeout: m.rebalanceTimeout,
			Protocols:  slices.Clone(m.protocols),
			Assignment: m.assignment,
			Join:       m.join.snapshot(),
			Sync:       m.sync.snapshot(),
		})
	}
	return s
}

// snapshot is p as a ParkedRequest: the zero value when nothing is parked.
func (p coordParked) snapshot() ParkedRequest {
	if !p.ok {
		return ParkedRequest{}
	}
	return ParkedRequest{Parked: true, From: p.from, Seq: p.seq, Arrival: p.arrival}
}

// MemberSnapshot is a copy of the parts of a member's state that Member's
// other accessors do not show, for inspection only. It shares nothing
// mutable with the member.
type MemberSnapshot struct {
	// Leader is the leader of the member's current generation (the one
	// Generation returns), "" when none.
	Leader spec.MemberID
	// OwnedGeneration and OwnedLeader are the generation and the leader of
	// the assignment the member holds (Owned); OwnedGeneration is the
	// member's View().Generation.
	OwnedGeneration spec.Generation
	OwnedLeader     spec.MemberID
	// Kept is what the member was told to revoke and keeps working on:
	// always empty unless the KeepRevoked fault is on.
	Kept spec.Set
	// JoinSeq, SyncSeq and HeartbeatSeq are the Seqs of the JoinGroup,
	// SyncGroup and Heartbeat whose responses the member waits for, 0 when
	// it waits for none; it ignores every other response.
	JoinSeq, SyncSeq, HeartbeatSeq uint64
	// RejoinAfterSync reports a rejoin asked for while a SyncGroup was in
	// flight: the member rejoins once the sync completes.
	RejoinAfterSync bool
	// LastSync is the SyncGroup the member built on its last successful
	// JoinGroup, which it sends, and sends again when its RequestTimer
	// fires in AwaitingSync, each time with a fresh Seq (its own Seq is
	// 0); the zero value before the member's first successful JoinGroup.
	LastSync SyncGroupRequest
}

// Snapshot returns a copy of the member's leader, the generation and
// leader of what it owns, what it keeps, the Seqs it waits for, its
// pending rejoin and the SyncGroup it would resend. It does not change m,
// and the result shares no slice or pointer with m.
func (m *Member) Snapshot() MemberSnapshot {
	sync := *m.lastSync()
	sync.Assignments = slices.Clone(sync.Assignments)
	sync.ProtocolType = cloneString(sync.ProtocolType)
	sync.ProtocolName = cloneString(sync.ProtocolName)
	return MemberSnapshot{
		Leader:          m.leader,
		OwnedGeneration: m.ownedGen,
		OwnedLeader:     m.ownedLeader,
		Kept:            slices.Clone(m.kept),
		JoinSeq:         m.joinSeq,
		SyncSeq:         m.syncSeq,
		HeartbeatSeq:    m.heartbeatSeq,
		RejoinAfterSync: m.rejoinAfterSync,
		LastSync:        sync,
	}
}

// cloneString returns a pointer to a copy of *p, nil for nil.
func cloneString(p *string) *string {
	if p == nil {
		return nil
	}
	s := *p
	return &s
}
