package mixed

import (
	"fmt"
	"strings"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// CheckOptions are the knobs of the mixed world rebalance check explores
// (model/world.CheckOptions). The mixed family has no fault switches of
// its own, no leader to bounce and no Connect.
type CheckOptions = core.CheckOptions[nextgen.Fault]

// checkTiming is the checked world's timing: the next-gen family's, for
// both protocols (a classic member's session and rebalance timeouts are
// its JoinGroup's, which a consumer group keeps for it).
var checkTiming = ngworld.CheckTiming()

// checkRequest is a next-gen member's request timeout, as in the next-gen
// family's checked world.
var checkRequest = ngworld.CheckRequestTimeout()

// classicProtocols are the classic protocols every checked member offers:
// Design I, the cooperative protocol (a classic member in a consumer group
// must revoke before it is given what another held, which only the
// cooperative protocol's rejoin after revoking expresses without the eager
// protocol's stop-the-world).
const classicProtocols = "cooperative"

// DefaultCheckPolicy is the migration policy of the checked mixed world
// unless the options name one: upgrade, the rolling upgrade every user of
// the consumer protocol performs, where the group never converts back.
// Under bidirectional (Kafka's default) the last consumer-protocol member
// leaving converts the group back to a classic group, and the checker
// finds a classic member that had not yet caught up with the group epoch
// losing its partitions while still in the group (NoSpuriousLoss;
// docs/protocols/nextgen.md, "Online migration").
const DefaultCheckPolicy = "upgrade"

// validPolicy reports whether name is a migration policy.
func validPolicy(name string) bool {
	_, err := validate.ParseMigrationPolicy(name)
	return err == nil
}

// CheckWorld builds the CheckConfig of the mixed world with options o: a
// group of o.Members-o.Joins classic members, settled (a classic group);
// o.Joins members that may join later running the consumer protocol (the
// first one's ConsumerGroupHeartbeat upgrades the live group online);
// o.Migrations bounces of a process onto the other protocol (the steps of
// a rolling upgrade, or of its rollback once members run the consumer
// protocol); the rest of the budget as every family's. It returns an error
// for options that make no sense.
func CheckWorld(o CheckOptions) (core.CheckConfig, error) {
	if err := o.Validate(); err != nil {
		return core.CheckConfig{}, err
	}
	switch {
	case o.LeaderBounces != 0 || o.LeaderFailover != "" || o.MaxDelay != 0 || o.ClaimGeneration != "" || o.EnvAnywhere:
		return core.CheckConfig{}, fmt.Errorf("leader bounces, leader failover, max delay, claim generation and env-anywhere do not apply to the mixed group")
	case o.Connectors > 0:
		return core.CheckConfig{}, fmt.Errorf("connectors = %d: Kafka Connect's workers run the classic protocol only", o.Connectors)
	case o.Faults != 0:
		return core.CheckConfig{}, fmt.Errorf("faults: the mixed group has no fault switches of its own")
	case len(o.Semantics) > 0:
		return core.CheckConfig{}, fmt.Errorf("semantics %v: the mixed group takes no behaviour selectors", o.Semantics)
	case o.MigrationPolicy != "" && !validPolicy(o.MigrationPolicy):
		return core.CheckConfig{}, fmt.Errorf("migration policy %q: want bidirectional, upgrade, downgrade or disabled", o.MigrationPolicy)
	case o.Members-o.Joins < 1:
		return core.CheckConfig{}, fmt.Errorf("members = %d, joins = %d: the mixed world starts from a live classic group; want at least one settled member", o.Members, o.Joins)
	}
	topicNames := core.TopicNames[:o.Topics]
	var parts []string
	for _, t := range topicNames {
		parts = append(parts, fmt.Sprintf("%s:%d", t, o.Partitions))
	}
	member := func(i int, p Protocol) string {
		return fmt.Sprintf("add-member %s protocol=%s protocols=(%s) topics=(%s) session=%d heartbeat=%d rebalance=%d request=%d",
			core.MemberName(i), p, classicProtocols, strings.Join(topicNames, ","), checkTiming.Session, checkTiming.Heartbeat, checkTiming.Rebalance, checkRequest)
	}
	cfg := o.Config("mixed", MaxRoundsOf(o), ngworld.DefaultBalance())
	policy := o.MigrationPolicy
	if policy == "" {
		policy = DefaultCheckPolicy
	}
	cfg.Setup = []string{fmt.Sprintf("group topics=(%s) session=%d heartbeat=%d session-min=1000 policy=%s", strings.Join(parts, ","), checkTiming.Session, checkTiming.Heartbeat, policy)}
	settled := o.Members - o.Joins
	for i := range settled {
		cfg.Setup = append(cfg.Setup, member(i, ClassicProtocol))
	}
	cfg.Setup = append(cfg.Setup, "stabilize")
	for i := settled; i < o.Members; i++ {
		cfg.Joiners = append(cfg.Joiners, member(i, ConsumerProtocol))
	}
	return cfg, nil
}

// MaxRoundsOf is the bounded-rounds law of the mixed group in the world
// with options o: the most generation and epoch bumps after the
// environment's last action. Each environment action makes at most one
// change of the group (a migration two: a leave and a join), and so does
// each pair of lost messages; a change costs each of the n members at most
// two bumps (a classic group's cooperative rebalance is two rounds, each
// moving every member one generation; a consumer group moves a member at
// most once per group epoch). So 2·n·changes, however the changes fall
// between the two group types, is an upper bound. It is not tight:
// measured at the default bounds (drops 0) the most is 5 of its 30, so
// the law here catches a protocol that never settles, not one that needs
// a round or two more than it did (the tight bound of a group that
// converts between the protocols is not derived).
func MaxRoundsOf(o CheckOptions) int {
	changes := o.Joins + o.Restarts + o.Resubscribes + o.AddPartitions + o.Leaves + o.Crashes + 2*o.Migrations + (o.Drops+1)/2
	return max(1, 2*o.Members*changes)
}
