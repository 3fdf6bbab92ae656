package checker

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/spec"
)

// counters is a toy model whose state space is known exactly: n counters,
// each of which an Own action "inc i" raises up to max, and an Env action
// "reset" that sets all to 0 (bounded by resets). Laws are configured per
// test.
type counters struct {
	n, max, resets int
	// bad, when set, is the state at which a step reports a safety
	// violation.
	bad []int
	// converged reports the liveness target.
	converged func(c []int) bool
	// loop adds an Own action "spin" that returns to the same state when
	// the first counter is max; fair says whether "inc" actions stay
	// enabled there (making the spin loop unfair).
	loop   bool
	owners func(c []int) uint64
	// names are member names for symmetry tests: counter i belongs to
	// names[i].
	names []string
	// bounceAt, when above 0, adds an unbounded environment action
	// "bounce" (EnvUnbounded, like a leader bounce) that zeroes the
	// counters when the first is at bounceAt.
	bounceAt int
	// encodes, when set, counts the calls of Encode.
	encodes *atomic.Int64
}

type cstate struct {
	c      []int
	resets int
}

type caction struct {
	kind string
	i    int
}

func (m counters) Init() []cstate { return []cstate{{c: make([]int, m.n)}} }

func (m counters) Actions(s cstate, dst []caction) []caction {
	for i, v := range s.c {
		if v < m.max {
			dst = append(dst, caction{"inc", i})
		}
	}
	if m.loop && s.c[0] == m.max {
		dst = append(dst, caction{"spin", 0})
	}
	if s.resets < m.resets {
		dst = append(dst, caction{"reset", 0})
	}
	if m.bounceAt > 0 && s.c[0] == m.bounceAt {
		dst = append(dst, caction{"bounce", 0})
	}
	return dst
}

func (m counters) Step(s cstate, a caction) (cstate, []spec.Violation) {
	t := cstate{c: slices.Clone(s.c), resets: s.resets}
	switch a.kind {
	case "inc":
		t.c[a.i]++
	case "reset":
		clear(t.c)
		t.resets++
	case "bounce":
		clear(t.c)
	}
	if m.bad != nil && slices.Equal(t.c, m.bad) {
		return t, []spec.Violation{{Law: spec.ExclusiveOwnership, Detail: "reached the bad state"}}
	}
	return t, nil
}

func (m counters) Encode(e *canon.Encoder, s cstate) {
	if m.encodes != nil {
		m.encodes.Add(1)
	}
	e.Int(int64(s.resets))
	for i, v := range s.c {
		if m.names != nil {
			e.Name(m.names[i])
		}
		e.Int(int64(v))
	}
	if m.names != nil {
		// As a multiset of (name, value) pairs, so renaming permutes it.
		e.Buf = e.Buf[:0]
		e.Int(int64(s.resets))
		e.Sorted(len(s.c), func(i int) { e.Name(m.names[i]); e.Int(int64(s.c[i])) })
	}
}

func (m counters) Kind(a caction) Kind {
	switch a.kind {
	case "reset":
		return Env
	case "bounce":
		return EnvUnbounded
	}
	return Own
}

func (m counters) FairKey(_ cstate, a caction) uint64 { return uint64(len(a.kind)*100 + a.i) }

func (m counters) Converged(s cstate) []spec.Violation {
	if m.converged == nil || m.converged(s.c) {
		return nil
	}
	return []spec.Violation{{Law: spec.Coverage, Detail: fmt.Sprint(s.c)}}
}

func (m counters) Owners(s cstate) uint64 {
	if m.owners != nil {
		return m.owners(s.c)
	}
	return 0
}

func (m counters) Line(_ cstate, a caction) string {
	if a.kind == "inc" {
		return fmt.Sprintf("inc %d", a.i)
	}
	return a.kind
}

func (m counters) Preamble() []string { return []string{"start"} }

func (m counters) Interchangeable() [][]string {
	if m.names == nil {
		return nil
	}
	return [][]string{m.names}
}

func explore(t *testing.T, m counters, o Options) Result {
	t.Helper()
	r, err := Explore[cstate, caction](m, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCountsAreExact checks the distinct states, transitions and depth of a
// space known in closed form, with one and with four workers, with
// fingerprints and with exact storage.
func TestCountsAreExact(t *testing.T) {
	m := counters{n: 3, max: 4, resets: 1}
	// States: (max+1)^n grids, for 0 and 1 resets used.
	wantStates := int64(2 * 125)
	// Transitions: each state has one inc per counter below max (3*4*25
	// = 300 over the grid), and a reset from each state of the first grid.
	wantTrans := int64(2*300 + 125)
	for _, o := range []Options{{Workers: 1}, {Workers: 4}, {Workers: 2, Exact: true}} {
		r := explore(t, m, o)
		if !r.Complete || r.Distinct != wantStates || r.Transitions != wantTrans || r.Depth != 12+1 {
			t.Errorf("%+v: complete=%v distinct=%d transitions=%d depth=%d; want true %d %d 13", o, r.Complete, r.Distinct, r.Transitions, r.Depth, wantStates, wantTrans)
		}
		if len(r.Violations) != 0 {
			t.Errorf("%+v: unexpected violations %v", o, r.Violations)
		}
	}
	// The bytes the liveness graph adds (bytes/state in BenchmarkExplore
	// and the check table): 24 a step of the protocol (600 incs; resets
	// are bounded environment steps, not in the graph), 24 a state, and 8
	// a fairness key (one an enabled inc, 600).
	for _, w := range []int{1, 3} {
		with, without := explore(t, m, Options{Workers: w}), explore(t, m, Options{Workers: w, NoLiveness: true})
		if got, want := with.StoredBytes-without.StoredBytes, int64(600*24+250*24+600*8); got != want {
			t.Errorf("workers=%d: the liveness graph holds %d bytes, want %d", w, got, want)
		}
	}
}

// TestBusy: Result.Busy is the workers' share of the levels' time spent
// expanding, so it is above 0, at most 1, and at most 1/Workers where
// every level has one state (a chain: one worker has work, the others
// wait).
func TestBusy(t *testing.T) {
	for _, c := range []struct {
		m    counters
		o    Options
		most float64
	}{
		{counters{n: 3, max: 4, resets: 1}, Options{Workers: 1}, 1},
		{counters{n: 3, max: 4, resets: 1}, Options{Workers: 2, NoLiveness: true}, 1},
		{counters{n: 1, max: 40}, Options{Workers: 4}, 0.25},
	} {
		r := explore(t, c.m, c.o)
		if !(r.Busy > 0 && r.Busy <= c.most) {
			t.Errorf("%+v on %d counters to %d: Busy %g, want above 0 and at most %g", c.o, c.m.n, c.m.max, r.Busy, c.most)
		}
	}
}

// TestShortestCounterexample: breadth-first search reports the bad state
// by a shortest path, as replayable lines.
func TestShortestCounterexample(t *testing.T) {
	m := counters{n: 2, max: 5, bad: []int{2, 3}}
	for _, w := range []int{1, 3} {
		r := explore(t, m, Options{Workers: w})
		if len(r.Violations) != 1 {
			t.Fatalf("workers=%d: want one violation, got %+v", w, r.Violations)
		}
		ce := r.Violations[0]
		if ce.Law != spec.ExclusiveOwnership || len(ce.Steps) != 5 || ce.Loop != -1 || r.Complete {
			t.Fatalf("workers=%d: got law %s, %d steps, loop %d, complete %v; want a 5-step safety path", w, ce.Law, len(ce.Steps), ce.Loop, r.Complete)
		}
		var inc0, inc1 int
		for _, s := range ce.Steps {
			switch s.Line {
			case "inc 0":
				inc0++
			case "inc 1":
				inc1++
			default:
				t.Fatalf("unexpected step %q", s.Line)
			}
		}
		if inc0 != 2 || inc1 != 3 {
			t.Fatalf("workers=%d: path %v does not reach [2 3]", w, ce.Steps)
		}
	}
}

// TestLiveness: a state short of the target with no own step is stuck; a
// fair cycle outside the target is reported as a lasso; an unfair one (an
// own action stays enabled and is never taken) is not.
func TestLiveness(t *testing.T) {
	notAllMax := func(c []int) bool { return c[0] == 2 && c[1] == 2 }
	stuck := explore(t, counters{n: 2, max: 2, converged: func(c []int) bool { return c[0] == 2 && c[1] == 1 }}, Options{})
	if len(stuck.Violations) != 1 || stuck.Violations[0].Law != spec.EventuallyConverged || stuck.Violations[0].Loop != -1 {
		t.Errorf("stuck: got %+v", stuck.Violations)
	}
	if got := strings.Join(lines(stuck.Violations[0].Steps), ","); got != "inc 0,inc 0,inc 1,inc 1" && got != "inc 0,inc 1,inc 0,inc 1" && got != "inc 1,inc 0,inc 0,inc 1" && got != "inc 0,inc 1,inc 1,inc 0" && got != "inc 1,inc 0,inc 1,inc 0" && got != "inc 1,inc 1,inc 0,inc 0" {
		t.Errorf("stuck: path %s does not reach [2 2]", got)
	}

	// Spinning once counter 0 is at its max, with counter 1 still short:
	// inc 1 stays enabled on the spin and is never taken, so the cycle is
	// not fair and is not a counterexample.
	unfair := explore(t, counters{n: 2, max: 2, loop: true, converged: notAllMax}, Options{})
	if len(unfair.Violations) != 0 {
		t.Errorf("unfair spin reported: %+v", unfair.Violations)
	}
	// Target unreachable while spinning: counter 1 has max 2 but the
	// target wants it at 3, so once everything else is done the spin is
	// fair and never converges.
	fair := explore(t, counters{n: 2, max: 2, loop: true, converged: func(c []int) bool { return c[1] == 3 }}, Options{})
	var found *Counterexample
	for i := range fair.Violations {
		if fair.Violations[i].Loop >= 0 {
			found = &fair.Violations[i]
		}
	}
	if found == nil || found.Law != spec.EventuallyConverged {
		t.Fatalf("fair spin: want a lasso, got %+v", fair.Violations)
	}
	if cyc := lines(found.Steps[found.Loop:]); !slices.Equal(cyc, []string{"spin"}) {
		t.Errorf("fair spin: cycle %v, want [spin]", cyc)
	}

	// Stability: a one-state spin cycle keeps one ownership, however
	// ownership differs between other states.
	stable := explore(t, counters{n: 2, max: 2, loop: true, owners: func(c []int) uint64 { return uint64(c[1]) }}, Options{})
	if len(stable.Violations) != 0 {
		t.Errorf("stability: a one-state cycle reported: %+v", stable.Violations)
	}
	if !fair.LivenessChecked || !fair.Complete {
		t.Errorf("liveness not checked on a complete graph")
	}
	if r := explore(t, counters{n: 2, max: 2, loop: true, converged: func(c []int) bool { return c[1] == 3 }}, Options{NoLiveness: true}); len(r.Violations) != 0 || r.LivenessChecked {
		t.Errorf("NoLiveness still checked liveness: %+v", r.Violations)
	}
}

// TestLivenessUnderEnv: where the environment may act forever, the
// liveness law is that the group converges again and again. A cycle
// through an unbounded environment step that never passes a converged
// state is a counterexample; one that passes a converged state is not.
func TestLivenessUnderEnv(t *testing.T) {
	at2 := func(c []int) bool { return c[0] == 2 }
	for _, w := range []int{1, 2} {
		// 0 -inc-> 1 -inc-> 2 (converged); a bounce from 1 back to 0.
		r := explore(t, counters{n: 1, max: 2, bounceAt: 1, converged: at2}, Options{Workers: w})
		if len(r.Violations) != 1 {
			t.Fatalf("workers=%d: bounce before convergence: got %+v, want one lasso", w, r.Violations)
		}
		ce := r.Violations[0]
		if ce.Law != spec.EventuallyConverged || ce.Loop < 0 || !strings.Contains(ce.Violation.Detail, "environment acting forever") {
			t.Errorf("workers=%d: got %s loop %d (%s), want an EventuallyConverged lasso under the environment", w, ce.Law, ce.Loop, ce.Violation.Detail)
		}
		if cyc := lines(ce.Steps[ce.Loop:]); !slices.Contains(cyc, "bounce") || !slices.Contains(cyc, "inc 0") {
			t.Errorf("workers=%d: cycle %v, want one through bounce and inc 0", w, cyc)
		}
		// The bounce from the converged state: every cycle passes it.
		if r := explore(t, counters{n: 1, max: 2, bounceAt: 2, converged: at2}, Options{Workers: w}); len(r.Violations) != 0 {
			t.Errorf("workers=%d: bounce from the converged state reported: %+v", w, r.Violations)
		}
	}
}

func lines(steps []Step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Line)
	}
	return out
}

// TestLimits: a state, time or memory limit stops the search and says
// so; a limit the search stays under does not.
func TestLimits(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{MaxStates: 100}, "state limit"},
		{Options{TimeLimit: time.Nanosecond}, "time limit"},
		{Options{MaxMemory: 1}, "memory limit"},
		{Options{MaxStates: 1 << 20, TimeLimit: time.Hour, MaxMemory: 1 << 40}, ""},
	} {
		r := explore(t, counters{n: 4, max: 9}, c.o)
		if c.want == "" {
			if !r.Complete || r.Distinct != 10000 {
				t.Errorf("%+v: complete=%v stopped=%q distinct=%d, want all 10000 states", c.o, r.Complete, r.Stopped, r.Distinct)
			}
			continue
		}
		if r.Complete || !strings.Contains(r.Stopped, c.want) || r.LivenessChecked {
			t.Errorf("%+v: complete=%v stopped=%q, want stopped by %s", c.o, r.Complete, r.Stopped, c.want)
		}
	}
}

// TestProgressReports explores with a progress report due at every chunk
// (ProgressEvery 1 ns, chunks of one state in small levels): reports
// come within levels as well as at their ends, in order, each with a
// depth from 1 to the search's, a queue no longer than the largest level,
// and counts that only grow, up to the result's.
func TestProgressReports(t *testing.T) {
	m := counters{n: 3, max: 4}
	for _, w := range []int{1, 2} {
		var reports []Progress
		r := explore(t, m, Options{Workers: w, ProgressEvery: time.Nanosecond, Progress: func(p Progress) { reports = append(reports, p) }})
		if len(reports) <= r.Depth {
			t.Fatalf("workers=%d: %d reports for %d levels: none within a level", w, len(reports), r.Depth)
		}
		for i, p := range reports {
			if p.Depth < 1 || p.Depth > r.Depth+1 || p.Queue < 0 || p.Queue > 19 {
				t.Fatalf("workers=%d: report %d: %+v (search depth %d)", w, i, p, r.Depth)
			}
			if i > 0 && (p.Distinct < reports[i-1].Distinct || p.Transitions < reports[i-1].Transitions || p.Depth < reports[i-1].Depth) {
				t.Fatalf("workers=%d: report %d %+v after %+v", w, i, p, reports[i-1])
			}
		}
		if last := reports[len(reports)-1]; last.Distinct != r.Distinct || last.Transitions != r.Transitions {
			t.Errorf("workers=%d: last report %+v, result %d states, %d transitions", w, last, r.Distinct, r.Transitions)
		}
	}
}
