package classic

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file holds the Coordinator type, its configuration, its state
// machine (GroupState and transitionTo), its timers, Step's dispatch, and
// the printers and checks. The request handlers live in coordinator_join.go
// (JoinGroup and the join barrier) and coordinator_sync.go (SyncGroup,
// Heartbeat, LeaveGroup and member removal).
//
// The model follows Kafka's classic group coordinator: the Scala
// GroupCoordinator/GroupMetadata of kafka core, and its successor in the
// group-coordinator module, GroupMetadataManager (classicGroup* methods)
// with ClassicGroup and ClassicGroupMember. Where the two differ, or where
// this model simplifies, the comment at the spot says so.

// Kafka's defaults for group.min.session.timeout.ms and
// group.max.session.timeout.ms.
const (
	// DefaultMinSessionTimeout is Kafka's group.min.session.timeout.ms.
	DefaultMinSessionTimeout Millis = 6000
	// DefaultMaxSessionTimeout is Kafka's group.max.session.timeout.ms.
	DefaultMaxSessionTimeout Millis = 1800000
)

// CoordinatorConfig configures a Coordinator. Its zero value is not valid
// (GroupID is required); every other zero field means Kafka's default.
type CoordinatorConfig struct {
	// GroupID names the group the coordinator runs. It must not be empty
	// (Kafka answers INVALID_GROUP_ID for an empty group id).
	GroupID string
	// MinSessionTimeout and MaxSessionTimeout bound the session timeout a
	// JoinGroup may ask for (group.min.session.timeout.ms,
	// group.max.session.timeout.ms); zero means Kafka's default
	// (DefaultMinSessionTimeout, DefaultMaxSessionTimeout).
	MinSessionTimeout, MaxSessionTimeout Millis `canon:"duration"`
	// MaxSize is group.max.size: a JoinGroup that would add a member to a
	// group of MaxSize members is rejected. Zero means unlimited.
	MaxSize int
	// MemberIDPrefix goes between the client id and the counter in
	// generated member ids: <ClientID>-<MemberIDPrefix><n>. Kafka appends
	// a random UUID; a driver that outlives one process (a server that can
	// restart) passes a random prefix here so that ids of one incarnation
	// are never handed out again by the next. The closed worlds leave it
	// empty.
	MemberIDPrefix string
	// Faults are the fault switches; the coordinator honours
	// SkipGenerationCheck and ignores the members' switches, so one Faults
	// value can configure a whole world.
	Faults Faults
}

// normalized returns cfg with defaults filled in, or an error saying what
// makes it nonsensical.
func (cfg CoordinatorConfig) normalized() (CoordinatorConfig, error) {
	var errs []error
	if cfg.GroupID == "" {
		errs = append(errs, errors.New("GroupID must not be empty"))
	}
	if cfg.MinSessionTimeout < 0 {
		errs = append(errs, fmt.Errorf("MinSessionTimeout %d is negative", cfg.MinSessionTimeout))
	}
	if cfg.MaxSessionTimeout < 0 {
		errs = append(errs, fmt.Errorf("MaxSessionTimeout %d is negative", cfg.MaxSessionTimeout))
	}
	if cfg.MaxSize < 0 {
		errs = append(errs, fmt.Errorf("MaxSize %d is negative", cfg.MaxSize))
	}
	if strings.ContainsAny(cfg.MemberIDPrefix, "- \t\n") {
		errs = append(errs, fmt.Errorf("MemberIDPrefix %q contains '-' or white space", cfg.MemberIDPrefix))
	}
	if cfg.MinSessionTimeout == 0 {
		cfg.MinSessionTimeout = DefaultMinSessionTimeout
	}
	if cfg.MaxSessionTimeout == 0 {
		cfg.MaxSessionTimeout = DefaultMaxSessionTimeout
	}
	if len(errs) == 0 && cfg.MinSessionTimeout > cfg.MaxSessionTimeout {
		errs = append(errs, fmt.Errorf("MinSessionTimeout %d is greater than MaxSessionTimeout %d", cfg.MinSessionTimeout, cfg.MaxSessionTimeout))
	}
	if err := errors.Join(errs...); err != nil {
		return CoordinatorConfig{}, fmt.Errorf("classic: invalid coordinator config: %w", err)
	}
	return cfg, nil
}

// GroupState is the state of a classic group (Kafka's ClassicGroupState,
// without Dead: this model never unloads or deletes a group).
type GroupState uint8

// The group states. A group is GroupEmpty exactly when it has no members.
const (
	// GroupEmpty: no members. A JoinGroup starts a rebalance.
	GroupEmpty GroupState = iota
	// GroupPreparingRebalance: the JoinGroup barrier is up; the coordinator
	// parks JoinGroups until every member has rejoined or the JoinTimer
	// fires.
	GroupPreparingRebalance
	// GroupCompletingRebalance: the generation is decided; the coordinator
	// parks SyncGroups until the leader's SyncGroup brings the assignment.
	GroupCompletingRebalance
	// GroupStable: the assignment is stored and handed out on SyncGroup.
	GroupStable
)

// groupStates names the group states and holds every allowed state change
// (Kafka's ClassicGroupState.validPreviousStates, read the other way round,
// Dead left out). transitionTo is the only writer of Coordinator.state.
var groupStates = node.Machine[GroupState]{
	Enum:  node.Enum[GroupState]{Type: "GroupState", Names: []string{"Empty", "PreparingRebalance", "CompletingRebalance", "Stable"}},
	Owner: "classic: group",
	Moves: []uint32{
		GroupEmpty:               1 << GroupPreparingRebalance,
		GroupPreparingRebalance:  1<<GroupCompletingRebalance | 1<<GroupEmpty,
		GroupCompletingRebalance: 1<<GroupStable | 1<<GroupPreparingRebalance,
		GroupStable:              1 << GroupPreparingRebalance,
	},
}

// String returns Kafka's name of the state ("Empty", "PreparingRebalance",
// "CompletingRebalance", "Stable").
func (s GroupState) String() string { return groupStates.Name(s) }

// Coordinator is Kafka's classic group coordinator for one group, as a
// pure node: it changes only in Step, reads no clock (time is Input.Now)
// and generates member ids from a counter.
//
// A Coordinator is a mutable value used through a pointer: Step consumes
// the receiver's old state and leaves the new one in its place. Take a
// Clone first to keep the old state (the model checker does). The zero
// Coordinator is not usable; call NewCoordinator.
type Coordinator struct {
	// cfg is the configuration, normalized; it never changes after
	// NewCoordinator, so the encoding leaves it out.
	cfg CoordinatorConfig `canon:"-"`

	// state changes only through transitionTo.
	state GroupState
	// generation is bumped by one on every completed join barrier, to an
	// empty group too. It starts at 0, so the first generation with
	// members is 1.
	generation spec.Generation
	// protocolType is the embedded protocol type of the members ("consumer",
	// "connect"); "" exactly when the group has no members.
	protocolType string
	// protocol is the embedded protocol selected at the last completed
	// join; "" in GroupEmpty.
	protocol string
	// leader is the member that assigns for the current generation.
	// Invariant: "" in GroupEmpty; a member in GroupCompletingRebalance and
	// GroupStable; a member or "" (the leader left) in
	// GroupPreparingRebalance.
	leader spec.MemberID

	// members holds each member's record, keyed by its member id, in the
	// order the canonical encoding writes map keys (coordMembers).
	members coordMembers
	// pending holds the ids handed out with MEMBER_ID_REQUIRED whose
	// owners have not joined with them yet (Kafka's pendingJoinMembers).
	// A pending id is not a member; its SessionTimer is armed, and the
	// join barrier waits for it (hasAllMembersJoined). Invariant: no
	// pending id is a member.
	pending map[spec.MemberID]bool
	// instances maps each static member's instance id to its current
	// member id (Kafka's staticMembers). Invariant: it holds exactly the
	// members with an InstanceID, so the encoding leaves it out.
	instances map[string]spec.MemberID `canon:"-"`
	// timers holds every armed timer and its deadline. Invariants: the
	// JoinTimer is armed exactly in GroupPreparingRebalance; a member's
	// SessionTimer is armed unless the member has a parked JoinGroup or
	// SyncGroup (see expireSession); a pending id's SessionTimer is armed;
	// no other timer is armed.
	timers coordTimers `canon:"instant"`

	// nextMemberID numbers generated member ids: <ClientID>-<nextMemberID>.
	// It starts at 1 and only grows.
	nextMemberID uint64 `canon:"counter"`
	// nextArrival numbers parked JoinGroups in arrival order, to choose a
	// leader when the old one did not rejoin. It only grows.
	nextArrival uint64 `canon:"-"`
	// supported counts, for each embedded protocol name, the members that
	// advertise it (Kafka's ClassicGroup.supportedProtocols), so that a
	// JoinGroup is judged without a scan of the group. Derived: it always
	// equals the count over members (CheckInvariants), so it is left out of
	// the encoding. A name no member advertises has no entry.
	supported map[string]int `canon:"-"`
	// shared marks the maps a Fork shares with the coordinator it was
	// forked from (one bit each, sharedPending to sharedMembers): the
	// own* methods copy one before its first write. Every write to
	// pending, instances, timers and supported goes through them, and
	// every step that may write the member table or a record owns them
	// first (Step, handleTimer, handleHeartbeat). It changes no
	// behaviour, so the encoding leaves it out.
	shared sharedMaps `canon:"-"`
}

// sharedMaps is a set of the coordinator's maps, a bit each.
type sharedMaps uint8

// The maps a Fork shares.
const (
	sharedPending sharedMaps = 1 << iota
	sharedInstances
	sharedTimers
	sharedSupported
	sharedMembers
	sharedAll = sharedPending | sharedInstances | sharedTimers | sharedSupported | sharedMembers
)

// coordMembers holds the coordinator's member records (Kafka's members
// map of a ClassicGroup), each row keyed by its record's id, in the order
// the canonical encoding writes map keys (canon.Table).
//
// Invariants (CheckInvariants): the table is canon.Table-ordered, every
// row's key is its record's id, and every record is non-nil. A fork
// shares the rows and the records until its first write to either
// (Coordinator.ownMembers copies both); the coordinator then writes its
// own records in place.
type coordMembers = canon.Table[spec.MemberID, *coordMember]

// coordMember is the coordinator's record of one member (Kafka's
// ClassicGroupMember).
type coordMember struct {
	id         spec.MemberID
	instanceID string
	clientID   string
	clientHost string
	// node is the From of the member's last accepted request: the process
	// that holds this member id now.
	node             string
	protocols        []ProtocolMetadata // in the member's preference order; never aliased
	sessionTimeout   Millis             `canon:"duration"`
	rebalanceTimeout Millis             `canon:"duration"`
	// assignment is the leader's assignment for this member in the
	// current generation, stored unread; "" when none.
	assignment Metadata
	// join is the member's parked JoinGroup (Kafka's awaitingJoinFuture);
	// only in GroupPreparingRebalance.
	join coordParked
	// sync is the member's parked SyncGroup (Kafka's awaitingSyncFuture);
	// only in GroupCompletingRebalance.
	sync coordParked
}

// coordParked is a request the coordinator answers later.
type coordParked struct {
	ok   bool
	from string // the node to answer
	seq  uint64 `canon:"seq"` // the Seq to echo
	// arrival orders parked JoinGroups within a rebalance; unused for
	// SyncGroup.
	arrival uint64 `canon:"order"`
}

// coordStep collects the output of one Step.
type coordStep struct {
	now Millis `canon:"instant"`
	out Output
}

func (s *coordStep) send(to string, msg Message) {
	s.out.Messages = append(s.out.Messages, Envelope{From: CoordinatorNode, To: to, Msg: msg})
}

// NewCoordinator returns the coordinator of an empty group at generation 0.
// It returns an error for a nonsensical configuration: an empty GroupID, a
// negative timeout or size, or MinSessionTimeout above MaxSessionTimeout
// (after defaults are applied).
func NewCoordinator(cfg CoordinatorConfig) (*Coordinator, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	return &Coordinator{
		cfg:          cfg,
		state:        GroupEmpty,
		members:      coordMembers{},
		pending:      map[spec.MemberID]bool{},
		instances:    map[string]spec.MemberID{},
		nextMemberID: 1,
		nextArrival:  1,
		supported:    map[string]int{},
	}, nil
}

// Step applies one input and returns what the driver must do. It mutates
// c in place: the receiver's old state is consumed (Clone it first to keep
// it). Same state and same input give the same output, always.
//
// The inputs a coordinator takes are Receive of a request (JoinGroup,
// SyncGroup, Heartbeat, LeaveGroup, OffsetCommit) and TimerFired. Every response goes to
// the Receive's From and echoes the request's Seq. A request the protocol
// rejects is answered with the Kafka error code and changes nothing at all,
// timers included. A TimerFired acts only if that timer is armed and Now
// has reached its deadline; otherwise (a stale firing) Step returns an
// empty Output. Any other event, or a response message, is a driver bug
// and panics.
func (c *Coordinator) Step(in node.Input) Output {
	buf := new(coordOutputBuffer)
	out := Output{Messages: buf.messages[:0], Timers: buf.timers[:0]}
	c.StepInto(in, &out)
	out.NilEmpty()
	return out
}

// StepInto is Step with the output written into *out, which it first
// empties keeping its lists' arrays (node.Output.Reset). The coordinator
// keeps no reference to out or its arrays.
func (c *Coordinator) StepInto(in node.Input, out *Output) {
	out.Reset()
	s := &coordStep{now: in.Now, out: *out}
	switch ev := in.Event.(type) {
	case Receive:
		switch req := ev.Msg.(type) {
		case JoinGroupRequest:
			c.ownMembers()
			c.handleJoin(s, ev.From, req)
		case SyncGroupRequest:
			c.ownMembers()
			c.handleSync(s, ev.From, req)
		case HeartbeatRequest:
			c.handleHeartbeat(s, ev.From, req) // owns the members if it writes one
		case LeaveGroupRequest:
			c.ownMembers()
			c.handleLeave(s, ev.From, req)
		case OffsetCommitRequest:
			c.handleOffsetCommit(s, ev.From, req)
		default:
			panic(fmt.Sprintf("classic: Coordinator.Step: %T is not a request a coordinator takes", ev.Msg))
		}
	case TimerFired:
		c.handleTimer(s, ev.Timer)
	default:
		panic(fmt.Sprintf("classic: Coordinator.Step: event %T is not for a coordinator", in.Event))
	}
	*out = s.out
}

// coordOutputBuffer backs the output of one coordinator step: one
// allocation for the response and the session timer a heartbeat gives (a
// group of a thousand members heartbeats hundreds of times a simulated
// second), instead of one for each.
type coordOutputBuffer struct {
	messages [1]Envelope
	timers   [1]TimerCmd
}

// handleTimer fires t if it is armed and due, and ignores it otherwise.
func (c *Coordinator) handleTimer(s *coordStep, t Timer) {
	at, ok := c.timers.get(t)
	if !ok || s.now < at {
		return // cancelled, re-armed later, or never ours: stale
	}
	c.ownMembers()
	c.ownTimers()
	c.timers.remove(t) // consumed: the driver no longer holds it
	switch t.Kind {
	case SessionTimer:
		if c.pending[t.Member] {
			c.expirePending(s, t.Member)
			return
		}
		c.expireSession(s, t.Member)
	case JoinTimer:
		if c.state != GroupPreparingRebalance {
			panic(fmt.Sprintf("classic: join timer armed in state %s", c.state))
		}
		// Kafka's DelayedJoin expiring: complete the join with the members
		// that rejoined; the others are removed in completeJoin.
		c.completeJoin(s)
	default:
		panic(fmt.Sprintf("classic: coordinator armed a %s timer", t))
	}
}

// transitionTo moves the group to next, panicking on a transition Kafka's
// state machine does not allow. It is the only writer of c.state.
func (c *Coordinator) transitionTo(next GroupState) {
	c.state = groupStates.Move("", c.state, next, nil)
}

// arm sets t to fire at at. Re-arming a timer to the deadline it already
// has emits nothing.
func (c *Coordinator) arm(s *coordStep, t Timer, at Millis) {
	// One search serves the check and the write: a heartbeat re-arms its
	// member's session, and a group of a thousand members heartbeats
	// hundreds of times a simulated second.
	i, ok := c.timers.find(t)
	if ok && c.timers[i].at == at {
		return
	}
	c.ownTimers()
	c.timers.setAt(i, ok, t, at)
	s.out.Timers = append(s.out.Timers, TimerCmd{Timer: t, At: at})
}

// disarm cancels t if it is armed.
func (c *Coordinator) disarm(s *coordStep, t Timer) {
	i, ok := c.timers.find(t)
	if !ok {
		return
	}
	c.ownTimers()
	c.timers.removeAt(i)
	s.out.Timers = append(s.out.Timers, TimerCmd{Timer: t, Cancel: true})
}

func coordSessionTimer(id spec.MemberID) Timer { return Timer{Kind: SessionTimer, Member: id} }

var coordJoinTimer = Timer{Kind: JoinTimer}

// armSession (re)starts m's session: it expires SessionTimeout after now
// unless another accepted request arrives (Kafka's
// rescheduleClassicGroupMemberHeartbeat).
func (c *Coordinator) armSession(s *coordStep, m *coordMember) {
	c.arm(s, coordSessionTimer(m.id), s.now+m.sessionTimeout)
}

// sortedIDs returns the member ids in order.
func (c *Coordinator) sortedIDs() []spec.MemberID {
	return c.appendSortedIDs(nil)
}

// appendSortedIDs appends the member ids in order to dst and returns it:
// sortedIDs into a buffer of the caller's, which a step's loops keep on
// the stack (a group rarely has more members than the buffer holds).
func (c *Coordinator) appendSortedIDs(dst []spec.MemberID) []spec.MemberID {
	return c.members.AppendKeys(dst)
}

// idBuffer is the stack buffer of a step's appendSortedIDs.
type idBuffer [8]spec.MemberID

// validateMember is Kafka's ClassicGroup.validateMember: a request naming
// an instance id must come from that instance's current member id
// (UNKNOWN_MEMBER_ID when the instance is unknown, FENCED_INSTANCE_ID when
// it maps to another member id), and the member id must be a member
// (UNKNOWN_MEMBER_ID). A request without an instance id is checked on its
// member id alone.
func (c *Coordinator) validateMember(id spec.MemberID, instanceID string) spec.ErrorCode {
	_, code := c.validMember(id, instanceID)
	return code
}

// validMember is validateMember that also returns the member when the
// request is valid (nil otherwise): a heartbeat goes on to restart that
// member's session, without looking it up again.
func (c *Coordinator) validMember(id spec.MemberID, instanceID string) (*coordMember, spec.ErrorCode) {
	if instanceID != "" {
		current, ok := c.instances[instanceID]
		if !ok {
			return nil, spec.UnknownMemberID
		}
		if current != id {
			return nil, spec.FencedInstanceID
		}
	}
	m := c.members.Get(id)
	if m == nil {
		return nil, spec.UnknownMemberID
	}
	return m, spec.None
}

// State returns the group state.
func (c *Coordinator) State() GroupState { return c.state }

// Generation returns the current generation: 0 before the first completed
// join, then bumped by one on every completed join.
func (c *Coordinator) Generation() spec.Generation { return c.generation }

// Leader returns the leader of the current generation; "" when the group
// is empty or the leader left during a rebalance.
func (c *Coordinator) Leader() spec.MemberID { return c.leader }

// NextMemberID is the number the next generated member id will carry.
func (c *Coordinator) NextMemberID() uint64 { return c.nextMemberID }

// IssuedIDs is how many member ids the coordinator has handed out, those
// it handed out with MEMBER_ID_REQUIRED and that never joined included.
// While every one of them is a member of a round, no member has departed
// (the closed world's truth for the Timely law's delay clause).
func (c *Coordinator) IssuedIDs() int { return int(c.nextMemberID - 1) }

// Protocol returns the embedded protocol selected at the last completed
// join; "" when the group is empty.
func (c *Coordinator) Protocol() string { return c.protocol }

// Members returns the current member ids, sorted.
func (c *Coordinator) Members() []spec.MemberID { return c.sortedIDs() }

// IsMember reports whether id is a current member.
func (c *Coordinator) IsMember(id spec.MemberID) bool {
	return c.members.Has(id)
}

// IsMemberAt reports whether id is a current member whose last accepted
// request came from node: IsMember(id) && MemberNode(id) == node.
func (c *Coordinator) IsMemberAt(id spec.MemberID, node string) bool {
	m := c.members.Get(id)
	return m != nil && m.node == node
}

// MemberNode returns the node name a member's last accepted request came
// from (the process holding that member id), or "" for a non-member.
func (c *Coordinator) MemberNode(id spec.MemberID) string {
	if m := c.members.Get(id); m != nil {
		return m.node
	}
	return ""
}

// Clone returns a deep copy of c that shares nothing mutable with it.
func (c *Coordinator) Clone() *Coordinator {
	n := *c
	n.members = slices.Clone(c.members)
	for i := range n.members {
		mc := *n.members[i].Rec
		mc.protocols = slices.Clone(mc.protocols)
		n.members[i].Rec = &mc
	}
	n.pending = maps.Clone(c.pending)
	n.instances = maps.Clone(c.instances)
	n.timers = slices.Clone(c.timers)
	n.supported = maps.Clone(c.supported)
	n.shared = 0
	return &n
}

// Fork returns a copy of c for a caller that will not change c while the
// copy is in use (the model checker's worlds, which never change a state
// again once it is made). It shares with c the member table and records,
// the pending ids, static instances, timers and protocol counts, each
// until the fork's first write to it (a heartbeat from a member's own
// node writes no record), and the records' protocol lists for good (the
// coordinator replaces them whole, never changes them in place).
// Stepping the fork never changes c; changing c while the fork is in use
// may change the fork.
func (c *Coordinator) Fork() *Coordinator {
	n := *c
	n.shared = sharedAll
	return &n
}

// ownMembers copies the member table and every record in it, the records
// all in one allocation, if c shares them with the coordinator it was
// forked from. It comes before a step looks up a record it may write, and
// before every change of the table.
func (c *Coordinator) ownMembers() {
	if c.shared&sharedMembers == 0 {
		return
	}
	c.members = slices.Clone(c.members)
	records := make([]coordMember, len(c.members))
	for i := range c.members {
		records[i] = *c.members[i].Rec
		c.members[i].Rec = &records[i]
	}
	c.shared &^= sharedMembers
}

// ownPending, ownInstances, ownTimers and ownSupported copy the map they
// name if c shares it with the coordinator it was forked from; each comes
// before every write to that map.
func (c *Coordinator) ownPending()   { ownMap(&c.shared, sharedPending, &c.pending) }
func (c *Coordinator) ownInstances() { ownMap(&c.shared, sharedInstances, &c.instances) }
func (c *Coordinator) ownTimers() {
	if c.shared&sharedTimers != 0 {
		c.timers = slices.Clone(c.timers)
		c.shared &^= sharedTimers
	}
}
func (c *Coordinator) ownSupported() { ownMap(&c.shared, sharedSupported, &c.supported) }

// ownMap replaces *m with a copy and clears bit in *shared when bit is
// set: the map was shared and is now the coordinator's own.
func ownMap[K comparable, V any](shared *sharedMaps, bit sharedMaps, m *map[K]V) {
	if *shared&bit != 0 {
		*m = maps.Clone(*m)
		*shared &^= bit
	}
}

// String prints the whole state deterministically, one member per line
// (sorted by id) with its parked requests and stored assignment indented
// under it:
//
//	group g state=Stable gen=1 type=consumer protocol=range leader=A-1 join-timer=- next-id=3 next-arrival=3
//	member A-1 node=A client=A session=10000 rebalance=30000 session-timer=@10500 protocols=[range="..."]
//	  assignment="..."
func (c *Coordinator) String() string {
	var b strings.Builder
	jt := "-"
	if at, ok := c.timers.get(coordJoinTimer); ok {
		jt = fmt.Sprintf("@%d", at)
	}
	fmt.Fprintf(&b, "group %s state=%s gen=%d type=%s protocol=%s leader=%s join-timer=%s next-id=%d next-arrival=%d\n",
		c.cfg.GroupID, c.state, c.generation, coordDash(c.protocolType), coordDash(c.protocol), idOrDash(c.leader), jt, c.nextMemberID, c.nextArrival)
	for _, id := range c.sortedIDs() {
		m := c.members.Get(id)
		st := "-"
		if at, ok := c.timers.get(coordSessionTimer(id)); ok {
			st = fmt.Sprintf("@%d", at)
		}
		var ps []string
		for _, p := range m.protocols {
			ps = append(ps, fmt.Sprintf("%s=%q", p.Name, p.Metadata))
		}
		fmt.Fprintf(&b, "member %s%s node=%s client=%s session=%d rebalance=%d session-timer=%s protocols=[%s]\n",
			id, instance(m.instanceID), m.node, m.clientID, m.sessionTimeout, m.rebalanceTimeout, st, strings.Join(ps, " "))
		if m.join.ok {
			fmt.Fprintf(&b, "  awaiting-join #%d from %s arrival=%d\n", m.join.seq, m.join.from, m.join.arrival)
		}
		if m.sync.ok {
			fmt.Fprintf(&b, "  awaiting-sync #%d from %s\n", m.sync.seq, m.sync.from)
		}
		if m.assignment != "" {
			fmt.Fprintf(&b, "  assignment=%q\n", m.assignment)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.pending)) {
		st := "-"
		if at, ok := c.timers.get(coordSessionTimer(id)); ok {
			st = fmt.Sprintf("@%d", at)
		}
		fmt.Fprintf(&b, "pending %s session-timer=%s\n", id, st)
	}
	return b.String()
}

func coordDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// CheckInvariants returns an error naming the first broken invariant of
// c's state, or nil. Step keeps every invariant; tests call this after
// every step.
func (c *Coordinator) CheckInvariants() error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("classic: coordinator invariant: "+format+"\n%s", append(args, c)...)
	}
	// The table first: every lookup below depends on its order.
	if err := c.members.Ordered(); err != nil {
		return fail("member %v", err)
	}
	if (c.state == GroupEmpty) != (len(c.members) == 0) {
		return fail("state %s with %d members", c.state, len(c.members))
	}
	if c.generation < 0 {
		return fail("negative generation %d", c.generation)
	}
	if (c.protocolType == "") != (len(c.members) == 0) {
		return fail("protocol type %q with %d members", c.protocolType, len(c.members))
	}
	if c.state == GroupEmpty && c.protocol != "" || (c.state == GroupCompletingRebalance || c.state == GroupStable) && c.protocol == "" {
		return fail("protocol %q in state %s", c.protocol, c.state)
	}
	switch c.state {
	case GroupEmpty:
		if c.leader != "" {
			return fail("leader %s of an empty group", c.leader)
		}
	case GroupPreparingRebalance:
		if c.leader != "" && !c.IsMember(c.leader) {
			return fail("leader %s is not a member", c.leader)
		}
	default:
		if !c.IsMember(c.leader) {
			return fail("leader %q is not a member in state %s", c.leader, c.state)
		}
	}
	if !c.supportedCounted() {
		return fail("supported protocols %v, but the members advertise %v", c.supported, countSupported(c.members))
	}
	if _, ok := c.timers.get(coordJoinTimer); ok != (c.state == GroupPreparingRebalance) {
		return fail("join timer armed=%t in state %s", ok, c.state)
	}
	for id := range c.pending {
		if c.IsMember(id) {
			return fail("pending id %s is a member", id)
		}
		if _, ok := c.timers.get(coordSessionTimer(id)); !ok {
			return fail("pending id %s has no session timer", id)
		}
	}
	for i, a := range c.timers {
		t := a.timer
		if i > 0 && compareTimers(c.timers[i-1].timer, t) >= 0 {
			return fail("timers %s and %s out of order", c.timers[i-1].timer, t)
		}
		if t.Kind == SessionTimer && !c.IsMember(t.Member) && !c.pending[t.Member] {
			return fail("session timer of non-member %s", t.Member)
		}
		if t.Kind != SessionTimer && t != coordJoinTimer {
			return fail("unexpected timer %s", t)
		}
	}
	statics := 0
	for _, row := range c.members {
		id, m := row.Key, row.Rec
		if m.id != id {
			return fail("member %s recorded as %s", id, m.id)
		}
		if m.instanceID != "" {
			statics++
			if c.instances[m.instanceID] != id {
				return fail("instance %s of %s maps to %q", m.instanceID, id, c.instances[m.instanceID])
			}
		}
		if m.join.ok && c.state != GroupPreparingRebalance {
			return fail("parked join of %s in state %s", id, c.state)
		}
		if m.sync.ok && c.state != GroupCompletingRebalance {
			return fail("parked sync of %s in state %s", id, c.state)
		}
		if _, ok := c.timers.get(coordSessionTimer(id)); !ok && !m.join.ok && !m.sync.ok {
			return fail("member %s has no session timer", id)
		}
		if len(m.protocols) == 0 {
			return fail("member %s has no protocols", id)
		}
	}
	if statics != len(c.instances) {
		return fail("%d instance ids for %d static members", len(c.instances), statics)
	}
	if c.state != GroupEmpty {
		if !c.hasCandidate() {
			return fail("no protocol every member supports")
		}
	}
	return nil
}

// supportedCounted reports whether c.supported equals
// countSupported(c.members), without building the count: every name in
// it counts exactly the members that advertise it (a name a member lists
// twice counted once), at least one, and every name a member advertises
// is in it. It walks the members once: the checker asks at every step
// that changed the coordinator.
func (c *Coordinator) supportedCounted() bool {
	type tally struct {
		name      string
		want, got int
	}
	var buf [4]tally
	tallies := buf[:0]
	for name, n := range c.supported {
		if n <= 0 {
			return false
		}
		tallies = append(tallies, tally{name: name, want: n})
	}
	for _, row := range c.members {
		m := row.Rec
		for i, p := range m.protocols {
			if m.listedBefore(i) {
				continue
			}
			j := slices.IndexFunc(tallies, func(t tally) bool { return t.name == p.Name })
			if j < 0 {
				return false
			}
			tallies[j].got++
		}
	}
	for _, t := range tallies {
		if t.got != t.want {
			return false
		}
	}
	return true
}

// hasCandidate reports whether some protocol is supported by every
// member (len(c.candidates()) > 0, without building the list), for a
// group with members whose c.supported is counted right
// (supportedCounted).
func (c *Coordinator) hasCandidate() bool {
	for _, n := range c.supported {
		if n == len(c.members) {
			return true
		}
	}
	return false
}

// GroupDescription is a copy of what the coordinator records about the
// group, for DescribeGroups. It shares nothing mutable with the
// coordinator.
type GroupDescription struct {
	State      GroupState
	Generation spec.Generation
	// ProtocolType is "" for a group without members; Protocol is the
	// protocol selected at the last completed join, "" in GroupEmpty.
	ProtocolType, Protocol string
	Leader                 spec.MemberID
	// Members is sorted by ID.
	Members []MemberDescription
	// Pending is the ids handed out with MEMBER_ID_REQUIRED that have not
	// joined yet, sorted.
	Pending []spec.MemberID
}

// MemberDescription is one member of a GroupDescription.
type MemberDescription struct {
	ID                               spec.MemberID
	InstanceID                       string
	ClientID, ClientHost             string
	SessionTimeout, RebalanceTimeout Millis
	Protocols                        []ProtocolMetadata
	// Metadata is the member's metadata for the selected protocol; "" in
	// GroupEmpty or while no protocol is selected.
	Metadata Metadata
	// Assignment is the leader's assignment for the member in the current
	// generation; "" when none is stored.
	Assignment                 Metadata
	AwaitingJoin, AwaitingSync bool
}

// Describe returns a copy of the group's state for DescribeGroups.
func (c *Coordinator) Describe() GroupDescription {
	d := GroupDescription{
		State: c.state, Generation: c.generation,
		ProtocolType: c.protocolType, Protocol: c.protocol, Leader: c.leader,
		Pending: slices.Sorted(maps.Keys(c.pending)),
	}
	for _, id := range c.sortedIDs() {
		m := c.members.Get(id)
		md := MemberDescription{
			ID: id, InstanceID: m.instanceID, ClientID: m.clientID, ClientHost: m.clientHost,
			SessionTimeout: m.sessionTimeout, RebalanceTimeout: m.rebalanceTimeout,
			Protocols:    slices.Clone(m.protocols),
			Assignment:   m.assignment,
			AwaitingJoin: m.join.ok, AwaitingSync: m.sync.ok,
		}
		for _, p := range m.protocols {
			if p.Name == c.protocol && c.protocol != "" {
				md.Metadata = p.Metadata
				break
			}
		}
		d.Members = append(d.Members, md)
	}
	return d
}
