package world

import (
	"fmt"
	"slices"

	"github.com/rebalance-ref/rebalance/model/classic"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// DefaultTopics is the resource universe of the default environment
// (model/world.DefaultTopics).
func DefaultTopics() spec.Topics { return core.DefaultTopics() }

// DefaultBounds is the environment the property tests and rebalance
// random drive each protocol through: four members A, B, C, D running
// protocol with the given fault switches (C subscribes to T only, the
// others to T and U; D is static, instance d), a scheduled-rebalance delay
// of 20 s and a step delay of 2 s for the designs that have them, and a
// budget of 2 crashes, 2 restarts, 1 leave, 2 subscription changes, 3 lost
// and 2 duplicated messages, over the family's network: each connection
// delivers in order, as Kafka's TCP connections do. (A network that let a
// member's JoinGroup overtake its later requests breaks the unmodified
// protocol: the hazard_duplicated_join scenario.)
func DefaultBounds(protocol string, faults classic.Faults) (core.Bounds[classic.MemberConfig], error) {
	var b core.Bounds[classic.MemberConfig]
	for _, m := range core.DefaultMembers() {
		protos, err := Protocols([]string{protocol}, ProtocolOptions{MaxDelay: 20000, StepDelay: 2000})
		if err != nil {
			return core.Bounds[classic.MemberConfig]{}, err
		}
		b.Members = append(b.Members, classic.MemberConfig{
			Name: m.Name, InstanceID: m.Instance, Topics: m.Topics, Protocols: protos,
			Metadata: DefaultTopics(), Faults: faults,
		})
	}
	b.Crashes, b.Restarts, b.Leaves, b.Resubscribes, b.Drops, b.Duplicates = 2, 2, 1, 2, 3, 2
	b.TopicChoices = core.DefaultTopicChoices()
	return b, nil
}

// ConnectorTopics is the resource universe of the random runs with
// connectors: connector T with three tasks and connector U with two
// (spec.Topics.AddConnector).
func ConnectorTopics() spec.Topics { return spec.Topics{}.AddConnector("T", 3).AddConnector("U", 2) }

// ConnectorBounds is DefaultBounds for a Connect design (deferred or
// incremental) over ConnectorTopics: every worker runs both connectors, as
// Connect workers run whatever the cluster is configured with, so nobody
// changes subscription; the rest of the budget is DefaultBounds'.
func ConnectorBounds(protocol string, faults classic.Faults) (core.Bounds[classic.MemberConfig], error) {
	b, err := DefaultBounds(protocol, faults)
	if err != nil {
		return b, err
	}
	b.Members = append([]classic.MemberConfig(nil), b.Members...)
	for i := range b.Members {
		b.Members[i].Topics = []string{"T", "U"}
		b.Members[i].Metadata = ConnectorTopics()
	}
	b.Resubscribes, b.TopicChoices = 0, nil
	return b, nil
}

// BalanceOf is the balance law the named protocol (built in, with its
// default configuration) states as a classic.Balancer, judged with
// Coverage once the group converges: eager runs range, which spreads each
// topic over its subscribers within one (spec.CheckTopicBalance);
// cooperative-sticky balances the members' totals (spec.CheckBalance); the
// deferred and incremental designs run Connect's assignor, which balances
// connectors and tasks separately and, since KAFKA-17049, each connector's
// tasks (spec.CheckConnectBalance, which is spec.CheckBalance in a world
// without connectors). It is nil (Coverage alone) for a protocol that
// states none, and for a name no built-in protocol has.
func BalanceOf(protocol string) core.Balance {
	protos, err := Protocols([]string{protocol}, ProtocolOptions{})
	if err != nil || len(protos) != 1 {
		return nil
	}
	if b, ok := protos[0].(classic.Balancer); ok {
		return b.Balance
	}
	return nil
}

// RejoinStaleStatic makes every live static member that the last
// assignment round did not assign for with its current subscription
// rejoin, and says whom it asked ("" when nobody). It is Kafka's rule,
// not a bug of the model: a static member that rejoins during Stable
// without changing the protocol vote gets its old assignment and no
// rebalance, even with a new subscription (GroupCoordinator: "Static
// member which joins during Stable stage and doesn't affect
// selectProtocol will not trigger rebalance"), so the group stays
// unbalanced until the next rebalance (the
// static_restart_new_subscription scenario). A random run that ends so
// starts that rebalance with it and requires convergence after it.
func RejoinStaleStatic(w *World) (string, error) {
	if len(w.Rounds) == 0 {
		return "", nil
	}
	last := w.Rounds[len(w.Rounds)-1].Round
	var stale []string
	for _, name := range w.Names() {
		p := w.Process(name)
		m := MemberOf(p)
		if m == nil || p.Config().InstanceID == "" {
			continue
		}
		// A member the round left out has no subscription in it: stale
		// unless it subscribes to nothing.
		if !slices.Equal(slices.Sorted(slices.Values(last.Subscriptions[m.View().ID])), m.Subscription()) {
			stale = append(stale, name)
		}
	}
	for _, name := range stale {
		if err := RequestRejoin(w, name, "subscription the group has not assigned for"); err != nil {
			return "", err
		}
	}
	if len(stale) == 0 {
		return "", nil
	}
	return fmt.Sprintf("the rejoin of %v", stale), nil
}
