package mixed

import (
	"fmt"
	"maps"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/classic"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/node"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// The shared world's types, instantiated for the mixed family.
type (
	// World is the mixed family's closed world.
	World = core.World[nextgen.Message, Timer, Callback, MemberConfig]
	// Script runs the family's scenario language (NewScript).
	Script = core.Script[nextgen.Message, Timer, Callback, MemberConfig]
	// Model and State are the world as the model checker explores it.
	Model = core.Model[nextgen.Message, Timer, Callback, MemberConfig]
	State = core.State[nextgen.Message, Timer, Callback, MemberConfig]
	// Process is one member process of the world.
	Process = core.Process[nextgen.Message, Timer, Callback, MemberConfig]
)

// Family is the mixed group as the shared world drives it: members of
// both protocols, a coordinator that converts the group between them, and
// the Migrate action that bounces a process onto the other protocol.
type Family struct {
	// GroupID is the group its members join.
	GroupID string
}

var (
	_ core.Family[nextgen.Message, Timer, Callback, MemberConfig] = Family{}
	_ core.Migrator[MemberConfig]                                 = Family{}
	_ core.TimerResetter                                          = (*Coordinator)(nil)
	_ core.Forker[nextgen.Message, Timer, Callback]               = (*Coordinator)(nil)
)

// New returns a world with a mixed coordinator configured by cfg and no
// members.
func New(cfg Config) (*World, error) {
	c, err := NewCoordinator(cfg)
	if err != nil {
		return nil, err
	}
	return core.New(Family{GroupID: cfg.Consumer.GroupID}, core.Coordinator[nextgen.Message, Timer, Callback](c), cfg.Consumer.Topics), nil
}

// NewScript returns a script with no group yet.
func NewScript() *Script { return &Script{Family: Family{}} }

// NewModel builds the model checker's model of cfg (see model/world).
func NewModel(cfg core.CheckConfig) (*Model, error) { return core.NewModel(Family{}, cfg) }

// CoordinatorOf is the mixed coordinator of w.
func CoordinatorOf(w *World) *Coordinator { return w.Coordinator.(*Coordinator) }

// Name is "mixed".
func (Family) Name() string { return "mixed" }

// Network is Connections: every connection delivers in order, as TCP
// does. A classic member relies on it; a next-gen member needs no more
// (its own family's network also reorders responses, which it ignores
// unless it waits for them).
func (Family) Network() core.Network { return core.Connections }

// Migrated is cfg on the other protocol: a rolling upgrade's (or its
// rollback's) bounce of the process (core.Migrator).
func (Family) Migrated(cfg MemberConfig) (MemberConfig, bool) {
	switch cfg.Protocol {
	case ClassicProtocol:
		cfg.Protocol = ConsumerProtocol
	case ConsumerProtocol:
		cfg.Protocol = ClassicProtocol
	default:
		return cfg, false
	}
	return cfg, true
}

// ConsumerIDBase keeps the member ids of the two protocols apart: a
// consumer-protocol incarnation k of process Name is Name-(ConsumerIDBase+k),
// while the coordinators generate classic ids Name-n from 1 up. In Kafka
// the two never meet (client-generated UUIDs against clientId-UUID); with
// small numbers, a classic id of one incarnation could otherwise equal the
// consumer-protocol id of a later one while the first is still in the
// group. The checked and random worlds generate far fewer classic ids.
const ConsumerIDBase = 1000

// NewMember starts incarnation k of cfg on its protocol: a classic member
// (which starts with the group's metadata, as the classic family's do),
// or a next-gen member with member id Name-(ConsumerIDBase+k) in the
// family's group.
func (f Family) NewMember(cfg MemberConfig, k int, topics spec.Topics) (member, error) {
	switch cfg.Protocol {
	case ClassicProtocol:
		c := cfg.Classic
		if c.Metadata == nil {
			c.Metadata = maps.Clone(topics)
		}
		m, err := classic.NewMember(c)
		if err != nil {
			return nil, err
		}
		return classicMember{m}, nil
	case ConsumerProtocol:
		n := cfg.Consumer
		n.GroupID = f.GroupID
		n.MemberID = spec.MemberID(fmt.Sprintf("%s-%d", n.Name, ConsumerIDBase+k))
		m, err := nextgen.NewMember(n)
		if err != nil {
			return nil, err
		}
		return consumerMember{m}, nil
	}
	return nil, fmt.Errorf("member %s: protocol %d: want classic or consumer", cfg.Classic.Name, cfg.Protocol)
}

// MemberName is the configuration's name.
func (Family) MemberName(cfg MemberConfig) string { return cfg.Classic.Name }

// MemberTopics is the configuration's subscription.
func (Family) MemberTopics(cfg MemberConfig) []string { return cfg.Classic.Topics }

// MemberInstance is the configuration's static instance id.
func (Family) MemberInstance(cfg MemberConfig) string { return cfg.Classic.InstanceID }

// WithTopics returns cfg subscribing to topics on both protocols.
func (Family) WithTopics(cfg MemberConfig, topics []string) MemberConfig {
	cfg.Classic.Topics, cfg.Consumer.Topics = topics, topics
	return cfg
}

// EncodeConfig writes what of a configuration changes on a path: the
// protocol (a Migrate action flips it) and the subscription.
func (Family) EncodeConfig(e *canon.Encoder, cfg MemberConfig) {
	e.Uint(uint64(cfg.Protocol))
	e.Strings(cfg.Classic.Topics)
}

// SameConfig compares the whole configurations but their names: the
// protocol, the classic settings as the classic family compares them
// and the next-gen settings as the next-gen family does
// (classicworld.Family.SameConfig, ngworld.Family.SameConfig).
func (Family) SameConfig(a, b MemberConfig) bool {
	return a.Protocol == b.Protocol && classicworld.Family{}.SameConfig(a.Classic, b.Classic) &&
		ngworld.Family{}.SameConfig(a.Consumer, b.Consumer)
}

// EncodeMessage writes the message's encoding (nextgen.EncodeMessage,
// which encodes a carried classic message with classic.EncodeMessage).
func (Family) EncodeMessage(e *canon.Encoder, m nextgen.Message) { nextgen.EncodeMessage(e, m) }

// EncodeTimer writes the timer's protocol, then its encoding.
func (Family) EncodeTimer(e *canon.Encoder, t Timer) {
	if t.IsClassic() {
		e.Uint(uint64(ClassicProtocol))
		classic.EncodeTimer(e, t.Classic)
		return
	}
	e.Uint(uint64(ConsumerProtocol))
	nextgen.EncodeTimer(e, t.Consumer)
}

// RestartLeft is true: a process that left may start again (a next-gen
// static member's bounce; a classic member's restart is of a new
// incarnation either way).
func (Family) RestartLeft() bool { return true }

// CoordinatorTakesMetadata is true: a consumer group assigns itself, and a
// classic group's coordinator keeps the image for its conversion.
func (Family) CoordinatorTakesMetadata() bool { return true }

// RemembersCoordinatorSteps is false: on the default mixed world a memo
// of coordinator steps made the checker about 3 % faster (four runs
// each, within the noise) and raised its peak memory from 318 to 466 MB,
// for the coordinators it keeps alive, which hold a classic group's
// state as well (docs/checker-rounds.md, twentieth round).
func (Family) RemembersCoordinatorSteps() bool { return false }

// RevocationDone tells a next-gen member its application finished
// revoking rs (a classic member revokes within its callback).
func (Family) RevocationDone(rs spec.Set) node.Event { return nextgen.RevocationDone{Resources: rs} }

// RevokeCallback: a next-gen Revoke asks the application to revoke, Lost
// and Fatal make it forget; classic callbacks complete within themselves.
func (Family) RevokeCallback(cb Callback) (spec.Set, bool) {
	if cb.Protocol != ConsumerProtocol {
		return nil, false
	}
	switch cb.Consumer.Kind {
	case nextgen.Revoke:
		return cb.Consumer.Resources, false
	case nextgen.Lost, nextgen.Fatal:
		return nil, true
	}
	return nil, false
}

// LogTimer logs nothing.
func (Family) LogTimer(string, node.TimerCmd[Timer], node.Millis) string { return "" }

// AdjustView applies the next-gen family's reading to every member: a
// generation or epoch of 0 or below is NoGeneration, and partitions of
// topics a member no longer subscribes to count as revoking (in a
// consumer group the coordinator decides when they go, for classic
// members too; the checked mixed worlds change no subscription).
func (Family) AdjustView(mv spec.MemberView) spec.MemberView {
	if mv.Generation <= 0 {
		mv.Generation = spec.NoGeneration
	}
	mv.Revoking = mv.Revoking.Union(mv.Owns.Filter(func(r spec.Resource) bool { return !mv.Subscribes(r.Topic) }))
	return mv
}

// Detects is the classic family's rule for classic timers (a session
// expiring at a classic group's coordinator, a request timing out at a
// classic member); next-gen timers detect nothing.
func (Family) Detects(t Timer) bool {
	return t.IsClassic() && (t.Classic.Kind == classic.SessionTimer || t.Classic.Kind == classic.RequestTimer)
}

// SessionExpiry: either group's session timer of a member.
func (Family) SessionExpiry(t Timer) (spec.MemberID, bool) {
	if t.IsClassic() {
		return t.Classic.Member, t.Classic.Kind == classic.SessionTimer
	}
	return t.Consumer.Member, t.Consumer.Kind == nextgen.SessionTimer
}

// Removes: either group's session timer, and a consumer group's timers
// that fence a member that did not revoke, join or sync in time.
func (Family) Removes(t Timer) (spec.MemberID, bool) {
	if t.IsClassic() {
		return t.Classic.Member, t.Classic.Kind == classic.SessionTimer
	}
	switch t.Consumer.Kind {
	case nextgen.SessionTimer, nextgen.RebalanceTimer, nextgen.ClassicJoinTimer, nextgen.ClassicSyncTimer:
		return t.Consumer.Member, true
	}
	return "", false
}

// TimeBound states none: the mixed group's Timely law is not judged (a
// bound would have to span a conversion, whose rounds are the classic
// protocol's on one side and the next-gen one's on the other).
func (Family) TimeBound(core.Coordinator[nextgen.Message, Timer, Callback], []MemberConfig, spec.Topics) (spec.TimeBound, bool) {
	return spec.TimeBound{}, false
}

// LossesBeforeSessionExpiry is the classic family's 1: a classic member
// whose JoinGroup response is lost waits for it without heartbeating.
func (Family) LossesBeforeSessionExpiry() int { return 1 }

// LostCallback: either protocol's Lost callback.
func (Family) LostCallback(cb Callback) bool {
	if cb.Protocol == ClassicProtocol {
		return cb.Classic.Kind == classic.Lost
	}
	return cb.Consumer.Kind == nextgen.Lost
}

// Revoked: a classic Revoked or a next-gen Revoke callback's resources.
func (Family) Revoked(cb Callback) spec.Set {
	switch {
	case cb.Protocol == ClassicProtocol && cb.Classic.Kind == classic.Revoked:
		return cb.Classic.Resources
	case cb.Protocol == ConsumerProtocol && cb.Consumer.Kind == nextgen.Revoke:
		return cb.Consumer.Resources
	}
	return nil
}

// CommitRequest is the OffsetCommit member m sends on its protocol: a
// classic one (member id, instance id, generation; judged whole) carried
// in nextgen.Classic, or a next-gen OffsetCommit v9 of partitions at its
// epoch. None before the member has joined.
func (f Family) CommitRequest(cfg MemberConfig, m member, partitions spec.Set) (nextgen.Message, bool) {
	switch m.(type) {
	case classicMember:
		if m.ID() == "" {
			return nil, false
		}
		return nextgen.Classic{Msg: classic.OffsetCommitRequest{MemberID: m.ID(), InstanceID: cfg.Classic.InstanceID, Generation: m.Generation()}}, true
	case consumerMember:
		if m.ID() == "" || m.Generation() <= 0 {
			return nil, false
		}
		req := nextgen.OffsetCommitRequest{GroupID: f.GroupID, MemberID: m.ID(), MemberEpoch: spec.Epoch(m.Generation()), Version: 9, Partitions: partitions}
		if cfg.Consumer.InstanceID != "" {
			req.InstanceID = &cfg.Consumer.InstanceID
		}
		return req, true
	}
	return nil, false
}

// CommitError reads either protocol's OffsetCommit answer.
func (Family) CommitError(m nextgen.Message) (spec.ErrorCode, spec.Set, bool) {
	switch r := m.(type) {
	case nextgen.OffsetResponse:
		return r.Error, r.StalePartitions, true
	case nextgen.Classic:
		if c, ok := r.Msg.(classic.OffsetCommitResponse); ok {
			return c.Error, nil, true
		}
	}
	return 0, nil, false
}

// Rounds counts the members whose generation (classic) or member epoch
// (next-gen, and a classic member of a consumer group) rose in the step
// (core.GenerationBumps): one unit for both protocols, so that a round
// that spans a conversion is counted once. A classic group's rebalance
// moves every member it completes one generation.
func (Family) Rounds(_ int, prev, next spec.View) int { return core.GenerationBumps(prev, next) }

// RoundUnit is "generation and epoch bumps".
func (Family) RoundUnit() string { return "generation and epoch bumps" }
