package impl

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// NextGenConfig configures a NextGenGroup.
type NextGenConfig struct {
	// Coordinator configures the pure KIP-848 coordinator (GroupID is
	// required; Topics is the initial metadata image).
	Coordinator nextgen.CoordinatorConfig
	// Clock is the driver's time; nil means SystemClock.
	Clock Clock
	// Observer, when set, is told every membership change.
	Observer Observer
	// Offsets are the group's committed offsets to start with.
	Offsets Offsets
}

// NextGenGroup runs one consumer group's KIP-848 coordinator
// (nextgen.Coordinator) on a goroutine of its own, as ClassicGroup
// does for the classic protocol. Every method is safe for concurrent use.
type NextGenGroup struct {
	group string
	loop  *loop[nextgen.Message, nextgen.Timer]
	node  *nextgenNode
}

// nextgenNode is the stepper for a next-gen coordinator; it is used only
// on the loop's goroutine.
type nextgenNode struct {
	nodeBase
	core *nextgen.Coordinator
}

// NewNextGenGroup starts the driver of a group that does not exist yet
// (the first accepted join creates it). It returns the coordinator's error
// for a nonsensical configuration.
func NewNextGenGroup(cfg NextGenConfig) (*NextGenGroup, error) {
	core, err := nextgen.NewCoordinator(cfg.Coordinator)
	if err != nil {
		return nil, err
	}
	n := &nextgenNode{nodeBase: newNodeBase(cfg.Coordinator.GroupID, cfg.Clock, cfg.Observer, cfg.Offsets), core: core}
	return &NextGenGroup{group: cfg.Coordinator.GroupID, loop: newLoop[nextgen.Message, nextgen.Timer](n.clock, n), node: n}, nil
}

func (n *nextgenNode) receive(now int64, from string, msg nextgen.Message) effects[nextgen.Message, nextgen.Timer] {
	out := n.core.Step(node.Input{Now: nextgen.Millis(now), Event: nextgen.Receive{From: from, Msg: msg}})
	if r, ok := msg.(nextgen.HeartbeatRequest); ok && r.MemberEpoch <= 0 {
		// Joins (epoch 0) and leaves (-1, -2) are the only heartbeats that
		// add or remove members.
		n.observe()
	}
	return nextgenEffects(out)
}

func (n *nextgenNode) fire(now int64, t nextgen.Timer) effects[nextgen.Message, nextgen.Timer] {
	out := n.core.Step(node.Input{Now: nextgen.Millis(now), Event: nextgen.TimerFired{Timer: t}})
	n.observe()
	return nextgenEffects(out)
}

// observe reports the members the coordinator counts: recorded and at a
// non-negative epoch (a static member parked at -2 is not counted).
func (n *nextgenNode) observe() {
	if n.obs == nil {
		return
	}
	var cur []spec.MemberID
	for _, id := range n.core.Members() {
		if n.core.IsMember(id) {
			cur = append(cur, id)
		}
	}
	n.report(cur)
}

func nextgenEffects(out nextgen.Output) effects[nextgen.Message, nextgen.Timer] {
	var e effects[nextgen.Message, nextgen.Timer]
	for _, m := range out.Messages {
		e.replies = append(e.replies, reply[nextgen.Message]{to: m.To, msg: m.Msg})
	}
	for _, t := range out.Timers {
		e.timers = append(e.timers, timerCmd[nextgen.Timer]{timer: t.Timer, at: int64(t.At), cancel: t.Cancel})
	}
	return e
}

// Heartbeat steps the coordinator with one ConsumerGroupHeartbeat (r's Seq
// is not used) and returns its answer. The next-gen coordinator answers
// every heartbeat in the step that takes it.
func (g *NextGenGroup) Heartbeat(ctx context.Context, r nextgen.HeartbeatRequest) (nextgen.HeartbeatResponse, error) {
	var resp nextgen.HeartbeatResponse
	err := g.loop.do(ctx, func() {
		m, ok := g.loop.submitNow(r)
		if !ok {
			panic("impl: the next-gen coordinator did not answer a heartbeat at once")
		}
		resp = m.(nextgen.HeartbeatResponse)
	})
	return resp, err
}

// Commit fences a commit of offsets with the coordinator
// (validate.OffsetCommit; the request's Partitions are set to those of
// offsets) and, when it is accepted, stores offsets but those of the
// partitions it refuses one by one (resp.StalePartitions), in one step.
// It returns the verdict.
func (g *NextGenGroup) Commit(ctx context.Context, req nextgen.OffsetCommitRequest, offsets Offsets) (nextgen.OffsetResponse, error) {
	var resp nextgen.OffsetResponse
	req.Partitions = spec.NewSet(slices.Collect(maps.Keys(offsets))...)
	err := g.loop.do(ctx, func() {
		resp = g.offsetStep(req)
		if resp.Error == spec.None {
			for r, o := range offsets {
				if !resp.StalePartitions.Contains(r) {
					g.node.offsets[r] = o
				}
			}
		}
	})
	return resp, err
}

// Fetch fences an OffsetFetch with the coordinator (validate.OffsetFetch)
// and, when it is accepted, returns the committed offsets of which (all
// when nil).
func (g *NextGenGroup) Fetch(ctx context.Context, req nextgen.OffsetFetchRequest, which []spec.Resource) (nextgen.OffsetResponse, Offsets, error) {
	var (
		resp nextgen.OffsetResponse
		out  Offsets
	)
	err := g.loop.do(ctx, func() {
		resp = g.offsetStep(req)
		if resp.Error == spec.None {
			out = g.node.offsets.get(which)
		}
	})
	return resp, out, err
}

// Offsets returns the committed offsets of which (all when nil) without
// any fencing: what an administrator sees.
func (g *NextGenGroup) Offsets(ctx context.Context, which []spec.Resource) (Offsets, error) {
	var out Offsets
	err := g.loop.do(ctx, func() { out = g.node.offsets.get(which) })
	return out, err
}

func (g *NextGenGroup) offsetStep(req nextgen.Message) nextgen.OffsetResponse {
	m, ok := g.loop.submitNow(req)
	if !ok {
		panic(fmt.Sprintf("impl: the next-gen coordinator did not answer %s at once", req))
	}
	return m.(nextgen.OffsetResponse)
}

// UpdateMetadata gives the coordinator a new metadata image (topics and
// their partition counts); it acts on it at the next heartbeat.
func (g *NextGenGroup) UpdateMetadata(ctx context.Context, topics spec.Topics) error {
	for name, n := range topics {
		if name == "" || n < 0 {
			return fmt.Errorf("impl: UpdateMetadata: topic %q with %d partitions", name, n)
		}
	}
	return g.loop.do(ctx, func() {
		g.node.core.Step(node.Input{Now: nextgen.Millis(g.loop.now()), Event: node.MetadataUpdate{Topics: topics}})
	})
}

// Inspect runs f on the driver's goroutine with the coordinator, for
// describing the group and for tests (f must not keep the pointer or step
// it).
func (g *NextGenGroup) Inspect(ctx context.Context, f func(*nextgen.Coordinator)) error {
	return g.loop.do(ctx, func() { f(g.node.core) })
}

// GroupID returns the group's id.
func (g *NextGenGroup) GroupID() string { return g.group }

// Close stops the driver: its timers stop, and calls in flight or made
// later return ErrClosed.
func (g *NextGenGroup) Close() { g.loop.close() }
