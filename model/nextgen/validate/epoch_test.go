package validate

import (
	"testing"

	"github.com/rebalance-ref/rebalance/model/nextgen/message"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestMemberEpoch has a row per rule of MemberEpoch. The member is the one
// of Kafka's testConsumerGroupMemberEpochValidation: epoch 100, previous
// epoch 99, assigned foo-1, foo-2, foo-3.
func TestMemberEpoch(t *testing.T) {
	const kafkaTest = " [testConsumerGroupMemberEpochValidation]"
	m := MemberInfo{ID: "m1", Epoch: 100, PreviousEpoch: 99, Assigned: spec.NewSet(foo(1, 2, 3)...)}
	fresh := MemberInfo{ID: "m1", Epoch: 0, PreviousEpoch: -1}
	firstBumpLost := MemberInfo{ID: "m1", Epoch: 1, PreviousEpoch: 0}
	departed := MemberInfo{ID: "m1", InstanceID: "i1", Epoch: spec.StaticLeaveEpoch, PreviousEpoch: 100, Assigned: spec.NewSet(foo(1)...)}
	before := Semantics{BeforeKafka19233: true}
	const (
		greater = "The consumer group member has a greater member epoch (200) than the one known by the group coordinator (100). The member must abandon all its partitions and rejoin."
		smaller = "The consumer group member has a smaller member epoch (50) than the one known by the group coordinator (100). The member must abandon all its partitions and rejoin."
	)
	tests := []struct {
		name string
		info MemberInfo
		r    message.HeartbeatRequest
		sem  Semantics
		code spec.ErrorCode
		msg  string
	}{
		{name: "same epoch is accepted", info: m, r: beat("m1", 100)},
		{name: "same epoch with owned partitions outside the assignment is still accepted (reconciliation's business)", info: m, r: owning(beat("m1", 100), foo(7)...)},
		{name: "greater epoch is fenced" + kafkaTest, info: m, r: beat("m1", 200),
			code: spec.FencedMemberEpoch, msg: greater},
		{name: "smaller epoch is fenced" + kafkaTest, info: m, r: beat("m1", 50),
			code: spec.FencedMemberEpoch, msg: smaller},

		// Lost-response tolerance.
		{name: "previous epoch with a subset of the assignment is accepted (lost response)" + kafkaTest, info: m, r: owning(beat("m1", 99), foo(1, 2)...)},
		{name: "previous epoch with the whole assignment is accepted", info: m, r: owning(beat("m1", 99), foo(1, 2, 3)...)},
		{name: "previous epoch with an empty owned list is accepted (empty is a subset)", info: m, r: owning(beat("m1", 99))},
		{name: "previous epoch with an unsorted subset is accepted", info: m, r: owning(beat("m1", 99), spec.TP("foo", 3), spec.TP("foo", 1))},
		{name: "previous epoch with null owned is fenced" + kafkaTest, info: m, r: beat("m1", 99),
			code: spec.FencedMemberEpoch},
		{name: "previous epoch with a partition not in Assigned is fenced", info: m, r: owning(beat("m1", 99), foo(1, 4)...),
			code: spec.FencedMemberEpoch},
		{name: "previous epoch with a partition of an unassigned topic is fenced", info: m, r: owning(beat("m1", 99), spec.TP("bar", 1)),
			code: spec.FencedMemberEpoch},
		{name: "two epochs behind is fenced even with a subset", info: m, r: owning(beat("m1", 98), foo(1)...),
			code: spec.FencedMemberEpoch},

		// Static member that left temporarily.
		{name: "any regular heartbeat to a member at -2 is fenced (greater epoch)", info: departed, r: owning(static(beat("m1", 100), "i1"), foo(1)...),
			code: spec.FencedMemberEpoch},

		// Epoch 0 and KAFKA-19233.
		{name: "epoch 0 of a new member is accepted", info: fresh, r: join("m1")},
		{name: "epoch 0 of a new member is accepted before KAFKA-19233 too", info: fresh, r: join("m1"), sem: before},
		{name: "existing member rejoining at epoch 0 is accepted (KAFKA-19233) [testMemberCanRejoinWithEpochZeroInStableState]", info: m, r: join("m1")},
		{name: "existing member rejoining at epoch 0 is fenced before KAFKA-19233", info: m, r: join("m1"), sem: before,
			code: spec.FencedMemberEpoch, msg: "The consumer group member has a smaller member epoch (0) than the one known by the group coordinator (100). The member must abandon all its partitions and rejoin."},
		{name: "before KAFKA-19233 epoch 0 passes as the previous epoch when the first bump was lost", info: firstBumpLost, r: join("m1"), sem: before},
		{name: "epoch 0 to a member at -2 is accepted by the check (KAFKA-19233)", info: departed, r: static(join("m1"), "i1")},
		{name: "epoch 0 to a member at -2 is fenced before KAFKA-19233 (greater epoch)", info: departed, r: static(join("m1"), "i1"), sem: before,
			code: spec.FencedMemberEpoch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkRejection(t, MemberEpoch(tc.info, tc.r, tc.sem), tc.code, tc.msg)
		})
	}
}
