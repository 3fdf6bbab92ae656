// Package classic is Kafka's classic group membership protocol (JoinGroup,
// SyncGroup, Heartbeat, LeaveGroup, one leader per generation) as pure
// nodes: a Coordinator and Members, each a value changed only by Step.
//
// The coordinator is agnostic of the embedded protocol: it carries each
// member's protocol metadata and the leader's assignments as opaque
// Metadata and never reads them. The embedded protocols (eager,
// cooperative, deferred, incremental) are Protocol values the members are
// configured with; the leader member runs the one the coordinator selected.
//
// Time enters only as the Now of each Input; timers leave as TimerCmd
// outputs and come back as TimerFired events. Nothing here reads a clock,
// draws a random number or generates an id.
package classic

import (
	"fmt"
	"strings"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// Millis is a time or a duration in milliseconds on the driver's clock.
type Millis = node.Millis

// CoordinatorNode is the node name of the group coordinator in envelopes.
const CoordinatorNode = node.CoordinatorNode

// Metadata is opaque embedded-protocol bytes: a member's subscription in a
// JoinGroup, an assignment in a SyncGroup. It is a string so that it is
// immutable and comparable; the coordinator never decodes it.
type Metadata string

// Message is a request or response of the classic membership protocol.
// Every message type prints itself on one line, deterministically.
type Message interface {
	fmt.Stringer
	isMessage()
}

// Envelope is a message in flight between two nodes, named by their node
// names (CoordinatorNode, or a member's process name).
type Envelope = node.Envelope[Message]

// ProtocolMetadata is one embedded protocol a member supports, with the
// subscription metadata it would use under it.
type ProtocolMetadata struct {
	Name     string
	Metadata Metadata
}

// JoinGroupRequest asks to join (or rejoin) the group.
type JoinGroupRequest struct {
	// Seq correlates the response with this request; the coordinator echoes
	// it. A member ignores responses to requests it no longer waits for.
	Seq      uint64        `canon:"seq"`
	MemberID spec.MemberID // "" on a first join
	// InstanceID is the static membership id (KIP-345), "" for a dynamic
	// member.
	InstanceID string
	// ClientID is the process name; the coordinator derives new member ids
	// from it deterministically (ClientID-n).
	ClientID string
	// ClientHost is the address the request came from, as the driver
	// knows it (Kafka's clientAddress); only DescribeGroups shows it.
	ClientHost       string
	ProtocolType     string
	Protocols        []ProtocolMetadata // in preference order
	SessionTimeout   Millis             `canon:"duration"`
	RebalanceTimeout Millis             `canon:"duration"`
	// RequireKnownMemberID is set for JoinGroup v4 and later (KIP-394): a
	// new dynamic member (empty MemberID, no InstanceID) is not added at
	// once but given a member id with MEMBER_ID_REQUIRED, and joins when
	// it sends that id back. The closed worlds leave it false.
	RequireKnownMemberID bool
}

// JoinedMember is one member as the leader sees it in its JoinGroup
// response.
type JoinedMember struct {
	MemberID   spec.MemberID
	InstanceID string
	Metadata   Metadata
}

// JoinGroupResponse completes a join: the new generation, the selected
// protocol, the leader and, for the leader only, every member's metadata.
type JoinGroupResponse struct {
	Seq        uint64 `canon:"seq"`
	Error      spec.ErrorCode
	Generation spec.Generation
	// ProtocolType is the group's protocol type (JoinGroup v7 and later
	// carry it); "" on errors.
	ProtocolType string
	ProtocolName string
	Leader       spec.MemberID
	// MemberID is the member's id; with MEMBER_ID_REQUIRED it is the id
	// the member must join with.
	MemberID spec.MemberID
	// SkipAssignment tells a static leader that rejoined a stable group
	// that it need not compute an assignment (KIP-814).
	SkipAssignment bool
	Members        []JoinedMember // sorted by MemberID; only for the leader
}

// MemberAssignment is the leader's assignment for one member.
type MemberAssignment struct {
	MemberID   spec.MemberID
	Assignment Metadata
}

// SyncGroupRequest completes a rebalance; the leader's carries every
// member's assignment.
type SyncGroupRequest struct {
	Seq         uint64 `canon:"seq"`
	MemberID    spec.MemberID
	InstanceID  string
	Generation  spec.Generation
	Assignments []MemberAssignment // sorted by MemberID; leader only
	// ProtocolType and ProtocolName (SyncGroup v5 and later) must match
	// the group's when sent; nil means not sent (null on the wire).
	ProtocolType, ProtocolName *string
}

// SyncGroupResponse carries the member's assignment for the generation.
type SyncGroupResponse struct {
	Seq        uint64 `canon:"seq"`
	Error      spec.ErrorCode
	Assignment Metadata
	// ProtocolType and ProtocolName are the group's (SyncGroup v5 and
	// later carry them); "" on errors.
	ProtocolType, ProtocolName string
}

// HeartbeatRequest keeps a member's session alive.
type HeartbeatRequest struct {
	Seq        uint64 `canon:"seq"`
	MemberID   spec.MemberID
	InstanceID string
	Generation spec.Generation
}

// HeartbeatResponse tells the member whether to rejoin
// (REBALANCE_IN_PROGRESS) or that it was fenced.
type HeartbeatResponse struct {
	Seq   uint64 `canon:"seq"`
	Error spec.ErrorCode
	// Generation is the generation of the heartbeat answered: like Seq,
	// correlation data the model carries in the response, where Kafka's
	// client keeps it with the request (its HeartbeatResponseHandler is
	// created with the generation the heartbeat was sent in). Kafka's
	// HeartbeatResponse has no such field; the wire codec leaves it 0.
	Generation spec.Generation
}

// LeaveGroupRequest leaves the group at once, without waiting for the
// session timeout.
type LeaveGroupRequest struct {
	Seq        uint64 `canon:"seq"`
	MemberID   spec.MemberID
	InstanceID string
}

// LeaveGroupResponse acknowledges a LeaveGroupRequest.
type LeaveGroupResponse struct {
	Seq   uint64 `canon:"seq"`
	Error spec.ErrorCode
}

// OffsetCommitRequest asks whether a member may commit offsets now: the
// fencing half of OffsetCommit (the offsets themselves are the driver's to
// store). Generation is the request's GenerationIdOrMemberEpoch; a
// negative generation with an empty MemberID is a commit from outside
// group management (an admin client, or a consumer that assigns itself).
type OffsetCommitRequest struct {
	Seq        uint64 `canon:"seq"`
	MemberID   spec.MemberID
	InstanceID string
	Generation spec.Generation
}

// OffsetCommitResponse says whether the commit is accepted (Error NONE)
// or fenced.
type OffsetCommitResponse struct {
	Seq   uint64 `canon:"seq"`
	Error spec.ErrorCode
}

func (JoinGroupRequest) isMessage()     {}
func (JoinGroupResponse) isMessage()    {}
func (SyncGroupRequest) isMessage()     {}
func (SyncGroupResponse) isMessage()    {}
func (HeartbeatRequest) isMessage()     {}
func (HeartbeatResponse) isMessage()    {}
func (LeaveGroupRequest) isMessage()    {}
func (LeaveGroupResponse) isMessage()   {}
func (OffsetCommitRequest) isMessage()  {}
func (OffsetCommitResponse) isMessage() {}

func idOrDash(id spec.MemberID) string {
	if id == "" {
		return "-"
	}
	return string(id)
}

func instance(id string) string {
	if id == "" {
		return ""
	}
	return " instance=" + id
}

// String prints the request on one line.
func (m JoinGroupRequest) String() string {
	var ps []string
	for _, p := range m.Protocols {
		ps = append(ps, p.Name+"="+string(p.Metadata))
	}
	return fmt.Sprintf("JoinGroup#%d member=%s%s protocols=[%s]", m.Seq, idOrDash(m.MemberID), instance(m.InstanceID), strings.Join(ps, " "))
}

// String prints the response on one line, with the members' metadata for
// the leader.
func (m JoinGroupResponse) String() string {
	if m.Error == spec.MemberIDRequired {
		return fmt.Sprintf("JoinGroupResponse#%d error=%s member=%s", m.Seq, m.Error, m.MemberID)
	}
	if m.Error != spec.None {
		return fmt.Sprintf("JoinGroupResponse#%d error=%s", m.Seq, m.Error)
	}
	s := fmt.Sprintf("JoinGroupResponse#%d gen=%d protocol=%s leader=%s member=%s", m.Seq, m.Generation, m.ProtocolName, m.Leader, m.MemberID)
	if m.SkipAssignment {
		s += " skip-assignment"
	}
	for _, jm := range m.Members {
		s += fmt.Sprintf(" [%s%s %s]", jm.MemberID, instance(jm.InstanceID), jm.Metadata)
	}
	return s
}

// String prints the request on one line.
func (m SyncGroupRequest) String() string {
	s := fmt.Sprintf("SyncGroup#%d member=%s%s gen=%d", m.Seq, m.MemberID, instance(m.InstanceID), m.Generation)
	if m.ProtocolType != nil {
		s += " protocol-type=" + *m.ProtocolType
	}
	if m.ProtocolName != nil {
		s += " protocol=" + *m.ProtocolName
	}
	for _, a := range m.Assignments {
		s += fmt.Sprintf(" [%s %s]", a.MemberID, a.Assignment)
	}
	return s
}

// String prints the response on one line.
func (m SyncGroupResponse) String() string {
	if m.Error != spec.None {
		return fmt.Sprintf("SyncGroupResponse#%d error=%s", m.Seq, m.Error)
	}
	return fmt.Sprintf("SyncGroupResponse#%d %s", m.Seq, m.Assignment)
}

// String prints the request on one line.
func (m HeartbeatRequest) String() string {
	return fmt.Sprintf("Heartbeat#%d member=%s%s gen=%d", m.Seq, m.MemberID, instance(m.InstanceID), m.Generation)
}

// String prints the response on one line.
func (m HeartbeatResponse) String() string {
	return fmt.Sprintf("HeartbeatResponse#%d error=%s gen=%d", m.Seq, m.Error, m.Generation)
}

// String prints the request on one line.
func (m LeaveGroupRequest) String() string {
	return fmt.Sprintf("LeaveGroup#%d member=%s%s", m.Seq, idOrDash(m.MemberID), instance(m.InstanceID))
}

// String prints the response on one line.
func (m LeaveGroupResponse) String() string {
	return fmt.Sprintf("LeaveGroupResponse#%d error=%s", m.Seq, m.Error)
}

// String prints the request on one line.
func (m OffsetCommitRequest) String() string {
	return fmt.Sprintf("OffsetCommit#%d member=%s%s gen=%d", m.Seq, idOrDash(m.MemberID), instance(m.InstanceID), m.Generation)
}

// String prints the response on one line.
func (m OffsetCommitResponse) String() string {
	return fmt.Sprintf("OffsetCommitResponse#%d error=%s", m.Seq, m.Error)
}
