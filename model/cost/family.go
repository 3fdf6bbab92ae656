package cost

import (
	"fmt"
	"maps"
	"slices"

	"github.com/rebalance-ref/rebalance/model/classic"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/sim"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// groupID is the group every run's members join.
const groupID = "group"

// cbKind is what a callback does to what its member holds.
type cbKind uint8

const (
	cbOther    cbKind = iota
	cbAssigned        // the member starts working on the resources
	cbRevoked         // the member stops working on them, committing first
	cbLost            // the member stops at once, committing nothing
	cbFatal           // the member stops for good
)

// coordNode is a family's coordinator as the engine drives it.
type coordNode[M fmt.Stringer, T sim.Timer, C fmt.Stringer] interface {
	// StepInto steps the coordinator, writing into out (see
	// node.Output.Reset).
	StepInto(in node.Input, out *node.Output[M, T, C])
	// Stable reports whether the group is between rebalances.
	Stable() bool
}

// memberNode is a family's member as the engine drives it: the closed
// world's member, stepped with StepInto (see node.Output.Reset).
type memberNode[M fmt.Stringer, T sim.Timer, C fmt.Stringer] = core.Member[M, T, C]

// family is what the engine needs of a protocol family.
type family[M fmt.Stringer, T sim.Timer, C fmt.Stringer] interface {
	newCoordinator(cfg Config, topics spec.Topics) (coordNode[M, T, C], error)
	newMember(name, instance string, topics []string, inc int, meta spec.Topics) (memberNode[M, T, C], error)
	classify(cb C) (cbKind, spec.Set)
	// revocationDone is the event that tells a member its application
	// finished revoking rs; nil where revoking blocks the member instead
	// (the classic family: the callback runs on the polling thread).
	revocationDone(rs spec.Set) node.Event
	isHeartbeat(m M) bool
	// keepAlive is the heartbeat member m's heartbeat thread sends while
	// the application's revocation callback holds back the member's own
	// sends (blocking families only), and false when the thread sends
	// none: m has no member id or generation (Kafka's heartbeat thread
	// runs only in a joined group, and a member revokes before it starts
	// to rejoin, still in the group).
	keepAlive(m core.Member[M, T, C], instance string) (M, bool)
	// metadataToCoordinator reports whether the coordinator takes new
	// partition counts (next-gen); otherwise every member does (classic).
	metadataToCoordinator() bool
}

// classicFamily is the classic protocols: one embedded protocol for every
// member.
type classicFamily struct {
	proto classic.Protocol
	t     Timing
}

func newClassicFamily(name string, t Timing, maxMoves int) (classicFamily, error) {
	// The closed world's protocols, with Connect's delay and Design III's
	// step delay from t and its bound maxMoves; every other option is
	// Kafka's default, as in rebalance check.
	ps, err := classicworld.Protocols([]string{name}, classicworld.ProtocolOptions{MaxDelay: t.ConnectDelay, MaxMoves: maxMoves, StepDelay: t.StepDelay})
	if err != nil {
		return classicFamily{}, err
	}
	return classicFamily{proto: ps[0], t: t}, nil
}

type classicCoord struct{ *classic.Coordinator }

func (c classicCoord) Stable() bool { return c.State() == classic.GroupStable }

func (f classicFamily) newCoordinator(cfg Config, _ spec.Topics) (coordNode[classic.Message, classic.Timer, classic.Callback], error) {
	c, err := classic.NewCoordinator(classic.CoordinatorConfig{
		GroupID:           groupID,
		MinSessionTimeout: min(f.t.Session, classic.DefaultMinSessionTimeout),
		MaxSessionTimeout: max(f.t.Session, classic.DefaultMaxSessionTimeout),
	})
	if err != nil {
		return nil, err
	}
	return classicCoord{c}, nil
}

func (f classicFamily) newMember(name, instance string, topics []string, inc int, meta spec.Topics) (memberNode[classic.Message, classic.Timer, classic.Callback], error) {
	return classicworld.Family{}.NewMember(classic.MemberConfig{
		Name:              name,
		InstanceID:        instance,
		Topics:            slices.Clone(topics),
		Protocols:         []classic.Protocol{f.proto},
		SessionTimeout:    f.t.Session,
		RebalanceTimeout:  f.t.Rebalance,
		HeartbeatInterval: f.t.Heartbeat,
		Metadata:          maps.Clone(meta),
	}, inc, meta)
}

func (classicFamily) classify(cb classic.Callback) (cbKind, spec.Set) {
	switch cb.Kind {
	case classic.Assigned:
		return cbAssigned, cb.Resources
	case classic.Revoked:
		return cbRevoked, cb.Resources
	case classic.Lost:
		return cbLost, cb.Resources
	case classic.Fatal:
		return cbFatal, nil
	}
	return cbOther, nil
}

func (classicFamily) revocationDone(rs spec.Set) node.Event {
	return classicworld.Family{}.RevocationDone(rs)
}

func (classicFamily) isHeartbeat(m classic.Message) bool {
	_, ok := m.(classic.HeartbeatRequest)
	return ok
}

// keepAlive is a HeartbeatRequest of m's id, instance and generation. Its
// Seq is 0, which names no request of the member's: the member reads
// none of its answers (Member.heartbeatResponse), as Kafka's poll thread
// does not see what the heartbeat thread reads while a callback runs;
// the coordinator counts it all the same.
func (classicFamily) keepAlive(m core.Member[classic.Message, classic.Timer, classic.Callback], instance string) (classic.Message, bool) {
	if m.ID() == "" || m.Generation() == spec.NoGeneration {
		return nil, false
	}
	return classic.HeartbeatRequest{MemberID: m.ID(), InstanceID: instance, Generation: m.Generation()}, true
}

func (classicFamily) metadataToCoordinator() bool {
	return classicworld.Family{}.CoordinatorTakesMetadata()
}

// nextgenFamily is KIP-848 with the coordinator's default (uniform)
// assignor.
type nextgenFamily struct{ t Timing }

type nextgenCoord struct{ *nextgen.Coordinator }

func (c nextgenCoord) Stable() bool { return c.State() == nextgen.GroupStable }

func (f nextgenFamily) newCoordinator(cfg Config, topics spec.Topics) (coordNode[nextgen.Message, nextgen.Timer, nextgen.Callback], error) {
	c, err := nextgen.NewCoordinator(nextgen.CoordinatorConfig{
		GroupID:           groupID,
		SessionTimeout:    f.t.NextgenSession,
		HeartbeatInterval: f.t.NextgenHeartbeat,
		Topics:            maps.Clone(topics),
	})
	if err != nil {
		return nil, err
	}
	return nextgenCoord{c}, nil
}

func (f nextgenFamily) newMember(name, instance string, topics []string, inc int, _ spec.Topics) (memberNode[nextgen.Message, nextgen.Timer, nextgen.Callback], error) {
	return ngworld.Family{GroupID: groupID}.NewMember(nextgen.MemberConfig{
		Name:             name,
		InstanceID:       instance,
		Topics:           slices.Clone(topics),
		RebalanceTimeout: f.t.Rebalance,
	}, inc, nil)
}

func (nextgenFamily) classify(cb nextgen.Callback) (cbKind, spec.Set) {
	switch cb.Kind {
	case nextgen.Assigned:
		return cbAssigned, cb.Resources
	case nextgen.Revoke:
		return cbRevoked, cb.Resources
	case nextgen.Lost:
		return cbLost, cb.Resources
	case nextgen.Fatal:
		return cbFatal, nil
	}
	return cbOther, nil
}

func (nextgenFamily) revocationDone(rs spec.Set) node.Event {
	return ngworld.Family{}.RevocationDone(rs)
}

func (nextgenFamily) isHeartbeat(m nextgen.Message) bool {
	_, ok := m.(nextgen.HeartbeatRequest)
	return ok
}

// keepAlive is never asked: a next-gen member revokes without blocking.
func (nextgenFamily) keepAlive(core.Member[nextgen.Message, nextgen.Timer, nextgen.Callback], string) (nextgen.Message, bool) {
	return nil, false
}

func (nextgenFamily) metadataToCoordinator() bool {
	return ngworld.Family{}.CoordinatorTakesMetadata()
}
