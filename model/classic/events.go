package classic

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// The node vocabulary this family shares with every other (package
// model/node), instantiated with the classic protocol's messages, timers
// and callbacks.
type (
	// Input is everything that can happen to a node: an Event at the
	// driver's time Now.
	Input = node.Input
	// Event is one thing that happens to a node.
	Event = node.Event
	// Receive delivers a message sent by node From.
	Receive = node.Receive[Message]
	// TimerFired reports that a timer the node armed has reached its
	// deadline. A node ignores a firing of a timer it has since cancelled
	// or re-armed to a later deadline, so drivers may deliver stale
	// firings.
	TimerFired = node.TimerFired[Timer]
	// Start tells a member process to join the group (the application
	// called subscribe and poll). It is a no-op for a member that is
	// already in the group.
	Start = node.Start
	// Subscribe changes a member's subscription. The member revokes what it
	// owns of topics it leaves (eager: everything) and rejoins.
	Subscribe = node.Subscribe
	// Leave tells a member to leave the group gracefully: it revokes
	// everything and, if dynamic, sends LeaveGroup. A static member leaves
	// silently and is removed by its session timeout (KIP-345).
	Leave = node.Leave
	// MetadataUpdate tells a member the current partition counts of the
	// topics.
	MetadataUpdate = node.MetadataUpdate
	// TimerCmd arms a timer to fire at At, or cancels it.
	TimerCmd = node.TimerCmd[Timer]
	// Output is what one Step asks the driver to do, in order: send
	// Messages, apply Timers, run Callbacks; a leader's Round is the
	// assignment round it computed, on the step that sends its SyncGroup.
	Output = node.Output[Message, Timer, Callback]
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
