package validate

import (
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/nextgen/message"
	"github.com/rebalance-ref/rebalance/spec"
)

// Request checks a ConsumerGroupHeartbeat request on its own, before the
// coordinator looks at the group. It models
// GroupMetadataManager.throwIfConsumerGroupHeartbeatRequestIsInvalid: the
// checks run in Kafka's order, the first failure is reported, and the
// messages are Kafka's. All failures are INVALID_REQUEST except the last:
//
//   - an empty GroupId, or an InstanceId or RackId that is sent but empty;
//     as in Kafka (String.trim), a string of spaces and control characters
//     counts as empty;
//   - epoch > 0 or -1 (leave) with an empty MemberId;
//   - epoch 0 (join) without a RebalanceTimeoutMs (-1), with TopicPartitions
//     not sent or not empty, or with SubscribedTopicNames not sent or empty
//     (an empty MemberId is allowed at epoch 0: Kafka generates one);
//   - epoch -2 (static temporary leave) with an empty MemberId or a null
//     InstanceId;
//   - any other negative epoch ("MemberEpoch is invalid.");
//   - UNSUPPORTED_ASSIGNOR for a ServerAssignor that is sent and is not in
//     assignors (the coordinator's group.consumer.assignors, by name; the
//     message lists them in the given order).
//
// This snapshot of the protocol has no SubscribedTopicRegex field (Kafka
// then refused a non-null regex as "not supported yet").
func Request(r message.HeartbeatRequest, assignors []string) Rejection {
	if blank(r.GroupID) {
		return reject(spec.InvalidRequest, "GroupId can't be empty.")
	}
	if r.InstanceID != nil && blank(*r.InstanceID) {
		return reject(spec.InvalidRequest, "InstanceId can't be empty.")
	}
	if r.RackID != nil && blank(*r.RackID) {
		return reject(spec.InvalidRequest, "RackId can't be empty.")
	}
	switch e := r.MemberEpoch; {
	case e > 0 || e == spec.LeaveEpoch:
		if blank(string(r.MemberID)) {
			return reject(spec.InvalidRequest, "MemberId can't be empty.")
		}
	case e == 0:
		if r.RebalanceTimeoutMs == -1 {
			return reject(spec.InvalidRequest, "RebalanceTimeoutMs must be provided in first request.")
		}
		if !r.OwnedSent || !r.TopicPartitions.IsEmpty() {
			return reject(spec.InvalidRequest, "TopicPartitions must be empty when (re-)joining.")
		}
		if !r.SubscriptionSent || len(r.SubscribedTopicNames) == 0 {
			return reject(spec.InvalidRequest, "SubscribedTopicNames must be set in first request.")
		}
	case e == spec.StaticLeaveEpoch:
		if blank(string(r.MemberID)) {
			return reject(spec.InvalidRequest, "MemberId can't be empty.")
		}
		if r.InstanceID == nil {
			return reject(spec.InvalidRequest, "InstanceId can't be null.")
		}
	default:
		return reject(spec.InvalidRequest, "MemberEpoch is invalid.")
	}
	if r.ServerAssignor != nil && !slices.Contains(assignors, *r.ServerAssignor) {
		return reject(spec.UnsupportedAssignor, "ServerAssignor %s is not supported. Supported assignors: %s.",
			*r.ServerAssignor, strings.Join(assignors, ", "))
	}
	return Rejection{}
}

// blank reports whether s is empty once trimmed the way Java's String.trim
// trims: every leading and trailing character at or below U+0020.
func blank(s string) bool {
	return strings.TrimFunc(s, func(c rune) bool { return c <= ' ' }) == ""
}
