package world

import (
	"fmt"
	"strings"

	"github.com/rebalance-ref/rebalance/model/classic"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// CheckOptions are the knobs of the closed world rebalance check explores
// (see model/world.CheckOptions). The classic family has no use for
// AddPartitions (its coordinator takes no metadata); LeaderBounces and
// LeaderFailover are its own.
type CheckOptions = core.CheckOptions[classic.Faults]

// DefaultCheckOptions is the world rebalance check explores by default
// (model/world.DefaultCheckOptions).
func DefaultCheckOptions() CheckOptions { return core.DefaultCheckOptions[classic.Faults]() }

// checkTiming is the checked world's timing (model/world.Timing); the
// scheduled delay of Designs II and III is longer than the session
// timeout, as the rebalance timeout is, and the step delay as short as a
// heartbeat interval.
var checkTiming = core.Timing{Heartbeat: 1000, Session: 2000, Rebalance: 3000}

const (
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
func CheckWorld(protocol string, o CheckOptions) (core.CheckConfig, error) {
	if err := o.Validate(); err != nil {
		return core.CheckConfig{}, err
	}
	switch {
	case o.Restarts > o.Crashes:
		return core.CheckConfig{}, fmt.Errorf("restarts = %d: more than crashes (%d); only a crashed member restarts", o.Restarts, o.Crashes)
	case o.AddPartitions > 0:
		return core.CheckConfig{}, fmt.Errorf("add-partitions = %d: the classic coordinator takes no metadata (next-gen only)", o.AddPartitions)
	}
	if len(o.Semantics) > 0 {
		return core.CheckConfig{}, fmt.Errorf("semantics %s: the classic protocols have no behaviour selectors (next-gen only)", strings.Join(o.Semantics, ", "))
	}
	if _, err := Protocols([]string{protocol}, ProtocolOptions{LeaderFailover: o.LeaderFailover}); err != nil {
		return core.CheckConfig{}, err
	}
	topicNames := core.TopicNames[:o.Topics]
	var parts []string
	for _, t := range topicNames {
		parts = append(parts, fmt.Sprintf("%s:%d", t, o.Partitions))
	}
	faults := core.FaultsArg(o.Faults)
	opts := ""
	switch protocol {
	case "deferred":
		opts = fmt.Sprintf(" delay=%d backoff=%d", checkDelay, checkTiming.Heartbeat)
	case "incremental":
		opts = fmt.Sprintf(" delay=%d moves=1 step-delay=%d", checkDelay, checkStepDelay)
	}
	if o.LeaderFailover != "" {
		opts += " leader-failover=" + o.LeaderFailover
	}
	member := func(i int) string {
		return fmt.Sprintf("add-member %s protocols=(%s) topics=(%s) session=%d heartbeat=%d rebalance=%d%s%s",
			core.MemberName(i), protocol, strings.Join(topicNames, ","), checkTiming.Session, checkTiming.Heartbeat, checkTiming.Rebalance, opts, faults)
	}
	cfg := o.Config(protocol, MaxRoundsOf(protocol), BalanceOf(protocol))
	cfg.Setup = []string{fmt.Sprintf("group topics=(%s) session-min=1000%s", strings.Join(parts, ","), faults)}
	for i := range o.Members - o.Joins {
		cfg.Setup = append(cfg.Setup, member(i))
	}
	cfg.Setup = append(cfg.Setup, "stabilize")
	for i := o.Members - o.Joins; i < o.Members; i++ {
		cfg.Joiners = append(cfg.Joiners, member(i))
	}
	return cfg, nil
}
