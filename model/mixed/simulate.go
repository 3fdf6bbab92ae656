package mixed

import (
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// DefaultConfig is the coordinator of the default environment of the
// property tests: the default topics, a 10 s session timeout and a 1 s
// heartbeat interval for the consumer group, a classic group that accepts
// sessions from 1 s, and the migration policy p.
func DefaultConfig(p validate.MigrationPolicy) Config {
	return Config{
		Classic:  classic.CoordinatorConfig{GroupID: "g", MinSessionTimeout: 1000},
		Consumer: nextgen.CoordinatorConfig{GroupID: "g", SessionTimeout: 10000, HeartbeatInterval: 1000, Topics: core.DefaultTopics(), Migration: p},
	}
}

// DefaultBounds is the environment the property tests drive a mixed group
// through: members A, B, C, D of the default environment (C subscribes to
// T only; D is static, instance d), A and C starting on the classic
// protocol and B and D on the consumer protocol, every one able to run
// both (the cooperative classic protocol; a 10 s session, 1 s heartbeats
// and a 20 s rebalance timeout); and a budget of 4 migrations, 2 crashes,
// 2 restarts and 2 leaves, on a network faster than every timer that
// loses nothing (a lost message reaches the re-admitted zombie of
// finding_readmitted_zombie.txt).
func DefaultBounds() core.Bounds[MemberConfig] {
	var b core.Bounds[MemberConfig]
	for i, m := range core.DefaultMembers() {
		p := ClassicProtocol
		if i%2 == 1 {
			p = ConsumerProtocol
		}
		c := classic.MemberConfig{Name: m.Name, InstanceID: m.Instance, Topics: m.Topics, Protocols: []classic.Protocol{policy.Cooperative()},
			SessionTimeout: 10000, HeartbeatInterval: 1000, RebalanceTimeout: 20000}
		cfg, err := NewMemberConfig(p, c, nextgen.MemberConfig{RebalanceTimeout: 20000, RequestTimeout: 5000})
		if err != nil {
			panic(err) // the configurations above are valid
		}
		b.Members = append(b.Members, cfg)
	}
	b.Migrations, b.Crashes, b.Restarts, b.Leaves = 4, 2, 2, 2
	b.Prompt, b.PromptApps = true, true
	return b
}
