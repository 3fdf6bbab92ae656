package ownership

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/rebalance-ref/rebalance/spec"
)

// summary prints a violation as "AT Law resource [members]" (the detail
// text belongs to package spec and is left out).
func summary(v Violation) string {
	s := fmt.Sprintf("%d %s", v.At, v.Violation.Law)
	if v.Violation.Resource != (spec.Resource{}) {
		s += " " + v.Violation.Resource.String()
	}
	return s + " [" + strings.Join(v.Violation.Members, " ") + "]"
}

// TestCheck judges hand-written histories. Each case states porcupine's
// verdict (with the illegal resources), the law violations, and whether the
// coordinator was observed; "both" cases must be rejected or accepted by
// both checks, the others show where the two checks differ on purpose (see
// the package documentation).
func TestCheck(t *testing.T) {
	cases := []struct {
		name    string
		history string
		balance func(spec.View) []spec.Violation
		verdict porcupine.CheckResult
		illegal []string // resources porcupine rejects
		laws    []string // summaries of the law violations
		noCoord bool     // the history has no Joined or Removed
	}{
		{name: "cooperative hand-off", verdict: porcupine.Ok, history: `
			topics t=2
			subs A=t B=t
			[0] joined member=A-1
			[0] joined member=B-1
			[1..3] A assigned {t-0 t-1} member=A-1 gen=1
			[2..4] B assigned {} member=B-1 gen=1
			[10..14] A revoked {t-1} member=A-1 gen=2
			[14..16] B assigned {t-1} member=B-1 gen=3
			[20] quiet`},
		{name: "assigned wholly before revoked", verdict: porcupine.Illegal, illegal: []string{"t-0"}, laws: []string{"5 ExclusiveOwnership t-0 [A B]"}, history: `
			topics t=1
			subs A=t B=t
			[0] joined member=A-1
			[0] joined member=B-1
			[1..3] A assigned {t-0} member=A-1 gen=1
			[5..6] B assigned {t-0} member=B-1 gen=2
			[10..12] A revoked {t-0} member=A-1 gen=2`},
		// Porcupine places A's release at 15 and B's acquire after it; the
		// laws let A own t-0 until its revocation returns at 20.
		{name: "overlapping callbacks: linearizable, not conservative", verdict: porcupine.Ok, laws: []string{"15 ExclusiveOwnership t-0 [A B]"}, history: `
			topics t=1
			subs A=t B=t
			[0] joined member=A-1
			[0] joined member=B-1
			[1..3] A assigned {t-0} member=A-1 gen=1
			[10..20] A revoked {t-0} member=A-1 gen=2
			[15..25] B assigned {t-0} member=B-1 gen=2`},
		{name: "fenced zombie", verdict: porcupine.Ok, history: `
			topics t=1
			subs A=t B=t
			[0] joined member=A-1
			[0] joined member=B-1
			[1..3] A assigned {t-0} member=A-1 gen=1
			[10] removed member=A-1
			[15..16] B assigned {t-0} member=B-1 gen=2
			[30..31] A lost {t-0} member=A-1 gen=1`},
		{name: "zombie not removed", verdict: porcupine.Illegal, illegal: []string{"t-0"}, laws: []string{"15 ExclusiveOwnership t-0 [A B]"}, history: `
			topics t=1
			subs A=t B=t
			[0] joined member=A-1
			[0] joined member=B-1
			[1..3] A assigned {t-0} member=A-1 gen=1
			[15..16] B assigned {t-0} member=B-1 gen=2
			[30..31] A lost {t-0} member=A-1 gen=1`},
		{name: "callbacks only: no zombie tolerance", noCoord: true, verdict: porcupine.Illegal, illegal: []string{"t-0"}, laws: []string{"15 ExclusiveOwnership t-0 [A B]"}, history: `
			topics t=1
			subs A=t B=t
			[1..3] A assigned {t-0} member=A-1 gen=1
			[15..16] B assigned {t-0} member=B-1 gen=2
			[30..31] A lost {t-0} member=A-1 gen=1`},
		// Zero-length callbacks at one instant: each process's apply in its
		// own order, so B, assigned and revoked at 20, ends owning nothing.
		{name: "hand-offs chained within one instant", noCoord: true, verdict: porcupine.Ok, history: `
			topics t=1
			subs A=t B=t
			[1] A assigned {t-0} member=A-1 gen=1
			[20] A revoked {t-0} member=A-1 gen=1
			[20] B assigned {t-0} member=B-1 gen=2
			[20] B revoked {t-0} member=B-1 gen=2
			[20] A assigned {t-0} member=A-1 gen=3
			[30] quiet`},
		// A stale assignment reaches a member after the coordinator removed
		// it: a fenced zombie acquires, which both checks tolerate.
		{name: "zombie acquires after removal", verdict: porcupine.Ok, history: `
			topics t=1
			subs A=t B=t
			[0] joined member=A-1
			[0] joined member=B-1
			[1..2] B assigned {t-0} member=B-1 gen=1
			[5] removed member=A-1
			[10..11] A assigned {t-0} member=A-1 gen=1
			[20..21] A lost {t-0} member=A-1 gen=1`},
		// A next-gen member fenced and rejoining under the same id starts a
		// new membership that the old fence does not cover.
		{name: "rejoined under the same id", verdict: porcupine.Illegal, illegal: []string{"t-0"}, laws: []string{"20 ExclusiveOwnership t-0 [A B]"}, history: `
			topics t=1
			subs A=t B=t
			[0] joined member=A-1
			[0] joined member=B-1
			[1..3] A assigned {t-0} member=A-1 gen=1
			[10] removed member=A-1
			[12..13] A lost {t-0} member=A-1 gen=1
			[14] joined member=A-1
			[15..16] A assigned {t-0} member=A-1 gen=0
			[20..21] B assigned {t-0} member=B-1 gen=2`},
		// Removed and joined again at one instant: the Removed ends the
		// first membership before the Joined starts the second (whatever
		// the history's order), and a callback called at that instant
		// belongs to the second, which no fence covers.
		{name: "removed and rejoined at one instant", verdict: porcupine.Illegal, illegal: []string{"t-0"}, laws: []string{"20 ExclusiveOwnership t-0 [A B]"}, history: `
			topics t=1
			subs A=t B=t
			[0] joined member=A-1
			[0] joined member=B-1
			[1..3] A assigned {t-0} member=A-1 gen=1
			[8..9] A lost {t-0} member=A-1 gen=1
			[10] joined member=A-1
			[10] removed member=A-1
			[10..12] A assigned {t-0} member=A-1 gen=2
			[20..21] B assigned {t-0} member=B-1 gen=3`},
		{name: "removed and rejoined at one instant, removal listed first", verdict: porcupine.Illegal, illegal: []string{"t-0"}, laws: []string{"20 ExclusiveOwnership t-0 [A B]"}, history: `
			topics t=1
			subs A=t B=t
			[0] joined member=A-1
			[0] joined member=B-1
			[1..3] A assigned {t-0} member=A-1 gen=1
			[8..9] A lost {t-0} member=A-1 gen=1
			[10] removed member=A-1
			[10] joined member=A-1
			[10..12] A assigned {t-0} member=A-1 gen=2
			[20..21] B assigned {t-0} member=B-1 gen=3`},
		// A new membership that starts at the instant of its first callback
		// starts its generations over (next-gen: epoch 0 after a fence);
		// the step into that instant is not a generation going backwards.
		{name: "rejoined at one instant with a lower generation", verdict: porcupine.Ok, history: `
			topics t=1
			subs A=t
			[0] joined member=A-1
			[1..3] A assigned {t-0} member=A-1 gen=1
			[8..9] A lost {t-0} member=A-1 gen=1
			[10] removed member=A-1
			[10] joined member=A-1
			[10..12] A assigned {t-0} member=A-1 gen=0
			[20] quiet`},
		// The second Removed of an id fences its second membership, so
		// what that membership acquired is a fenced zombie's.
		{name: "fenced twice", verdict: porcupine.Ok, history: `
			topics t=1
			subs A=t B=t
			[0] joined member=A-1
			[0] joined member=B-1
			[1..3] A assigned {t-0} member=A-1 gen=1
			[10] removed member=A-1
			[12..13] A lost {t-0} member=A-1 gen=1
			[14] joined member=A-1
			[15..16] A assigned {t-0} member=A-1 gen=0
			[18] removed member=A-1
			[20..21] B assigned {t-0} member=B-1 gen=2
			[30..31] A lost {t-0} member=A-1 gen=0`},
		// With a quiet end, A (down) does not count for balance.
		{name: "crash releases", noCoord: true, verdict: porcupine.Ok, history: `
			topics t=2
			subs A=t B=t
			[1..3] A assigned {t-0} member=A-1 gen=1
			[1..3] B assigned {t-1} member=B-1 gen=1
			[10] A crashed
			[10..16] B assigned {t-0} member=B-1 gen=2
			[20] quiet`},
		// The next incarnation reuses the member id with a lower generation:
		// not a step of one membership, since the crash ended it.
		{name: "restarted incarnation", noCoord: true, verdict: porcupine.Ok, history: `
			topics t=1
			subs A=t
			[1..3] A assigned {t-0} member=A-1 gen=5
			[10] A crashed
			[20..21] A assigned {t-0} member=A-1 gen=1`},
		{name: "acquired twice", noCoord: true, verdict: porcupine.Illegal, illegal: []string{"t-0"}, history: `
			topics t=1
			subs A=t
			[1..3] A assigned {t-0} member=A-1 gen=1
			[20..21] A assigned {t-0} member=A-1 gen=2`},
		{name: "released without holding", noCoord: true, verdict: porcupine.Illegal, illegal: []string{"t-1"}, history: `
			topics t=2
			subs A=t
			[1..3] A assigned {t-0} member=A-1 gen=1
			[5..6] A revoked {t-0 t-1} member=A-1 gen=2`},
		// Revoked and assigned again at one instant (eager): releases come
		// first, so A keeps t-0 and the quiet end is covered.
		{name: "eager re-assignment at one instant", noCoord: true, verdict: porcupine.Ok, history: `
			topics t=1
			subs A=t
			[1..3] A assigned {t-0} member=A-1 gen=1
			[10..20] A revoked {t-0} member=A-1 gen=1
			[20..25] A assigned {t-0} member=A-1 gen=2
			[30] quiet`},
		// B was never counted by the coordinator: not current for the laws,
		// unfenced for porcupine.
		{name: "never joined", verdict: porcupine.Illegal, illegal: []string{"t-0"}, history: `
			topics t=1
			subs A=t B=t
			[0] joined member=A-1
			[1..3] A assigned {t-0} member=A-1 gen=1
			[5..6] B assigned {t-0} member=B-1 gen=1`},
		{name: "generation backwards", noCoord: true, verdict: porcupine.Ok, laws: []string{"5 MonotonicGeneration [A]"}, history: `
			topics t=2
			subs A=t
			[1..3] A assigned {t-0} member=A-1 gen=3
			[5..6] A assigned {t-1} member=A-1 gen=2`},
		{name: "unsubscribed topic", noCoord: true, verdict: porcupine.Ok, laws: []string{"1 SubscribedOnly u-0 [A]"}, history: `
			topics t=1 u=1
			subs A=t
			[1..3] A assigned {t-0 u-0} member=A-1 gen=1`},
		{name: "no such partition", noCoord: true, verdict: porcupine.Ok, laws: []string{"1 ExistingOnly t-5 [A]"}, history: `
			topics t=1
			subs A=t
			[1..3] A assigned {t-5} member=A-1 gen=1`},
		{name: "quiet end not covered", verdict: porcupine.Ok, laws: []string{"9 Coverage t-2 []"}, history: `
			topics t=3
			subs A=t B=t
			[0] joined member=A-1
			[0] joined member=B-1
			[1..3] A assigned {t-0} member=A-1 gen=1
			[1..3] B assigned {t-1} member=B-1 gen=1
			[9] quiet`},
		// The convergence laws are judged at the last return, which need
		// not be the last observation's.
		{name: "quiet end judged at the last return", verdict: porcupine.Ok, laws: []string{"30 Coverage t-2 []"}, history: `
			topics t=3
			subs A=t B=t
			[0] joined member=A-1
			[0] joined member=B-1
			[1..30] A assigned {t-0} member=A-1 gen=1
			[1..3] B assigned {t-1} member=B-1 gen=1
			[9] quiet`},
		{name: "quiet end unbalanced", verdict: porcupine.Ok, laws: []string{"9 Balance t-0 [A B]"}, history: `
			topics t=4
			subs A=t B=t
			[0] joined member=A-1
			[0] joined member=B-1
			[1..3] A assigned {t-0 t-1 t-2} member=A-1 gen=1
			[1..3] B assigned {t-3} member=B-1 gen=1
			[9] quiet`},
		{name: "range assignment, member balance", verdict: porcupine.Ok, laws: []string{"9 Balance t-0 [A B]"}, history: rangeHistory},
		{name: "range assignment, topic balance", balance: spec.CheckTopicBalance, verdict: porcupine.Ok, history: rangeHistory},
		{name: "topic balance broken", balance: spec.CheckTopicBalance, verdict: porcupine.Ok, laws: []string{"9 Balance [A B]"}, history: `
			topics t=3
			subs A=t B=t
			[0] joined member=A-1
			[0] joined member=B-1
			[1..3] A assigned {t-0 t-1 t-2} member=A-1 gen=1
			[1..3] B assigned {} member=B-1 gen=1
			[9] quiet`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := mustHistory(t, tc.history)
			dir := t.TempDir()
			res, err := Check(h, Options{Name: t.Name(), Balance: tc.balance, HTMLDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			var laws, illegal []string
			for _, v := range res.Violations {
				laws = append(laws, summary(v))
			}
			for _, r := range res.IllegalResources {
				illegal = append(illegal, r.String())
			}
			if res.Linearizable != tc.verdict || !slices.Equal(illegal, tc.illegal) || !slices.Equal(laws, tc.laws) || res.CoordinatorObserved == tc.noCoord {
				t.Fatalf("got porcupine %s on %q, laws %q, coordinator observed %v\nwant porcupine %s on %q, laws %q, coordinator observed %v\n%s",
					res.Linearizable, illegal, laws, res.CoordinatorObserved, tc.verdict, tc.illegal, tc.laws, !tc.noCoord, res)
			}
			wantOK := tc.verdict == porcupine.Ok && len(tc.laws) == 0
			if res.OK() != wantOK {
				t.Errorf("OK() = %v, want %v", res.OK(), wantOK)
			}
			checkHTML(t, res, dir)
		})
	}
}

// rangeHistory is what the range assignor gives two members of two topics
// of three partitions: balanced per topic, not in members' totals.
const rangeHistory = `
	topics t=3 u=3
	subs A=t,u B=t,u
	[0] joined member=A-1
	[0] joined member=B-1
	[1..3] A assigned {t-0 t-1 u-0 u-1} member=A-1 gen=1
	[1..3] B assigned {t-2 u-2} member=B-1 gen=1
	[9] quiet`

// checkHTML: an Illegal verdict leaves one non-empty visualization in dir,
// named after the test, describing the operations; anything else leaves
// none.
func checkHTML(t *testing.T, res Result, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Linearizable != porcupine.Illegal {
		if res.HTMLPath != "" || len(entries) != 0 {
			t.Errorf("visualization %q (%d files) for a %s verdict", res.HTMLPath, len(entries), res.Linearizable)
		}
		return
	}
	if len(entries) != 1 || !strings.HasPrefix(res.HTMLPath, dir) || !strings.Contains(res.HTMLPath, FileSafe(t.Name())) {
		t.Fatalf("visualization %q, files %v: want one file in %s named after the test", res.HTMLPath, entries, dir)
	}
	data, err := os.ReadFile(res.HTMLPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "acquires t-") || !strings.Contains(string(data), "<html") {
		t.Errorf("visualization %s (%d bytes) does not describe the operations", res.HTMLPath, len(data))
	}
	if !strings.Contains(res.String(), res.HTMLPath) {
		t.Errorf("the report does not name the visualization:\n%s", res)
	}
}

// TestReport: the failure report names the verdict, the illegal resource,
// the visualization, and each violation with its instant and the
// observations that made it; it reports a missing coordinator.
func TestReport(t *testing.T) {
	h := mustHistory(t, `
		topics t=1
		subs A=t B=t
		[1..3] A assigned {t-0} member=A-1 gen=1
		[5..6] B assigned {t-0} member=B-1 gen=2
		[10..12] A revoked {t-0} member=A-1 gen=2`)
	res, err := Check(h, Options{Name: "report", HTMLDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(res.String(), res.HTMLPath, "HTML")
	want := `ownership history "report": NOT OK
  linearizability (porcupine, 3 operations): Illegal on t-0
  visualization: HTML
  laws over 4 views: 1 violation
  coordinator not observed: every live process counts as current (no zombie tolerance)
  at 5: ExclusiveOwnership: t-0 [A B]: owned by more than one member that is not fenced
      [5..6] B assigned {t-0} member=B-1 gen=2
`
	if got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
	// Twelve violations: the first ten in full, then a count.
	var us []string
	for p := range 12 {
		us = append(us, fmt.Sprintf("u-%d", p))
	}
	h = mustHistory(t, `
		topics t=1 u=12
		subs A=t
		[1..3] A assigned {`+strings.Join(us, " ")+`} member=A-1 gen=1`)
	if res, err = Check(h, Options{Name: "many"}); err != nil {
		t.Fatal(err)
	}
	got = res.String()
	if n := strings.Count(got, "SubscribedOnly"); n != maxReported || !strings.Contains(got, "12 violations") || !strings.HasSuffix(got, "\n  ... and 2 more\n") {
		t.Errorf("report of 12 violations (%d printed):\n%s", n, got)
	}
}

// TestFileSafe: a visualization's file name keeps ASCII letters, digits,
// '.', '_' and '-' of the history's name and nothing else, and at most 80
// bytes of it.
func TestFileSafe(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"azAZ09._-", "azAZ09._-"},
		{"`{@[/: é", "_________"}, // the neighbours of each kept range; é is two bytes
		{"TestCheck/a b", "TestCheck_a_b"},
		{strings.Repeat("x", 81), strings.Repeat("x", 80)},
	} {
		if got := FileSafe(tc.name); got != tc.want {
			t.Errorf("FileSafe(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestInvalidHistory: a history that does not validate is refused whole:
// an error naming the observation, and nothing judged or written.
func TestInvalidHistory(t *testing.T) {
	h := mustHistory(t, `
		topics t=1
		subs A=t
		[1..3] A assigned {t-0} member=A-1 gen=1
		[5..6] B assigned {t-0} member=B-1 gen=2`)
	dir := t.TempDir()
	res, err := Check(h, Options{Name: "invalid", HTMLDir: dir})
	if err == nil || !strings.Contains(err.Error(), "observation 1") {
		t.Fatalf("error %v, want one naming observation 1", err)
	}
	if res.Linearizable != "" || res.Views != 0 || res.Operations != 0 || len(res.Violations) != 0 || res.HTMLPath != "" || res.OK() {
		t.Errorf("an invalid history was judged: %+v", res)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files written for an invalid history: %v", entries)
	}
}

// TestUnknown: a check that runs out of time is Unknown, not OK, and says
// so. The history is legal step by step but ends with an illegal release,
// so porcupine must try every interleaving of fourteen processes' hand-offs
// (tens of thousands of states) before it could answer; a millisecond is
// far too little.
func TestUnknown(t *testing.T) {
	h := spec.History{Topics: spec.Topics{"t": 1}, Subscriptions: map[string][]string{"X": {"t"}}}
	for i := range 14 {
		p := fmt.Sprintf("P%02d", i)
		h.Subscriptions[p] = []string{"t"}
		h.Observations = append(h.Observations,
			spec.Observation{Kind: spec.Assigned, Process: p, Member: spec.MemberID(p), Resources: spec.Range("t", 0, 0), Call: 0, Return: 1000},
			spec.Observation{Kind: spec.Revoked, Process: p, Member: spec.MemberID(p), Resources: spec.Range("t", 0, 0), Call: 0, Return: 1000})
	}
	h.Observations = append(h.Observations, spec.Observation{Kind: spec.Revoked, Process: "X", Resources: spec.Range("t", 0, 0), Call: 2000, Return: 2001})
	dir := t.TempDir()
	res, err := Check(h, Options{Name: "unknown", Timeout: time.Millisecond, HTMLDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Linearizable != porcupine.Unknown || res.OK() || !strings.Contains(res.String(), "Unknown (timed out: not judged)") {
		t.Fatalf("want Unknown, not OK, reported as such; got\n%s", res)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 || res.HTMLPath != "" {
		t.Errorf("visualization written for Unknown: %v", entries)
	}
	// The overlapping callbacks break the laws too; Unknown alone is
	// not OK either.
	if res.Violations = nil; res.OK() {
		t.Errorf("Unknown with no law violation is OK")
	}
}

// fakeTB records what Require reports.
type fakeTB struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Name() string      { return "TestFake" }
func (f *fakeTB) Fatal(args ...any) { f.failed, f.msg = true, f.msg+fmt.Sprint(args...) }
func (f *fakeTB) Fatalf(format string, a ...any) {
	f.failed, f.msg = true, f.msg+fmt.Sprintf(format, a...)
}

// TestRequire: Require passes an OK history, and fails a broken one with
// the report naming the visualization (named after the test by default),
// an invalid one with the validation error alone (nothing was judged), and
// a broken one whose visualization cannot be written with both the error
// and the report.
func TestRequire(t *testing.T) {
	good := mustHistory(t, `
		topics t=1
		subs A=t
		[1..3] A assigned {t-0} member=A-1 gen=1`)
	bad := mustHistory(t, `
		topics t=1
		subs A=t B=t
		[1..3] A assigned {t-0} member=A-1 gen=1
		[5..6] B assigned {t-0} member=B-1 gen=2`)
	invalid := mustHistory(t, `
		topics t=1
		subs A=t
		[3..1] A assigned {t-0} member=A-1 gen=1`)
	dir := t.TempDir()
	notDir := dir + "/file"
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		h      spec.History
		html   string
		want   []string // nil for a pass
		report bool     // the failure carries the judgement
	}{
		{"good", good, dir, nil, false},
		{"bad", bad, dir, []string{"visualization: " + dir}, true},
		{"invalid", invalid, dir, []string{"returns at 1 before it is called at 3"}, false},
		{"unwritable", bad, notDir, []string{"visualization", "not a directory"}, true},
	} {
		f := &fakeTB{}
		Require(f, tc.h, Options{HTMLDir: tc.html})
		if f.failed != (tc.want != nil) || strings.Contains(f.msg, "NOT OK") != tc.report {
			t.Errorf("%s: failed=%v with %q, want a failure %t, with the report %t", tc.name, f.failed, f.msg, tc.want != nil, tc.report)
		}
		for _, w := range tc.want {
			if !strings.Contains(f.msg, w) {
				t.Errorf("%s: failure %q does not say %q", tc.name, f.msg, w)
			}
		}
		if tc.name == "bad" && !strings.Contains(f.msg, `"TestFake"`) {
			t.Errorf("the report does not carry the test's name: %s", f.msg)
		}
	}
}

// TestHTMLWriteError: a visualization that cannot be written is an error
// returned with the otherwise complete Result.
func TestHTMLWriteError(t *testing.T) {
	h := mustHistory(t, `
		topics t=1
		subs A=t B=t
		[1..3] A assigned {t-0} member=A-1 gen=1
		[5..6] B assigned {t-0} member=B-1 gen=2`)
	notDir := t.TempDir() + "/file"
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Check(h, Options{Name: "unwritable", HTMLDir: notDir})
	if err == nil || res.Linearizable != porcupine.Illegal || len(res.Violations) != 1 || res.HTMLPath != "" {
		t.Fatalf("error %v, result\n%s\nwant an error with the Illegal verdict and the violation", err, res)
	}
}
