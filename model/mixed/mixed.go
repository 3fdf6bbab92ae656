// Package mixed is a group whose members may speak either group protocol:
// the classic protocol (JoinGroup, SyncGroup, Heartbeat) and KIP-848's
// consumer protocol (ConsumerGroupHeartbeat), with the online migration
// between them that Kafka's group coordinator performs (KIP-848's upgrade
// and downgrade paths, group.consumer.migration.policy). It plugs the two
// families' nodes into the closed world of model/world as one family, so
// that a rolling upgrade of a live group, member by member, and its
// rollback are scenario files and model-checked worlds like any other.
//
// The coordinator node (Coordinator) holds the group as Kafka does: a
// classic group (model/classic's coordinator, its members' leader
// assigning) until the first ConsumerGroupHeartbeat converts it, then a
// consumer group (model/nextgen's coordinator, the server-side assignor
// assigning) that answers its classic members' JoinGroup, SyncGroup and
// Heartbeat itself, until the last member of the consumer protocol leaves
// and it converts back. The conversions and the admission rules are
// model/classic's, model/nextgen's and model/nextgen/validate's; this
// package only switches between the two nodes and translates their
// vocabularies.
//
// Messages are next-gen messages (nextgen.Message), a classic one carried
// in nextgen.Classic; timers and callbacks are the unions Timer and
// Callback. The network is Connections (every connection in order, as
// TCP is): a next-gen member needs no more, and a classic one relies on it.
package mixed

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/node"
)

// Protocol is the group protocol a member process speaks.
type Protocol uint8

// The protocols.
const (
	// ClassicProtocol: JoinGroup, SyncGroup, Heartbeat (group.protocol=classic).
	ClassicProtocol Protocol = iota + 1
	// ConsumerProtocol: ConsumerGroupHeartbeat (group.protocol=consumer, KIP-848).
	ConsumerProtocol
)

var protocols = node.Enum[Protocol]{Type: "Protocol", Names: []string{"?", "classic", "consumer"}}

// String is the protocol's group.protocol value ("classic", "consumer").
func (p Protocol) String() string { return protocols.Name(p) }

// ParseProtocol reads a group.protocol value ("classic" or "consumer").
func ParseProtocol(s string) (Protocol, error) {
	switch s {
	case "classic":
		return ClassicProtocol, nil
	case "consumer":
		return ConsumerProtocol, nil
	}
	return 0, fmt.Errorf("protocol %q: want classic or consumer", s)
}

// MemberConfig configures one member process for both protocols, as an
// application that can run either is configured: Protocol selects the one
// it runs (group.protocol), and a migration flips it (Family.Migrated).
// Invariant: Classic and Consumer have the same Name, InstanceID and
// Topics (NewMemberConfig makes them so; WithTopics keeps them so).
type MemberConfig struct {
	Protocol Protocol
	Classic  classic.MemberConfig
	Consumer nextgen.MemberConfig
}

// NewMemberConfig is the configuration of a process that runs protocol p,
// with the classic and consumer settings c and n; Name, InstanceID and
// Topics are c's, copied into n. It returns an error for an unknown
// protocol or a classic configuration without protocols.
func NewMemberConfig(p Protocol, c classic.MemberConfig, n nextgen.MemberConfig) (MemberConfig, error) {
	if p != ClassicProtocol && p != ConsumerProtocol {
		return MemberConfig{}, fmt.Errorf("member %s: protocol %d: want classic or consumer", c.Name, p)
	}
	if len(c.Protocols) == 0 {
		return MemberConfig{}, fmt.Errorf("member %s: no classic protocols (a member must be able to run the classic protocol for a rollback)", c.Name)
	}
	n.Name, n.InstanceID, n.Topics = c.Name, c.InstanceID, c.Topics
	return MemberConfig{Protocol: p, Classic: c, Consumer: n}, nil
}

// Timer is a timer of either protocol's nodes: exactly one of Classic and
// Consumer is set (its Kind is not zero).
type Timer struct {
	Classic  classic.Timer
	Consumer nextgen.Timer
}

// IsClassic reports whether t is a classic node's timer.
func (t Timer) IsClassic() bool { return t.Classic.Kind != 0 }

// String prints the timer it holds.
func (t Timer) String() string {
	if t.IsClassic() {
		return t.Classic.String()
	}
	return t.Consumer.String()
}

// Callback is a callback of either protocol's members, to its
// application: Protocol says which of Classic and Consumer it is.
type Callback struct {
	Protocol Protocol
	Classic  classic.Callback
	Consumer nextgen.Callback
}

// String prints the callback it holds.
func (c Callback) String() string {
	if c.Protocol == ClassicProtocol {
		return c.Classic.String()
	}
	return c.Consumer.String()
}

// Output is a node's output in the mixed vocabulary.
type Output = node.Output[nextgen.Message, Timer, Callback]

// fromClassic translates a classic node's output: messages wrapped in
// nextgen.Classic, timers and callbacks in the unions. The round reports
// pass unchanged.
func fromClassic(o classic.Output) Output {
	out := Output{Round: o.Round, RoundFailed: o.RoundFailed, Target: o.Target, Withheld: o.Withheld}
	for _, m := range o.Messages {
		out.Messages = append(out.Messages, node.Envelope[nextgen.Message]{From: m.From, To: m.To, Msg: nextgen.Classic{Msg: m.Msg}})
	}
	for _, t := range o.Timers {
		out.Timers = append(out.Timers, node.TimerCmd[Timer]{Timer: Timer{Classic: t.Timer}, At: t.At, Cancel: t.Cancel})
	}
	for _, c := range o.Callbacks {
		out.Callbacks = append(out.Callbacks, Callback{Protocol: ClassicProtocol, Classic: c})
	}
	return out
}

// fromConsumer translates a next-gen node's output: timers and callbacks
// in the unions.
func fromConsumer(o nextgen.Output) Output {
	out := Output{Messages: o.Messages, Round: o.Round, RoundFailed: o.RoundFailed, Target: o.Target, Withheld: o.Withheld}
	for _, t := range o.Timers {
		out.Timers = append(out.Timers, node.TimerCmd[Timer]{Timer: Timer{Consumer: t.Timer}, At: t.At, Cancel: t.Cancel})
	}
	for _, c := range o.Callbacks {
		out.Callbacks = append(out.Callbacks, Callback{Protocol: ConsumerProtocol, Consumer: c})
	}
	return out
}

// toClassic translates an input for a classic node: a delivered
// nextgen.Classic unwrapped, a classic timer unwrapped. ok is false for a
// message or timer of the consumer protocol, which a classic node never
// takes.
func toClassic(in node.Input) (node.Input, bool) {
	switch e := in.Event.(type) {
	case node.Receive[nextgen.Message]:
		c, ok := e.Msg.(nextgen.Classic)
		if !ok {
			return in, false
		}
		in.Event = node.Receive[classic.Message]{From: e.From, Msg: c.Msg}
	case node.TimerFired[Timer]:
		if !e.Timer.IsClassic() {
			return in, false
		}
		in.Event = node.TimerFired[classic.Timer]{Timer: e.Timer.Classic}
	}
	return in, true
}

// toConsumer translates an input for a next-gen node: a consumer timer
// unwrapped. ok is false for a classic timer, which a next-gen node never
// takes. Messages pass as they are (a next-gen coordinator takes
// nextgen.Classic ones too).
func toConsumer(in node.Input) (node.Input, bool) {
	if e, ok := in.Event.(node.TimerFired[Timer]); ok {
		if e.Timer.IsClassic() {
			return in, false
		}
		in.Event = node.TimerFired[nextgen.Timer]{Timer: e.Timer.Consumer}
	}
	return in, true
}
