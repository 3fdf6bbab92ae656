package reconcile

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rebalance-ref/rebalance/spec"
)

// mk builds a set from partitions of the two topics of Kafka's tests:
// foo stands for topicId1 and bar for topicId2.
func mk(foo []int32, bar []int32) spec.Set {
	var rs []spec.Resource
	for _, p := range foo {
		rs = append(rs, spec.TP("foo", p))
	}
	for _, p := range bar {
		rs = append(rs, spec.TP("bar", p))
	}
	return spec.NewSet(rs...)
}

func ps(p ...int32) []int32 { return p }

// Ownership functions of Kafka's tests (withCurrentPartitionEpoch).
var (
	// nobody: every partition epoch is -1.
	nobody = func(spec.Resource) bool { return false }
	// everyone: every partition has an epoch (10 or 11 in Kafka's tests).
	everyone = func(spec.Resource) bool { return true }
	// barOnly: partitions of bar (topicId2) have epoch 10, others -1.
	barOnly = func(r spec.Resource) bool { return r.Topic == "bar" }
)

// sent returns the Owned and OwnedSent fields of a heartbeat that carried s.
func sent(s spec.Set) (spec.Set, bool) { return s, true }

var equateEmpty = cmpopts.EquateEmpty()

// TestKafkaCurrentAssignmentBuilder reproduces apache/kafka's
// CurrentAssignmentBuilderTest (group-coordinator/src/test/.../modern/
// consumer/CurrentAssignmentBuilderTest.java, October 2024 snapshot), one
// row per test and per build() call, with Kafka's names.
func TestKafkaCurrentAssignmentBuilder(t *testing.T) {
	withOwned := func(in Input, s spec.Set) Input {
		in.Owned, in.OwnedSent = sent(s)
		return in
	}
	for _, tc := range []struct {
		name string
		m    Member
		in   Input
		want Member
		// unchanged: build() returns the member itself.
		unchanged bool
		err       error
	}{
		{
			name: "testStableToStable",
			m:    Member{State: Stable, Epoch: 10, PreviousEpoch: 10, Assigned: mk(ps(1, 2, 3), ps(4, 5, 6))},
			in:   Input{TargetEpoch: 11, Target: mk(ps(1, 2, 3), ps(4, 5, 6)), PartitionOwned: everyone},
			want: Member{State: Stable, Epoch: 11, PreviousEpoch: 10, Assigned: mk(ps(1, 2, 3), ps(4, 5, 6))},
		},
		{
			name: "testStableToStableWithNewPartitions",
			m:    Member{State: Stable, Epoch: 10, PreviousEpoch: 10, Assigned: mk(ps(1, 2, 3), ps(4, 5, 6))},
			in:   Input{TargetEpoch: 11, Target: mk(ps(1, 2, 3, 4), ps(4, 5, 6, 7)), PartitionOwned: nobody},
			want: Member{State: Stable, Epoch: 11, PreviousEpoch: 10, Assigned: mk(ps(1, 2, 3, 4), ps(4, 5, 6, 7))},
		},
		{
			name: "testStableToUnrevokedPartitions",
			m:    Member{State: Stable, Epoch: 10, PreviousEpoch: 10, Assigned: mk(ps(1, 2, 3), ps(4, 5, 6))},
			in:   Input{TargetEpoch: 11, Target: mk(ps(2, 3, 4), ps(5, 6, 7)), PartitionOwned: nobody},
			want: Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10,
				Assigned: mk(ps(2, 3), ps(5, 6)), PendingRevocation: mk(ps(1), ps(4))},
		},
		{
			name: "testStableToUnreleasedPartitions",
			m:    Member{State: Stable, Epoch: 10, PreviousEpoch: 10, Assigned: mk(ps(1, 2, 3), ps(4, 5, 6))},
			in:   Input{TargetEpoch: 11, Target: mk(ps(1, 2, 3, 4), ps(4, 5, 6, 7)), PartitionOwned: everyone},
			want: Member{State: UnreleasedPartitions, Epoch: 11, PreviousEpoch: 10, Assigned: mk(ps(1, 2, 3), ps(4, 5, 6))},
		},
		{
			// bar-6 must be revoked, but the heartbeat already shows it gone,
			// so the member skips UNREVOKED_PARTITIONS; bar-7 is still held.
			name: "testStableToUnreleasedPartitionsWithOwnedPartitionsNotHavingRevokedPartitions",
			m:    Member{State: Stable, Epoch: 10, PreviousEpoch: 10, Assigned: mk(ps(1, 2, 3), ps(4, 5, 6))},
			in: withOwned(Input{TargetEpoch: 11, Target: mk(ps(1, 2, 3), ps(4, 5, 7)), PartitionOwned: barOnly},
				nil),
			want: Member{State: UnreleasedPartitions, Epoch: 11, PreviousEpoch: 10, Assigned: mk(ps(1, 2, 3), ps(4, 5))},
		},
		{
			name: "testUnrevokedPartitionsToStable",
			m: Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10,
				Assigned: mk(ps(2, 3), ps(5, 6)), PendingRevocation: mk(ps(1), ps(4))},
			in: withOwned(Input{TargetEpoch: 11, Target: mk(ps(2, 3), ps(5, 6)), PartitionOwned: nobody},
				mk(ps(2, 3), ps(5, 6))),
			want: Member{State: Stable, Epoch: 11, PreviousEpoch: 10, Assigned: mk(ps(2, 3), ps(5, 6))},
		},
		{
			name: "testRemainsInUnrevokedPartitions/owned-null",
			m: Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10,
				Assigned: mk(ps(2, 3), ps(5, 6)), PendingRevocation: mk(ps(1), ps(4))},
			in:        Input{TargetEpoch: 12, Target: mk(ps(3), ps(6)), PartitionOwned: nobody},
			unchanged: true,
		},
		{
			name: "testRemainsInUnrevokedPartitions/still-owns-foo-1",
			m: Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10,
				Assigned: mk(ps(2, 3), ps(5, 6)), PendingRevocation: mk(ps(1), ps(4))},
			in: withOwned(Input{TargetEpoch: 12, Target: mk(ps(3), ps(6)), PartitionOwned: nobody},
				mk(ps(1, 2, 3), ps(5, 6))),
			unchanged: true,
		},
		{
			name: "testRemainsInUnrevokedPartitions/still-owns-bar-4",
			m: Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10,
				Assigned: mk(ps(2, 3), ps(5, 6)), PendingRevocation: mk(ps(1), ps(4))},
			in: withOwned(Input{TargetEpoch: 12, Target: mk(ps(3), ps(6)), PartitionOwned: nobody},
				mk(ps(2, 3), ps(4, 5, 6))),
			unchanged: true,
		},
		{
			// One epoch at a time: 10 -> 11, not to the target 12.
			name: "testUnrevokedPartitionsToUnrevokedPartitions",
			m: Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10,
				Assigned: mk(ps(2, 3), ps(5, 6)), PendingRevocation: mk(ps(1), ps(4))},
			in: withOwned(Input{TargetEpoch: 12, Target: mk(ps(3), ps(6)), PartitionOwned: nobody},
				mk(ps(2, 3), ps(5, 6))),
			want: Member{State: UnrevokedPartitions, Epoch: 11, PreviousEpoch: 10,
				Assigned: mk(ps(3), ps(6)), PendingRevocation: mk(ps(2), ps(5))},
		},
		{
			name: "testUnrevokedPartitionsToUnreleasedPartitions",
			m:    Member{State: UnrevokedPartitions, Epoch: 11, PreviousEpoch: 10, Assigned: mk(ps(2, 3), ps(5, 6))},
			in: withOwned(Input{TargetEpoch: 11, Target: mk(ps(2, 3, 4), ps(5, 6, 7)), PartitionOwned: everyone},
				mk(ps(2, 3), ps(5, 6))),
			want: Member{State: UnreleasedPartitions, Epoch: 11, PreviousEpoch: 11, Assigned: mk(ps(2, 3), ps(5, 6))},
		},
		{
			name: "testUnreleasedPartitionsToStable",
			m:    Member{State: UnreleasedPartitions, Epoch: 11, PreviousEpoch: 11, Assigned: mk(ps(2, 3), ps(5, 6))},
			in:   Input{TargetEpoch: 12, Target: mk(ps(2, 3), ps(5, 6)), PartitionOwned: everyone},
			want: Member{State: Stable, Epoch: 12, PreviousEpoch: 11, Assigned: mk(ps(2, 3), ps(5, 6))},
		},
		{
			name: "testUnreleasedPartitionsToStableWithNewPartitions",
			m:    Member{State: UnreleasedPartitions, Epoch: 11, PreviousEpoch: 11, Assigned: mk(ps(2, 3), ps(5, 6))},
			in:   Input{TargetEpoch: 11, Target: mk(ps(2, 3, 4), ps(5, 6, 7)), PartitionOwned: nobody},
			want: Member{State: Stable, Epoch: 11, PreviousEpoch: 11, Assigned: mk(ps(2, 3, 4), ps(5, 6, 7))},
		},
		{
			// Kafka asserts the result equals the member: here the epoch
			// update 11 -> 11 leaves PreviousEpoch at 11 as well.
			name: "testUnreleasedPartitionsToUnreleasedPartitions",
			m:    Member{State: UnreleasedPartitions, Epoch: 11, PreviousEpoch: 11, Assigned: mk(ps(2, 3), ps(5, 6))},
			in:   Input{TargetEpoch: 11, Target: mk(ps(2, 3, 4), ps(5, 6, 7)), PartitionOwned: everyone},
			want: Member{State: UnreleasedPartitions, Epoch: 11, PreviousEpoch: 11, Assigned: mk(ps(2, 3), ps(5, 6))},
		},
		{
			name: "testUnreleasedPartitionsToUnrevokedPartitions",
			m:    Member{State: UnreleasedPartitions, Epoch: 11, PreviousEpoch: 11, Assigned: mk(ps(2, 3), ps(5, 6))},
			in:   Input{TargetEpoch: 12, Target: mk(ps(3), ps(6)), PartitionOwned: everyone},
			want: Member{State: UnrevokedPartitions, Epoch: 11, PreviousEpoch: 11,
				Assigned: mk(ps(3), ps(6)), PendingRevocation: mk(ps(2), ps(5))},
		},
		{
			name: "testUnknownState/owned-null",
			m: Member{State: Unknown, Epoch: 11, PreviousEpoch: 11,
				Assigned: mk(ps(3), ps(6)), PendingRevocation: mk(ps(2), ps(5))},
			in:        Input{TargetEpoch: 12, Target: mk(ps(3), ps(6)), PartitionOwned: everyone},
			unchanged: true,
			err:       ErrFencedMemberEpoch,
		},
		{
			// Not in Kafka's test: a non-empty owned list fences as well.
			name: "testUnknownState/owned-non-empty",
			m: Member{State: Unknown, Epoch: 11, PreviousEpoch: 11,
				Assigned: mk(ps(3), ps(6)), PendingRevocation: mk(ps(2), ps(5))},
			in:        withOwned(Input{TargetEpoch: 12, Target: mk(ps(3), ps(6)), PartitionOwned: everyone}, mk(ps(3), nil)),
			unchanged: true,
			err:       ErrFencedMemberEpoch,
		},
		{
			name: "testUnknownState/owned-empty",
			m: Member{State: Unknown, Epoch: 11, PreviousEpoch: 11,
				Assigned: mk(ps(3), ps(6)), PendingRevocation: mk(ps(2), ps(5))},
			in:   withOwned(Input{TargetEpoch: 12, Target: mk(ps(3), ps(6)), PartitionOwned: everyone}, nil),
			want: Member{State: Stable, Epoch: 12, PreviousEpoch: 11, Assigned: mk(ps(3), ps(6))},
		},
		{
			// A byte this coordinator does not know behaves as UNKNOWN
			// (MemberState.fromValue).
			name: "unknownByteIsUnknown",
			m:    Member{State: State(3), Epoch: 11, PreviousEpoch: 11, Assigned: mk(ps(3), ps(6))},
			in:   Input{TargetEpoch: 12, Target: mk(ps(3), ps(6)), PartitionOwned: everyone},
			// unchanged and fenced
			unchanged: true,
			err:       ErrFencedMemberEpoch,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if tc.unchanged {
				want = tc.m
			}
			got, err := Next(tc.m, tc.in)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("Next: error %v, want %v", err, tc.err)
			}
			if d := cmp.Diff(want, got, equateEmpty); d != "" {
				t.Fatalf("Next(%s) (-want +got):\n%s", tc.m, d)
			}
			if err := got.Validate(); err != nil {
				t.Fatalf("result breaks an invariant: %v", err)
			}
		})
	}
}

// TestKafka19449 shows the difference KAFKA-19449 makes, with Kafka's
// testUnrevokedPartitionsToStableWithReturnedPartitionsPendingRevocation:
// foo-4 is pending revocation by the member, the member has released it,
// and it comes back in the new target while its partition epoch is still
// the member's. Today the member gets it back at once and is STABLE; before
// the fix it first waits in UNRELEASED_PARTITIONS for its own release to be
// recorded, and gets foo-4 one step later.
func TestKafka19449(t *testing.T) {
	m := Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 10,
		Assigned: mk(ps(2, 3), ps(5, 6)), PendingRevocation: mk(ps(4), nil)}
	held := mk(ps(2, 3, 4), ps(5, 6)) // Assigned ∪ PendingRevocation: epoch 10
	in := Input{
		TargetEpoch:    12,
		Target:         mk(ps(2, 3, 4), ps(5, 6, 7)),
		Owned:          mk(ps(2, 3), ps(5, 6)),
		OwnedSent:      true,
		PartitionOwned: held.Contains,
	}

	got, err := Next(m, in)
	if err != nil {
		t.Fatal(err)
	}
	want := Member{State: Stable, Epoch: 12, PreviousEpoch: 10, Assigned: mk(ps(2, 3, 4), ps(5, 6, 7))}
	if d := cmp.Diff(want, got, equateEmpty); d != "" {
		t.Fatalf("default semantics (-want +got):\n%s", d)
	}

	in.Semantics.BeforeKafka19449 = true
	got, err = Next(m, in)
	if err != nil {
		t.Fatal(err)
	}
	want = Member{State: UnreleasedPartitions, Epoch: 12, PreviousEpoch: 10, Assigned: mk(ps(2, 3), ps(5, 6, 7))}
	if d := cmp.Diff(want, got, equateEmpty); d != "" {
		t.Fatalf("BeforeKafka19449 (-want +got):\n%s", d)
	}
	// Once the coordinator has recorded the step, foo-4 is free (its epoch
	// entry left with the pending revocation) and the member converges.
	in.PartitionOwned = got.Assigned.Union(got.PendingRevocation).Contains
	in.Owned = got.Assigned
	got, err = Next(got, in)
	if err != nil {
		t.Fatal(err)
	}
	want = Member{State: Stable, Epoch: 12, PreviousEpoch: 12, Assigned: mk(ps(2, 3, 4), ps(5, 6, 7))}
	if d := cmp.Diff(want, got, equateEmpty); d != "" {
		t.Fatalf("BeforeKafka19449, second step (-want +got):\n%s", d)
	}
}

// TestNextRejectsMisuse: caller misuse is an error wrapping ErrInvalidInput
// and leaves the member as it was.
func TestNextRejectsMisuse(t *testing.T) {
	ok := Member{State: Stable, Epoch: 3, PreviousEpoch: 2, Assigned: mk(ps(1), nil)}
	base := Input{TargetEpoch: 4, Target: mk(ps(1, 2), nil), PartitionOwned: nobody}
	for _, tc := range []struct {
		name string
		m    Member
		in   func(Input) Input
	}{
		{"assigned and revoking overlap", Member{State: UnrevokedPartitions, Epoch: 3, Assigned: mk(ps(1), nil), PendingRevocation: mk(ps(1), nil)}, nil},
		{"stable with pending revocation", Member{State: Stable, Epoch: 3, PendingRevocation: mk(ps(1), nil)}, nil},
		{"unreleased with pending revocation", Member{State: UnreleasedPartitions, Epoch: 3, PendingRevocation: mk(ps(1), nil)}, nil},
		{"unsorted assigned", Member{State: Stable, Epoch: 3, Assigned: spec.Set{spec.TP("foo", 2), spec.TP("foo", 1)}}, nil},
		{"target behind member", ok, func(in Input) Input { in.TargetEpoch = 2; return in }},
		{"nil PartitionOwned", ok, func(in Input) Input { in.PartitionOwned = nil; return in }},
		{"owned but not sent", ok, func(in Input) Input { in.Owned = mk(ps(1), nil); return in }},
		{"invalid target", ok, func(in Input) Input { in.Target = spec.Set{spec.TP("", 0)}; return in }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := base
			if tc.in != nil {
				in = tc.in(in)
			}
			got, err := Next(tc.m, in)
			if !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("error %v, want ErrInvalidInput", err)
			}
			if d := cmp.Diff(tc.m, got, equateEmpty); d != "" {
				t.Fatalf("member changed on error:\n%s", d)
			}
		})
	}
}

func TestStringsAreKafkas(t *testing.T) {
	for s, want := range map[State]string{
		Stable: "STABLE", UnrevokedPartitions: "UNREVOKED_PARTITIONS",
		UnreleasedPartitions: "UNRELEASED_PARTITIONS", Unknown: "UNKNOWN", State(9): "UNKNOWN(9)",
	} {
		if got := s.String(); got != want {
			t.Errorf("State(%d).String() = %q, want %q", uint8(s), got, want)
		}
	}
	m := Member{State: UnrevokedPartitions, Epoch: 10, PreviousEpoch: 9, Assigned: mk(ps(2, 3), nil), PendingRevocation: mk(ps(1), nil)}
	if got, want := m.String(), "UNREVOKED_PARTITIONS epoch=10 previous=9 assigned={foo-2 foo-3} pending-revocation={foo-1}"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if m.IsReconciledTo(10) {
		t.Error("an UNREVOKED member is reconciled")
	}
	if !(Member{State: Stable, Epoch: 10}).IsReconciledTo(10) || (Member{State: Stable, Epoch: 9}).IsReconciledTo(10) {
		t.Error("IsReconciledTo: want STABLE and epoch == target")
	}
}

// TestNextHoldsTheTargetItself: a member that ends STABLE on its target
// holds the target set itself, not a copy, whichever way it got there
// (the coordinator compares a member's assignment with its target at
// every heartbeat, by identity first).
func TestNextHoldsTheTargetItself(t *testing.T) {
	for _, c := range []struct {
		name   string
		member Member
		target spec.Set
		owned  spec.Set
	}{
		{"already holding an equal copy", Member{Epoch: 1, PreviousEpoch: 0, State: Stable, Assigned: mk(ps(0, 1), nil)}, mk(ps(0, 1), nil), mk(ps(0, 1), nil)},
		{"free partitions added", Member{Epoch: 1, PreviousEpoch: 0, State: Stable, Assigned: mk(ps(0), nil)}, mk(ps(0, 1), ps(0)), mk(ps(0), nil)},
		{"revoked partitions already released", Member{Epoch: 1, PreviousEpoch: 0, State: Stable, Assigned: mk(ps(0, 1), ps(2))}, mk(ps(1), nil), mk(ps(1), nil)},
	} {
		t.Run(c.name, func(t *testing.T) {
			owned, isSent := sent(c.owned)
			got, err := Next(c.member, Input{TargetEpoch: 2, Target: c.target, Owned: owned, OwnedSent: isSent, PartitionOwned: c.owned.Contains})
			if err != nil {
				t.Fatal(err)
			}
			if got.State != Stable || got.Epoch != 2 || !got.Assigned.Equal(c.target) {
				t.Fatalf("%s -> %s, want STABLE at epoch 2 on %s", c.member, got, c.target)
			}
			if &got.Assigned[0] != &c.target[0] {
				t.Errorf("%s -> %s: a copy of the target, not the target itself", c.member, got)
			}
		})
	}
}
