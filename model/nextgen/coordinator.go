package nextgen

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen/reconcile"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file holds the group coordinator (Coordinator), the KIP-848
// consumer group coordinator as a pure node: Kafka's GroupMetadataManager
// (consumerGroupHeartbeat, consumerGroupLeave, the session and rebalance
// timeouts) for one group, composed from the pure sub-algorithms of
// validate (request validation, join and leave decisions, epoch fencing),
// target (the target assignment) and reconcile (the member reconciliation
// state machine), with the server-side assignors of model/assign
// ("uniform", "range"). The heartbeat's handlers live in
// coordinator_heartbeat.go.
//
// A consumer group may hold members that use the classic protocol, as
// Kafka's does during an online migration (KIP-848's upgrade and downgrade
// paths): they speak JoinGroup, SyncGroup, Heartbeat, LeaveGroup and
// OffsetCommit, carried as Classic messages, and are reconciled like the
// others (coordinator_classic.go). FromClassicGroup builds the consumer
// group an upgrade makes of a classic group, and DowngradeTo reports the
// classic group a step downgraded the group to (coordinator_migrate.go);
// switching the group from one coordinator node to the other is the
// caller's.
//
//	out := c.Step(Input{Now: now, Event: ev})
//
// The coordinator reads no clock (time is Input.Now), performs nothing
// (Output is data: responses, timer commands), and changes only in Step.
// Facts follow the apache/kafka group-coordinator source (October 2024
// snapshot, heading for 4.0); later upstream fixes are selectable through
// Semantics. Where this model departs from Kafka, the comment at the spot
// says so.

// Kafka's defaults for the coordinator settings.
const (
	// DefaultSessionTimeout is group.consumer.session.timeout.ms.
	DefaultSessionTimeout Millis = 45000
	// DefaultHeartbeatInterval is group.consumer.heartbeat.interval.ms.
	DefaultHeartbeatInterval Millis = 5000
)

// DefaultAssignors is group.consumer.assignors: the server-side assignors a
// coordinator supports by default, the first being the default one.
var DefaultAssignors = []string{"uniform", "range"}

// CoordinatorConfig configures a Coordinator. Its zero value is not valid
// (GroupID is required); every other zero field means Kafka's default.
type CoordinatorConfig struct {
	// GroupID is the group this coordinator runs. Requests for any other
	// group are answered NOT_COORDINATOR.
	GroupID string
	// SessionTimeout is group.consumer.session.timeout.ms (default 45000
	// when 0): a member with no accepted heartbeat for this long is fenced.
	SessionTimeout Millis `canon:"duration"`
	// HeartbeatInterval is group.consumer.heartbeat.interval.ms (default
	// 5000 when 0), sent to members in every accepted heartbeat response.
	// It must be below SessionTimeout, as Kafka requires.
	HeartbeatInterval Millis `canon:"duration"`
	// MaxSize is group.consumer.max.size; 0 means unlimited.
	MaxSize int
	// Assignors names the supported server-side assignors
	// (group.consumer.assignors): "uniform", "range", or the Name of one
	// of ServerAssignors. The first is the default. Empty means the names
	// of ServerAssignors, in order, or DefaultAssignors when there are
	// none.
	Assignors []string
	// ServerAssignors are assignor values of the caller's (Kafka's
	// group.consumer.assignors also takes class names), known by their
	// Name; one named "uniform" or "range" replaces the built-in one. The
	// coordinator contains their failures as Kafka's does: an error, a
	// panic or an illegal assignment fails the heartbeat that needed a
	// new target with UNKNOWN_SERVER_ERROR, and the group keeps its
	// previous target (target.Build). An assignor must be a pure value
	// (deterministic, keeping no state), like the built-in ones; the
	// coordinator cannot stop one that never returns: bound it where time
	// is real (impl.BoundedAssignor).
	ServerAssignors []assign.Assignor
	// Topics is the initial metadata image: partitions per topic.
	Topics spec.Topics
	// Semantics selects behaviour from before named Kafka fixes:
	// BeforeKafka19233 (validate), BeforeKafka19449 (reconcile),
	// BeforeKafka18688 (the uniform assignor).
	Semantics Semantics
	// Faults are fault switches; the coordinator honours
	// AssignBeforeRelease, SkipEpochCheck, StraightToTarget,
	// RestartOnNewTarget and PerSetEpochUpdate.
	Faults Fault
	// UpgradeKeepsClaims is a fix this project proposes, not Kafka's
	// behaviour: an online upgrade of a classic group in
	// PreparingRebalance or Stable gives each member, besides its stored
	// assignment, what it claims (the partitions its last JoinGroup says
	// it owns) that nobody's stored assignment has. Kafka converts from
	// the stored assignments alone, so partitions that classic members
	// still own look free, and the consumer member that triggered the
	// upgrade is given them at once (ExclusiveOwnership): after a
	// rebalance interrupted CompletingRebalance, Kafka emptied every
	// assignment (prepareRebalance's resetAndPropagateAssignmentWithError;
	// model/mixed's finding_upgrade_after_failed_sync.txt); in a stable
	// cooperative group, the last round withheld from everybody what a
	// member is still to revoke (finding_upgrade_while_revoking.txt). Of
	// two claims of one partition, the one of the later generation stands
	// (the older is stale); of two of one generation, neither.
	UpgradeKeepsClaims bool
	// Migration is group.consumer.migration.policy: whether a classic
	// JoinGroup is admitted into the group (validate.ClassicJoin) and
	// whether the removal of the last member of the consumer protocol
	// downgrades the group to a classic group (validate.DowngradeOnLeave,
	// DowngradeOnReplace; see DowngradeTo). The zero value is
	// validate.PolicyBidirectional, Kafka's default.
	Migration validate.MigrationPolicy
	// ClassicMaxSize is group.max.size, the most members a classic group
	// may have: a downgrade that would leave more members does not happen.
	// 0 means unlimited. (The classic members' session timeouts come from
	// their JoinGroups, unchecked, as in Kafka's consumer-group path.)
	ClassicMaxSize int
}

// normalized returns cfg with defaults filled in and its slices and maps
// copied, or an error saying what makes it nonsensical.
func (cfg CoordinatorConfig) normalized() (CoordinatorConfig, error) {
	var errs []error
	if strings.TrimSpace(cfg.GroupID) == "" {
		errs = append(errs, errors.New("GroupID must not be empty"))
	}
	if cfg.SessionTimeout < 0 {
		errs = append(errs, fmt.Errorf("SessionTimeout %d is negative", cfg.SessionTimeout))
	}
	if cfg.HeartbeatInterval < 0 {
		errs = append(errs, fmt.Errorf("HeartbeatInterval %d is negative", cfg.HeartbeatInterval))
	}
	if cfg.MaxSize < 0 {
		errs = append(errs, fmt.Errorf("MaxSize %d is negative", cfg.MaxSize))
	}
	if cfg.ClassicMaxSize < 0 {
		errs = append(errs, fmt.Errorf("ClassicMaxSize %d is negative", cfg.ClassicMaxSize))
	}
	if cfg.Migration > validate.PolicyDisabled {
		errs = append(errs, fmt.Errorf("unknown Migration policy %d", cfg.Migration))
	}
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = DefaultSessionTimeout
	}
	if cfg.HeartbeatInterval == 0 {
		cfg.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if cfg.HeartbeatInterval > math.MaxInt32 {
		errs = append(errs, fmt.Errorf("HeartbeatInterval %d does not fit the int32 wire field", cfg.HeartbeatInterval))
	}
	if cfg.SessionTimeout > 0 && cfg.HeartbeatInterval > 0 && cfg.HeartbeatInterval >= cfg.SessionTimeout {
		errs = append(errs, fmt.Errorf("HeartbeatInterval %d must be less than SessionTimeout %d", cfg.HeartbeatInterval, cfg.SessionTimeout))
	}
	custom := map[string]bool{}
	var customNames []string
	for i, a := range cfg.ServerAssignors {
		switch {
		case a == nil:
			errs = append(errs, fmt.Errorf("ServerAssignors[%d] is nil", i))
			continue
		case strings.TrimSpace(a.Name()) == "":
			errs = append(errs, fmt.Errorf("ServerAssignors[%d] has an empty name", i))
		case custom[a.Name()]:
			errs = append(errs, fmt.Errorf("two ServerAssignors are named %q", a.Name()))
		}
		custom[a.Name()] = true
		customNames = append(customNames, a.Name())
	}
	cfg.ServerAssignors = slices.Clone(cfg.ServerAssignors)
	switch {
	case len(cfg.Assignors) > 0:
		cfg.Assignors = slices.Clone(cfg.Assignors)
	case len(customNames) > 0:
		cfg.Assignors = customNames
	default:
		cfg.Assignors = slices.Clone(DefaultAssignors)
	}
	for _, name := range customNames {
		if !slices.Contains(cfg.Assignors, name) {
			errs = append(errs, fmt.Errorf("ServerAssignors has %q, which Assignors does not list", name))
		}
	}
	seen := map[string]bool{}
	for _, name := range cfg.Assignors {
		if _, ok := newAssignor(name, cfg.Semantics); !ok && !custom[name] {
			known := append([]string{"uniform", "range"}, customNames...)
			errs = append(errs, fmt.Errorf("unknown server assignor %q (known: %s)", name, strings.Join(known, ", ")))
		}
		if seen[name] {
			errs = append(errs, fmt.Errorf("server assignor %q listed twice", name))
		}
		seen[name] = true
	}
	if err := validTopics(cfg.Topics); err != nil {
		errs = append(errs, err)
	}
	cfg.Topics = copyTopics(cfg.Topics)
	if extra := cfg.Faults &^ FaultList.All(); extra != 0 {
		errs = append(errs, fmt.Errorf("unknown fault bits %#x", uint32(extra)))
	}
	if err := errors.Join(errs...); err != nil {
		return CoordinatorConfig{}, fmt.Errorf("coordinator: invalid config: %w", err)
	}
	return cfg, nil
}

// newAssignor returns the server-side assignor called name.
func newAssignor(name string, sem Semantics) (assign.Assignor, bool) {
	switch name {
	case "uniform":
		return assign.UniformWith(assign.UniformOptions{BeforeKafka18688: sem.BeforeKafka18688}), true
	case "range":
		return assign.ServerRange(), true
	}
	return nil, false
}

// validTopics returns an error for a metadata image with an empty topic
// name or a negative partition count.
func validTopics(t spec.Topics) error {
	for _, name := range t.Names() {
		if name == "" {
			return errors.New("metadata has a topic with an empty name")
		}
		if t[name] < 0 {
			return fmt.Errorf("topic %q has a negative partition count %d", name, t[name])
		}
	}
	return nil
}

// copyTopics returns a fresh copy of t, never nil.
func copyTopics(t spec.Topics) spec.Topics {
	out := make(spec.Topics, len(t))
	maps.Copy(out, t)
	return out
}

// GroupState is the state of a consumer group (Kafka's
// ConsumerGroup.ConsumerGroupState without DEAD: this model never unloads or
// deletes a group). It is derived from the epochs and the members (CG
// maybeUpdateGroupState) and recorded; transitionTo is its only writer.
type GroupState uint8

// The group states.
const (
	// GroupEmpty: no members.
	GroupEmpty GroupState = iota
	// GroupAssigning: the group epoch is ahead of the target assignment epoch;
	// the next heartbeat of any member computes a new target.
	GroupAssigning
	// GroupReconciling: some member is not yet reconciled to the target (not
	// STABLE at the target epoch), including a static member parked at -2.
	GroupReconciling
	// GroupStable: every member is STABLE at the target epoch.
	GroupStable
)

// groupStates names the group states and holds every state change one
// Step can make. A group never goes from EMPTY to ASSIGNING: only a fence
// leaves the group epoch ahead of the target epoch, and fencing cannot
// happen in an empty group, while an accepted heartbeat always brings the
// target up to the group epoch.
var groupStates = node.Machine[GroupState]{
	Enum:  node.Enum[GroupState]{Type: "GroupState", Names: []string{"EMPTY", "ASSIGNING", "RECONCILING", "STABLE"}},
	Owner: "coordinator: group",
	Moves: []uint32{
		GroupEmpty:       1<<GroupReconciling | 1<<GroupStable,
		GroupAssigning:   1<<GroupEmpty | 1<<GroupReconciling | 1<<GroupStable,
		GroupReconciling: 1<<GroupEmpty | 1<<GroupAssigning | 1<<GroupStable,
		GroupStable:      1<<GroupEmpty | 1<<GroupAssigning | 1<<GroupReconciling,
	},
}

// String returns Kafka's name of the state.
func (s GroupState) String() string { return groupStates.Name(s) }

// Coordinator is the KIP-848 group coordinator of one group.
//
// A Coordinator is a mutable value used through a pointer: Step consumes the
// receiver's old state and leaves the new one in its place. Take a Clone
// first to keep the old state. The zero Coordinator is not usable; call
// NewCoordinator.
type Coordinator struct {
	// cfg never changes after construction, so clones and forks share it
	// (they copy a pointer, not the whole configuration).
	cfg *CoordinatorConfig `canon:"-"`
	// assignors maps the supported names to their implementations;
	// immutable after construction and shared by clones.
	assignors map[string]assign.Assignor `canon:"-"`

	// exists is false until the first accepted heartbeat creates the group
	// (epoch 0); an empty group that had members still exists.
	exists bool
	// state changes only through transitionTo.
	state       GroupState
	groupEpoch  spec.Epoch
	targetEpoch spec.Epoch

	// topics is the current metadata image. The three Topics maps are
	// never written after they are stored (they are replaced whole), so
	// clones share them.
	topics spec.Topics
	// subscribed is the subscription metadata (Kafka's
	// subscriptionMetadata): the partition counts of the topics some member
	// subscribes to, as of the last refresh.
	subscribed spec.Topics
	// targetTopics is the subscription metadata the target was computed
	// with.
	targetTopics spec.Topics
	// metadataExpired is set by a MetadataUpdate that changes a subscribed
	// topic; the next accepted heartbeat recomputes subscribed and clears
	// it (Kafka's requestMetadataRefresh / hasMetadataExpired).
	metadataExpired bool

	// members holds each member's record, ordered by member id
	// (memberTable). A record is never written after it is stored
	// (setRecord stores a changed copy), so forks share the records, and
	// the table until their first write to it (ownMembers).
	members memberTable
	// instances maps each static member's instance id to its member id
	// (Kafka's staticMembers). It holds exactly the members with an
	// instance id, so the encoding leaves it out (EncodeCanon).
	instances map[string]spec.MemberID `canon:"-"`
	// target is the target assignment: exactly one entry per member.
	target spec.Assignment
	// owners is Kafka's currentPartitionEpoch: for every partition that a
	// member holds as assigned or pending revocation, the holder and its
	// member epoch (see ownerMap for how they are kept). More than one
	// holder only with the AssignBeforeRelease fault. With
	// the PerSetEpochUpdate fault it is Kafka's map before KAFKA-16147:
	// one holder per partition, which may be missing or name a member
	// that no longer holds it.
	owners ownerMap

	// shared marks the maps a Fork shares with the coordinator it was
	// forked from: each is copied (ownOwners, ownTarget, ownInstances)
	// before the first write to it.
	shared sharedMaps `canon:"-"`

	// classicIDs counts the member ids generated for classic members that
	// joined without one (<ClientID>-<n>, n = classicIDs after the
	// increment); Kafka generates a random UUID. It only grows.
	classicIDs uint64 `canon:"counter"`
	// downgrade is the classic group the group became in the last Step,
	// nil when it did not (see DowngradeTo). Every Step resets it first,
	// so it is a result of the step rather than state: left out of the
	// encoding.
	downgrade *classic.CoordinatorSnapshot `canon:"-"`
}

// member is the coordinator's record of one member (ConsumerGroupMember).
// Its slices are never written after they are stored, so copies of the
// struct share them safely.
type member struct {
	id         spec.MemberID
	instanceID string // "" for a dynamic member
	rack       string // "" when not sent
	assignor   string // ServerAssignor, "" when never sent
	// rebalanceTimeout is the member's RebalanceTimeoutMs.
	rebalanceTimeout Millis `canon:"duration"`
	// subscription is SubscribedTopicNames, sorted and distinct.
	subscription []string
	// node is the From of the member's last accepted regular heartbeat.
	node string
	// cur is the member's current assignment: epochs, reconciliation
	// state, assigned partitions and partitions pending revocation.
	cur reconcile.Member
	// assignedAt holds, for every partition the member holds (assigned or
	// pending revocation), the member epoch at which it was assigned
	// (KIP-1251; see assignmentEpochs), sorted by partition. Never written
	// after it is stored.
	assignedAt []validate.AssignmentEpoch
	// targetMemberEpoch is the target epoch the member was last reconciled
	// towards: Kafka's field before KAFKA-16249. It is kept only under the
	// RestartOnNewTarget fault, which restarts the reconciliation when the
	// target epoch differs from it; 0 otherwise.
	targetMemberEpoch spec.Epoch

	// cl is what a member that uses the classic protocol adds to its
	// record; the zero value for a member of the consumer protocol.
	cl classicMember

	// The member's timers. Every member has a session timer. A rebalance
	// timer is armed exactly while a member of the consumer protocol is
	// UNREVOKED_PARTITIONS at a non-negative epoch, for that epoch; a
	// member that uses the classic protocol never has one (Kafka's
	// maybeReconcile), it has the join and sync timers of cl instead.
	sessionArmed   bool
	sessionAt      Millis `canon:"instant"` // 0 while not armed
	rebalanceArmed bool
	rebalanceEpoch spec.Epoch
	rebalanceAt    Millis `canon:"instant"` // 0 while not armed
}

// classicMember is what a member that uses the classic protocol adds to
// its record: Kafka's ConsumerGroupMember.classicMemberMetadata (its
// session timeout and supported protocols), its client id and host, and
// its classic timers. The zero value is a member of the consumer protocol.
// Its slice is never written after it is stored.
type classicMember struct {
	// use is ConsumerGroupMember.useClassicProtocol.
	use bool
	// sessionTimeout is the SessionTimeout of the member's last JoinGroup
	// (or of its classic group, for a member carried over by an upgrade):
	// its session timer runs for it instead of the group's.
	sessionTimeout Millis `canon:"duration"`
	// protocols are the member's JoinGroup protocols with their metadata,
	// in its order; the first is the protocol name of its JoinGroup
	// responses.
	protocols []classic.ProtocolMetadata
	// clientID and clientHost are the JoinGroup's (kept for a downgrade).
	clientID, clientHost string
	// The join timer (ClassicJoinTimer) and the sync timer
	// (ClassicSyncTimer), with their deadlines (0 while not armed).
	joinArmed bool
	joinAt    Millis `canon:"instant"`
	syncArmed bool
	syncAt    Millis `canon:"instant"`
}

// holds returns the partitions m holds: assigned ∪ pending revocation.
func (m member) holds() spec.Set { return m.cur.Assigned.Union(m.cur.PendingRevocation) }

// holder is one entry of the partition-owner map.
type holder struct {
	member spec.MemberID
	epoch  spec.Epoch
}

// step collects the output of one Step.
type step struct {
	now Millis `canon:"instant"`
	out Output
	// seq is the correlation id of the request being handled; every
	// response echoes it.
	seq uint64 `canon:"seq"`
	// msgs and timers back out.Messages and out.Timers for the one
	// message almost every step sends and the few timer commands it
	// gives.
	msgs   [1]Envelope
	timers [2]TimerCmd
}

// send sends msg to to. A HeartbeatResponse goes through respond instead.
func (s *step) send(to string, msg Message) {
	s.out.Messages = append(s.out.Messages, Envelope{From: CoordinatorNode, To: to, Msg: msg})
}

// respond sends r to to, echoing the correlation id of the request being
// handled.
func (s *step) respond(to string, r HeartbeatResponse) {
	r.Seq = s.seq
	s.send(to, r)
}

// NewCoordinator returns the coordinator of a group that does not exist
// yet (group epoch 0, EMPTY); the first accepted join creates it. It
// returns an error for a nonsensical configuration: an empty GroupID, a
// negative timeout or size, a heartbeat interval not below the session
// timeout, an unknown or repeated assignor name, a ServerAssignors value
// that is nil, unnamed, named twice or not listed in Assignors, invalid
// topics, or unknown fault bits.
func NewCoordinator(cfg CoordinatorConfig) (*Coordinator, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	c := &Coordinator{
		cfg:       &cfg,
		assignors: map[string]assign.Assignor{},
		state:     GroupEmpty,
		topics:    cfg.Topics,
		instances: map[string]spec.MemberID{},
		target:    spec.Assignment{},
	}
	for _, name := range cfg.Assignors {
		c.assignors[name], _ = newAssignor(name, cfg.Semantics)
	}
	for _, a := range cfg.ServerAssignors {
		if _, supported := c.assignors[a.Name()]; supported {
			c.assignors[a.Name()] = a
		}
	}
	return c, nil
}

// Step applies one input and returns what the driver must do. It mutates c
// in place: the receiver's old state is consumed (Clone it first to keep
// it). Same state and same input give the same output, always.
//
// The inputs a coordinator takes:
//   - Receive of a HeartbeatRequest: see handleHeartbeat. The response goes
//     to the Receive's From. A rejected request is answered with Kafka's
//     error code and changes nothing at all, timers included.
//   - Receive of an OffsetCommitRequest or OffsetFetchRequest: the
//     fencing verdict (validate.OffsetCommit, validate.OffsetFetch) as an
//     OffsetResponse, with a commit's partitions refused one by one; it
//     changes nothing.
//   - Receive of a Classic message carrying a request of the classic
//     protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit)
//     from a member that uses it: see handleClassic. The answer is a
//     Classic message carrying the classic response.
//   - TimerFired of a SessionTimer or RebalanceTimer, or of a classic
//     member's ClassicJoinTimer or ClassicSyncTimer (firing fences the
//     member). A firing of a timer that is not armed, or before its
//     deadline, is stale and ignored.
//   - MetadataUpdate: the new metadata image (no output).
//
// Any other event or message, or a MetadataUpdate with an empty topic name
// or a negative count, is a driver bug and panics.
func (c *Coordinator) Step(in node.Input) Output {
	s := &step{now: in.Now}
	s.out.Messages, s.out.Timers = s.msgs[:0], s.timers[:0]
	c.handle(s, in)
	s.out.NilEmpty()
	return s.out
}

// StepInto is Step with the output written into *out, which it first
// empties keeping its lists' arrays (node.Output.Reset). The coordinator
// keeps no reference to out or its arrays.
func (c *Coordinator) StepInto(in node.Input, out *Output) {
	out.Reset()
	s := &step{now: in.Now, out: *out}
	c.handle(s, in)
	*out = s.out
}

// handle is the work of Step and StepInto: it routes in, writing into s.out.
func (c *Coordinator) handle(s *step, in node.Input) {
	c.downgrade = nil
	switch ev := in.Event.(type) {
	case Receive:
		switch req := ev.Msg.(type) {
		case Classic:
			c.handleClassic(s, ev.From, req.Msg)
		case HeartbeatRequest:
			s.seq = req.Seq
			c.handleHeartbeat(s, ev.From, req)
		case OffsetCommitRequest:
			sem := validate.Semantics{BeforeKafka20066: c.cfg.Semantics.BeforeKafka20066}
			c.handleOffsets(s, ev.From, req.Seq, req.GroupID, func(g validate.Group) (validate.Rejection, spec.Set) {
				if c.cfg.Faults.Has(AcceptStaleCommits) {
					return validate.Rejection{}, nil
				}
				return validate.OffsetCommit(g, req.MemberID, req.MemberEpoch, req.Version, req.Partitions, sem)
			})
		case OffsetFetchRequest:
			c.handleOffsets(s, ev.From, req.Seq, req.GroupID, func(g validate.Group) (validate.Rejection, spec.Set) {
				return validate.OffsetFetch(g, req.MemberID, req.MemberEpoch), nil
			})
		default:
			panic(fmt.Sprintf("coordinator: Step: %T is not a request a coordinator takes", ev.Msg))
		}
	case TimerFired:
		c.handleTimer(s, ev.Timer)
	case node.MetadataUpdate:
		c.handleMetadata(ev.Topics)
	default:
		panic(fmt.Sprintf("coordinator: Step: event %T is not for a coordinator", in.Event))
	}
}

// handleOffsets answers the fencing half of OffsetCommit or OffsetFetch
// with rule's verdict on the group and the partitions it refuses one by
// one (NOT_COORDINATOR for another group; GROUP_ID_NOT_FOUND before the
// group exists). It changes nothing: commits do not keep a
// consumer-protocol member alive.
func (c *Coordinator) handleOffsets(s *step, from string, seq uint64, group string, rule func(validate.Group) (validate.Rejection, spec.Set)) {
	var rej validate.Rejection
	var stale spec.Set
	switch {
	case group != c.cfg.GroupID:
		rej = rejection(spec.NotCoordinator, "This coordinator runs group %s, not %s.", c.cfg.GroupID, group)
	case !c.exists:
		rej = rejection(spec.GroupIDNotFound, "Group %s does not exist.", group)
	default:
		rej, stale = rule(groupView{c})
	}
	s.out.Messages = append(s.out.Messages, Envelope{From: CoordinatorNode, To: from,
		Msg: OffsetResponse{Seq: seq, Error: rej.Code, ErrorMessage: rej.Message, StalePartitions: stale}})
}

// PreferredAssignor returns the server-side assignor the group would use
// now (computePreferredServerAssignor over the current members; what
// ConsumerGroupDescribe reports as AssignorName).
func (c *Coordinator) PreferredAssignor() string {
	return c.preferredAssignor(member{}, nil)
}

// handleTimer fires t if it is armed and due, and ignores it otherwise.
func (c *Coordinator) handleTimer(s *step, t Timer) {
	switch t.Kind {
	case SessionTimer, RebalanceTimer, ClassicJoinTimer, ClassicSyncTimer:
	default:
		panic(fmt.Sprintf("coordinator: Step: %s is not a coordinator timer", t))
	}
	m, ok := c.recordOf(t.Member)
	if !ok {
		return // the member is gone: its timers were cancelled
	}
	switch t.Kind {
	case SessionTimer:
		if t != sessionTimer(m.id) || !m.sessionArmed || s.now < m.sessionAt {
			return
		}
		// Consumed: the driver no longer holds it, so the fence below
		// must not cancel it. Kafka: "the member session expired."; this
		// includes a static member parked at -2.
		m.sessionArmed = false
		c.setRecord(m)
		c.fence(s, m.id)
	case RebalanceTimer:
		if !m.rebalanceArmed || m.rebalanceEpoch != t.Epoch || s.now < m.rebalanceAt {
			return
		}
		m.rebalanceArmed = false
		c.setRecord(m)
		// Kafka fences only if the member is still at the epoch the
		// timer was armed for ("failed to transition from epoch X").
		// Since this model cancels the timer whenever the member leaves
		// that epoch, the check never fails; it stays as Kafka's guard.
		if m.cur.Epoch == t.Epoch {
			c.fence(s, m.id)
		}
	case ClassicJoinTimer:
		if t != classicJoinTimer(m.id) || !m.cl.joinArmed || s.now < m.cl.joinAt {
			return
		}
		// "the classic member failed to join within the rebalance timeout."
		m.cl.joinArmed, m.cl.joinAt = false, 0
		c.setRecord(m)
		c.fence(s, m.id)
	case ClassicSyncTimer:
		if t != classicSyncTimer(m.id) || !m.cl.syncArmed || s.now < m.cl.syncAt {
			return
		}
		// "the member failed to sync within timeout."
		m.cl.syncArmed, m.cl.syncAt = false, 0
		c.setRecord(m)
		c.fence(s, m.id)
	}
}

// handleMetadata installs a new metadata image. It marks the metadata
// expired when a topic some member subscribes to was created, deleted or
// changed its partition count (Kafka's onNewMetadataImage); the next
// accepted heartbeat then recomputes the subscription metadata and bumps
// the group epoch if it changed.
func (c *Coordinator) handleMetadata(topics spec.Topics) {
	if err := validTopics(topics); err != nil {
		panic(fmt.Sprintf("coordinator: MetadataUpdate: %v", err))
	}
	next := copyTopics(topics)
	if !c.metadataExpired {
		for _, t := range c.subscribedNames(nil, nil) {
			oldN, oldOK := c.topics[t]
			newN, newOK := next[t]
			if oldOK != newOK || oldN != newN {
				c.metadataExpired = true
				break
			}
		}
	}
	c.topics = next
}

// transitionTo moves the group to next, panicking on a transition the
// table does not allow. It is the only writer of c.state.
func (c *Coordinator) transitionTo(next GroupState) {
	c.state = groupStates.Move("", c.state, next, c)
}

// derivedState is the state the group is in by Kafka's rules
// (ConsumerGroup.maybeUpdateGroupState).
func (c *Coordinator) derivedState() GroupState {
	switch {
	case len(c.members) == 0:
		return GroupEmpty
	case c.groupEpoch > c.targetEpoch:
		return GroupAssigning
	}
	for _, row := range c.members {
		m := row.Rec
		if !m.cur.IsReconciledTo(c.targetEpoch) {
			return GroupReconciling
		}
	}
	return GroupStable
}

// updateState moves the group to its derived state if it changed.
func (c *Coordinator) updateState() {
	if next := c.derivedState(); next != c.state {
		c.transitionTo(next)
	}
}

func sessionTimer(id spec.MemberID) Timer {
	return Timer{Kind: SessionTimer, Member: id}
}

func rebalanceTimer(id spec.MemberID, e spec.Epoch) Timer {
	return Timer{Kind: RebalanceTimer, Member: id, Epoch: e}
}

// armSession (re)starts m's session timer at at; re-arming it to the
// deadline it already has emits nothing.
func (s *step) armSession(m *member, at Millis) {
	if m.sessionArmed && m.sessionAt == at {
		return
	}
	m.sessionArmed, m.sessionAt = true, at
	s.out.Timers = append(s.out.Timers, TimerCmd{Timer: sessionTimer(m.id), At: at})
}

// armRebalance (re)starts m's rebalance timer for epoch e at at. Kafka
// keys the timer by member only, so a timer for another epoch is replaced
// (cancelled here).
func (s *step) armRebalance(m *member, e spec.Epoch, at Millis) {
	if m.rebalanceArmed && m.rebalanceEpoch == e && m.rebalanceAt == at {
		return
	}
	if m.rebalanceArmed && m.rebalanceEpoch != e {
		s.cancelRebalance(m)
	}
	m.rebalanceArmed, m.rebalanceEpoch, m.rebalanceAt = true, e, at
	s.out.Timers = append(s.out.Timers, TimerCmd{Timer: rebalanceTimer(m.id, e), At: at})
}

// cancelSession cancels m's session timer if it is armed.
func (s *step) cancelSession(m *member) {
	if !m.sessionArmed {
		return
	}
	m.sessionArmed, m.sessionAt = false, 0
	s.out.Timers = append(s.out.Timers, TimerCmd{Timer: sessionTimer(m.id), Cancel: true})
}

func classicJoinTimer(id spec.MemberID) Timer {
	return Timer{Kind: ClassicJoinTimer, Member: id}
}

func classicSyncTimer(id spec.MemberID) Timer {
	return Timer{Kind: ClassicSyncTimer, Member: id}
}

// sessionTimeout is how long m's session lasts without an accepted
// request: its classic session timeout if it uses the classic protocol,
// the group's (group.consumer.session.timeout.ms) otherwise.
func (c *Coordinator) sessionTimeout(m *member) Millis {
	if m.cl.use {
		return m.cl.sessionTimeout
	}
	return c.cfg.SessionTimeout
}

// armJoinIfAbsent arms m's classic join timer for d unless it is armed
// (Kafka's scheduleConsumerGroupJoinTimeoutIfAbsent).
func (s *step) armJoinIfAbsent(m *member, d Millis) {
	if m.cl.joinArmed {
		return
	}
	m.cl.joinArmed, m.cl.joinAt = true, s.now+max(d, 0)
	s.out.Timers = append(s.out.Timers, TimerCmd{Timer: classicJoinTimer(m.id), At: m.cl.joinAt})
}

// armSync (re)starts m's classic sync timer for d (Kafka's
// scheduleConsumerGroupSyncTimeout replaces an armed one).
func (s *step) armSync(m *member, d Millis) {
	at := s.now + max(d, 0)
	if m.cl.syncArmed && m.cl.syncAt == at {
		return
	}
	m.cl.syncArmed, m.cl.syncAt = true, at
	s.out.Timers = append(s.out.Timers, TimerCmd{Timer: classicSyncTimer(m.id), At: at})
}

// cancelClassicTimers cancels m's classic join and sync timers if armed.
func (s *step) cancelClassicTimers(m *member) {
	s.cancelJoin(m)
	s.cancelSync(m)
}

// cancelJoin cancels m's classic join timer if it is armed.
func (s *step) cancelJoin(m *member) {
	if m.cl.joinArmed {
		m.cl.joinArmed, m.cl.joinAt = false, 0
		s.out.Timers = append(s.out.Timers, TimerCmd{Timer: classicJoinTimer(m.id), Cancel: true})
	}
}

// cancelSync cancels m's classic sync timer if it is armed.
func (s *step) cancelSync(m *member) {
	if m.cl.syncArmed {
		m.cl.syncArmed, m.cl.syncAt = false, 0
		s.out.Timers = append(s.out.Timers, TimerCmd{Timer: classicSyncTimer(m.id), Cancel: true})
	}
}

// cancelRebalance cancels m's rebalance timer if it is armed.
func (s *step) cancelRebalance(m *member) {
	if !m.rebalanceArmed {
		return
	}
	t := rebalanceTimer(m.id, m.rebalanceEpoch)
	m.rebalanceArmed, m.rebalanceEpoch, m.rebalanceAt = false, 0, 0
	s.out.Timers = append(s.out.Timers, TimerCmd{Timer: t, Cancel: true})
}

// subscribedNames returns, sorted, every topic some member subscribes to,
// with override standing in for the member of the same id (and ignoring
// the ids in skip), appended to dst[:0] (which may be nil).
func (c *Coordinator) subscribedNames(dst []string, override *member, skip ...spec.MemberID) []string {
	names := dst[:0]
	for _, row := range c.members {
		m := row.Rec
		if slices.Contains(skip, m.id) || (override != nil && m.id == override.id) {
			continue
		}
		names = append(names, m.subscription...)
	}
	if override != nil {
		names = append(names, override.subscription...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// subscriptionMetadata is Kafka's computeSubscriptionMetadata: the
// partition counts, in the current image, of the given subscribed topics
// that exist.
func (c *Coordinator) subscriptionMetadata(names []string) spec.Topics {
	out := spec.Topics{}
	for _, t := range names {
		if n, ok := c.topics[t]; ok {
			out[t] = n
		}
	}
	return out
}

// refreshedMetadata is subscriptionMetadata(names) for sorted, distinct
// names, but c.subscribed itself when that is equal to it (a stored Topics
// map is never written, so the two may share it), as it is on almost every
// refresh: the common one is a member joining with the subscription the
// others have.
func (c *Coordinator) refreshedMetadata(names []string) spec.Topics {
	if c.subscribed == nil {
		return c.subscriptionMetadata(names)
	}
	n := 0
	for _, t := range names {
		if count, ok := c.topics[t]; ok {
			if had, ok := c.subscribed[t]; !ok || had != count {
				return c.subscriptionMetadata(names)
			}
			n++
		}
	}
	if n != len(c.subscribed) {
		return c.subscriptionMetadata(names)
	}
	return c.subscribed
}

// updateHoldings moves member id's entries in the owner map from its old
// current assignment (nil for a member new to the group) to next, at
// next's epoch: Kafka's ConsumerGroup.updatePartitionEpochs. It removes
// everything old holds, then adds everything next holds. The owner map
// ends as if it did exactly that, but it is only touched where the
// holding changes: the epochs are the member record's (see ownerMap), so
// a heartbeat that leaves both sets as they were costs nothing per
// partition, whatever its epoch.
//
// With the PerSetEpochUpdate fault it is the method before KAFKA-16147
// instead: the assigned partitions, then the partitions pending
// revocation, each set updated only when it changed, by removing the old
// set and adding the new one (see removeHoldings and addHoldings for how
// the fault removes and adds). A partition that moves from pending
// revocation to assigned in one step is added by the first update and
// deleted by the second, so the map forgets that the member holds it.
func (c *Coordinator) updateHoldings(id spec.MemberID, old *reconcile.Member, next reconcile.Member) {
	switch {
	case !c.cfg.Faults.Has(PerSetEpochUpdate):
		if old == nil {
			c.addHoldings(id, next.Epoch, next.Assigned.Union(next.PendingRevocation))
			return
		}
		if old.Assigned.Equal(next.Assigned) && old.PendingRevocation.Equal(next.PendingRevocation) {
			return
		}
		c.moveHoldings(id, old.Assigned.Union(old.PendingRevocation), next.Assigned.Union(next.PendingRevocation))
	case old == nil:
		c.addHoldings(id, next.Epoch, next.Assigned)
		c.addHoldings(id, next.Epoch, next.PendingRevocation)
	default:
		if !old.Assigned.Equal(next.Assigned) {
			c.removeHoldings(id, old.Assigned)
			c.addHoldings(id, next.Epoch, next.Assigned)
		}
		if !old.PendingRevocation.Equal(next.PendingRevocation) {
			c.removeHoldings(id, old.PendingRevocation)
			c.addHoldings(id, next.Epoch, next.PendingRevocation)
		}
	}
}

// moveHoldings is removeHoldings(id, from) followed by addHoldings(id, e,
// to), without the PerSetEpochUpdate fault, touching only the partitions
// of one set and not the other: a partition of both keeps its entry,
// unread. It panics where the two would for the partitions it changes, on
// the same partition and with the same message: first for a partition of
// from only that id does not hold, then for a partition of to only that
// another member holds (unless the AssignBeforeRelease fault is on). A
// partition of both it does not look up: in an owner map that matches the
// member records (CheckInvariants, which the tests and the model checker
// run after every step) id holds it, alone without AssignBeforeRelease,
// and a member's heartbeat usually keeps all but a few of its partitions
// (at 200 members over 20,000 partitions, looking up the kept ones was a
// sixth of the next-gen simulation). The two differences come from one
// spec.Split, which compares the two sets a topic at a time (walking them
// here resource by resource compared their topic names at every step: a
// tenth of the next-gen simulation at 60 members).
func (c *Coordinator) moveHoldings(id spec.MemberID, from, to spec.Set) {
	c.ownOwners()
	var w rowWriter
	// Removal: every partition of from only must be id's, and is released.
	_, gone, come := spec.Split(from, to)
	for _, p := range gone {
		s := w.at(&c.owners, p)
		i := s.index(id)
		if i < 0 {
			panic(fmt.Sprintf("coordinator: partition %s is not held by %s (holders %v)", p, id, c.holders(*s)))
		}
		*s = s.without(i)
	}
	// Addition: every partition of to only is taken.
	for _, p := range come {
		c.take(w.at(&c.owners, p), id, p)
	}
}

// removeHoldings removes id's holding of every partition of ps from the
// owner map. With the PerSetEpochUpdate fault it deletes each partition's
// entry whoever holds it, as Kafka's removePartitionEpochs did before
// KAFKA-16147.
func (c *Coordinator) removeHoldings(id spec.MemberID, ps spec.Set) {
	c.ownOwners()
	var w rowWriter
	for _, p := range ps {
		s := w.at(&c.owners, p)
		if c.cfg.Faults.Has(PerSetEpochUpdate) {
			*s = slot{}
			continue
		}
		i := s.index(id)
		if i < 0 {
			panic(fmt.Sprintf("coordinator: partition %s is not held by %s (holders %v)", p, id, c.holders(*s)))
		}
		*s = s.without(i)
	}
}

// addHoldings records id as the holder of every partition of ps at epoch
// e (see take). With the PerSetEpochUpdate fault it overwrites the entry
// instead, as Kafka's addPartitionEpochs did before KAFKA-16147, and
// records the epoch e.
func (c *Coordinator) addHoldings(id spec.MemberID, e spec.Epoch, ps spec.Set) {
	c.ownOwners()
	var w rowWriter
	for _, p := range ps {
		s := w.at(&c.owners, p)
		if c.cfg.Faults.Has(PerSetEpochUpdate) {
			*s = slot{first: holder{member: id, epoch: e}}
			continue
		}
		c.take(s, id, p)
	}
}

// take records id in s, the slot of partition p, as a holder (its epoch is
// its member record's). A partition still held by another member is
// Kafka's IllegalStateException in addPartitionEpochs, the hard guard
// against double ownership: it panics, unless the AssignBeforeRelease
// fault is on. Not for the PerSetEpochUpdate fault.
func (c *Coordinator) take(s *slot, id spec.MemberID, p spec.Resource) {
	if s.empty() {
		*s = slot{first: holder{member: id}}
		return
	}
	if !c.cfg.Faults.Has(AssignBeforeRelease) {
		first := c.holders(*s)[0]
		panic(fmt.Sprintf("coordinator: %s would take %s, which %s still holds at epoch %d", id, p, first.member, first.epoch))
	}
	if s.index(id) >= 0 {
		panic(fmt.Sprintf("coordinator: %s already holds %s", id, p))
	}
	next := append(s.holders(), holder{member: id})
	slices.SortFunc(next, compareHolders)
	*s = slotOf(next)
}

// holders returns the holders of s with their epochs: as stored under the
// PerSetEpochUpdate fault, their member records' otherwise (see ownerMap).
func (c *Coordinator) holders(s slot) []holder {
	hs := s.holders()
	if !c.cfg.Faults.Has(PerSetEpochUpdate) {
		for i := range hs {
			hs[i].epoch = c.epochOf(hs[i].member)
		}
	}
	return hs
}

// State returns the group state.
func (c *Coordinator) State() GroupState { return c.state }

// GroupEpoch returns the group epoch: 0 until the first member joins, then
// bumped on every change of the assignment's inputs.
func (c *Coordinator) GroupEpoch() spec.Epoch { return c.groupEpoch }

// TargetEpoch returns the target assignment epoch: the group epoch the
// current target was computed for.
func (c *Coordinator) TargetEpoch() spec.Epoch { return c.targetEpoch }

// Exists reports whether the group has been created (by a first accepted
// join); it stays created when its last member leaves.
func (c *Coordinator) Exists() bool { return c.exists }

// Members returns every member id the group records, sorted, including
// static members parked at epoch -2 (see IsMember).
func (c *Coordinator) Members() []spec.MemberID {
	return c.members.AppendKeys(nil)
}

// IsMember reports whether id is a current member: recorded and at a
// non-negative epoch. A static member parked at -2 is not current.
func (c *Coordinator) IsMember(id spec.MemberID) bool { return c.members.Get(id).current() }

// current reports whether m (nil for no record) is a current member: at a
// non-negative epoch.
func (m *member) current() bool { return m != nil && m.cur.Epoch >= 0 }

// recordOf returns a copy of member id's record, and whether there is one.
func (c *Coordinator) recordOf(id spec.MemberID) (member, bool) {
	if m := c.members.Get(id); m != nil {
		return *m, true
	}
	return member{}, false
}

// epochOf is member id's epoch, 0 for an unknown member.
func (c *Coordinator) epochOf(id spec.MemberID) spec.Epoch {
	if m := c.members.Get(id); m != nil {
		return m.cur.Epoch
	}
	return 0
}

// setRecord stores m as its member's record, in place of the one stored,
// which forks may share.
func (c *Coordinator) setRecord(m member) {
	c.ownMembers()
	c.members.Put(m.id, &m)
}

// HeartbeatInterval is the interval the coordinator gives its members
// (CoordinatorConfig.HeartbeatInterval, defaulted).
func (c *Coordinator) HeartbeatInterval() Millis { return c.cfg.HeartbeatInterval }

// MemberNode returns the node name the member's last accepted regular
// heartbeat came from, or "" for an unknown member.
func (c *Coordinator) MemberNode(id spec.MemberID) string {
	if m := c.members.Get(id); m != nil {
		return m.node
	}
	return ""
}

// IsMemberAt reports whether id is a current member (IsMember) whose last
// accepted request came from node (MemberNode), in one lookup.
func (c *Coordinator) IsMemberAt(id spec.MemberID, node string) bool {
	m := c.members.Get(id)
	return m.current() && m.node == node
}

// CoordinatorMemberSnapshot is a copy of what the coordinator records
// about one member (named as package classic names its own, beside the
// member node's Member). It shares nothing mutable with the coordinator.
type CoordinatorMemberSnapshot struct {
	ID spec.MemberID
	// InstanceID is the static instance id; "" for a dynamic member.
	InstanceID    string
	Epoch         spec.Epoch
	PreviousEpoch spec.Epoch
	State         reconcile.State
	// Assigned is what the member is given (the heartbeat response lists
	// it); PendingRevocation is what it must still give up.
	Assigned          spec.Set
	PendingRevocation spec.Set
	// AssignmentEpochs are the epochs at which the member was assigned
	// each partition of Assigned and PendingRevocation (KIP-1251), sorted
	// by partition.
	AssignmentEpochs []validate.AssignmentEpoch
	// Target is the member's slice of the target assignment.
	Target spec.Set
	// Subscription is the subscribed topics, sorted.
	Subscription []string
	// ServerAssignor, Rack: "" when never sent.
	ServerAssignor   string
	Rack             string
	RebalanceTimeout Millis `canon:"duration"`
	// Node is the From of the member's last accepted regular heartbeat (or
	// JoinGroup, for a member that uses the classic protocol).
	Node string
	// Classic reports that the member uses the classic protocol
	// (useClassicProtocol): it joined with a JoinGroup, or was carried
	// over by an online upgrade. ClassicSessionTimeout and ClassicProtocols
	// (its JoinGroup's protocols with their metadata, in its order) are
	// its classic record; zero for a member of the consumer protocol.
	Classic               bool
	ClassicSessionTimeout Millis `canon:"duration"`
	ClassicProtocols      []classic.ProtocolMetadata
}

// Member returns a snapshot of the member id, including a static member
// parked at -2.
func (c *Coordinator) Member(id spec.MemberID) (CoordinatorMemberSnapshot, bool) {
	m, ok := c.recordOf(id)
	if !ok {
		return CoordinatorMemberSnapshot{}, false
	}
	return CoordinatorMemberSnapshot{
		ID: m.id, InstanceID: m.instanceID,
		Epoch: m.cur.Epoch, PreviousEpoch: m.cur.PreviousEpoch, State: m.cur.State,
		Assigned: m.cur.Assigned, PendingRevocation: m.cur.PendingRevocation,
		AssignmentEpochs: slices.Clone(m.assignedAt),
		Target:           c.target[id],
		Subscription:     slices.Clone(m.subscription),
		ServerAssignor:   m.assignor, Rack: m.rack, RebalanceTimeout: m.rebalanceTimeout,
		Node:    m.node,
		Classic: m.cl.use, ClassicSessionTimeout: m.cl.sessionTimeout,
		ClassicProtocols: slices.Clone(m.cl.protocols),
	}, true
}

// Target returns a copy of the target assignment (one entry per member).
func (c *Coordinator) Target() spec.Assignment { return c.target.Clone() }

// Topics returns a copy of the current metadata image.
func (c *Coordinator) Topics() spec.Topics { return copyTopics(c.topics) }

// Owners returns the partition-owner map (Kafka's currentPartitionEpoch) as
// an assignment: each member with everything it holds, assigned or pending
// revocation. A static member parked at -2 still holds its partitions.
func (c *Coordinator) Owners() spec.Assignment {
	out := spec.Assignment{}
	// In resource order, so appending keeps each set sorted.
	c.owners.each(func(p spec.Resource, s slot) {
		for _, h := range s.holders() {
			out[h.member] = append(out[h.member], p)
		}
	})
	return out
}

// Clone returns a deep copy of c that shares nothing mutable with it.
func (c *Coordinator) Clone() *Coordinator {
	n := *c
	n.members = slices.Clone(c.members)
	n.instances = maps.Clone(c.instances)
	n.target = maps.Clone(c.target)
	n.owners = c.owners.clone()
	n.shared = 0
	return &n
}

// Fork returns a copy of c for a caller that will not change c while the
// copy is in use (the model checker's worlds): it shares c's owner map,
// target, instance ids and table of member records, each until its first
// write to it.
func (c *Coordinator) Fork() *Coordinator {
	n := *c
	n.shared = sharedOwners | sharedTarget | sharedInstances | sharedMembers
	return &n
}

// sharedMaps is a set of the maps a fork may share with the coordinator
// it was forked from (Coordinator.shared).
type sharedMaps uint8

// The maps a fork shares.
const (
	sharedOwners sharedMaps = 1 << iota
	sharedTarget
	sharedInstances
	sharedMembers
)

// ownOwners copies the owner map if it is shared, before a write to it.
func (c *Coordinator) ownOwners() {
	if c.shared&sharedOwners != 0 {
		c.owners = c.owners.clone()
		c.shared &^= sharedOwners
	}
}

// ownTarget copies the target if it is shared, before a write to it.
func (c *Coordinator) ownTarget() {
	if c.shared&sharedTarget != 0 {
		c.target = maps.Clone(c.target)
		c.shared &^= sharedTarget
	}
}

// ownMembers copies the table of member records (not the records, which are
// never written) if it is shared, before a write to it.
func (c *Coordinator) ownMembers() {
	if c.shared&sharedMembers != 0 {
		c.members = slices.Clone(c.members)
		c.shared &^= sharedMembers
	}
}

// ownInstances copies the instance ids if they are shared, before a write
// to them.
func (c *Coordinator) ownInstances() {
	if c.shared&sharedInstances != 0 {
		c.instances = maps.Clone(c.instances)
		c.shared &^= sharedInstances
	}
}

// withinSubscription reports whether every partition of tgt is of a topic
// in subscription (sorted) that the target metadata has.
func (c *Coordinator) withinSubscription(tgt spec.Set, subscription []string) bool {
	for _, r := range tgt {
		if _, ok := slices.BinarySearch(subscription, r.Topic); !ok || !c.targetTopics.Has(r) {
			return false
		}
	}
	return true
}

// targetTwice returns the partitions the first member (in id order) whose
// target overlaps an earlier member's shares with them.
func (c *Coordinator) targetTwice() spec.Set {
	var targeted spec.Set
	for _, id := range c.target.Members() {
		if both := targeted.Intersect(c.target[id]); !both.IsEmpty() {
			return both
		}
		targeted = targeted.Union(c.target[id])
	}
	return nil
}

// String prints the whole state deterministically: the group line, the
// metadata, one line per member (sorted by id) and the partition owners. A
// member that uses the classic protocol has its classic record at the end
// of its line (classic session=..., its protocols, client, join and sync
// timers), and the group line ends with the classic member id counter
// once it has issued one; a group of the consumer protocol only prints
// neither.
//
//	group g exists=true epoch=2 target-epoch=2 state=RECONCILING metadata-expired=false
//	metadata=[foo:3] subscribed=[foo:3] target-metadata=[foo:3]
//	member A node=A instance=- epoch=1 previous=1 state=UNREVOKED_PARTITIONS assigned={foo-0 foo-1} pending-revocation={foo-2} target={foo-0 foo-1} subscription=[foo] assignor=- rack=- rebalance-timeout=30000 session-timer=@45200 rebalance-timer=1@30200
//	owners foo-0=A@1 foo-1=A@1 foo-2=A@1
func (c *Coordinator) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "group %s exists=%t epoch=%d target-epoch=%d state=%s metadata-expired=%t",
		c.cfg.GroupID, c.exists, c.groupEpoch, c.targetEpoch, c.state, c.metadataExpired)
	if c.classicIDs != 0 {
		fmt.Fprintf(&b, " classic-ids=%d", c.classicIDs)
	}
	b.WriteByte('\n')
	fmt.Fprintf(&b, "metadata=%s subscribed=%s target-metadata=%s\n",
		topicsString(c.topics), topicsString(c.subscribed), topicsString(c.targetTopics))
	for _, id := range c.Members() {
		m, _ := c.recordOf(id)
		st, rt := "-", "-"
		if m.sessionArmed {
			st = fmt.Sprintf("@%d", m.sessionAt)
		}
		if m.rebalanceArmed {
			rt = fmt.Sprintf("%d@%d", m.rebalanceEpoch, m.rebalanceAt)
		}
		fmt.Fprintf(&b, "member %s node=%s instance=%s epoch=%d previous=%d state=%s assigned=%s pending-revocation=%s assigned-at=[%s] target=%s subscription=[%s] assignor=%s rack=%s rebalance-timeout=%d session-timer=%s rebalance-timer=%s",
			id, dash(m.node), dash(m.instanceID), m.cur.Epoch, m.cur.PreviousEpoch, m.cur.State,
			m.cur.Assigned, m.cur.PendingRevocation, assignedAtString(m.assignedAt), c.target[id], strings.Join(m.subscription, " "),
			dash(m.assignor), dash(m.rack), m.rebalanceTimeout, st, rt)
		if m.cl.use {
			b.WriteString(" " + m.cl.String())
		}
		b.WriteByte('\n')
	}
	var parts []string
	c.owners.each(func(p spec.Resource, s slot) {
		var hs []string
		for _, h := range c.holders(s) {
			hs = append(hs, fmt.Sprintf("%s@%d", h.member, h.epoch))
		}
		parts = append(parts, p.String()+"="+strings.Join(hs, ","))
	})
	fmt.Fprintf(&b, "owners %s\n", strings.Join(parts, " "))
	return b.String()
}

// String prints a classic member's record: "classic session=10000
// protocols=[range=... ] client=A host=- join-timer=- sync-timer=@30000".
func (cm classicMember) String() string {
	ps := make([]string, len(cm.protocols))
	for i, p := range cm.protocols {
		ps[i] = fmt.Sprintf("%s=%q", p.Name, p.Metadata)
	}
	jt, st := "-", "-"
	if cm.joinArmed {
		jt = fmt.Sprintf("@%d", cm.joinAt)
	}
	if cm.syncArmed {
		st = fmt.Sprintf("@%d", cm.syncAt)
	}
	return fmt.Sprintf("classic session=%d protocols=[%s] client=%s host=%s join-timer=%s sync-timer=%s",
		cm.sessionTimeout, strings.Join(ps, " "), dash(cm.clientID), dash(cm.clientHost), jt, st)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// topicsString prints t as "[a:1 b:2]", sorted.
func topicsString(t spec.Topics) string {
	parts := make([]string, 0, len(t))
	for _, name := range t.Names() {
		parts = append(parts, fmt.Sprintf("%s:%d", name, t[name]))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// checkInvariants is CheckInvariants building its report: the reference
// that invariantsHold must agree with.
func (c *Coordinator) checkInvariants() error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("coordinator: invariant: "+format+"\n%s", append(args, c)...)
	}
	if c.state != c.derivedState() {
		return fail("state %s, but the group is %s", c.state, c.derivedState())
	}
	if c.targetEpoch < 0 || c.groupEpoch < c.targetEpoch {
		return fail("group epoch %d, target epoch %d", c.groupEpoch, c.targetEpoch)
	}
	if !c.exists && (len(c.members) > 0 || c.groupEpoch != 0) {
		return fail("group not created, but %d members at epoch %d", len(c.members), c.groupEpoch)
	}
	statics := 0
	held := map[spec.Resource][]holder{}
	if err := c.members.Ordered(); err != nil {
		return fail("member %v", err)
	}
	if r := keyedRight(c.members); r != nil {
		return fail("member table row %q holds the record of member %q", r.Key, r.Rec.id)
	}
	for _, row := range c.members {
		m := row.Rec
		id := m.id
		if m.instanceID != "" {
			statics++
			if c.instances[m.instanceID] != id {
				return fail("instance %s of %s maps to %q", m.instanceID, id, c.instances[m.instanceID])
			}
		}
		if err := m.cur.Validate(); err != nil {
			return fail("member %s: %v", id, err)
		}
		if !assignedAtMatches(m) {
			return fail("member %s holds %s and %s, but its assignment epochs name %s", id, m.cur.Assigned, m.cur.PendingRevocation, assignedAtString(m.assignedAt))
		}
		e := m.cur.Epoch
		switch {
		case e == spec.StaticLeaveEpoch:
			if m.instanceID == "" {
				return fail("dynamic member %s at epoch -2", id)
			}
			if !m.cur.PendingRevocation.IsEmpty() {
				return fail("parked static member %s has partitions pending revocation %s", id, m.cur.PendingRevocation)
			}
		case e < 0:
			return fail("member %s at epoch %d", id, e)
		case e > c.targetEpoch:
			return fail("member %s at epoch %d, past the target epoch %d", id, e, c.targetEpoch)
		case m.cur.PreviousEpoch > e:
			return fail("member %s at epoch %d has previous epoch %d", id, e, m.cur.PreviousEpoch)
		}
		if !slices.IsSortedFunc(m.subscription, func(a, b string) int { return cmp.Or(strings.Compare(a, b), -1) }) {
			return fail("member %s subscription %v not sorted and distinct", id, m.subscription)
		}
		if !m.sessionArmed {
			return fail("member %s has no session timer", id)
		}
		wantRebalance := m.cur.State == reconcile.UnrevokedPartitions && e >= 0 && !m.cl.use
		if m.rebalanceArmed != wantRebalance || (m.rebalanceArmed && m.rebalanceEpoch != e) {
			return fail("member %s in %s at epoch %d: rebalance timer armed=%t epoch=%d", id, m.cur.State, e, m.rebalanceArmed, m.rebalanceEpoch)
		}
		if err := m.cl.check(); err != nil {
			return fail("member %s: %v", id, err)
		}
		tgt, ok := c.target[id]
		if !ok {
			return fail("member %s has no target", id)
		}
		// A classic member's target is not checked: after an upgrade it is
		// the member's last classic assignment, computed for the
		// subscriptions of its generation (Kafka carries it over as it is).
		if !m.cl.use && !c.withinSubscription(tgt, m.subscription) {
			extra := tgt.Minus(c.targetTopics.Resources(m.subscription...))
			return fail("target of %s has %s, outside its subscription %v in the target metadata %s", id, extra, m.subscription, topicsString(c.targetTopics))
		}
		for _, p := range m.holds() {
			held[p] = append(held[p], holder{member: id, epoch: e})
		}
	}
	if statics != len(c.instances) {
		return fail("%d instance ids for %d static members", len(c.instances), statics)
	}
	if len(c.target) != len(c.members) {
		return fail("%d target entries for %d members", len(c.target), len(c.members))
	}
	var buf [32]spec.Resource
	targeted := buf[:0]
	for _, rs := range c.target {
		targeted = append(targeted, rs...)
	}
	if spec.Duplicated(targeted) {
		return fail("target gives %s twice", c.targetTwice())
	}
	if c.cfg.Faults.Has(PerSetEpochUpdate) {
		// The fault is a broken owner map: entries go missing or name the
		// wrong holder, and two members may end up holding a partition.
		// The ownership laws report what that does to the group.
		return c.checkSubscriptionMetadata(fail)
	}
	if n := c.owners.len(); len(held) != n {
		return fail("owner map has %d partitions, members hold %d", n, len(held))
	}
	for p, want := range held {
		slices.SortFunc(want, compareHolders)
		stored := c.owners.get(p)
		if got := c.holders(stored); !slices.Equal(got, want) {
			return fail("owners of %s are %v, members hold it as %v", p, got, want)
		}
		if slices.ContainsFunc(stored.holders(), func(h holder) bool { return h.epoch != 0 }) {
			return fail("owner map stores epochs for %s: %v (they are the members')", p, stored.holders())
		}
		if len(want) > 1 && !c.cfg.Faults.Has(AssignBeforeRelease) {
			return fail("partition %s held by %v", p, want)
		}
	}
	return c.checkSubscriptionMetadata(fail)
}

// check returns an error for a classic record that is not one: a member
// that uses the classic protocol has protocols and a session timeout, and
// a member of the consumer protocol has a zero record (no classic timers).
func (cm classicMember) check() error {
	switch {
	case !cm.use && (cm.joinArmed || cm.syncArmed || cm.joinAt != 0 || cm.syncAt != 0 || cm.protocols != nil ||
		cm.sessionTimeout != 0 || cm.clientID != "" || cm.clientHost != ""):
		return fmt.Errorf("a member of the consumer protocol has a classic record: %s", cm)
	case cm.use && len(cm.protocols) == 0:
		return errors.New("a classic member without protocols")
	case !cm.joinArmed && cm.joinAt != 0 || !cm.syncArmed && cm.syncAt != 0:
		return fmt.Errorf("classic timer deadlines set while not armed: %s", cm)
	}
	return nil
}

// checkSubscriptionMetadata is CheckInvariants' last check: the
// subscription metadata is current unless marked expired.
func (c *Coordinator) checkSubscriptionMetadata(fail func(string, ...any) error) error {
	if !c.metadataExpired && !maps.Equal(c.subscribed, c.subscriptionMetadata(c.subscribedNames(nil, nil))) {
		return fail("subscription metadata %s is stale, but not marked expired", topicsString(c.subscribed))
	}
	return nil
}
