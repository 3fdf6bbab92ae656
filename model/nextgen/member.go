package nextgen

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// The KIP-848 consumer is split in three files: here its configuration,
// its states and Step, which routes every input; member_heartbeat.go
// builds and sends heartbeats and reads their responses (timers, error
// codes); member_reconcile.go applies an assignment, runs revocations and
// subscription changes, and leaves.

// MemberConfig configures one KIP-848 consumer (the client side of the
// next-gen protocol). The zero values of RebalanceTimeout and
// RequestTimeout mean Kafka's defaults.
type MemberConfig struct {
	// Name is the process name: the member's node name in envelopes. It
	// must not be empty or CoordinatorNode.
	Name string
	// GroupID is the group the member joins, sent in every heartbeat
	// (the coordinator answers NOT_COORDINATOR to any other group). It
	// must not be blank.
	GroupID string
	// MemberID is the client-generated member id (KIP-1082); the core
	// generates none. It must not be blank. It is kept when the member is
	// fenced and rejoins.
	MemberID spec.MemberID
	// InstanceID is the static membership id (KIP-345), "" for a dynamic
	// member. A static member leaves with epoch -2, a dynamic one with -1.
	InstanceID string
	// Topics is the initial subscription: at least one topic, no empty
	// names; NewMember sorts it and removes duplicates.
	Topics []string
	// RebalanceTimeout is sent as RebalanceTimeoutMs (the Java client sends
	// max.poll.interval.ms); 300000 when 0; at most math.MaxInt32.
	RebalanceTimeout Millis `canon:"duration"`
	// ServerAssignor is sent as ServerAssignor; "" means not sent.
	ServerAssignor string
	// RequestTimeout is how long the member waits for the response to a
	// heartbeat before it considers it lost and sends another (RequestTimer);
	// 30000 when 0 (request.timeout.ms).
	RequestTimeout Millis `canon:"duration"`
	// Faults switches on deliberate protocol breakage. The member acts on
	// StraightToTarget only and ignores the coordinator's faults, so one
	// Fault value can be given to every node of a world.
	Faults Fault
}

// The member's defaults, Kafka's.
const (
	// memberDefaultRebalanceTimeout is max.poll.interval.ms.
	memberDefaultRebalanceTimeout = Millis(300000)
	// memberDefaultRequestTimeout is request.timeout.ms.
	memberDefaultRequestTimeout = Millis(30000)
	// memberDefaultHeartbeatInterval is the interval used until the first
	// response says otherwise (group.consumer.heartbeat.interval.ms's
	// default); it is also the back-off after a retriable error.
	memberDefaultHeartbeatInterval = Millis(5000)
)

// MemberState is where a member is in the next-gen membership protocol:
// Kafka's client MemberState (clients/.../internals/MemberState.java)
// without STALE (this model has no poll timer), with LEFT standing for
// Kafka's UNSUBSCRIBED after a leave (a left member is done).
//
// The transitions (memberStates.Moves, Kafka's table of legal previous
// states where it applies; a move to the same state is always allowed,
// as in Kafka's transitionTo):
//
//	Unsubscribed   -> Joining (Start), Left (Leave before Start)
//	Joining        -> Reconciling, Stable, Fenced, PrepareLeaving, Fatal
//	Reconciling    -> Acknowledging, Stable, Fenced, PrepareLeaving, Fatal
//	Acknowledging  -> Reconciling, Stable, Fenced, PrepareLeaving, Fatal
//	Stable         -> Reconciling, Fenced, PrepareLeaving, Fatal
//	Fenced         -> Joining
//	PrepareLeaving -> Leaving, Fatal
//	Leaving        -> Left
//	Left, Fatal    -> nothing: the process is done
type MemberState uint8

// The member states.
const (
	// MemberUnsubscribed: created, not started; a Subscribe is only
	// recorded.
	MemberUnsubscribed MemberState = iota
	// MemberJoining: heartbeating with full requests until the first
	// response that carries an assignment; epoch 0 until the first
	// response.
	MemberJoining
	// MemberReconciling: working towards the last assignment received:
	// revoking first (waiting for RevocationDone), then assigning.
	MemberReconciling
	// MemberAcknowledging: reconciled; the next heartbeat, sent at once,
	// reports the new owned set.
	MemberAcknowledging
	// MemberStable: holds the last assignment received and has reported
	// it; heartbeats on the interval.
	MemberStable
	// MemberFenced: got FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID. The
	// member passes through it inside one Step (Lost, then Joining); no
	// Step ends in it.
	MemberFenced
	// MemberPrepareLeaving: told to leave; waiting for the application to
	// revoke everything (RevocationDone), still heartbeating.
	MemberPrepareLeaving
	// MemberLeaving: the leave heartbeat (epoch -1 or -2) is in flight.
	MemberLeaving
	// MemberLeft: left the group; ignores every input.
	MemberLeft
	// MemberFatal: hit a fatal error (a Fatal callback said why); ignores
	// every input.
	MemberFatal
)

// memberStates names the member states and holds the moves a member may
// make to another state (memberStates.Moves[from], a bit per state);
// become panics on any other move.
var memberStates = node.Machine[MemberState]{
	Enum:  node.Enum[MemberState]{Type: "member-state", Names: []string{"unsubscribed", "joining", "reconciling", "acknowledging", "stable", "fenced", "prepare-leaving", "leaving", "left", "fatal"}},
	Owner: "nextgen: member",
	Moves: []uint32{
		MemberUnsubscribed:   1<<MemberJoining | 1<<MemberLeft,
		MemberJoining:        1<<MemberReconciling | 1<<MemberStable | 1<<MemberFenced | 1<<MemberPrepareLeaving | 1<<MemberFatal,
		MemberReconciling:    1<<MemberAcknowledging | 1<<MemberStable | 1<<MemberFenced | 1<<MemberPrepareLeaving | 1<<MemberFatal,
		MemberAcknowledging:  1<<MemberReconciling | 1<<MemberStable | 1<<MemberFenced | 1<<MemberPrepareLeaving | 1<<MemberFatal,
		MemberStable:         1<<MemberReconciling | 1<<MemberFenced | 1<<MemberPrepareLeaving | 1<<MemberFatal,
		MemberFenced:         1 << MemberJoining,
		MemberPrepareLeaving: 1<<MemberLeaving | 1<<MemberFatal,
		MemberLeaving:        1 << MemberLeft,
		MemberLeft:           0,
		MemberFatal:          0,
	},
	// The protocol has no rebalancing phase of its own: a member is
	// active until it is stable, left or fatal.
	Phases: []node.Phase{
		MemberUnsubscribed:   node.Active,
		MemberJoining:        node.Active,
		MemberReconciling:    node.Active,
		MemberAcknowledging:  node.Active,
		MemberStable:         node.Settled,
		MemberFenced:         node.Active,
		MemberPrepareLeaving: node.Active,
		MemberLeaving:        node.Active,
		MemberLeft:           node.Left,
		MemberFatal:          node.Failed,
	},
}

// Phase is where the member is, as the closed world needs to know it
// (memberStates.Phases).
func (m *Member) Phase() node.Phase { return memberStates.Phase(m.state) }

// String names the state.
func (s MemberState) String() string { return memberStates.Name(s) }

// become moves the member to state to. It is the only place the state
// changes; staying in the same state is allowed (as in Kafka's
// transitionTo), any other move outside memberStates.Moves is a bug in
// this file and panics.
func (m *Member) become(to MemberState) {
	if to != m.state {
		m.state = memberStates.Move(m.cfg.Name, m.state, to, nil)
	}
}

// Member is one KIP-848 consumer as a pure node: Kafka's
// ConsumerMembershipManager and ConsumerHeartbeatRequestManager reduced to
// the protocol. It changes only through Step.
//
// A Member is not safe for concurrent use. Step consumes the receiver: it
// mutates it in place; use Clone to keep a state. Everything a Member
// returns (outputs, views, sets) shares nothing mutable with it.
type Member struct {
	// cfg is the configuration with defaults applied; cfg.Topics is the
	// initial subscription only (see topics). It is never written after
	// NewMember, so clones share it (a clone copies a pointer, not the
	// whole configuration).
	cfg   *MemberConfig
	state MemberState

	// epoch is the member epoch the heartbeats carry (Kafka's
	// memberEpoch): 0 while joining, the epoch of the last response
	// afterwards, the leave epoch while leaving.
	epoch spec.Epoch
	// interval is the heartbeat interval of the last response.
	interval Millis `canon:"duration"`

	topics []string // current subscription, sorted and distinct; replaced whole, never written in place

	// owned is the member's local assignment: what it reports in
	// TopicPartitions. Normally it includes the partitions being revoked
	// until their RevocationDone (so the coordinator does not see them
	// released early); under StraightToTarget they leave owned at once.
	// ownedEpoch is the epoch at which the member holds owned, 0 when it
	// holds no assignment from any epoch.
	owned      spec.Set
	ownedEpoch spec.Epoch
	// revoking is what the member asked the application to revoke (a
	// Revoke callback) and has not yet seen in a RevocationDone.
	revoking spec.Set
	// target is the last assignment received, at targetEpoch; hasTarget
	// is false before the first one, after a fence and while leaving.
	target      spec.Set
	targetEpoch spec.Epoch
	hasTarget   bool

	// What the coordinator was told (Kafka's HeartbeatState.SentFields).
	// full makes the next request a full one (after an error or a lost
	// request, as Kafka's resetHeartbeatState). sentTopics is the last
	// subscription sent (nil before the first). ownedReported is false
	// when owned changed since it was last sent.
	full          bool
	sentTopics    []string
	ownedReported bool

	// seq is the Seq of the last request sent (requests are numbered
	// from 1). awaitSeq is the Seq of the request whose response the member
	// awaits (RequestTimer is armed), 0 when none: any other response is
	// stale or duplicated and ignored.
	seq      uint64 `canon:"-"`
	awaitSeq uint64 `canon:"seq"`

	timers [RequestTimer + 1]node.TimerSlot
}

// NewMember returns a member in state MemberUnsubscribed configured by cfg,
// or an error when cfg makes no sense: an empty or reserved name, a blank
// group id or member id, an instance id made only of blanks, no topics or
// an empty topic name, a negative duration or a rebalance timeout above
// math.MaxInt32. NewMember keeps no reference to cfg's slices.
func NewMember(cfg MemberConfig) (*Member, error) {
	if cfg.Name == "" {
		return nil, errors.New("nextgen: member: empty name")
	}
	fail := func(format string, args ...any) (*Member, error) {
		return nil, fmt.Errorf("nextgen: member %q: %s", cfg.Name, fmt.Sprintf(format, args...))
	}
	if cfg.Name == CoordinatorNode {
		return fail("the name is reserved for the coordinator")
	}
	if isBlank(cfg.GroupID) {
		return fail("empty group id")
	}
	if isBlank(string(cfg.MemberID)) {
		return fail("empty member id (members generate their own, KIP-1082)")
	}
	if cfg.InstanceID != "" && isBlank(cfg.InstanceID) {
		return fail("instance id %q is blank", cfg.InstanceID)
	}
	topics, err := memberTopics(cfg.Topics)
	if err != nil {
		return fail("%v", err)
	}
	if cfg.RebalanceTimeout < 0 || cfg.RequestTimeout < 0 {
		return fail("negative duration: rebalance %d, request %d", cfg.RebalanceTimeout, cfg.RequestTimeout)
	}
	if cfg.RebalanceTimeout > math.MaxInt32 {
		return fail("rebalance timeout %d does not fit RebalanceTimeoutMs (int32)", cfg.RebalanceTimeout)
	}
	if cfg.RebalanceTimeout == 0 {
		cfg.RebalanceTimeout = memberDefaultRebalanceTimeout
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = memberDefaultRequestTimeout
	}
	cfg.Topics = topics
	return &Member{
		cfg:      &cfg,
		state:    MemberUnsubscribed,
		interval: memberDefaultHeartbeatInterval,
		topics:   slices.Clone(topics),
	}, nil
}

// isBlank reports whether s is empty once trimmed as Java's String.trim
// trims (every character at or below U+0020), the coordinator's test.
func isBlank(s string) bool {
	return strings.TrimFunc(s, func(c rune) bool { return c <= ' ' }) == ""
}

// memberTopics returns topics as node.Subscription does, or an error for
// no topics (a KIP-848 member subscribes to something) or an empty topic
// name.
func memberTopics(topics []string) ([]string, error) {
	if len(topics) == 0 {
		return nil, errors.New("no topics: a member joins with a non-empty subscription")
	}
	return node.Subscription(topics)
}

// Step applies one input to the member, mutating it in place, and returns
// what the driver must do: heartbeats to send, timers to arm or cancel,
// callbacks to run.
//
// The member acts only on the response to the heartbeat it awaits
// (matched by Seq), from CoordinatorNode, for its own member id: stale,
// duplicated and unsolicited responses are ignored; timers that are not armed or not yet due are ignored,
// and so is a RevocationDone for resources the member is not revoking. In
// MemberLeft and MemberFatal the member ignores every input. Step panics on
// an event type it does not know, a message other than a
// HeartbeatResponse, and a Subscribe with no topics or an empty topic name
// (all driver bugs).
func (m *Member) Step(in node.Input) Output {
	var out Output
	if memberStates.Final(m.state) {
		return out
	}
	out = node.Buffered[Message, Timer, Callback]()
	m.StepInto(in, &out)
	out.NilEmpty()
	return out
}

// StepInto is Step with the output written into *out, which it first
// empties keeping its lists' arrays (node.Output.Reset). The member keeps
// no reference to out or its arrays.
func (m *Member) StepInto(in node.Input, out *Output) {
	out.Reset()
	if memberStates.Final(m.state) {
		return
	}
	now := in.Now
	switch e := in.Event.(type) {
	case Receive:
		m.receive(now, e, out)
	case TimerFired:
		m.timerFired(now, e.Timer, out)
	case node.Start:
		if m.state == MemberUnsubscribed {
			m.join(now, out)
		}
	case node.Subscribe:
		m.subscribe(now, e.Topics, out)
	case node.Leave:
		m.leave(now, out)
	case RevocationDone:
		m.revocationDone(now, e.Resources, out)
	case node.MetadataUpdate:
		// Metadata is the coordinator's concern in KIP-848: the member
		// subscribes by name and receives partitions.
	default:
		panic(fmt.Sprintf("nextgen: member %s: unknown event %T", m.cfg.Name, in.Event))
	}
}

// arm (re)arms timer k to fire at at.
func (m *Member) arm(k TimerKind, at Millis, out *Output) {
	node.ArmSlot(m.timers[:], k, Timer{Kind: k}, at, out)
}

// cancel disarms timer k if it is armed.
func (m *Member) cancel(k TimerKind, out *Output) {
	node.CancelSlot(m.timers[:], k, Timer{Kind: k}, out)
}

// cancelAll disarms every armed timer.
func (m *Member) cancelAll(out *Output) {
	m.cancel(HeartbeatTimer, out)
	m.cancel(RequestTimer, out)
}

// setOwned replaces the local assignment; a change must be reported.
func (m *Member) setOwned(s spec.Set) {
	if !s.Equal(m.owned) {
		m.owned = s
		m.ownedReported = false
	}
}

// State returns the member's state.
func (m *Member) State() MemberState { return m.state }

// ID returns the member id (the configured one; it never changes).
func (m *Member) ID() spec.MemberID { return m.cfg.MemberID }

// Epoch returns the member epoch the member's heartbeats carry (Kafka's
// memberEpoch()): 0 before the first response and after a fence, the epoch
// of the last accepted response (adopted at once, even while a revocation
// is in progress), and spec.LeaveEpoch or spec.StaticLeaveEpoch once the
// leave heartbeat is sent. The epoch of what the member holds is
// AssignmentEpoch.
func (m *Member) Epoch() spec.Epoch { return m.epoch }

// AssignmentEpoch returns the epoch at which the member holds Owned: the
// epoch of the assignment it last finished reconciling (or of a later
// response without an assignment received while stable), 0 when it holds
// no assignment from any epoch. Normally it moves only once the
// revocations the assignment asked for are done; under StraightToTarget it
// moves at once.
func (m *Member) AssignmentEpoch() spec.Epoch { return m.ownedEpoch }

// Owned returns the member's local assignment, the set its heartbeats
// report as TopicPartitions. Normally it still includes the partitions
// being revoked (Revoking) until their RevocationDone.
func (m *Member) Owned() spec.Set { return m.owned }

// Revoking returns what the member asked the application to revoke and has
// not yet seen in a RevocationDone.
func (m *Member) Revoking() spec.Set { return m.revoking }

// Interval returns the heartbeat interval of the last response (the
// configured default before the first).
func (m *Member) Interval() Millis { return m.interval }

// Target returns the last assignment the member received and its epoch;
// ok is false before the first one, after a fence and while leaving.
func (m *Member) Target() (target spec.Set, epoch spec.Epoch, ok bool) {
	return m.target, m.targetEpoch, m.hasTarget
}

// FullNext reports whether the next heartbeat is a full one (after an
// error or a lost request), and OwnedReported whether the coordinator was
// told the member's current Owned.
func (m *Member) FullNext() bool { return m.full }

// OwnedReported: see FullNext.
func (m *Member) OwnedReported() bool { return m.ownedReported }

// AwaitedSeq returns the Seq of the request whose response the member
// awaits, 0 when it awaits none.
func (m *Member) AwaitedSeq() uint64 { return m.awaitSeq }

// Subscription returns the member's current subscription, sorted, in a new
// slice.
func (m *Member) Subscription() []string { return slices.Clone(m.topics) }

// View returns the member as the laws see it: Name, ID, Generation (the
// AssignmentEpoch as a Generation, NoGeneration when the member holds no
// assignment from any epoch: before its first assignment, after a fence,
// after leaving), Subscription (sorted), Owns (everything the application
// still works on: Owned plus Revoking) and Revoking. Current and Fenced are
// left false: only the caller, who knows the coordinator, can fill them.
// Subscription and Revoking (and Owns when nothing is being revoked) are
// the member's own slices, shared: the member replaces them whole, never
// changes them in place, and the caller must not change them either. The
// world builds a view on most steps of the model checker, and a copy each
// time was a tenth of the next-gen world's allocations.
func (m *Member) View() spec.MemberView {
	gen := spec.NoGeneration
	if m.ownedEpoch > 0 {
		gen = spec.Generation(m.ownedEpoch)
	}
	return spec.MemberView{
		Name:         m.cfg.Name,
		ID:           m.cfg.MemberID,
		Generation:   gen,
		Subscription: m.topics,
		Owns:         m.owned.Union(m.revoking),
		Revoking:     m.revoking,
	}
}

// Clone returns a copy of m that shares nothing mutable with it: its sets
// and topic lists are never written in place (a change replaces them
// whole), so the copy shares them.
func (m *Member) Clone() *Member { return m.CloneInto(nil) }

// CloneInto is Clone writing the copy over *dst, a member nobody uses any
// more, and returning dst; into a new member when dst is nil.
func (m *Member) CloneInto(dst *Member) *Member { return node.CopyInto(m, dst) }

// String prints the member's whole state deterministically, over a few
// lines:
//
//	member A id=A-1 state=stable epoch=3 interval=5000 instance=a faults=straight-to-target
//	  subscription=[t] sent-subscription=[t] owned={t-0} owned-epoch=3 reported revoking={}
//	  target={t-0}@3
//	  seq=4 awaiting=0 full=false timers heartbeat@9000
//
// The instance and faults appear only when set, the target line only when
// the member has a target.
func (m *Member) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "member %s id=%s state=%s epoch=%d interval=%d", m.cfg.Name, m.cfg.MemberID, m.state, m.epoch, m.interval)
	if m.cfg.InstanceID != "" {
		fmt.Fprintf(&b, " instance=%s", m.cfg.InstanceID)
	}
	if m.cfg.Faults != 0 {
		fmt.Fprintf(&b, " faults=%s", m.cfg.Faults)
	}
	sent := "null"
	if m.sentTopics != nil {
		sent = "[" + strings.Join(m.sentTopics, " ") + "]"
	}
	reported := "unreported"
	if m.ownedReported {
		reported = "reported"
	}
	fmt.Fprintf(&b, "\n  subscription=[%s] sent-subscription=%s owned=%s owned-epoch=%d %s revoking=%s",
		strings.Join(m.topics, " "), sent, m.owned, m.ownedEpoch, reported, m.revoking)
	if m.hasTarget {
		fmt.Fprintf(&b, "\n  target=%s@%d", m.target, m.targetEpoch)
	}
	fmt.Fprintf(&b, "\n  seq=%d awaiting=%d full=%t timers", m.seq, m.awaitSeq, m.full)
	b.WriteString(node.SlotsString[TimerKind](m.timers[:]))
	return b.String()
}
