package reconcile

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// nextReference is Next as it was first written, with computeNext and
// ownsAnyOf as whole-set formulas: the reference the faster Next is
// checked against.
func nextReference(m Member, in Input) (Member, error) {
	if err := check(m, in); err != nil {
		return m, err
	}
	owns := func(s spec.Set) bool { return !in.OwnedSent || !in.Owned.Intersect(s).IsEmpty() }
	switch m.State {
	case Stable:
		if m.Epoch == in.TargetEpoch {
			return m, nil
		}
		return computeNextReference(m, in, m.Epoch, owns), nil
	case UnrevokedPartitions:
		if owns(m.PendingRevocation) {
			return m, nil
		}
		return computeNextReference(m, in, m.Epoch+1, owns), nil
	case UnreleasedPartitions:
		return computeNextReference(m, in, m.Epoch, owns), nil
	default:
		if !in.OwnedSent || !in.Owned.IsEmpty() {
			return m, ErrFencedMemberEpoch
		}
		return computeNextReference(m, in, in.TargetEpoch, owns), nil
	}
}

func computeNextReference(m Member, in Input, epoch spec.Epoch, owns func(spec.Set) bool) Member {
	assigned := m.Assigned.Intersect(in.Target)
	revoking := m.Assigned.Minus(assigned)
	unreleased := in.Target.Minus(assigned).Filter(func(p spec.Resource) bool {
		if !in.PartitionOwned(p) {
			return false
		}
		return in.Semantics.BeforeKafka19449 || !m.PendingRevocation.Contains(p)
	})
	pending := in.Target.Minus(assigned).Minus(unreleased)
	next := Member{PreviousEpoch: m.Epoch, Epoch: in.TargetEpoch, Assigned: assigned}
	switch {
	case !revoking.IsEmpty() && owns(revoking):
		next.State = UnrevokedPartitions
		next.Epoch = epoch
		next.PendingRevocation = revoking
	case !pending.IsEmpty():
		next.Assigned = assigned.Union(pending)
		next.State = Stable
		if !unreleased.IsEmpty() {
			next.State = UnreleasedPartitions
		}
	case !unreleased.IsEmpty():
		next.State = UnreleasedPartitions
	default:
		next.State = Stable
	}
	return next
}

// maybeEmpty draws whether an empty s is given as a non-nil empty set,
// which the sets' operations treat like nil but reflect.DeepEqual does not.
func maybeEmpty(t *rapid.T, s spec.Set, label string) spec.Set {
	if len(s) == 0 && rapid.Bool().Draw(t, label) {
		return spec.Set{}
	}
	return s
}

// TestNextMatchesReference: Next returns exactly what nextReference
// returns (reflect.DeepEqual, so a nil set stays nil and an empty one
// empty), and the same error, on random members and inputs, including
// targets equal to the member's Assigned (the same slice or a copy) and
// non-nil empty sets.
func TestNextMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := genMember(t, []State{Stable, UnrevokedPartitions, UnreleasedPartitions, Unknown, State(42)})
		in, _ := genInput(t, m)
		switch rapid.IntRange(0, 3).Draw(t, "target") {
		case 0:
			in.Target = m.Assigned
		case 1:
			in.Target = slices.Clone(m.Assigned)
		}
		m.Assigned = maybeEmpty(t, m.Assigned, "emptyAssigned")
		m.PendingRevocation = maybeEmpty(t, m.PendingRevocation, "emptyPending")
		in.Target = maybeEmpty(t, in.Target, "emptyTarget")
		if in.OwnedSent {
			in.Owned = maybeEmpty(t, in.Owned, "emptyOwned")
		}
		got, err := Next(m, in)
		want, wantErr := nextReference(m, in)
		if !errors.Is(err, wantErr) || (err == nil) != (wantErr == nil) {
			t.Fatalf("error %v, reference %v", err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s with target %d %s: got %#v, reference %#v", m, in.TargetEpoch, in.Target, got, want)
		}
	})
}
