// Package nextgen is the next-generation consumer group protocol (KIP-848):
// the coordinator owns the assignment logic and members only heartbeat with
// their epoch and what they own. This package holds both nodes, the member
// (member*.go) and the group coordinator (coordinator*.go), as package
// classic holds the classic protocol's two; the pure sub-algorithms the
// coordinator is composed from live in sub-packages (reconcile: the member
// reconciliation state machine; target: the target assignment; validate:
// request validation and epoch fencing), and the messages in package
// message, below them all, so that validate can read a heartbeat without
// importing the coordinator that calls it.
package nextgen

import "github.com/rebalance-ref/rebalance/model/nextgen/message"

// The protocol's messages, defined in package message (see its
// documentation for each).
type (
	// Message is a request or response of the protocol.
	Message = message.Message
	// HeartbeatRequest is ConsumerGroupHeartbeatRequest (apiKey 68).
	HeartbeatRequest = message.HeartbeatRequest
	// HeartbeatResponse is ConsumerGroupHeartbeatResponse.
	HeartbeatResponse = message.HeartbeatResponse
	// OffsetCommitRequest is the fencing half of OffsetCommit.
	OffsetCommitRequest = message.OffsetCommitRequest
	// OffsetFetchRequest is the fencing half of OffsetFetch.
	OffsetFetchRequest = message.OffsetFetchRequest
	// OffsetResponse answers an OffsetCommitRequest or an
	// OffsetFetchRequest.
	OffsetResponse = message.OffsetResponse
	// Classic carries one message of the classic group protocol between a
	// classic member and a consumer-group coordinator.
	Classic = message.Classic
)
