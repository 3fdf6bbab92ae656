package validate

import (
	"math"
	"testing"

	"github.com/rebalance-ref/rebalance/model/nextgen/message"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestRequest has a row per rule of Request. Rows covered by Kafka's
// GroupMetadataManagerTest.testConsumerHeartbeatRequestValidation carry
// its name.
func TestRequest(t *testing.T) {
	const kafkaTest = " [testConsumerHeartbeatRequestValidation]"
	assignors := []string{"range"}
	tests := []struct {
		name      string
		r         message.HeartbeatRequest
		assignors []string
		code      spec.ErrorCode
		msg       string
	}{
		// Accepted.
		{name: "join at epoch 0 is valid", r: join("m1")},
		{name: "join with an empty member id is valid (coordinator generates one)" + " [testMemberIdGeneration]", r: join("")},
		{name: "static join is valid", r: static(join("m1"), "i1")},
		{name: "regular heartbeat sending only its epoch is valid", r: beat("m1", 7)},
		{name: "regular heartbeat with owned partitions and rack is valid", r: with(owning(beat("m1", 7), foo(0, 1)...), func(r *message.HeartbeatRequest) { r.RackID = str("rack-a") })},
		{name: "leave at epoch -1 is valid", r: beat("m1", spec.LeaveEpoch)},
		{name: "static temporary leave at epoch -2 is valid", r: static(beat("m1", spec.StaticLeaveEpoch), "i1")},
		{name: "supported server assignor is valid", r: with(join("m1"), func(r *message.HeartbeatRequest) { r.ServerAssignor = str("range") })},

		// Strings.
		{name: "empty GroupId" + kafkaTest, r: with(join("m1"), func(r *message.HeartbeatRequest) { r.GroupID = "" }),
			code: spec.InvalidRequest, msg: "GroupId can't be empty."},
		{name: "all-whitespace GroupId counts as empty" + kafkaTest, r: with(join("m1"), func(r *message.HeartbeatRequest) { r.GroupID = "   " }),
			code: spec.InvalidRequest, msg: "GroupId can't be empty."},
		{name: "empty InstanceId" + kafkaTest, r: static(beat("m1", 1), ""),
			code: spec.InvalidRequest, msg: "InstanceId can't be empty."},
		{name: "whitespace InstanceId counts as empty", r: static(beat("m1", 1), " \t"),
			code: spec.InvalidRequest, msg: "InstanceId can't be empty."},
		{name: "empty RackId" + kafkaTest, r: with(beat("m1", 1), func(r *message.HeartbeatRequest) { r.RackID = str("") }),
			code: spec.InvalidRequest, msg: "RackId can't be empty."},
		{name: "GroupId is checked before the epoch rules", r: with(beat("", -7), func(r *message.HeartbeatRequest) { r.GroupID = "" }),
			code: spec.InvalidRequest, msg: "GroupId can't be empty."},

		// Epoch > 0 and -1.
		{name: "epoch > 0 with empty MemberId" + kafkaTest, r: beat("", 1),
			code: spec.InvalidRequest, msg: "MemberId can't be empty."},
		{name: "epoch -1 with empty MemberId", r: beat("", spec.LeaveEpoch),
			code: spec.InvalidRequest, msg: "MemberId can't be empty."},
		{name: "epoch > 0 with whitespace MemberId", r: beat(" ", 3),
			code: spec.InvalidRequest, msg: "MemberId can't be empty."},

		// Epoch 0.
		{name: "epoch 0 without RebalanceTimeoutMs" + kafkaTest, r: with(join("m1"), func(r *message.HeartbeatRequest) { r.RebalanceTimeoutMs = -1 }),
			code: spec.InvalidRequest, msg: "RebalanceTimeoutMs must be provided in first request."},
		{name: "epoch 0 with TopicPartitions not sent" + kafkaTest, r: with(join("m1"), func(r *message.HeartbeatRequest) { r.OwnedSent = false }),
			code: spec.InvalidRequest, msg: "TopicPartitions must be empty when (re-)joining."},
		{name: "epoch 0 with non-empty TopicPartitions", r: owning(join("m1"), foo(0)...),
			code: spec.InvalidRequest, msg: "TopicPartitions must be empty when (re-)joining."},
		{name: "epoch 0 with SubscribedTopicNames not sent" + kafkaTest, r: with(join("m1"), func(r *message.HeartbeatRequest) {
			r.SubscriptionSent, r.SubscribedTopicNames = false, nil
		}),
			code: spec.InvalidRequest, msg: "SubscribedTopicNames must be set in first request."},
		{name: "epoch 0 with empty SubscribedTopicNames", r: with(join("m1"), func(r *message.HeartbeatRequest) { r.SubscribedTopicNames = []string{} }),
			code: spec.InvalidRequest, msg: "SubscribedTopicNames must be set in first request."},

		// Epoch -2.
		{name: "epoch -2 with empty MemberId", r: static(beat("", spec.StaticLeaveEpoch), "i1"),
			code: spec.InvalidRequest, msg: "MemberId can't be empty."},
		{name: "epoch -2 with null InstanceId" + kafkaTest, r: beat("m1", spec.StaticLeaveEpoch),
			code: spec.InvalidRequest, msg: "InstanceId can't be null."},

		// Other negative epochs.
		{name: "epoch -3 is invalid", r: beat("m1", -3),
			code: spec.InvalidRequest, msg: "MemberEpoch is invalid."},
		{name: "most negative epoch is invalid", r: beat("m1", math.MinInt32),
			code: spec.InvalidRequest, msg: "MemberEpoch is invalid."},

		// Server assignor.
		{name: "unsupported ServerAssignor" + kafkaTest, r: with(beat("m1", 1), func(r *message.HeartbeatRequest) { r.ServerAssignor = str("bar") }),
			code: spec.UnsupportedAssignor, msg: "ServerAssignor bar is not supported. Supported assignors: range."},
		{name: "unsupported ServerAssignor lists every supported one in order", r: with(beat("m1", 1), func(r *message.HeartbeatRequest) { r.ServerAssignor = str("sticky") }),
			assignors: []string{"uniform", "range"},
			code:      spec.UnsupportedAssignor, msg: "ServerAssignor sticky is not supported. Supported assignors: uniform, range."},
		{name: "ServerAssignor is checked after the epoch rules", r: with(beat("m1", -5), func(r *message.HeartbeatRequest) { r.ServerAssignor = str("bar") }),
			code: spec.InvalidRequest, msg: "MemberEpoch is invalid."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			as := assignors
			if tc.assignors != nil {
				as = tc.assignors
			}
			checkRejection(t, Request(tc.r, as), tc.code, tc.msg)
		})
	}
}
