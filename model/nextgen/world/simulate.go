package world

import (
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/nextgen/coordinator"
	"github.com/rebalance-ref/rebalance/spec"
)

// DefaultTopics is the universe of the default environment.
func DefaultTopics() spec.Topics { return spec.Topics{"T": 4, "U": 2} }

// DefaultCoordinatorConfig is the coordinator of the default environment:
// a 10 s session timeout and a 2 s heartbeat interval (short, so runs see
// timeouts), today's semantics.
func DefaultCoordinatorConfig() coordinator.CoordinatorConfig {
	return coordinator.CoordinatorConfig{GroupID: "g", SessionTimeout: 10000, HeartbeatInterval: 2000, Topics: DefaultTopics()}
}

// DefaultBounds is the environment the property tests and rebalance check
// drive the protocol through: members A, B, C, D (C subscribes to T only;
// D is static, instance d), a 20 s rebalance timeout, and a budget of 2
// crashes, 2 restarts, 2 leaves, 2 subscription changes, 3 lost and 2
// duplicated messages and 1 partition added.
func DefaultBounds(faults nextgen.Fault) Bounds {
	var b Bounds
	for _, m := range []struct {
		name, instance string
		topics         []string
	}{
		{"A", "", []string{"T", "U"}},
		{"B", "", []string{"T", "U"}},
		{"C", "", []string{"T"}},
		{"D", "d", []string{"T", "U"}},
	} {
		b.Members = append(b.Members, nextgen.MemberConfig{Name: m.name, InstanceID: m.instance, Topics: m.topics, RebalanceTimeout: 20000, Faults: faults})
	}
	b.Crashes, b.Restarts, b.Leaves, b.Resubscribes, b.Drops, b.Duplicates, b.AddPartitions = 2, 2, 2, 2, 3, 2, 1
	b.TopicChoices = [][]string{{"T"}, {"T", "U"}, {"U"}}
	return b
}
