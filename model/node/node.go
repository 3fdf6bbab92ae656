// Package node is what the pure nodes of every protocol family share: the
// input a node steps on (one event at the driver's time), the output it
// returns (messages to send, timers to arm or cancel, callbacks to run),
// the envelope a message travels in, and the driver's time.
//
// Each family (model/classic, model/nextgen) instantiates these with its
// own message, timer and callback types and names them with aliases
// (classic.Envelope is Envelope[classic.Message], and so on), so a closed
// world, a driver or a printer can be written once for every family.
//
// The package is pure: no clock, no randomness, standard library and
// package spec only.
package node

import (
	"fmt"
	"strings"

	"github.com/rebalance-ref/rebalance/spec"
)

// Millis is a time or a duration in milliseconds on the driver's clock.
type Millis int64

// CoordinatorNode is the node name of the group coordinator in envelopes.
const CoordinatorNode = "coordinator"

// Envelope is a message in flight between two nodes, named by their node
// names (CoordinatorNode, or a member's process address).
type Envelope[M fmt.Stringer] struct {
	From, To string
	Msg      M
}

// String prints "from->to Message".
func (e Envelope[M]) String() string { return e.From + "->" + e.To + " " + e.Msg.String() }

// Event is one thing that happens to a node: the events of this package,
// and each family's own (an application finishing a revocation, a rejoin
// request).
type Event interface {
	fmt.Stringer
	// NodeEvent marks the event types; it does nothing.
	NodeEvent()
}

// Input is everything that can happen to a node: an Event at the driver's
// time Now. Now never goes backwards between the inputs of one node.
type Input struct {
	Now   Millis `canon:"instant"`
	Event Event
}

// Receive delivers a message sent by node From.
type Receive[M fmt.Stringer] struct {
	From string
	Msg  M
}

// TimerFired reports that a timer the node armed has reached its
// deadline. A node ignores a firing of a timer it has since cancelled or
// re-armed to a later deadline, so drivers may deliver stale firings.
type TimerFired[T fmt.Stringer] struct{ Timer T }

// Start tells a member process to join the group (the application
// subscribed and polls). It is a no-op for a member already in the group.
type Start struct{}

// Subscribe changes a member's subscription.
type Subscribe struct{ Topics []string }

// Leave tells a member to leave the group.
type Leave struct{}

// MetadataUpdate tells a node the current partition counts of the topics.
type MetadataUpdate struct{ Topics spec.Topics }

// NodeEvent marks Receive as an Event.
func (Receive[M]) NodeEvent() {}

// NodeEvent marks TimerFired as an Event.
func (TimerFired[T]) NodeEvent() {}

// NodeEvent marks Start as an Event.
func (Start) NodeEvent() {}

// NodeEvent marks Subscribe as an Event.
func (Subscribe) NodeEvent() {}

// NodeEvent marks Leave as an Event.
func (Leave) NodeEvent() {}

// NodeEvent marks MetadataUpdate as an Event.
func (MetadataUpdate) NodeEvent() {}

// String prints the event on one line.
func (e Receive[M]) String() string { return "receive from " + e.From + ": " + e.Msg.String() }

// String prints the event on one line.
func (e TimerFired[T]) String() string { return "timer " + e.Timer.String() + " fired" }

// String prints the event on one line.
func (Start) String() string { return "start" }

// String prints the event on one line.
func (e Subscribe) String() string { return "subscribe [" + strings.Join(e.Topics, " ") + "]" }

// String prints the event on one line.
func (Leave) String() string { return "leave" }

// String prints the event on one line.
func (e MetadataUpdate) String() string {
	var parts []string
	for _, t := range e.Topics.Names() {
		parts = append(parts, fmt.Sprintf("%s:%d", t, e.Topics[t]))
	}
	return "metadata [" + strings.Join(parts, " ") + "]"
}

// TimerCmd arms a timer to fire at At, or cancels it. A node has at most
// one armed timer per timer value; arming it again moves its deadline.
type TimerCmd[T fmt.Stringer] struct {
	Timer  T
	At     Millis `canon:"instant"`
	Cancel bool
}

// String prints "set timer@At" or "cancel timer".
func (c TimerCmd[T]) String() string {
	if c.Cancel {
		return "cancel " + c.Timer.String()
	}
	return fmt.Sprintf("set %s@%d", c.Timer, c.At)
}

// Output is what one Step asks the driver to do, in order: send Messages,
// apply Timers, run Callbacks. It is data; the node performs none of it.
type Output[M, T, C fmt.Stringer] struct {
	Messages  []Envelope[M]
	Timers    []TimerCmd[T]
	Callbacks []C
	// Round, set by a classic leader on the step that sends its
	// SyncGroup, is the assignment round it computed, for observers (the
	// closed world checks spec.CheckRound on it). It is nil on every other
	// step and for every other node.
	Round *spec.Round
	// RoundFailed, set by a classic leader on the step that sends a round
	// it could not compute or had to reject (every member is told to keep
	// what it owns), lets observers count that round too: the
	// bounded-rounds law counts rounds computed, sent or failed.
	RoundFailed bool
	// Target, set by a next-gen coordinator on the step that computes a
	// new target assignment, is that computation as a round (Claims are
	// the previous targets, Assigned the new one), for observers: the
	// closed world judges spec.StableWhenBalanced on it when Sticky is
	// set. It is not an assignment round: nothing counts or logs it.
	Target *spec.Round
	// Withheld, set by a next-gen coordinator on the step that answers a
	// member with part of its target withheld (UNRELEASED_PARTITIONS), is
	// that decision with the holders the coordinator records, for
	// observers: the closed world judges spec.NoNeedlessWait on it.
	Withheld *spec.Withholding
}

// Send appends msg, sent by node from to node to, to the messages.
func (o *Output[M, T, C]) Send(from, to string, msg M) {
	o.Messages = append(o.Messages, Envelope[M]{From: from, To: to, Msg: msg})
}

// Buffered returns an empty Output whose lists are backed by one
// allocation that holds a message, two timer commands and a callback:
// what a next-gen member's step usually gives (a heartbeat and its
// timers, or a response's timers), where appending to nil lists would
// allocate each list on its own. It pays only for a node whose steps
// nearly always output something: a classic member mostly answers a
// heartbeat response with nothing, and the buffer allocated anyway cost
// it more than it saved (docs/costs.md, sixth pass); the classic
// coordinator's steps give one message and one timer, a smaller buffer of
// its own. A step that starts from it calls NilEmpty before it returns.
func Buffered[M, T, C fmt.Stringer]() Output[M, T, C] {
	buf := new(outputBuffer[M, T, C])
	return Output[M, T, C]{Messages: buf.messages[:0], Timers: buf.timers[:0], Callbacks: buf.callbacks[:0]}
}

// outputBuffer is the backing of a Buffered output.
type outputBuffer[M, T, C fmt.Stringer] struct {
	messages  [1]Envelope[M]
	timers    [2]TimerCmd[T]
	callbacks [1]C
}

// NilEmpty sets each empty list of o (messages, timers, callbacks) to
// nil, as an output built by appending to nil lists has them: for a step
// that backs its lists with a buffer of its own, so that its outputs
// compare and print as the others do.
func (o *Output[M, T, C]) NilEmpty() {
	if len(o.Messages) == 0 {
		o.Messages = nil
	}
	if len(o.Timers) == 0 {
		o.Timers = nil
	}
	if len(o.Callbacks) == 0 {
		o.Callbacks = nil
	}
}

// Reset empties o for the next step of a node's StepInto, keeping the
// arrays of its lists to append to: a driver that is done with each
// output before it steps again passes the same Output to every StepInto
// and allocates no lists once they have grown to what a step gives (a
// group of a thousand members heartbeats hundreds of times a simulated
// second, and each heartbeat's lists were allocations of their own). It
// zeroes the elements the last step wrote, so the arrays keep no message
// or callback alive, and the other fields. After a StepInto, an empty list
// of o is empty but not nil, where the node's Step returns nil; nothing
// else differs.
func (o *Output[M, T, C]) Reset() {
	// Field by field, and each pointer only when set: a step's output
	// rarely has a round, a target or a withholding, and writing the
	// whole struct cost every step a write of each of its six pointers
	// (a large deferred run spent 1.3 % of its CPU on that line).
	clear(o.Messages)
	clear(o.Timers)
	clear(o.Callbacks)
	o.Messages, o.Timers, o.Callbacks = o.Messages[:0], o.Timers[:0], o.Callbacks[:0]
	if o.Round != nil || o.RoundFailed || o.Target != nil || o.Withheld != nil {
		o.Round, o.RoundFailed, o.Target, o.Withheld = nil, false, nil, nil
	}
}

// IsEmpty reports whether the output asks for nothing.
func (o Output[M, T, C]) IsEmpty() bool {
	return len(o.Messages) == 0 && len(o.Timers) == 0 && len(o.Callbacks) == 0 && o.Round == nil && !o.RoundFailed && o.Target == nil && o.Withheld == nil
}

// String prints every element of o on its own line, messages first.
func (o Output[M, T, C]) String() string {
	var b strings.Builder
	for _, m := range o.Messages {
		b.WriteString("send " + m.String() + "\n")
	}
	for _, t := range o.Timers {
		b.WriteString(t.String() + "\n")
	}
	for _, c := range o.Callbacks {
		b.WriteString("callback " + c.String() + "\n")
	}
	return b.String()
}

// RoundNumber numbers the round a callback belongs to: a classic
// generation or a next-gen member epoch.
type RoundNumber interface{ spec.Generation | spec.Epoch }

// Callback is a rebalance callback a member asks its application to run:
// Kind on Resources, belonging to round Round (each family's alias says
// which round that is); Detail says why, for the kinds that carry a reason.
type Callback[K fmt.Stringer, R RoundNumber] struct {
	Kind      K
	Resources spec.Set
	Round     R
	Detail    string
}

// Notify appends to out the callback asking the application to run kind
// on rs, for round, with detail for the kinds that carry a reason: a
// member's only way to queue a callback.
func Notify[M, T fmt.Stringer, K fmt.Stringer, R RoundNumber](out *Output[M, T, Callback[K, R]], kind K, rs spec.Set, round R, detail string) {
	out.Callbacks = append(out.Callbacks, Callback[K, R]{Kind: kind, Resources: rs, Round: round, Detail: detail})
}

// String prints "kind resources gen=N" for a generation, "kind resources
// epoch=N" for an epoch, then ": detail" when Detail is not empty.
func (c Callback[K, R]) String() string {
	label := "epoch"
	if _, ok := any(c.Round).(spec.Generation); ok {
		label = "gen"
	}
	s := fmt.Sprintf("%s %s %s=%d", c.Kind, c.Resources, label, c.Round)
	if c.Detail != "" {
		s += ": " + c.Detail
	}
	return s
}

// CopyInto copies *src over *dst and returns dst, or a new copy when dst
// is nil. For a node whose fields are replaced whole, never changed in
// place, a copy of its struct is a clone, and CopyInto is that clone
// written into the memory of a node nobody uses any more.
func CopyInto[T any](src, dst *T) *T {
	if dst == nil {
		dst = new(T)
	}
	*dst = *src
	return dst
}
