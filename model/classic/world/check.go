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
	checkSession   = 3000
	checkRebalance = 4000
	checkDelay     = 6000
	checkStepDelay = 1000
)

// MaxRoundsOf is the bounded-rounds law of each protocol in the checked
// world: the most assignment rounds a leader sends after the
// environment's last action. The reasons, counted from that action:
//
//   - eager: 2. A round already under way when the change lands is sent
//     (1); the change then makes the coordinator rebalance once (2).
//   - cooperative: 3. The round under way (1), the round that revokes what
//     must move (2), and the follow-up that assigns it (3).
//   - deferred: 4. As cooperative, plus the round when the scheduled
//     delay for a departed member's resources expires (4).
//   - incremental: 5. As deferred, plus one round per extra move beyond
//     the first the step allows (one at the default bounds).
//
// The checker reports BoundedRounds if a protocol needs more.
func MaxRoundsOf(protocol string) int {
	switch protocol {
	case "eager":
		return 2
	case "cooperative":
		return 3
	case "deferred":
		return 4
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
	case o.Members > 26:
		return CheckConfig{}, fmt.Errorf("members = %d: at most 26 (named A to Z)", o.Members)
	case o.Topics < 1 || o.Topics > 6:
		return CheckConfig{}, fmt.Errorf("topics = %d: want 1 to 6", o.Topics)
	case o.Partitions < 1:
		return CheckConfig{}, fmt.Errorf("partitions = %d: want at least 1", o.Partitions)
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
		opts = fmt.Sprintf(" delay=%d", checkDelay)
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
		MaxRounds: MaxRoundsOf(protocol),
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
