package classic

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file holds the member node's types, its construction, its state
// table and its dispatcher. The handlers live in member_join.go (joining and
// leading a round), member_sync.go (SyncGroup and Heartbeat responses, and
// the reactions to errors) and member_events.go (timers and local events).

// MemberConfig configures one member process of a classic group. The zero
// values of ProtocolType and the three durations mean Kafka's defaults.
type MemberConfig struct {
	// Name is the process name: the member's node name in envelopes and the
	// ClientID of its JoinGroup requests. It must not be empty.
	Name string
	// InstanceID is the static membership id (KIP-345), "" for a dynamic
	// member. A static member does not send LeaveGroup when it leaves; the
	// coordinator removes it when its session times out.
	InstanceID string
	// ProtocolType is the JoinGroup protocol type; "" means "consumer".
	ProtocolType string
	// Topics is the initial subscription; NewMember sorts it and removes
	// duplicates.
	Topics []string
	// Protocols are the embedded protocols the member supports, in
	// preference order: at least one, with distinct non-empty names.
	Protocols []Protocol
	// SessionTimeout, RebalanceTimeout and HeartbeatInterval default to
	// 10000, 30000 and 3000 when 0; none may be negative, and the heartbeat
	// interval must be below the session timeout.
	SessionTimeout, RebalanceTimeout, HeartbeatInterval Millis `canon:"duration"`
	// Metadata is the partition count of each topic as this member knows it;
	// as the leader it assigns from it. MetadataUpdate replaces it.
	Metadata spec.Topics
	// ClaimGeneration is the generation the member reports for what it
	// claims to own; the zero value, ClaimAtJoined, is Kafka's since KIP-792.
	ClaimGeneration ClaimGeneration
	// Faults switches on deliberate protocol breakage for the checkers. The
	// member itself acts on EagerNoRevoke, KeepRevoked and
	// SkipLeaderValidation, and passes Faults to its Protocol through
	// LeaderInput.
	Faults Faults
	// Memo, when not nil, is where the member as leader remembers its
	// rounds and finds those it led before (RoundMemo), shared with the
	// members it was configured alike with. It changes no output.
	Memo *RoundMemo
}

// The member's defaults, Kafka's (ConsumerConfig session.timeout.ms,
// max.poll.interval.ms is the rebalance timeout, heartbeat.interval.ms).
const (
	memberDefaultProtocolType      = "consumer"
	memberDefaultSessionTimeout    = Millis(10000)
	memberDefaultRebalanceTimeout  = Millis(30000)
	memberDefaultHeartbeatInterval = Millis(3000)
	// memberJoinSlack is what a member waits for a JoinGroup response beyond
	// the rebalance timeout before it sends the request again (Kafka's
	// AbstractCoordinator: joinGroupTimeoutMs = rebalanceTimeout + 5000).
	memberJoinSlack = Millis(5000)
)

// Heartbeat is the heartbeat interval a member with this configuration
// uses: HeartbeatInterval, or Kafka's default when it is 0.
func (cfg MemberConfig) Heartbeat() Millis {
	if cfg.HeartbeatInterval == 0 {
		return memberDefaultHeartbeatInterval
	}
	return cfg.HeartbeatInterval
}

// MemberState is where a member is in the classic membership protocol.
//
// The transitions (memberStates.Moves) are:
//
//	Unjoined     -> Joining (Start), Left
//	Joining      -> Joining (join restarted), AwaitingSync, Failed, Left
//	AwaitingSync -> Joining, Stable, Failed, Left
//	Stable       -> Joining, Failed, Left
//	Left, Failed -> nothing: the process is done
type MemberState uint8

// The member states.
const (
	// Unjoined: created, not started; a Subscribe or MetadataUpdate is only
	// recorded.
	Unjoined MemberState = iota
	// Joining: a JoinGroup is in flight (Kafka's PREPARING_REBALANCE).
	Joining
	// AwaitingSync: joined a generation, SyncGroup in flight (Kafka's
	// COMPLETING_REBALANCE).
	AwaitingSync
	// Stable: holds the assignment of its generation and heartbeats.
	Stable
	// Left: left the group on request; ignores every input.
	Left
	// Failed: hit a fatal error (a Fatal callback said why); ignores every
	// input.
	Failed
)

// memberStates names the member states and holds the moves a member may
// make (memberStates.Moves[from], a bit per state); become panics on any
// other move.
var memberStates = node.Machine[MemberState]{
	Enum:  node.Enum[MemberState]{Type: "member-state", Names: []string{"unjoined", "joining", "awaiting-sync", "stable", "left", "failed"}},
	Owner: "classic: member",
	Moves: []uint32{
		Unjoined:     1<<Joining | 1<<Left,
		Joining:      1<<Joining | 1<<AwaitingSync | 1<<Failed | 1<<Left,
		AwaitingSync: 1<<Joining | 1<<Stable | 1<<Failed | 1<<Left,
		Stable:       1<<Joining | 1<<Failed | 1<<Left,
		Left:         0,
		Failed:       0,
	},
	// Between JoinGroup and the end of SyncGroup a member rebalances.
	Phases: []node.Phase{
		Unjoined:     node.Active,
		Joining:      node.Rebalancing,
		AwaitingSync: node.Rebalancing,
		Stable:       node.Settled,
		Left:         node.Left,
		Failed:       node.Failed,
	},
}

// Phase is where the member is, as the closed world needs to know it
// (memberStates.Phases): between JoinGroup and the end of SyncGroup it is
// rebalancing.
func (m *Member) Phase() node.Phase { return memberStates.Phase(m.state) }

// String names the state.
func (s MemberState) String() string { return memberStates.Name(s) }

// become moves the member to state to. It is the only place the state
// changes; an impossible move is a bug in this file and panics.
func (m *Member) become(to MemberState) {
	m.state = memberStates.Move(m.cfg.Name, m.state, to, nil)
}

// Member is one member process of a classic group as a pure node: Kafka's
// AbstractCoordinator and ConsumerCoordinator (and Connect's
// WorkerCoordinator) reduced to the protocol. It changes only through Step.
//
// A Member is not safe for concurrent use. Step mutates it in place; use
// Clone to keep a state. Everything a Member returns (outputs, views, sets)
// shares nothing with it that either may change: what it shares (a view's
// subscription and sets) the member replaces whole, never changes in
// place, and the caller must not change.
type Member struct {
	// cfg is the configuration with defaults applied. Its slices and map
	// are private copies; cfg.Topics and cfg.Metadata are the initial
	// values only (see topics and metadata). It never changes after
	// NewMember, so it is a function of the configuration the member was
	// started with, which the closed world encodes: the canonical
	// encoding leaves it out. Copies of the member share it.
	cfg *MemberConfig `canon:"-"`
	// eager is the local rebalance mode (KIP-429): true when any configured
	// protocol is not cooperative.
	eager bool
	state MemberState

	// The membership. Invariant: id == "" implies generation == NoGeneration.
	id         spec.MemberID
	generation spec.Generation // of the last JoinGroupResponse; NoGeneration when none or reset
	leader     spec.MemberID   // leader of generation
	protocol   string          // selected protocol of generation

	topics   []string    // current subscription, sorted and distinct
	metadata spec.Topics // partition counts the member knows

	// owned is the assignment the member holds and claims in its
	// subscription, assigned in ownedGen by ownedLeader.
	// Invariant: owned non-empty implies ownedGen != NoGeneration.
	owned       spec.Set
	ownedGen    spec.Generation
	ownedLeader spec.MemberID
	// kept is what the member was told to revoke and keeps working on
	// (KeepRevoked fault only; always empty otherwise). It is part of the
	// member's view but not of owned, so it is never claimed.
	kept spec.Set
	// lastCompleted is the last generation whose SyncGroup assignment this
	// process applied (Connect's lastCompletedGenerationId).
	lastCompleted spec.Generation
	// memory is what this process kept from the rounds it led; nil for
	// none (the zero LeaderMemory). It is replaced whole, never changed in
	// place, so copies of the member share it (and a RoundMemo shares it
	// with every member that led the same round).
	memory *keptMemory

	// seq numbers requests; each request takes seq+1. joinSeq, syncSeq and
	// heartbeatSeq are the requests whose responses the member waits for,
	// 0 when none; any other response is stale and ignored, but the
	// response to an older heartbeat of the member's generation while
	// heartbeatSeq is not 0 (heartbeatResponse).
	seq          uint64 `canon:"-"`
	joinSeq      uint64 `canon:"seq"`
	syncSeq      uint64 `canon:"seq"`
	heartbeatSeq uint64 `canon:"seq"`
	// sync is the SyncGroup last sent for generation, resent (with a new
	// Seq) when RequestTimer fires in AwaitingSync; nil before the first
	// (lastSync reads it as the zero request). Replaced whole, never
	// changed in place, so clones share it: held by pointer, it keeps a
	// clone of the member, made at most steps, 80 bytes smaller.
	sync *SyncGroupRequest
	// rejoinAfterSync records a rejoin asked for while a SyncGroup was in
	// flight, or a subscription change while a JoinGroup was; the member
	// rejoins once the sync completes.
	rejoinAfterSync bool

	timers [ScheduledRebalanceTimer + 1]node.TimerSlot

	// memo remembers the sets the member last printed and read in
	// metadata, so that it does not print or read the same ones again
	// (memo.go); nil when it remembers none. It changes no output: the
	// canonical encoding leaves it out. It is replaced, never modified, so
	// that copies of the member share it: one pointer in each.
	memo *codecMemo `canon:"-"`
}

// NewMember returns a member in state Unjoined configured by cfg, or an
// error when cfg makes no sense: an empty name, no protocols, a nil
// protocol, empty or duplicate protocol names, negative durations, a
// heartbeat interval not below the session timeout, an unknown
// ClaimGeneration, an empty topic name, or a negative partition count. NewMember keeps no reference to cfg's slices
// or map.
func NewMember(cfg MemberConfig) (*Member, error) {
	fail := func(format string, args ...any) (*Member, error) {
		return nil, fmt.Errorf("classic: member %q: %s", cfg.Name, fmt.Sprintf(format, args...))
	}
	if cfg.Name == "" {
		return nil, errors.New("classic: member: empty name")
	}
	if len(cfg.Protocols) == 0 {
		return fail("no protocols")
	}
	names := map[string]bool{}
	eager := false
	for i, p := range cfg.Protocols {
		if p == nil {
			return fail("protocol %d is nil", i)
		}
		if p.Name() == "" {
			return fail("protocol %d has an empty name", i)
		}
		if names[p.Name()] {
			return fail("protocol %q listed twice", p.Name())
		}
		names[p.Name()] = true
		eager = eager || !p.Cooperative()
	}
	if cfg.SessionTimeout < 0 || cfg.RebalanceTimeout < 0 || cfg.HeartbeatInterval < 0 {
		return fail("negative duration: session %d, rebalance %d, heartbeat %d", cfg.SessionTimeout, cfg.RebalanceTimeout, cfg.HeartbeatInterval)
	}
	if cfg.ClaimGeneration > ClaimAtAssigned {
		return fail("unknown %s", cfg.ClaimGeneration)
	}
	if cfg.ProtocolType == "" {
		cfg.ProtocolType = memberDefaultProtocolType
	}
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = memberDefaultSessionTimeout
	}
	if cfg.RebalanceTimeout == 0 {
		cfg.RebalanceTimeout = memberDefaultRebalanceTimeout
	}
	if cfg.HeartbeatInterval == 0 {
		cfg.HeartbeatInterval = memberDefaultHeartbeatInterval
	}
	if cfg.HeartbeatInterval >= cfg.SessionTimeout {
		return fail("heartbeat interval %d must be below the session timeout %d", cfg.HeartbeatInterval, cfg.SessionTimeout)
	}
	topics, err := node.Subscription(cfg.Topics)
	if err != nil {
		return fail("%v", err)
	}
	for _, t := range cfg.Metadata.Names() {
		if t == "" || cfg.Metadata[t] < 0 {
			return fail("metadata: topic %q has %d partitions", t, cfg.Metadata[t])
		}
	}
	cfg.Topics = topics
	cfg.Protocols = slices.Clone(cfg.Protocols)
	cfg.Metadata = maps.Clone(cfg.Metadata)
	return &Member{
		cfg:           &cfg,
		eager:         eager,
		state:         Unjoined,
		generation:    spec.NoGeneration,
		topics:        slices.Clone(topics),
		metadata:      maps.Clone(cfg.Metadata),
		ownedGen:      spec.NoGeneration,
		lastCompleted: spec.NoGeneration,
	}, nil
}

// Step applies one input to the member, mutating it in place, and returns
// what the driver must do: messages to send, timers to arm or cancel,
// callbacks to run, and, on the step a leader sends its SyncGroup, the
// assignment round (Output.Round).
//
// The member acts on responses only from CoordinatorNode and only to the
// request it waits for (matched by Seq): duplicated, stale and unsolicited
// responses are ignored, as are timers that are not armed or not yet due.
// In Left and Failed the member ignores every input. Step panics on an
// event type it does not know, on a request message delivered to it, and
// on a Subscribe naming an empty topic (all driver bugs).
func (m *Member) Step(in node.Input) Output {
	// No node.Buffered here, unlike the next-gen member: most classic
	// member steps answer a heartbeat response and output nothing, and a
	// heartbeat firing gives one message and one timer, so a buffer
	// allocated at every step cost more (in bytes and collection) than
	// the allocations it saved (BenchmarkRollingRestart/deferred: 294
	// against 234 MB an operation, and more CPU). A driver that steps
	// often calls StepInto instead.
	var out Output
	m.StepInto(in, &out)
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
		if m.state == Unjoined {
			m.joinGroup(now, out)
		}
	case node.Subscribe:
		m.subscribe(now, e.Topics, out)
	case node.Leave:
		m.leave(out)
	case RequestRejoin:
		m.requestRejoin(now, false, out)
	case node.MetadataUpdate:
		m.metadataUpdate(now, e.Topics, out)
	default:
		panic(fmt.Sprintf("classic: member %s: unknown event %T", m.cfg.Name, in.Event))
	}
}

// receive dispatches a message to its response handler.
func (m *Member) receive(now Millis, e Receive, out *Output) {
	if e.From != CoordinatorNode {
		return
	}
	switch r := e.Msg.(type) {
	case JoinGroupResponse:
		m.joinResponse(now, r, out)
	case SyncGroupResponse:
		m.syncResponse(now, r, out)
	case HeartbeatResponse:
		m.heartbeatResponse(now, r, out)
	case LeaveGroupResponse:
		// Only a Left member waits for it, and a Left member ignores
		// everything: nothing to do.
	default:
		panic(fmt.Sprintf("classic: member %s: cannot handle %T from the coordinator", m.cfg.Name, e.Msg))
	}
}

// nextSeq returns a fresh request sequence number.
func (m *Member) nextSeq() uint64 {
	m.seq++
	return m.seq
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
	for _, k := range []TimerKind{HeartbeatTimer, RequestTimer, ScheduledRebalanceTimer} {
		m.cancel(k, out)
	}
}

// protocolNamed returns the configured protocol named name, or nil.
func (m *Member) protocolNamed(name string) Protocol {
	for _, p := range m.cfg.Protocols {
		if p.Name() == name {
			return p
		}
	}
	return nil
}

// State returns the member's state.
func (m *Member) State() MemberState { return m.state }

// ID returns the member id the coordinator gave this membership, "" before
// the first JoinGroupResponse and after the coordinator forgot the member
// (UNKNOWN_MEMBER_ID).
func (m *Member) ID() spec.MemberID { return m.id }

// Generation returns the generation of the member's current membership:
// the one of its last successful JoinGroupResponse (Kafka's generation()),
// which is the generation its heartbeats and SyncGroup carry and the one a
// leader assigns. It is spec.NoGeneration before the first join and after
// a reset by ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID. The generation of
// what the member owns is View().Generation.
func (m *Member) Generation() spec.Generation { return m.generation }

// Owned returns the assignment the member holds and claims in its
// JoinGroup subscription. With the KeepRevoked fault the member also works
// on resources it was told to revoke; those are in View().Owns, not here.
func (m *Member) Owned() spec.Set { return m.owned }

// Eager reports the member's local rebalance mode: true when any
// configured protocol is not cooperative (KIP-429: the member uses the
// highest protocol every configured assignor supports, EAGER <
// COOPERATIVE). An eager member revokes everything before it joins; a
// cooperative one revokes only what its new subscription drops and what the
// leader takes away.
func (m *Member) Eager() bool { return m.eager }

// LeaderMemory returns a copy of what the member remembers from the rounds
// it led (the zero value when it never led one successfully).
func (m *Member) LeaderMemory() LeaderMemory { return m.leaderMemory().Clone() }

// leaderMemory is m.memory, the zero LeaderMemory for nil. The caller must
// not change what it points to.
func (m *Member) leaderMemory() *LeaderMemory { return &m.heldMemory().LeaderMemory }

// heldMemory is m.memory, noLeaderMemory for nil. The caller must not
// change what it points to.
func (m *Member) heldMemory() *keptMemory {
	if m.memory == nil {
		return &noLeaderMemory
	}
	return m.memory
}

// noLeaderMemory is the memory of a member that kept none; never changed.
var noLeaderMemory keptMemory

// LastCompletedGeneration returns the last generation whose assignment the
// member applied, NoGeneration when none (Connect's
// lastCompletedGenerationId).
func (m *Member) LastCompletedGeneration() spec.Generation { return m.lastCompleted }

// Subscription returns the member's current subscription, sorted, in a new
// slice.
func (m *Member) Subscription() []string { return slices.Clone(m.topics) }

// View returns the member as the laws see it: Name, ID, Generation (the
// generation of the assignment it holds, NoGeneration when it holds none
// from any generation), Subscription (sorted) and Owns (what it works on:
// Owned plus, under the KeepRevoked fault, what it kept) and Revoking (what
// it owns of topics it no longer subscribes to: a subscription change
// during a round leaves them to the rejoin after it). Current and Fenced
// are left false: only the caller, who knows the coordinator, can fill them.
// The view's Subscription and Owns may share the member's own slices, which
// the member replaces whole and never changes in place: the caller must
// not change them either (the world builds a view at every step, and its
// laws only read it).
func (m *Member) View() spec.MemberView {
	v := spec.MemberView{
		Name:         m.cfg.Name,
		ID:           m.id,
		Generation:   m.ownedGen,
		Subscription: m.topics,
		Owns:         m.owned.Union(m.kept),
	}
	if m.state == Joining || m.state == AwaitingSync {
		// Only a round in flight leaves the member owning topics it left
		// (subscribe); in any other state it has revoked them, and were
		// one left, SubscribedOnly would report it. The model checker
		// builds a view at every step, so the others skip the walk.
		v.Revoking = m.unsubscribed(m.owned)
	}
	return v
}

// noSync is the SyncGroup of a member that has sent none: the zero
// request. Read only.
var noSync SyncGroupRequest

// lastSync is the SyncGroup the member last sent (m.sync), the zero
// request before the first; the caller must not change it.
func (m *Member) lastSync() *SyncGroupRequest {
	if m.sync == nil {
		return &noSync
	}
	return m.sync
}

// Clone returns a copy of m that shares nothing mutable with it: stepping
// either leaves the other as it was. The member never writes its
// subscription, metadata, leader memory or stored SyncGroup in place (a
// change replaces them whole), so the copy shares them, as it shares the
// configuration and its Protocol values (pure values).
func (m *Member) Clone() *Member { return m.CloneInto(nil) }

// CloneInto is Clone writing the copy over *dst, a member nobody uses any
// more, and returning dst; into a new member when dst is nil.
func (m *Member) CloneInto(dst *Member) *Member { return node.CopyInto(m, dst) }

// String prints the member's whole state deterministically, over a few
// lines:
//
//	member A state=stable id=A-1 gen=2 leader=A-1 protocol=cooperative mode=cooperative
//	  subscription=[t] owned={t-0} owned-gen=2 owned-leader=A-1 last-completed=2
//	  seq=5 waiting join=0 sync=0 heartbeat=5
//	  timers heartbeat@9000
//	  metadata t:2
//	  memory gen=2 members=[A-1] assignment=A-1:{t-0}
//
// Lines for kept resources, a pending rejoin and leader memory appear only
// when there is something to show.
func (m *Member) String() string {
	var b strings.Builder
	mode := "cooperative"
	if m.eager {
		mode = "eager"
	}
	fmt.Fprintf(&b, "member %s state=%s id=%s gen=%d leader=%s protocol=%s mode=%s", m.cfg.Name, m.state, idOrDash(m.id), m.generation, idOrDash(m.leader), memberOrDash(m.protocol), mode)
	if m.cfg.InstanceID != "" {
		fmt.Fprintf(&b, " instance=%s", m.cfg.InstanceID)
	}
	if m.cfg.Faults != 0 {
		fmt.Fprintf(&b, " faults=%s", m.cfg.Faults)
	}
	fmt.Fprintf(&b, "\n  subscription=[%s] owned=%s owned-gen=%d owned-leader=%s last-completed=%d", strings.Join(m.topics, " "), m.owned, m.ownedGen, idOrDash(m.ownedLeader), m.lastCompleted)
	if !m.kept.IsEmpty() {
		fmt.Fprintf(&b, " kept=%s", m.kept)
	}
	fmt.Fprintf(&b, "\n  seq=%d waiting join=%d sync=%d heartbeat=%d", m.seq, m.joinSeq, m.syncSeq, m.heartbeatSeq)
	if m.rejoinAfterSync {
		b.WriteString(" rejoin-after-sync")
	}
	b.WriteString("\n  timers")
	b.WriteString(node.SlotsString[TimerKind](m.timers[:]))
	b.WriteString("\n  metadata")
	for _, t := range m.metadata.Names() {
		fmt.Fprintf(&b, " %s:%d", t, m.metadata[t])
	}
	if mem := *m.leaderMemory(); !memberMemoryIsZero(mem) {
		b.WriteString("\n  memory " + memberMemoryString(mem))
	}
	return b.String()
}

func memberOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// memberMemoryIsZero reports whether mem is "no history".
func memberMemoryIsZero(mem LeaderMemory) bool {
	return mem.Generation == 0 && len(mem.Assignment) == 0 && len(mem.Members) == 0 && mem.ScheduledAt == 0 &&
		mem.Lost.IsEmpty() && len(mem.Candidates) == 0 && mem.SuccessiveRevokingRounds == 0 && !mem.Revoked && mem.Revocation.IsEmpty()
}

// memberMemoryString prints a LeaderMemory on one line.
func memberMemoryString(mem LeaderMemory) string {
	ids := func(xs []spec.MemberID) string {
		s := make([]string, len(xs))
		for i, x := range xs {
			s[i] = string(x)
		}
		return strings.Join(s, " ")
	}
	s := fmt.Sprintf("gen=%d members=[%s] assignment=%s", mem.Generation, ids(mem.Members), mem.Assignment)
	if mem.ScheduledAt != 0 {
		s += fmt.Sprintf(" scheduled-at=%d", mem.ScheduledAt)
	}
	if !mem.Lost.IsEmpty() {
		s += " lost=" + mem.Lost.String()
	}
	if len(mem.Candidates) > 0 {
		s += " candidates=[" + ids(mem.Candidates) + "]"
	}
	if mem.SuccessiveRevokingRounds != 0 {
		s += fmt.Sprintf(" successive-revoking=%d", mem.SuccessiveRevokingRounds)
	}
	if !mem.Revocation.IsEmpty() {
		s += " revocation=" + mem.Revocation.String()
	}
	if mem.Revoked {
		s += " revoked"
	}
	return s
}
