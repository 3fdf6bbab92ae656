package impl

import (
	"context"
	"fmt"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// ClassicConfig configures a ClassicGroup.
type ClassicConfig struct {
	// Coordinator configures the pure coordinator (GroupID is required).
	Coordinator classic.CoordinatorConfig
	// Clock is the driver's time; nil means SystemClock.
	Clock Clock
	// Observer, when set, is told every membership change.
	Observer Observer
	// Offsets are the group's committed offsets to start with (a group
	// converted from the other family keeps its offsets, as Kafka's do).
	Offsets Offsets
}

// ClassicGroup runs one classic group's coordinator (model/classic) on a
// goroutine of its own: requests are stepped one at a time, the
// coordinator's timers are armed on the Clock and fired back into it, and
// each answer goes back to the call that asked. Every method is safe for
// concurrent use.
type ClassicGroup struct {
	group string
	loop  *loop[classic.Message, classic.Timer]
	node  *classicNode
}

// classicNode is the stepper for a classic coordinator; it is used only on
// the loop's goroutine.
type classicNode struct {
	nodeBase
	core *classic.Coordinator
}

// NewClassicGroup starts the driver of an empty group. It returns the
// coordinator's error for a nonsensical configuration.
func NewClassicGroup(cfg ClassicConfig) (*ClassicGroup, error) {
	core, err := classic.NewCoordinator(cfg.Coordinator)
	if err != nil {
		return nil, err
	}
	n := &classicNode{nodeBase: newNodeBase(cfg.Coordinator.GroupID, cfg.Clock, cfg.Observer, cfg.Offsets), core: core}
	return &ClassicGroup{group: cfg.Coordinator.GroupID, loop: newLoop[classic.Message, classic.Timer](n.clock, n), node: n}, nil
}

func (n *classicNode) receive(now int64, from string, msg classic.Message) effects[classic.Message, classic.Timer] {
	out := n.core.Step(node.Input{Now: classic.Millis(now), Event: classic.Receive{From: from, Msg: msg}})
	switch msg.(type) {
	case classic.JoinGroupRequest, classic.LeaveGroupRequest:
		n.report(n.core.Members())
	}
	return classicEffects(out)
}

func (n *classicNode) fire(now int64, t classic.Timer) effects[classic.Message, classic.Timer] {
	out := n.core.Step(node.Input{Now: classic.Millis(now), Event: classic.TimerFired{Timer: t}})
	n.report(n.core.Members())
	return classicEffects(out)
}

func classicEffects(out classic.Output) effects[classic.Message, classic.Timer] {
	var e effects[classic.Message, classic.Timer]
	for _, m := range out.Messages {
		e.replies = append(e.replies, reply[classic.Message]{to: m.To, msg: m.Msg})
	}
	for _, t := range out.Timers {
		e.timers = append(e.timers, timerCmd[classic.Timer]{timer: t.Timer, at: int64(t.At), cancel: t.Cancel})
	}
	return e
}

// checkClassicRequest returns an error for a message the coordinator does
// not take (a response, or nil): passing one would make the core panic.
func checkClassicRequest(req classic.Message) error {
	switch req.(type) {
	case classic.JoinGroupRequest, classic.SyncGroupRequest, classic.HeartbeatRequest, classic.LeaveGroupRequest:
		return nil
	case classic.OffsetCommitRequest:
		return fmt.Errorf("impl: use Commit for an OffsetCommitRequest")
	}
	return fmt.Errorf("impl: %T is not a request of the classic group coordinator", req)
}

// Request steps the coordinator with req (JoinGroup, SyncGroup, Heartbeat
// or LeaveGroup; req's Seq is not used) and waits for its answer, which may
// take until a later step: a JoinGroup is parked until the join barrier
// falls, a follower's SyncGroup until the leader's arrives. ctx bounds the
// wait; when it ends first the answer, if it ever comes, is dropped. Some
// requests are never answered, as in Kafka (a parked JoinGroup replaced by
// a newer one from the same member, a parked SyncGroup of a member that is
// removed); the caller's ctx must end them.
func (g *ClassicGroup) Request(ctx context.Context, req classic.Message) (classic.Message, error) {
	p, err := g.Start(ctx, req)
	if err != nil {
		return nil, err
	}
	return p.Wait(ctx)
}

// Pending is a request the coordinator has taken and may not have answered
// yet.
type Pending[M any] struct {
	wait func(context.Context) (M, error)
	// answered is whether the answer came with the step that took it.
	answered bool
}

// Answered reports whether the coordinator answered the request in the
// step that took it, so that Wait returns at once. A transport that must
// not block its caller while a request is parked (kfake's control
// functions) sleeps only when it is false.
func (p *Pending[M]) Answered() bool { return p.answered }

// Wait returns the answer; see ClassicGroup.Request.
func (p *Pending[M]) Wait(ctx context.Context) (M, error) { return p.wait(ctx) }

// Start steps the coordinator with req and returns once it has: the
// answer may already be there (Pending.Answered) or come later.
func (g *ClassicGroup) Start(ctx context.Context, req classic.Message) (*Pending[classic.Message], error) {
	if err := checkClassicRequest(req); err != nil {
		return nil, err
	}
	c, err := g.loop.start(ctx, req)
	if err != nil {
		return nil, err
	}
	return &Pending[classic.Message]{answered: c.answered, wait: func(ctx context.Context) (classic.Message, error) { return g.loop.wait(ctx, c) }}, nil
}

// Commit fences a commit with the coordinator (classic's
// validateOffsetCommit) and, when it is accepted, stores offsets, in one
// step: no rebalance can come between the check and the write. It returns
// the coordinator's verdict (NONE when stored).
func (g *ClassicGroup) Commit(ctx context.Context, req classic.OffsetCommitRequest, offsets Offsets) (spec.ErrorCode, error) {
	code := spec.None
	err := g.loop.do(ctx, func() {
		resp, ok := g.loop.submitNow(req)
		if !ok {
			panic("impl: the classic coordinator did not answer an OffsetCommit at once")
		}
		code = resp.(classic.OffsetCommitResponse).Error
		if code == spec.None {
			for r, o := range offsets {
				g.node.offsets[r] = o
			}
		}
	})
	return code, err
}

// Offsets returns the committed offsets of which (all when nil). A classic
// group answers OffsetFetch from anyone (ClassicGroup.validateOffsetFetch
// checks only that the group is not dead).
func (g *ClassicGroup) Offsets(ctx context.Context, which []spec.Resource) (Offsets, error) {
	var out Offsets
	err := g.loop.do(ctx, func() { out = g.node.offsets.get(which) })
	return out, err
}

// Describe returns a copy of the group's state (for DescribeGroups).
func (g *ClassicGroup) Describe(ctx context.Context) (classic.GroupDescription, error) {
	var d classic.GroupDescription
	err := g.loop.do(ctx, func() { d = g.node.core.Describe() })
	return d, err
}

// Inspect runs f on the driver's goroutine with the coordinator, for tests
// and tools that read its state (f must not keep the pointer or step it).
func (g *ClassicGroup) Inspect(ctx context.Context, f func(*classic.Coordinator)) error {
	return g.loop.do(ctx, func() { f(g.node.core) })
}

// GroupID returns the group's id.
func (g *ClassicGroup) GroupID() string { return g.group }

// Close stops the driver: its timers stop, and calls in flight or made
// later return ErrClosed.
func (g *ClassicGroup) Close() { g.loop.close() }
