// Package oracle judges a trace (package spec/trace) of an implementation
// nobody here wrote: every law of package spec that the trace carries
// enough to judge, and the linearizability of its ownership (porcupine,
// through checker/ownership). Each law gets a verdict: held, broken at a
// line of the trace, or not judged, with the reason; a law is never
// reported as held when the trace could not show it broken.
// `rebalance trace check` prints the same report; Require is the one-line
// form for a client's own tests. docs/oracle.md is the user's guide.
package oracle

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/rebalance-ref/rebalance/checker/ownership"
	"github.com/rebalance-ref/rebalance/spec"
	"github.com/rebalance-ref/rebalance/spec/trace"
)

// Status is a law's verdict.
type Status string

// The verdicts.
const (
	Held      Status = "held"
	Broken    Status = "broken"
	NotJudged Status = "not judged"
)

// Linearizable is the name of the linearizability verdict among the laws.
const Linearizable spec.Law = "Linearizable"

// Verdict is the judgement of one law.
type Verdict struct {
	Law    spec.Law `json:"law"`
	Status Status   `json:"status"`
	// Line is the trace line at which the law first broke (the first
	// event of the instant it broke at; for a convergence law, the quiet
	// event), 0 unless Broken.
	Line int `json:"line,omitempty"`
	// Count is how many violations of the law were found (Broken only).
	Count int `json:"count,omitempty"`
	// Detail says what broke (Broken), what was judged with which reading
	// (Held), or why the law was not judged (NotJudged).
	Detail string `json:"detail,omitempty"`
}

// Options configures Check.
type Options struct {
	// Name names the trace in the report (a file name, a test name).
	Name string
	// OutDir is where the porcupine visualization (HTML) and the ownership
	// timeline (SVG) of a failing trace are written; "" writes none.
	OutDir string
	// Timeout bounds the linearizability check (0: none); a check that
	// runs out of time leaves Linearizable not judged.
	Timeout time.Duration
	// Limits bound what CheckFile reads (zero: trace's defaults).
	Limits trace.Limits
}

// Report is the judgement of one trace.
type Report struct {
	Name     string        `json:"name"`
	Protocol string        `json:"protocol,omitempty"`
	Events   int           `json:"events"`
	Carried  trace.Carried `json:"carried"`
	Verdicts []Verdict     `json:"verdicts"`
	HTML     string        `json:"html,omitempty"`
	// Replay is the command that judges the trace again: rebalance replay
	// with the trace's name (CheckFile: its path, unless Options.Name
	// names it otherwise).
	Replay string `json:"replay,omitempty"`
	SVG    string `json:"svg,omitempty"`
	Views  int    `json:"views"`
	Ops    int    `json:"operations"`
}

// OK reports whether no law is broken. Laws not judged do not make a
// report fail; the report says which they are.
func (r Report) OK() bool {
	for _, v := range r.Verdicts {
		if v.Status == Broken {
			return false
		}
	}
	return true
}

// Verdict returns the verdict on law, and whether the report has one.
func (r Report) Verdict(law spec.Law) (Verdict, bool) {
	for _, v := range r.Verdicts {
		if v.Law == law {
			return v, true
		}
	}
	return Verdict{}, false
}

// CheckFile reads the trace at path (trace.Read with Options.Limits) and
// checks it; Options.Name defaults to path.
func CheckFile(path string, opts Options) (Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return Report{}, err
	}
	defer f.Close()
	tr, err := trace.Read(f, opts.Limits)
	if err != nil {
		return Report{}, fmt.Errorf("%s: %w", path, err)
	}
	if opts.Name == "" {
		opts.Name = path
	}
	rep, err := Check(tr, opts)
	rep.Replay = "rebalance replay " + opts.Name
	return rep, err
}

// Check judges tr. It returns an error only when a failing trace's
// pictures cannot be written (with the otherwise complete report); a
// broken law is in the report.
func Check(tr *trace.Trace, opts Options) (Report, error) {
	h, carried := tr.History()
	rep := Report{Name: opts.Name, Protocol: tr.Header.Protocol, Events: len(tr.Events), Carried: carried}
	if err := h.Validate(); err != nil {
		// trace.Read makes only valid histories; a Trace built by hand
		// may not be one.
		return rep, fmt.Errorf("oracle %q: %w", opts.Name, err)
	}
	j := newJudge(tr, h, carried)
	rep.Verdicts, rep.Views = j.laws()

	var lin ownership.Result
	if carried.Ownership {
		lin = ownership.Linearize(h, opts.Timeout)
		rep.Ops = lin.Operations
	}
	rep.Verdicts = append(rep.Verdicts, linearizability(carried, lin))
	if rep.OK() || opts.OutDir == "" {
		return rep, nil
	}
	return rep, rep.pictures(tr, h, lin, j, opts)
}

// linearizability turns porcupine's answer into a verdict.
func linearizability(c trace.Carried, lin ownership.Result) Verdict {
	v := Verdict{Law: Linearizable}
	switch {
	case !c.Ownership:
		v.Status, v.Detail = NotJudged, "no ownership events (assigned, revoked, lost)"
	case lin.Linearizable == porcupine.Ok:
		v.Status, v.Detail = Held, fmt.Sprintf("porcupine, %s, one sub-history per resource", plural(lin.Operations, "operation"))
	case lin.Linearizable == porcupine.Unknown:
		v.Status, v.Detail = NotJudged, "porcupine ran out of time"
	default:
		v.Status, v.Count = Broken, len(lin.IllegalResources)
		first := 0
		for i, o := range lin.IllegalAt {
			if v.Line == 0 || o.Source < v.Line {
				v.Line, first = o.Source, i
			}
		}
		o := lin.IllegalAt[first]
		v.Detail = fmt.Sprintf("no order of the callbacks within their call and return times explains %s's ownership: %s's %s %s (line %d) cannot be placed",
			lin.IllegalResources[first], o.Process, o.Kind, o.Resources, o.Source)
		if n := len(lin.IllegalResources); n > 1 {
			v.Detail += fmt.Sprintf(" (and %d more resources)", n-1)
		}
	}
	return v
}

// Require checks the trace at path and fails t with the report when a law
// is broken or the trace cannot be read: one line in a client's test. The
// pictures of a failing trace go to the directory named by
// $REBALANCE_ORACLE_OUT, or to t.TempDir() (removed after the test) when
// it is unset. It returns the report of a trace that breaks no law.
func Require(t testing.TB, path string) Report {
	t.Helper()
	opts := Options{OutDir: os.Getenv("REBALANCE_ORACLE_OUT")}
	if opts.OutDir == "" {
		opts.OutDir = t.TempDir()
	}
	rep, err := CheckFile(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatal(rep.String())
	}
	return rep
}
