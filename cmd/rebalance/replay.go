package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rebalance-ref/rebalance/checker/timeline"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/script"
	"github.com/rebalance-ref/rebalance/model/sim"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/spf13/cobra"
)

func newReplayCmd() *cobra.Command {
	var out, picture string
	c := &cobra.Command{
		Use:   "replay FILE",
		Short: "Replay a counterexample file (rebalance check --scenarios) or judge a trace again",
		Long: `replay takes what a failure left behind and plays it again:

  - a counterexample file written by rebalance check --scenarios: its commands
    run on a fresh closed world of the protocol its first line names (with the
    bounds, fault switches and behaviour selectors it records), the replayed
    file is compared with the recorded one line by line, and the laws the
    replay breaks are listed;
  - a trace (its first line is a trace header): it is judged as rebalance
    trace check judges it.

A random-run failure replays with the command it prints (rebalance random
--seed N --runs 1 with its flags).

--timeline FILE draws a counterexample's ownership timeline (one lane per
resource, one colour per member, a step of the file per unit of the x axis),
the picture rebalance simulate and rebalance trace check draw, as SVG (or
PNG when FILE ends in .png).

Exit status: 0 when the replay breaks no law, 1 when it breaks one, 2 when the
file cannot be read or does not replay.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := os.ReadFile(args[0])
			if err != nil {
				return usageError{err}
			}
			if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
				return checkTraces(cmd, []string{args[0]}, traceCheckOptions{out: out, timeout: time.Minute})
			}
			return replayCounterexample(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], string(b), picture)
		},
	}
	c.Flags().StringVar(&out, "out", "", "for a trace: directory for the pictures of a failing trace (default $TMPDIR/rebalance-trace)")
	c.Flags().StringVar(&picture, "timeline", "", "for a counterexample: draw its ownership timeline into this file (.svg or .png)")
	return c
}

// replayCounterexample replays the counterexample file at path (text).
func replayCounterexample(out, errOut io.Writer, path, text, picture string) error {
	ce, err := script.ParseCounterexample(text)
	if err != nil {
		fmt.Fprintf(errOut, "rebalance: replay %s: %v\n", path, err)
		return errUnreadable
	}
	lines := append(slices.Clone(ce.Commands), "ownership", "check")
	comment := commentOf(text)
	var replayed string
	var broken []string
	var steps []timeline.Step
	if ce.Protocol == "nextgen" {
		replayed, broken, steps, err = replayOn(ngworld.NewScript(), comment, lines)
	} else {
		replayed, broken, steps, err = replayOn(classicworld.NewScript(), comment, lines)
	}
	if err != nil {
		fmt.Fprintf(errOut, "rebalance: replay %s: %v\n", path, err)
		return errUnreadable
	}
	if picture != "" {
		if err := drawReplay(picture, fmt.Sprintf("%s: %s broken", ce.Protocol, ce.Law), steps); err != nil {
			fmt.Fprintf(errOut, "rebalance: replay %s: %v\n", path, err)
			return errUnreadable
		}
	}
	fmt.Fprintf(out, "replay %s: protocol %s, %d commands; the file records %s broken\n", path, ce.Protocol, len(ce.Commands), ce.Law)
	if picture != "" {
		fmt.Fprintf(out, "  timeline: %s\n", picture)
	}
	if replayed == text {
		fmt.Fprintln(out, "  the replay prints exactly what the file records")
	} else {
		n, want, got := firstDifference(text, replayed)
		fmt.Fprintf(out, "  the replay differs from the file from line %d:\n    recorded: %s\n    replayed: %s\n", n, want, got)
	}
	if len(broken) == 0 {
		fmt.Fprintln(out, "  no law broken on the way (a convergence law is judged once the environment falls quiet: go test ./model/world -run TestCounterexamples)")
		return nil
	}
	for _, v := range broken {
		fmt.Fprintf(out, "  broken: %s\n", v)
	}
	return errViolation
}

// replayOn runs lines on s as a scenario file with comment, and returns
// the file it makes, the violations the world recorded, and the view after
// each command (At is the command's number), for the timeline.
func replayOn[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](s *core.Script[M, T, C, P], comment, lines []string) (string, []string, []timeline.Step, error) {
	var steps []timeline.Step
	run := func(cmd string, args []core.Arg) (string, error) {
		out, err := s.Run(cmd, args)
		if s.W != nil {
			steps = append(steps, timeline.Step{At: float64(len(steps) + 1), View: s.W.View()})
		}
		return out, err
	}
	text, err := script.File(comment, lines, run)
	if err != nil {
		return "", nil, nil, err
	}
	var broken []string
	if s.W != nil {
		for _, v := range s.W.Violations {
			broken = append(broken, v.String())
		}
	}
	return text, broken, steps, nil
}

// drawReplay draws the ownership timeline of a replay's steps into path:
// SVG, or PNG for a .png path.
func drawReplay(path, title string, steps []timeline.Step) error {
	if len(steps) == 0 {
		return fmt.Errorf("timeline: the file has no commands")
	}
	t := timeline.FromViews(title, steps, steps[len(steps)-1].At+1)
	t.XLabel = "step of the counterexample"
	return writeTimeline(path, t)
}

// writeTimeline draws t into path, PNG for a .png path and SVG otherwise,
// making path's directory if it is missing.
func writeTimeline(path string, t timeline.Timeline) error {
	format := "svg"
	if strings.HasSuffix(path, ".png") {
		format = "png"
	}
	var b bytes.Buffer
	if err := t.Write(&b, format, 0, 0); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// commentOf returns the comment lines that open text, without "# ".
func commentOf(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		c, ok := strings.CutPrefix(l, "#")
		if !ok {
			break
		}
		out = append(out, strings.TrimPrefix(c, " "))
	}
	return out
}

// firstDifference returns the first line (1-based) at which a and b
// differ, and the two lines there ("(end)" past the end of one).
func firstDifference(a, b string) (int, string, string) {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; ; i++ {
		x, y := "(end)", "(end)"
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y || (i >= len(la) && i >= len(lb)) {
			return i + 1, x, y
		}
	}
}
