package cost

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/classic/policy"
	"github.com/rebalance-ref/rebalance/model/node"
)

// Protocols lists the protocols Run knows: the classic family's four
// embedded protocols (eager; cooperative, Design I, KIP-429; deferred,
// Design II, Connect's scheduled delay; incremental, Design III) and the
// next-gen protocol (KIP-848).
func Protocols() []string {
	return []string{"eager", "cooperative", "deferred", "incremental", "nextgen"}
}

// Workload kinds, the values of Workload.Kind.
const (
	// RollingRestart stops every member in name order, one at a time: it
	// shuts down (a dynamic member leaves the group, a static one does
	// not), stays down for Timing.Restart, starts again (a dynamic member
	// with a new member id, a static one with its instance id), and the
	// next one stops once the group has converged, or Workload.Wait after
	// the restart, whichever comes first.
	RollingRestart = "rolling-restart"
	// ScaleOut starts Workload.Count new members at once.
	ScaleOut = "scale-out"
	// ScaleIn makes the last Workload.Count members (in name order) leave
	// the group for good, at once.
	ScaleIn = "scale-in"
	// Crash stops one member at once for good: it sends nothing, and the
	// coordinator learns of it when its session expires.
	Crash = "crash"
	// Pause stops one member for Workload.Pause: it neither processes nor
	// heartbeats, its timers and the messages sent to it are held; then it
	// resumes where it stopped (its session may have expired meanwhile:
	// then it learns it was fenced and rejoins).
	Pause = "pause"
	// Resubscribe changes the subscription of one member (Workload.Count
	// 0 or 1) or of the first Workload.Count members in name order to
	// Workload.Topics.
	Resubscribe = "resubscribe"
	// AddPartitions grows every topic by Workload.Count partitions.
	AddPartitions = "add-partitions"
)

// Workloads lists the workload kinds Run knows.
func Workloads() []string {
	return []string{RollingRestart, ScaleOut, ScaleIn, Crash, Pause, Resubscribe, AddPartitions}
}

// Timing is the durations a run uses, all in milliseconds of simulated
// time. Its zero fields mean the defaults DefaultTiming gives (Kafka's
// defaults where Kafka has one).
type Timing struct {
	// Session is the classic session.timeout.ms (45000); Heartbeat the
	// classic heartbeat.interval.ms (3000); Rebalance the rebalance timeout,
	// max.poll.interval.ms (300000), also the next-gen member's.
	Session, Heartbeat, Rebalance node.Millis
	// NextgenSession is group.consumer.session.timeout.ms (45000) and
	// NextgenHeartbeat group.consumer.heartbeat.interval.ms (5000).
	NextgenSession, NextgenHeartbeat node.Millis
	// ConnectDelay is Connect's scheduled.rebalance.max.delay.ms (300000),
	// the deferred and incremental protocols' delay.
	ConnectDelay node.Millis
	// Latency is the one-way network latency of every message (1).
	Latency node.Millis
	// Revocation is what revoking one resource costs its application
	// (commit and close: 10). A member revokes one resource after another.
	Revocation node.Millis
	// Restart is how long a restarting process is down (10000).
	Restart node.Millis
	// StepDelay is Design III's scheduled delay between two revoking
	// rounds, the incremental protocol's (1000, policy.DefaultStepDelay).
	StepDelay node.Millis
}

// DefaultTiming returns the defaults: Kafka's session, heartbeat and
// rebalance timeouts for both families, Connect's delay, 1 ms latency,
// 10 ms per revoked resource, 10 s restarts and Design III's 1 s step.
func DefaultTiming() Timing {
	return Timing{
		Session: 45000, Heartbeat: 3000, Rebalance: 300000,
		NextgenSession: 45000, NextgenHeartbeat: 5000,
		ConnectDelay: 300000,
		Latency:      1, Revocation: 10, Restart: 10000,
		StepDelay: policy.DefaultStepDelay,
	}
}

// withDefaults returns t with its zero fields set to DefaultTiming's.
func (t Timing) withDefaults() Timing {
	d := DefaultTiming()
	for _, f := range []struct{ v, def *node.Millis }{
		{&t.Session, &d.Session}, {&t.Heartbeat, &d.Heartbeat}, {&t.Rebalance, &d.Rebalance},
		{&t.NextgenSession, &d.NextgenSession}, {&t.NextgenHeartbeat, &d.NextgenHeartbeat},
		{&t.ConnectDelay, &d.ConnectDelay}, {&t.Latency, &d.Latency},
		{&t.Revocation, &d.Revocation}, {&t.Restart, &d.Restart},
		{&t.StepDelay, &d.StepDelay},
	} {
		if *f.v == 0 {
			*f.v = *f.def
		}
	}
	return t
}

// Workload is the change a run puts the settled group through.
type Workload struct {
	// Kind is one of Workloads().
	Kind string
	// Count is k: members added (ScaleOut) or removed (ScaleIn),
	// partitions added to every topic (AddPartitions), members whose
	// subscription changes (Resubscribe; 0 means 1).
	Count int
	// Member names the member that crashes, pauses or (Count 1)
	// resubscribes; "" lets Config.Seed pick one.
	Member string
	// Pause is how long the member pauses (Pause; default 60000).
	Pause node.Millis
	// Topics is the new subscription (Resubscribe; default every topic
	// but the last).
	Topics []string
	// Wait caps how long a rolling restart waits for the group to
	// converge after a member started again before it stops the next one
	// (default 60000).
	Wait node.Millis
}

// Config is one run: a protocol, a group, a workload and its timing.
type Config struct {
	// Protocol is one of Protocols().
	Protocol string
	// Members is the group's size before the workload (at least 1).
	Members int
	// Topics and Partitions shape the resources: Topics topics
	// (t00, t01, ...) of Partitions partitions each, every member
	// subscribing to all of them.
	Topics, Partitions int
	// Static gives every member a group.instance.id (KIP-345): it does not
	// leave the group on shutdown and keeps its identity across restarts.
	Static bool
	// MaxMovesPerRound is Design III's bound: the most resources one
	// round of the incremental protocol revokes for balance (0: 1,
	// policy.DefaultMaxMovesPerRound). The other protocols have no such
	// bound and ignore it.
	MaxMovesPerRound int
	// Timing overrides the defaults field by field.
	Timing Timing
	// Workload is the change.
	Workload Workload
	// Seed picks what the workload leaves open (the member that crashes,
	// pauses or resubscribes); the same Config gives the same Result.
	Seed uint64
	// Horizon caps the run's clock (0: 30 days of simulated time): a run
	// that has not converged by then stops with Converged false.
	Horizon node.Millis
	// Margin is the quiet time the run waits after the group converged
	// (after the bring-up, and after the workload) before it starts the
	// workload or stops (0: 30000).
	Margin node.Millis
	// KeepOwnership records Result.Ownership.
	KeepOwnership bool

	// trace, when set (by this package's tests), gets a line for every
	// event and callback.
	trace func(string)
}

// Defaults of Config and Workload.
const (
	defaultHorizon = node.Millis(30 * 24 * 3600 * 1000)
	defaultMargin  = node.Millis(30000)
	defaultPause   = node.Millis(60000)
	defaultWait    = node.Millis(60000)
)

// normalized returns cfg with its defaults filled in, or an error that
// lists everything that makes it nonsensical.
func (cfg Config) normalized() (Config, error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !slices.Contains(Protocols(), cfg.Protocol) {
		bad("unknown protocol %q (known: %s)", cfg.Protocol, strings.Join(Protocols(), ", "))
	}
	if cfg.Members < 1 {
		bad("Members %d: a group needs at least one member", cfg.Members)
	}
	if cfg.Topics < 1 || cfg.Partitions < 1 {
		bad("Topics %d, Partitions %d: both must be at least 1", cfg.Topics, cfg.Partitions)
	}
	if cfg.Horizon < 0 || cfg.Margin < 0 {
		bad("negative Horizon %d or Margin %d", cfg.Horizon, cfg.Margin)
	}
	if cfg.MaxMovesPerRound < 0 {
		bad("MaxMovesPerRound %d is negative", cfg.MaxMovesPerRound)
	}
	t := cfg.Timing
	for _, f := range []struct {
		name string
		v    node.Millis
	}{{"Session", t.Session}, {"Heartbeat", t.Heartbeat}, {"Rebalance", t.Rebalance}, {"NextgenSession", t.NextgenSession}, {"NextgenHeartbeat", t.NextgenHeartbeat}, {"ConnectDelay", t.ConnectDelay}, {"Latency", t.Latency}, {"Revocation", t.Revocation}, {"Restart", t.Restart}, {"StepDelay", t.StepDelay}} {
		if f.v < 0 {
			bad("Timing.%s %d is negative", f.name, f.v)
		}
	}
	t = t.withDefaults()
	if t.Heartbeat >= t.Session {
		bad("Timing.Heartbeat %d must be below Timing.Session %d", t.Heartbeat, t.Session)
	}
	if t.NextgenHeartbeat >= t.NextgenSession {
		bad("Timing.NextgenHeartbeat %d must be below Timing.NextgenSession %d", t.NextgenHeartbeat, t.NextgenSession)
	}
	cfg.Timing = t
	if cfg.Horizon == 0 {
		cfg.Horizon = defaultHorizon
	}
	if cfg.Margin == 0 {
		cfg.Margin = defaultMargin
	}
	w := &cfg.Workload
	if w.Count < 0 || w.Pause < 0 || w.Wait < 0 {
		bad("negative Workload.Count %d, Pause %d or Wait %d", w.Count, w.Pause, w.Wait)
	}
	if w.Pause == 0 {
		w.Pause = defaultPause
	}
	if w.Wait == 0 {
		w.Wait = defaultWait
	}
	if w.Member != "" && cfg.Members >= 1 && !slices.Contains(memberNames(cfg.Members), w.Member) {
		bad("Workload.Member %q is not a member of the group (m0001..%s)", w.Member, memberName(cfg.Members))
	}
	switch w.Kind {
	case RollingRestart, Crash, Pause:
	case ScaleOut, AddPartitions:
		if w.Count < 1 {
			bad("%s needs Workload.Count >= 1, got %d", w.Kind, w.Count)
		}
	case ScaleIn:
		if w.Count < 1 || w.Count >= cfg.Members {
			bad("scale-in by %d: Workload.Count must be at least 1 and below the group's %d members", w.Count, cfg.Members)
		}
	case Resubscribe:
		if w.Count == 0 {
			w.Count = 1
		}
		if w.Count > cfg.Members {
			bad("resubscribe of %d members: the group has %d", w.Count, cfg.Members)
		}
		if w.Topics == nil && cfg.Topics >= 2 {
			w.Topics = topicNames(cfg.Topics - 1)
		}
		if len(w.Topics) == 0 {
			bad("resubscribe needs a non-empty Workload.Topics (or at least 2 topics for the default)")
		}
		all := topicNames(max(cfg.Topics, 0))
		for _, tp := range w.Topics {
			if !slices.Contains(all, tp) {
				bad("Workload.Topics names %q, which is not a topic of the group (%s)", tp, strings.Join(all, " "))
			}
		}
	default:
		bad("unknown workload %q (known: %s)", w.Kind, strings.Join(Workloads(), ", "))
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, fmt.Errorf("cost: invalid config: %w", err)
	}
	return cfg, nil
}

// memberName is the process name of the i-th member (1-based): m0001.
func memberName(i int) string { return fmt.Sprintf("m%04d", i) }

func memberNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = memberName(i + 1)
	}
	return out
}

// topicFormat names the i-th topic (0-based): t00.
const topicFormat = "t%02d"

func topicNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(topicFormat, i)
	}
	return out
}
