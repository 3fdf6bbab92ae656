package policy

import (
	"maps"
	"slices"

	"github.com/rebalance-ref/rebalance/model/classic"
)

// Defaults of IncrementalConfig.
const (
	DefaultMaxMovesPerRound                = 1
	DefaultStepDelay        classic.Millis = 1000
)

// IncrementalConfig configures Incremental. The zero value is the default.
type IncrementalConfig struct {
	// MaxDelay and LeaderFailover are as in DeferredConfig.
	MaxDelay       classic.Millis `canon:"duration"`
	LeaderFailover LeaderFailover
	// MaxMovesPerRound bounds the resources one round revokes for balance;
	// 0 or less means DefaultMaxMovesPerRound (1).
	MaxMovesPerRound int
	// StepDelay is the scheduled delay between two revoking rounds; 0 or
	// less means DefaultStepDelay (1000 ms).
	StepDelay classic.Millis `canon:"duration"`
}

// Incremental returns the incremental protocol of the seed design's Design
// III, name "incremental", Cooperative() == true: Deferred (same steps 1-5
// and 7-8, same lost-resource delay and LeaderFailover rules), with step 6
// replaced. A round that needs load-balancing revocations and has no delay
// pending revokes at most MaxMovesPerRound of them; when more remain to
// move, it gives every member Delay = StepDelay and schedules the
// next step at Now + StepDelay. The revoked resources are handed out least
// loaded in the immediate follow-up round, which revokes nothing and passes
// the remaining time to the step on as its Delay. At the step's time the
// next batch is revoked, and so on. There is no exponential back-off: a
// revoking round that follows a revoking round without a step in between
// (new imbalance right after a last step) skips and schedules a step
// StepDelay later instead. Unlike Deferred, the revocation flag is kept
// while a delay runs, so a rebalance that comes in between steps does not
// revoke early.
//
// With homogeneous subscriptions a step is the first MaxMovesPerRound of
// Connect's revocations, taken one at a time from the then most loaded
// member, each member's tasks from the connector spread worst among the
// workers first (KAFKA-17049; see spreadByConnector), so that the steps
// spread each connector's tasks rather than move one connector's after
// another. With heterogeneous ones it is the first MaxMovesPerRound moves of
// Deferred's plan, under Deferred's simulation test (falling back to the
// first move alone, which in a quiet group always passes).
//
// Bound: with M resources to move for balance when the imbalance appears
// (Connect's revocations when every member may take everything), a quiet
// group takes ⌈M / MaxMovesPerRound⌉ revoking rounds, each followed by its
// follow-up round, with StepDelay between consecutive steps: at most
// 2·⌈M / MaxMovesPerRound⌉ rounds and (⌈M / MaxMovesPerRound⌉ − 1)·StepDelay
// of scheduled delay, plus the rounds and delay of the lost-resource rule.
// Every step lowers the sum of squared loads, so with heterogeneous
// subscriptions the steps end too, and the group ends balanced as Deferred
// does. SuccessiveRevokingRounds counts the steps of the current balancing
// run.
//
// A departure during a step: the step's schedule doubles as the pending
// delay, so the departed member's resources are held only until the step's
// time (Connect's back-off has the same effect).
func Incremental(cfg IncrementalConfig) classic.Protocol {
	p := connectPolicy{
		name:        "incremental",
		maxDelay:    resolveMaxDelay(cfg.MaxDelay),
		failover:    cfg.LeaderFailover,
		incremental: true,
		maxMoves:    cfg.MaxMovesPerRound,
		stepDelay:   cfg.StepDelay,
	}
	if p.maxMoves <= 0 {
		p.maxMoves = DefaultMaxMovesPerRound
	}
	if p.stepDelay <= 0 {
		p.stepDelay = DefaultStepDelay
	}
	return p
}

// incrementalBalance is Design III's step 6, run when no delay is pending.
// It sets each kind's plan and returns the delay.
func (lr *leaderRound) incrementalBalance(kinds []*kindRound, s *schedule) classic.Millis {
	full := make([]proposal, len(kinds))
	moves := make([][]move, len(kinds))
	wanted := false
	for i, ks := range kinds {
		if ks.hom {
			full[i] = lr.connectRule(ks)
		} else {
			moves[i] = lr.movePlan(ks)
			full[i] = proposalOf(moves[i])
		}
		wanted = wanted || !full[i].isEmpty()
	}
	stop := func() {
		s.revokedPrev, s.successive, s.scheduledAt = false, 0, 0
	}
	switch {
	case !wanted:
		stop()
		return 0
	case s.scheduledAt > lr.now:
		// A step is pending (only reachable with delays disabled; otherwise
		// step 5 reports the pending delay). Like step 5 with MaxDelay, a
		// remembered deadline never waits longer than one step.
		d := min(s.scheduledAt-lr.now, lr.p.stepDelay)
		s.scheduledAt = lr.now + d
		return d
	case s.revokedPrev && s.scheduledAt == 0:
		// The previous round revoked and scheduled nothing: wait a step.
		s.scheduledAt = lr.now + lr.p.stepDelay
		return lr.p.stepDelay
	}
	budget, remain, revoke := lr.p.maxMoves, false, false
	for i, ks := range kinds {
		if ks.hom {
			// Connect's rule, cut to the budget: every revocation from a
			// member above its target helps.
			ks.plan = lr.truncate(ks, full[i], budget)
		} else {
			// The first moves of the plan, checked like Deferred's.
			n := min(budget, len(moves[i]))
			ks.plan = lr.verified(ks, proposalOf(moves[i][:n]), proposalOf(moves[i][:min(1, n)]))
		}
		budget -= ks.plan.size()
		remain = remain || full[i].size() > ks.plan.size()
		revoke = revoke || !ks.plan.isEmpty()
	}
	if !revoke {
		stop()
		return 0
	}
	s.revokedPrev = true
	s.successive++
	if remain {
		s.scheduledAt = lr.now + lr.p.stepDelay
		return lr.p.stepDelay
	}
	s.scheduledAt = 0
	return 0
}

// truncate takes at most budget resources from plan, one at a time from the
// member that holds the most after the resources already taken (ties by
// id), each member's in plan order. Only the members plan takes from can
// be chosen, so only they are looked at.
func (lr *leaderRound) truncate(ks *kindRound, plan proposal, budget int) proposal {
	from := slices.Sorted(maps.Keys(plan))
	count := make([]int, len(from))
	for k, m := range from {
		count[k] = len(ks.on()[lr.position(m)])
	}
	pos := make([]int, len(from))
	take := proposal{}
	for range budget {
		best := -1
		for k, m := range from {
			if pos[k] < len(plan[m]) && (best < 0 || count[k] > count[best]) {
				best = k
			}
		}
		if best < 0 {
			break
		}
		m := from[best]
		take[m] = append(take[m], plan[m][pos[best]])
		pos[best]++
		count[best]--
	}
	return take
}
