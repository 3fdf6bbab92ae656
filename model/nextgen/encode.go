package nextgen

import (
	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/classic"
)

// The kinds of message, written first in a message's encoding.
const (
	heartbeatRequestKind byte = iota + 1
	heartbeatResponseKind
	offsetCommitRequestKind
	offsetFetchRequestKind
	offsetResponseKind
	classicKind
)

// EncodeMessage writes m's canonical encoding (package canon): its kind,
// then every field in declaration order, correlation ids with Seq, "not
// sent" distinct from "sent empty".
func EncodeMessage(e *canon.Encoder, m Message) {
	switch m := m.(type) {
	case HeartbeatRequest:
		e.Header(heartbeatRequestKind, m.Seq)
		e.String(m.GroupID)
		e.Name(string(m.MemberID))
		e.Int(int64(m.MemberEpoch))
		e.OptionalString(m.InstanceID)
		e.OptionalString(m.RackID)
		e.Int(int64(m.RebalanceTimeoutMs))
		e.Strings(m.SubscribedTopicNames)
		e.Bool(m.SubscriptionSent)
		e.OptionalString(m.ServerAssignor)
		e.Set(m.TopicPartitions)
		e.Bool(m.OwnedSent)
	case HeartbeatResponse:
		e.Response(heartbeatResponseKind, m.Seq, int64(m.Error))
		e.String(m.ErrorMessage)
		e.Name(string(m.MemberID))
		e.Int(int64(m.MemberEpoch))
		e.Int(int64(m.HeartbeatIntervalMs))
		e.Set(m.Assignment)
		e.Bool(m.AssignmentSent)
	case OffsetCommitRequest:
		e.Header(offsetCommitRequestKind, m.Seq)
		e.String(m.GroupID)
		e.Name(string(m.MemberID))
		e.OptionalString(m.InstanceID)
		e.Int(int64(m.MemberEpoch))
		e.Int(int64(m.Version))
		e.Set(m.Partitions)
	case OffsetFetchRequest:
		e.Header(offsetFetchRequestKind, m.Seq)
		e.String(m.GroupID)
		if m.MemberID == nil {
			e.Len(0)
		} else {
			e.Len(1)
			e.Name(string(*m.MemberID))
		}
		e.Int(int64(m.MemberEpoch))
	case OffsetResponse:
		e.Response(offsetResponseKind, m.Seq, int64(m.Error))
		e.String(m.ErrorMessage)
		e.Set(m.StalePartitions)
	case Classic:
		// The kind, then the classic message's own encoding (its own kinds
		// and fields, classic.EncodeMessage).
		e.Buf = append(e.Buf, classicKind)
		classic.EncodeMessage(e, m.Msg)
	case nil:
		e.Buf = append(e.Buf, 0)
	default:
		panic("nextgen: EncodeMessage: unknown message type")
	}
}

// EncodeTimer writes t's canonical encoding: every field.
func EncodeTimer(e *canon.Encoder, t Timer) {
	e.Int(int64(t.Kind))
	e.Name(string(t.Member))
	e.Int(int64(t.Epoch))
}

// EncodeConfig writes cfg's canonical encoding: every field.
func EncodeConfig(e *canon.Encoder, cfg MemberConfig) {
	e.Name(cfg.Name)
	e.String(cfg.GroupID)
	e.Name(string(cfg.MemberID))
	e.String(cfg.InstanceID)
	e.Strings(cfg.Topics)
	e.Int(int64(cfg.RebalanceTimeout))
	e.String(cfg.ServerAssignor)
	e.Int(int64(cfg.RequestTimeout))
	e.Uint(uint64(cfg.Faults))
}

// EncodeCanon writes the member's canonical encoding (package canon):
// every field but seq, which only issues fresh correlation ids; awaitSeq
// as a correlation id; the timers' instants relative to the clock.
func (m *Member) EncodeCanon(e *canon.Encoder) {
	EncodeConfig(e, *m.cfg)
	e.Int(int64(m.state))
	e.Int(int64(m.epoch))
	e.Int(int64(m.interval))
	e.Strings(m.topics)
	e.Set(m.owned)
	e.Int(int64(m.ownedEpoch))
	e.Set(m.revoking)
	e.Set(m.target)
	e.Int(int64(m.targetEpoch))
	e.Bool(m.hasTarget)
	e.Bool(m.full)
	e.Strings(m.sentTopics)
	e.Bool(m.ownedReported)
	e.Seq(m.awaitSeq)
	for _, t := range m.timers {
		e.Bool(t.Armed)
		e.Instant(int64(t.At))
	}
}
