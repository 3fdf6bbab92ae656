// Package reconcile is the member reconciliation state machine of the
// next-generation consumer group protocol (KIP-848): the coordinator's
// CurrentAssignmentBuilder (group-coordinator/.../modern/consumer/
// CurrentAssignmentBuilder.java in apache/kafka).
//
// Given what the coordinator knows about one member (its epoch, state,
// assigned partitions and partitions pending revocation), the member's slice
// of the target assignment, what the member reported owning in its heartbeat
// and which partitions are still held by anyone, Next takes the one step
// that brings the member closer to its target: revoke first, then assign
// what the previous owners have released, and move to the target epoch only
// once nothing the member must give up is still in its hands.
//
// The package is pure: Next reads nothing but its arguments, modifies none
// of them and returns a value that shares only immutable spec.Sets with
// them. The rest of the group enters only as the PartitionOwned function, as
// in Kafka, where it is ConsumerGroup.currentPartitionEpoch.
//
// The transitions follow the October 2024 snapshot of the reference (heading
// for Kafka 4.0) with one later upstream fix selectable through Semantics.
// Later upstream versions change the UNREVOKED_PARTITIONS step to
// memberEpoch+1, which this package keeps: one caps it at the target epoch
// (min(memberEpoch+1, targetEpoch)), a newer one keeps the member epoch;
// both come with a subscription-consistency path, not modelled here, that
// strips topics the member no longer subscribes to.
package reconcile

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/rebalance-ref/rebalance/spec"
)

// State is a member's reconciliation state, with the byte values Kafka
// persists in ConsumerGroupCurrentMemberAssignmentValue.State
// (modern/MemberState.java). A value other than the four constants is what
// a coordinator reads back from a newer version: Next treats it as Unknown,
// as Kafka's MemberState.fromValue does.
type State uint8

const (
	// Stable: the member's assignment is its target at its epoch, or it
	// has not yet been moved to a newer target.
	Stable State = 0
	// UnrevokedPartitions: the member was asked to revoke
	// PendingRevocation and has not yet reported that it did.
	UnrevokedPartitions State = 1
	// UnreleasedPartitions: the member is at the target epoch but part of
	// its target is still held by other members.
	UnreleasedPartitions State = 2
	// Unknown: a state this coordinator does not know; the member is
	// fenced unless it reports owning nothing.
	Unknown State = 127
)

// String returns Kafka's name for the state (STABLE, UNREVOKED_PARTITIONS,
// UNRELEASED_PARTITIONS, UNKNOWN), or "UNKNOWN(n)" for a byte that is none
// of the four constants.
func (s State) String() string {
	switch s {
	case Stable:
		return "STABLE"
	case UnrevokedPartitions:
		return "UNREVOKED_PARTITIONS"
	case UnreleasedPartitions:
		return "UNRELEASED_PARTITIONS"
	case Unknown:
		return "UNKNOWN"
	default:
		return "UNKNOWN(" + strconv.Itoa(int(s)) + ")"
	}
}

// known reports whether s is one of the three states Next reconciles; every
// other value behaves as Unknown.
func (s State) known() bool {
	return s == Stable || s == UnrevokedPartitions || s == UnreleasedPartitions
}

// Member is the coordinator's record of one member's current assignment
// (ConsumerGroupCurrentMemberAssignmentValue: MemberEpoch,
// PreviousMemberEpoch, State, AssignedPartitions,
// PartitionsPendingRevocation).
//
// Invariants (Validate checks them, Next requires them):
//   - Assigned ∩ PendingRevocation = ∅: a partition is either kept or being
//     given up, never both;
//   - PendingRevocation = ∅ unless State is UnrevokedPartitions or an
//     unknown state (a STABLE or UNRELEASED member has nothing left to give
//     up; every transition into those states clears the set);
//   - both sets are valid spec.Sets (sorted, distinct, valid resources).
//
// A member that has just joined is Member{Epoch: 0, PreviousEpoch: -1,
// State: Stable} (ConsumerGroupMember defaults).
type Member struct {
	// Epoch is the member epoch: the target epoch the member last reached,
	// or one past its last epoch after a completed revocation.
	Epoch spec.Epoch
	// PreviousEpoch is the epoch before the last epoch update. Kafka uses
	// it to accept a heartbeat whose response (carrying the new epoch) was
	// lost.
	PreviousEpoch spec.Epoch
	// State is the reconciliation state.
	State State
	// Assigned is what the member is given: what the heartbeat response
	// lists. It includes partitions handed out but not yet acknowledged.
	Assigned spec.Set
	// PendingRevocation is what the member must give up before it may move
	// on. It still counts as held by the member for everyone else.
	PendingRevocation spec.Set
}

// Validate returns an error wrapping ErrInvalidInput when m breaks one of
// the invariants documented on Member, and nil otherwise.
func (m Member) Validate() error {
	if err := m.Assigned.Validate(); err != nil {
		return fmt.Errorf("%w: assigned: %v", ErrInvalidInput, err)
	}
	if err := m.PendingRevocation.Validate(); err != nil {
		return fmt.Errorf("%w: pending revocation: %v", ErrInvalidInput, err)
	}
	if both := m.Assigned.Intersect(m.PendingRevocation); !both.IsEmpty() {
		return fmt.Errorf("%w: %s both assigned and pending revocation", ErrInvalidInput, both)
	}
	if !m.PendingRevocation.IsEmpty() && (m.State == Stable || m.State == UnreleasedPartitions) {
		return fmt.Errorf("%w: state %s with partitions pending revocation %s", ErrInvalidInput, m.State, m.PendingRevocation)
	}
	return nil
}

// IsReconciledTo reports whether m has converged to the target of
// targetEpoch: it is Stable at that epoch (Kafka's
// ConsumerGroupMember.isReconciledTo). The coordinator skips reconciling
// such a member, and a group whose members are all reconciled is STABLE.
func (m Member) IsReconciledTo(targetEpoch spec.Epoch) bool {
	return m.State == Stable && m.Epoch == targetEpoch
}

// String prints m on one line, deterministically, for example
// "UNREVOKED_PARTITIONS epoch=10 previous=10 assigned={a-2 a-3} pending-revocation={a-1}".
func (m Member) String() string {
	return fmt.Sprintf("%s epoch=%d previous=%d assigned=%s pending-revocation=%s",
		m.State, m.Epoch, m.PreviousEpoch, m.Assigned, m.PendingRevocation)
}

// Semantics selects between versions of the reference where they differ.
// The zero value is today's upstream behaviour.
type Semantics struct {
	// BeforeKafka19449 restores the behaviour before KAFKA-19449 (apache/kafka
	// PR 20781, 2025). By default (false), a partition of the target that
	// is in the member's own PendingRevocation is not counted as unreleased:
	// only this member holds it, so giving it back to this member cannot
	// create a second owner, and it is handed back at once. With true, such
	// a partition counts as held like any other (its partition epoch is
	// still set), so the member first goes to UnreleasedPartitions and gets
	// it back one step later, once its own revocation has been recorded.
	BeforeKafka19449 bool
}

// Input is everything one reconciliation step reads besides the member.
type Input struct {
	// TargetEpoch is the epoch of the group's target assignment (the
	// target assignment epoch). It must be at least the member's Epoch.
	TargetEpoch spec.Epoch
	// Target is the member's slice of the target assignment.
	Target spec.Set
	// Owned is what the member reported owning in this heartbeat
	// (TopicPartitions); it must be empty when OwnedSent is false.
	Owned spec.Set
	// OwnedSent is false when the heartbeat did not carry TopicPartitions
	// (null on the wire). A null list never completes a revocation and
	// fences a member in an unknown state.
	OwnedSent bool
	// PartitionOwned reports whether some member of the group, this one
	// included, holds the partition as assigned or pending revocation:
	// Kafka's currentPartitionEpoch(topic, partition) != -1. It must report
	// true for this member's own Assigned ∪ PendingRevocation, and for a
	// static member that left temporarily (epoch -2) it reports that
	// member's partitions as held. It must not be nil.
	PartitionOwned func(spec.Resource) bool
	// Semantics selects the version of the reference.
	Semantics Semantics
}

// ErrFencedMemberEpoch is returned by Next for a member in an unknown state
// whose heartbeat did not report owning nothing (TopicPartitions null or
// non-empty). It is a protocol rejection: the coordinator answers
// FENCED_MEMBER_EPOCH (spec.FencedMemberEpoch) and leaves the member as it
// was; the member must abandon its partitions and rejoin.
var ErrFencedMemberEpoch = errors.New("reconcile: the member is in an unknown state and must abandon all its partitions and rejoin (FENCED_MEMBER_EPOCH)")

// ErrInvalidInput is wrapped by every error Next returns for caller misuse:
// a member that breaks its invariants, a target epoch behind the member's
// epoch, an invalid set, Owned given although OwnedSent is false, or a nil
// PartitionOwned.
var ErrInvalidInput = errors.New("reconcile: invalid input")

// Next is one reconciliation step: the member that m becomes when the
// coordinator reconciles it against in, exactly as Kafka's
// CurrentAssignmentBuilder.build() does. It never modifies m or in. When no
// progress is possible it returns m itself, unchanged.
//
// Dispatch on m.State:
//   - Stable: unchanged if m.Epoch == TargetEpoch, otherwise
//     computeNextAssignment(m.Epoch).
//   - UnrevokedPartitions: unchanged while the member still owns a
//     partition of PendingRevocation (OwnedSent is false, or Owned ∩
//     PendingRevocation ≠ ∅); otherwise computeNextAssignment(m.Epoch+1).
//     The member moves one epoch at a time, not to the target: a member at
//     epoch 10 with target 12 that must revoke again lands at 11.
//   - UnreleasedPartitions: computeNextAssignment(m.Epoch).
//   - Unknown (and any unknown byte): ErrFencedMemberEpoch unless the
//     heartbeat reports owning nothing (OwnedSent and Owned = ∅); then
//     computeNextAssignment(TargetEpoch).
//
// computeNextAssignment(epoch) works over the member's Assigned:
//
//	Assigned'          = Assigned ∩ Target
//	Revoking           = Assigned − Assigned'
//	Unreleased         = {p ∈ Target − Assigned' : PartitionOwned(p)
//	                       and (BeforeKafka19449 or p ∉ m.PendingRevocation)}
//	PendingAssignment  = Target − Assigned' − Unreleased
//
// and picks the first outcome that applies:
//  1. Revoking ≠ ∅ and the member still owns part of it (OwnedSent false,
//     or Owned ∩ Revoking ≠ ∅): UnrevokedPartitions at epoch (no move to
//     the target), Assigned', PendingRevocation = Revoking.
//  2. PendingAssignment ≠ ∅: Assigned' ∪ PendingAssignment at TargetEpoch,
//     UnreleasedPartitions if Unreleased ≠ ∅ else Stable.
//  3. Unreleased ≠ ∅: UnreleasedPartitions at TargetEpoch with Assigned'.
//  4. otherwise Stable at TargetEpoch with Assigned'.
//
// Outcomes 2 to 4 clear PendingRevocation. Every outcome updates the epoch
// as Kafka's ConsumerGroupMember.Builder.updateMemberEpoch does:
// PreviousEpoch becomes the old Epoch, even when Epoch does not change. The
// two "unchanged" cases above do not touch the epochs.
//
// Consequences: a member never moves to a higher epoch while it still holds
// a partition it must give up, and a partition is given to a member only
// when nobody else holds it, which is what rules out double ownership.
//
// The +1 step can overshoot TargetEpoch only for an UnrevokedPartitions
// member already at TargetEpoch whose Assigned is not within Target, which
// a coordinator that replaces a target only together with a new epoch
// never produces.
//
// Errors: ErrFencedMemberEpoch as above; an error wrapping ErrInvalidInput
// for caller misuse (see ErrInvalidInput). On error the returned Member is
// m unchanged.
func Next(m Member, in Input) (Member, error) {
	if err := check(m, in); err != nil {
		return m, err
	}
	return next(m, in)
}

// NextValid is Next for a caller that keeps m and the input's sets valid:
// it does not validate m (Member.Validate), in.Target or in.Owned, and
// checks only the rest of what Next rejects as misuse. The next-gen
// coordinator is such a caller (its invariants keep every member record
// valid, every target comes out of target.Build, which rejects invalid
// sets, and it validates a heartbeat's partitions when the heartbeat
// arrives); it calls it at every heartbeat of a member being reconciled,
// where validating them again was two thirds of the step's cost in a
// large group. On a member or sets that are not valid its result is
// unspecified.
func NextValid(m Member, in Input) (Member, error) {
	if err := checkInput(m, in); err != nil {
		return m, err
	}
	return next(m, in)
}

// next is Next on an input check accepted.
func next(m Member, in Input) (Member, error) {
	switch m.State {
	case Stable:
		// A newer target is available: reconcile towards it. Otherwise
		// the member is reconciled and nothing changes.
		if m.Epoch == in.TargetEpoch {
			return m, nil
		}
		return computeNext(m, in, m.Epoch), nil

	case UnrevokedPartitions:
		// The member must first report that it no longer owns any
		// partition pending revocation; a null owned list does not count.
		if ownsAnyOf(in, m.PendingRevocation) {
			return m, nil
		}
		// Revocation done: the member may step to the next epoch, and
		// is reconciled towards the latest target from there.
		return computeNext(m, in, m.Epoch+1), nil

	case UnreleasedPartitions:
		// Hand out whatever previous owners have released since.
		return computeNext(m, in, m.Epoch), nil

	default:
		// Unknown: only a downgraded coordinator reads such a state. The
		// member is fenced until it rejoins owning nothing, and is then
		// reconciled from scratch.
		if !in.OwnedSent || !in.Owned.IsEmpty() {
			return m, ErrFencedMemberEpoch
		}
		return computeNext(m, in, in.TargetEpoch), nil
	}
}

// check returns the caller-misuse error of Next, if any, the first in this
// order: the member, a target epoch behind it, the target and owned sets,
// then the rest of checkInput's (which reports the epoch itself when the
// sets were skipped for it).
func check(m Member, in Input) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if in.TargetEpoch >= m.Epoch {
		if err := in.Target.Validate(); err != nil {
			return fmt.Errorf("%w: target: %v", ErrInvalidInput, err)
		}
		if err := in.Owned.Validate(); err != nil {
			return fmt.Errorf("%w: owned: %v", ErrInvalidInput, err)
		}
	}
	return checkInput(m, in)
}

// checkInput returns the caller-misuse error of Next that is not about a
// set's validity, if any.
func checkInput(m Member, in Input) error {
	if in.TargetEpoch < m.Epoch {
		return fmt.Errorf("%w: target epoch %d is behind member epoch %d", ErrInvalidInput, in.TargetEpoch, m.Epoch)
	}
	if !in.OwnedSent && !in.Owned.IsEmpty() {
		return fmt.Errorf("%w: owned %s given but OwnedSent is false", ErrInvalidInput, in.Owned)
	}
	if in.PartitionOwned == nil {
		return fmt.Errorf("%w: PartitionOwned is nil", ErrInvalidInput)
	}
	return nil
}

// ownsAnyOf reports whether the member, by its heartbeat, still owns a
// partition of s: Kafka's ownsRevokedPartitions. A heartbeat without
// TopicPartitions counts as still owning everything.
func ownsAnyOf(in Input, s spec.Set) bool {
	if !in.OwnedSent {
		return true
	}
	return in.Owned.Meets(s)
}

// computeNext is Kafka's computeNextAssignment(epoch, m.Assigned), written
// over whole sets rather than topic by topic (the per-topic operations act
// on disjoint parts, so their union is the same).
//
// The sets it returns are those of the formulas on Next, with nil for an
// empty set; a set equal to one of m or in may be that set itself (sets
// are immutable). One walk of m.Assigned against the target splits them
// into the three parts below, and a member whose Assigned already is its
// target (a new epoch that changes nothing for it, the common case) costs
// one comparison.
func computeNext(m Member, in Input, epoch spec.Epoch) Member {
	// New Assigned = Previous Assigned ∩ Target; Revoking = Previous
	// Assigned − New Assigned; missing = Target − New Assigned.
	assigned, revoking, missing := spec.Split(m.Assigned, in.Target)
	// Unreleased = the part of missing still held by someone. Since
	// KAFKA-19449, a partition held only because it is in this member's
	// own pending revocation does not count. Pending Assignment = Target −
	// New Assigned − Unreleased: the rest of missing.
	var unreleased, pending spec.Set
	for k, p := range missing {
		held := in.PartitionOwned(p) && (in.Semantics.BeforeKafka19449 || !m.PendingRevocation.Contains(p))
		switch {
		case held && unreleased == nil:
			unreleased = make(spec.Set, 0, len(missing)-k)
		case !held && pending == nil:
			pending = make(spec.Set, 0, len(missing)-k)
		}
		if held {
			unreleased = append(unreleased, p)
		} else {
			pending = append(pending, p)
		}
	}

	next := Member{
		// updateMemberEpoch: the previous epoch is always the old one.
		PreviousEpoch: m.Epoch,
		Epoch:         in.TargetEpoch,
		Assigned:      assigned,
	}
	switch {
	case !revoking.IsEmpty() && ownsAnyOf(in, revoking):
		// 1. Something must be revoked and the member still owns it: it
		// stays at the given epoch and waits for the revocation. If its
		// heartbeat already shows those partitions gone, this is skipped
		// and they are simply dropped.
		next.State = UnrevokedPartitions
		next.Epoch = epoch
		next.PendingRevocation = revoking
	case !pending.IsEmpty():
		// 2. Free partitions to add: they join the assigned set at once,
		// and the member moves to the target epoch, waiting in
		// UNRELEASED_PARTITIONS if part of its target is still held.
		next.State = Stable
		if !unreleased.IsEmpty() {
			next.Assigned = assigned.Union(pending)
			next.State = UnreleasedPartitions
		} else {
			// Assigned ∪ Pending = (A ∩ T) ∪ (T − A) = T: the target
			// set itself, which the coordinator then finds by identity
			// when it compares the member with its target.
			next.Assigned = in.Target
		}
	case !unreleased.IsEmpty():
		// 3. Nothing to revoke or add yet, but part of the target is
		// still held elsewhere: move to the target epoch and wait.
		next.State = UnreleasedPartitions
	default:
		// 4. Converged: the member holds exactly its target (nothing is
		// missing, so A ∩ T = T): the target set itself, as in 2.
		next.State = Stable
		if len(in.Target) > 0 {
			next.Assigned = in.Target
		}
	}
	return next
}
