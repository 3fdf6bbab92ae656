package policy

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// Eager returns the eager (stop-the-world) protocol, name "eager",
// Cooperative() == false: the classic rebalance before KIP-429. Every member
// revokes everything it owns before it joins (Kafka's ConsumerCoordinator
// onJoinPrepare under RebalanceProtocol.EAGER), so the leader ignores the
// members' Owned claims: it builds an assign.Group from the subscriptions
// alone (no claims, every generation spec.NoGeneration), runs a, and gives
// each member Assignment{Assigned: a's set for it, Leader: the round's
// leader}, with nothing revoked and no delay.
//
// Guarantees: exactly those of a. The protocol states a's balance law
// (it is a classic.Balancer) exactly when a states one
// (assign.BalancedAssignor). The result is complete and
// subscription-respecting when a is; the round is not cooperative, so
// spec.CheckRound does not apply CooperativeHandoff. Convergence: one round
// per membership or subscription change (everything may move every round).
//
// Assign returns an error when a is nil, when a returns one, or when a
// assigns to a member that is not in the round. The LeaderResult carries no
// memory (eager keeps none).
func Eager(a assign.Assignor) classic.Protocol {
	if b, ok := a.(assign.BalancedAssignor); ok {
		return balancedEager{eager{a: a}, b}
	}
	return eager{a: a}
}

type eager struct{ a assign.Assignor }

func (eager) Name() string      { return "eager" }
func (eager) Cooperative() bool { return false }

// RoundBound is 2 for any group: a round already under way when the
// change lands completes (1), and the change makes the coordinator
// rebalance once (2); in it every member revoked everything before it
// joined, so the leader sees no claims and its assignment needs no
// follow-up. (Where the environment acts only on a quiet network, no round
// is under way and the checker measures 1.)
func (eager) RoundBound(classic.GroupShape) int { return 2 }

// balancedEager is eager over an assignor that states its balance law:
// the protocol states the same one (classic.Balancer).
type balancedEager struct {
	eager
	b assign.BalancedAssignor
}

// Balance is the assignor's balance law.
func (p balancedEager) Balance(v spec.View) []spec.Violation { return p.b.Balance(v) }

func (p eager) Assign(in classic.LeaderInput) (classic.LeaderResult, error) {
	if p.a == nil {
		return classic.LeaderResult{}, fmt.Errorf("policy: eager: no assignor")
	}
	r, err := newRound(in)
	if err != nil {
		return classic.LeaderResult{}, err
	}
	// The round's group without claims: what was valid stays valid.
	group := r.group.Group()
	g := assign.Group{Topics: group.Topics, Members: make([]assign.Member, len(group.Members))}
	for i, m := range group.Members {
		m.Owned, m.Generation = nil, spec.NoGeneration
		g.Members[i] = m
	}
	valid, err := assign.ValidatePruned(g)
	if err != nil {
		return classic.LeaderResult{}, fmt.Errorf("policy: eager: %w", err)
	}
	a, err := assign.AssignValid(p.a, valid)
	if err != nil {
		return classic.LeaderResult{}, fmt.Errorf("policy: eager: assignor %s: %w", p.a.Name(), err)
	}
	if err := r.checkAssignorResult(p.a.Name(), a); err != nil {
		return classic.LeaderResult{}, err
	}
	return r.result(a, nil, 0, classic.LeaderMemory{}), nil
}
