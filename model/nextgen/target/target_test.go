package target

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// sticky is a tiny fake server-side assignor: every member keeps what it
// owned (its previous target) of subscribed, existing topics, then each
// free subscribed partition goes to the subscriber holding the fewest
// (lowest ID on ties). It records the group it was last called with.
type sticky struct{ seen *assign.Group }

func (sticky) Name() string { return "fake-sticky" }

func (s sticky) Assign(g assign.Group) (spec.Assignment, error) {
	if s.seen != nil {
		*s.seen = g
	}
	out := spec.Assignment{}
	taken := spec.Set{}
	for _, m := range g.Members {
		keep := m.Owned.Filter(func(r spec.Resource) bool { return slices.Contains(m.Topics, r.Topic) && g.Topics.Has(r) })
		out[m.ID] = keep
		taken = taken.Union(keep)
	}
	for _, r := range g.Topics.Resources(g.Topics.Names()...).Minus(taken) {
		var to spec.MemberID
		for _, m := range g.Members {
			if slices.Contains(m.Topics, r.Topic) && (to == "" || out[m.ID].Len() < out[to].Len()) {
				to = m.ID
			}
		}
		if to != "" {
			out[to] = out[to].Add(r)
		}
	}
	return out, nil
}

// fixed is a fake assignor that returns a fixed result or error.
type fixed struct {
	out spec.Assignment
	err error
}

func (fixed) Name() string                                   { return "fake-fixed" }
func (f fixed) Assign(assign.Group) (spec.Assignment, error) { return f.out.Clone(), f.err }

func set(s string) spec.Set {
	out, err := spec.ParseSet(s)
	if err != nil {
		panic(err)
	}
	return out
}

func ids(s ...string) []spec.MemberID {
	out := make([]spec.MemberID, len(s))
	for i, x := range s {
		out[i] = spec.MemberID(x)
	}
	return out
}

var (
	universe = spec.Topics{"a": 4, "b": 2}
	m1       = Member{ID: "m1", Topics: []string{"a"}}
	m2       = Member{ID: "m2", Topics: []string{"a"}}
	m3       = Member{ID: "m3", Topics: []string{"a"}}
	both1    = Member{ID: "m1", Topics: []string{"b", "a"}}
	static1  = Member{ID: "s1", InstanceID: "i1", Topics: []string{"a"}}
	static2  = Member{ID: "s2", InstanceID: "i1", Topics: []string{"a"}}
)

var opts = cmp.Options{cmpopts.EquateEmpty()}

// TestBuild covers the deltas, static inheritance and the changed list with
// the fake sticky assignor.
func TestBuild(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Input
		want Result
		// owned: what the assignor must see as each member's Owned.
		owned spec.Assignment
	}{
		{
			name: "first target: every member is new",
			in:   Input{Members: []Member{m2, m1}},
			want: Result{
				Target:  spec.Assignment{"m1": set("{a-0 a-2}"), "m2": set("{a-1 a-3}")},
				Changed: ids("m1", "m2"),
			},
			owned: spec.Assignment{"m1": nil, "m2": nil},
		},
		{
			name: "nothing changes",
			in: Input{Members: []Member{m1, m2},
				Previous: spec.Assignment{"m1": set("{a-0 a-2}"), "m2": set("{a-1 a-3}")}},
			want: Result{Target: spec.Assignment{"m1": set("{a-0 a-2}"), "m2": set("{a-1 a-3}")}},
		},
		{
			name: "a new member with an empty target is still changed",
			in: Input{Members: []Member{m1}, Upsert: []Member{{ID: "m9", Topics: []string{"zzz"}}},
				Previous: spec.Assignment{"m1": set("{a-0 a-1 a-2 a-3}")}},
			want: Result{
				Target:           spec.Assignment{"m1": set("{a-0 a-1 a-2 a-3}"), "m9": nil},
				Changed:          ids("m9"),
				SubscriptionType: Heterogeneous,
			},
		},
		{
			name: "a member joins and takes the free partition",
			in: Input{Members: []Member{m1, m2}, Upsert: []Member{m3},
				Previous: spec.Assignment{"m1": set("{a-0 a-2}"), "m2": set("{a-1}")}},
			want: Result{
				Target:  spec.Assignment{"m1": set("{a-0 a-2}"), "m2": set("{a-1}"), "m3": set("{a-3}")},
				Changed: ids("m3"),
			},
		},
		{
			name: "a member leaves: its partitions move, it is not listed",
			in: Input{Members: []Member{m1, m2, m3}, Remove: ids("m3", "nobody"),
				Previous: spec.Assignment{"m1": set("{a-0}"), "m2": set("{a-1}"), "m3": set("{a-2 a-3}")}},
			want: Result{
				Target:  spec.Assignment{"m1": set("{a-0 a-2}"), "m2": set("{a-1 a-3}")},
				Changed: ids("m1", "m2"),
			},
		},
		{
			name: "a member changes its subscription and keeps its previous target",
			in: Input{Members: []Member{m1, m2}, Upsert: []Member{both1},
				Previous: spec.Assignment{"m1": set("{a-0 a-2}"), "m2": set("{a-1 a-3}")}},
			want: Result{
				Target:           spec.Assignment{"m1": set("{a-0 a-2 b-0 b-1}"), "m2": set("{a-1 a-3}")},
				Changed:          ids("m1"),
				SubscriptionType: Heterogeneous,
			},
			owned: spec.Assignment{"m1": set("{a-0 a-2}"), "m2": set("{a-1 a-3}")},
		},
		{
			name: "static replacement: the new id inherits the departed id's target",
			in: Input{Members: []Member{m1, static1}, Upsert: []Member{static2},
				Previous: spec.Assignment{"m1": set("{a-0 a-2}"), "s1": set("{a-1 a-3}")}},
			want: Result{
				Target:  spec.Assignment{"m1": set("{a-0 a-2}"), "s2": set("{a-1 a-3}")},
				Changed: ids("s2"),
			},
			owned: spec.Assignment{"m1": set("{a-0 a-2}"), "s2": set("{a-1 a-3}")},
		},
		{
			name: "static replacement ignores a stale entry under the new id",
			in: Input{Members: []Member{m1, static1}, Upsert: []Member{static2},
				Previous: spec.Assignment{"m1": set("{a-0 a-2}"), "s1": set("{a-1 a-3}"), "s2": set("{a-0}")}},
			want: Result{
				Target:  spec.Assignment{"m1": set("{a-0 a-2}"), "s2": set("{a-1 a-3}")},
				Changed: ids("s2"),
			},
			owned: spec.Assignment{"m1": set("{a-0 a-2}"), "s2": set("{a-1 a-3}")},
		},
		{
			name: "a static member updated under its own id is no replacement",
			in: Input{Members: []Member{m1, static1}, Upsert: []Member{{ID: "s1", InstanceID: "i1", Topics: []string{"a"}, Rack: "r1"}},
				Previous: spec.Assignment{"m1": set("{a-0 a-2}"), "s1": set("{a-1 a-3}")}},
			want: Result{Target: spec.Assignment{"m1": set("{a-0 a-2}"), "s1": set("{a-1 a-3}")}},
		},
		{
			name: "partitions of a deleted topic are dropped from what the assignor sees",
			in: Input{Members: []Member{m1, m2},
				Previous: spec.Assignment{"m1": set("{a-0 a-2 gone-0}"), "m2": set("{a-1 a-3}")}},
			want: Result{
				Target:  spec.Assignment{"m1": set("{a-0 a-2}"), "m2": set("{a-1 a-3}")},
				Changed: ids("m1"),
			},
			owned: spec.Assignment{"m1": set("{a-0 a-2}"), "m2": set("{a-1 a-3}")},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen assign.Group
			tc.in.Assignor = sticky{seen: &seen}
			tc.in.Topics = universe
			before := cloneInput(tc.in)
			got, err := Build(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got, opts, ignoreRound); d != "" {
				t.Fatalf("Build (-want +got):\n%s", d)
			}
			checkRoundOf(t, tc.in, got)
			if d := cmp.Diff(before, tc.in, opts, cmpopts.IgnoreFields(Input{}, "Assignor")); d != "" {
				t.Fatalf("Build modified its input:\n%s", d)
			}
			if !slices.IsSortedFunc(seen.Members, func(a, b assign.Member) int { return cmpID(a.ID, b.ID) }) {
				t.Fatalf("assignor members not sorted: %v", seen.Members)
			}
			if tc.owned != nil {
				gotOwned := spec.Assignment{}
				for _, m := range seen.Members {
					gotOwned[m.ID] = m.Owned
				}
				if d := cmp.Diff(tc.owned, gotOwned, opts); d != "" {
					t.Fatalf("assignor saw Owned (-want +got):\n%s", d)
				}
			}
		})
	}
}

func cmpID(a, b spec.MemberID) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cloneInput(in Input) Input {
	out := in
	out.Members = slices.Clone(in.Members)
	out.Upsert = slices.Clone(in.Upsert)
	out.Remove = slices.Clone(in.Remove)
	for i := range out.Members {
		out.Members[i].Topics = slices.Clone(in.Members[i].Topics)
	}
	for i := range out.Upsert {
		out.Upsert[i].Topics = slices.Clone(in.Upsert[i].Topics)
	}
	out.Previous = spec.Assignment{}
	for m, s := range in.Previous {
		out.Previous[m] = slices.Clone(s)
	}
	return out
}

// TestBuildAssignorOutput: the assignor's output is checked, and a failure
// or an illegal output is an error that leaves no result.
func TestBuildAssignorOutput(t *testing.T) {
	boom := errors.New("boom")
	group := []Member{m1, {ID: "m2", Topics: []string{"a", "b"}}}
	for _, tc := range []struct {
		name string
		as   fixed
		want error
		law  spec.Law
	}{
		{name: "assignor error", as: fixed{err: boom}, want: boom},
		{name: "given twice", as: fixed{out: spec.Assignment{"m1": set("{a-0}"), "m2": set("{a-0}")}}, want: ErrIllegalAssignment, law: spec.AssignedOnce},
		{name: "to a stranger", as: fixed{out: spec.Assignment{"m1": set("{a-0}"), "m9": set("{a-1}")}}, want: ErrIllegalAssignment, law: spec.KnownMembersOnly},
		{name: "unsubscribed topic", as: fixed{out: spec.Assignment{"m1": set("{b-0}")}}, want: ErrIllegalAssignment, law: spec.SubscribedOnly},
		{name: "no such partition", as: fixed{out: spec.Assignment{"m1": set("{a-7}")}}, want: ErrIllegalAssignment, law: spec.ExistingOnly},
		{name: "no such topic", as: fixed{out: spec.Assignment{"m2": set("{c-0}")}}, want: ErrIllegalAssignment, law: spec.ExistingOnly},
		{name: "unsorted set", as: fixed{out: spec.Assignment{"m1": spec.Set{spec.TP("a", 1), spec.TP("a", 0)}}}, want: ErrIllegalAssignment, law: spec.ExistingOnly},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Build(Input{Members: group, Topics: universe, Assignor: tc.as})
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if tc.want == boom && !errors.Is(err, ErrAssignorFailed) {
				t.Fatalf("error %v does not wrap ErrAssignorFailed", err)
			}
			if tc.law != "" {
				var ie *IllegalAssignmentError
				if !errors.As(err, &ie) || len(ie.Violations) == 0 || ie.Violations[0].Law != tc.law || ie.Assignor != "fake-fixed" {
					t.Fatalf("error %v, want an IllegalAssignmentError for %s", err, tc.law)
				}
			}
			if got.Target != nil || got.Changed != nil {
				t.Fatalf("result on error: %+v", got)
			}
		})
	}

	// A member the assignor leaves out gets an empty target (Kafka's
	// Assignment.EMPTY).
	got, err := Build(Input{Members: group, Topics: universe, Assignor: fixed{out: spec.Assignment{"m1": set("{a-0}")}},
		Previous: spec.Assignment{"m1": set("{a-0}"), "m2": set("{b-1}")}})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Target: spec.Assignment{"m1": set("{a-0}"), "m2": nil}, Changed: ids("m2"), SubscriptionType: Heterogeneous}
	if d := cmp.Diff(want, got, opts, ignoreRound); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if _, ok := got.Target["m2"]; !ok {
		t.Fatal("m2 missing from the target")
	}
}

// TestBuildRejectsMisuse: caller misuse wraps ErrInvalidInput.
func TestBuildRejectsMisuse(t *testing.T) {
	as := sticky{}
	for _, tc := range []struct {
		name string
		in   Input
	}{
		{"nil assignor", Input{Members: []Member{m1}}},
		{"empty id", Input{Members: []Member{{Topics: []string{"a"}}}, Assignor: as}},
		{"member twice", Input{Members: []Member{m1, m1}, Assignor: as}},
		{"shared instance id", Input{Members: []Member{static1, static2}, Assignor: as}},
		{"upserted twice", Input{Upsert: []Member{m1, m1}, Assignor: as}},
		{"upserted and removed", Input{Upsert: []Member{m1}, Remove: ids("m1"), Assignor: as}},
		{"two upserts share an instance id", Input{Upsert: []Member{static1, static2}, Assignor: as}},
		{"upserted and replaced", Input{Members: []Member{static1}, Upsert: []Member{{ID: "s1", Topics: []string{"a"}}, static2}, Assignor: as}},
		{"invalid previous set", Input{Members: []Member{m1}, Previous: spec.Assignment{"m1": spec.Set{spec.TP("a", 1), spec.TP("a", 1)}}, Assignor: as}},
		{"empty topic name", Input{Members: []Member{{ID: "m1", Topics: []string{""}}}, Assignor: as}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Topics = universe
			if _, err := Build(tc.in); !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("error %v, want ErrInvalidInput", err)
			}
		})
	}
}

// TestBuildWithRealAssignors runs the module's range assignor through Build.
func TestBuildWithRealAssignors(t *testing.T) {
	got, err := Build(Input{Members: []Member{m2, m1}, Topics: universe, Assignor: assign.Range(), Upsert: []Member{both1}})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{
		Target:           spec.Assignment{"m1": set("{a-0 a-1 b-0 b-1}"), "m2": set("{a-2 a-3}")},
		Changed:          ids("m1", "m2"),
		SubscriptionType: Heterogeneous,
	}
	if d := cmp.Diff(want, got, opts, ignoreRound); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if got.Round.Sticky {
		t.Errorf("range claims no stickiness, but the round is marked Sticky")
	}

	// The uniform assignor claims stickiness: its round is marked, with
	// each member's previous target as its claims.
	prev := spec.Assignment{"m1": set("{a-0 a-1}"), "m2": set("{a-2 a-3}")}
	in := Input{Members: []Member{m1, {ID: "m2", Topics: []string{"a"}}}, Topics: spec.Topics{"a": 4}, Assignor: assign.Uniform(), Previous: prev}
	got, err = Build(in)
	if err != nil {
		t.Fatal(err)
	}
	checkRoundOf(t, in, got)
	if !got.Round.Sticky || !got.Round.Claims["m1"].Equal(prev["m1"]) || !got.Round.Claims["m2"].Equal(prev["m2"]) {
		t.Errorf("uniform round: sticky %v, claims %v, want sticky with claims %v", got.Round.Sticky, got.Round.Claims, prev)
	}
	if vs := spec.CheckStableWhenBalanced(got.Round); len(vs) > 0 {
		t.Errorf("a balanced group in which nothing changed: %v", vs)
	}
}

func TestSubscriptionTypeOf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members []Member
		want    SubscriptionType
	}{
		{"no members", nil, Homogeneous},
		{"nothing subscribed", []Member{{ID: "x"}, {ID: "y"}}, Homogeneous},
		{"same topics in any order, with duplicates", []Member{{ID: "x", Topics: []string{"a", "b"}}, {ID: "y", Topics: []string{"b", "a", "a"}}}, Homogeneous},
		{"different topics", []Member{{ID: "x", Topics: []string{"a"}}, {ID: "y", Topics: []string{"b"}}}, Heterogeneous},
		{"a subset", []Member{{ID: "x", Topics: []string{"a"}}, {ID: "y", Topics: []string{"a", "b"}}}, Heterogeneous},
		{"one subscribes to nothing", []Member{{ID: "x", Topics: []string{"a"}}, {ID: "y"}}, Heterogeneous},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SubscriptionTypeOf(tc.members); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
	if Homogeneous.String() != "HOMOGENEOUS" || Heterogeneous.String() != "HETEROGENEOUS" {
		t.Fatal("names are Kafka's")
	}
}

// ignoreRound leaves Result.Round out of comparisons; checkRoundOf checks
// it against the rest of the result.
var ignoreRound = cmpopts.IgnoreFields(Result{}, "Round")

// checkRoundOf checks that res.Round describes the computation: the
// universe of in, every member of the target in the round with the target
// as its assignment, and a legal round (spec.CheckRound).
func checkRoundOf(t *testing.T, in Input, res Result) {
	t.Helper()
	r := res.Round
	if d := cmp.Diff(res.Target, r.Assigned, opts); d != "" {
		t.Errorf("Round.Assigned is not the target (-target +round):\n%s", d)
	}
	if d := cmp.Diff(in.Topics, r.Topics, opts); d != "" {
		t.Errorf("Round.Topics is not the universe:\n%s", d)
	}
	for m := range res.Target {
		if _, ok := r.Subscriptions[m]; !ok {
			t.Errorf("member %s of the target is not in the round", m)
		}
		if _, ok := r.Claims[m]; !ok {
			t.Errorf("member %s of the target has no claims entry", m)
		}
	}
	if vs := spec.CheckRound(r); len(vs) > 0 {
		t.Errorf("the round is not legal: %v", vs)
	}
}

// scribbler is an assignor of a caller's that writes over the universe
// and every member's subscription and owned set it is given, then assigns
// nothing.
type scribbler struct{}

func (scribbler) Name() string { return "fake-scribbler" }

func (scribbler) Assign(g assign.Group) (spec.Assignment, error) {
	for t := range g.Topics {
		g.Topics[t] = 0
	}
	for _, m := range g.Members {
		for k := range m.Topics {
			m.Topics[k] = "scribbled"
		}
		for k := range m.Owned {
			m.Owned[k] = spec.Resource{Topic: "scribbled"}
		}
	}
	return spec.Assignment{}, nil
}

// TestBuildAssignorCannotWriteInput: Build shares the universe and the
// previous targets with the group it validates, so an assignor that writes
// to its input must get a copy (assign.AssignValid): the coordinator's
// metadata image and targets stay as they were.
func TestBuildAssignorCannotWriteInput(t *testing.T) {
	in := Input{
		Members:  []Member{m1, {ID: "m2", Topics: []string{"a", "b"}}},
		Previous: spec.Assignment{"m1": set("{a-0 a-2}"), "m2": set("{a-1 b-0}")},
		Topics:   spec.Topics{"a": 4, "b": 2},
		Assignor: scribbler{},
	}
	before := cloneInput(in)
	universe := maps.Clone(in.Topics)
	got, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, in, cmpopts.IgnoreFields(Input{}, "Assignor", "Topics")); d != "" {
		t.Fatalf("the assignor wrote through Build into its input:\n%s", d)
	}
	if !maps.Equal(universe, in.Topics) {
		t.Fatalf("the assignor wrote through Build into the universe: %v, was %v", in.Topics, universe)
	}
	if want := (spec.Assignment{"m1": nil, "m2": nil}); !got.Target.Equal(want) {
		t.Fatalf("target %s, want %s", got.Target, want)
	}
}
