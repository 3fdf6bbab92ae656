package world

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// CheckOptions are the knobs of the closed world rebalance check explores
// for the next-gen protocol (see model/world.CheckOptions). The next-gen
// family has no leader to bounce, no Design II/III failover rule, and its
// environment acts anywhere already; it refuses those knobs.
type CheckOptions = core.CheckOptions[nextgen.Fault]

// DefaultCheckOptions is the world rebalance check explores by default
// (model/world.DefaultCheckOptions).
func DefaultCheckOptions() CheckOptions { return core.DefaultCheckOptions[nextgen.Fault]() }

// checkTiming is the checked world's timing (model/world.Timing).
var checkTiming = core.Timing{Heartbeat: 1000, Session: 3000, Rebalance: 4000}

// CheckTiming is the timing of the world CheckWorld builds (model/world.Timing);
// the mixed group's checked world (model/mixed) runs on it too.
func CheckTiming() core.Timing { return checkTiming }

// CheckRequestTimeout is the request timeout of the members of the world
// CheckWorld builds, and of the next-gen members of the mixed group's.
func CheckRequestTimeout() int { return checkRequest }

// checkRequest is the members' request timeout: between the heartbeat
// interval and the session timeout, so that a member whose heartbeat is
// lost retries (at 1000+1500 ms after its last accepted one) before its
// session expires (3000), as in Kafka (5 s heartbeats, 30 s request
// timeout, 45 s sessions); two lost in a row still cost it its session.
// Kafka's default request timeout with these heartbeats would make every
// lost message a fence, and leave its sender silent for 30 heartbeat
// intervals while the others' steps interleave (five times the states).
const checkRequest = 1500

// checkSettle is how long the setup lets the initial members settle once
// the partitions exist: a few heartbeat intervals, enough for every
// member's next heartbeat to bring it the new epoch and its (free)
// partitions.
const checkSettle = 5000

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
func CheckWorld(o CheckOptions) (core.CheckConfig, error) {
	if err := o.Validate(); err != nil {
		return core.CheckConfig{}, err
	}
	if o.Migrations != 0 || o.MigrationPolicy != "" {
		return core.CheckConfig{}, fmt.Errorf("migrations and the migration policy apply to the mixed group only")
	}
	if o.LeaderBounces != 0 || o.LeaderFailover != "" || o.MaxDelay != 0 || o.ClaimGeneration != "" || o.EnvAnywhere {
		return core.CheckConfig{}, fmt.Errorf("leader bounces, leader failover, max delay, claim generation and env-anywhere apply to the classic protocols only")
	}
	if o.Connectors > 0 {
		return core.CheckConfig{}, fmt.Errorf("connectors = %d: Kafka Connect's connectors and tasks are for the classic deferred and incremental protocols only", o.Connectors)
	}
	if extra := o.Faults &^ nextgen.FaultList.All(); extra != 0 {
		return core.CheckConfig{}, fmt.Errorf("faults: unknown fault bits %#x", uint32(extra))
	}
	before, err := semanticsArg(o.Semantics)
	if err != nil {
		return core.CheckConfig{}, err
	}
	topicNames := core.TopicNames[:o.Topics]
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
	faults := core.FaultsArg(o.Faults)
	member := func(i int) string {
		return fmt.Sprintf("add-member %s topics=(%s) rebalance=%d request=%d%s", core.MemberName(i), strings.Join(topicNames, ","), checkTiming.Rebalance, checkRequest, faults)
	}
	cfg := o.Config("nextgen", MaxRoundsOf(o), DefaultBalance())
	// The environment acts while messages are in flight too: next-gen
	// members heartbeat on their own timers, and a change that lands
	// between a heartbeat and its response is the protocol's everyday case.
	cfg.EnvWhenQuiet = false
	cfg.Setup = []string{fmt.Sprintf("group topics=(%s) session=%d heartbeat=%d%s%s", strings.Join(parts, ","), checkTiming.Session, checkTiming.Heartbeat, faults, before)}
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
	return cfg, nil
}

// selector is one next-gen behaviour selector: how it sets nextgen.Semantics,
// and the checked world in which the bug it restores breaks a law.
type selector struct {
	set func(*nextgen.Semantics)
	// witness holds the bounds of the smallest world found where the bug
	// breaks a law (docs/history.md); nil when the default world does.
	witness *core.CheckOptions[nextgen.Fault]
}

// selectors are the next-gen behaviour selectors by the fix they undo:
// the group command's before=(...) values, and with "before-" the names
// rebalance check --semantics takes.
var selectors = map[string]selector{
	// StableWhenBalanced: A crashes, B takes all three partitions, A
	// restarts under a new member id that sorts first and is given the
	// larger share, which B had.
	"kafka-18688": {
		set:     func(s *nextgen.Semantics) { s.BeforeKafka18688 = true },
		witness: &core.CheckOptions[nextgen.Fault]{Members: 2, Topics: 1, Partitions: 3, Crashes: 1, Restarts: 1},
	},
	// Timely: A starts alone; B and C join one after the other, so A's
	// target shrinks again while it revokes; the response that moves A to
	// the next epoch is lost, A is fenced, and its epoch-0 rejoin is
	// refused until its session expires.
	"kafka-19233": {
		set:     func(s *nextgen.Semantics) { s.BeforeKafka19233 = true },
		witness: &core.CheckOptions[nextgen.Fault]{Members: 3, Joins: 2, Topics: 2, Partitions: 3, Drops: 1},
	},
	// NoNeedlessWait, in the default world: B revokes U-1 for the joining
	// C, C leaves, and B's acknowledgement finds U-1 back in its target.
	"kafka-19449": {set: func(s *nextgen.Semantics) { s.BeforeKafka19449 = true }},
	// ExactlyOnceWhenClean, in the default world (whose check has records
	// on T-0): A processes T-0's record and leaves while the response
	// moving it to the next epoch is in flight; its commit at the epoch
	// it knows is refused, and T-0's next owner processes the record
	// again.
	"kafka-20066": {set: func(s *nextgen.Semantics) { s.BeforeKafka20066 = true }},
}

// SemanticsWitness returns the world in which the bugs of the named
// selectors ("before-kafka-19233") break a law: for each bound the largest
// of their witness worlds' (docs/history.md). ok is false when no named
// selector has a witness world, or a name is unknown. rebalance check
// explores it for --semantics, except for the bounds given on its command
// line.
func SemanticsWitness(names []string) (w core.CheckOptions[nextgen.Fault], ok bool) {
	for _, n := range names {
		fix, _ := strings.CutPrefix(n, "before-")
		s, known := selectors[fix]
		if !known {
			return core.CheckOptions[nextgen.Fault]{}, false
		}
		if s.witness == nil {
			continue
		}
		x := *s.witness
		for i, b := range w.Bounds() {
			*b.P = max(*b.P, *x.Bounds()[i].P)
		}
		ok = true
	}
	return w, ok
}

// SemanticsList names, sorted, the next-gen behaviour selectors rebalance
// check --semantics takes, each restoring Kafka's rule before the named
// fix (nextgen.Semantics).
var SemanticsList = func() []string {
	var out []string
	for _, fix := range slices.Sorted(maps.Keys(selectors)) {
		out = append(out, "before-"+fix)
	}
	return out
}()

// semanticsArg is the group command's argument " before=(kafka-N,...)"
// for the selectors names, or an error naming the known ones.
func semanticsArg(names []string) (string, error) {
	if len(names) == 0 {
		return "", nil
	}
	var fixes []string
	for _, n := range names {
		fix, ok := strings.CutPrefix(n, "before-")
		if _, known := selectors[fix]; !ok || !known {
			return "", fmt.Errorf("semantics %q: want one of %s", n, strings.Join(SemanticsList, ", "))
		}
		fixes = append(fixes, fix)
	}
	slices.Sort(fixes)
	return " before=(" + strings.Join(slices.Compact(fixes), ",") + ")", nil
}
