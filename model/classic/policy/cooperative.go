package policy

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// Cooperative returns the cooperative protocol of the seed design's Design
// I, KIP-429 (Kafka's consumer with the cooperative-sticky assignor), name
// "cooperative", Cooperative() == true.
//
// Members keep what they own across a rebalance and report it with the
// generation it was assigned in. The leader runs assign.CooperativeSticky
// over the members (claims on resources that do not exist are dropped
// first) and gives each member Assignment{Assigned: the assignor's set,
// Revoked: what it claimed minus Assigned, Leader: the round's leader}, with
// no delay. Conflicting claims are resolved by generation inside the
// assignor (assign.ResolveClaims): a sole claimant keeps its resource even at
// a stale generation, the higher generation wins, and two claimants at the
// same generation both lose it. A resource that changes owner is withheld
// for the round: its claimants revoke it, rejoin at once, and the follow-up
// round hands it out (CooperativeStickyAssignor.adjustAssignment).
//
// Guarantees: the round passes spec.CheckRound with Cooperative set.
// Convergence: once the group stops changing, the round after a change
// revokes what must move and the follow-up completes the balanced sticky
// assignment: two rounds in the common case (the assignor's bound; Kafka's
// tests allow four).
//
// Three fault switches of LeaderInput.Faults reach the assignor
// (assign.CooperativeOptions): classic.CooperativeNoWithholding hands a
// moving resource to its new owner in the round it is revoked,
// classic.SameGenerationClaimsKept leaves a resource claimed twice at the
// same generation with its lowest-id claimant, and
// classic.StaleClaimsDropped ignores the claims of members below the
// round's highest generation (KAFKA-14639). All break the laws on
// purpose. The LeaderResult carries no memory (Design I keeps none).
func Cooperative() classic.Protocol { return cooperative{} }

type cooperative struct{}

func (cooperative) Name() string      { return "cooperative" }
func (cooperative) Cooperative() bool { return true }

// KeepsClaims is true: assign.CooperativeSticky keeps as many claims as balance
// allows (the constrained assignment of Kafka's AbstractStickyAssignor),
// and withholding a moving resource takes nothing from its old owner's
// kept claims.
func (cooperative) KeepsClaims() bool { return true }

// ResolvesClaimsByGeneration is true: assign.CooperativeSticky settles
// conflicting claims by generation (assign.ResolveClaims;
// classic.ClaimResolver).
func (cooperative) ResolvesClaimsByGeneration() bool { return true }

// RoundBound is 1 + min(Members−1, Resources). The first round after the
// change revokes what must move. With the environment quiet, nothing else
// starts a round but a member that completed a revocation rejoining at
// once (its follow-up); each such member starts at most one, and a round
// started by one may cut short another member's SyncGroup
// (REBALANCE_IN_PROGRESS), which then revokes in the next round instead.
// So the rounds are at most one plus the members that must revoke, and
// those give up at least one resource each and are not all the members
// (someone gains). KIP-429's two rounds are the case of one revoking
// member; with two revoking members the follow-up of the first can
// pre-empt the second: 3 rounds (3 members, 1 topic of 6 partitions, one
// joins). Measured maxima (rebalance check --max-rounds N, smallest N that
// passes) are in docs/checker.md; none reaches the bound by more.
func (cooperative) RoundBound(g classic.GroupShape) int {
	return 1 + max(0, min(g.Members-1, g.Resources))
}

// Balance is spec.CheckBalance, cooperative-sticky's balance of the
// members' totals (classic.Balancer).
func (cooperative) Balance(v spec.View) []spec.Violation { return spec.CheckBalance(v) }

func (cooperative) Assign(in classic.LeaderInput) (classic.LeaderResult, error) {
	return cooperativeRound(in, assign.CooperativeStickyWith(assign.CooperativeOptions{
		NoWithholding:            in.Faults.Has(classic.CooperativeNoWithholding),
		KeepSameGenerationClaims: in.Faults.Has(classic.SameGenerationClaimsKept),
		DropStaleClaims:          in.Faults.Has(classic.StaleClaimsDropped),
	}))
}

// cooperativeRound is one cooperative round with assignor a: every member
// gets a's set, and revokes what it claimed beyond it.
func cooperativeRound(in classic.LeaderInput, a assign.Assignor) (classic.LeaderResult, error) {
	r, err := newRound(in)
	if err != nil {
		return classic.LeaderResult{}, err
	}
	assigned, err := assign.AssignValid(a, r.group)
	if err != nil {
		return classic.LeaderResult{}, fmt.Errorf("policy: cooperative: assignor %s: %w", a.Name(), err)
	}
	if err := r.checkAssignorResult(a.Name(), assigned); err != nil {
		return classic.LeaderResult{}, err
	}
	revoked := make(spec.Assignment, len(r.ids))
	for _, m := range r.ids {
		revoked[m] = r.owned[m].Minus(assigned[m])
	}
	return r.result(assigned, revoked, 0, classic.LeaderMemory{}), nil
}

// CooperativeWith returns a cooperative protocol (Cooperative() == true)
// that runs a, an assignor of the caller's, as Design I runs
// assign.CooperativeSticky: the leader gives a the members with their
// claims (claims on resources that do not exist dropped first), and gives
// each member Assignment{Assigned: a's set for it, Revoked: what it claimed
// minus that}. Its Name is a's: the protocol members advertise in
// JoinGroup, as Kafka's consumers advertise their assignor's name.
//
// Guarantees: those of a. The leader checks every round with
// spec.CheckRound, Cooperative set, before sending it: an a that hands a
// resource to a member while another member of the round still claims it
// (an eager assignor), that assigns a resource twice, or that errs or
// panics, fails the round (classic.AssignorFailed; every member keeps what
// it owns). It states no round bound (a's convergence is a's business):
// give one where it is needed (rebalance check --max-rounds, fuzz.Bounds).
// It keeps claims (classic.StickyProtocol) when a says so
// (assign.StickyAssignor). Fault switches do not reach a.
func CooperativeWith(a assign.Assignor) classic.Protocol {
	if s, ok := a.(assign.StickyAssignor); ok {
		return stickyCooperativeWith{cooperativeWith{a}, s.KeepsClaims()}
	}
	return cooperativeWith{a}
}

type cooperativeWith struct{ a assign.Assignor }

func (p cooperativeWith) Name() string {
	if p.a == nil {
		return "cooperative-with-nil"
	}
	return p.a.Name()
}

func (cooperativeWith) Cooperative() bool { return true }

func (p cooperativeWith) Assign(in classic.LeaderInput) (classic.LeaderResult, error) {
	if p.a == nil {
		return classic.LeaderResult{}, fmt.Errorf("policy: cooperative: no assignor")
	}
	return cooperativeRound(in, p.a)
}

type stickyCooperativeWith struct {
	cooperativeWith
	keeps bool
}

func (p stickyCooperativeWith) KeepsClaims() bool { return p.keeps }
