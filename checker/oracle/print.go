package oracle

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/rebalance-ref/rebalance/checker/ownership"
	"github.com/rebalance-ref/rebalance/checker/timeline"
	"github.com/rebalance-ref/rebalance/spec"
	"github.com/rebalance-ref/rebalance/spec/trace"
)

// String prints the report deterministically: a verdict line, then one
// line per law (its verdict, the line it broke at, and the detail), then
// the pictures written.
func (r Report) String() string {
	var b strings.Builder
	verdict := "OK"
	if !r.OK() {
		verdict = "FAIL"
	}
	protocol := r.Protocol
	if protocol == "" {
		protocol = "not named"
	}
	fmt.Fprintf(&b, "trace %s: %s (protocol %s; %s, %d on the wire; %s, %s)\n",
		r.Name, verdict, protocol, plural(r.Events, "event"), r.Carried.Wire, plural(r.Views, "view"), plural(r.Ops, "porcupine operation"))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, v := range r.Verdicts {
		where := ""
		if v.Status == Broken {
			where = fmt.Sprintf("line %d", v.Line)
			if v.Count > 1 {
				where += fmt.Sprintf(" (%d)", v.Count)
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", v.Law, v.Status, where, v.Detail)
	}
	tw.Flush()
	if r.SVG != "" {
		fmt.Fprintf(&b, "  ownership timeline: %s\n", r.SVG)
	}
	if r.HTML != "" {
		fmt.Fprintf(&b, "  porcupine visualization: %s\n", r.HTML)
	}
	if !r.OK() && r.Replay != "" {
		fmt.Fprintf(&b, "  replay: %s\n", r.Replay)
	}
	return b.String()
}

// pictures writes the ownership timeline of a failing trace (SVG, the
// first line of each broken law marked) and, when porcupine found it
// illegal, porcupine's visualization (HTML), into opts.OutDir.
func (r *Report) pictures(tr *trace.Trace, h spec.History, lin ownership.Result, j *judge, opts Options) error {
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return fmt.Errorf("oracle %q: pictures: %w", opts.Name, err)
	}
	base := filepath.Join(opts.OutDir, ownership.FileSafe(filepath.Base(opts.Name)))
	tl := r.timeline(tr, h)
	if err := writeFile(base+".svg", func(w io.Writer) error { return tl.WriteSVG(w, 0, 0) }); err != nil {
		return fmt.Errorf("oracle %q: timeline: %w", opts.Name, err)
	}
	r.SVG = base + ".svg"
	if v, _ := r.Verdict(Linearizable); v.Status != Broken {
		return nil
	}
	if err := writeFile(base+".html", func(w io.Writer) error { return ownership.WriteHTML(w, h, lin, j.found) }); err != nil {
		return fmt.Errorf("oracle %q: visualization: %w", opts.Name, err)
	}
	r.HTML = base + ".html"
	return nil
}

// writeFile creates path and writes it with write, reporting the first
// error of the two and of closing it.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Timeline returns the ownership timeline of tr as checked in r: one lane
// per resource, time in seconds, each broken law marked at its line, and
// the quiet points. The oracle draws it for a failing trace; it can be
// drawn for any trace.
func (r Report) Timeline(tr *trace.Trace) timeline.Timeline {
	h, _ := tr.History()
	return r.timeline(tr, h)
}

func (r Report) timeline(tr *trace.Trace, h spec.History) timeline.Timeline {
	var steps []timeline.Step
	end := 0.0
	for _, e := range tr.Events {
		end = max(end, seconds(tr.Nanos(e.T)))
	}
	for tv := range ownership.ViewSeq(h) {
		steps = append(steps, timeline.Step{At: seconds(tv.At), View: tv.View})
	}
	tl := timeline.FromViews(fmt.Sprintf("%s: ownership (pale: fenced zombies)", filepath.Base(r.Name)), steps, end)
	tl.XLabel = "time (s)"
	for _, v := range r.Verdicts {
		if v.Status == Broken {
			if t, ok := timeOfLine(tr, v.Line); ok {
				tl.Marks = append(tl.Marks, timeline.Mark{At: t, Label: fmt.Sprintf("%s (line %d)", v.Law, v.Line), Alarm: true})
			}
		}
	}
	for _, e := range tr.Events {
		if e.Kind == trace.Quiet {
			tl.Marks = append(tl.Marks, timeline.Mark{At: seconds(tr.Nanos(e.T)), Label: "quiet"})
		}
	}
	return tl
}

// seconds converts a trace time to seconds.
func seconds(t spec.Nanos) float64 { return float64(t) / 1e9 }

// timeOfLine returns the time of the event at line n: when a callback was
// called, when anything else happened.
func timeOfLine(tr *trace.Trace, n int) (float64, bool) {
	for _, e := range tr.Events {
		if e.Line == n {
			if e.Call != nil {
				return seconds(tr.Nanos(*e.Call)), true
			}
			return seconds(tr.Nanos(e.T)), true
		}
	}
	return 0, false
}
