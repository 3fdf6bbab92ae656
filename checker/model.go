// Package checker is the explicit-state model checker: it explores every
// reachable state of a closed world (model/classic/world,
// model/nextgen/world) breadth-first, so every counterexample it reports is
// a shortest one, and checks the laws of package spec in every state and
// on every step; once the graph is complete it checks liveness under weak
// fairness of the protocol's own actions.
//
// The checker is generic: a Model says what its states and actions are. It
// stores a 64-bit fingerprint of each state's canonical encoding (package
// canon), or the whole encoding with Options.Exact, and keeps concrete
// states only for the breadth-first frontier. Counterexamples are replayed
// from the initial state by action index, and printed both as a table of
// steps and as a scenario file that the scenario tests read.
package checker

import (
	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// Kind says who takes an action, which decides how liveness treats it:
// Own actions (the protocol's own steps) are weakly fair, Env actions
// (bounded environment actions) may stop at any time, EnvUnbounded ones
// may repeat forever and are not fair. It is the closed world's kind, so
// the worlds are checker models as they are.
type Kind = world.Kind

// The kinds of action.
const (
	Own          = world.Own
	Env          = world.Env
	EnvUnbounded = world.EnvUnbounded
)

// Model is a closed world the checker can explore. S is a state, A an
// action. Every method must be deterministic, and none may modify a state
// it is given: Step returns a new state.
type Model[S any, A any] interface {
	// Init returns the initial states.
	Init() []S
	// Actions appends the actions enabled in s to dst, in a deterministic
	// order (counterexamples name actions by their index in it).
	Actions(s S, dst []A) []A
	// Step takes action a in s and returns the successor and the
	// violations of the safety laws found on the way: the state laws in
	// the successor, the step laws across the step, the round laws on
	// any assignment round sent, and the bounded-rounds law.
	Step(s S, a A) (S, []spec.Violation)
	// Encode writes the canonical encoding of s: equal encodings must
	// mean states that behave the same from then on.
	Encode(e *canon.Encoder, s S)
	// Kind says who takes a.
	Kind(a A) Kind
	// FairKey identifies an Own action across states for weak fairness:
	// the same message delivered, the same timer fired. Two actions with
	// the same key in one state must not exist.
	FairKey(s S, a A) uint64
	// Converged returns the violations of the liveness target in s: every
	// subscribed resource owned by exactly one current member, and the
	// group balanced by its assignor's guarantee. Empty means converged.
	Converged(s S) []spec.Violation
	// Owners fingerprints who owns what in s, for the stability law: a
	// converged group must stop moving resources.
	Owners(s S) uint64
	// Line prints a as a command of the scenario language, as it applies
	// in s.
	Line(s S, a A) string
	// Preamble is the commands that set up a scenario replaying a path
	// from the initial state.
	Preamble() []string
	// Interchangeable lists groups of member names that may be permuted
	// within each group without changing behaviour, for symmetry
	// reduction. Empty when the model has none.
	Interchangeable() [][]string
}
