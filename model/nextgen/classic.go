package nextgen

import "github.com/rebalance-ref/rebalance/model/classic"

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

func (Classic) isMessage() {}

// String prints "classic " followed by the classic message on one line.
func (m Classic) String() string {
	if m.Msg == nil {
		return "classic <nil>"
	}
	return "classic " + m.Msg.String()
}
