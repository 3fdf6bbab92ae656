package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rebalance-ref/rebalance/checker"
	"github.com/rebalance-ref/rebalance/checker/hugeheap"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/mixed"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/sim"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
	"github.com/spf13/cobra"
)

var classicProtocols = []string{"eager", "cooperative", "deferred", "incremental"}

// allProtocols is every protocol check knows, in the order it reports them.
var allProtocols = append(slices.Clone(classicProtocols), "nextgen")

// checkedProtocols is every protocol check explores, in the order it
// reports them: the five protocols, then the mixed group (classic and
// next-gen members in one group, with the online migration between them).
var checkedProtocols = append(slices.Clone(allProtocols), "mixed")

// lawsChecked names the laws the checker checks, in every protocol.
var lawsChecked = []spec.Law{
	spec.ExclusiveOwnership, spec.SubscribedOnly, spec.ExistingOnly, spec.MonotonicGeneration,
	spec.AssignedOnce, spec.KnownMembersOnly, spec.CooperativeHandoff, spec.BoundedRounds,
	spec.Timely, spec.NoSpuriousLoss, spec.StableWhenBalanced, spec.NoNeedlessWait, spec.EventuallyConverged, spec.Stability,
}

// deliveryLaws are the laws checked besides in a world with records
// (--records).
var deliveryLaws = []spec.Law{spec.AtLeastOnce, spec.ExactlyOnceWhenClean, spec.ZombieCommitRejected}

// The delivery check rebalance check makes by default: one record on
// T-0, processed by its owners and committed as they give it up. One
// partition keeps the world about three times as large as without
// records (every partition: 58 to 74 times); the laws are per partition,
// and T-0 moves in every rebalance of the default world.
const (
	defaultRecords   = 1
	defaultRecordsOn = "T-0"
	// allPartitions is the --records-on value for records on every
	// partition.
	allPartitions = "all"
)

type checkOptions struct {
	protocol                                         string
	members, joins, topics, partitions               int
	connectors, tasks                                int
	crashes, restarts, leaves, resubscribes          int
	drops, duplicates, leaderBounces, maxRounds      int
	records, overruns, migrations                    int
	recordsOn                                        []string
	leaderFailover, claimGeneration, migrationPolicy string
	maxDelay                                         string // "": the world's default
	envAnywhere, symmetry, exact, noLiveness, asJSON bool
	workers                                          int
	// dropsGiven: --drops was on the command line (the mixed world
	// loses no message unless told to; see mixedDefaults).
	dropsGiven    bool
	timeLimit     time.Duration
	maxStates     int64
	maxMemory     string
	memoryLimit   int64 // parsed from maxMemory
	worldMaxDelay int   // parsed from maxDelay: core.CheckOptions.MaxDelay
	faults        []string
	semantics     []string
	listFaults    bool
	scenarioDir   string
	progress      io.Writer // nil: no progress line
	hugePages     bool
	hugeHeap      hugeheap.Result // what --huge-pages did (zero when off)
	// smallPagesWhy says why the heap was left in small pages although
	// --huge-pages was not given false ("" when it was not).
	smallPagesWhy string
}

// checkResult is one protocol's summary; its JSON form is stable for
// scripts.
type checkResult struct {
	Protocol        string  `json:"protocol"`
	Bounds          string  `json:"bounds"`
	DistinctStates  int64   `json:"distinct_states"`
	Transitions     int64   `json:"transitions"`
	Depth           int     `json:"depth"`
	ElapsedSeconds  float64 `json:"elapsed_seconds"`
	StatesPerSecond float64 `json:"states_per_second"`
	BytesPerState   float64 `json:"bytes_per_state"`
	// Workers is --workers; WorkersBusy the share of their time in the
	// exploration's levels they spent expanding states (checker.Result.Busy).
	Workers     int     `json:"workers"`
	WorkersBusy float64 `json:"workers_busy"`
	Complete    bool    `json:"complete"`
	Stopped     string  `json:"stopped,omitempty"`
	// PeakMemoryBytes is the most memory the process held while this
	// protocol was explored (sampled), MemoryLimitBytes the limit.
	PeakMemoryBytes  int64            `json:"peak_memory_bytes"`
	MemoryLimitBytes int64            `json:"memory_limit_bytes"`
	Laws             []string         `json:"laws"`
	Violations       []checkViolation `json:"violations"`
}

type checkViolation struct {
	Law    string `json:"law"`
	Detail string `json:"detail"`
	// Length is the number of steps of the counterexample; LoopStart the
	// first step of its cycle for a liveness law, -1 otherwise.
	Length    int      `json:"length"`
	LoopStart int      `json:"loop_start"`
	Steps     []string `json:"steps"`
	// Scenario is the scenario file written (--scenarios), if any.
	Scenario string `json:"scenario_file,omitempty"`
	lines    []string
	kinds    []checker.Kind
	notes    []string
}

func newCheckCmd() *cobra.Command { return newCheckCmdRunning(runCheck) }

// newCheckCmdRunning is the check command, which hands the options its
// flags give to run.
func newCheckCmdRunning(run func(io.Writer, checkOptions) error) *cobra.Command {
	var o checkOptions
	c := &cobra.Command{
		Use:   "check",
		Short: "Model-check every protocol exhaustively at small bounds and print a summary",
		Long: `check explores every reachable state of each protocol's closed world
(coordinator, members, network, timers) within the bounds, breadth-first, and
checks every law of package spec: the safety laws in every state and on every
step, the bounded-rounds law, and, once the whole graph is known, liveness
(the group converges and stays put under weak fairness of the protocol's own
steps once the environment stops).

Besides the five protocols, --protocol mixed (part of all) checks a group
whose members speak either protocol: a live classic group of cooperative
members, a member that joins on the consumer protocol (its heartbeat
converts the group online) and --migrations bounces of a member onto the
other protocol, under --migration-policy (default upgrade). It loses no
message unless --drops is given.

A violated law is reported with a shortest counterexample, printed as a table
of steps and, with --scenarios DIR, written as a scenario file that the
scenario tests replay.

Limits: at most 19 members (named A to S); the state space grows about
tenfold with each member, message or crash added, so start from the defaults
and grow one bound at a time. An exploration stops, reported INCOMPLETE,
at --max-states, --time-limit or --max-memory (by default 3/4 of the
machine's memory), whichever comes first. Fingerprints take about 32 bytes
per state; liveness keeps the graph, about 100 bytes per state (--no-liveness
drops it). The frontier of concrete states is what grows with large worlds.

Exit status: 0 when every law holds in every state, 1 when a law is violated
or the exploration stopped at a limit before covering every state, 2 on a
usage error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if isTerminal(os.Stderr) && !o.asJSON {
				o.progress = os.Stderr
			}
			recordsDefaults(&o, cmd.Flags().Changed)
			o.dropsGiven = cmd.Flags().Changed("drops")
			if why := hugeheap.SmallByDefault(); why != "" && !cmd.Flags().Changed("huge-pages") {
				o.hugePages, o.smallPagesWhy = false, why+" (--huge-pages to use them anyway)"
			}
			if o.connectors != 0 && (cmd.Flags().Changed("topics") || cmd.Flags().Changed("partitions")) {
				return usageError{fmt.Errorf("--connectors replaces the topics: give --connectors and --tasks, or --topics and --partitions, not both")}
			}
			for _, flag := range []string{"migrations", "migration-policy"} {
				if cmd.Flags().Changed(flag) && o.protocol != "mixed" && o.protocol != "all" {
					return usageError{fmt.Errorf("--%s applies to --protocol mixed only", flag)}
				}
			}
			if o.protocol == "nextgen" && semanticsWitness(&o, cmd.Flags().Changed) {
				fmt.Fprintf(cmd.ErrOrStderr(), "check: --semantics %s: exploring the world where the bug shows (%s); bound flags override it\n",
					strings.Join(o.semantics, ","), strings.TrimSpace(boundFlags(o)))
			}
			return run(cmd.OutOrStdout(), o)
		},
	}
	d := world.DefaultCheckOptions()
	f := c.Flags()
	f.StringVar(&o.protocol, "protocol", "all", "eager|cooperative|deferred|incremental|nextgen|mixed|all")
	f.IntVar(&o.members, "members", d.Members, "members in the world (members-joins start in the group)")
	f.IntVar(&o.joins, "joins", d.Joins, "members that join later")
	f.IntVar(&o.topics, "topics", d.Topics, "topics, each subscribed by every member")
	f.IntVar(&o.partitions, "partitions", d.Partitions, "partitions per topic")
	f.IntVar(&o.connectors, "connectors", 0, "deferred/incremental: Kafka Connect connectors T, U, ... instead of topics, each a resource plus --tasks tasks")
	f.IntVar(&o.tasks, "tasks", 0, "tasks per connector (with --connectors)")
	f.IntVar(&o.crashes, "crashes", d.Crashes, "member crashes")
	f.IntVar(&o.restarts, "restarts", d.Restarts, "restarts of crashed members")
	f.IntVar(&o.leaves, "leaves", d.Leaves, "graceful leaves")
	f.IntVar(&o.resubscribes, "resubscribes", d.Resubscribes, "subscription changes")
	f.IntVar(&o.drops, "drops", d.Drops, "lost messages")
	f.IntVar(&o.duplicates, "duplicates", d.Duplicates, "duplicated messages")
	f.IntVar(&o.records, "records", defaultRecords, "records in the log of each partition of --records-on that the applications process and commit, which turns the delivery laws on (0: no delivery)")
	f.StringSliceVar(&o.recordsOn, "records-on", []string{defaultRecordsOn}, "the partitions with records, or all (every partition: a far larger world; the delivery laws are per partition)")
	f.IntVar(&o.overruns, "overruns", 0, "applications that overrun a pending revocation (timers fire meanwhile, so the rebalance timeout may fence the member while it still works: a zombie with work to commit); next-gen revokes outside the callback, the classic protocols within it")
	f.IntVar(&o.migrations, "migrations", 1, "mixed: processes bounced onto the other group protocol (the steps of a rolling upgrade or its rollback)")
	f.StringVar(&o.migrationPolicy, "migration-policy", "", "mixed: group.consumer.migration.policy, bidirectional|upgrade|downgrade|disabled (default "+mixed.DefaultCheckPolicy+": a rolling upgrade; bidirectional adds the downgrade)")
	f.IntVar(&o.leaderBounces, "leader-bounces", 0, "leader changes (the leader leaves and rejoins at once); -1 for unbounded (classic only)")
	f.StringVar(&o.leaderFailover, "leader-failover", "", "deferred/incremental: reassign-immediately (default) or delay-if-departed")
	f.StringVar(&o.maxDelay, "max-delay", "", "deferred/incremental: scheduled.rebalance.max.delay.ms in ms (default 3000); 0 disables scheduled delays, as in Connect")
	f.StringVar(&o.claimGeneration, "claim-generation", "", "cooperative: the generation members report for their claims: joined (default, Kafka since KIP-792) or assigned (the cooperative-sticky user data before KIP-792)")
	f.IntVar(&o.maxRounds, "max-rounds", 0, "override the protocol's bounded-rounds law (0 keeps it)")
	f.BoolVar(&o.envAnywhere, "env-anywhere", false, "let joins, crashes and leaves happen while messages are in flight too (a much larger state space)")
	f.IntVar(&o.workers, "workers", 2, "goroutines expanding states")
	f.BoolVar(&o.symmetry, "symmetry", false, "merge states that differ by a permutation of interchangeable members (each state is encoded once per order of the members whose signatures tie, at worst once per permutation; at most 8! = 40320, one group of eight)")
	f.BoolVar(&o.exact, "exact", false, "store whole canonical states instead of 64-bit fingerprints")
	f.BoolVar(&o.noLiveness, "no-liveness", false, "skip the liveness and stability check (keeps no graph)")
	f.DurationVar(&o.timeLimit, "time-limit", 0, "stop each protocol's exploration after this long (0: none)")
	f.Int64Var(&o.maxStates, "max-states", 0, "stop each protocol's exploration after this many states (0: none)")
	f.StringVar(&o.maxMemory, "max-memory", "", "stop an exploration when the process holds this much memory, e.g. 2GiB or 500MiB (default: 3/4 of the machine's memory; 0: none)")
	f.StringSliceVar(&o.faults, "fault", nil, "turn on a named fault switch (repeatable); see --list-faults")
	f.BoolVar(&o.listFaults, "list-faults", false, "list the fault switches and exit")
	f.StringSliceVar(&o.semantics, "semantics", nil, "restore Kafka's behaviour before a named fix (repeatable; next-gen): "+strings.Join(ngworld.SemanticsList, ", "))
	f.BoolVar(&o.asJSON, "json", false, "print one JSON object per protocol instead of a table")
	f.BoolVar(&o.hugePages, "huge-pages", true, "put the heap on transparent huge pages where the system leaves that to programs (Linux, THP \"madvise\"): fewer page faults and TLB misses (docs/checker.md); false leaves the heap to the system, as does the default on a VM whose balloon reports free pages to its host")
	f.StringVar(&o.scenarioDir, "scenarios", "", "write each counterexample as a scenario file into this directory")
	return c
}

func runCheck(out io.Writer, o checkOptions) error {
	if o.listFaults {
		listFaults(out)
		return nil
	}
	protocols, err := selectFrom(checkedProtocols, o.protocol)
	if err != nil {
		return err
	}
	if o.workers < 1 {
		return usageError{fmt.Errorf("--workers %d: want at least 1", o.workers)}
	}
	if o.timeLimit < 0 || o.maxStates < 0 {
		return usageError{fmt.Errorf("--time-limit and --max-states must not be negative")}
	}
	faults, ngFaults, err := parseFaults(o.faults)
	if err != nil {
		return err
	}
	if o.worldMaxDelay, err = maxDelay(o.maxDelay); err != nil {
		return usageError{err}
	}
	if o.memoryLimit, err = memoryLimit(o.maxMemory); err != nil {
		return usageError{err}
	}
	// The collector setting the explorer runs at (checker.GCPercent).
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(checker.GCPercent))
	}
	if o.memoryLimit > 0 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(o.memoryLimit * 9 / 10))
	}
	if o.hugePages {
		n := int64(hugeheap.DefaultSize)
		if o.memoryLimit > 0 {
			n = min(n, o.memoryLimit)
		}
		o.hugeHeap = hugeheap.Advise(n)
	}
	var results []checkResult
	failed := false
	for _, p := range protocols {
		r, err := checkOne(p, o, faults, ngFaults)
		if err != nil {
			return err
		}
		if len(r.Violations) > 0 || !r.Complete {
			failed = true
		}
		results = append(results, r)
	}
	if o.asJSON {
		enc := json.NewEncoder(out)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
	} else {
		printCheckTable(out, results, heapLine(o))
	}
	if failed {
		return errViolation
	}
	return nil
}

// memoryLimit parses --max-memory: a size with a unit (B, KiB, MiB, GiB,
// TiB, or KB, MB, GB, TB in powers of ten), 0 for no limit, or "" for
// three quarters of the machine's memory (or 4 GiB where that is not
// known).
func memoryLimit(flag string) (int64, error) {
	if flag == "" {
		if total := machineMemory(); total > 0 {
			return total / 4 * 3, nil
		}
		return 4 << 30, nil
	}
	if flag == "0" {
		return 0, nil
	}
	units := []struct {
		suffix string
		scale  float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(flag, u.suffix); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			// Written so that NaN fails too; past 2^63 (or Inf) the
			// conversion to int64 would give a negative limit.
			if size := v * u.scale; err != nil || !(size >= 1<<20 && size < 1<<63) {
				break
			}
			return int64(v * u.scale), nil
		}
	}
	return 0, fmt.Errorf("--max-memory %q: want a size from 1MiB to below 8EiB such as 2GiB or 500MiB, or 0 for no limit", flag)
}

// maxDelay parses --max-delay into core.CheckOptions.MaxDelay: "" keeps
// the checked world's delay (0), a positive number of ms is the delay, and
// 0 disables scheduled delays (-1), as scheduled.rebalance.max.delay.ms = 0
// does in Connect.
func maxDelay(flag string) (int, error) {
	if flag == "" {
		return 0, nil
	}
	ms, err := strconv.Atoi(flag)
	switch {
	case err != nil || ms < 0:
		return 0, fmt.Errorf("--max-delay %q: want a whole number of milliseconds, 0 or more (0 disables scheduled delays)", flag)
	case ms == 0:
		return -1, nil
	}
	return ms, nil
}

// machineMemory is the machine's memory in bytes from /proc/meminfo, 0
// where that is not known.
func machineMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// worldOptions is the world the flags ask for, with the family's faults.
func worldOptions[F any](o checkOptions, faults F) core.CheckOptions[F] {
	return core.CheckOptions[F]{Members: o.members, Joins: o.joins, Topics: o.topics, Partitions: o.partitions,
		Connectors: o.connectors, Tasks: o.tasks,
		Crashes: o.crashes, Restarts: o.restarts, Leaves: o.leaves, Resubscribes: o.resubscribes,
		Drops: o.drops, Duplicates: o.duplicates, LeaderBounces: o.leaderBounces, Faults: faults,
		LeaderFailover: o.leaderFailover, MaxDelay: o.worldMaxDelay, ClaimGeneration: o.claimGeneration, MaxRounds: o.maxRounds,
		EnvAnywhere: o.envAnywhere, Semantics: o.semantics, Records: o.records, RecordsOn: o.recordsOn, DeliveryFaults: deliveryFaults(o.faults),
		Overruns: o.overruns, Migrations: o.migrations, MigrationPolicy: o.migrationPolicy}
}

// explore builds the model of the world wo with build (a bad world is a
// usage error) and explores it; it returns the result, the model's setup
// commands and its scenario-file writer, for counterexamples.
func explore[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any, F any](wo core.CheckOptions[F], build func(core.CheckOptions[F]) (*core.Model[M, T, C, P], error), co checker.Options) (checker.Result, []string, func(comment, lines []string) (string, error), error) {
	m, err := build(wo)
	if sv := (*core.SetupViolation)(nil); errors.As(err, &sv) {
		// A law broken by the setup itself: a failure with a
		// counterexample of no steps, not a bad command line.
		ce := checker.Counterexample{Law: sv.Violation.Law, Violation: sv.Violation, Loop: -1}
		return checker.Result{Complete: true, Violations: []checker.Counterexample{ce}}, sv.Setup, sv.ScenarioFile, nil
	}
	if err != nil {
		return checker.Result{}, nil, nil, usageError{err}
	}
	res, err := checker.Explore(m, co)
	return res, m.Preamble(), m.ScenarioFile, err
}

// mixedDefaultDrops is the mixed world's lost messages unless --drops
// says otherwise: none. With one, the checker finds Kafka's consumer group
// re-admitting a classic member it had removed, under its old member id,
// while that member still holds partitions given to another
// (docs/protocols/nextgen.md, "Online migration"); the world without
// losses is the one where the migration's own rules are judged.
const mixedDefaultDrops = 0

// mixedFaults is the fault bits the mixed world gets: none, which is all
// it takes, unless --protocol mixed names faults (mixed.CheckWorld then
// refuses them); with --protocol all the faults are the other protocols'.
func mixedFaults(o checkOptions) nextgen.Fault {
	if o.protocol == "mixed" && len(o.faults) > 0 {
		return nextgen.FaultList.All()
	}
	return 0
}

// checkOne builds protocol p's world from the options and explores it.
func checkOne(p string, o checkOptions, faults classic.Faults, ngFaults nextgen.Fault) (checkResult, error) {
	co := checker.Options{Workers: o.workers, Symmetry: o.symmetry, Exact: o.exact, NoLiveness: o.noLiveness, MaxStates: o.maxStates, TimeLimit: o.timeLimit, MaxMemory: o.memoryLimit}
	if o.progress != nil {
		co.Progress = func(pr checker.Progress) {
			fmt.Fprintf(o.progress, "\r%-12s states %d  queue %d  depth %d  %.0f states/s   ", p, pr.Distinct, pr.Queue, pr.Depth, pr.StatesPerSecond())
		}
		defer fmt.Fprintf(o.progress, "\r%s\r", strings.Repeat(" ", 78))
	}
	if p != "mixed" {
		o.migrations, o.migrationPolicy = 0, ""
	} else if !o.dropsGiven {
		o.drops = mixedDefaultDrops
	}
	universe := fmt.Sprintf("topics=%dx%d", o.topics, o.partitions)
	if o.connectors != 0 {
		universe = fmt.Sprintf("connectors=%dx%d", o.connectors, o.tasks)
	}
	bounds := fmt.Sprintf("members=%d joins=%d %s crashes=%d restarts=%d leaves=%d resubscribes=%d drops=%d duplicates=%d",
		o.members, o.joins, universe, o.crashes, o.restarts, o.leaves, o.resubscribes, o.drops, o.duplicates)
	if o.leaderBounces != 0 {
		bounds += fmt.Sprintf(" leader-bounces=%d", o.leaderBounces)
	}
	if o.maxDelay != "" {
		bounds += " max-delay=" + o.maxDelay
	}
	if o.claimGeneration != "" {
		bounds += " claim-generation=" + o.claimGeneration
	}
	var (
		res      checker.Result
		preamble []string
		scenario func(comment, lines []string) (string, error)
		err      error
	)
	switch p {
	case "mixed":
		policy := o.migrationPolicy
		if policy == "" {
			policy = mixed.DefaultCheckPolicy
		}
		bounds += fmt.Sprintf(" migrations=%d policy=%s", o.migrations, policy)
		res, preamble, scenario, err = explore(worldOptions(o, mixedFaults(o)), func(wo mixed.CheckOptions) (*mixed.Model, error) {
			cfg, err := mixed.CheckWorld(wo)
			if err != nil {
				return nil, err
			}
			return mixed.NewModel(cfg)
		}, co)
	case "nextgen":
		res, preamble, scenario, err = explore(worldOptions(o, ngFaults), func(wo ngworld.CheckOptions) (*ngworld.Model, error) {
			cfg, err := ngworld.CheckWorld(wo)
			if err != nil {
				return nil, err
			}
			return ngworld.NewModel(cfg)
		}, co)
	default:
		res, preamble, scenario, err = explore(worldOptions(o, faults), func(wo world.CheckOptions) (*world.Model, error) {
			cfg, err := world.CheckWorld(p, wo)
			if err != nil {
				return nil, err
			}
			return world.NewModel(cfg)
		}, co)
	}
	if err != nil {
		return checkResult{}, err
	}
	r := checkResult{
		Protocol: p, Bounds: bounds, DistinctStates: res.Distinct, Transitions: res.Transitions, Depth: res.Depth,
		ElapsedSeconds: res.Elapsed.Seconds(), StatesPerSecond: res.StatesPerSecond(), Complete: res.Complete, Stopped: res.Stopped,
		PeakMemoryBytes: res.PeakMemory, MemoryLimitBytes: o.memoryLimit,
		Workers: o.workers, WorkersBusy: res.Busy,
		Violations: []checkViolation{},
	}
	if res.Distinct > 0 {
		r.BytesPerState = float64(res.StoredBytes) / float64(res.Distinct)
	}
	for _, l := range lawsChecked {
		if o.noLiveness && (l == spec.EventuallyConverged || l == spec.Stability) {
			continue
		}
		r.Laws = append(r.Laws, string(l))
	}
	if o.records > 0 {
		for _, l := range deliveryLaws {
			r.Laws = append(r.Laws, string(l))
		}
	}
	for i, ce := range res.Violations {
		v := checkViolation{Law: string(ce.Law), Detail: ce.Violation.String(), Length: len(ce.Steps), LoopStart: ce.Loop}
		for _, s := range ce.Steps {
			v.Steps = append(v.Steps, s.Line)
			v.lines = append(v.lines, s.Line)
			v.kinds = append(v.kinds, s.Kind)
			v.notes = append(v.notes, s.Note)
		}
		if o.scenarioDir != "" {
			name := filepath.Join(o.scenarioDir, fmt.Sprintf("%s_%s_%d.txt", p, strings.ToLower(string(ce.Law)), i+1))
			if err := writeScenario(name, p, o, ce, preamble, scenario); err != nil {
				return r, err
			}
			v.Scenario = name
		}
		r.Violations = append(r.Violations, v)
	}
	return r, nil
}

// writeScenario writes counterexample ce as a scenario file: a comment
// saying what it shows, the preamble, the steps, and the printouts that
// show the broken law.
func writeScenario(name, protocol string, o checkOptions, ce checker.Counterexample, preamble []string, scenario func(comment, lines []string) (string, error)) error {
	comment := []string{
		fmt.Sprintf("Counterexample found by rebalance check --protocol %s%s%s%s:", protocol, boundFlags(o), repeatedFlags("fault", o.faults), repeatedFlags("semantics", o.semantics)),
		ce.Violation.String(),
	}
	if ce.Loop >= 0 {
		comment = append(comment, fmt.Sprintf("Steps %d to %d are a cycle the protocol can repeat forever (the", ce.Loop+1, len(ce.Steps)),
			"file plays it once); its states never satisfy the law.")
	}
	lines := slices.Clone(preamble)
	for _, s := range ce.Steps {
		lines = append(lines, s.Line)
	}
	lines = append(lines, "ownership", "check")
	text, err := scenario(comment, lines)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, []byte(text), 0o644)
}

// repeatedFlags writes " --name v" for each value, as a repeatable flag
// is given on a command line.
func repeatedFlags(name string, values []string) string {
	var b strings.Builder
	for _, v := range values {
		b.WriteString(" --" + name + " " + v)
	}
	return b.String()
}

// boundFlags writes the world's flags that differ from the defaults, so a
// counterexample's first line is the command that finds it again.
// semanticsWitness sets every bound of o whose flag was not given (changed
// reports which were) to the world in which the --semantics selectors'
// bugs break a law (ngworld.SemanticsWitness), and reports whether it did.
// The default world is too small for some of them: without this,
// --semantics before-kafka-19233 would pass and show nothing.
func semanticsWitness(o *checkOptions, changed func(flag string) bool) bool {
	w, ok := ngworld.SemanticsWitness(o.semantics)
	if !ok {
		return false
	}
	mine := o.bounds()
	for i, b := range w.Bounds() {
		if !changed(b.Name) {
			*mine[i].P = *b.P
		}
	}
	return true
}

// recordsDefaults reads --records-on: "all" is every partition (nil), and
// with --records 0 the default partition goes too, unless --records-on
// was given (which the options then refuse).
func recordsDefaults(o *checkOptions, changed func(flag string) bool) {
	switch {
	case slices.Equal(o.recordsOn, []string{allPartitions}):
		o.recordsOn = nil
	case o.records == 0 && !changed("records-on"):
		o.recordsOn = nil
	}
}

// bounds lists o's integer bounds as core.CheckOptions.Bounds does, in
// the same order and by the same names, each pointing into o.
func (o *checkOptions) bounds() []core.Bound {
	return []core.Bound{
		{Name: "members", P: &o.members}, {Name: "joins", P: &o.joins}, {Name: "topics", P: &o.topics}, {Name: "partitions", P: &o.partitions},
		{Name: "connectors", P: &o.connectors}, {Name: "tasks", P: &o.tasks}, {Name: "crashes", P: &o.crashes}, {Name: "restarts", P: &o.restarts},
		{Name: "leaves", P: &o.leaves}, {Name: "resubscribes", P: &o.resubscribes}, {Name: "drops", P: &o.drops}, {Name: "duplicates", P: &o.duplicates},
	}
}

func boundFlags(o checkOptions) string {
	d := core.DefaultCheckOptions[classic.Faults]()
	var b strings.Builder
	for i, f := range o.bounds() {
		if *f.P != *d.Bounds()[i].P {
			fmt.Fprintf(&b, " --%s %d", f.Name, *f.P)
		}
	}
	for _, f := range []struct {
		name string
		got  int
	}{{"leader-bounces", o.leaderBounces}, {"max-rounds", o.maxRounds}, {"overruns", o.overruns}} {
		if f.got != 0 {
			fmt.Fprintf(&b, " --%s %d", f.name, f.got)
		}
	}
	if o.records != defaultRecords {
		fmt.Fprintf(&b, " --records %d", o.records)
	}
	switch {
	case o.records == 0:
	case len(o.recordsOn) == 0:
		b.WriteString(" --records-on " + allPartitions)
	case !slices.Equal(o.recordsOn, []string{defaultRecordsOn}):
		b.WriteString(" --records-on " + strings.Join(o.recordsOn, ","))
	}
	if o.leaderFailover != "" {
		b.WriteString(" --leader-failover " + o.leaderFailover)
	}
	if o.maxDelay != "" {
		b.WriteString(" --max-delay " + o.maxDelay)
	}
	if o.claimGeneration != "" {
		b.WriteString(" --claim-generation " + o.claimGeneration)
	}
	if o.envAnywhere {
		b.WriteString(" --env-anywhere")
	}
	return b.String()
}

// heapLine is the table's line on where the heap lives: on huge pages
// (how much was marked), or in small pages and why when the default left
// it there on a system where huge pages could have been asked for; ""
// otherwise.
func heapLine(o checkOptions) string {
	switch {
	case o.hugeHeap.Advised > 0:
		return fmt.Sprintf("heap: %d MiB of address space on transparent huge pages (--huge-pages)", o.hugeHeap.Advised>>20)
	case o.smallPagesWhy != "" && hugeheap.Advisable():
		return "heap: in small pages: " + o.smallPagesWhy
	}
	return ""
}

func printCheckTable(out io.Writer, results []checkResult, heap string) {
	if len(results) > 0 {
		printWrapped(out, "bounds: ", "", strings.Fields(results[0].Bounds))
		for _, r := range results[1:] {
			if r.Bounds != results[0].Bounds {
				// The mixed world's own defaults (no lost message) and
				// knobs (migrations, policy).
				printWrapped(out, r.Protocol+" bounds: ", "", strings.Fields(r.Bounds))
			}
		}
		fmt.Fprintln(out)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "protocol\tstates\ttransitions\tdepth\ttime\tstates/s\tlaws\tresult")
	for _, r := range results {
		res := "ok"
		switch {
		case len(r.Violations) > 0:
			res = "FAIL"
		case !r.Complete:
			res = "INCOMPLETE"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1fs\t%.0f\t%d\t%s\n", r.Protocol, r.DistinctStates, r.Transitions, r.Depth, r.ElapsedSeconds, r.StatesPerSecond, len(r.Laws), res)
	}
	tw.Flush()
	if len(results) > 0 {
		fmt.Fprintln(out)
		printWrapped(out, "laws: ", ",", results[0].Laws)
	}
	fmt.Fprintln(out, "result: ok = every law held in every state; FAIL = a law broke (counterexample below);")
	fmt.Fprintln(out, "        INCOMPLETE = stopped at a limit before every state was seen (reason below).")
	for _, r := range results {
		if !r.Complete && len(r.Violations) == 0 {
			fmt.Fprintf(out, "%s stopped: %s\n", r.Protocol, r.Stopped)
		}
	}
	if len(results) > 0 && results[0].MemoryLimitBytes > 0 {
		peak := int64(0)
		for _, r := range results {
			peak = max(peak, r.PeakMemoryBytes)
		}
		where := "under"
		if peak > results[0].MemoryLimitBytes {
			where = "over"
		}
		fmt.Fprintf(out, "memory: at most %d MiB held, %s the limit of %d MiB (--max-memory)\n", peak>>20, where, results[0].MemoryLimitBytes>>20)
	}
	if heap != "" {
		fmt.Fprintln(out, heap)
	}
	printBusy(out, results)
	for _, r := range results {
		for _, v := range r.Violations {
			if v.Length == 0 {
				fmt.Fprintf(out, "\n%s: %s, broken by the setup itself (a counterexample of 0 steps)\n", r.Protocol, v.Detail)
			} else {
				fmt.Fprintf(out, "\n%s: %s, a counterexample of %d steps\n", r.Protocol, v.Detail, v.Length)
			}
			for i, l := range v.lines {
				mark := " "
				if i == v.LoopStart {
					mark = "↻" // the cycle starts here
				}
				if v.notes[i] != "" {
					l = fmt.Sprintf("%-10s %s", l, v.notes[i])
				}
				fmt.Fprintf(out, "%s %3d  %-4s  %s\n", mark, i+1, v.kinds[i], l)
			}
			if v.LoopStart >= 0 {
				fmt.Fprintf(out, "↻ marks where the cycle starts: steps %d to %d repeat forever. ", v.LoopStart+1, v.Length)
			}
			fmt.Fprintln(out, "own = the protocol's step (fair), env = the environment's.")
			if v.Scenario != "" {
				fmt.Fprintf(out, "written to %s; replay it with: rebalance replay %s\n", v.Scenario, v.Scenario)
			} else if v.Length > 0 {
				fmt.Fprintln(out, "give --scenarios DIR to write it as a file that rebalance replay plays again")
			}
		}
	}
}

// printBusy prints, with more than one worker, the share of their time
// the workers spent expanding states (checker.Result.Busy), the least and
// the most over the protocols explored: the rest they waited at the ends
// of levels, which more workers would not shorten.
func printBusy(out io.Writer, results []checkResult) {
	if len(results) == 0 || results[0].Workers < 2 {
		return
	}
	least, most := results[0], results[0]
	for _, r := range results[1:] {
		if r.WorkersBusy < least.WorkersBusy {
			least = r
		}
		if r.WorkersBusy > most.WorkersBusy {
			most = r
		}
	}
	share := func(r checkResult) string { return fmt.Sprintf("%.0f %%", 100*r.WorkersBusy) }
	busy := share(least)
	if len(results) > 1 {
		busy = fmt.Sprintf("%s (%s) to %s (%s)", share(least), least.Protocol, share(most), most.Protocol)
	}
	fmt.Fprintf(out, "workers: %d, busy %s; the rest: waits at levels' ends\n", least.Workers, busy)
}

// printWrapped prints items after prefix, each but the last followed by
// sep, separated by spaces and wrapped to 100 columns, later lines
// indented under the first.
func printWrapped(out io.Writer, prefix, sep string, items []string) {
	line := prefix
	for i, item := range items {
		if i < len(items)-1 {
			item += sep
		}
		switch {
		case strings.TrimSpace(line) == strings.TrimSpace(prefix):
		case len(line)+1+len(item) > 100:
			fmt.Fprintln(out, line)
			line = strings.Repeat(" ", len(prefix))
		default:
			line += " "
		}
		line += item
	}
	fmt.Fprintln(out, line)
}
