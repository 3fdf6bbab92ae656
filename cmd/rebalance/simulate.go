package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rebalance-ref/rebalance/checker/costreport"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	"github.com/rebalance-ref/rebalance/model/cost"
	"github.com/rebalance-ref/rebalance/model/node"
)

// simulateOptions are the flags of rebalance simulate.
type simulateOptions struct {
	workload   string
	protocols  []string
	members    int
	topics     int
	partitions int
	static     bool
	maxMoves   []int
	count      int
	member     string
	pause      time.Duration
	subscribe  []string
	seed       uint64
	timing     timingFlags
	horizon    time.Duration
	html       string
	csv        string
	json       string
	svg        string
	timeline   bool
	parallel   int
	quiet      bool
}

// timingFlags are the timing overrides, as durations; zero keeps the
// default (cost.DefaultTiming).
type timingFlags struct {
	session, heartbeat, rebalance, nextgenSession, nextgenHeartbeat time.Duration
	connectDelay, stepDelay, latency, revocation, restart           time.Duration
}

func newSimulateCmd() *cobra.Command {
	var o simulateOptions
	c := &cobra.Command{
		Use:   "simulate",
		Short: "What each protocol costs a group going through a workload (a rolling restart, scaling, a crash, ...): numbers and pictures",
		Long: `simulate runs the pure cores of each protocol (eager, cooperative,
deferred, incremental, nextgen) through a workload in simulated time (no
sleeping; the same flags and seed give the same numbers) and measures what
it costs: resource-seconds of unavailability, the longest single outage,
resources moved against the fewest the change needs, rounds, heartbeats,
messages, and the time until the group is quiet again.

It prints a table; --html writes a report with pictures (unavailable
resources over time, one line per protocol, and each protocol's ownership
timeline), --csv and --json the numbers, --svg the pictures.

The workloads: rolling-restart (every member, one after another, with
--static for static membership), scale-out and scale-in (by --count),
crash (one member), pause (one member stops for --pause and comes back),
resubscribe (--count members change to --subscribe), add-partitions
(--count partitions more on every topic). The timeouts are Kafka's
defaults; each has a flag. Design III (incremental) revokes at most
--max-moves resources a round for balance, --step-delay apart: one a
second by default, which at a thousand members makes a rolling restart
take tens of thousands of rounds. Several values of --max-moves compare
the bounds: incremental runs once for each, its columns, rows and
pictures named incremental-max-moves-K.

The seeded random runs that judge the laws are 'rebalance random'.`,
		Example: `  rebalance simulate --workload rolling-restart --members 30 --topics 4 --partitions 64 --protocol all --html report.html
  rebalance simulate --workload rolling-restart --static --members 30 --protocol cooperative,nextgen --csv -
  rebalance simulate --workload crash --members 1000 --topics 10 --partitions 10000 --protocol all
  rebalance simulate --workload rolling-restart --protocol cooperative,incremental --max-moves 1,2,4,8 --svg pictures`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSimulateCost(cmd.OutOrStdout(), cmd.ErrOrStderr(), o, commandLine(cmd))
		},
	}
	f := c.Flags()
	f.SortFlags = false // help, and the report's command, in this order
	f.StringVar(&o.workload, "workload", cost.RollingRestart, "the workload: "+strings.Join(cost.Workloads(), ", "))
	f.StringSliceVar(&o.protocols, "protocol", []string{"all"}, "the protocols, comma-separated, or all: "+strings.Join(cost.Protocols(), ", "))
	f.IntVar(&o.members, "members", 30, "members in the group before the workload")
	f.IntVar(&o.topics, "topics", 4, "topics, every member subscribing to all")
	f.IntVar(&o.partitions, "partitions", 64, "partitions per topic")
	f.BoolVar(&o.static, "static", false, "static membership (group.instance.id, KIP-345)")
	f.IntVar(&o.count, "count", 0, "k: members added (scale-out) or removed (scale-in), members resubscribing, partitions added per topic (default 1, or 3 for scale-out and scale-in)")
	f.StringVar(&o.member, "member", "", "the member that crashes, pauses or resubscribes (default: one the seed picks)")
	f.DurationVar(&o.pause, "pause", 0, "how long the member pauses (pause; default 60s)")
	f.StringSliceVar(&o.subscribe, "subscribe", nil, "the new subscription (resubscribe; default every topic but the last)")
	f.Uint64Var(&o.seed, "seed", 1, "the seed (what the workload leaves open)")
	f.DurationVar(&o.timing.session, "session", 0, "classic session.timeout.ms (default 45s)")
	f.DurationVar(&o.timing.heartbeat, "heartbeat", 0, "classic heartbeat.interval.ms (default 3s)")
	f.DurationVar(&o.timing.rebalance, "rebalance-timeout", 0, "the rebalance timeout, max.poll.interval.ms (default 5m)")
	f.DurationVar(&o.timing.nextgenSession, "nextgen-session", 0, "group.consumer.session.timeout.ms (default 45s)")
	f.DurationVar(&o.timing.nextgenHeartbeat, "nextgen-heartbeat", 0, "group.consumer.heartbeat.interval.ms (default 5s)")
	f.DurationVar(&o.timing.connectDelay, "connect-delay", 0, "Connect's scheduled.rebalance.max.delay.ms, for deferred and incremental (default 5m)")
	f.IntSliceVar(&o.maxMoves, "max-moves", nil, "Design III's bound: the most resources one incremental round revokes for balance (default 1); several values (1,2,4) run incremental once for each, named incremental-max-moves-K")
	f.DurationVar(&o.timing.stepDelay, "step-delay", 0, "Design III's delay between two of incremental's revoking rounds (default 1s)")
	f.DurationVar(&o.timing.latency, "latency", 0, "one-way network latency (default 1ms)")
	f.DurationVar(&o.timing.revocation, "revocation", 0, "what revoking one resource costs (commit and close; default 10ms)")
	f.DurationVar(&o.timing.restart, "restart", 0, "how long a restarting process is down (default 10s)")
	f.DurationVar(&o.horizon, "horizon", 0, "stop a run that has not converged after this much simulated time (default 30 days)")
	f.StringVar(&o.html, "html", "", "write the HTML report (table and pictures) to this file")
	f.StringVar(&o.csv, "csv", "", "write the numbers as CSV to this file (- for standard output)")
	f.StringVar(&o.json, "json", "", "write the numbers as JSON to this file (- for standard output)")
	f.StringVar(&o.svg, "svg", "", "write the pictures as SVG files into this directory")
	f.BoolVar(&o.timeline, "timeline", false, "keep every holding for the ownership timelines (on by default with --html or --svg when the group has at most 4,096 resources)")
	f.IntVar(&o.parallel, "parallel", runtime.GOMAXPROCS(0), "protocols simulated at once")
	f.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	return c
}

// commandLine is the command with the flags given, for the report.
func commandLine(cmd *cobra.Command) string {
	parts := []string{"rebalance", cmd.Name()}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		v := f.Value.String()
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			v = strings.Join(sv.GetSlice(), ",")
		}
		if f.Value.Type() == "bool" {
			parts = append(parts, "--"+f.Name)
			return
		}
		parts = append(parts, "--"+f.Name+" "+v)
	})
	return strings.Join(parts, " ")
}

// configs turns the options into one cost.Config per protocol (and, with
// several --max-moves, per bound for incremental), or a usage error; names
// are the results' names: the protocol, or incremental-max-moves-K in a
// sweep of bounds.
func (o simulateOptions) configs() (cfgs []cost.Config, names []string, err error) {
	protocols := o.protocols
	if slices.Contains(protocols, "all") {
		if len(protocols) > 1 {
			return nil, nil, usageError{errors.New("--protocol all: name protocols or all, not both")}
		}
		protocols = cost.Protocols()
	}
	if o.parallel < 1 {
		return nil, nil, usageError{fmt.Errorf("--parallel %d: want at least 1", o.parallel)}
	}
	bounds := o.maxMoves
	if len(bounds) == 0 {
		bounds = []int{0} // the policy's default
	}
	// effective[i] is the bound bounds[i] means (0 is the policy's default).
	effective := make([]int, len(bounds))
	for i, k := range bounds {
		if k < 0 {
			return nil, nil, usageError{fmt.Errorf("--max-moves %d: want at least 1 (0 for the default, %d)", k, policy.DefaultMaxMovesPerRound)}
		}
		effective[i] = max(k, policy.DefaultMaxMovesPerRound)
		if slices.Contains(effective[:i], effective[i]) {
			return nil, nil, usageError{fmt.Errorf("--max-moves %d given twice (0 is the default, %d)", effective[i], policy.DefaultMaxMovesPerRound)}
		}
	}
	sweep := len(bounds) > 1
	if sweep && !slices.Contains(protocols, "incremental") {
		return nil, nil, usageError{errors.New("several --max-moves values compare Design III's bounds: add incremental to --protocol")}
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"pause", o.pause}, {"session", o.timing.session}, {"heartbeat", o.timing.heartbeat}, {"rebalance-timeout", o.timing.rebalance},
		{"nextgen-session", o.timing.nextgenSession}, {"nextgen-heartbeat", o.timing.nextgenHeartbeat}, {"connect-delay", o.timing.connectDelay},
		{"step-delay", o.timing.stepDelay}, {"latency", o.timing.latency}, {"revocation", o.timing.revocation}, {"restart", o.timing.restart}, {"horizon", o.horizon}} {
		if d.v < 0 || d.v%time.Millisecond != 0 {
			return nil, nil, usageError{fmt.Errorf("--%s %v: want a whole number of milliseconds, not negative", d.name, d.v)}
		}
	}
	ms := func(d time.Duration) node.Millis { return node.Millis(d / time.Millisecond) }
	timing := cost.Timing{
		Session: ms(o.timing.session), Heartbeat: ms(o.timing.heartbeat), Rebalance: ms(o.timing.rebalance),
		NextgenSession: ms(o.timing.nextgenSession), NextgenHeartbeat: ms(o.timing.nextgenHeartbeat),
		ConnectDelay: ms(o.timing.connectDelay), StepDelay: ms(o.timing.stepDelay), Latency: ms(o.timing.latency),
		Revocation: ms(o.timing.revocation), Restart: ms(o.timing.restart),
	}
	keep := o.timeline || (o.html != "" || o.svg != "") && o.topics*o.partitions <= 4096
	for _, p := range protocols {
		ks := bounds[:1]
		if p == "incremental" {
			ks = bounds
		}
		for i, k := range ks {
			cfg := cost.Config{
				Protocol: p, Members: o.members, Topics: o.topics, Partitions: o.partitions, Static: o.static, MaxMovesPerRound: k,
				Timing: timing, Seed: o.seed, Horizon: ms(o.horizon), KeepOwnership: keep,
				Workload: cost.Workload{Kind: o.workload, Count: o.count, Member: o.member, Pause: ms(o.pause), Topics: o.subscribe},
			}
			if err := cfg.Validate(); err != nil {
				return nil, nil, usageError{err}
			}
			name := p
			if sweep && p == "incremental" {
				name = fmt.Sprintf("incremental-max-moves-%d", effective[i])
			}
			cfgs, names = append(cfgs, cfg), append(names, name)
		}
	}
	return cfgs, names, nil
}

// runSimulateCost runs every protocol's simulation, o.parallel at once,
// then prints the table and writes the files asked for.
func runSimulateCost(stdout, stderr io.Writer, o simulateOptions, command string) error {
	cfgs, names, err := o.configs()
	if err != nil {
		return err
	}
	// A simulation keeps a small live heap (tens of megabytes at a
	// thousand members) and makes much short-lived garbage, so the
	// collector runs often. Collecting at four times the live heap
	// instead of twice saves about a tenth of the CPU of a large rolling
	// restart (docs/costs.md, Scale), for a few hundred megabytes at most.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	var bar *progressbar.ProgressBar
	if !o.quiet {
		bar = progressbar.NewOptions(len(cfgs),
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription(fmt.Sprintf("simulating %s", o.workload)),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(200*time.Millisecond))
	}
	results := make([]cost.Result, len(cfgs))
	errs := make([]error, len(cfgs))
	elapsed := make([]time.Duration, len(cfgs))
	sem := make(chan struct{}, o.parallel)
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			start := time.Now()
			results[i], errs[i] = cost.Run(cfg)
			results[i].Protocol = names[i] // what the table, files and pictures call it
			elapsed[i] = time.Since(start)
			if bar != nil {
				bar.Describe(fmt.Sprintf("simulated %s", names[i]))
				_ = bar.Add(1)
			}
		}()
	}
	wg.Wait()
	if bar != nil {
		_ = bar.Finish()
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if o.csv != "-" && o.json != "-" {
		printCostTable(stdout, results, elapsed)
	}
	write := func(path string, f func(io.Writer) error) error {
		if path == "" {
			return nil
		}
		if path == "-" {
			return f(stdout)
		}
		var b bytes.Buffer
		if err := f(&b); err != nil {
			return err
		}
		return os.WriteFile(path, b.Bytes(), 0o644)
	}
	if err := write(o.csv, func(w io.Writer) error { return costreport.WriteCSV(w, results) }); err != nil {
		return err
	}
	if err := write(o.json, func(w io.Writer) error { return costreport.WriteJSON(w, results) }); err != nil {
		return err
	}
	if err := write(o.html, func(w io.Writer) error {
		return costreport.WriteHTML(w, costreport.Report{Title: fmt.Sprintf("What a %s costs", o.workload), Command: command, Results: results})
	}); err != nil {
		return err
	}
	if o.svg != "" {
		if err := writeCostSVGs(o.svg, results); err != nil {
			return err
		}
	}
	return nil
}

// writeCostSVGs writes unavailable.svg and ownership-<protocol>.svg (when
// the results kept their holdings) into dir.
func writeCostSVGs(dir string, rs []cost.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := costreport.UnavailableSVG(&b, rs, 0, 0); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "unavailable.svg"), b.Bytes(), 0o644); err != nil {
		return err
	}
	for _, r := range rs {
		if len(r.Ownership) == 0 {
			continue
		}
		b.Reset()
		if err := costreport.OwnershipSVG(&b, r, 0, 0); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "ownership-"+r.Protocol+".svg"), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// printCostTable prints one column per protocol and one row per metric.
func printCostTable(w io.Writer, rs []cost.Result, elapsed []time.Duration) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(name string, f func(r cost.Result, i int) string) {
		cells := []string{name}
		for i, r := range rs {
			cells = append(cells, f(r, i))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	row("", func(r cost.Result, _ int) string { return r.Protocol })
	row("unavailable resource-seconds", func(r cost.Result, _ int) string {
		return fmt.Sprintf("%.1f", r.Metrics.UnavailableResourceSeconds)
	})
	row("longest outage (s)", func(r cost.Result, _ int) string { return seconds(r.Metrics.LongestOutage) })
	row("moves", func(r cost.Result, _ int) string { return fmt.Sprint(r.Metrics.Moves) })
	row("moves needed", func(r cost.Result, _ int) string { return fmt.Sprint(r.Metrics.MovesLowerBound) })
	row("rounds", func(r cost.Result, _ int) string { return fmt.Sprint(r.Metrics.Rounds) })
	row("heartbeats", func(r cost.Result, _ int) string { return fmt.Sprint(r.Metrics.Heartbeats) })
	row("messages", func(r cost.Result, _ int) string { return fmt.Sprint(r.Metrics.Messages) })
	row("converged after (s)", func(r cost.Result, _ int) string {
		if !r.Metrics.Converged {
			return "never"
		}
		return seconds(r.Metrics.ConvergedAt - r.Start)
	})
	row("simulated in (s)", func(_ cost.Result, i int) string { return fmt.Sprintf("%.2f", elapsed[i].Seconds()) })
	tw.Flush()
}

func seconds(ms node.Millis) string { return fmt.Sprintf("%.2f", float64(ms)/1000) }
