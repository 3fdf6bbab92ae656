package validate

import (
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestOffsetFencing is ConsumerGroup.validateOffsetCommit and
// validateOffsetFetch case by case.
func TestOffsetFencing(t *testing.T) {
	t0, t1, t2 := spec.TP("T", 0), spec.TP("T", 1), spec.TP("T", 2)
	group := Members{
		{ID: "A", Epoch: 5, PreviousEpoch: 4, AssignmentEpochs: []AssignmentEpoch{{t0, 3}, {t1, 5}}},
		{ID: "S", InstanceID: "s", Epoch: spec.StaticLeaveEpoch, PreviousEpoch: 3},
		{ID: "K", Epoch: 6, PreviousEpoch: 6, Classic: true, Protocols: []string{"range"}},
	}
	parkedOnly := Members{{ID: "S", InstanceID: "s", Epoch: spec.StaticLeaveEpoch}}
	id := func(s string) *spec.MemberID { m := spec.MemberID(s); return &m }
	all := spec.NewSet(t0, t1, t2)
	commits := []struct {
		name    string
		g       Group
		member  spec.MemberID
		epoch   spec.Epoch
		version int16
		want    spec.ErrorCode
		stale   spec.Set // the partitions of all refused one by one
	}{
		{"outside the group, no members", Members{}, "", -1, 9, spec.None, nil},
		{"outside the group, old version", Members{}, "", -1, 2, spec.None, nil},
		{"epoch 0 is not outside the group, no members", Members{}, "", 0, 9, spec.UnknownMemberID, nil},
		{"outside the group, a parked static member counts", parkedOnly, "", -1, 9, spec.UnknownMemberID, nil},
		{"outside the group, members", group, "", -1, 9, spec.UnknownMemberID, nil},
		{"current epoch", group, "A", 5, 9, spec.None, nil},
		{"current epoch, v10", group, "A", 5, 10, spec.None, nil},
		// KIP-1251: T-0 was assigned at 3, T-1 at 5, T-2 is not A's.
		{"previous epoch", group, "A", 4, 9, spec.None, spec.NewSet(t1, t2)},
		{"the epoch T-0 was assigned at", group, "A", 3, 9, spec.None, spec.NewSet(t1, t2)},
		{"before any assignment", group, "A", 2, 9, spec.None, all},
		{"leave epoch from a member", group, "A", -1, 9, spec.None, all},
		{"future epoch", group, "A", 6, 9, spec.StaleMemberEpoch, nil},
		{"below v9", group, "A", 5, 8, spec.UnsupportedVersion, nil},
		{"unknown member", group, "Z", 5, 9, spec.UnknownMemberID, nil},
		{"unknown member below v9", group, "Z", 5, 1, spec.UnknownMemberID, nil},
		{"parked static member", group, "S", spec.StaticLeaveEpoch, 9, spec.None, nil},
		{"classic member at its epoch [testValidateOffsetCommit]", group, "K", 6, 9, spec.None, nil},
		{"classic member below v9 [testValidateOffsetCommit]", group, "K", 6, 2, spec.None, nil},
		{"classic member at v0", group, "K", 6, 0, spec.None, nil},
		{"classic member, other generation [testValidateOffsetCommit]", group, "K", 10, 9, spec.IllegalGeneration, nil},
		{"classic member, previous generation below v9 (KIP-1251 keeps the exact rule)", group, "K", 5, 8, spec.IllegalGeneration, nil},
		{"classic member, generation -1", group, "K", -1, 9, spec.IllegalGeneration, nil},
	}
	for _, tc := range commits {
		got, stale := OffsetCommit(tc.g, tc.member, tc.epoch, tc.version, all, Semantics{})
		if got.Code != tc.want || !stale.Equal(tc.stale) {
			t.Errorf("OffsetCommit %s: got %s stale %s, want %s stale %s", tc.name, got, stale, tc.want, tc.stale)
		}
		// Before KAFKA-20066 (KIP-1251) only the current epoch is
		// accepted, for every partition.
		want := tc.want
		if tc.want == spec.None && tc.stale != nil {
			want = spec.StaleMemberEpoch
		}
		got, stale = OffsetCommit(tc.g, tc.member, tc.epoch, tc.version, all, Semantics{BeforeKafka20066: true})
		if got.Code != want || stale != nil {
			t.Errorf("OffsetCommit %s before KAFKA-20066: got %s stale %s, want %s", tc.name, got, stale, want)
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
	rej, _ := OffsetCommit(group, "K", 9, 3, all, Semantics{})
	checkRejection(t, rej, spec.IllegalGeneration,
		"The received generation id 9 does not match the expected member epoch 6.")
	rej, _ = OffsetCommit(group, "A", 9, 9, all, Semantics{})
	checkRejection(t, rej, spec.StaleMemberEpoch,
		"The received member epoch 9 is newer than the current member epoch 5.")
	rej, _ = OffsetCommit(group, "A", 4, 9, all, Semantics{BeforeKafka20066: true})
	checkRejection(t, rej, spec.StaleMemberEpoch,
		"The received member epoch 4 does not match the expected member epoch 5.")
	for _, tc := range fetches {
		if got := OffsetFetch(group, tc.member, tc.epoch); got.Code != tc.want {
			t.Errorf("OffsetFetch %s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}
