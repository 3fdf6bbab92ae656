package classic

import (
	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file holds the canonical encodings (package canon) of the
// coordinator, the member, the messages and the timers, written by hand
// field by field in declaration order. Each field is written as its canon
// struct tag says: no tag, as is; "instant" with Instant; "duration" with
// Int; "seq" with Seq; "order" with Order; "counter" with Counter; "-" left
// out. Every spec.Generation goes through Generation; every identity (a
// member id, a client id, a node address) through Name, so that the
// symmetry reduction and the unbounded-bounce abstraction rename it, and
// every other string through String; the subscription and assignment
// metadata through EncodeSubscriptionMetadata and
// encodeAssignmentMetadata, which open them to those two when asked;
// every map through canon.Map (a multiset of its entries), slices in
// order after their length, and pointers after a presence flag (Len 0 or
// 1). Unsigned integers are written with Uint and signed ones with Int.
//
// The field counts below are what each encoder accounts for, written or
// deliberately left out; encode_test.go compares them with the structs, so
// a field added to a struct fails the tests until its encoder handles it.
const (
	coordinatorFields  = 14 // Coordinator
	coordMemberFields  = 11 // coordMember
	coordParkedFields  = 4  // coordParked
	memberFields       = 23 // Member
	leaderMemoryFields = 9  // LeaderMemory
)

// The kinds of message, written first in a message's encoding; 0 is a nil
// message.
const (
	joinGroupRequestKind byte = iota + 1
	joinGroupResponseKind
	syncGroupRequestKind
	syncGroupResponseKind
	heartbeatRequestKind
	heartbeatResponseKind
	leaveGroupRequestKind
	leaveGroupResponseKind
	offsetCommitRequestKind
	offsetCommitResponseKind
)

// EncodeCanon writes the coordinator's canonical encoding (package canon):
// every field but the configuration, the static instances, nextArrival
// and supported; the members and pending ids as multisets; each parked
// request's Seq as a correlation id and its arrival as an order value; the
// armed timers' deadlines relative to the clock; nextMemberID as a
// counter. Two coordinators get the same encoding exactly when they behave
// the same from then on, given that the model compares only coordinators
// that hold their invariants (CheckInvariants, which the checker runs
// after every step that changes the coordinator).
//
// What it leaves out and why, as the next-gen coordinator does:
//   - the configuration is fixed when the coordinator is made, so it is
//     the same in every state a model compares;
//   - the static instances hold exactly the members' own instance ids
//     (CheckInvariants), a function of the member records;
//   - nextArrival only issues fresh arrival numbers, whose ranks the
//     records' arrivals carry;
//   - supported is the members' protocols counted (CheckInvariants).
func (c *Coordinator) EncodeCanon(e *canon.Encoder) {
	// cfg: left out (canon:"-"), fixed for the coordinator's life.
	e.Uint(uint64(c.state))
	e.Generation(int64(c.generation))
	e.String(c.protocolType)
	e.String(c.protocol)
	e.Name(string(c.leader))

	c.members.Encode(e, func(m *coordMember) { encodeCoordMember(e, m) })
	canon.KeyedMap(e, c.pending, e.Bool)
	// instances: left out (canon:"-"), the members' own instance ids.
	encodeCoordTimers(e, c.timers)

	e.Counter(c.nextMemberID)
	// nextArrival: left out (canon:"-").
	// supported: left out (canon:"-"), derived from the members.
	// shared: left out (canon:"-"), bookkeeping of Fork's sharing.
}

// encodeCoordMember writes a member record behind its presence flag.
func encodeCoordMember(e *canon.Encoder, m *coordMember) {
	if m == nil {
		e.Len(0)
		return
	}
	e.Len(1)
	e.Name(string(m.id))
	e.String(m.instanceID)
	e.Name(m.clientID)
	e.String(m.clientHost)
	e.Address(m.node)
	EncodeProtocols(e, m.protocols)
	e.Int(int64(m.sessionTimeout))
	e.Int(int64(m.rebalanceTimeout))
	encodeAssignmentMetadata(e, m.assignment)
	encodeCoordParked(e, &m.join)
	encodeCoordParked(e, &m.sync)
}

// encodeCoordParked writes a parked request: its Seq as a correlation id
// of the space of the address it came from (the member's counter issued
// it), its arrival as an order value.
func encodeCoordParked(e *canon.Encoder, p *coordParked) {
	e.Bool(p.ok)
	e.Address(p.from)
	outer := e.SeqSpace
	e.SeqSpace = p.from
	e.Seq(p.seq)
	e.SeqSpace = outer
	e.Order(p.arrival)
}

// EncodeProtocols writes a JoinGroup's protocols in preference order:
// each one's name, and its subscription metadata as
// EncodeSubscriptionMetadata writes it. The next-gen coordinator writes
// the classic members of a mixed group with it.
func EncodeProtocols(e *canon.Encoder, ps []ProtocolMetadata) {
	e.Len(len(ps))
	for _, p := range ps {
		e.String(p.Name)
		EncodeSubscriptionMetadata(e, p.Metadata)
	}
}

// EncodeSubscriptionMetadata writes a member's subscription metadata
// (Subscription.Encode): its bytes as they are or, when e opens payloads
// (canon.Encoder.OpensPayloads), its fields, the leader's member id with
// Name and the generation with Generation, so that the renaming and the
// abstraction of identities reach inside. Each form is one to one: this
// package writes metadata only through Subscription.Encode, whose text
// its fields determine. Opened, metadata that does not decode (none that
// this package writes) is written as its bytes behind a tag of its own.
func EncodeSubscriptionMetadata(e *canon.Encoder, md Metadata) {
	encodeMetadata(e, md, DecodeSubscription, func(s Subscription) {
		e.Strings(s.Topics)
		e.Set(s.Owned)
		e.Generation(int64(s.Generation))
		e.Name(string(s.Leader))
	})
}

// encodeAssignmentMetadata writes assignment metadata (Assignment.Encode)
// as EncodeSubscriptionMetadata writes a subscription: its bytes, or,
// with payloads opened, its fields, the leader's member id with Name.
// The empty metadata of a member not yet assigned does not decode, and
// is written behind the tag.
func encodeAssignmentMetadata(e *canon.Encoder, md Metadata) {
	encodeMetadata(e, md, DecodeAssignment, func(a Assignment) {
		e.Set(a.Assigned)
		e.Set(a.Revoked)
		e.Int(int64(a.Delay))
		e.Name(string(a.Leader))
		e.Int(int64(a.Error))
	})
}

// encodeMetadata writes md as its bytes, or, when e opens payloads, as
// decode reads it, written by fields behind a tag (its bytes behind the
// other tag when it does not decode).
func encodeMetadata[V any](e *canon.Encoder, md Metadata, decode func(Metadata) (V, error), fields func(V)) {
	if !e.OpensPayloads() {
		e.String(string(md))
		return
	}
	v, err := decode(md)
	e.Bool(err == nil)
	if err != nil {
		e.String(string(md))
		return
	}
	fields(v)
}

// EncodeCanon writes the member's canonical encoding (package canon):
// every field but cfg (fixed by the configuration, which the closed world
// encodes), seq (which only issues fresh correlation ids) and memo (which
// only saves printing and reading metadata again); joinSeq,
// syncSeq, heartbeatSeq and the last SyncGroup's Seq as correlation ids;
// the known metadata in topic order; the leader memory with its scheduled
// deadline, and the timers' deadlines, relative to the clock. Two members
// get the same encoding exactly when they behave the same from then on.
func (m *Member) EncodeCanon(e *canon.Encoder) {
	// cfg: left out (canon:"-").
	e.Bool(m.eager)
	e.Uint(uint64(m.state))
	e.Name(string(m.id))
	e.Generation(int64(m.generation))
	e.Name(string(m.leader))
	e.String(m.protocol)
	e.Strings(m.topics)
	e.Topics(m.metadata)
	e.Set(m.owned)
	e.Generation(int64(m.ownedGen))
	e.Name(string(m.ownedLeader))
	e.Set(m.kept)
	e.Generation(int64(m.lastCompleted))
	encodeKeptMemory(e, m.heldMemory())
	// seq: left out (canon:"-").
	e.Seq(m.joinSeq)
	e.Seq(m.syncSeq)
	e.Seq(m.heartbeatSeq)
	encodeSyncGroupRequest(e, m.lastSync())
	e.Bool(m.rejoinAfterSync)
	e.Len(len(m.timers))
	for i := range m.timers {
		e.Bool(m.timers[i].Armed)
		e.Instant(int64(m.timers[i].At))
	}
	// memo: left out (canon:"-").
}

// encodeLeaderMemory writes every field of mem, its deadline relative to
// the clock.
func encodeLeaderMemory(e *canon.Encoder, mem *LeaderMemory) {
	e.Generation(int64(mem.Generation))
	// What e.Assignment writes: that call, inlined here, put its method
	// value e.Set on the heap at every call; this one does not.
	canon.KeyedMap(e, mem.Assignment, e.Set)
	encodeIDs(e, mem.Members)
	e.Instant(int64(mem.ScheduledAt))
	e.Set(mem.Lost)
	encodeIDs(e, mem.Candidates)
	e.Int(int64(mem.SuccessiveRevokingRounds))
	e.Bool(mem.Revoked)
	e.Set(mem.Revocation)
}

// encodeIDs writes member ids in order.
func encodeIDs(e *canon.Encoder, ids []spec.MemberID) {
	e.Len(len(ids))
	for _, id := range ids {
		e.Name(string(id))
	}
}

// EncodeTimer writes t's canonical encoding (package canon): its kind and
// member.
func EncodeTimer(e *canon.Encoder, t Timer) {
	e.Uint(uint64(t.Kind))
	e.Name(string(t.Member))
}

// EncodeMessage writes m's canonical encoding (package canon): its kind (0
// for nil), then every field in declaration order, Seq as a correlation
// id, generations with Generation, timeouts as durations, and the
// SyncGroup's optional protocol fields with "not sent" distinct from
// "sent empty". It panics on a message type it does not know.
func EncodeMessage(e *canon.Encoder, m Message) {
	switch m := m.(type) {
	case JoinGroupRequest:
		e.Header(joinGroupRequestKind, m.Seq)
		e.Name(string(m.MemberID))
		e.String(m.InstanceID)
		e.Name(m.ClientID)
		e.String(m.ClientHost)
		e.String(m.ProtocolType)
		EncodeProtocols(e, m.Protocols)
		e.Int(int64(m.SessionTimeout))
		e.Int(int64(m.RebalanceTimeout))
		e.Bool(m.RequireKnownMemberID)
	case JoinGroupResponse:
		e.Response(joinGroupResponseKind, m.Seq, int64(m.Error))
		e.Generation(int64(m.Generation))
		e.String(m.ProtocolType)
		e.String(m.ProtocolName)
		e.Name(string(m.Leader))
		e.Name(string(m.MemberID))
		e.Bool(m.SkipAssignment)
		e.Len(len(m.Members))
		for _, jm := range m.Members {
			e.Name(string(jm.MemberID))
			e.String(jm.InstanceID)
			EncodeSubscriptionMetadata(e, jm.Metadata)
		}
	case SyncGroupRequest:
		e.Buf = append(e.Buf, syncGroupRequestKind)
		encodeSyncGroupRequest(e, &m)
	case SyncGroupResponse:
		e.Response(syncGroupResponseKind, m.Seq, int64(m.Error))
		encodeAssignmentMetadata(e, m.Assignment)
		e.String(m.ProtocolType)
		e.String(m.ProtocolName)
	case HeartbeatRequest:
		e.Header(heartbeatRequestKind, m.Seq)
		e.Name(string(m.MemberID))
		e.String(m.InstanceID)
		e.Generation(int64(m.Generation))
	case HeartbeatResponse:
		e.Response(heartbeatResponseKind, m.Seq, int64(m.Error))
		e.Generation(int64(m.Generation))
	case LeaveGroupRequest:
		e.Header(leaveGroupRequestKind, m.Seq)
		e.Name(string(m.MemberID))
		e.String(m.InstanceID)
	case LeaveGroupResponse:
		e.Response(leaveGroupResponseKind, m.Seq, int64(m.Error))
	case OffsetCommitRequest:
		e.Header(offsetCommitRequestKind, m.Seq)
		e.Name(string(m.MemberID))
		e.String(m.InstanceID)
		e.Generation(int64(m.Generation))
	case OffsetCommitResponse:
		e.Response(offsetCommitResponseKind, m.Seq, int64(m.Error))
	case nil:
		e.Buf = append(e.Buf, 0)
	default:
		panic("classic: EncodeMessage: unknown message type")
	}
}

// encodeSyncGroupRequest writes every field of r (the body of a
// SyncGroupRequest message, and the member's last SyncGroup).
func encodeSyncGroupRequest(e *canon.Encoder, r *SyncGroupRequest) {
	e.Seq(r.Seq)
	e.Name(string(r.MemberID))
	e.String(r.InstanceID)
	e.Generation(int64(r.Generation))
	e.Len(len(r.Assignments))
	for _, a := range r.Assignments {
		e.Name(string(a.MemberID))
		encodeAssignmentMetadata(e, a.Assignment)
	}
	e.OptionalString(r.ProtocolType)
	e.OptionalString(r.ProtocolName)
}
