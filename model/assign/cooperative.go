package assign

import "github.com/rebalance-ref/rebalance/spec"

// CooperativeSticky returns Kafka's cooperative sticky assignor, protocol
// name "cooperative-sticky" (clients/.../consumer/CooperativeStickyAssignor.java):
// the assignment Sticky computes, minus every resource whose owner it
// changes in this round. A resource r given to member m changes owner when
// some other member claims r and m is not the member that wins r's claims
// (ResolveClaims). That includes r owned by another member, r tied between
// claimants at the same generation (withheld even from one of the tied
// claimants), r claimed by m at a stale generation while a newer claimant
// holds it, and r claimed by a member that no longer subscribes to its topic.
// A withheld resource stays unassigned for the round: its claimants revoke it
// (it is not in their new sets), and the follow-up rebalance hands it out.
// This is KIP-429's two-phase transfer, and the result passes spec.CheckRound
// with Cooperative set.
//
// Guarantees, for each round:
//
//   - Safety: every member's new set is a subset of Sticky's target for the
//     same group, so nothing is assigned twice, only subscribed partitions
//     of existing topics are assigned, and what a member gets it either wins
//     (claims at the winning generation) or nobody claims.
//   - Hand-off (KIP-429): no resource is handed over in the round in which
//     it is revoked, or while another member still claims it; a resource
//     tied between claimants at the highest generation goes to nobody.
//   - Stickiness: a member keeps every won claim that Sticky's target keeps
//     (Sticky's optimum: balance first, then the most kept claims, no
//     member both losing and gaining partitions of one topic).
//   - Racks, determinism and no co-partitioning as for Sticky: the target is
//     Sticky's rack-aware one, so a won claim that is not rack-aligned may be
//     revoked (and handed over a round later) to improve alignment, while a
//     rack-aligned won claim within quota is kept.
//
// Convergence: once members stop changing, the rounds take at most two.
// Feed a round's result back as every member's Owned at one common, newer
// generation, and the next round revokes nothing and is complete and
// balanced (Sticky's balance: the most even load vector the subscriptions
// allow). This holds because Sticky's target is the exact optimum, and the
// previous target keeps every partition the members still hold. With racks
// it still holds: the second round keeps every rack-aligned claim the first
// kept (and the ones it handed out), so the assignments its rack fill
// chooses among are a subset of the first round's, which contain the first
// target; that target is the most rack-aligned among them and gives back
// every other claim, so the second round revokes nothing either (on the
// flow path, the flow's counts keep every claim, as without racks). Kafka's
// own tests allow up to four rounds. The round that revokes nothing is a
// fixed point (feeding it back changes nothing), and no resource was ever
// seen to move back to a member it was taken from over the rounds,
// membership changes included (checked by TestGuarantees and, with racks,
// TestStickyRacks; not proved).
func CooperativeSticky() Assignor { return CooperativeStickyWith(CooperativeOptions{}) }

// CooperativeOptions switches on deliberate faults in the cooperative sticky
// assignor, so that tests can show that the laws catch them. The zero value
// is the correct assignor.
type CooperativeOptions struct {
	// NoWithholding hands out moving resources in the same round in which
	// their previous owners revoke them (breaks spec.CooperativeHandoff).
	NoWithholding bool
	// KeepSameGenerationClaims resolves a resource claimed by several
	// members at the same (highest) generation in favour of the claimant
	// with the lowest member ID, instead of taking it from all of them and
	// withholding it for a round (Kafka does the latter since KAFKA-12984,
	// apache/kafka#10985, and KAFKA-14639, #13550). With the fault, a member
	// keeps working on a partition another member of its generation still
	// believes it owns.
	KeepSameGenerationClaims bool
	// DropStaleClaims ignores every claim of a member whose generation is
	// below the highest generation of the group, even a claim nobody else
	// makes (Kafka's AbstractStickyAssignor.allSubscriptionsEqual from
	// KAFKA-12984 until KAFKA-14639, apache/kafka#13550). The dropped
	// claims count as unowned, so the assignor may hand them to another
	// member in the round their claimant still owns them (breaks
	// spec.CooperativeHandoff; Kafka's leader then failed the rebalance in
	// validateCooperativeAssignment).
	DropStaleClaims bool
}

// CooperativeStickyWith returns the cooperative sticky assignor with the
// given fault switches; see CooperativeOptions. Its Name is
// "cooperative-sticky" whatever the options.
func CooperativeStickyWith(opts CooperativeOptions) Assignor {
	return cooperativeStickyAssignor{opts: opts}
}

type cooperativeStickyAssignor struct{ opts CooperativeOptions }

func (cooperativeStickyAssignor) Name() string { return "cooperative-sticky" }

// Balance is spec.CheckBalance (BalancedAssignor).
func (cooperativeStickyAssignor) Balance(v spec.View) []spec.Violation { return spec.CheckBalance(v) }

func (c cooperativeStickyAssignor) Assign(g Group) (spec.Assignment, error) {
	if err := ValidateGroup(g); err != nil {
		return nil, err
	}
	return c.assignValid(g)
}

// assignValid is Assign on a group ValidateGroup accepted (AssignValid).
func (c cooperativeStickyAssignor) assignValid(g Group) (spec.Assignment, error) {
	claims := resolveClaims(g, claimFaults{keepTied: c.opts.KeepSameGenerationClaims, dropStale: c.opts.DropStaleClaims})
	if c.opts.NoWithholding {
		return stickyTarget(g, claims, false), nil
	}
	return cooperativeTarget(g, claims), nil
}
