package mixed

import (
	"fmt"
	"maps"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
	"github.com/rebalance-ref/rebalance/model/node"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// Config configures the coordinator of a mixed group: the classic group's
// settings and the consumer group's (whose Migration is the migration
// policy, and whose Topics the initial metadata image).
type Config struct {
	Classic  classic.CoordinatorConfig
	Consumer nextgen.CoordinatorConfig
}

// GroupType is the kind of group the coordinator holds (Kafka's
// Group.GroupType).
type GroupType uint8

// The group types.
const (
	// ClassicGroup: model/classic's coordinator runs the group.
	ClassicGroup GroupType = iota + 1
	// ConsumerGroup: model/nextgen's coordinator runs it, its
	// classic members included.
	ConsumerGroup
)

var groupTypes = node.Enum[GroupType]{Type: "GroupType", Names: []string{"?", "classic", "consumer"}}

// String is "classic" or "consumer".
func (t GroupType) String() string { return groupTypes.Name(t) }

// Coordinator is the group coordinator of a mixed group: a classic group
// or a consumer group, converted between them as Kafka's
// GroupMetadataManager does. Invariant: exactly one of classicGroup and
// consumerGroup is non-nil.
type Coordinator struct {
	cfg Config
	// classicGroup runs a classic group; consumerGroup a consumer group.
	classicGroup  *classic.Coordinator
	consumerGroup *nextgen.Coordinator
	// topics is the metadata image the coordinator has seen (a classic
	// group takes none, but a conversion to a consumer group needs it).
	topics spec.Topics
	// heartbeat is the consumer group's heartbeat interval, defaulted as
	// its coordinator defaults it, whichever group is held now.
	heartbeat nextgen.Millis
	// reset reports that the last Step converted the group (TimersReset).
	// It describes a step, not the state: Step clears it first, and it is
	// neither printed nor encoded.
	reset bool
}

// NewCoordinator returns the coordinator of a group that does not exist
// yet: an empty classic group, which a ConsumerGroupHeartbeat replaces by
// a consumer group (Kafka creates the group by the first request's
// protocol; an empty classic group is replaced the same way).
func NewCoordinator(cfg Config) (*Coordinator, error) {
	if cfg.Classic.GroupID != cfg.Consumer.GroupID {
		return nil, fmt.Errorf("classic group id %q and consumer group id %q differ: a mixed group has one id", cfg.Classic.GroupID, cfg.Consumer.GroupID)
	}
	cg, err := classic.NewCoordinator(cfg.Classic)
	if err != nil {
		return nil, err
	}
	probe, err := nextgen.NewCoordinator(cfg.Consumer) // its configuration is checked now, not at the first conversion
	if err != nil {
		return nil, err
	}
	return &Coordinator{cfg: cfg, classicGroup: cg, topics: maps.Clone(cfg.Consumer.Topics), heartbeat: probe.HeartbeatInterval()}, nil
}

// Type is the type of the group the coordinator holds.
func (c *Coordinator) Type() GroupType {
	if c.classicGroup != nil {
		return ClassicGroup
	}
	return ConsumerGroup
}

// ClassicGroup is the classic group's coordinator, nil while the group is
// a consumer group; ConsumerGroup the consumer group's, nil while it is a
// classic group. Both are the coordinator's own: read them, do not step
// them.
func (c *Coordinator) ClassicGroup() *classic.Coordinator { return c.classicGroup }

// ConsumerGroup: see ClassicGroup.
func (c *Coordinator) ConsumerGroup() *nextgen.Coordinator { return c.consumerGroup }

// TimersReset reports whether the last Step converted the group: every
// timer armed before it belongs to the other group and is void
// (core.TimerResetter).
func (c *Coordinator) TimersReset() bool { return c.reset }

// Step applies one input to the group the coordinator holds, converting
// the group first where Kafka does: a ConsumerGroupHeartbeat joining a
// classic group (validate.HeartbeatToClassic: replace an empty one, or
// upgrade online, or refuse), and a classic JoinGroup at an empty consumer
// group (replaced by a classic group); and converting it after, when the
// consumer group's step downgraded it (the last member of the consumer
// protocol left).
func (c *Coordinator) Step(in node.Input) Output {
	c.reset = false
	if u, ok := in.Event.(node.MetadataUpdate); ok {
		c.topics = maps.Clone(u.Topics)
	}
	if c.classicGroup != nil {
		return c.stepClassicGroup(in)
	}
	return c.stepConsumerGroup(in)
}

// StepInto is Step with the output written into *out (core.Coordinator):
// the step's lists replace out's, since Step builds them by translating
// the group's own output.
func (c *Coordinator) StepInto(in node.Input, out *Output) { *out = c.Step(in) }

// stepClassicGroup steps the classic group, or converts it for a
// ConsumerGroupHeartbeat.
func (c *Coordinator) stepClassicGroup(in node.Input) Output {
	switch e := in.Event.(type) {
	case node.MetadataUpdate:
		return Output{} // the members' leader reads metadata itself
	case node.Receive[nextgen.Message]:
		switch r := e.Msg.(type) {
		case nextgen.HeartbeatRequest:
			return c.heartbeatToClassicGroup(in, e.From, r)
		case nextgen.OffsetCommitRequest:
			return c.consumerCommitToClassicGroup(in.Now, e.From, r)
		}
	}
	cin, ok := toClassic(in)
	if !ok {
		return Output{} // a stale consumer-group timer, or a stray message
	}
	return fromClassic(c.classicGroup.Step(cin))
}

// heartbeatToClassicGroup runs Kafka's decision for a
// ConsumerGroupHeartbeat at a classic group, then the heartbeat on the
// group it leaves.
func (c *Coordinator) heartbeatToClassicGroup(in node.Input, from string, r nextgen.HeartbeatRequest) Output {
	snap := c.classicGroup.Snapshot()
	info := validate.ClassicGroupInfo{
		Empty:        snap.State == classic.GroupEmpty,
		Members:      len(snap.Members),
		ProtocolType: snap.ProtocolType,
	}
	kind, rej := validate.HeartbeatToClassic(info, r, c.cfg.Consumer.Migration, c.cfg.Consumer.MaxSize, validate.Semantics{})
	switch kind {
	case validate.ReplaceEmptyClassic:
		cfg := c.cfg.Consumer
		cfg.Topics = maps.Clone(c.topics)
		g, err := nextgen.NewCoordinator(cfg)
		if err != nil {
			panic(fmt.Sprintf("mixed: the consumer group's configuration was accepted once and is refused now: %v", err))
		}
		c.classicGroup, c.consumerGroup, c.reset = nil, g, true
		return fromConsumer(g.Step(in))
	case validate.OnlineUpgrade:
		cfg := c.cfg.Consumer
		cfg.Topics = maps.Clone(c.topics)
		g, armed, err := nextgen.FromClassicGroup(cfg, snap, in.Now)
		if err != nil {
			panic(fmt.Sprintf("mixed: converting the classic group: %v", err))
		}
		c.classicGroup, c.consumerGroup, c.reset = nil, g, true
		out := fromConsumer(armed)
		step := fromConsumer(g.Step(in))
		out.Messages = append(out.Messages, step.Messages...)
		out.Timers = append(out.Timers, step.Timers...)
		out.Target = step.Target
		out.Withheld = step.Withheld
		return out
	}
	var out Output
	out.Send(node.CoordinatorNode, from, nextgen.HeartbeatResponse{Seq: r.Seq, Error: rej.Code, ErrorMessage: rej.Message})
	return out
}

// consumerCommitToClassicGroup answers a consumer-protocol member's
// OffsetCommit at a classic group as the classic group judges it: by
// member id and generation (the member epoch), which a member of the
// consumer protocol does not hold in a classic group.
func (c *Coordinator) consumerCommitToClassicGroup(now node.Millis, from string, r nextgen.OffsetCommitRequest) Output {
	req := classic.OffsetCommitRequest{Seq: r.Seq, MemberID: r.MemberID, Generation: spec.Generation(r.MemberEpoch)}
	if r.InstanceID != nil {
		req.InstanceID = *r.InstanceID
	}
	cout := c.classicGroup.Step(node.Input{Now: now, Event: node.Receive[classic.Message]{From: from, Msg: req}})
	var out Output
	for _, m := range cout.Messages {
		if resp, ok := m.Msg.(classic.OffsetCommitResponse); ok {
			out.Send(node.CoordinatorNode, from, nextgen.OffsetResponse{Seq: r.Seq, Error: resp.Error})
		}
	}
	return out
}

// stepConsumerGroup steps the consumer group, after replacing an empty
// one by a classic group for a classic JoinGroup, and converts it to a
// classic group when the step downgraded it.
func (c *Coordinator) stepConsumerGroup(in node.Input) Output {
	if e, ok := in.Event.(node.Receive[nextgen.Message]); ok {
		if m, ok := e.Msg.(nextgen.Classic); ok {
			if _, join := m.Msg.(classic.JoinGroupRequest); join && len(c.consumerGroup.Members()) == 0 {
				g, err := classic.NewCoordinator(c.cfg.Classic)
				if err != nil {
					panic(fmt.Sprintf("mixed: the classic group's configuration was accepted once and is refused now: %v", err))
				}
				c.classicGroup, c.consumerGroup, c.reset = g, nil, true
				return c.stepClassicGroup(in)
			}
		}
	}
	nin, ok := toConsumer(in)
	if !ok {
		return Output{} // a stale classic-group timer
	}
	out := fromConsumer(c.consumerGroup.Step(nin))
	data, down := c.consumerGroup.DowngradeTo()
	if !down {
		return out
	}
	g, armed := classic.RestoreCoordinator(c.cfg.Classic, data, in.Now)
	c.classicGroup, c.consumerGroup, c.reset = g, nil, true
	// The consumer group's timers of this step are void with it; the
	// classic group's own replace them.
	restored := fromClassic(armed)
	out.Timers = restored.Timers
	out.Messages = append(out.Messages, restored.Messages...)
	return out
}

// CloneCoordinator returns a deep copy.
func (c *Coordinator) CloneCoordinator() core.Coordinator[nextgen.Message, Timer, Callback] {
	d := *c
	if c.classicGroup != nil {
		d.classicGroup = c.classicGroup.Clone()
	}
	if c.consumerGroup != nil {
		d.consumerGroup = c.consumerGroup.Clone()
	}
	d.topics = maps.Clone(c.topics)
	return &d
}

// ForkCoordinator forks the coordinator (core.Forker): a consumer group
// forks, a classic group clones.
func (c *Coordinator) ForkCoordinator() core.Coordinator[nextgen.Message, Timer, Callback] {
	d := *c
	if c.classicGroup != nil {
		d.classicGroup = c.classicGroup.Clone()
	}
	if c.consumerGroup != nil {
		d.consumerGroup = c.consumerGroup.Fork()
	}
	return &d
}

// IsMember reports whether id is a member of the group.
func (c *Coordinator) IsMember(id spec.MemberID) bool {
	if c.classicGroup != nil {
		return c.classicGroup.IsMember(id)
	}
	return c.consumerGroup.IsMember(id)
}

// MemberNode is the node of member id's last accepted request.
func (c *Coordinator) MemberNode(id spec.MemberID) string {
	if c.classicGroup != nil {
		return c.classicGroup.MemberNode(id)
	}
	return c.consumerGroup.MemberNode(id)
}

// IsMemberAt reports IsMember(id) && MemberNode(id) == node.
func (c *Coordinator) IsMemberAt(id spec.MemberID, node string) bool {
	if c.classicGroup != nil {
		return c.classicGroup.IsMemberAt(id, node)
	}
	return c.consumerGroup.IsMemberAt(id, node)
}

// Leader is the classic group's leader, "" for a consumer group.
func (c *Coordinator) Leader() spec.MemberID {
	if c.classicGroup != nil {
		return c.classicGroup.Leader()
	}
	return ""
}

// Stable reports whether the group is between rebalances.
func (c *Coordinator) Stable() bool {
	if c.classicGroup != nil {
		return c.classicGroup.State() == classic.GroupStable
	}
	return c.consumerGroup.State() == nextgen.GroupStable
}

// Protocol is the classic group's selected protocol, "" for a consumer
// group.
func (c *Coordinator) Protocol() string {
	if c.classicGroup != nil {
		return c.classicGroup.Protocol()
	}
	return ""
}

// Summary prints the group's type and state on one line.
func (c *Coordinator) Summary() string {
	if g := c.classicGroup; g != nil {
		return fmt.Sprintf("classic gen=%d state=%s leader=%s protocol=%s", g.Generation(), g.State(), g.Leader(), g.Protocol())
	}
	g := c.consumerGroup
	return fmt.Sprintf("consumer group-epoch=%d target-epoch=%d state=%s", g.GroupEpoch(), g.TargetEpoch(), g.State())
}

// CheckInvariants checks the invariant of the holder and the group's own.
func (c *Coordinator) CheckInvariants() error {
	if (c.classicGroup == nil) == (c.consumerGroup == nil) {
		return fmt.Errorf("mixed coordinator: want exactly one group, have classic=%t consumer=%t", c.classicGroup != nil, c.consumerGroup != nil)
	}
	if c.classicGroup != nil {
		return c.classicGroup.CheckInvariants()
	}
	return c.consumerGroup.CheckInvariants()
}

// Encode writes the group type, the metadata image and the group.
func (c *Coordinator) Encode(e *canon.Encoder) {
	e.Uint(uint64(c.Type()))
	e.Topics(c.topics)
	if c.classicGroup != nil {
		c.classicGroup.EncodeCanon(e)
		return
	}
	c.consumerGroup.EncodeCanon(e)
}

// String prints the group type and the whole group.
func (c *Coordinator) String() string {
	if c.classicGroup != nil {
		return "classic group: " + c.classicGroup.String()
	}
	return "consumer group: " + c.consumerGroup.String()
}

// HeartbeatInterval is the consumer group's heartbeat interval (its
// configuration's, defaulted, whichever group the coordinator holds now).
func (c *Coordinator) HeartbeatInterval() nextgen.Millis { return c.heartbeat }
