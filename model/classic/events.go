package classic

import (
	"fmt"
	"strings"

	"github.com/rebalance-ref/rebalance/spec"
)

// Input is everything that can happen to a node: an Event at the driver's
// time Now. Now never goes backwards between the inputs of one node.
type Input struct {
	Now   Millis `canon:"instant"`
	Event Event
}

// Event is one thing that happens to a node.
type Event interface {
	fmt.Stringer
	isEvent()
}

// Receive delivers a message sent by node From.
type Receive struct {
	From string
	Msg  Message
}

// TimerFired reports that a timer the node armed has reached its deadline.
// A node ignores a TimerFired for a timer it has since cancelled or re-armed
// to a later deadline, so drivers may deliver stale firings.
type TimerFired struct{ Timer Timer }

// Start tells a member process to join the group (the application called
// subscribe and poll). It is a no-op for a member that is already in the
// group.
type Start struct{}

// Subscribe changes a member's subscription. The member revokes what it
// owns of topics it leaves (eager: everything) and rejoins.
type Subscribe struct{ Topics []string }

// Leave tells a member to leave the group gracefully: it revokes everything
// and, if dynamic, sends LeaveGroup. A static member leaves silently and is
// removed by its session timeout (KIP-345).
type Leave struct{}

// RequestRejoin asks a member to rejoin (the application or a scheduled
// rebalance wants a new round).
type RequestRejoin struct{ Reason string }

// MetadataUpdate tells a member the current partition counts of the topics.
type MetadataUpdate struct{ Topics spec.Topics }

func (Receive) isEvent()        {}
func (TimerFired) isEvent()     {}
func (Start) isEvent()          {}
func (Subscribe) isEvent()      {}
func (Leave) isEvent()          {}
func (RequestRejoin) isEvent()  {}
func (MetadataUpdate) isEvent() {}

// String prints the event on one line.
func (e Receive) String() string { return "receive from " + e.From + ": " + e.Msg.String() }

// String prints the event on one line.
func (e TimerFired) String() string { return "timer " + e.Timer.String() + " fired" }

// String prints the event on one line.
func (Start) String() string { return "start" }

// String prints the event on one line.
func (e Subscribe) String() string { return "subscribe [" + strings.Join(e.Topics, " ") + "]" }

// String prints the event on one line.
func (Leave) String() string { return "leave" }

// String prints the event on one line.
func (e RequestRejoin) String() string { return "request rejoin: " + e.Reason }

// String prints the event on one line.
func (e MetadataUpdate) String() string {
	var parts []string
	for _, t := range e.Topics.Names() {
		parts = append(parts, fmt.Sprintf("%s:%d", t, e.Topics[t]))
	}
	return "metadata [" + strings.Join(parts, " ") + "]"
}

// TimerKind says what a timer is for.
type TimerKind uint8

// The timers of the classic protocol.
const (
	// SessionTimer (coordinator, per member): the member is removed when
	// no heartbeat arrived for its session timeout.
	SessionTimer TimerKind = iota + 1
	// JoinTimer (coordinator): the JoinGroup barrier gives up on members
	// that have not rejoined within the rebalance timeout.
	JoinTimer
	// HeartbeatTimer (member): time to send the next heartbeat.
	HeartbeatTimer
	// RequestTimer (member): a JoinGroup or SyncGroup got no response in
	// time; the member sends it again.
	RequestTimer
	// ScheduledRebalanceTimer (member): the scheduled rebalance delay of
	// Designs II and III has passed; the member rejoins.
	ScheduledRebalanceTimer
)

var timerNames = [...]string{"?", "session", "join", "heartbeat", "request", "scheduled-rebalance"}

// String names the timer kind.
func (k TimerKind) String() string {
	if int(k) < len(timerNames) {
		return timerNames[k]
	}
	return fmt.Sprintf("timer(%d)", k)
}

// Timer names one timer of one node. A node has at most one armed timer
// per Timer value; arming it again moves its deadline.
type Timer struct {
	Kind   TimerKind
	Member spec.MemberID // the member a coordinator's SessionTimer is for
}

// String prints "kind" or "kind(member)".
func (t Timer) String() string {
	if t.Member != "" {
		return t.Kind.String() + "(" + string(t.Member) + ")"
	}
	return t.Kind.String()
}

// TimerCmd arms a timer to fire at At, or cancels it.
type TimerCmd struct {
	Timer  Timer
	At     Millis `canon:"instant"`
	Cancel bool
}

// String prints "set timer@At" or "cancel timer".
func (c TimerCmd) String() string {
	if c.Cancel {
		return "cancel " + c.Timer.String()
	}
	return fmt.Sprintf("set %s@%d", c.Timer, c.At)
}

// CallbackKind is the kind of a callback a member asks the application to
// run.
type CallbackKind uint8

// The callbacks of a member (ConsumerRebalanceListener, and Connect's
// start/stop of connectors and tasks).
const (
	// Assigned: start working on Resources (onPartitionsAssigned).
	Assigned CallbackKind = iota + 1
	// Revoked: stop working on Resources, committing first
	// (onPartitionsRevoked).
	Revoked
	// Lost: Resources were already taken away; stop without committing
	// (onPartitionsLost).
	Lost
	// AssignorFailed: this member led the round and its assignor returned
	// an illegal assignment; Detail names the violation. Nothing of it was
	// applied.
	AssignorFailed
	// Fatal: the member cannot continue (for example
	// INCONSISTENT_GROUP_PROTOCOL or FENCED_INSTANCE_ID); Detail says why.
	Fatal
)

var callbackNames = [...]string{"?", "assigned", "revoked", "lost", "assignor-failed", "fatal"}

// String names the callback kind.
func (k CallbackKind) String() string {
	if int(k) < len(callbackNames) {
		return callbackNames[k]
	}
	return fmt.Sprintf("callback(%d)", k)
}

// Callback asks the application to run a rebalance callback.
type Callback struct {
	Kind       CallbackKind
	Resources  spec.Set
	Generation spec.Generation
	Detail     string
}

// String prints the callback on one line.
func (c Callback) String() string {
	s := fmt.Sprintf("%s %s gen=%d", c.Kind, c.Resources, c.Generation)
	if c.Detail != "" {
		s += ": " + c.Detail
	}
	return s
}

// Output is what one Step asks the driver to do, in order: send Messages,
// apply Timers, run Callbacks. It is data; the node performs none of it.
type Output struct {
	Messages  []Envelope
	Timers    []TimerCmd
	Callbacks []Callback
	// Round, set by a leader member on the step that sends its SyncGroup,
	// is the assignment round it computed, for observers (the world checks
	// spec.CheckRound on it). It is nil on every other step.
	Round *spec.Round
}

// IsEmpty reports whether the output asks for nothing.
func (o Output) IsEmpty() bool {
	return len(o.Messages) == 0 && len(o.Timers) == 0 && len(o.Callbacks) == 0 && o.Round == nil
}

// String prints every element of o on its own line, messages first.
func (o Output) String() string {
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
