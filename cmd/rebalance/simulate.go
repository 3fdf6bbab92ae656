package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"text/tabwriter"
	"time"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/spf13/cobra"
)

type simulateOptions struct {
	protocol   string
	runs       int
	steps      int
	seed       uint64
	faults     []string
	listFaults bool
	json       bool
}

// simResult is one protocol's summary; its JSON form is stable for scripts.
type simResult struct {
	Protocol       string         `json:"protocol"`
	Runs           int            `json:"runs"`
	Steps          int            `json:"steps"`
	Rounds         int            `json:"rounds"`
	Laws           string         `json:"laws"`
	ElapsedSeconds float64        `json:"elapsed_seconds"`
	Violations     []simViolation `json:"violations"`
	Unconverged    int            `json:"unconverged"`
	Seed           uint64         `json:"seed"`
}

type simViolation struct {
	Law     string `json:"law"`
	Detail  string `json:"detail"`
	Run     int    `json:"run"`
	Actions int    `json:"counterexample_length"`
}

func newSimulateCmd() *cobra.Command {
	var o simulateOptions
	c := &cobra.Command{
		Use:   "simulate",
		Short: "Sample every protocol with seeded random runs (longer paths than check explores) and print a summary",
		Long: `simulate drives each protocol's closed world (coordinator, members, network,
timers) through seeded random runs of joins, leaves, crashes, restarts,
subscription changes and lost and duplicated messages, checks every safety
law after every step, then lets the environment fall quiet and checks that
every subscribed resource ends up owned by exactly one current member.

It complements check: check explores every state within small bounds;
simulate samples much longer paths with a larger environment (four members,
slow networks where timers fire while messages are in flight).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSimulate(cmd.OutOrStdout(), o) },
	}
	f := c.Flags()
	f.StringVar(&o.protocol, "protocol", "all", "eager|cooperative|deferred|incremental|nextgen|all")
	f.IntVar(&o.runs, "runs", 1000, "random runs per protocol")
	f.IntVar(&o.steps, "steps", 80, "actions per run before the environment falls quiet")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the first run; run i uses seed+i")
	f.StringSliceVar(&o.faults, "fault", nil, "turn on a named fault switch (repeatable); see --list-faults")
	f.BoolVar(&o.listFaults, "list-faults", false, "list the fault switches and exit")
	f.BoolVar(&o.json, "json", false, "print one JSON object per protocol instead of a table")
	return c
}

func runSimulate(out io.Writer, o simulateOptions) error {
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
	faults, ngFaults, err := parseFaults(o.faults)
	if err != nil {
		return err
	}
	var results []simResult
	failed := false
	for _, p := range protocols {
		var r simResult
		var err error
		if p == "nextgen" {
			r, err = simulateNextgen(o, ngFaults)
		} else {
			r, err = simulateClassic(p, o, faults)
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
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%d\t%d\t%.1fs\t%s\n", r.Protocol, r.Runs, r.Steps, r.Rounds, r.Laws, len(r.Violations), r.Unconverged, r.ElapsedSeconds, res)
	}
	tw.Flush()
	for _, r := range results {
		for _, v := range r.Violations {
			fmt.Fprintf(out, "%s run %d (seed %d): %s after %d actions: %s\n", r.Protocol, v.Run, r.Seed+uint64(v.Run), v.Law, v.Actions, v.Detail)
		}
	}
}

func simulateClassic(protocol string, o simulateOptions, faults classic.Faults) (simResult, error) {
	r := simResult{Protocol: protocol, Seed: o.seed, Laws: "state,step,round,coverage,balance"}
	b, err := world.DefaultBounds(protocol, faults)
	if err != nil {
		return r, err
	}
	start := time.Now()
	last := start
	progress := !o.json && isTerminal(os.Stderr)
	for i := range o.runs {
		rng := rand.New(rand.NewPCG(o.seed+uint64(i), 0x5eed))
		w, err := world.New(classic.CoordinatorConfig{GroupID: "g", Faults: faults}, world.DefaultTopics())
		if err != nil {
			return r, err
		}
		var u world.Used
		trail := w.RandomWalk(b, &u, o.steps, rng.IntN)
		r.Steps += len(trail)
		settled := true
		if len(w.Violations) == 0 {
			// Let the environment fall quiet: crashed members stay down,
			// everything else runs until every timer has had its turn.
			settled = w.Settle(200000, 1000)
		}
		r.Rounds += len(w.Rounds)
		if !settled {
			r.Unconverged++
			r.Violations = append(r.Violations, simViolation{Law: "Quiescence", Detail: "messages never stopped: a livelock once the environment fell quiet", Run: i, Actions: len(trail)})
		} else if len(w.Violations) > 0 {
			v := w.Violations[0]
			r.Violations = append(r.Violations, simViolation{Law: string(v.Law), Detail: v.String(), Run: i, Actions: len(trail)})
		} else if vs := w.CheckConverged(world.BalanceOf(protocol)); len(vs) > 0 {
			r.Unconverged++
			r.Violations = append(r.Violations, simViolation{Law: string(vs[0].Law), Detail: vs[0].String(), Run: i, Actions: len(trail)})
		}
		r.Runs++
		if progress && time.Since(last) > 200*time.Millisecond {
			last = time.Now()
			el := time.Since(start).Seconds()
			fmt.Fprintf(os.Stderr, "\r%-12s runs %d/%d  steps %d  rounds %d  %.0f steps/s", protocol, i+1, o.runs, r.Steps, r.Rounds, float64(r.Steps)/el)
		}
	}
	r.ElapsedSeconds = time.Since(start).Seconds()
	return r, nil
}

// isTerminal reports whether f is a terminal; the progress line, which
// rewrites itself with carriage returns, is shown only there.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// simulateNextgen is simulateClassic for the next-gen world: the same random
// runs, every law after every step plus the coordinator's invariants, and
// coverage and balance once the environment is quiet.
func simulateNextgen(o simulateOptions, faults nextgen.Fault) (simResult, error) {
	r := simResult{Protocol: "nextgen", Seed: o.seed, Laws: "state,step,coordinator,coverage,balance"}
	b := ngworld.DefaultBounds(faults)
	cfg := ngworld.DefaultCoordinatorConfig()
	cfg.Faults = faults
	start := time.Now()
	for i := range o.runs {
		rng := rand.New(rand.NewPCG(o.seed+uint64(i), 0x5eed))
		w, err := ngworld.New(cfg)
		if err != nil {
			return r, err
		}
		var u ngworld.Used
		trail := w.RandomWalk(b, &u, o.steps, rng.IntN)
		r.Steps += len(trail)
		settled := true
		if len(w.Violations) == 0 {
			settled = w.Settle(300000, 1000)
		}
		r.Rounds += int(ngworld.CoordinatorOf(w).TargetEpoch())
		switch {
		case !settled:
			r.Unconverged++
			r.Violations = append(r.Violations, simViolation{Law: "Quiescence", Detail: "messages never stopped once the environment fell quiet", Run: i, Actions: len(trail)})
		case len(w.Violations) > 0:
			v := w.Violations[0]
			r.Violations = append(r.Violations, simViolation{Law: string(v.Law), Detail: v.String(), Run: i, Actions: len(trail)})
		default:
			if vs := ngworld.CheckConverged(w); len(vs) > 0 {
				r.Unconverged++
				r.Violations = append(r.Violations, simViolation{Law: string(vs[0].Law), Detail: vs[0].String(), Run: i, Actions: len(trail)})
			}
		}
		r.Runs++
	}
	r.ElapsedSeconds = time.Since(start).Seconds()
	return r, nil
}
