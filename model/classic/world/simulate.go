package world

import (
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// DefaultTopics is the resource universe of the default environment: two
// topics, T with four partitions and U with two.
func DefaultTopics() spec.Topics { return spec.Topics{"T": 4, "U": 2} }

// DefaultBounds is the environment the property tests and rebalance check
// drive each protocol through: four members A, B, C, D running protocol
// with the given fault switches (C subscribes to T only, the others to T
// and U; D is static, instance d), a scheduled-rebalance delay of 20 s and
// a step delay of 2 s for the designs that have them, and a budget of 2
// crashes, 2 restarts, 1 leave, 2 subscription changes, 3 lost and 2
// duplicated messages.
func DefaultBounds(protocol string, faults classic.Faults) (Bounds, error) {
	var b Bounds
	for _, m := range []struct {
		name, instance string
		topics         []string
	}{
		{"A", "", []string{"T", "U"}},
		{"B", "", []string{"T", "U"}},
		{"C", "", []string{"T"}},
		{"D", "d", []string{"T", "U"}},
	} {
		protos, err := Protocols([]string{protocol}, ProtocolOptions{MaxDelay: 20000, StepDelay: 2000})
		if err != nil {
			return Bounds{}, err
		}
		b.Members = append(b.Members, classic.MemberConfig{
			Name: m.name, InstanceID: m.instance, Topics: m.topics, Protocols: protos,
			Metadata: DefaultTopics(), Faults: faults,
		})
	}
	b.Crashes, b.Restarts, b.Leaves, b.Resubscribes, b.Drops, b.Duplicates = 2, 2, 1, 2, 3, 2
	b.TopicChoices = [][]string{{"T"}, {"T", "U"}, {"U"}}
	return b, nil
}

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
	for _, name := range w.Names() {
		if w.Processes[name].Isolated {
			w.own(name).Isolated = false
		}
	}
	for t := classic.Millis(0); t < horizon; t += step {
		if !w.Advance(step) {
			return false
		}
	}
	return w.Stabilize(stabilizeLimit)
}

// BalanceGuarantee says which balance a protocol's assignor promises.
type BalanceGuarantee uint8

const (
	// NoBalance checks coverage only.
	NoBalance BalanceGuarantee = iota
	// PerTopic: each topic is spread over its subscribers within one
	// (range, round-robin; spec.CheckTopicBalance).
	PerTopic
	// Global: no single move could improve the members' totals (sticky,
	// cooperative-sticky, Connect's least-loaded; spec.CheckBalance).
	Global
)

// BalanceOf is the balance the named protocol's default assignor promises:
// eager runs range (per topic); the cooperative designs balance totals.
func BalanceOf(protocol string) BalanceGuarantee {
	if protocol == "eager" {
		return PerTopic
	}
	return Global
}

// CheckConverged returns the violations of the convergence laws in the
// current state: Coverage always, and the balance law of guarantee g.
func (w *World) CheckConverged(g BalanceGuarantee) []spec.Violation {
	return w.checkConverged(w.View(), g)
}

func (w *World) checkConverged(v spec.View, g BalanceGuarantee) []spec.Violation {
	out := spec.CheckCoverage(v)
	switch g {
	case PerTopic:
		out = append(out, spec.CheckTopicBalance(v)...)
	case Global:
		out = append(out, spec.CheckBalance(v)...)
	}
	return out
}
