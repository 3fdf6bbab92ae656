package assign

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// withRandomRacks gives some topics of g replica racks, so that the
// sub-groups' ReplicaRacks can be checked.
func withRandomRacks(t *rapid.T, g Group) Group {
	for _, name := range g.Topics.Names() {
		if rapid.Bool().Draw(t, "racks-"+name) {
			if g.ReplicaRacks == nil {
				g.ReplicaRacks = map[string][][]string{}
			}
			parts := make([][]string, g.Topics[name])
			for p := range parts {
				parts[p] = []string{[]string{"r0", "r1", "r2"}[rapid.IntRange(0, 2).Draw(t, "rack")]}
			}
			g.ReplicaRacks[name] = parts
		}
	}
	return g
}

// TestStickyComponents: splitComponents splits the effective subscriptions
// into connected components, and each component's sub-problem is a valid
// group carrying its members (every field, Owned restricted to the
// component's topics), its topics and their racks, with a claim index that
// answers winner and changesOwner exactly as the global one, for both claim
// rules.
func TestStickyComponents(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := withRandomRacks(t, genOracleGroup(t))
		for _, keepTied := range []bool{false, true} {
			claims := resolveClaims(g, claimFaults{keepTied: keepTied})
			s := splitComponents(claims)
			checkSplit(t, g, claims, s)
			for k := range s.comps {
				checkSubProblem(t, g, claims, s, k)
			}
		}
	})
}

// checkSplit checks the components of s against the definition.
func checkSplit(t *rapid.T, g Group, claims *claimIndex, s *stickySplit) {
	t.Helper()
	topicOf := map[string]int{} // topic name → component
	for k, c := range s.comps {
		if k > 0 && c.members[0] <= s.comps[k-1].members[0] {
			t.Fatalf("components not numbered by their first member: %v", s.comps)
		}
		var union []string
		for li, i := range c.members {
			if s.compOf[i] != k || s.local[i] != li {
				t.Fatalf("member %d: compOf %d local %d, listed in %d at %d", i, s.compOf[i], s.local[i], k, li)
			}
			union = append(union, claims.eff[i]...)
		}
		slices.Sort(union)
		union = slices.Compact(union)
		var names []string
		for _, ti := range c.topics {
			names = append(names, claims.names[ti])
			topicOf[claims.names[ti]] = k
			if s.topicComp[ti] != k {
				t.Fatalf("topic %s: topicComp %d, listed in %d", claims.names[ti], s.topicComp[ti], k)
			}
		}
		if !slices.Equal(names, union) {
			t.Fatalf("component %d: topics %v, its members subscribe to %v\ngroup: %s", k, names, union, groupString(g))
		}
		homogeneous := true
		for _, i := range c.members {
			homogeneous = homogeneous && slices.Equal(claims.eff[i], names)
		}
		if homogeneous != c.homogeneous {
			t.Fatalf("component %d: homogeneous %v, want %v\ngroup: %s", k, c.homogeneous, homogeneous, groupString(g))
		}
		// Connected: a walk over shared topics from the first member
		// reaches every member of the component.
		reached := map[int]bool{c.members[0]: true}
		for changed := true; changed; {
			changed = false
			for _, i := range c.members {
				for _, j := range c.members {
					if reached[i] && !reached[j] && slices.ContainsFunc(claims.eff[j], func(x string) bool { return slices.Contains(claims.eff[i], x) }) {
						reached[j], changed = true, true
					}
				}
			}
		}
		if len(reached) != len(c.members) {
			t.Fatalf("component %d is not connected: %v of %v\ngroup: %s", k, reached, c.members, groupString(g))
		}
	}
	if len(topicOf) != len(claims.names) {
		t.Fatalf("%d topics in components, %d in the index", len(topicOf), len(claims.names))
	}
	for i, eff := range claims.eff {
		if len(eff) == 0 {
			if s.compOf[i] != -1 {
				t.Fatalf("member %d has no topics but is in component %d", i, s.compOf[i])
			}
			continue
		}
		for _, name := range eff {
			if topicOf[name] != s.compOf[i] {
				t.Fatalf("member %d in component %d subscribes to %s of component %d", i, s.compOf[i], name, topicOf[name])
			}
		}
	}
}

// checkSubProblem checks component k's sub-problem against g.
func checkSubProblem(t *rapid.T, g Group, claims *claimIndex, s *stickySplit, k int) {
	t.Helper()
	c := s.comps[k]
	sub, subClaims := s.subProblem(g, claims, k)
	if err := ValidateGroup(sub); err != nil {
		t.Fatalf("component %d: invalid sub-group: %v\ngroup: %s", k, err, groupString(g))
	}
	inComp := func(topic string) bool {
		ti, ok := slices.BinarySearch(claims.names, topic)
		return ok && s.topicComp[ti] == k
	}
	for li, i := range c.members {
		want := g.Members[i]
		want.Owned = want.Owned.Filter(func(r spec.Resource) bool { return inComp(r.Topic) })
		if d := cmp.Diff(want, sub.Members[li]); d != "" {
			t.Fatalf("component %d, member %d: %s", k, i, d)
		}
	}
	wantTopics := spec.Topics{}
	var wantRacks map[string][][]string
	for _, ti := range c.topics {
		name := claims.names[ti]
		wantTopics[name] = g.Topics[name]
		if racks, ok := g.ReplicaRacks[name]; ok {
			if wantRacks == nil {
				wantRacks = map[string][][]string{}
			}
			wantRacks[name] = racks
		}
	}
	if d := cmp.Diff(wantTopics, sub.Topics); d != "" {
		t.Fatalf("component %d: topics: %s", k, d)
	}
	if d := cmp.Diff(wantRacks, sub.ReplicaRacks); d != "" {
		t.Fatalf("component %d: racks: %s", k, d)
	}
	if subClaims.homogeneous != c.homogeneous {
		t.Fatalf("component %d: sub-index homogeneous %v", k, subClaims.homogeneous)
	}
	for lt, ti := range c.topics {
		if subClaims.names[lt] != claims.names[ti] {
			t.Fatalf("component %d: sub-index names %v", k, subClaims.names)
		}
		size := claims.base[ti+1] - claims.base[ti]
		if subClaims.base[lt+1]-subClaims.base[lt] != size {
			t.Fatalf("component %d: sub-index bases %v", k, subClaims.base)
		}
		for p := range size {
			d, gd := subClaims.base[lt]+p, claims.base[ti]+p
			for li, i := range c.members {
				if (subClaims.winner(d) == li) != (claims.winner(gd) == i) ||
					subClaims.changesOwner(d, li) != claims.changesOwner(gd, i) {
					t.Fatalf("component %d, %s-%d, member %d: sub winner %d changes %v, global winner %d changes %v\ngroup: %s",
						k, claims.names[ti], p, i, subClaims.winner(d), subClaims.changesOwner(d, li),
						claims.winner(gd), claims.changesOwner(gd, i), groupString(g))
				}
			}
			if (subClaims.winner(d) == claimUnclaimed) != (claims.winner(gd) == claimUnclaimed) ||
				(subClaims.winner(d) == claimTied) != (claims.winner(gd) == claimTied) {
				t.Fatalf("component %d, %s-%d: sub winner %d, global %d", k, claims.names[ti], p, subClaims.winner(d), claims.winner(gd))
			}
		}
	}
}

// TestStickyComponentsFixedPoint: on a group that splits, feeding the sticky
// result back at one newer generation returns it unchanged, and the
// cooperative assignor then withholds nothing.
func TestStickyComponentsFixedPoint(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genBucketedGroup(t)
		a, err := Sticky().Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		next := nextRound(g, a, maxGeneration(g)+1)
		for _, as := range []Assignor{Sticky(), CooperativeSticky()} {
			b, err := as.Assign(next)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range g.Members {
				if !a[m.ID].Equal(b[m.ID]) {
					t.Fatalf("%s moves %s: %s then %s\ngroup: %s", as.Name(), m.ID, a[m.ID], b[m.ID], groupString(next))
				}
			}
		}
	})
}

// TestStickyComponentsFollowTheGroupsRackDecision checks that a component
// of a split group follows the whole group's KIP-881 decision. Component
// "b" alone would be rack-blind (all its partitions are on rack r0 only),
// but the group is rack-aware (component "a" has partitions on different
// racks), so the larger quota of "b" goes to its member on r0, which makes
// two of b's three partitions local instead of one. Rack-blind, the tie
// would go to the lower member ID, b1 on r1.
func TestStickyComponentsFollowTheGroupsRackDecision(t *testing.T) {
	g := Group{
		Topics: spec.Topics{"a": 2, "b": 3},
		Members: []Member{
			{ID: "a1", Topics: []string{"a"}, Rack: "r0", Generation: spec.NoGeneration},
			{ID: "a2", Topics: []string{"a"}, Rack: "r1", Generation: spec.NoGeneration},
			{ID: "b1", Topics: []string{"b"}, Rack: "r1", Generation: spec.NoGeneration},
			{ID: "b2", Topics: []string{"b"}, Rack: "r0", Generation: spec.NoGeneration},
		},
		ReplicaRacks: map[string][][]string{
			"a": {{"r0"}, {"r1"}},
			"b": {{"r0"}, {"r0"}, {"r0"}},
		},
	}
	for _, as := range []Assignor{Sticky(), CooperativeSticky()} {
		got, err := as.Assign(g)
		if err != nil {
			t.Fatalf("%s: %v", as.Name(), err)
		}
		want := spec.Assignment{
			"a1": spec.NewSet(spec.TP("a", 0)),
			"a2": spec.NewSet(spec.TP("a", 1)),
			"b1": spec.NewSet(spec.TP("b", 2)),
			"b2": spec.NewSet(spec.TP("b", 0), spec.TP("b", 1)),
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s\ngroup: %s", as.Name(), diff, rackGroupString(g))
		}
		// The same component as a group of its own is rack-blind: KIP-881's
		// rule turns racks off when every partition is on the same racks.
		alone := Group{Topics: spec.Topics{"b": 3}, Members: g.Members[2:], ReplicaRacks: map[string][][]string{"b": g.ReplicaRacks["b"]}}
		blind, err := as.Assign(alone)
		if err != nil {
			t.Fatalf("%s alone: %v", as.Name(), err)
		}
		if blind["b1"].Len() != 2 {
			t.Errorf("%s: component b alone gave b1 %s, want two partitions (rack-blind tie to the lower ID)", as.Name(), blind["b1"])
		}
	}
}
