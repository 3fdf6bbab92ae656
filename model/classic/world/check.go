package world

import (
	"fmt"
	"strings"

	"github.com/rebalance-ref/rebalance/model/classic"
)

// CheckOptions are the knobs of the closed world rebalance check explores:
// the group's size and resources and the environment's budget.
type CheckOptions struct {
	// Members is how many members the world has: Members-Joins of them are
	// in the group at the start, settled; Joins more may join later.
	Members, Joins int
	// Topics and Partitions: the topics T, U, V, ... each with Partitions
	// partitions; every member subscribes to all of them.
	Topics, Partitions int
	// The environment's budget over a whole path.
	Crashes, Restarts, Leaves, Resubscribes, Drops, Duplicates int
	// LeaderBounces bounds leader changes (the leader leaves and comes
	// back at once); negative means unbounded.
	LeaderBounces int
	// Faults are the fault switches on in the coordinator and every
	// member.
	Faults classic.Faults
	// LeaderFailover is the Design II/III rule for a departed leader:
	// reassign-immediately (default) or delay-if-departed.
	LeaderFailover string
	// MaxRounds overrides the protocol's bounded-rounds law when positive.
	MaxRounds int
	// EnvAnywhere lets members join, crash, leave, restart and change
	// subscription while messages are in flight too. By default they act
	// only when the network is quiet (CheckConfig.EnvWhenQuiet); lost and
	// duplicated messages happen anywhere either way.
	EnvAnywhere bool
}

// DefaultCheckOptions is the world rebalance check explores by default:
// three members, two of them settled in the group and one that joins; two
// topics of two partitions; one crash, one leave and one lost message.
func DefaultCheckOptions() CheckOptions {
	return CheckOptions{Members: 3, Joins: 1, Topics: 2, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1}
}

// The checked world's timing, in ms: short, so that timer phases repeat
// soon and the state space stays small, and in Kafka's proportions
// (heartbeats well inside the session timeout, the rebalance timeout
// longer than the session timeout, the scheduled delay longer still).
const (
	checkHeartbeat = 1000
	checkSession   = 2000
	checkRebalance = 3000
	checkDelay     = 3000
	checkStepDelay = 1000
)

// MaxRoundsOf is the bounded-rounds law of each protocol in the checked
// world: the most assignment rounds leaders send after the environment's
// last action, or after the group detects it (a session expiring, a
// request timing out; see Family.Detects). The reasons:
//
//   - eager: 2. A round already under way when the change lands is
//     completed (1), then the change makes the coordinator rebalance once
//     (2), in which everyone revoked everything first.
//   - cooperative: 2. The round that revokes what must move (1) and the
//     follow-up that assigns it (2) (KIP-429's two rounds).
//   - deferred: 3. As cooperative, plus the round when the scheduled delay
//     holding a departed member's resources expires (3).
//   - incremental: 5. As deferred, plus one revoke-and-assign pair for
//     each extra batch of at most moves=1 resources that balance needs
//     (one extra pair at the default bounds).
//
// These are the smallest bounds the checker confirms at the default
// options (docs/checker.md): with one less, it reports BoundedRounds.
func MaxRoundsOf(protocol string) int {
	switch protocol {
	case "eager", "cooperative":
		return 2
	case "deferred":
		return 3
	}
	return 5
}

// CheckWorld builds the CheckConfig of protocol with options o. It
// returns an error for options that make no sense.
func CheckWorld(protocol string, o CheckOptions) (CheckConfig, error) {
	switch {
	case o.Members < 1:
		return CheckConfig{}, fmt.Errorf("members = %d: want at least 1", o.Members)
	case o.Joins < 0 || o.Joins > o.Members:
		return CheckConfig{}, fmt.Errorf("joins = %d: want 0 to members (%d)", o.Joins, o.Members)
	case o.Members > 19:
		// Members are A to S: T onwards name topics, and the symmetry and
		// identity renamings tell members from topics by name.
		return CheckConfig{}, fmt.Errorf("members = %d: at most 19 (named A to S; topics are T to Y)", o.Members)
	case o.Topics < 1 || o.Topics > 6:
		return CheckConfig{}, fmt.Errorf("topics = %d: want 1 to 6", o.Topics)
	case o.Partitions < 1:
		return CheckConfig{}, fmt.Errorf("partitions = %d: want at least 1", o.Partitions)
	case o.Crashes < 0 || o.Restarts < 0 || o.Leaves < 0 || o.Resubscribes < 0 || o.Drops < 0 || o.Duplicates < 0:
		return CheckConfig{}, fmt.Errorf("environment bounds must be 0 or more")
	case o.Restarts > o.Crashes:
		return CheckConfig{}, fmt.Errorf("restarts = %d: more than crashes (%d); only a crashed member restarts", o.Restarts, o.Crashes)
	}
	if _, err := Protocols([]string{protocol}, ProtocolOptions{LeaderFailover: o.LeaderFailover}); err != nil {
		return CheckConfig{}, err
	}
	topicNames := []string{"T", "U", "V", "W", "X", "Y"}[:o.Topics]
	var parts []string
	for _, t := range topicNames {
		parts = append(parts, fmt.Sprintf("%s:%d", t, o.Partitions))
	}
	faults := ""
	if o.Faults != 0 {
		faults = " faults=(" + o.Faults.String() + ")"
	}
	opts := ""
	switch protocol {
	case "deferred":
		opts = fmt.Sprintf(" delay=%d backoff=%d", checkDelay, checkHeartbeat)
	case "incremental":
		opts = fmt.Sprintf(" delay=%d moves=1 step-delay=%d", checkDelay, checkStepDelay)
	}
	if o.LeaderFailover != "" {
		opts += " leader-failover=" + o.LeaderFailover
	}
	member := func(i int) string {
		return fmt.Sprintf("add-member %c protocols=(%s) topics=(%s) session=%d heartbeat=%d rebalance=%d%s%s",
			'A'+i, protocol, strings.Join(topicNames, ","), checkSession, checkHeartbeat, checkRebalance, opts, faults)
	}
	cfg := CheckConfig{
		Protocol: protocol,
		Setup:    []string{fmt.Sprintf("group topics=(%s) session-min=1000%s", strings.Join(parts, ","), faults)},
		Crashes:  o.Crashes, Restarts: o.Restarts, Leaves: o.Leaves, Resubscribes: o.Resubscribes,
		Drops: o.Drops, Duplicates: o.Duplicates, LeaderBounces: o.LeaderBounces,
		MaxRounds:    MaxRoundsOf(protocol),
		Balance:      BalanceOf(protocol),
		EnvWhenQuiet: !o.EnvAnywhere,
	}
	if o.MaxRounds > 0 {
		cfg.MaxRounds = o.MaxRounds
	}
	for i := range o.Members - o.Joins {
		cfg.Setup = append(cfg.Setup, member(i))
	}
	cfg.Setup = append(cfg.Setup, "stabilize")
	for i := o.Members - o.Joins; i < o.Members; i++ {
		cfg.Joiners = append(cfg.Joiners, member(i))
	}
	if o.Resubscribes > 0 {
		cfg.TopicChoices = [][]string{topicNames[:1], topicNames}
	}
	return cfg, nil
}
