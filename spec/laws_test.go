package spec

import (
	"slices"
	"strings"
	"testing"
)

func mustSet(t *testing.T, s string) Set {
	t.Helper()
	out, err := ParseSet(s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func violations(vs []Violation) string {
	var out []string
	for _, v := range vs {
		out = append(out, v.String())
	}
	return strings.Join(out, "\n")
}

// TestStateLaws: each row is a view and the violations the state laws
// report, naming the law, the resource and the members.
func TestStateLaws(t *testing.T) {
	topics := Topics{"t": 2, "u": 1}
	tests := []struct {
		name    string
		members []MemberView
		want    string
	}{{
		name: "disjoint owners",
		members: []MemberView{
			{Name: "A", ID: "A-1", Current: true, Subscription: []string{"t"}, Owns: mustSet(t, "{t-0}")},
			{Name: "B", ID: "B-1", Current: true, Subscription: []string{"t"}, Owns: mustSet(t, "{t-1}")},
		},
	}, {
		name: "two current owners",
		members: []MemberView{
			{Name: "A", ID: "A-1", Current: true, Subscription: []string{"t"}, Owns: mustSet(t, "{t-0}")},
			{Name: "B", ID: "B-1", Current: true, Subscription: []string{"t"}, Owns: mustSet(t, "{t-0}")},
		},
		want: "ExclusiveOwnership: t-0 [A B]: owned by more than one member that is not fenced",
	}, {
		name: "a fenced zombie is tolerated",
		members: []MemberView{
			{Name: "A", ID: "A-1", Fenced: true, Subscription: []string{"t"}, Owns: mustSet(t, "{t-0}")},
			{Name: "B", ID: "B-1", Current: true, Subscription: []string{"t"}, Owns: mustSet(t, "{t-0}")},
		},
	}, {
		name: "an unfenced departed member is not",
		members: []MemberView{
			{Name: "A", ID: "A-1", Subscription: []string{"t"}, Owns: mustSet(t, "{t-0}")},
			{Name: "B", ID: "B-1", Current: true, Subscription: []string{"t"}, Owns: mustSet(t, "{t-0}")},
		},
		want: "ExclusiveOwnership: t-0 [A B]: owned by more than one member that is not fenced",
	}, {
		name: "unsubscribed topic, unless revoking",
		members: []MemberView{
			{Name: "A", ID: "A-1", Current: true, Subscription: []string{"t"}, Owns: mustSet(t, "{t-0 u-0}")},
			{Name: "B", ID: "B-1", Current: true, Subscription: []string{"t"}, Owns: mustSet(t, "{t-1 u-0}"), Revoking: mustSet(t, "{u-0}")},
		},
		want: "ExclusiveOwnership: u-0 [A B]: owned by more than one member that is not fenced\n" +
			`SubscribedOnly: u-0 [A]: topic "u" is not in the subscription [t]`,
	}, {
		name: "a resource that does not exist",
		members: []MemberView{
			{Name: "A", ID: "A-1", Current: true, Subscription: []string{"t"}, Owns: mustSet(t, "{t-5}")},
		},
		want: "ExistingOnly: t-5 [A]: no such resource",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := View{Topics: topics, Members: tt.members}.Sort()
			if got := violations(CheckState(v)); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestStepLaw(t *testing.T) {
	prev := View{Members: []MemberView{{Name: "A", ID: "A-1", Current: true, Generation: 3, Owns: mustSet(t, "{t-0}")}}}
	for _, tt := range []struct {
		name string
		next MemberView
		want string
	}{
		{"forward", MemberView{Name: "A", ID: "A-1", Current: true, Generation: 4}, ""},
		{"unchanged", MemberView{Name: "A", ID: "A-1", Current: true, Generation: 3, Owns: mustSet(t, "{t-0}")}, ""},
		{"backward", MemberView{Name: "A", ID: "A-1", Current: true, Generation: 2}, "MonotonicGeneration: [A]: member A-1 went from generation 3 to 2"},
		{"reset owning nothing", MemberView{Name: "A", ID: "A-1", Current: true, Generation: NoGeneration}, ""},
		{"reset still owning", MemberView{Name: "A", ID: "A-1", Current: true, Generation: NoGeneration, Owns: mustSet(t, "{t-0}")}, "MonotonicGeneration: [A]: member A-1 reset its generation but still owns {t-0}"},
		{"new membership", MemberView{Name: "A", ID: "A-2", Current: true, Generation: 1}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := violations(CheckStep(prev, View{Members: []MemberView{tt.next}})); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCheckRound: the leader's validation of an assignment round, one row
// per law.
func TestCheckRound(t *testing.T) {
	base := func() Round {
		return Round{
			Topics:        Topics{"t": 3, "u": 1},
			Subscriptions: map[MemberID][]string{"A": {"t"}, "B": {"t", "u"}},
			Claims:        map[MemberID]Set{"A": mustSet(t, "{t-0 t-1}"), "B": mustSet(t, "{t-2}")},
			Cooperative:   true,
		}
	}
	tests := []struct {
		name     string
		assigned Assignment
		eager    bool
		want     string
	}{
		{"legal: A keeps t-0 and revokes t-1, B gets u-0", Assignment{"A": mustSet(t, "{t-0}"), "B": mustSet(t, "{t-2 u-0}")}, false, ""},
		{"twice", Assignment{"A": mustSet(t, "{t-0 t-1}"), "B": mustSet(t, "{t-1 t-2}")}, false,
			"AssignedOnce: t-1 [A B]: given to more than one member\nCooperativeHandoff: t-1 [A B]: given to B in the round it is revoked from A"},
		{"unknown member", Assignment{"A": mustSet(t, "{t-0 t-1}"), "C": mustSet(t, "{u-0}")}, false, "KnownMembersOnly: [C]: assignment to a member that is not in the round: {u-0}"},
		{"unsubscribed", Assignment{"A": mustSet(t, "{t-0 t-1 u-0}")}, false, `SubscribedOnly: u-0 [A]: topic "u" is not in the subscription [t]`},
		{"nonexistent", Assignment{"B": mustSet(t, "{t-2 t-7}")}, false, "ExistingOnly: t-7 [B]: no such resource"},
		{"handed over in the revoking round", Assignment{"A": mustSet(t, "{t-0}"), "B": mustSet(t, "{t-1 t-2}")}, false, "CooperativeHandoff: t-1 [A B]: given to B in the round it is revoked from A"},
		{"eager rounds may hand over", Assignment{"A": mustSet(t, "{t-0}"), "B": mustSet(t, "{t-1 t-2}")}, true, ""},
		// The edges: the first partition exists, the one at the count
		// does not; a resource given twice names its holders in member
		// order, and an unknown member is not among them; a run of one
		// topic's partitions after another topic's is judged by its own
		// topic.
		{"first and one past the last", Assignment{"B": mustSet(t, "{t-0 t-3 u-0 u-1}")}, true,
			"ExistingOnly: t-3 [B]: no such resource\nExistingOnly: u-1 [B]: no such resource"},
		{"an unknown member's resource is not counted twice", Assignment{"A": mustSet(t, "{t-0}"), "B": mustSet(t, "{t-0 t-2}"), "C": mustSet(t, "{t-0}")}, true,
			"KnownMembersOnly: [C]: assignment to a member that is not in the round: {t-0}\nAssignedOnce: t-0 [A B]: given to more than one member"},
		{"two resources given twice", Assignment{"A": mustSet(t, "{t-0 t-1}"), "B": mustSet(t, "{t-0 t-1 u-0}")}, true,
			"AssignedOnce: t-0 [A B]: given to more than one member\nAssignedOnce: t-1 [A B]: given to more than one member"},
		{"unsubscribed after a subscribed topic", Assignment{"A": mustSet(t, "{t-2 u-0}")}, true, `SubscribedOnly: u-0 [A]: topic "u" is not in the subscription [t]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base()
			r.Assigned = tt.assigned
			r.Cooperative = !tt.eager
			if got := violations(CheckRound(r)); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestConvergenceLaws: coverage, global balance (Kafka's sticky meaning)
// and per-topic balance (range's meaning).
func TestConvergenceLaws(t *testing.T) {
	topics := Topics{"t": 4, "u": 2}
	view := func(a, b string, bSubs ...string) View {
		return View{Topics: topics, Members: []MemberView{
			{Name: "A", ID: "A-1", Current: true, Subscription: []string{"t", "u"}, Owns: mustSet(t, a)},
			{Name: "B", ID: "B-1", Current: true, Subscription: bSubs, Owns: mustSet(t, b)},
		}}.Sort()
	}
	tests := []struct {
		name                    string
		v                       View
		coverage, balance, pert string
	}{
		{name: "balanced and covered", v: view("{t-0 t-1 u-0}", "{t-2 t-3 u-1}", "t", "u")},
		{name: "a resource nobody owns", v: view("{t-0 t-1 u-0}", "{t-2 t-3}", "t", "u"),
			coverage: "Coverage: u-1: owned by 0 current members, want 1"},
		{name: "a resource nobody owns, of a topic one member subscribes to", v: view("{t-0 t-1 u-0}", "{t-2 t-3}", "t"),
			coverage: "Coverage: u-1: owned by 0 current members, want 1"},
		{name: "a resource owned twice", v: view("{t-0 t-1 u-0 u-1}", "{t-1 t-2 t-3}", "t"),
			coverage: "Coverage: t-1 [A B]: owned by 2 current members, want 1"},
		{name: "imbalanced where a move helps", v: view("{t-0 t-1 t-2 u-0}", "{t-3 u-1}", "t", "u"),
			balance: "Balance: t-0 [A B]: A owns 4 and B owns 2; t-0 could move",
			pert:    "Balance: [A B]: topic t: A owns 3 of it and B owns 1"},
		{name: "imbalanced in total but no move possible; range's per-topic balance still sees u", v: view("{t-0 t-1 t-2 t-3}", "{u-0 u-1}", "u"),
			pert: "Balance: [B A]: topic u: B owns 2 of it and A owns 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := violations(CheckCoverage(tt.v)); got != tt.coverage {
				t.Errorf("coverage: got %q, want %q", got, tt.coverage)
			}
			if got := violations(CheckBalance(tt.v)); got != tt.balance {
				t.Errorf("balance: got %q, want %q", got, tt.balance)
			}
			if got := violations(CheckTopicBalance(tt.v)); got != tt.pert {
				t.Errorf("topic balance: got %q, want %q", got, tt.pert)
			}
		})
	}
}

func TestDuplicated(t *testing.T) {
	r := func(topic string, p int32) Resource { return Resource{Topic: topic, Partition: p} }
	for _, c := range []struct {
		rs   []Resource
		want bool
	}{
		{nil, false},
		{[]Resource{r("t", 0)}, false},
		{[]Resource{r("t", 1), r("u", 0), r("t", 0)}, false},
		{[]Resource{r("t", 1), r("u", 0), r("t", 1)}, true},
		{[]Resource{r("u", 0), r("t", 0), r("u", 0)}, true},
	} {
		if got := Duplicated(slices.Clone(c.rs)); got != c.want {
			t.Errorf("Duplicated(%v) = %v, want %v", c.rs, got, c.want)
		}
	}
}

// TestConvergenceLawsEdges: a resource owned twice is found wherever it
// sorts among the owned resources, and per-topic balance names, among tied
// members, the first by name as the most and the least loaded.
func TestConvergenceLawsEdges(t *testing.T) {
	member := func(name, owns string) MemberView {
		return MemberView{Name: name, ID: MemberID(name + "-1"), Current: true, Subscription: []string{"t"}, Owns: mustSet(t, owns)}
	}
	twice := View{Topics: Topics{"t": 2}, Members: []MemberView{member("A", "{t-0 t-1}"), member("B", "{t-0}")}}.Sort()
	if got, want := violations(CheckCoverage(twice)), "Coverage: t-0 [A B]: owned by 2 current members, want 1"; got != want {
		t.Errorf("first resource owned twice: got %q, want %q", got, want)
	}
	for _, tt := range []struct {
		a, b, c, want string
	}{
		{"{t-0 t-1}", "{t-2 t-3}", "{}", "Balance: [A C]: topic t: A owns 2 of it and C owns 0"},
		{"{t-0 t-1 t-2}", "{t-3}", "{t-4}", "Balance: [A B]: topic t: A owns 3 of it and B owns 1"},
	} {
		v := View{Topics: Topics{"t": 5}, Members: []MemberView{member("A", tt.a), member("B", tt.b), member("C", tt.c)}}.Sort()
		if got := violations(CheckTopicBalance(v)); got != tt.want {
			t.Errorf("topic balance of A%s B%s C%s: got %q, want %q", tt.a, tt.b, tt.c, got, tt.want)
		}
	}
	if r := TP("t", 1); r.Less(r) {
		t.Errorf("Less(%s, %s) is true", r, r)
	}
}
