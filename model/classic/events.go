package classic

import (
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// The node vocabulary this family shares with every other is package
// model/node's. The family names the instances of node's generic types with
// its own messages, timers and callbacks (Envelope, with the messages, and
// the block below); the input and the events every family shares (Input,
// Event, Start, Subscribe, Leave, MetadataUpdate) are written node.Input and
// so on. How a classic member takes them: Start joins the group (the
// application called subscribe and poll; a no-op for a member already in
// it); Subscribe revokes what it owns of topics it leaves (eager:
// everything) and rejoins; Leave revokes everything and, if dynamic, sends
// LeaveGroup (a static member leaves silently and is removed by its session
// timeout, KIP-345); MetadataUpdate records the partition counts.
type (
	// Receive delivers a message sent by node From.
	Receive = node.Receive[Message]
	// TimerFired reports that a timer the node armed has reached its
	// deadline. A node ignores a firing of a timer it has since cancelled
	// or re-armed to a later deadline, so drivers may deliver stale
	// firings.
	TimerFired = node.TimerFired[Timer]
	// TimerCmd arms a timer to fire at At, or cancels it.
	TimerCmd = node.TimerCmd[Timer]
	// Output is what one Step asks the driver to do, in order: send
	// Messages, apply Timers, run Callbacks; a leader's Round is the
	// assignment round it computed, on the step that sends its SyncGroup.
	Output = node.Output[Message, Timer, Callback]
)

// Input and Start are node.Input and node.Start under the names the
// drivers written before package node still use (tla/crosscheck); new code
// writes node.Input and node.Start.
type (
	Input = node.Input
	Start = node.Start
)

// RequestRejoin asks a member to rejoin (the application or a scheduled
// rebalance wants a new round).
type RequestRejoin struct{ Reason string }

// NodeEvent marks RequestRejoin as an Event.
func (RequestRejoin) NodeEvent() {}

// String prints the event on one line.
func (e RequestRejoin) String() string { return "request rejoin: " + e.Reason }

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

var timerKinds = node.Enum[TimerKind]{Type: "timer", Names: []string{"?", "session", "join", "heartbeat", "request", "scheduled-rebalance"}}

// String names the timer kind.
func (k TimerKind) String() string { return timerKinds.Name(k) }

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

var callbackKinds = node.Enum[CallbackKind]{Type: "callback", Names: []string{"?", "assigned", "revoked", "lost", "assignor-failed", "fatal"}}

// String names the callback kind.
func (k CallbackKind) String() string { return callbackKinds.Name(k) }

// Callback is a rebalance callback a classic member asks its application to
// run: Kind on Resources, decided in generation Round (a consumer's
// ConsumerRebalanceListener, a Connect worker's start and stop of
// connectors and tasks). It prints "kind resources gen=N", then ": detail"
// when there is one.
type Callback = node.Callback[CallbackKind, spec.Generation]
