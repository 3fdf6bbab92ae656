// Package world is the next-gen protocol (KIP-848) in the closed world of
// package model/world: its coordinator and members plugged into the world
// every family shares, the family's scenario verbs, and the worlds the
// model checker and the property tests explore.
//
// What is the next-gen family's own is here: each incarnation of a process
// has its own client-generated member id, Name-k (KIP-1082); a member's
// requests reach the coordinator in the order sent while responses may
// come in any order (a member takes only the response it waits for); the
// application revokes after its callback, and tells the member when it is
// done (RevocationDone); the coordinator takes topic metadata and assigns
// itself; a member that left may start again (a static member's bounce);
// the unit of the bounded-rounds law is a member epoch bump. The view's
// generation is the member epoch (a member back at epoch 0 after being
// fenced has reset, NoGeneration), and partitions of topics a member no
// longer subscribes to count as revoking: in KIP-848 the coordinator, not
// the member, decides when they go.
package world

import (
	"fmt"
	"time"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/node"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// The shared world's types that depend on the family, instantiated for
// it. The rest (actions, Used, CheckConfig, Arg) are model/world's own.
type (
	// World is the family's closed world.
	World = core.World[nextgen.Message, nextgen.Timer, nextgen.Callback, nextgen.MemberConfig]
	// Script runs the family's scenario language (NewScript).
	Script = core.Script[nextgen.Message, nextgen.Timer, nextgen.Callback, nextgen.MemberConfig]
	// Model and State are the world as the model checker explores it.
	Model = core.Model[nextgen.Message, nextgen.Timer, nextgen.Callback, nextgen.MemberConfig]
	State = core.State[nextgen.Message, nextgen.Timer, nextgen.Callback, nextgen.MemberConfig]
)

// Family is the next-gen protocol as the shared world drives it.
type Family struct {
	// GroupID is the group its members join.
	GroupID string
	// Assignors are server-side assignors of the caller's (package fuzz
	// runs them): the group verb gives them to the coordinator
	// (nextgen.CoordinatorConfig.ServerAssignors), all of them when
	// it names no assignors, else those it names; without assignors=(...)
	// the first is the group's default.
	Assignors []assign.Assignor
}

var _ core.Family[nextgen.Message, nextgen.Timer, nextgen.Callback, nextgen.MemberConfig] = Family{}

// New returns a world with a coordinator configured by cfg and no members.
func New(cfg nextgen.CoordinatorConfig) (*World, error) {
	c, err := nextgen.NewCoordinator(cfg)
	if err != nil {
		return nil, err
	}
	return core.New(Family{GroupID: cfg.GroupID, Assignors: cfg.ServerAssignors}, core.Coordinator[nextgen.Message, nextgen.Timer, nextgen.Callback](coord{c}), cfg.Topics), nil
}

// NewScript returns a script with no group yet.
func NewScript() *Script { return Family{}.NewScript() }

// NewScript returns a script of the family with no group yet.
func (f Family) NewScript() *Script { return &Script{Family: f} }

// NewModel builds the model checker's model of cfg (see model/world).
func NewModel(cfg core.CheckConfig) (*Model, error) { return Family{}.NewModel(cfg) }

// NewModel builds the model checker's model of cfg for the family.
func (f Family) NewModel(cfg core.CheckConfig) (*Model, error) { return core.NewModel(f, cfg) }

// CoordinatorOf is the next-gen coordinator of w.
func CoordinatorOf(w *World) *nextgen.Coordinator { return w.Coordinator.(coord).Coordinator }

// MemberOf is the next-gen member of p, nil while p is down.
func MemberOf(p *core.Process[nextgen.Message, nextgen.Timer, nextgen.Callback, nextgen.MemberConfig]) *nextgen.Member {
	if p.Node == nil {
		return nil
	}
	return p.Node.(member).Member
}

// CheckConverged returns the convergence violations of w: coverage, and
// the balance the coordinator's default assignor states (BalanceOf
// uniform: per-subscription balance).
func CheckConverged(w *World) []spec.Violation { return w.CheckConverged(DefaultBalance()) }

// DefaultBalance is the balance law a converged group is judged by when
// its coordinator runs its default assignor, uniform (BalanceOf).
func DefaultBalance() core.Balance { return BalanceOf(assign.Uniform()) }

// BalanceOf is the balance law a converged group must meet when its
// coordinator runs assignor a: the one a states (assign.BalancedAssignor),
// judged with Coverage; nil (Coverage alone) when a states none.
func BalanceOf(a assign.Assignor) core.Balance {
	if b, ok := a.(assign.BalancedAssignor); ok {
		return b.Balance
	}
	return nil
}

// Name is "nextgen".
func (Family) Name() string { return "nextgen" }

// Network is Requests: a member's requests are a sequence, responses any
// order.
func (Family) Network() core.Network { return core.Requests }

// NewMember starts incarnation k of cfg, with member id Name-k in the
// family's group.
func (f Family) NewMember(cfg nextgen.MemberConfig, k int, _ spec.Topics) (core.Member[nextgen.Message, nextgen.Timer, nextgen.Callback], error) {
	cfg.GroupID = f.GroupID
	cfg.MemberID = spec.MemberID(fmt.Sprintf("%s-%d", cfg.Name, k))
	m, err := nextgen.NewMember(cfg)
	if err != nil {
		return nil, err
	}
	return member{m}, nil
}

// MemberName is the configuration's name.
func (Family) MemberName(cfg nextgen.MemberConfig) string { return cfg.Name }

// MemberTopics is the configuration's subscription.
func (Family) MemberTopics(cfg nextgen.MemberConfig) []string { return cfg.Topics }

// MemberInstance is the configuration's static instance id.
func (Family) MemberInstance(cfg nextgen.MemberConfig) string { return cfg.InstanceID }

// WithTopics returns cfg subscribing to topics.
func (Family) WithTopics(cfg nextgen.MemberConfig, topics []string) nextgen.MemberConfig {
	cfg.Topics = topics
	return cfg
}

// EncodeConfig writes the subscription, in order: of a configuration only
// it changes on a path (Subscribe; a restart keeps the configuration, and
// the family has no bounce), and the member's own encoding writes the
// configuration it was started with (nextgen.Member.EncodeCanon).
func (Family) EncodeConfig(e *canon.Encoder, cfg nextgen.MemberConfig) { e.Strings(cfg.Topics) }

// EncodeMessage writes the message's canonical encoding.
func (Family) EncodeMessage(e *canon.Encoder, m nextgen.Message) { nextgen.EncodeMessage(e, m) }

// EncodeTimer writes the timer's canonical encoding.
func (Family) EncodeTimer(e *canon.Encoder, t nextgen.Timer) { nextgen.EncodeTimer(e, t) }

// SameConfig compares the two configurations' canonical encodings
// (nextgen.EncodeConfig, every field) without their names.
func (Family) SameConfig(a, b nextgen.MemberConfig) bool {
	a.Name, b.Name = "", ""
	var ea, eb canon.Encoder
	nextgen.EncodeConfig(&ea, a)
	nextgen.EncodeConfig(&eb, b)
	return string(ea.Finish()) == string(eb.Finish())
}

// RestartLeft is true: a member that left may start again (a static member
// that left with epoch -2 and restarts inside its session timeout gets its
// partitions back without a group epoch bump).
func (Family) RestartLeft() bool { return true }

// CoordinatorTakesMetadata is true: the coordinator assigns.
func (Family) CoordinatorTakesMetadata() bool { return true }

// RemembersCoordinatorSteps is true: a coordinator step computes targets
// and reconciles a member, and the model checker meets most of them more
// than once (docs/checker-rounds.md, twentieth round).
func (Family) RemembersCoordinatorSteps() bool { return true }

// RevocationDone tells a member its application finished revoking rs.
func (Family) RevocationDone(rs spec.Set) node.Event { return nextgen.RevocationDone{Resources: rs} }

// RevokeCallback: a Revoke callback asks the application to revoke; Lost
// and Fatal make it forget what it was revoking.
func (Family) RevokeCallback(cb nextgen.Callback) (spec.Set, bool) {
	switch cb.Kind {
	case nextgen.Revoke:
		return cb.Resources, false
	case nextgen.Lost, nextgen.Fatal:
		return nil, true
	}
	return nil, false
}

// LogTimer logs nothing.
func (Family) LogTimer(string, node.TimerCmd[nextgen.Timer], node.Millis) string { return "" }

// AdjustView makes the member epoch the view's generation (0 and below,
// a member that has reset, are NoGeneration) and counts the partitions of
// topics the member no longer subscribes to as revoking.
func (Family) AdjustView(mv spec.MemberView) spec.MemberView {
	if mv.Generation <= 0 {
		mv.Generation = spec.NoGeneration
	}
	mv.Revoking = mv.Revoking.Union(mv.Owns.Filter(func(r spec.Resource) bool { return !mv.Subscribes(r.Topic) }))
	return mv
}

// SessionExpiry: the coordinator's session timer of a member.
func (Family) SessionExpiry(t nextgen.Timer) (spec.MemberID, bool) {
	return t.Member, t.Kind == nextgen.SessionTimer
}

// Removes: the coordinator's session timer of a member, and its
// rebalance timer (a member that does not revoke in time is fenced).
func (Family) Removes(t nextgen.Timer) (spec.MemberID, bool) {
	return t.Member, t.Kind == nextgen.SessionTimer || t.Kind == nextgen.RebalanceTimer
}

// TimeBound is three heartbeat intervals, whatever the group's shape: a
// group that changed computes a new target at the heartbeat that brings
// the change, or at the next one of any member (one interval); every
// member learns its new target at its next heartbeat (a second); a member
// that must revoke does so and acknowledges at once, and a member waiting
// for a partition so released gets it at its next heartbeat (a third).
// A member that does not revoke because it crashed is the environment's
// doing: its rebalance timeout or session is a wait the observer
// discounts (Removes; World.Removed). A live member left revoking until
// its rebalance timeout is not discounted: that wait is the protocol's
// (KAFKA-16249). The next-gen protocol takes no delays.
func (Family) TimeBound(c core.Coordinator[nextgen.Message, nextgen.Timer, nextgen.Callback], _ []nextgen.MemberConfig, _ spec.Topics) (spec.TimeBound, bool) {
	return spec.TimeBound{Rounds: 3, Round: time.Duration(c.(coord).HeartbeatInterval()) * time.Millisecond}, true
}

// LossesBeforeSessionExpiry is spec.LostBeforeSessionExpiry: one lost
// heartbeat or response costs a retry after the request timeout, inside
// the session.
func (Family) LossesBeforeSessionExpiry() int { return spec.LostBeforeSessionExpiry }

// LostCallback: a Lost callback.
func (Family) LostCallback(cb nextgen.Callback) bool { return cb.Kind == nextgen.Lost }

// Revoked: a Revoke callback's resources. The application commits them
// when it finishes revoking, before the member acknowledges (the world's
// CompleteRevocation).
func (Family) Revoked(cb nextgen.Callback) spec.Set {
	if cb.Kind == nextgen.Revoke {
		return cb.Resources
	}
	return nil
}

// CommitRequest is an OffsetCommit v9 of partitions from the member's id
// and epoch as it knows them now; none before it has joined (no member
// id, or epoch 0 or less: it owns nothing it could commit).
func (f Family) CommitRequest(cfg nextgen.MemberConfig, m core.Member[nextgen.Message, nextgen.Timer, nextgen.Callback], partitions spec.Set) (nextgen.Message, bool) {
	if m.ID() == "" || m.Generation() <= 0 {
		return nil, false
	}
	req := nextgen.OffsetCommitRequest{GroupID: f.GroupID, MemberID: m.ID(), MemberEpoch: spec.Epoch(m.Generation()), Version: 9, Partitions: partitions}
	if cfg.InstanceID != "" {
		req.InstanceID = &cfg.InstanceID
	}
	return req, true
}

// CommitError reads an OffsetResponse: its error and its stale
// partitions.
func (Family) CommitError(m nextgen.Message) (spec.ErrorCode, spec.Set, bool) {
	r, ok := m.(nextgen.OffsetResponse)
	return r.Error, r.StalePartitions, ok
}

// Detects is false: the count restarts only at environment actions.
func (Family) Detects(nextgen.Timer) bool { return false }

// Rounds counts the members whose member epoch rose in the step
// (core.GenerationBumps): a member that reconciles to a new epoch, or
// joins or rejoins at one.
func (Family) Rounds(_ int, prev, next spec.View) int { return core.GenerationBumps(prev, next) }

// RoundUnit is "member epoch bumps".
func (Family) RoundUnit() string { return "member epoch bumps" }

// coord is the next-gen coordinator as the world drives it.
type coord struct{ *nextgen.Coordinator }

func (c coord) CloneCoordinator() core.Coordinator[nextgen.Message, nextgen.Timer, nextgen.Callback] {
	return coord{c.Clone()}
}
func (c coord) Leader() spec.MemberID { return "" }
func (c coord) Stable() bool          { return c.State() == nextgen.GroupStable }
func (c coord) Protocol() string      { return "" }
func (c coord) Summary() string {
	return fmt.Sprintf("group-epoch=%d target-epoch=%d state=%s", c.GroupEpoch(), c.TargetEpoch(), c.State())
}
func (c coord) Encode(e *canon.Encoder) { c.Coordinator.EncodeCanon(e) }

// ForkCoordinator forks the coordinator (see core.Forker).
func (c coord) ForkCoordinator() core.Coordinator[nextgen.Message, nextgen.Timer, nextgen.Callback] {
	return coord{c.Fork()}
}

// member is a next-gen member as the world drives it.
type member struct{ *nextgen.Member }

func (m member) CloneMember(into core.Member[nextgen.Message, nextgen.Timer, nextgen.Callback]) core.Member[nextgen.Message, nextgen.Timer, nextgen.Callback] {
	dst, _ := into.(member)
	return member{m.CloneInto(dst.Member)}
}

func (m member) Generation() spec.Generation { return spec.Generation(m.Epoch()) }
func (m member) Encode(e *canon.Encoder)     { m.Member.EncodeCanon(e) }
