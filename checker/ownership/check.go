package ownership

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/rebalance-ref/rebalance/spec"
)

// Options configures Check.
type Options struct {
	// Name says which history this is (a test name, say); it appears in the
	// report and in the visualization's file name.
	Name string
	// Balance is the balance law judged at a quiet end: spec.CheckBalance
	// when nil; pass spec.CheckTopicBalance for range-style assignors.
	Balance func(spec.View) []spec.Violation
	// Timeout bounds the linearizability check; zero means no bound. A
	// check that runs out of time is Unknown, which is not OK.
	Timeout time.Duration
	// HTMLDir is where the visualization of a non-linearizable history is
	// written (created if missing); os.TempDir() when empty.
	HTMLDir string
}

// Result is the judgement of one history.
type Result struct {
	// Name is Options.Name.
	Name string
	// Linearizable is porcupine's verdict: Ok, Illegal, or Unknown when the
	// check ran out of time.
	Linearizable porcupine.CheckResult
	// IllegalResources are the resources whose sub-history is not
	// linearizable, sorted (empty unless Linearizable is Illegal).
	IllegalResources []spec.Resource
	// IllegalAt holds, for each of IllegalResources, the observation of
	// the earliest operation (by call) that the longest partial
	// linearization of its sub-history leaves out: where the history
	// stops being explainable.
	IllegalAt []spec.Observation
	// HTMLPath is the visualization written for an Illegal verdict ("" if
	// none was written).
	HTMLPath string
	// Operations counts the porcupine operations.
	Operations int
	// Violations are the law violations, by instant (then in the laws'
	// order).
	Violations []Violation
	// Views counts the views the laws judged.
	Views int
	// CoordinatorObserved is the history's CoordinatorObserved; when false every live process counted as current, so
	// no zombie could be tolerated as fenced.
	CoordinatorObserved bool
	// ConvergenceJudged reports that the history has a Quiet observation,
	// so the convergence laws were judged at its end.
	ConvergenceJudged bool

	// info is porcupine's linearization info, for WriteHTML.
	info porcupine.LinearizationInfo
}

// OK reports whether the history is linearizable (Unknown is not OK) and
// breaks no law.
func (r Result) OK() bool {
	return r.Linearizable == porcupine.Ok && len(r.Violations) == 0
}

// maxReported bounds the violations String prints in full.
const maxReported = 10

// String prints the judgement deterministically: the verdict, porcupine's
// answer (with the illegal resources and the visualization's path), the
// laws' count, whether the coordinator was observed, then the first
// violations, each with its instant and the observations that made it.
func (r Result) String() string {
	var b strings.Builder
	verdict := "OK"
	if !r.OK() {
		verdict = "NOT OK"
	}
	fmt.Fprintf(&b, "ownership history %q: %s\n", r.Name, verdict)
	fmt.Fprintf(&b, "  linearizability (porcupine, %d operations): %s", r.Operations, r.Linearizable)
	switch r.Linearizable {
	case porcupine.Illegal:
		var rs []string
		for _, x := range r.IllegalResources {
			rs = append(rs, x.String())
		}
		fmt.Fprintf(&b, " on %s", strings.Join(rs, " "))
	case porcupine.Unknown:
		b.WriteString(" (timed out: not judged)")
	}
	b.WriteByte('\n')
	if r.HTMLPath != "" {
		fmt.Fprintf(&b, "  visualization: %s\n", r.HTMLPath)
	}
	plural := "s"
	if len(r.Violations) == 1 {
		plural = ""
	}
	fmt.Fprintf(&b, "  laws over %d views: %d violation%s", r.Views, len(r.Violations), plural)
	if r.ConvergenceJudged {
		b.WriteString(" (convergence judged at the quiet end)")
	}
	b.WriteByte('\n')
	if !r.CoordinatorObserved {
		b.WriteString("  coordinator not observed: every live process counts as current (no zombie tolerance)\n")
	}
	for i, v := range r.Violations {
		if i == maxReported {
			fmt.Fprintf(&b, "  ... and %d more\n", len(r.Violations)-maxReported)
			break
		}
		fmt.Fprintf(&b, "  %s\n", v)
		for _, o := range v.Observations {
			fmt.Fprintf(&b, "      %s\n", o)
		}
	}
	return b.String()
}

// Check judges h: linearizability of each resource's ownership under
// Model, and the laws of package spec over Views (see the package
// documentation). It returns an error, and judges nothing, when h does not
// Validate; it returns an error with the otherwise complete Result when the
// visualization of an Illegal verdict cannot be written. A broken law or an
// Illegal or Unknown verdict is in the Result, not an error.
func Check(h spec.History, opts Options) (Result, error) {
	res := Result{Name: opts.Name}
	if err := h.Validate(); err != nil {
		return res, fmt.Errorf("ownership %q: invalid history: %w", opts.Name, err)
	}
	balance := opts.Balance
	if balance == nil {
		balance = spec.CheckBalance
	}
	views := Views(h)
	res.Views = len(views)
	res.Violations = Judge(h, views, balance)
	res.CoordinatorObserved = coordinatorObserved(h)
	res.ConvergenceJudged = slices.ContainsFunc(h.Observations, func(o spec.Observation) bool { return o.Kind == spec.Quiet })

	lin := Linearize(h, opts.Timeout)
	res.Linearizable, res.Operations = lin.Linearizable, lin.Operations
	res.IllegalResources, res.IllegalAt = lin.IllegalResources, lin.IllegalAt
	if res.Linearizable != porcupine.Illegal {
		return res, nil
	}
	lin.info.AddAnnotations(annotations(h, res.Violations))
	path, err := writeHTML(Model(), lin.info, opts)
	res.HTMLPath = path
	return res, err
}

// Linearize runs porcupine alone over h (which must Validate): the
// Result's Linearizable, Operations, IllegalResources and IllegalAt, and
// the linearization info WriteHTML draws.
func Linearize(h spec.History, timeout time.Duration) Result {
	ops := Operations(h)
	// The plain check first: the verbose one, which keeps what the
	// visualization draws, is needed only for an Illegal history.
	res := Result{Linearizable: porcupine.CheckOperationsTimeout(Model(), ops, timeout), Operations: len(ops)}
	if res.Linearizable == porcupine.Illegal {
		res.Linearizable, res.info = porcupine.CheckOperationsVerbose(Model(), ops, timeout)
	}
	if res.Linearizable == porcupine.Illegal {
		res.IllegalResources, res.IllegalAt = illegalResources(ops, res.info)
	}
	return res
}

// WriteHTML writes porcupine's visualization of lin (a Linearize result)
// to w, with the coordinator's and the environment's observations of h
// and the law violations vs marked on its timeline.
func WriteHTML(w io.Writer, h spec.History, lin Result, vs []Violation) error {
	lin.info.AddAnnotations(annotations(h, vs))
	return porcupine.Visualize(Model(), lin.info, w)
}

// illegalResources returns the resources of the partitions (as Model's
// Partition makes them) whose longest partial linearization is shorter
// than the partition and, for each, the observation of the earliest
// operation that linearization leaves out.
func illegalResources(ops []porcupine.Operation, info porcupine.LinearizationInfo) ([]spec.Resource, []spec.Observation) {
	parts := partition(ops)
	partials := info.PartialLinearizations()
	var out []spec.Resource
	var at []spec.Observation
	for i, part := range parts {
		var longest []int
		if i < len(partials) {
			for _, p := range partials[i] {
				if len(p) > len(longest) {
					longest = p
				}
			}
		}
		if len(longest) == len(part) {
			continue
		}
		var r spec.Resource
		for _, op := range part {
			if in := op.Input.(*Input); in.Kind == Acquire || in.Kind == Release {
				r = in.Resource
				break
			}
		}
		if slices.Contains(out, r) {
			continue // a later piece of a resource already found (see split)
		}
		out = append(out, r)
		first := -1
		for j, op := range part {
			if !slices.Contains(longest, j) && (first < 0 || op.Call < part[first].Call) {
				first = j
			}
		}
		at = append(at, *part[first].Metadata.(*spec.Observation))
	}
	return out, at
}

// annotations marks the coordinator's and the environment's observations,
// and the law violations, on the visualization's timeline.
func annotations(h spec.History, vs []Violation) []porcupine.Annotation {
	var out []porcupine.Annotation
	for _, o := range h.Observations {
		switch o.Kind {
		case spec.Joined, spec.Removed:
			out = append(out, porcupine.Annotation{Tag: "coordinator", Start: int64(o.Call), Description: o.Kind.String() + " " + string(o.Member), Details: o.String()})
		case spec.Quiet:
			out = append(out, porcupine.Annotation{Tag: "environment", Start: int64(o.Call), Description: "quiet", Details: o.String()})
		}
	}
	for _, v := range vs {
		out = append(out, porcupine.Annotation{Tag: "laws", Start: int64(v.At), Description: string(v.Violation.Law), Details: v.String(), BackgroundColor: "#f4b6b6"})
	}
	return out
}

// writeHTML writes porcupine's visualization to a new file in opts.HTMLDir
// whose name carries opts.Name, and returns its path.
func writeHTML(model porcupine.Model, info porcupine.LinearizationInfo, opts Options) (string, error) {
	dir := opts.HTMLDir
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("ownership %q: visualization: %w", opts.Name, err)
	}
	f, err := os.CreateTemp(dir, "ownership-"+FileSafe(opts.Name)+"-*.html")
	if err != nil {
		return "", fmt.Errorf("ownership %q: visualization: %w", opts.Name, err)
	}
	err = porcupine.Visualize(model, info, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return f.Name(), fmt.Errorf("ownership %q: visualization %s: %w", opts.Name, f.Name(), err)
	}
	return f.Name(), nil
}

// FileSafe makes name a file name: its first 80 bytes, each byte that is
// not a letter, a digit, '.', '_' or '-' turned into '_'.
func FileSafe(name string) string {
	b := []byte(name)
	if len(b) > 80 {
		b = b[:80]
	}
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// Require checks h and fails t (Fatal) with Result.String, which names the
// visualization file, when the history is not OK or cannot be checked. An
// empty opts.Name defaults to t.Name().
func Require(t testing.TB, h spec.History, opts Options) {
	t.Helper()
	if opts.Name == "" {
		opts.Name = t.Name()
	}
	res, err := Check(h, opts)
	switch {
	case err != nil && res.Linearizable == "":
		t.Fatal(err)
	case err != nil:
		t.Fatalf("%v\n%s", err, res)
	case !res.OK():
		t.Fatal(res.String())
	}
}
