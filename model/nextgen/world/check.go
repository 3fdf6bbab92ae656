package world

import (
	"fmt"
	"strings"

	"github.com/rebalance-ref/rebalance/model/nextgen"
)

// CheckOptions are the knobs of the closed world rebalance check explores
// for the next-gen protocol: the group's size and resources and the
// environment's budget.
type CheckOptions struct {
	// Members is how many members the world has: Members-Joins of them are
	// in the group at the start, settled; Joins more may join later.
	Members, Joins int
	// Topics and Partitions: the topics T, U, V, ... each with Partitions
	// partitions; every member subscribes to all of them.
	Topics, Partitions int
	// The environment's budget over a whole path.
	Crashes, Restarts, Leaves, Resubscribes, Drops, Duplicates int
	// AddPartitions bounds how often a topic gains a partition.
	AddPartitions int
	// Faults are the fault switches on in the coordinator and every
	// member.
	Faults nextgen.Fault
	// MaxRounds overrides the bounded-rounds law (MaxRoundsOf) when
	// positive.
	MaxRounds int
}

// DefaultCheckOptions is the world rebalance check explores by default:
// three members, two of them settled in the group and one that joins; two
// topics of two partitions; one crash, one leave and one lost message.
func DefaultCheckOptions() CheckOptions {
	return CheckOptions{Members: 3, Joins: 1, Topics: 2, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1}
}

// The checked world's timing, in ms: short, so that the clock's offsets
// stay few and the state space small, and in Kafka's proportions:
// heartbeats well inside the session timeout, the rebalance timeout
// longer than the session timeout, and the request timeout between the
// heartbeat interval and the session timeout, so that a member whose
// heartbeat is lost retries (at 1000+1500 ms after its last accepted
// one) before its session expires (3000), as in Kafka (5 s heartbeats,
// 30 s request timeout, 45 s sessions); two lost in a row still cost it
// its session. Kafka's default request timeout with these heartbeats
// would make every lost message a fence, and leave its sender silent for
// 30 heartbeat intervals while the others' steps interleave (five times
// the states).
const (
	checkHeartbeat = 1000
	checkSession   = 3000
	checkRebalance = 4000
	checkRequest   = 1500
	// checkSettle is how long the setup lets the initial members settle
	// once the partitions exist: a few heartbeat intervals, enough for
	// every member's next heartbeat to bring it the new epoch and its
	// (free) partitions.
	checkSettle = 5000
)

// checkMaxMembers is the most members a checked world may have: they are
// named A, B, C, ... and must not be named like a topic (T, U, ...), which
// symmetry reduction would rename with them.
const checkMaxMembers = 19

// MaxRoundsOf is the bounded-rounds law of the next-gen protocol in the
// world with options o: the most member epoch bumps (a member moving to a
// higher epoch, joining or rejoining included) after the environment's
// last action. The reasons:
//
//   - A member moves to each group epoch at most once, however many
//     heartbeats its reconciliation takes: a revoking member stays at its
//     old epoch until it has revoked, a member waiting for partitions is
//     at the new epoch already, and a member that is behind jumps to the
//     latest epoch in one bump. So the bumps are at most, over the group
//     epochs still to come, the members that reach each.
//   - Each environment action makes at most one group epoch: a join, a
//     restart (the new incarnation joins), a subscription change or an
//     added partition adds one; a leave or a crash (its session expires)
//     one too. A lost message makes none on its own: its sender retries
//     after the request timeout, inside its session. Two lost in a row
//     cost their sender its session: the coordinator fences it (one
//     epoch) and it rejoins (one more). Duplicated responses are ignored,
//     and the rebalance timeout fences no member of the checked world
//     (its applications are prompt: Bounds.PromptApps).
//   - A departure that is not made good (a leave or a crash without a
//     restart) takes its member out of every epoch after it; one made good
//     (a crash or leave and a restart, a fence and its rejoin) does not.
//
// With a epoch-making additions, c departures made good and d that are
// not, n members: k of the d departures pending mean a+c+k epochs that
// at most n-k members reach, and the bound is the largest (a+c+k)(n-k).
//
// In the default world (n = 3; a join, a leave, a crash and one lost
// message: a = 1, c = 0, d = 2) that is 4, and the exploration reaches
// it: C's join processed and B's leave in flight when the environment
// acts last, A and C then move twice each. Measured maxima (the bound in
// brackets): default 4 [4]; two members 2 [2]; four members 6 [6]; no
// joiner 2 [2]; with one more crash 4 [4], leave 4 [4], duplicate 4 [4],
// subscription change 6 [6] or added partition 6 [6]; two lost messages
// 7 [9], three 7 [9]; a restart 8 [9], with two members 6 [6]. The
// checker reports BoundedRounds if the protocol needs more.
func MaxRoundsOf(o CheckOptions) int {
	pairs := o.Drops / 2
	departures := o.Leaves + o.Crashes
	madeGood := min(departures, o.Restarts)
	a := o.Joins + o.Restarts + o.Resubscribes + o.AddPartitions + pairs
	c := madeGood + pairs
	best := 0
	for k := 0; k <= departures-madeGood && k <= o.Members; k++ {
		best = max(best, (a+c+k)*(o.Members-k))
	}
	return max(best, 1)
}

// CheckWorld builds the CheckConfig of the next-gen protocol with options
// o. It returns an error for options that make no sense.
func CheckWorld(o CheckOptions) (CheckConfig, error) {
	switch {
	case o.Members < 1:
		return CheckConfig{}, fmt.Errorf("members = %d: want at least 1", o.Members)
	case o.Members > checkMaxMembers:
		return CheckConfig{}, fmt.Errorf("members = %d: at most %d (named A to S)", o.Members, checkMaxMembers)
	case o.Joins < 0 || o.Joins > o.Members:
		return CheckConfig{}, fmt.Errorf("joins = %d: want 0 to members (%d)", o.Joins, o.Members)
	case o.Topics < 1 || o.Topics > 6:
		return CheckConfig{}, fmt.Errorf("topics = %d: want 1 to 6", o.Topics)
	case o.Partitions < 1:
		return CheckConfig{}, fmt.Errorf("partitions = %d: want at least 1", o.Partitions)
	case o.MaxRounds < 0:
		return CheckConfig{}, fmt.Errorf("max-rounds = %d: want 0 (the default bound) or more", o.MaxRounds)
	}
	for name, n := range map[string]int{"crashes": o.Crashes, "restarts": o.Restarts, "leaves": o.Leaves, "resubscribes": o.Resubscribes, "drops": o.Drops, "duplicates": o.Duplicates, "add-partitions": o.AddPartitions} {
		if n < 0 {
			return CheckConfig{}, fmt.Errorf("%s = %d: want 0 or more", name, n)
		}
	}
	var known nextgen.Fault
	for _, fi := range nextgen.FaultList {
		known |= fi.Fault
	}
	if extra := o.Faults &^ known; extra != 0 {
		return CheckConfig{}, fmt.Errorf("faults: unknown fault bits %#x", uint32(extra))
	}
	topicNames := []string{"T", "U", "V", "W", "X", "Y"}[:o.Topics]
	settled := o.Members - o.Joins
	// With members to settle, the topics start empty and get their
	// partitions once the members are in: new partitions are free, so no
	// partition changes hands while the world is built. (A fault such as
	// AssignBeforeRelease breaks a law on every hand-off; a setup that
	// moved partitions would break it before the checker starts.)
	var parts, grow []string
	for _, t := range topicNames {
		n := o.Partitions
		if settled > 0 {
			n = 0
			for range o.Partitions {
				grow = append(grow, "add-partition "+t)
			}
		}
		parts = append(parts, fmt.Sprintf("%s:%d", t, n))
	}
	faults := ""
	if o.Faults != 0 {
		faults = " faults=(" + o.Faults.String() + ")"
	}
	member := func(i int) string {
		return fmt.Sprintf("add-member %c topics=(%s) rebalance=%d request=%d%s", 'A'+i, strings.Join(topicNames, ","), checkRebalance, checkRequest, faults)
	}
	cfg := CheckConfig{
		Setup:   []string{fmt.Sprintf("group topics=(%s) session=%d heartbeat=%d%s", strings.Join(parts, ","), checkSession, checkHeartbeat, faults)},
		Crashes: o.Crashes, Restarts: o.Restarts, Leaves: o.Leaves, Resubscribes: o.Resubscribes,
		Drops: o.Drops, Duplicates: o.Duplicates, AddPartitions: o.AddPartitions,
		MaxRounds: MaxRoundsOf(o),
	}
	if o.MaxRounds > 0 {
		cfg.MaxRounds = o.MaxRounds
	}
	for i := range settled {
		cfg.Setup = append(cfg.Setup, member(i))
	}
	if settled > 0 {
		cfg.Setup = append(cfg.Setup, "stabilize")
		cfg.Setup = append(cfg.Setup, grow...)
		cfg.Setup = append(cfg.Setup, fmt.Sprintf("tick %d", checkSettle))
	}
	for i := settled; i < o.Members; i++ {
		cfg.Joiners = append(cfg.Joiners, member(i))
	}
	if o.Resubscribes > 0 {
		cfg.TopicChoices = [][]string{topicNames[:1], topicNames}
	}
	return cfg, nil
}
