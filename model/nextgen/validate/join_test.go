package validate

import (
	"testing"

	"github.com/rebalance-ref/rebalance/model/nextgen/message"
	"github.com/rebalance-ref/rebalance/spec"
)

// group is the group the Join and Leave tables run against: a dynamic
// member m1, a static member m2 (instance i2) and a static member m3
// (instance i3) that left temporarily.
func group() Members {
	return Members{
		{ID: "m1", Epoch: 10, PreviousEpoch: 9, Assigned: spec.NewSet(foo(0, 1, 2)...)},
		{ID: "m2", InstanceID: "i2", Epoch: 10, PreviousEpoch: 9, Assigned: spec.NewSet(foo(3, 4)...)},
		{ID: "m3", InstanceID: "i3", Epoch: spec.StaticLeaveEpoch, PreviousEpoch: 10, Assigned: spec.NewSet(foo(5)...)},
	}
}

// classicHolder is group() with m2, the holder of instance i2, a classic
// member (it uses the classic protocol inside the consumer group).
func classicHolder() Members {
	g := group()
	g[1].Classic = true
	return g
}

// TestJoin has a row per rule of Join, named after the Kafka
// GroupMetadataManagerTest test that covers it where one exists.
func TestJoin(t *testing.T) {
	before := Semantics{BeforeKafka19233: true}
	tests := []struct {
		name    string
		g       Group
		r       message.HeartbeatRequest
		maxSize int
		sem     Semantics
		want    Decision
		code    spec.ErrorCode
		msg     string
	}{
		// The group.
		{name: "no group: epoch 0 creates it with a new member", g: nil, r: join("m1"),
			want: Decision{Kind: NewMember}},
		{name: "no group: epoch > 0 is GROUP_ID_NOT_FOUND [testUnknownGroupId]", g: nil, r: beat("m1", 100),
			code: spec.GroupIDNotFound, msg: "Consumer group g not found."},
		{name: "empty Members is an existing group: unknown id at epoch > 0", g: Members(nil), r: beat("m1", 1),
			code: spec.UnknownMemberID, msg: "Member m1 is not a member of group g."},

		// Maximum size.
		{name: "full group refuses a new member [testNewMemberIsRejectedWithMaximumMembersIsReached]", g: group(), maxSize: 3, r: join("m9"),
			code: spec.GroupMaxSizeReached, msg: "The consumer group has reached its maximum capacity of 3 members."},
		{name: "full group refuses a join without member id", g: group(), maxSize: 3, r: join(""),
			code: spec.GroupMaxSizeReached},
		{name: "full group still serves an existing member", g: group(), maxSize: 3, r: beat("m1", 10),
			want: Decision{Kind: ExistingMember, Member: "m1"}},
		{name: "full group checks size before the member: unknown id at epoch > 0 gets GROUP_MAX_SIZE_REACHED", g: group(), maxSize: 3, r: beat("m9", 10),
			code: spec.GroupMaxSizeReached},
		{name: "full group refuses a static replacement under a new member id", g: group(), maxSize: 3, r: static(join("m3b"), "i3"),
			code: spec.GroupMaxSizeReached},
		{name: "group below its maximum size admits a new member", g: group(), maxSize: 4, r: join("m9"),
			want: Decision{Kind: NewMember}},
		{name: "maxSize 0 means no limit", g: group(), maxSize: 0, r: join("m9"),
			want: Decision{Kind: NewMember}},

		// Dynamic members.
		{name: "dynamic new member at epoch 0 [testMemberIdGeneration]", g: group(), r: join(""),
			want: Decision{Kind: NewMember}},
		{name: "dynamic new member at epoch 0 with its own member id", g: group(), r: join("m9"),
			want: Decision{Kind: NewMember}},
		{name: "dynamic unknown member id at epoch > 0 is UNKNOWN_MEMBER_ID [testUnknownMemberIdJoinsConsumerGroup]", g: group(), r: beat("m9", 1),
			code: spec.UnknownMemberID, msg: "Member m9 is not a member of group g."},
		{name: "dynamic existing member at its epoch", g: group(), r: beat("m1", 10),
			want: Decision{Kind: ExistingMember, Member: "m1"}},
		{name: "dynamic existing member with a greater epoch is fenced [testConsumerGroupMemberEpochValidation]", g: group(), r: beat("m1", 11),
			code: spec.FencedMemberEpoch},
		{name: "dynamic existing member at its previous epoch with a subset (lost response) [testConsumerGroupMemberEpochValidation]", g: group(), r: owning(beat("m1", 9), foo(0)...),
			want: Decision{Kind: ExistingMember, Member: "m1"}},
		{name: "dynamic existing member at its previous epoch with null owned is fenced [testConsumerGroupMemberEpochValidation]", g: group(), r: beat("m1", 9),
			code: spec.FencedMemberEpoch},
		{name: "dynamic existing member rejoins at epoch 0 (KAFKA-19233) [testMemberCanRejoinWithEpochZeroInStableState]", g: group(), r: join("m1"),
			want: Decision{Kind: ExistingMember, Member: "m1"}},
		{name: "dynamic existing member rejoining at epoch 0 is fenced before KAFKA-19233", g: group(), r: join("m1"), sem: before,
			code: spec.FencedMemberEpoch},

		// Static members, epoch 0.
		{name: "static epoch 0 with an unused instance id is a new member [testGroupEpochBumpWhenNewStaticMemberJoins]", g: group(), r: static(join("m9"), "i9"),
			want: Decision{Kind: NewMember}},
		{name: "static epoch 0 with an instance id in use is UNRELEASED_INSTANCE_ID [testShouldThrownUnreleasedInstanceIdExceptionWhenNewMemberJoinsWithInUseInstanceId]", g: group(), r: static(join("m9"), "i2"),
			code: spec.UnreleasedInstanceID, msg: "Static member m9 with instance id i2 cannot join the group because the instance id is owned by m2 member."},
		{name: "static epoch 0 with the instance id of a classic member replaces it at once (getOrMaybeSubscribeStaticConsumerGroupMember)", g: classicHolder(), r: static(join("m9"), "i2"),
			want: Decision{Kind: ReplaceStatic, Member: "m2"}},
		{name: "static epoch 0 from the holder itself is UNRELEASED_INSTANCE_ID", g: group(), r: static(join("m2"), "i2"),
			code: spec.UnreleasedInstanceID},
		{name: "static epoch 0 from the holder itself is UNRELEASED_INSTANCE_ID before KAFKA-19233 too", g: group(), r: static(join("m2"), "i2"), sem: before,
			code: spec.UnreleasedInstanceID},
		{name: "static epoch 0 with the instance id held at -2 replaces the member [testStaticMemberGetsBackAssignmentUponRejoin]", g: group(), r: static(join("m3b"), "i3"),
			want: Decision{Kind: ReplaceStatic, Member: "m3"}},
		{name: "static epoch 0 with the instance id held at -2 replaces the member before KAFKA-19233 too", g: group(), r: static(join("m3b"), "i3"), sem: before,
			want: Decision{Kind: ReplaceStatic, Member: "m3"}},
		{name: "static epoch 0 with the instance id held at -2 by the same member id replaces it", g: group(), r: static(join("m3"), "i3"),
			want: Decision{Kind: ReplaceStatic, Member: "m3"}},
		{name: "static epoch 0 with an unused instance id and a known member id is that member, unchecked", g: group(), r: static(join("m1"), "i9"), sem: before,
			want: Decision{Kind: ExistingMember, Member: "m1"}},

		// Static members, epoch > 0.
		{name: "static epoch > 0 with an unknown instance id is UNKNOWN_MEMBER_ID [testShouldThrownUnknownMemberIdExceptionWhenUnknownStaticMemberJoins]", g: group(), r: static(beat("m9", 10), "i9"),
			code: spec.UnknownMemberID, msg: "Instance id i9 is unknown."},
		{name: "static epoch > 0 with another member id is FENCED_INSTANCE_ID [testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdJoins]", g: group(), r: static(beat("m9", 11), "i2"),
			code: spec.FencedInstanceID, msg: "Static member m9 with instance id i2 was fenced by member m2."},
		{name: "static epoch > 0 at its epoch is the existing member", g: group(), r: static(beat("m2", 10), "i2"),
			want: Decision{Kind: ExistingMember, Member: "m2"}},
		{name: "static epoch > 0 with a greater epoch is fenced [testConsumerGroupMemberEpochValidationForStaticMember]", g: group(), r: static(beat("m2", 20), "i2"),
			code: spec.FencedMemberEpoch},
		{name: "static epoch > 0 with a smaller epoch is fenced [testConsumerGroupMemberEpochValidationForStaticMember]", g: group(), r: static(beat("m2", 5), "i2"),
			code: spec.FencedMemberEpoch},
		{name: "static previous epoch with a subset is accepted [testConsumerGroupMemberEpochValidationForStaticMember]", g: group(), r: owning(static(beat("m2", 9), "i2"), foo(3)...),
			want: Decision{Kind: ExistingMember, Member: "m2"}},
		{name: "static previous epoch with null owned is fenced [testConsumerGroupMemberEpochValidationForStaticMember]", g: group(), r: static(beat("m2", 9), "i2"),
			code: spec.FencedMemberEpoch},
		{name: "static heartbeat to a member that left temporarily is fenced", g: group(), r: owning(static(beat("m3", 10), "i3"), foo(5)...),
			code: spec.FencedMemberEpoch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, rej := Join(tc.g, tc.r, tc.maxSize, tc.sem)
			checkRejection(t, rej, tc.code, tc.msg)
			if got != tc.want {
				t.Fatalf("decision %v, want %v", got, tc.want)
			}
		})
	}
}

func TestJoinAndLeavePanicOnMisuse(t *testing.T) {
	mustPanic(t, "Join with epoch -1", func() { Join(group(), beat("m1", spec.LeaveEpoch), 0, Semantics{}) })
	mustPanic(t, "Join with epoch -2", func() { Join(group(), static(beat("m2", spec.StaticLeaveEpoch), "i2"), 0, Semantics{}) })
	mustPanic(t, "Join with epoch -3", func() { Join(group(), beat("m1", -3), 0, Semantics{}) })
	mustPanic(t, "Leave with epoch 0", func() { Leave(group(), join("m1")) })
	mustPanic(t, "Leave with epoch 10", func() { Leave(group(), beat("m1", 10)) })
	broken := brokenView{group()}
	mustPanic(t, "Join with a view that loses an instance holder", func() { Join(broken, static(join("m9"), "i2"), 0, Semantics{}) })
	mustPanic(t, "Leave with a view that loses an instance holder", func() { Leave(broken, static(beat("m2", spec.LeaveEpoch), "i2")) })
}

// brokenView names m2 as the holder of i2 but does not know m2.
type brokenView struct{ Members }

func (b brokenView) Member(id spec.MemberID) (MemberInfo, bool) {
	if id == "m2" {
		return MemberInfo{}, false
	}
	return b.Members.Member(id)
}

func TestDeterministicAndNonAliasing(t *testing.T) {
	g := group()
	r := owning(static(beat("m2", 9), "i2"), foo(3)...)
	d1, rej1 := Join(g, r, 5, Semantics{})
	d2, rej2 := Join(g, r, 5, Semantics{})
	if d1 != d2 || rej1 != rej2 {
		t.Fatalf("Join is not deterministic: %v %v / %v %v", d1, rej1, d2, rej2)
	}
	want := group()
	for i := range g {
		if g[i].ID != want[i].ID || g[i].Epoch != want[i].Epoch || !g[i].Assigned.Equal(want[i].Assigned) {
			t.Fatalf("Join changed the group: %v", g)
		}
	}
}
