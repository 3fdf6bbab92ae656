// Package policy holds the embedded rebalance protocols the classic group
// membership protocol runs (model/classic): what the leader member computes
// in each round from the members' subscriptions.
//
//   - Eager: stop-the-world; every member revokes everything before it
//     joins, and the leader runs a plain assignor.
//   - Cooperative (Design I, KIP-429): members report what they own; the
//     leader revokes only what must move and hands it out in the follow-up
//     round.
//   - Deferred (Design II, KIP-415): Kafka Connect's
//     IncrementalCooperativeAssignor over generic resources; resources of a
//     departed member are held back for a scheduled rebalance delay so that
//     a bouncing member gets them back.
//   - Incremental (Design III): Deferred, moving at most a bounded number of
//     resources per round for balance and scheduling the next step.
//
// Every constructor returns a classic.Protocol value. Every Assign is a pure
// function of its LeaderInput: deterministic, it neither keeps nor modifies
// its input, the LeaderResult shares nothing mutable with it, it gives every
// member of the round an Assignment, and it returns an error (never panics)
// for malformed input.
//
// # What every policy accepts
//
// A LeaderInput is rejected with an error when it has no members, when the
// members are not sorted by distinct non-empty IDs, when the leader is not
// one of them, when two members share an instance ID, when a subscription
// is not sorted and distinct, when an Owned set is not a valid spec.Set, when
// a generation is below spec.NoGeneration, or when the universe has a topic
// with an empty name or a negative partition count (assign.ValidateGroup).
// Deferred and Incremental also reject a negative Now and an unknown
// LeaderFailover value.
//
// A member may claim resources that do not exist (a deleted topic, a
// partition beyond the topic's count, a topic the leader has no metadata
// for, a Connect connector resource): that is not an error. The cooperative
// policies tell the member to revoke such claims; the assignors never see
// them (assign.PruneOwned).
//
// # The results and the laws
//
// For the three cooperative designs, Assigned is everything the member owns
// once it applied the assignment, Revoked is what it must give up now
// (always a subset of what it claimed, disjoint from Assigned, and together
// with Assigned covering everything it claimed), and the round passes
// spec.CheckRound with Cooperative set: no resource is given to a member
// while another member of the round claims it, no resource goes to two
// members, and every resource given out exists and is of a topic its new
// owner subscribes to.
package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// Names lists the protocols Default knows, in the order of the design
// (eager, then Designs I, II and III).
func Names() []string { return []string{"eager", "cooperative", "deferred", "incremental"} }

// Default returns the protocol named name with its default configuration:
// "eager" with assign.Range() (Kafka's default consumer assignor),
// "cooperative", "deferred" (DeferredConfig{}: MaxDelay 300000 ms,
// ReassignImmediately) and "incremental" (IncrementalConfig{}: MaxDelay
// 300000 ms, one move per round, 1000 ms between steps). Any other name is
// an error that lists the known ones.
func Default(name string) (classic.Protocol, error) {
	switch name {
	case "eager":
		return Eager(assign.Range()), nil
	case "cooperative":
		return Cooperative(), nil
	case "deferred":
		return Deferred(DeferredConfig{}), nil
	case "incremental":
		return Incremental(IncrementalConfig{}), nil
	}
	return nil, fmt.Errorf("policy: unknown protocol %q (known: %s)", name, strings.Join(Names(), ", "))
}

// round is a validated LeaderInput, decoded for the policies.
type round struct {
	in  classic.LeaderInput
	ids []spec.MemberID // sorted
	// subs is each member's sorted subscription, by position in ids.
	subs [][]string
	// owned maps each member to what it claims, as reported (possibly
	// resources that do not exist).
	owned spec.Assignment
	// group is the assignor input: the members with their claims pruned to
	// resources that exist, validated (assign.ValidatePruned).
	group assign.ValidGroup
}

// newRound validates in (see the package documentation) and decodes it.
func newRound(in classic.LeaderInput) (round, error) {
	if len(in.Members) == 0 {
		return round{}, fmt.Errorf("policy: the round has no members")
	}
	r := round{
		in:    in,
		ids:   make([]spec.MemberID, len(in.Members)),
		subs:  make([][]string, len(in.Members)),
		owned: make(spec.Assignment, len(in.Members)),
	}
	g := assign.Group{Topics: in.Topics, Members: make([]assign.Member, len(in.Members))}
	for i, j := range in.Members {
		owned, err := assign.ValidPruned(in.Topics, j.Subscription.Owned)
		if err != nil {
			return round{}, fmt.Errorf("policy: member %q: owned: %v", j.ID, err)
		}
		r.ids[i] = j.ID
		r.subs[i] = j.Subscription.Topics
		r.owned[j.ID] = j.Subscription.Owned
		g.Members[i] = assign.Member{
			ID:         j.ID,
			InstanceID: j.InstanceID,
			// Shared: assign.AssignValid gives an assignor that is not
			// one of package assign's a copy, and those never write.
			Topics:     j.Subscription.Topics,
			Owned:      owned,
			Generation: j.Subscription.Generation,
		}
	}
	// Every Owned set was validated above, then pruned.
	var err error
	if r.group, err = assign.ValidatePruned(g); err != nil {
		return round{}, fmt.Errorf("policy: %w", err)
	}
	if _, ok := slices.BinarySearch(r.ids, in.Leader); !ok {
		return round{}, fmt.Errorf("policy: leader %q is not a member of the round", in.Leader)
	}
	return r, nil
}

// isMember reports whether m takes part in the round.
func (r round) isMember(m spec.MemberID) bool {
	_, ok := slices.BinarySearch(r.ids, m)
	return ok
}

// checkAssignorResult returns an error if the assignor's result names a
// member that is not in the round.
func (r round) checkAssignorResult(name string, a spec.Assignment) error {
	for _, m := range a.Members() {
		if !r.isMember(m) {
			return fmt.Errorf("policy: assignor %s assigned %s to %q, which is not a member of the round", name, a[m], m)
		}
	}
	return nil
}

// result builds the LeaderResult: every member gets assigned[m] and
// revoked[m], the same delay, and the round's leader.
func (r round) result(assigned, revoked spec.Assignment, delay classic.Millis, mem classic.LeaderMemory) classic.LeaderResult {
	out := classic.LeaderResult{Assignments: make(map[spec.MemberID]classic.Assignment, len(r.ids)), Memory: mem}
	for _, m := range r.ids {
		out.Assignments[m] = classic.Assignment{
			Assigned: assigned[m],
			Revoked:  revoked[m],
			Delay:    delay,
			Leader:   r.in.Leader,
		}
	}
	return out
}
