// Package message holds the messages of the next-generation consumer group
// protocol (KIP-848): ConsumerGroupHeartbeat's request and response, the
// fencing half of OffsetCommit and OffsetFetch, and the classic messages a
// consumer group's classic members send (Classic). They are the vocabulary
// the member, the coordinator and the coordinator's rule packages
// (model/nextgen/validate) share, so they sit below all of them, as Kafka's
// generated message classes sit below its clients and its group
// coordinator. Package nextgen names every type again (nextgen.Message,
// nextgen.HeartbeatRequest, ...), and the rest of the project uses those
// names.
package message

import (
	"fmt"
	"strings"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// Message is a request or response of the protocol: one of the types of
// this package, and no other.
type Message interface {
	fmt.Stringer
	isMessage()
}

func (HeartbeatRequest) isMessage()    {}
func (HeartbeatResponse) isMessage()   {}
func (OffsetCommitRequest) isMessage() {}
func (OffsetFetchRequest) isMessage()  {}
func (OffsetResponse) isMessage()      {}
func (Classic) isMessage()             {}

// HeartbeatRequest is ConsumerGroupHeartbeatRequest (apiKey 68). Nullable
// fields are pointers or nil slices with an explicit flag, so "not sent"
// and "sent empty" stay distinct, as the protocol requires.
type HeartbeatRequest struct {
	// Seq is the transport's correlation id: the coordinator echoes it in
	// the response, and a member takes only the response to the request
	// it waits for (Kafka's NetworkClient matches responses by correlation
	// id and drops a connection whose request timed out, so a late answer
	// never reaches the client).
	Seq      uint64 `canon:"seq"`
	GroupID  string
	MemberID spec.MemberID
	// MemberEpoch: 0 joins, spec.LeaveEpoch (-1) leaves,
	// spec.StaticLeaveEpoch (-2) leaves temporarily (static members),
	// otherwise the member's current epoch.
	MemberEpoch spec.Epoch
	// InstanceID is the static membership id; nil for a dynamic member.
	InstanceID *string
	// RackID is nil when not sent.
	RackID *string
	// RebalanceTimeoutMs is -1 when unchanged.
	RebalanceTimeoutMs int32
	// SubscribedTopicNames is nil when unchanged (not sent).
	SubscribedTopicNames []string
	SubscriptionSent     bool
	// ServerAssignor is nil when not sent.
	ServerAssignor *string
	// TopicPartitions is what the member owns; OwnedSent false means
	// "not sent this heartbeat" (null on the wire).
	TopicPartitions spec.Set
	OwnedSent       bool
}

// HeartbeatResponse is ConsumerGroupHeartbeatResponse.
type HeartbeatResponse struct {
	Seq                 uint64 `canon:"seq"`
	Error               spec.ErrorCode
	ErrorMessage        string
	MemberID            spec.MemberID
	MemberEpoch         spec.Epoch
	HeartbeatIntervalMs int32
	// Assignment is the member's assigned partitions; AssignmentSent false
	// means null (no change to report).
	Assignment     spec.Set
	AssignmentSent bool
}

// seq prints a correlation id as "#n", nothing for 0 (unset).
func seq(n uint64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("#%d", n)
}

func optional(p *string) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *p)
}

// String prints the request on one line, nulls as "null".
func (r HeartbeatRequest) String() string {
	subs := "null"
	if r.SubscriptionSent {
		subs = "[" + strings.Join(r.SubscribedTopicNames, " ") + "]"
	}
	owned := "null"
	if r.OwnedSent {
		owned = r.TopicPartitions.String()
	}
	return fmt.Sprintf("Heartbeat%s member=%s epoch=%d instance=%s rack=%s rebalance-timeout=%d subscription=%s assignor=%s owned=%s",
		seq(r.Seq), r.MemberID, r.MemberEpoch, optional(r.InstanceID), optional(r.RackID), r.RebalanceTimeoutMs, subs, optional(r.ServerAssignor), owned)
}

// String prints the response on one line.
func (r HeartbeatResponse) String() string {
	if r.Error != spec.None {
		return fmt.Sprintf("HeartbeatResponse%s error=%s %s", seq(r.Seq), r.Error, r.ErrorMessage)
	}
	a := "null"
	if r.AssignmentSent {
		a = r.Assignment.String()
	}
	return fmt.Sprintf("HeartbeatResponse%s member=%s epoch=%d assignment=%s", seq(r.Seq), r.MemberID, r.MemberEpoch, a)
}

// OffsetCommitRequest is the fencing half of OffsetCommit for a consumer
// group: whether the member may commit now, and for which of Partitions
// (the offsets themselves are the driver's to store). MemberEpoch is the
// request's GenerationIdOrMemberEpoch; Version is the OffsetCommit API
// version, which the rules look at (members of a consumer group must use
// v9 or later). Partitions are the partitions the request commits: under
// KIP-1251 the coordinator judges each against the epoch it was assigned
// to the member at.
type OffsetCommitRequest struct {
	Seq         uint64 `canon:"seq"`
	GroupID     string
	MemberID    spec.MemberID
	InstanceID  *string
	MemberEpoch spec.Epoch
	Version     int16
	Partitions  spec.Set
}

// OffsetFetchRequest is the fencing half of OffsetFetch (v9 and later
// name the member; a nil MemberID is a fetch from outside the group).
type OffsetFetchRequest struct {
	Seq         uint64 `canon:"seq"`
	GroupID     string
	MemberID    *spec.MemberID
	MemberEpoch spec.Epoch
}

// OffsetResponse answers an OffsetCommitRequest or an OffsetFetchRequest:
// NONE, or why the member is fenced. StalePartitions, only with Error
// NONE, are the partitions of a commit refused one by one with
// STALE_MEMBER_EPOCH (KIP-1251: the member sent an epoch older than the
// one the partition was assigned to it at, or does not hold it); the
// driver stores the others.
type OffsetResponse struct {
	Seq             uint64 `canon:"seq"`
	Error           spec.ErrorCode
	ErrorMessage    string
	StalePartitions spec.Set
}

// String prints the request on one line.
func (r OffsetCommitRequest) String() string {
	return fmt.Sprintf("OffsetCommit%s member=%s epoch=%d instance=%s version=%d partitions=%s", seq(r.Seq), r.MemberID, r.MemberEpoch, optional(r.InstanceID), r.Version, r.Partitions)
}

// String prints the request on one line.
func (r OffsetFetchRequest) String() string {
	id := "null"
	if r.MemberID != nil {
		id = string(*r.MemberID)
	}
	return fmt.Sprintf("OffsetFetch%s member=%s epoch=%d", seq(r.Seq), id, r.MemberEpoch)
}

// String prints the response on one line.
func (r OffsetResponse) String() string {
	if r.Error != spec.None {
		return fmt.Sprintf("OffsetResponse%s error=%s %s", seq(r.Seq), r.Error, r.ErrorMessage)
	}
	if !r.StalePartitions.IsEmpty() {
		return fmt.Sprintf("OffsetResponse%s error=NONE stale=%s", seq(r.Seq), r.StalePartitions)
	}
	return fmt.Sprintf("OffsetResponse%s error=NONE", seq(r.Seq))
}

// Classic carries one message of the classic group protocol (a
// classic.JoinGroupRequest, SyncGroupRequest, HeartbeatRequest,
// LeaveGroupRequest or OffsetCommitRequest, or the response to one) between
// a member that speaks the classic protocol and a consumer-group (KIP-848)
// coordinator: Kafka's coordinator answers the classic APIs of a consumer
// group's classic members itself (GroupMetadataManager
// classicGroupJoinToConsumerGroup, classicGroupSyncToConsumerGroup,
// classicGroupHeartbeatToConsumerGroup, classicGroupLeaveToConsumerGroup),
// and the online migration between the two protocols relies on it.
//
// Msg is never nil in a well-formed envelope. Correlation is Msg's own
// (the classic messages' Seq), which the coordinator echoes.
type Classic struct{ Msg classic.Message }

// String prints "classic " followed by the classic message on one line.
func (m Classic) String() string {
	if m.Msg == nil {
		return "classic <nil>"
	}
	return "classic " + m.Msg.String()
}
