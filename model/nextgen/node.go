package nextgen

import (
	"strconv"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// Millis is a time or a duration in milliseconds on the driver's clock.
type Millis = node.Millis

// CoordinatorNode is the node name of the group coordinator in envelopes.
const CoordinatorNode = node.CoordinatorNode

// The node vocabulary this family shares with every other is package
// model/node's. The family names the instances of node's generic types with
// its own messages, timers and callbacks (the block below); the input and
// the events every family shares (Input, Event, Start, Subscribe, Leave,
// MetadataUpdate) are written node.Input and so on. How the next-gen nodes
// take them: Start makes a member join (the application subscribed and
// polls); Leave makes it leave (a static member leaves temporarily, epoch
// -2); MetadataUpdate tells the coordinator the current partition counts (a
// topic was created, deleted, or gained partitions).
type (
	// Envelope is a message in flight between two nodes.
	Envelope = node.Envelope[Message]
	// Receive delivers a message sent by node From.
	Receive = node.Receive[Message]
	// TimerFired reports that a timer the node armed reached its deadline.
	// A node ignores firings of timers it has since cancelled or moved.
	TimerFired = node.TimerFired[Timer]
	// TimerCmd arms a timer to fire at At, or cancels it.
	TimerCmd = node.TimerCmd[Timer]
	// Output is what one Step asks the driver to do: send Messages, apply
	// Timers, run Callbacks. It is data; the node performs none of it.
	Output = node.Output[Message, Timer, Callback]
)

// RevocationDone tells a member that the application has finished revoking
// Resources (committed and stopped): the member may now report them as no
// longer owned.
type RevocationDone struct{ Resources spec.Set }

// NodeEvent marks RevocationDone as an Event.
func (RevocationDone) NodeEvent() {}

// String prints the event on one line.
func (e RevocationDone) String() string { return "revocation done " + e.Resources.String() }

// TimerKind says what a timer is for.
type TimerKind uint8

// The timers of the next-gen protocol.
const (
	// SessionTimer (coordinator, per member): the member is fenced when no
	// valid heartbeat arrived within the session timeout.
	SessionTimer TimerKind = iota + 1
	// RebalanceTimer (coordinator, per member and epoch): armed while the
	// member is UNREVOKED_PARTITIONS; it fences the member if it is still
	// at the epoch the timer was armed for.
	RebalanceTimer
	// HeartbeatTimer (member): time to send the next heartbeat.
	HeartbeatTimer
	// RequestTimer (member): the heartbeat in flight got no response in
	// time; the member sends another.
	RequestTimer
	// ClassicJoinTimer (coordinator, per member that uses the classic
	// protocol): armed, if not armed already, when the member is told to
	// rejoin (REBALANCE_IN_PROGRESS to its Heartbeat or SyncGroup), for its
	// rebalance timeout; cancelled by its next JoinGroup. Firing fences the
	// member (Kafka's consumerGroupJoinKey timer: "the classic member
	// failed to join within the rebalance timeout").
	ClassicJoinTimer
	// ClassicSyncTimer (coordinator, per member that uses the classic
	// protocol): armed by each accepted JoinGroup for the request's
	// rebalance timeout; cancelled by an accepted SyncGroup. Firing fences
	// the member (Kafka's consumerGroupSyncKey timer: "the member failed
	// to sync within timeout").
	ClassicSyncTimer
)

var timerKinds = node.Enum[TimerKind]{Type: "timer", Names: []string{"?", "session", "rebalance", "heartbeat", "request", "classic-join", "classic-sync"}}

// String names the timer kind.
func (k TimerKind) String() string { return timerKinds.Name(k) }

// Timer names one timer of one node; a node has at most one armed timer per
// Timer value.
type Timer struct {
	Kind   TimerKind
	Member spec.MemberID // coordinator timers: the member it is for
	Epoch  spec.Epoch    // RebalanceTimer: the member epoch it was armed at
}

// String prints "kind", "kind(member)" or "kind(member@epoch)". The
// timers of a world are ordered by it among timers of one node due at one
// instant (sim.Timers), so it is written without fmt: one allocation.
func (t Timer) String() string {
	switch {
	case t.Member == "":
		return t.Kind.String()
	case t.Kind == RebalanceTimer:
		return t.Kind.String() + "(" + string(t.Member) + "@" + strconv.FormatInt(int64(t.Epoch), 10) + ")"
	default:
		return t.Kind.String() + "(" + string(t.Member) + ")"
	}
}

// CallbackKind is a callback a member asks the application to run.
type CallbackKind uint8

// The member's callbacks (ConsumerRebalanceListener).
const (
	// Assigned: start working on Resources.
	Assigned CallbackKind = iota + 1
	// Revoke: stop working on Resources, committing first; the
	// application answers with a RevocationDone event.
	Revoke
	// Lost: Resources were taken away (the member was fenced); stop at
	// once without committing.
	Lost
	// Fatal: the member cannot continue; Detail says why.
	Fatal
)

var callbackKinds = node.Enum[CallbackKind]{Type: "callback", Names: []string{"?", "assigned", "revoke", "lost", "fatal"}}

// String names the callback kind.
func (k CallbackKind) String() string { return callbackKinds.Name(k) }

// Callback is a rebalance callback a next-gen member asks its application
// to run: Kind on Resources, at member epoch Round (the epoch of the
// assignment being reconciled; a Revoke is answered with RevocationDone).
// It prints "kind resources epoch=N", then ": detail" when there is one.
type Callback = node.Callback[CallbackKind, spec.Epoch]

// Fault is a named switch that deliberately breaks one rule, so the tests
// can show they catch the broken law.
type Fault uint32

// The fault switches of the next-gen protocol.
const (
	// AssignBeforeRelease: the coordinator gives a partition to its new
	// owner while the previous owner still holds it (reconciliation ignores
	// the partition epochs). Reported as ExclusiveOwnership.
	AssignBeforeRelease Fault = 1 << iota
	// SkipEpochCheck: the coordinator accepts heartbeats at any member
	// epoch. A defence in depth (see FaultList): a member's heartbeats
	// arrive in order, so the partitions a heartbeat at an old epoch
	// reports owned are the member's latest and reconciling from them is
	// safe; a request that arrives again later would break the unmodified
	// protocol first (the hazard_duplicated_request scenario). The
	// coordinator's unit tests catch it.
	SkipEpochCheck
	// StraightToTarget: a member in UNREVOKED_PARTITIONS moves to the new
	// epoch while it still owns partitions it must revoke. Reported as
	// ExclusiveOwnership.
	StraightToTarget
	// RestartOnNewTarget restores the coordinator's reconciliation before
	// KAFKA-16249 (apache/kafka e164d4d, 2024): whenever the target epoch
	// differs from the one the member was last reconciled towards (Kafka's
	// targetMemberEpoch), the coordinator recomputes the member from its
	// assigned and pending partitions and ignores the partitions the
	// heartbeat reports owned, and it re-arms the rebalance timeout when
	// the member goes back to UNREVOKED_PARTITIONS. A revocation
	// acknowledgement that arrives with a new target is lost; the member
	// sends its owned partitions only when they change, so it stays
	// revoking until the rebalance timeout fences it. Reported as
	// BoundedRounds (the fence and the rejoin cost epochs).
	RestartOnNewTarget
	// PerSetEpochUpdate restores the coordinator's partition-epoch
	// bookkeeping before KAFKA-16147 (apache/kafka cf90382, 2024): a
	// member's assigned and pending partitions are updated in the owner
	// map set by set, each only when it changed, and removing a partition
	// deletes its entry whoever holds it, as adding one overwrites it.
	// When a partition pending revocation comes back as assigned in one
	// step, the assigned update records it and the pending update deletes
	// it: it looks free, and a later target gives it to a second member.
	// Reported as ExclusiveOwnership.
	PerSetEpochUpdate
	// AcceptStaleCommits: the coordinator accepts every OffsetCommit to
	// its group, whatever the member id and epoch. Reported as
	// ZombieCommitRejected in a world with records: a fenced member
	// commits what it processed, and the offset moves.
	AcceptStaleCommits
)

// FaultList is every fault switch of the next-gen protocol.
var FaultList = node.Switches[Fault]{
	{Fault: AssignBeforeRelease, Name: "assign-before-release", Doc: "the coordinator assigns a partition before its previous owner released it (ExclusiveOwnership)"},
	{Fault: SkipEpochCheck, Name: "skip-epoch-check", Doc: "the coordinator accepts heartbeats at any member epoch",
		Defence: "heartbeats arrive in order, so a stale-epoch heartbeat reports the member's latest ownership; a request arriving twice breaks the unmodified protocol first; coordinator unit tests catch it"},
	{Fault: StraightToTarget, Name: "straight-to-target", Doc: "a revoking member moves to the new epoch while still owning revoked partitions (ExclusiveOwnership)"},
	{Fault: RestartOnNewTarget, Name: "restart-on-new-target", Doc: "KAFKA-16249: the coordinator restarts a member's reconciliation on every new target and drops its revocation acknowledgement (BoundedRounds)"},
	{Fault: PerSetEpochUpdate, Name: "per-set-epoch-update", Doc: "KAFKA-16147: the coordinator updates partition epochs set by set and loses the owner of a partition whose revocation was undone (ExclusiveOwnership)"},
	{Fault: AcceptStaleCommits, Name: "accept-stale-commits", Doc: "the coordinator accepts offset commits from any member and epoch (ZombieCommitRejected, with records and --overruns 1)"},
}

// Has reports whether every fault of x is in f.
func (f Fault) Has(x Fault) bool { return node.Has(f, x) }

// String lists the names of the faults in f, "none" for the empty set.
func (f Fault) String() string { return FaultList.String(f) }

// ParseFault returns the fault named name, or an error naming every
// next-gen fault.
func ParseFault(name string) (Fault, error) { return FaultList.Parse(name) }

// Semantics selects between today's upstream behaviour (the zero value)
// and the behaviour before a named Kafka fix, so the checker can show what
// each fix changed.
type Semantics struct {
	// BeforeKafka19233: an existing member heartbeating at epoch 0 is
	// fenced instead of rejoining at once.
	BeforeKafka19233 bool
	// BeforeKafka19449: a partition in a member's own pending revocation
	// that comes back in its target counts as unreleased.
	BeforeKafka19449 bool
	// BeforeKafka18688: the uniform homogeneous assignor gives its +1
	// slots by member order and can churn a balanced group.
	BeforeKafka18688 bool
	// BeforeKafka20066: an offset commit is accepted only at the member's
	// current epoch exactly (the rule before KIP-1251).
	BeforeKafka20066 bool
}
