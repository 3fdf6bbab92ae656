package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rebalance-ref/rebalance/checker/oracle"
	"github.com/rebalance-ref/rebalance/spec/trace"
	"github.com/spf13/cobra"
)

func newTraceCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "trace",
		Short: "Judge traces of other implementations by the laws (the oracle)",
	}
	c.AddCommand(newTraceCheckCmd())
	return c
}

type traceCheckOptions struct {
	asJSON  bool
	out     string
	timeout time.Duration
	limits  trace.Limits
}

func newTraceCheckCmd() *cobra.Command {
	var o traceCheckOptions
	c := &cobra.Command{
		Use:   "check FILE...",
		Short: "Check traces (newline-delimited JSON, docs/oracle.md) against every law they carry enough to judge",
		Long: `check reads each trace (the format is in docs/oracle.md), refuses a malformed
one whole with the line and what is wrong, and judges the rest: every law of
package spec that the trace carries enough to judge (exclusive ownership with
the protocol's fencing rules, subscribed and existing resources only, monotonic
generations and epochs, cooperative hand-off, coverage and balance at a quiet
point, bounded rounds after it) and the linearizability of its ownership
(porcupine, one sub-history per resource). Each law is held, broken at a line
of the trace, or not judged with the reason: a law is never reported as held
when the trace could not show it broken.

For a failing trace it writes, into --out, an SVG ownership timeline (one lane
per resource, the break marked) and, when porcupine found no linearization,
porcupine's HTML visualization.

Exit status: 0 when no law is broken in any trace, 1 when one is, 2 when a
trace cannot be read or on a usage error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error { return checkTraces(cmd, files, o) },
	}
	f := c.Flags()
	f.BoolVar(&o.asJSON, "json", false, "print one JSON report per trace, one per line")
	f.StringVar(&o.out, "out", "", "directory for the pictures of failing traces (default $TMPDIR/rebalance-trace)")
	f.DurationVar(&o.timeout, "timeout", time.Minute, "bound on porcupine's check of each trace (0: none); past it, linearizability is not judged")
	f.IntVar(&o.limits.MaxEvents, "max-events", trace.DefaultMaxEvents, "refuse a trace of more events")
	f.Int64Var(&o.limits.MaxBytes, "max-bytes", trace.DefaultMaxBytes, "refuse a trace of more bytes")
	return c
}

// checkTraces judges each trace in files and prints its report (text or
// JSON): errViolation when one breaks a law, errUnreadable when one cannot
// be read (each reported on stderr).
func checkTraces(cmd *cobra.Command, files []string, o traceCheckOptions) error {
	if o.out == "" {
		o.out = filepath.Join(os.TempDir(), "rebalance-trace")
	}
	out := cmd.OutOrStdout()
	failed := false
	var unreadable error
	for _, f := range files {
		rep, err := oracle.CheckFile(f, oracle.Options{OutDir: o.out, Timeout: o.timeout, Limits: o.limits})
		if err != nil && rep.Name == "" {
			unreadable = errors.Join(unreadable, err)
			fmt.Fprintf(cmd.ErrOrStderr(), "rebalance: trace %v\n", err)
			continue
		}
		if err != nil {
			return err
		}
		failed = failed || !rep.OK()
		if o.asJSON {
			b, err := json.Marshal(rep)
			if err != nil {
				return err
			}
			fmt.Fprintln(out, string(b))
			continue
		}
		fmt.Fprint(out, rep)
	}
	switch {
	case unreadable != nil:
		return errUnreadable
	case failed:
		return errViolation
	}
	return nil
}
