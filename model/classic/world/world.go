// Package world is the classic protocol family in the closed world of
// package model/world: its coordinator and members plugged into the world
// every family shares, the family's scenario verbs, and the worlds the
// model checker and the property tests explore.
//
// The world is the shared one (model/world): one group coordinator, member
// processes, the messages in flight over per-connection ordered channels
// (as Kafka's TCP connections are), the timers armed and a clock, driven by
// explicit actions. What is the classic family's own is here: a member
// starts with the group's metadata, a leader's assignment round is the
// unit of the bounded-rounds law, a session or request timeout is how the
// group detects a change, a member that left or failed is encoded by its
// state and view alone, and a leader may be bounced between rebalances.
package world

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/node"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// The shared world's types that depend on the family, instantiated for
// it. The rest (actions, Used, CheckConfig, Arg) are model/world's own.
type (
	// World is the family's closed world.
	World = core.World[classic.Message, classic.Timer, classic.Callback, classic.MemberConfig]
	// Script runs the family's scenario language (NewScript).
	Script = core.Script[classic.Message, classic.Timer, classic.Callback, classic.MemberConfig]
	// Model and State are the world as the model checker explores it.
	Model = core.Model[classic.Message, classic.Timer, classic.Callback, classic.MemberConfig]
	State = core.State[classic.Message, classic.Timer, classic.Callback, classic.MemberConfig]
)

// Family is the classic protocol family as the shared world drives it.
// Its zero value knows the built-in protocols.
type Family struct {
	// Custom are protocols of the caller's (package fuzz runs them),
	// known to the scenario language by their Name besides the built-in
	// ones (add-member A protocols=(mine)); one named like a built-in
	// replaces it. Each must be a pure value, as classic.Protocol says.
	Custom []classic.Protocol
	// Memo, when not nil, is where the family's members remember the
	// rounds they lead (classic.MemberConfig.Memo, for the members whose
	// configurations name none): the model checker leads one round from
	// many states. It changes no result; it is shared by every member
	// (and, in the model checker, every worker) of the world.
	Memo *classic.RoundMemo
}

var _ core.Family[classic.Message, classic.Timer, classic.Callback, classic.MemberConfig] = Family{}

// New returns a world with a coordinator configured by cfg and the given
// topic universe, and no members.
func New(cfg classic.CoordinatorConfig, topics spec.Topics) (*World, error) {
	return Family{}.NewWorld(cfg, topics)
}

// NewWorld is New for a family with custom protocols.
func (f Family) NewWorld(cfg classic.CoordinatorConfig, topics spec.Topics) (*World, error) {
	c, err := classic.NewCoordinator(cfg)
	if err != nil {
		return nil, err
	}
	return core.New(f, core.Coordinator[classic.Message, classic.Timer, classic.Callback](coordinator{c}), topics), nil
}

// NewScript returns a script with no group yet.
func NewScript() *Script { return Family{}.NewScript() }

// NewScript returns a script of the family with no group yet.
func (f Family) NewScript() *Script { return &Script{Family: f} }

// NewModel builds the model checker's model of cfg (see model/world), its
// leaders remembering their rounds in a memo of the model's own
// (Family.Memo).
func NewModel(cfg core.CheckConfig) (*Model, error) {
	return Family{Memo: &classic.RoundMemo{}}.NewModel(cfg)
}

// NewModel builds the model checker's model of cfg for the family.
func (f Family) NewModel(cfg core.CheckConfig) (*Model, error) { return core.NewModel(f, cfg) }

// CoordinatorOf is the classic coordinator of w.
func CoordinatorOf(w *World) *classic.Coordinator { return w.Coordinator.(coordinator).Coordinator }

// MemberOf is the classic member of p, nil while p is down.
func MemberOf(p *core.Process[classic.Message, classic.Timer, classic.Callback, classic.MemberConfig]) *classic.Member {
	if p.Node == nil {
		return nil
	}
	return p.Node.(member).Member
}

// RequestRejoin asks a live process to rejoin the group.
func RequestRejoin(w *World, name, reason string) error {
	return w.Event(name, classic.RequestRejoin{Reason: reason})
}

// Name is "classic".
func (Family) Name() string { return "classic" }

// Network is Connections: Kafka's clients talk to the coordinator over TCP.
func (Family) Network() core.Network { return core.Connections }

// NewMember starts a member of cfg; one without metadata of its own starts
// with the group's topics, one without a memo of its own remembers its
// rounds in the family's (Family.Memo).
func (f Family) NewMember(cfg classic.MemberConfig, _ int, topics spec.Topics) (core.Member[classic.Message, classic.Timer, classic.Callback], error) {
	if cfg.Metadata == nil {
		cfg.Metadata = maps.Clone(topics)
	}
	if cfg.Memo == nil {
		cfg.Memo = f.Memo
	}
	m, err := classic.NewMember(cfg)
	if err != nil {
		return nil, err
	}
	return member{m}, nil
}

// MemberName is the configuration's name.
func (Family) MemberName(cfg classic.MemberConfig) string { return cfg.Name }

// MemberTopics is the configuration's subscription.
func (Family) MemberTopics(cfg classic.MemberConfig) []string { return cfg.Topics }

// MemberInstance is the configuration's static instance id.
func (Family) MemberInstance(cfg classic.MemberConfig) string { return cfg.InstanceID }

// WithTopics returns cfg subscribing to topics.
func (Family) WithTopics(cfg classic.MemberConfig, topics []string) classic.MemberConfig {
	cfg.Topics = topics
	return cfg
}

// EncodeConfig writes the subscription, in order: of a configuration only
// it changes on a path (the model's bounces keep the protocols).
func (Family) EncodeConfig(e *canon.Encoder, cfg classic.MemberConfig) { e.Strings(cfg.Topics) }

// SameConfig compares every field of the two configurations but their
// names (an empty slice or map counts as none): the protocols one by one
// with == (a protocol is a pure value, as classic.Protocol says, so two
// equal ones behave alike; two that cannot be compared, holding a slice,
// a map or a function, count as different), and the memos by address.
func (Family) SameConfig(a, b classic.MemberConfig) bool {
	return a.InstanceID == b.InstanceID && a.ProtocolType == b.ProtocolType &&
		slices.Equal(a.Topics, b.Topics) && sameProtocols(a.Protocols, b.Protocols) &&
		a.SessionTimeout == b.SessionTimeout && a.RebalanceTimeout == b.RebalanceTimeout &&
		a.HeartbeatInterval == b.HeartbeatInterval && maps.Equal(a.Metadata, b.Metadata) &&
		a.ClaimGeneration == b.ClaimGeneration && a.Faults == b.Faults && a.Memo == b.Memo
}

// sameProtocols reports whether a and b hold equal protocols in the same
// order; protocols whose values cannot be compared are not the same.
func sameProtocols(a, b []classic.Protocol) (same bool) {
	if len(a) != len(b) {
		return false
	}
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// EncodeMessage writes m's canonical encoding (classic.EncodeMessage).
func (Family) EncodeMessage(e *canon.Encoder, m classic.Message) { classic.EncodeMessage(e, m) }

// EncodeTimer writes t's canonical encoding (classic.EncodeTimer).
func (Family) EncodeTimer(e *canon.Encoder, t classic.Timer) { classic.EncodeTimer(e, t) }

// RestartLeft is false: a classic member that left is gone for good; a
// restart is of a crashed process.
func (Family) RestartLeft() bool { return false }

// CoordinatorTakesMetadata is false: the leader assigns.
func (Family) CoordinatorTakesMetadata() bool { return false }

// RemembersCoordinatorSteps is false: most classic coordinator steps
// answer a heartbeat, and a memo of them made the checker no faster
// (cooperative and incremental with records, 3 % slower, not
// significant) while it doubled its peak memory (TLC's cooperative world,
// 77 to 165 MB; incremental, 195 to 330 MB), for the classic coordinators
// it keeps alive (docs/checker-rounds.md, twentieth round).
func (Family) RemembersCoordinatorSteps() bool { return false }

// RevocationDone is nil: a classic member revokes within its callback.
func (Family) RevocationDone(spec.Set) node.Event { return nil }

// RevokeCallback is nothing: revocations complete within the callback.
func (Family) RevokeCallback(classic.Callback) (spec.Set, bool) { return nil, false }

// LogTimer logs a scheduled rebalance (Designs II and III).
func (Family) LogTimer(from string, t node.TimerCmd[classic.Timer], now node.Millis) string {
	if t.Timer.Kind != classic.ScheduledRebalanceTimer {
		return ""
	}
	return fmt.Sprintf("%s: rebalance scheduled at %d (in %d)", from, t.At, t.At-now)
}

// AdjustView changes nothing.
func (Family) AdjustView(mv spec.MemberView) spec.MemberView { return mv }

// Detects reports whether firing t is how the group learns of an
// environment action: a session expiring at the coordinator (a crash, or
// heartbeats lost) or a request timing out at a member (a message lost).
// With the prompt network neither fires otherwise, so the bounded-rounds
// law counts rounds from the moment the change is seen, not from when the
// environment acted: a crash's consequences land a session timeout later,
// after any number of other actions.
func (Family) Detects(t classic.Timer) bool {
	return t.Kind == classic.SessionTimer || t.Kind == classic.RequestTimer
}

// SessionExpiry: the coordinator's session timer of a member.
func (Family) SessionExpiry(t classic.Timer) (spec.MemberID, bool) {
	return t.Member, t.Kind == classic.SessionTimer
}

// Removes: the coordinator's session timer of a member.
func (Family) Removes(t classic.Timer) (spec.MemberID, bool) {
	return t.Member, t.Kind == classic.SessionTimer
}

// TimeBound is the protocol's round bound (classic.RoundBounder) in rounds
// of one heartbeat interval (the members' longest), plus its delays
// (classic.DelayBounder), for the group as it is: its live members and
// the resources they subscribe to. A round waits at most one interval:
// the coordinator starts it at a JoinGroup (a member that joins, or one
// that rejoins to change its subscription or after revoking) or at a
// session timeout, every other member learns of it from its next
// heartbeat's REBALANCE_IN_PROGRESS and rejoins at once, the JoinGroup
// barrier falls when the last one has rejoined, and SyncGroup follows at
// once; a cooperative follow-up round starts at once, when the revoking
// member rejoins. The protocol is the one the coordinator selected, or
// the first one the members configure before there is one; a protocol
// that states no round bound is not judged.
func (Family) TimeBound(c core.Coordinator[classic.Message, classic.Timer, classic.Callback], members []classic.MemberConfig, topics spec.Topics) (spec.TimeBound, bool) {
	var p classic.Protocol
	var heartbeat classic.Millis
	var subscribed []string
	for _, m := range members {
		heartbeat = max(heartbeat, m.Heartbeat())
		subscribed = append(subscribed, m.Topics...)
		for _, q := range m.Protocols {
			if p == nil && (c.Protocol() == "" || q.Name() == c.Protocol()) {
				p = q
			}
		}
	}
	rb, ok := p.(classic.RoundBounder)
	if !ok {
		return spec.TimeBound{}, false
	}
	g := classic.GroupShape{Members: len(members), Resources: len(topics.Resources(subscribed...))}
	b := spec.TimeBound{Rounds: rb.RoundBound(g), Round: time.Duration(heartbeat) * time.Millisecond}
	if db, ok := p.(classic.DelayBounder); ok {
		b.Delays = time.Duration(db.DelayBound(g)) * time.Millisecond
	}
	return b, true
}

// LossesBeforeSessionExpiry is 1, not spec.LostBeforeSessionExpiry: a
// lost message here is silent, and a member whose JoinGroup response is
// lost waits for it (rebalance timeout + 5 s) without heartbeating, as
// Kafka's AbstractCoordinator does while a join is in flight, so the
// coordinator expires it. Kafka's client would see the connection fail
// and rejoin at once; modelling that (a loss the sender notices) is what
// would let the classic family meet the stricter rule.
func (Family) LossesBeforeSessionExpiry() int { return 1 }

// LostCallback: a Lost callback.
func (Family) LostCallback(cb classic.Callback) bool { return cb.Kind == classic.Lost }

// Revoked: a Revoked callback's resources, which a consumer commits in
// its onPartitionsRevoked before it lets them go.
func (Family) Revoked(cb classic.Callback) spec.Set {
	if cb.Kind == classic.Revoked {
		return cb.Resources
	}
	return nil
}

// CommitRequest is an OffsetCommit from the member's id, instance id and
// generation as it knows them now (a consumer's commitSync); none before
// it has a member id. The classic coordinator judges the request as a
// whole, so the partitions are not part of it.
func (Family) CommitRequest(cfg classic.MemberConfig, m core.Member[classic.Message, classic.Timer, classic.Callback], _ spec.Set) (classic.Message, bool) {
	if m.ID() == "" {
		return nil, false
	}
	return classic.OffsetCommitRequest{MemberID: m.ID(), InstanceID: cfg.InstanceID, Generation: m.Generation()}, true
}

// CommitError reads an OffsetCommitResponse: the classic coordinator
// refuses no partition on its own.
func (Family) CommitError(m classic.Message) (spec.ErrorCode, spec.Set, bool) {
	r, ok := m.(classic.OffsetCommitResponse)
	return r.Error, nil, ok
}

// Rounds is the assignment rounds leaders sent.
func (Family) Rounds(sent int, _, _ spec.View) int { return sent }

// RoundUnit is "assignment rounds".
func (Family) RoundUnit() string { return "assignment rounds" }

// coordinator is the classic coordinator as the world drives it.
type coordinator struct{ *classic.Coordinator }

func (c coordinator) CloneCoordinator() core.Coordinator[classic.Message, classic.Timer, classic.Callback] {
	return coordinator{c.Clone()}
}

// ForkCoordinator forks the coordinator (core.Forker, classic.Coordinator.Fork).
func (c coordinator) ForkCoordinator() core.Coordinator[classic.Message, classic.Timer, classic.Callback] {
	return coordinator{c.Fork()}
}

func (c coordinator) Stable() bool { return c.State() == classic.GroupStable }
func (c coordinator) Summary() string {
	return fmt.Sprintf("gen=%d state=%s leader=%s protocol=%s", c.Generation(), c.State(), c.Leader(), c.Protocol())
}
func (c coordinator) Encode(e *canon.Encoder) { c.Coordinator.EncodeCanon(e) }

// member is a classic member as the world drives it.
type member struct{ *classic.Member }

func (m member) CloneMember(into core.Member[classic.Message, classic.Timer, classic.Callback]) core.Member[classic.Message, classic.Timer, classic.Callback] {
	dst, _ := into.(member)
	return member{m.CloneInto(dst.Member)}
}

func (m member) Encode(e *canon.Encoder) { EncodeMember(e, m.Member) }

// EncodeMember writes the whole classic member, but of one that left or
// failed only its state and view: it never steps again (no timer, no
// message it acts on, and only crashed processes restart), and its memory
// would otherwise hold instants that drift ever further into the past.
func EncodeMember(e *canon.Encoder, m *classic.Member) {
	if st := m.State(); st == classic.Left || st == classic.Failed {
		e.Int(int64(st))
		e.MemberView(m.View())
		return
	}
	m.EncodeCanon(e)
}

// Verb runs the classic family's own scenario commands:
//
//	rejoin A             the member asks to rejoin
//	bounce A [protocols=(...) and add-member's protocol options]   leave gracefully and start again
func (Family) Verb(s *Script, cmd string, args []core.Arg) (bool, error) {
	switch cmd {
	case "rejoin":
		name, err := nameArg(args, cmd)
		if err != nil {
			return true, err
		}
		return true, RequestRejoin(s.W, name, "scripted")
	case "bounce":
		return true, bounce(s, args)
	}
	return false, nil
}
