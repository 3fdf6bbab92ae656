package world

import (
	"github.com/rebalance-ref/rebalance/model/nextgen"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// DefaultTopics is the universe of the default environment.
func DefaultTopics() spec.Topics { return core.DefaultTopics() }

// DefaultCoordinatorConfig is the coordinator of the default environment:
// Kafka's 45 s session timeout (group.consumer.session.timeout.ms), longer
// than a member's 30 s request timeout plus a heartbeat interval, so that
// one lost message costs a retry and not the session (the Timely law; with
// a 10 s session one lost response cost it), a 2 s heartbeat interval, and
// today's semantics.
func DefaultCoordinatorConfig() nextgen.CoordinatorConfig {
	return nextgen.CoordinatorConfig{GroupID: "g", SessionTimeout: 45000, HeartbeatInterval: 2000, Topics: DefaultTopics()}
}

// DefaultBounds is the environment the property tests and rebalance
// random drive the protocol through: members A, B, C, D (C subscribes to T only;
// D is static, instance d), a 20 s rebalance timeout, and a budget of 2
// crashes, 2 restarts, 2 leaves, 2 subscription changes, 3 lost and 2
// duplicated messages and 1 partition added.
func DefaultBounds(faults nextgen.Fault) core.Bounds[nextgen.MemberConfig] {
	var b core.Bounds[nextgen.MemberConfig]
	for _, m := range core.DefaultMembers() {
		b.Members = append(b.Members, nextgen.MemberConfig{Name: m.Name, InstanceID: m.Instance, Topics: m.Topics, RebalanceTimeout: 20000, Faults: faults})
	}
	b.Crashes, b.Restarts, b.Leaves, b.Resubscribes, b.Drops, b.Duplicates, b.AddPartitions = 2, 2, 2, 2, 3, 2, 1
	b.TopicChoices = core.DefaultTopicChoices()
	return b
}
