package assign

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

func connectSet(t testing.TB, s string) spec.Set {
	t.Helper()
	set, err := spec.ParseSet(s)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func connectAssignment(t testing.TB, kv ...string) spec.Assignment {
	t.Helper()
	a := spec.Assignment{}
	for i := 0; i+1 < len(kv); i += 2 {
		a[spec.MemberID(kv[i])] = connectSet(t, kv[i+1])
	}
	return a
}

func TestLeastLoaded(t *testing.T) {
	onlyTopic := func(allowed map[string]string) func(spec.MemberID, spec.Resource) bool {
		return func(m spec.MemberID, r spec.Resource) bool {
			want, ok := allowed[string(m)]
			return !ok || want == r.Topic
		}
	}
	tests := []struct {
		name     string
		current  spec.Assignment
		eligible func(spec.MemberID, spec.Resource) bool
		toAssign string
		want     spec.Assignment
	}{
		{
			name:     "empty members get round-robin in id order",
			current:  connectAssignment(t, "A", "{}", "B", "{}", "C", "{}"),
			toAssign: "{t-0 t-1 t-2 t-3}",
			want:     connectAssignment(t, "A", "{t-0 t-3}", "B", "{t-1}", "C", "{t-2}"),
		},
		{
			name:     "least loaded first, then ties by id",
			current:  connectAssignment(t, "A", "{t-0 t-1}", "B", "{t-2}", "C", "{}"),
			toAssign: "{t-3 t-4 t-5}",
			want:     connectAssignment(t, "A", "{t-0 t-1}", "B", "{t-2 t-4}", "C", "{t-3 t-5}"),
		},
		{
			name:     "connectors balanced by connector count, before tasks and separately",
			current:  connectAssignment(t, "A", "{a/connector}", "B", "{a-0 a-1}"),
			toAssign: "{b/connector b-0 b-1 c/connector}",
			// Connectors: B has none, so b goes to B, then c to A (tie, id).
			// Tasks: A has none, so b-0 to A, then b-1 to A (1 < 2).
			want: connectAssignment(t, "A", "{a/connector b-0 b-1 c/connector}", "B", "{a-0 a-1 b/connector}"),
		},
		{
			name:     "eligibility: a resource goes only to an eligible member",
			current:  connectAssignment(t, "A", "{}", "B", "{}"),
			eligible: onlyTopic(map[string]string{"A": "x", "B": "y"}),
			toAssign: "{x-0 x-1 y-0}",
			want:     connectAssignment(t, "A", "{x-0 x-1}", "B", "{y-0}"),
		},
		{
			name:     "no eligible member: left out",
			current:  connectAssignment(t, "A", "{}"),
			eligible: onlyTopic(map[string]string{"A": "x"}),
			toAssign: "{x-0 z-0}",
			want:     connectAssignment(t, "A", "{x-0}"),
		},
		{
			name:     "already held: left where it is",
			current:  connectAssignment(t, "A", "{t-0}", "B", "{}"),
			toAssign: "{t-0 t-1}",
			want:     connectAssignment(t, "A", "{t-0}", "B", "{t-1}"),
		},
		{
			name:     "no members",
			current:  spec.Assignment{},
			toAssign: "{t-0}",
			want:     spec.Assignment{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.current.Clone()
			got := LeastLoaded(tc.current, tc.eligible, connectSet(t, tc.toAssign))
			if d := cmp.Diff(tc.want.String(), got.String()); d != "" {
				t.Errorf("LeastLoaded (-want +got):\n%s", d)
			}
			if len(got) != len(tc.want) {
				t.Errorf("got %d members, want %d", len(got), len(tc.want))
			}
			if !before.Equal(tc.current) {
				t.Errorf("current modified: %s, was %s", tc.current, before)
			}
		})
	}
}

func TestConnectBalanceTargets(t *testing.T) {
	tests := []struct {
		name       string
		current    spec.Assignment
		configured string
		want       map[spec.MemberID]ConnectLoad
	}{
		{
			name:       "seed: four partitions over four members",
			current:    connectAssignment(t, "A", "{T-0 T-3}", "B", "{T-1}", "C", "{T-2}", "D", "{}"),
			configured: "{T-0 T-1 T-2 T-3}",
			want:       map[spec.MemberID]ConnectLoad{"A": {Tasks: 1}, "B": {Tasks: 1}, "C": {Tasks: 1}, "D": {Tasks: 1}},
		},
		{
			name:       "extra slots go to members above the floor first",
			current:    connectAssignment(t, "A", "{t-0}", "B", "{t-1 t-2 t-3}", "C", "{t-4 t-5 t-6}"),
			configured: "{t-0 t-1 t-2 t-3 t-4 t-5 t-6 t-7}",
			// 8 over 3: floor 2, two extras: B and C hold more than 2.
			want: map[spec.MemberID]ConnectLoad{"A": {Tasks: 2}, "B": {Tasks: 3}, "C": {Tasks: 3}},
		},
		{
			name:       "leftover extras go in id order",
			current:    connectAssignment(t, "A", "{}", "B", "{}", "C", "{t-0 t-1 t-2}"),
			configured: "{t-0 t-1 t-2 t-3 t-4}",
			// 5 over 3: floor 1, two extras: C (above the floor), then A.
			want: map[spec.MemberID]ConnectLoad{"A": {Tasks: 2}, "B": {Tasks: 1}, "C": {Tasks: 2}},
		},
		{
			name:       "connectors and tasks counted separately",
			current:    connectAssignment(t, "A", "{a/connector b/connector}", "B", "{a-0 a-1 a-2}"),
			configured: "{a/connector a-0 a-1 a-2 b/connector}",
			want:       map[spec.MemberID]ConnectLoad{"A": {Connectors: 1, Tasks: 1}, "B": {Connectors: 1, Tasks: 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ConnectBalanceTargets(tc.current, connectSet(t, tc.configured))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("targets (-want +got):\n%s", d)
			}
		})
	}
}

func TestConnectRevocations(t *testing.T) {
	tests := []struct {
		name       string
		current    spec.Assignment
		configured string
		want       spec.Assignment
	}{
		{
			name:       "seed: D joins, A gives up its last resource",
			current:    connectAssignment(t, "A", "{T-0 T-3}", "B", "{T-1}", "C", "{T-2}", "D", "{}"),
			configured: "{T-0 T-1 T-2 T-3}",
			want:       connectAssignment(t, "A", "{T-3}"),
		},
		{
			name:       "balanced: nothing",
			current:    connectAssignment(t, "A", "{t-0 t-1}", "B", "{t-2}"),
			configured: "{t-0 t-1 t-2}",
			want:       spec.Assignment{},
		},
		{
			name:       "capped at the floor once the extra slots are taken",
			current:    connectAssignment(t, "A", "{t-0 t-1}", "B", "{t-2 t-3}", "C", "{t-4 t-5}", "D", "{}"),
			configured: "{t-0 t-1 t-2 t-3 t-4 t-5}",
			// floor 1, two extras (A, B): C is cut to 1.
			want: connectAssignment(t, "C", "{t-5}"),
		},
		{
			name:       "per kind",
			current:    connectAssignment(t, "A", "{a/connector b/connector a-0 a-1}", "B", "{}"),
			configured: "{a/connector a-0 a-1 b/connector}",
			want:       connectAssignment(t, "A", "{a-1 b/connector}"),
		},
		{
			name:       "nothing configured: nothing revoked (Connect's early return)",
			current:    connectAssignment(t, "A", "{a-0 a-1}", "B", "{}"),
			configured: "{}",
			want:       spec.Assignment{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ConnectRevocations(tc.current, connectSet(t, tc.configured))
			if d := cmp.Diff(tc.want.String(), got.String()); d != "" {
				t.Errorf("revocations (-want +got):\n%s", d)
			}
		})
	}
}

// genConnectWorld draws a set of members, a configured universe of
// connectors and tasks, and a current assignment of part of it (no resource
// twice).
func genConnectWorld(t *rapid.T) (spec.Assignment, spec.Set) {
	nMembers := rapid.IntRange(1, 6).Draw(t, "members")
	nConnectors := rapid.IntRange(0, 4).Draw(t, "connectors")
	var all []spec.Resource
	for c := range nConnectors {
		name := fmt.Sprintf("c%d", c)
		all = append(all, spec.Connector(name))
		for task := range int32(rapid.IntRange(0, 6).Draw(t, "tasks")) {
			all = append(all, spec.Task(name, task))
		}
	}
	configured := spec.NewSet(all...)
	current := spec.Assignment{}
	var ids []spec.MemberID
	for i := range nMembers {
		id := spec.MemberID(fmt.Sprintf("m%d", i))
		ids = append(ids, id)
		current[id] = nil
	}
	owners := map[spec.MemberID][]spec.Resource{}
	for _, r := range configured {
		if o := rapid.IntRange(-1, nMembers-1).Draw(t, "owner"); o >= 0 {
			owners[ids[o]] = append(owners[ids[o]], r)
		}
	}
	for id, rs := range owners {
		current[id] = spec.NewSet(rs...)
	}
	return current, configured
}

func TestLeastLoadedProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		current, configured := genConnectWorld(t)
		if rapid.Bool().Draw(t, "from-empty") {
			for m := range current {
				current[m] = nil
			}
		}
		toAssign := configured.Minus(current.All())
		before := current.Clone()
		got := LeastLoaded(current, nil, toAssign)
		if !before.Equal(current) {
			t.Fatalf("current modified")
		}
		if again := LeastLoaded(current, nil, toAssign); !again.Equal(got) {
			t.Fatalf("not deterministic: %s then %s", got, again)
		}
		seen := map[spec.Resource]spec.MemberID{}
		for _, m := range got.Members() {
			if _, ok := current[m]; !ok {
				t.Fatalf("unknown member %s in result", m)
			}
			if !current[m].Minus(got[m]).IsEmpty() {
				t.Fatalf("member %s lost %s", m, current[m].Minus(got[m]))
			}
			for _, r := range got[m] {
				if o, dup := seen[r]; dup {
					t.Fatalf("%s assigned to %s and %s", r, o, m)
				}
				seen[r] = m
			}
		}
		if len(got) != len(current) {
			t.Fatalf("result has %d members, want %d", len(got), len(current))
		}
		if !got.All().Equal(configured.Union(before.All())) {
			t.Fatalf("result holds %s, want %s", got.All(), configured)
		}
		// Least-loaded: a member given something ends at most one above the
		// least loaded member of that kind; from empty, the result is
		// balanced per kind.
		for _, k := range ConnectKinds {
			lo, hi := -1, -1
			for _, m := range got.Members() {
				n := ConnectLoadOf(got[m]).Of(k)
				if lo < 0 || n < lo {
					lo = n
				}
				hi = max(hi, n)
			}
			for _, m := range got.Members() {
				gained := got[m].Minus(current[m]).Filter(func(r spec.Resource) bool { return KindOf(r) == k })
				if n := ConnectLoadOf(got[m]).Of(k); !gained.IsEmpty() && n > lo+1 {
					t.Fatalf("%s: member %s was given %s and ends with %d, least loaded has %d", k, m, gained, n, lo)
				}
			}
			if before.All().IsEmpty() && hi-lo > 1 {
				t.Fatalf("%s: from empty, loads range from %d to %d: %s", k, lo, hi, got)
			}
		}
	})
}

func TestLeastLoadedEligibilityProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		current, configured := genConnectWorld(t)
		// Each member may take only some connectors' resources.
		allowed := map[spec.MemberID][]string{}
		for _, m := range current.Members() {
			for _, c := range configured.Topics() {
				if rapid.Bool().Draw(t, "allowed") {
					allowed[m] = append(allowed[m], c)
				}
			}
		}
		eligible := func(m spec.MemberID, r spec.Resource) bool { return slices.Contains(allowed[m], r.Topic) }
		toAssign := configured.Minus(current.All())
		got := LeastLoaded(current, eligible, toAssign)
		for _, m := range got.Members() {
			for _, r := range got[m].Minus(current[m]) {
				if !eligible(m, r) {
					t.Fatalf("%s given to ineligible %s", r, m)
				}
			}
		}
		for _, r := range toAssign.Minus(got.All()) {
			for _, m := range got.Members() {
				if eligible(m, r) {
					t.Fatalf("%s left out although %s is eligible", r, m)
				}
			}
		}
	})
}

// TestConnectRevocationsConverge checks Connect's argument for its
// load-balancing revocations when every member may take everything: the
// targets have the ⌊N/W⌋/+1 shape, the revocation cuts every member to its
// target, and handing out everything unassigned (revoked included) least
// loaded in the follow-up round leaves every kind balanced (loads differ by
// at most one).
func TestConnectRevocationsConverge(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		current, configured := genConnectWorld(t)
		targets := ConnectBalanceTargets(current, configured)
		total := ConnectLoadOf(configured)
		for _, k := range ConnectKinds {
			n, w := total.Of(k), len(current)
			sum, extra := 0, 0
			for _, m := range current.Members() {
				x := targets[m].Of(k)
				sum += x
				switch x {
				case n / w:
				case n/w + 1:
					extra++
				default:
					t.Fatalf("%s: target %d for %s, want %d or %d", k, x, m, n/w, n/w+1)
				}
			}
			if sum != n || extra != n%w {
				t.Fatalf("%s: targets sum to %d with %d extras, want %d with %d", k, sum, extra, n, n%w)
			}
		}
		revoke := ConnectRevocations(current, configured)
		kept := spec.Assignment{}
		for _, m := range current.Members() {
			if !revoke[m].Minus(current[m]).IsEmpty() {
				t.Fatalf("revokes %s from %s, which does not hold it", revoke[m], m)
			}
			kept[m] = current[m].Minus(revoke[m])
			l := ConnectLoadOf(kept[m])
			for _, k := range ConnectKinds {
				if l.Of(k) > targets[m].Of(k) {
					t.Fatalf("%s keeps %d %ss, target %d", m, l.Of(k), k, targets[m].Of(k))
				}
			}
		}
		final := LeastLoaded(kept, nil, configured.Minus(kept.All()))
		for _, k := range ConnectKinds {
			if lo, hi := connectLoadRange(final, k); hi-lo > 1 {
				t.Fatalf("%s: after revocation and follow-up, loads range from %d to %d: %s", k, lo, hi, final)
			}
		}
	})
}

// connectLoadRange returns the least and the most resources of kind k any
// member of a holds (0, 0 for an assignment without members).
func connectLoadRange(a spec.Assignment, k ConnectKind) (lo, hi int) {
	lo = -1
	for _, m := range a.Members() {
		n := ConnectLoadOf(a[m]).Of(k)
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	return max(lo, 0), hi
}
