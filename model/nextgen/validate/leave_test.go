package validate

import (
	"testing"

	"github.com/rebalance-ref/rebalance/model/nextgen/message"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestLeave has a row per rule of Leave, named after the Kafka
// GroupMetadataManagerTest test that covers it where one exists.
func TestLeave(t *testing.T) {
	tests := []struct {
		name string
		g    Group
		r    message.HeartbeatRequest
		want LeaveDecision
		code spec.ErrorCode
		msg  string
	}{
		{name: "no group is GROUP_ID_NOT_FOUND", g: nil, r: beat("m1", spec.LeaveEpoch),
			code: spec.GroupIDNotFound, msg: "Group g not found."},
		{name: "dynamic member leaving is fenced [testLeavingMemberBumpsGroupEpoch]", g: group(), r: beat("m1", spec.LeaveEpoch),
			want: LeaveDecision{Kind: Fence, Member: "m1"}},
		{name: "dynamic unknown member leaving is UNKNOWN_MEMBER_ID", g: group(), r: beat("m9", spec.LeaveEpoch),
			code: spec.UnknownMemberID, msg: "Member m9 is not a member of group g."},
		{name: "static member leaving with -2 leaves temporarily [testNoGroupEpochBumpWhenStaticMemberTemporarilyLeaves]", g: group(), r: static(beat("m2", spec.StaticLeaveEpoch), "i2"),
			want: LeaveDecision{Kind: StaticTemporaryLeave, Member: "m2"}},
		{name: "static member leaving with -1 is fenced [testLeavingStaticMemberBumpsGroupEpoch]", g: group(), r: static(beat("m2", spec.LeaveEpoch), "i2"),
			want: LeaveDecision{Kind: Fence, Member: "m2"}},
		{name: "static leave with an unknown instance id is UNKNOWN_MEMBER_ID [testShouldThrowUnknownMemberIdExceptionWhenUnknownStaticMemberLeaves]", g: group(), r: static(beat("m2", spec.StaticLeaveEpoch), "unknown-i2"),
			code: spec.UnknownMemberID, msg: "Instance id unknown-i2 is unknown."},
		{name: "static -1 leave with an unknown instance id is UNKNOWN_MEMBER_ID", g: group(), r: static(beat("m2", spec.LeaveEpoch), "unknown-i2"),
			code: spec.UnknownMemberID, msg: "Instance id unknown-i2 is unknown."},
		{name: "static leave with another member id is FENCED_INSTANCE_ID [testShouldThrowFencedInstanceIdExceptionWhenStaticMemberWithDifferentMemberIdLeaves]", g: group(), r: static(beat("unknown-m2", spec.StaticLeaveEpoch), "i2"),
			code: spec.FencedInstanceID, msg: "Static member unknown-m2 with instance id i2 was fenced by member m2."},
		{name: "static -1 leave with another member id is FENCED_INSTANCE_ID", g: group(), r: static(beat("m1", spec.LeaveEpoch), "i2"),
			code: spec.FencedInstanceID},
		{name: "static member already at -2 may leave temporarily again", g: group(), r: static(beat("m3", spec.StaticLeaveEpoch), "i3"),
			want: LeaveDecision{Kind: StaticTemporaryLeave, Member: "m3"}},
		{name: "static member at -2 leaving with -1 is fenced", g: group(), r: static(beat("m3", spec.LeaveEpoch), "i3"),
			want: LeaveDecision{Kind: Fence, Member: "m3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, rej := Leave(tc.g, tc.r)
			checkRejection(t, rej, tc.code, tc.msg)
			if got != tc.want {
				t.Fatalf("decision %v, want %v", got, tc.want)
			}
		})
	}
}
