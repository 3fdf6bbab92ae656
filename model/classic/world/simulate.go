package world

import (
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// Pick chooses one of the enabled actions acts with choose (which must
// return an index in [0, n)): three times in four one of the protocol's own
// steps (deliver a message, fire the next timer) when any is enabled,
// otherwise an environment action, then uniformly within the group. Biasing
// toward the protocol's steps lets random runs get through whole rebalances
// between environment events instead of drowning in them.
func Pick(acts []Action, choose func(n int) int) Action {
	var own, env []Action
	for _, a := range acts {
		if a.Kind == Deliver || a.Kind == FireNext {
			own = append(own, a)
		} else {
			env = append(env, a)
		}
	}
	group := own
	if len(own) == 0 || (len(env) > 0 && choose(4) == 0) {
		group = env
	}
	return group[choose(len(group))]
}

// RandomWalk takes up to steps enabled actions, each chosen by Pick, and
// returns the actions taken. The world
// stays pure: the caller owns the randomness. It stops early when nothing is
// enabled.
func (w *World) RandomWalk(b Bounds, u *Used, steps int, choose func(n int) int) []Action {
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
// then advances the clock by horizon in slices of step, with messages
// delivered promptly. It reports false if the network never drained (a
// livelock of messages).
func (w *World) Settle(horizon, step classic.Millis) bool {
	for _, p := range w.Processes {
		p.Isolated = false
	}
	for t := classic.Millis(0); t < horizon; t += step {
		if !w.Advance(step) {
			return false
		}
	}
	return w.Stabilize(stabilizeLimit)
}

// CheckConverged returns the violations of the convergence laws in the
// current state: Coverage always, and Balance when balanced is set (the
// protocol's assignor promises balance in the sense of spec.CheckBalance).
func (w *World) CheckConverged(balanced bool) []spec.Violation {
	v := w.View()
	out := spec.CheckCoverage(v)
	if balanced {
		out = append(out, spec.CheckBalance(v)...)
	}
	return out
}
