package world

import (
	"fmt"
	"time"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/sim"
	"github.com/rebalance-ref/rebalance/spec"
)

// RandomWalk takes up to steps enabled actions, each chosen by Pick with
// choose (an index in [0, n)), and returns the actions taken. The world
// stays pure: the caller owns the randomness. It stops early when nothing
// is enabled.
func (w *World[M, T, C, P]) RandomWalk(b Bounds[P], u *Used, steps int, choose func(n int) int) []Action {
	var trail []Action
	for range steps {
		acts := w.Enabled(b, *u)
		if len(acts) == 0 {
			break
		}
		a := Pick(acts, choose)
		trail = append(trail, a)
		if err := w.Apply(a, b, u); err != nil {
			panic("world: enabled action failed: " + a.String() + ": " + err.Error())
		}
	}
	return trail
}

// Settle lets the environment fall quiet: it heals every isolated process,
// makes every application prompt, then advances the clock by horizon in
// slices of step. It reports false if the world never drained (a livelock).
// It records when the quiet began, for CheckTimeBound.
func (w *World[M, T, C, P]) Settle(horizon, step node.Millis) bool {
	w.QuietSince = w.Now
	for _, name := range w.Names() {
		if p := w.Process(name); p.Isolated || p.Slow {
			p = w.own(name)
			p.Isolated, p.Slow = false, false
		}
	}
	for t := node.Millis(0); t < horizon; t += step {
		if !w.Advance(step) {
			return false
		}
	}
	return w.Stabilize(StabilizeLimit)
}

// Repair acts on a quiet world that has not converged for a reason its
// family documents (classic: world.RejoinStaleStatic) and says what it
// did, "" when nothing.
type Repair[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any] func(*World[M, T, C, P]) (string, error)

// SettleRepaired is Settle, then, when the world settled, broke no law
// and has not converged under balance, repair (if not nil) and, when the
// repair did something, Settle again. It reports whether the world
// settled and what the repair did.
func (w *World[M, T, C, P]) SettleRepaired(horizon, step node.Millis, balance Balance, repair Repair[M, T, C, P]) (settled bool, repaired string, err error) {
	settled = w.Settle(horizon, step)
	if !settled || len(w.Violations) > 0 || repair == nil || len(w.CheckConverged(balance)) == 0 {
		return settled, "", nil
	}
	if repaired, err = repair(w); err != nil || repaired == "" {
		return settled, repaired, err
	}
	return w.Settle(horizon, step), repaired, nil
}

// Balance is a protocol's balance law: spec.CheckBalance for assignors
// that balance the members' totals, spec.CheckTopicBalance for those that
// balance each topic (range), nil for none.
type Balance func(spec.View) []spec.Violation

// CheckConverged returns the violations of the convergence laws in the
// current state: Coverage, and balance when it is not nil.
func (w *World[M, T, C, P]) CheckConverged(balance Balance) []spec.Violation {
	return converged(w.View(), balance)
}

func converged(v spec.View, balance Balance) []spec.Violation {
	out := spec.CheckCoverage(v)
	if balance != nil {
		out = append(out, balance(v)...)
	}
	return out
}

// isConverged reports whether converged(v, balance) is empty, without
// building the violations.
func isConverged(v spec.View, balance Balance) bool {
	return spec.CoverageHolds(v) && (balance == nil || len(balance(v)) == 0)
}

// CheckTimeBound judges Timely's time clause after Settle: the group must
// have stopped changing within the bound its protocol states
// (Family.TimeBound, for the group as it is) of the later of the quiet's
// start and the last wait the environment forced (Removed). Only a run
// whose network lost, duplicated and held up nothing is judged: each of
// those may cost one of the protocol's timeouts (a retry after the
// request timeout, a JoinGroup barrier waiting out the rebalance timeout
// for a lost JoinGroup, a duplicated JoinGroup answered into a generation
// the member has left), and the session clause says what they may not
// cost. Random runs with Bounds.Prompt and neither drops nor duplicates
// are always judged. A run whose environment last acted while a member was
// in a round (ActedMidRound) is allowed that round besides the stated
// ones: a protocol's stated rounds count from a change the group sees
// between rebalances, and the round in flight serves the group as it was
// (a subscription changed while the member's JoinGroup is in flight takes
// KIP-429's two rounds after the round in flight, as Kafka's clients do;
// finding_subscribe_during_round.txt).
func (w *World[M, T, C, P]) CheckTimeBound() []spec.Violation {
	if !w.TimeJudged() {
		return nil
	}
	var live []P
	for _, name := range w.names {
		if p := w.Process(name); p.Node != nil && !p.Node.Phase().Done() {
			live = append(live, *p.config)
		}
	}
	b, ok := w.Family.TimeBound(w.Coordinator, live, w.Topics)
	if !ok {
		return nil
	}
	if w.ActedMidRound {
		b.Rounds++
	}
	return spec.CheckTimeBound(w.SinceQuiet(), b)
}

// SinceQuiet is how long after the environment fell quiet (Settle) the
// group last changed, not counting the waits the environment forced
// (Removed): what Timely's time clause bounds.
func (w *World[M, T, C, P]) SinceQuiet() time.Duration {
	return time.Duration(max(w.Changed-max(w.QuietSince, w.Removed), 0)) * time.Millisecond
}

// TimeJudged reports whether CheckTimeBound judges the run: its network
// lost, duplicated and held up nothing.
func (w *World[M, T, C, P]) TimeJudged() bool { return !w.networkExcuses(1) }
