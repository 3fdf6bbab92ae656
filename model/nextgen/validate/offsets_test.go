package validate

import (
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestOffsetFencing is ConsumerGroup.validateOffsetCommit and
// validateOffsetFetch case by case.
func TestOffsetFencing(t *testing.T) {
	group := Members{
		{ID: "A", Epoch: 5, PreviousEpoch: 4},
		{ID: "S", InstanceID: "s", Epoch: spec.StaticLeaveEpoch, PreviousEpoch: 3},
		{ID: "K", Epoch: 6, PreviousEpoch: 6, Classic: true, Protocols: []string{"range"}},
	}
	parkedOnly := Members{{ID: "S", InstanceID: "s", Epoch: spec.StaticLeaveEpoch}}
	id := func(s string) *spec.MemberID { m := spec.MemberID(s); return &m }
	commits := []struct {
		name    string
		g       Group
		member  spec.MemberID
		epoch   spec.Epoch
		version int16
		want    spec.ErrorCode
	}{
		{"outside the group, no members", Members{}, "", -1, 9, spec.None},
		{"outside the group, old version", Members{}, "", -1, 2, spec.None},
		{"epoch 0 is not outside the group, no members", Members{}, "", 0, 9, spec.UnknownMemberID},
		{"outside the group, a parked static member counts", parkedOnly, "", -1, 9, spec.UnknownMemberID},
		{"outside the group, members", group, "", -1, 9, spec.UnknownMemberID},
		{"current epoch", group, "A", 5, 9, spec.None},
		{"current epoch, v10", group, "A", 5, 10, spec.None},
		{"previous epoch", group, "A", 4, 9, spec.StaleMemberEpoch},
		{"future epoch", group, "A", 6, 9, spec.StaleMemberEpoch},
		{"below v9", group, "A", 5, 8, spec.UnsupportedVersion},
		{"unknown member", group, "Z", 5, 9, spec.UnknownMemberID},
		{"unknown member below v9", group, "Z", 5, 1, spec.UnknownMemberID},
		{"parked static member", group, "S", spec.StaticLeaveEpoch, 9, spec.None},
		{"classic member at its epoch [testValidateOffsetCommit]", group, "K", 6, 9, spec.None},
		{"classic member below v9 [testValidateOffsetCommit]", group, "K", 6, 2, spec.None},
		{"classic member at v0", group, "K", 6, 0, spec.None},
		{"classic member, other generation [testValidateOffsetCommit]", group, "K", 10, 9, spec.IllegalGeneration},
		{"classic member, previous generation below v9", group, "K", 5, 8, spec.IllegalGeneration},
		{"classic member, generation -1", group, "K", -1, 9, spec.IllegalGeneration},
	}
	for _, tc := range commits {
		if got := OffsetCommit(tc.g, tc.member, tc.epoch, tc.version); got.Code != tc.want {
			t.Errorf("OffsetCommit %s: got %s, want %s", tc.name, got, tc.want)
		}
	}
	fetches := []struct {
		name   string
		member *spec.MemberID
		epoch  spec.Epoch
		want   spec.ErrorCode
	}{
		{"outside the group", nil, -1, spec.None},
		{"null member with an epoch", nil, 5, spec.UnknownMemberID},
		{"null member with epoch 0", nil, 0, spec.UnknownMemberID},
		{"current epoch", id("A"), 5, spec.None},
		{"stale epoch", id("A"), 4, spec.StaleMemberEpoch},
		{"member id with -1", id("A"), -1, spec.StaleMemberEpoch},
		{"unknown member", id("Z"), 5, spec.UnknownMemberID},
		{"classic member at its generation", id("K"), 6, spec.None},
		{"classic member, other generation", id("K"), 7, spec.IllegalGeneration},
	}
	checkRejection(t, OffsetCommit(group, "K", 9, 3), spec.IllegalGeneration,
		"The received generation id 9 does not match the expected member epoch 6.")
	checkRejection(t, OffsetCommit(group, "A", 9, 9), spec.StaleMemberEpoch,
		"The received member epoch 9 does not match the expected member epoch 5.")
	for _, tc := range fetches {
		if got := OffsetFetch(group, tc.member, tc.epoch); got.Code != tc.want {
			t.Errorf("OffsetFetch %s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}
