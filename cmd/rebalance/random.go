package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/rebalance-ref/rebalance/checker/timeline"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/sim"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
	"github.com/spf13/cobra"
)

type randomOptions struct {
	protocol   string
	runs       int
	steps      int
	seed       uint64
	faults     []string
	listFaults bool
	json       bool
	// prompt gives the runs a prompt, ordered network that loses and
	// duplicates nothing: the runs Timely's time clause judges.
	prompt bool
	// connectors runs the Connect designs over connectors and their tasks
	// (deferred and incremental only).
	connectors bool
	// timeline is a directory: each failing run's ownership timeline is
	// drawn there as an SVG ("" draws none).
	timeline string
}

// simResult is one protocol's summary; its JSON form is stable for scripts.
// It shares check's shape: protocol, laws, elapsed_seconds and violations
// (each with law, detail and length) mean the same in both.
type simResult struct {
	Protocol       string         `json:"protocol"`
	Runs           int            `json:"runs"`
	Steps          int            `json:"steps"`
	Rounds         int            `json:"rounds"`
	Laws           []string       `json:"laws"`
	ElapsedSeconds float64        `json:"elapsed_seconds"`
	Violations     []simViolation `json:"violations"`
	Unconverged    int            `json:"unconverged"`
	Seed           uint64         `json:"seed"`
	// TimeJudged counts the runs Timely's time clause judged (their
	// network lost, duplicated and held up nothing), and SlowestSeconds
	// is the longest any of them took, once quiet, to stop changing.
	TimeJudged     int     `json:"time_judged"`
	SlowestSeconds float64 `json:"slowest_seconds"`
}

// simViolation is a law broken in one run: the run, its seed (rerun it
// with --seed SEED --runs 1) and how many actions it took.
type simViolation struct {
	Law    string `json:"law"`
	Detail string `json:"detail"`
	Run    int    `json:"run"`
	Seed   uint64 `json:"seed"`
	Length int    `json:"length"`
	// Reproduce is the command that runs this run alone.
	Reproduce string `json:"reproduce"`
	// Timeline is the SVG of the run's ownership timeline (--timeline).
	Timeline string `json:"timeline,omitempty"`
}

func newRandomCmd() *cobra.Command {
	var o randomOptions
	c := &cobra.Command{
		Use:   "random",
		Short: "Sample every protocol with seeded random runs (longer paths than check explores) and print a summary",
		Long: `random drives each protocol's closed world (coordinator, members, network,
timers) through seeded random runs of joins, leaves, crashes, restarts,
subscription changes and lost and duplicated messages, checks every safety
law after every step, then lets the environment fall quiet and checks that
every subscribed resource ends up owned by exactly one current member,
balanced as the protocol's assignor promises. A classic static member that
restarted with a new subscription keeps the assignment made for its old
one, as in Kafka (no rebalance for a static rejoin that leaves the protocol
vote unchanged); such a member is asked to rejoin once quiet, and the group
must converge after that.

It complements check: check explores every state within small bounds;
random samples much longer paths with a larger environment (four members,
slow networks where timers fire while messages are in flight).

Once quiet, the group must also stop changing within the time its protocol
states (Timely's time clause: rounds of a heartbeat interval, plus the
delays the protocol takes on purpose), but only a run whose network lost,
duplicated and held up nothing is judged on it: each of those may cost one
of the protocol's timeouts. --prompt gives every run such a network (in
order, faster than every timer, no loss, no duplicate), so every run is
judged.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRandom(cmd.OutOrStdout(), o) },
	}
	f := c.Flags()
	f.StringVar(&o.protocol, "protocol", "all", "eager|cooperative|deferred|incremental|nextgen|all")
	f.IntVar(&o.runs, "runs", 1000, "random runs per protocol")
	f.IntVar(&o.steps, "steps", 80, "actions per run before the environment falls quiet")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the first run; run i uses seed+i")
	f.StringSliceVar(&o.faults, "fault", nil, "turn on a named fault switch (repeatable); see --list-faults")
	f.BoolVar(&o.listFaults, "list-faults", false, "list the fault switches and exit")
	f.BoolVar(&o.json, "json", false, "print one JSON object per protocol instead of a table")
	f.BoolVar(&o.connectors, "connectors", false, "deferred and incremental over Connect's resources: connector T with 3 tasks, U with 2 (--protocol all runs those two)")
	f.BoolVar(&o.prompt, "prompt", false, "a prompt network: in order, faster than every timer, nothing lost or duplicated (every run judged on Timely's time bound)")
	f.StringVar(&o.timeline, "timeline", "", "draw each failing run's ownership timeline (one lane per resource, simulated time across) as an SVG into this directory")
	return c
}

func runRandom(out io.Writer, o randomOptions) error {
	if o.listFaults {
		listFaults(out)
		return nil
	}
	protocols, err := selectProtocols(o.protocol)
	if err != nil {
		return err
	}
	if o.runs < 1 || o.steps < 1 {
		return usageError{fmt.Errorf("--runs and --steps must be at least 1 (got %d and %d)", o.runs, o.steps)}
	}
	if o.connectors {
		if o.protocol == "all" {
			protocols = []string{"deferred", "incremental"}
		} else if o.protocol != "deferred" && o.protocol != "incremental" {
			return usageError{fmt.Errorf("--connectors: only the Connect designs (deferred, incremental) run connectors, not %s", o.protocol)}
		}
	}
	faults, ngFaults, err := parseFaults(o.faults)
	if err != nil {
		return err
	}
	if d := deliveryFaults(o.faults); d != 0 {
		return usageError{fmt.Errorf("--fault %s: a delivery fault needs records, which only check has (--records)", d)}
	}
	var results []simResult
	failed := false
	for _, p := range protocols {
		var r simResult
		var err error
		if p == "nextgen" {
			r, err = randomNextgen(o, ngFaults)
		} else {
			r, err = randomClassic(p, o, faults)
		}
		if err != nil {
			return err
		}
		if len(r.Violations) > 0 || r.Unconverged > 0 {
			failed = true
		}
		results = append(results, r)
		if !o.json && isTerminal(os.Stderr) {
			fmt.Fprintf(os.Stderr, "\r%-12s %d runs done in %.1fs          \n", p, r.Runs, r.ElapsedSeconds)
		}
	}
	if o.json {
		enc := json.NewEncoder(out)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
	} else {
		printSimTable(out, results)
	}
	if failed {
		return errViolation
	}
	return nil
}

func printSimTable(out io.Writer, results []simResult) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "protocol\truns\tsteps\trounds\tlaws checked\tviolations\tunconverged\ttime\tresult")
	for _, r := range results {
		res := "ok"
		if len(r.Violations) > 0 || r.Unconverged > 0 {
			res = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%.1fs\t%s\n", r.Protocol, r.Runs, r.Steps, r.Rounds, len(r.Laws), len(r.Violations), r.Unconverged, r.ElapsedSeconds, res)
	}
	tw.Flush()
	for _, r := range results {
		for _, v := range r.Violations {
			fmt.Fprintf(out, "%s run %d: %s after %d actions: %s\n  reproduce: %s\n", r.Protocol, v.Run, v.Law, v.Length, v.Detail, v.Reproduce)
			if v.Timeline != "" {
				fmt.Fprintf(out, "  timeline: %s\n", v.Timeline)
			}
		}
	}
}

// simRun is one protocol's random-run setup: a fresh world per run, the
// environment's bounds, how long the environment takes to fall quiet,
// the balance the protocol promises, how to count its rounds, and what
// to do with a quiet group that has not converged for a documented
// reason.
type simRun[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any] struct {
	newWorld func() (*core.World[M, T, C, P], error)
	bounds   core.Bounds[P]
	horizon  node.Millis
	balance  core.Balance
	rounds   func(*core.World[M, T, C, P]) int
	// repair, when not nil, is run on a quiet world that has not
	// converged for a reason the family documents (a static member's
	// stale assignment: world.RejoinStaleStatic); it returns what it did,
	// "" when nothing, and the run must then settle and converge.
	repair core.Repair[M, T, C, P]
}

// randomLaws names what random checks: every safety law after every
// step (with the coordinator's invariants), and once the environment is
// quiet, that it stays quiet and the group converges.
var randomLaws = []spec.Law{
	spec.ExclusiveOwnership, spec.SubscribedOnly, spec.ExistingOnly, spec.MonotonicGeneration,
	spec.AssignedOnce, spec.KnownMembersOnly, spec.CooperativeHandoff, core.CoordinatorInvariant,
	spec.Timely, spec.NoSpuriousLoss, spec.StableWhenBalanced, spec.NoNeedlessWait, "Quiescence", spec.EventuallyConverged,
}

// randomRuns runs o.runs seeded random runs of protocol's world: run i
// uses seed o.seed+i.
func randomRuns[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](protocol string, o randomOptions, run simRun[M, T, C, P]) (simResult, error) {
	r := simResult{Protocol: protocol, Seed: o.seed, Violations: []simViolation{}}
	for _, l := range randomLaws {
		r.Laws = append(r.Laws, string(l))
	}
	if o.prompt {
		run.bounds = run.bounds.PromptNetwork()
	}
	start := time.Now()
	last := start
	progress := !o.json && isTerminal(os.Stderr)
	for i := range o.runs {
		rng := rand.New(rand.NewPCG(o.seed+uint64(i), 0x5eed))
		w, err := run.newWorld()
		if err != nil {
			return r, err
		}
		var u core.Used
		trail := w.RandomWalk(run.bounds, &u, o.steps, rng.IntN)
		r.Steps += len(trail)
		settled, repaired := true, ""
		if len(w.Violations) == 0 {
			// Let the environment fall quiet: crashed members stay down,
			// everything else runs until every timer has had its turn.
			if settled, repaired, err = w.SettleRepaired(run.horizon, 1000, run.balance, run.repair); err != nil {
				return r, err
			}
		}
		r.Rounds += run.rounds(w)
		fail := func(law, detail string) {
			if repaired != "" {
				detail += " (after " + repaired + ")"
			}
			seed := o.seed + uint64(i)
			v := simViolation{Law: law, Detail: detail, Run: i, Seed: seed, Length: len(trail),
				Reproduce: fmt.Sprintf("rebalance random --protocol %s --seed %d --runs 1 --steps %d%s%s%s", protocol, seed, o.steps, boolFlag("prompt", o.prompt), boolFlag("connectors", o.connectors), repeatedFlags("fault", o.faults))}
			if o.timeline != "" && err == nil {
				v.Timeline = filepath.Join(o.timeline, fmt.Sprintf("%s-seed%d-%s.svg", protocol, seed, law))
				err = drawRandomRun(v.Timeline, fmt.Sprintf("%s, seed %d: %s broken", protocol, seed, law), run, trail)
			}
			r.Violations = append(r.Violations, v)
		}
		switch {
		case !settled:
			r.Unconverged++
			fail("Quiescence", "messages never stopped once the environment fell quiet: a livelock")
		case len(w.Violations) > 0:
			fail(string(w.Violations[0].Law), w.Violations[0].String())
		default:
			if vs := w.CheckConverged(run.balance); len(vs) > 0 {
				r.Unconverged++
				fail(string(vs[0].Law), vs[0].String())
			} else if vs := w.CheckTimeBound(); len(vs) > 0 {
				fail(string(vs[0].Law), vs[0].String())
			} else if w.TimeJudged() {
				r.TimeJudged++
				r.SlowestSeconds = max(r.SlowestSeconds, w.SinceQuiet().Seconds())
			}
		}
		if err != nil {
			return r, err
		}
		r.Runs++
		if progress && time.Since(last) > 200*time.Millisecond {
			last = time.Now()
			fmt.Fprintf(os.Stderr, "\r%-12s runs %d/%d  steps %d  rounds %d  %.0f steps/s", protocol, i+1, o.runs, r.Steps, r.Rounds, float64(r.Steps)/time.Since(start).Seconds())
		}
	}
	r.ElapsedSeconds = time.Since(start).Seconds()
	return r, nil
}

// drawRandomRun draws a failing run's ownership timeline into path (SVG):
// it replays trail on a fresh world, taking the ownership view after each
// action, and once more after the environment falls quiet as the run did,
// at the simulated time of each.
func drawRandomRun[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](path, title string, run simRun[M, T, C, P], trail []core.Action) error {
	w, err := run.newWorld()
	if err != nil {
		return err
	}
	var u core.Used
	seconds := func() float64 { return float64(w.Now) / 1000 }
	steps := []timeline.Step{{At: seconds(), View: w.View()}}
	for _, a := range trail {
		if err := w.Apply(a, run.bounds, &u); err != nil {
			return fmt.Errorf("timeline: replaying %s: %v", a, err)
		}
		steps = append(steps, timeline.Step{At: seconds(), View: w.View()})
	}
	if len(w.Violations) == 0 {
		if _, _, err := w.SettleRepaired(run.horizon, 1000, run.balance, run.repair); err != nil {
			return err
		}
		steps = append(steps, timeline.Step{At: seconds(), View: w.View()})
	}
	t := timeline.FromViews(title, steps, seconds()+1)
	t.XLabel = "simulated seconds"
	return writeTimeline(path, t)
}

// boolFlag is " --name" when on.
func boolFlag(name string, on bool) string {
	if on {
		return " --" + name
	}
	return ""
}

// randomClassic runs a classic protocol (classicSimRun).
func randomClassic(protocol string, o randomOptions, faults classic.Faults) (simResult, error) {
	run, err := classicSimRun(protocol, o.connectors, faults)
	if err != nil {
		return simResult{}, err
	}
	return randomRuns(protocol, o, run)
}

// classicSimRun is a classic protocol's random-run setup: the leader's
// assignment rounds are its rounds, and a static member left with an
// assignment made for its old subscription rejoins once the group is
// quiet (world.RejoinStaleStatic).
//
// With connectors, a Connect design runs over world.ConnectorTopics and
// converges to what Connect's placement promises, connectors and tasks
// each balanced (spec.CheckConnectKindBalance; per connector, the model
// checker judges it).
func classicSimRun(protocol string, connectors bool, faults classic.Faults) (simRun[classic.Message, classic.Timer, classic.Callback, classic.MemberConfig], error) {
	b, err := world.DefaultBounds(protocol, faults)
	topics, balance := world.DefaultTopics(), world.BalanceOf(protocol)
	if connectors {
		b, err = world.ConnectorBounds(protocol, faults)
		topics, balance = world.ConnectorTopics(), spec.CheckConnectKindBalance
	}
	return simRun[classic.Message, classic.Timer, classic.Callback, classic.MemberConfig]{
		newWorld: func() (*world.World, error) {
			return world.New(classic.CoordinatorConfig{GroupID: "g", Faults: faults}, topics)
		},
		bounds: b, horizon: 200000, balance: balance,
		rounds: func(w *world.World) int { return len(w.Rounds) },
		repair: world.RejoinStaleStatic,
	}, err
}

// randomNextgen runs the next-gen protocol: its rounds are the target
// epochs the coordinator reached.
func randomNextgen(o randomOptions, faults nextgen.Fault) (simResult, error) {
	cfg := ngworld.DefaultCoordinatorConfig()
	cfg.Faults = faults
	return randomRuns("nextgen", o, simRun[nextgen.Message, nextgen.Timer, nextgen.Callback, nextgen.MemberConfig]{
		newWorld: func() (*ngworld.World, error) { return ngworld.New(cfg) },
		bounds:   ngworld.DefaultBounds(faults), horizon: 300000, balance: ngworld.DefaultBalance(),
		rounds: func(w *ngworld.World) int { return int(ngworld.CoordinatorOf(w).TargetEpoch()) },
	})
}

// isTerminal reports whether f is a terminal; the progress line, which
// rewrites itself with carriage returns, is shown only there.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
