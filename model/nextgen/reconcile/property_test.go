package reconcile

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// universe is small so that random sets overlap often.
var universe = spec.Range("a", 0, 3).Union(spec.Range("b", 0, 2))

// genSubset draws a subset of s.
func genSubset(t *rapid.T, s spec.Set, label string) spec.Set {
	return s.Filter(func(spec.Resource) bool { return rapid.Bool().Draw(t, label) })
}

// genMember draws a valid member: Assigned and PendingRevocation disjoint,
// PendingRevocation only in UNREVOKED_PARTITIONS or an unknown state.
func genMember(t *rapid.T, states []State) Member {
	m := Member{
		State:         rapid.SampledFrom(states).Draw(t, "state"),
		Epoch:         spec.Epoch(rapid.IntRange(-2, 20).Draw(t, "epoch")),
		PreviousEpoch: spec.Epoch(rapid.IntRange(-2, 20).Draw(t, "previous")),
		Assigned:      genSubset(t, universe, "assigned"),
	}
	if m.State != Stable && m.State != UnreleasedPartitions {
		m.PendingRevocation = genSubset(t, universe.Minus(m.Assigned), "revoking")
	}
	return m
}

// genInput draws an input for m: a target epoch not behind m, any target,
// any heartbeat, and an ownership function that holds m's own partitions
// plus a random set held by others.
func genInput(t *rapid.T, m Member) (Input, spec.Set) {
	others := genSubset(t, universe, "others")
	held := m.Assigned.Union(m.PendingRevocation).Union(others)
	in := Input{
		TargetEpoch:    m.Epoch + spec.Epoch(rapid.IntRange(0, 3).Draw(t, "ahead")),
		Target:         genSubset(t, universe, "target"),
		OwnedSent:      rapid.Bool().Draw(t, "sent"),
		PartitionOwned: held.Contains,
		Semantics:      Semantics{BeforeKafka19449: rapid.Bool().Draw(t, "before19449")},
	}
	if in.OwnedSent {
		in.Owned = genSubset(t, universe, "owned")
	}
	return in, others
}

// TestNextProperties checks the laws of one step on random members, targets,
// heartbeats and ownership:
//   - no grab: nothing outside the member's old Assigned ∪
//     PendingRevocation is given while PartitionOwned reports it held (and
//     before KAFKA-19449, nothing outside Assigned at all);
//   - revoke first: the epoch rises only once the member has released its
//     pending revocation; a result still revoking sits at the old epoch,
//     or one past it when leaving UNREVOKED_PARTITIONS;
//   - epochs never decrease; PreviousEpoch is the old epoch after any change;
//   - the result keeps the invariants, is within old Assigned ∪ Target, and
//     a STABLE result of a reconciliation holds exactly the target;
//   - only a member in an unknown state is fenced, exactly when its
//     heartbeat does not report owning nothing;
//   - Next is deterministic and does not modify its inputs.
func TestNextProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := genMember(t, []State{Stable, UnrevokedPartitions, UnreleasedPartitions, Unknown, State(42)})
		in, _ := genInput(t, m)
		m0 := Member{Epoch: m.Epoch, PreviousEpoch: m.PreviousEpoch, State: m.State,
			Assigned: slices.Clone(m.Assigned), PendingRevocation: slices.Clone(m.PendingRevocation)}
		target0, owned0 := slices.Clone(in.Target), slices.Clone(in.Owned)

		got, err := Next(m, in)

		if d := cmp.Diff(m0, m, equateEmpty); d != "" {
			t.Fatalf("Next modified the member:\n%s", d)
		}
		if !in.Target.Equal(target0) || !in.Owned.Equal(owned0) {
			t.Fatalf("Next modified the input")
		}
		again, err2 := Next(m, in)
		if !errors.Is(err2, err) || !errors.Is(err, err2) || !cmp.Equal(got, again, equateEmpty) {
			t.Fatalf("not deterministic: %s (%v) then %s (%v)", got, err, again, err2)
		}

		releasedAll := in.OwnedSent && in.Owned.Intersect(m.PendingRevocation).IsEmpty()
		if !m.State.known() {
			wantFenced := !in.OwnedSent || !in.Owned.IsEmpty()
			if wantFenced != errors.Is(err, ErrFencedMemberEpoch) {
				t.Fatalf("unknown state, owned=%s sent=%v: error %v", in.Owned, in.OwnedSent, err)
			}
		}
		if err != nil {
			if !errors.Is(err, ErrFencedMemberEpoch) {
				t.Fatalf("unexpected error %v", err)
			}
			if !cmp.Equal(got, m, equateEmpty) {
				t.Fatalf("member changed on error: %s", got)
			}
			return
		}

		if err := got.Validate(); err != nil {
			t.Fatalf("result %s: %v", got, err)
		}
		// No grab.
		added := got.Assigned.Minus(m.Assigned.Union(m.PendingRevocation))
		for _, p := range added {
			if in.PartitionOwned(p) {
				t.Fatalf("%s given while still held elsewhere: %s -> %s", p, m, got)
			}
		}
		if in.Semantics.BeforeKafka19449 {
			for _, p := range got.Assigned.Minus(m.Assigned) {
				if in.PartitionOwned(p) {
					t.Fatalf("before KAFKA-19449, %s given while held: %s -> %s", p, m, got)
				}
			}
		}
		if extra := got.Assigned.Minus(m.Assigned.Union(in.Target)); !extra.IsEmpty() {
			t.Fatalf("%s neither assigned before nor in the target: %s -> %s", extra, m, got)
		}
		// Revoke first.
		if got.Epoch > m.Epoch && !m.PendingRevocation.IsEmpty() && !releasedAll {
			t.Fatalf("epoch rose while still holding %s: %s -> %s", m.PendingRevocation, m, got)
		}
		if !got.PendingRevocation.IsEmpty() {
			if got.State != UnrevokedPartitions {
				t.Fatalf("pending revocation outside UNREVOKED_PARTITIONS: %s", got)
			}
			stepped := m.State == UnrevokedPartitions && got.Epoch == m.Epoch+1
			if got.Epoch != m.Epoch && !stepped {
				t.Fatalf("revoking result at epoch %d from %s", got.Epoch, m)
			}
		}
		// Epochs.
		if got.Epoch < m.Epoch {
			t.Fatalf("epoch went back: %s -> %s", m, got)
		}
		if !cmp.Equal(got, m, equateEmpty) && got.PreviousEpoch != m.Epoch {
			t.Fatalf("previous epoch %d, want the old epoch %d: %s -> %s", got.PreviousEpoch, m.Epoch, m, got)
		}
		// A reconciliation that ends STABLE ends on the target.
		reconciled := m.State != Stable || m.Epoch != in.TargetEpoch
		if reconciled && got.State == Stable && (got.Epoch != in.TargetEpoch || !got.Assigned.Equal(in.Target)) {
			t.Fatalf("STABLE off target %d %s: %s -> %s", in.TargetEpoch, in.Target, m, got)
		}
		// A member that reaches its target holds the target set itself
		// (the coordinator's next heartbeat compares by identity first).
		if reconciled && got.State == Stable && len(got.Assigned) > 0 && &got.Assigned[0] != &in.Target[0] {
			t.Fatalf("STABLE on a copy of the target %s: %s -> %s", in.Target, m, got)
		}
	})
}

// TestNextConverges drives one member whose client acknowledges every
// response (it reports owning exactly its Assigned, having revoked what was
// pending) while the rest of the group holds nothing, re-deriving
// PartitionOwned from the member after every step as the coordinator's
// replay does. From any state of a known kind behind the target epoch it is
// reconciled to the target within two steps: one to revoke, one to receive
// (the revocation clears the partition epochs the member held).
func TestNextConverges(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := genMember(t, []State{Stable, UnrevokedPartitions, UnreleasedPartitions})
		in, _ := genInput(t, m)
		if in.TargetEpoch == m.Epoch {
			in.TargetEpoch++
		}
		const bound = 2
		for step := 0; !m.IsReconciledTo(in.TargetEpoch); step++ {
			if step == bound {
				t.Fatalf("not reconciled to %d %s after %d steps: %s", in.TargetEpoch, in.Target, bound, m)
			}
			in.PartitionOwned = m.Assigned.Union(m.PendingRevocation).Contains
			in.Owned, in.OwnedSent = m.Assigned, true
			next, err := Next(m, in)
			if err != nil {
				t.Fatal(err)
			}
			m = next
		}
		if !m.Assigned.Equal(in.Target) {
			t.Fatalf("reconciled with %s, target %s", m.Assigned, in.Target)
		}
	})
}

// TestNextValidIsNext: on valid members and sets NextValid returns exactly
// what Next returns, and the same error, including the misuse it still
// checks (a target epoch behind the member, owned partitions not sent, no
// ownership function).
func TestNextValidIsNext(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := genMember(t, []State{Stable, UnrevokedPartitions, UnreleasedPartitions, Unknown, State(42)})
		in, _ := genInput(t, m)
		switch rapid.IntRange(0, 5).Draw(t, "misuse") {
		case 0:
			in.TargetEpoch = m.Epoch - 1
		case 1:
			in.OwnedSent, in.Owned = false, genSubset(t, universe, "unsent")
		case 2:
			in.PartitionOwned = nil
		}
		got, err := NextValid(m, in)
		want, wantErr := Next(m, in)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("error %v, Next's %v", err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: NextValid %#v, Next %#v", m, got, want)
		}
	})
}
