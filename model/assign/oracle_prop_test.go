package assign

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// The TestOracle properties check that the assignors return exactly what
// their implementations before issue 6's performance work return
// (oracle_test.go): the same assignment, down to nil versus empty sets
// (reflect.DeepEqual), and the same error, on random groups, valid and not.
//
// One exception: the sticky assignors solve a heterogeneous group (effective
// subscriptions not all equal) per connected component
// (sticky_components.go), and a component that mixes subscriptions with a
// primal-dual min-cost flow (sticky_flow.go) where the oracle pushes one
// unit at a time (sticky_flow_oracle_test.go); either may break ties
// between equally optimal assignments differently. For those groups, and
// for the forced flow on any group, the properties require the same optimum
// instead (stickyOptimumDiff: a valid assignment with the oracle's sorted
// load vector, Σ load² and number of kept won claims; for the cooperative
// assignor, exactly the old withholding applied to that target).
// Homogeneous groups never reach the flow and stay identical.

// genOracleGroup draws a group for the oracle: genGroup's groups at small or
// larger limits, or a balanced homogeneous group that a new member joins;
// members with equal subscriptions sometimes share one slice (the new
// code's fast paths look at slice identity).
func genOracleGroup(t *rapid.T) Group {
	var g Group
	switch rapid.IntRange(0, 4).Draw(t, "shape") {
	case 0:
		g = genGroup(t, defaultLimits)
	case 1:
		g = genGroup(t, limits{maxMembers: 8, maxTopics: 6, maxPartitions: 20})
	case 2:
		g = genBalancedHomogeneous(t)
		if rapid.Bool().Draw(t, "joiner") {
			g.Members = append(g.Members, Member{ID: "zz-new", Topics: slices.Clone(g.Members[0].Topics), Generation: spec.NoGeneration})
		}
	case 3:
		g = genBucketedGroup(t)
	default:
		g = genBalancedHomogeneous(t)
		for i := range g.Members {
			if rapid.IntRange(0, 3).Draw(t, "perturb") == 0 {
				g.Members[i].Generation = spec.Generation(rapid.IntRange(-1, 5).Draw(t, "gen"))
			}
		}
	}
	if rapid.Bool().Draw(t, "share") {
		for i := range g.Members {
			for j := range i {
				if slices.Equal(g.Members[i].Topics, g.Members[j].Topics) {
					g.Members[i].Topics = g.Members[j].Topics
					break
				}
			}
		}
	}
	return g
}

// genBucketedGroup draws a heterogeneous group that splits into components
// more often than genGroup's: topics and members fall into 1 to 3 buckets,
// a member subscribes to its bucket's topics, to a part of them, to nothing
// that exists, or (sometimes) to two buckets, which joins them. Claims are
// drawn over every topic, so members also claim partitions of other
// components' topics, at random generations, with double claims.
func genBucketedGroup(t *rapid.T) Group {
	names := []string{"a", "b", "c", "d", "e", "f"}[:rapid.IntRange(1, 6).Draw(t, "topics")]
	buckets := rapid.IntRange(1, 3).Draw(t, "buckets")
	g := Group{Topics: spec.Topics{}}
	bucket := make([][]string, buckets)
	for k, n := range names {
		g.Topics[n] = int32(rapid.IntRange(0, 8).Draw(t, "partitions-"+n))
		bucket[k%buckets] = append(bucket[k%buckets], n)
	}
	n := rapid.IntRange(1, 10).Draw(t, "members")
	g.Members = make([]Member, n)
	for i := range g.Members {
		b := rapid.IntRange(0, buckets-1).Draw(t, "bucket")
		var subs []string
		switch rapid.IntRange(0, 5).Draw(t, "subscription-kind") {
		case 0: // a part of the bucket
			for _, name := range bucket[b] {
				if rapid.Bool().Draw(t, "subscribe") {
					subs = append(subs, name)
				}
			}
		case 1: // nothing that exists
			subs = []string{"zz-missing"}
		case 2: // two buckets
			subs = append(slices.Clone(bucket[b]), bucket[rapid.IntRange(0, buckets-1).Draw(t, "other-bucket")]...)
			slices.Sort(subs)
			subs = slices.Compact(subs)
		default:
			subs = slices.Clone(bucket[b])
		}
		g.Members[i] = Member{
			ID:         spec.MemberID(fmt.Sprintf("m%d", i)),
			Topics:     subs,
			Generation: spec.Generation(rapid.IntRange(-1, 3).Draw(t, "generation")),
		}
	}
	drawOwned(t, &g, names, func() int { return rapid.IntRange(-1, n-1).Draw(t, "owner") }, 6)
	return g
}

// corrupt sometimes breaks g in one of the ways ValidateGroup rejects.
func corrupt(t *rapid.T, g Group) Group {
	g = cloneGroup(g)
	if len(g.Members) == 0 {
		return g
	}
	i := rapid.IntRange(0, len(g.Members)-1).Draw(t, "victim")
	m := &g.Members[i]
	switch rapid.IntRange(0, 9).Draw(t, "corruption") {
	case 0:
		g.Topics["neg"] = -1
	case 1:
		if i > 0 {
			m.ID = g.Members[i-1].ID
		}
	case 2:
		m.ID = ""
	case 3:
		m.Topics = append(m.Topics, "a")
	case 4:
		m.Topics = append([]string{"zzz"}, m.Topics...)
	case 5:
		m.Owned = append(spec.Set{spec.TP("nope", 0)}, m.Owned...)
	case 6:
		if len(m.Owned) > 0 {
			m.Owned = append(m.Owned, m.Owned[0])
		}
	case 7:
		m.Owned = append(m.Owned, spec.TP("zz-missing", 0))
	case 8:
		m.Generation = -5
	case 9:
		names := g.Topics.Names()
		if len(names) > 0 {
			m.Owned = spec.NewSet(append(slices.Clone(m.Owned), spec.TP(names[0], g.Topics[names[0]]))...)
		}
	}
	// Share subscription slices again after the corruption, so that a
	// corrupt shared subscription is seen twice.
	if rapid.Bool().Draw(t, "reshare") {
		for k := i + 1; k < len(g.Members); k++ {
			if rapid.Bool().Draw(t, "reshare-k") {
				g.Members[k].Topics = m.Topics
			}
		}
	}
	return g
}

// sameResult fails t unless the two results are identical.
func sameResult(t *rapid.T, what string, g Group, got, want spec.Assignment, gotErr, wantErr error) {
	t.Helper()
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%s: error %v, oracle %v\ngroup: %s", what, gotErr, wantErr, groupString(g))
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s differs from the oracle\ngroup: %s\ngot:    %s\noracle: %s\n(nil sets: %v vs %v)", what, groupString(g), got, want, nilSets(got), nilSets(want))
	}
}

// nilSets lists the members whose set is nil, for failure messages.
func nilSets(a spec.Assignment) []spec.MemberID {
	var out []spec.MemberID
	for _, m := range a.Members() {
		if a[m] == nil {
			out = append(out, m)
		}
	}
	return out
}

// TestOracleValidateGroup: ValidateGroup returns the same error as before,
// on valid and corrupt groups.
func TestOracleValidateGroup(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genOracleGroup(t)
		if rapid.Bool().Draw(t, "corrupt") {
			g = corrupt(t, g)
		}
		got, want := ValidateGroup(g), oldValidateGroup(g)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("ValidateGroup: %v, oracle %v\ngroup: %s", got, want, groupString(g))
		}
	})
}

// TestOracleSticky: Sticky, ResolveClaims and both paths of the sticky
// target return exactly what they returned before, or, where the flow or
// the split may break ties differently, the same optimum.
func TestOracleSticky(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genOracleGroup(t)
		if rapid.IntRange(0, 4).Draw(t, "corrupt") == 0 {
			g = corrupt(t, g)
		}
		got, gotErr := Sticky().Assign(g)
		want, wantErr := oldSticky(g)
		if gotErr != nil || wantErr != nil || !heterogeneousAtOracle(g) {
			sameResult(t, "Sticky", g, got, want, gotErr, wantErr)
		} else {
			sameOptimum(t, "Sticky", g, oldResolveClaims(g, false), got, want)
		}
		if wantErr != nil {
			return
		}
		if c, o := ResolveClaims(g), oldResolveClaims(g, false).summary(g); !reflect.DeepEqual(c, o) {
			t.Fatalf("ResolveClaims: %+v, oracle %+v\ngroup: %s", c, o, groupString(g))
		}
		for _, force := range []bool{false, true} {
			what := fmt.Sprintf("stickyTarget(force=%v)", force)
			got := stickyTarget(g, resolveClaims(g, claimFaults{}), force)
			want := oldStickyTarget(g, oldResolveClaims(g, false), force)
			if !force && !heterogeneousAtOracle(g) {
				sameResult(t, what, g, got, want, nil, nil)
			} else {
				sameOptimum(t, what, g, oldResolveClaims(g, false), got, want)
			}
		}
	})
}

// heterogeneousAtOracle reports whether the sticky assignors may break ties
// differently from the oracle on the valid group g: its effective
// subscriptions (topics with partitions) are not all equal, so it reaches
// the component split and the flow.
func heterogeneousAtOracle(g Group) bool {
	var first []string
	for i, m := range g.Members {
		var eff []string
		for _, t := range m.Topics {
			if g.Topics[t] > 0 {
				eff = append(eff, t)
			}
		}
		if i == 0 {
			first = eff
		} else if !slices.Equal(eff, first) {
			return true
		}
	}
	return false
}

// sameOptimum fails t unless stickyOptimumDiff finds nothing.
func sameOptimum(t *rapid.T, what string, g Group, claims oldClaimTable, got, want spec.Assignment) {
	t.Helper()
	if d := stickyOptimumDiff(g, claims, got, want); d != "" {
		t.Fatalf("%s is not the oracle's optimum: %s\ngroup: %s\ngot:    %s\noracle: %s", what, d, groupString(g), got, want)
	}
}

// stickyOptimumDiff compares the sticky target got with the oracle's want
// on the valid group g whose claims resolve to claims: "" when got is valid
// (every member of g named, every partition of a subscribed topic assigned
// once, to a subscriber, nothing else assigned) and has want's sorted load
// vector, Σ load² and number of kept won claims; else what differs.
func stickyOptimumDiff(g Group, claims oldClaimTable, got, want spec.Assignment) string {
	if len(got) != len(g.Members) {
		return fmt.Sprintf("%d members assigned, the group has %d", len(got), len(g.Members))
	}
	holder := map[spec.Resource]spec.MemberID{}
	for _, m := range g.Members {
		set, ok := got[m.ID]
		if !ok {
			return fmt.Sprintf("member %s missing", m.ID)
		}
		for _, r := range set {
			if !slices.Contains(m.Topics, r.Topic) || r.Partition < 0 || r.Partition >= g.Topics[r.Topic] {
				return fmt.Sprintf("%s given to %s, which does not subscribe to it", r, m.ID)
			}
			if h, dup := holder[r]; dup {
				return fmt.Sprintf("%s given to %s and %s", r, h, m.ID)
			}
			holder[r] = m.ID
		}
	}
	for _, topic := range g.Topics.Names() {
		subscribed := false
		for _, m := range g.Members {
			subscribed = subscribed || slices.Contains(m.Topics, topic)
		}
		for p := range g.Topics[topic] {
			if _, ok := holder[spec.TP(topic, p)]; subscribed && !ok {
				return fmt.Sprintf("%s not assigned", spec.TP(topic, p))
			}
		}
	}
	loads := func(a spec.Assignment) []int {
		var out []int
		for _, m := range g.Members {
			out = append(out, a[m.ID].Len())
		}
		slices.Sort(out)
		return out
	}
	if l, o := loads(got), loads(want); !slices.Equal(l, o) {
		return fmt.Sprintf("sorted loads %v, oracle %v", l, o)
	}
	if s, o := sumSquares(g, got), sumSquares(g, want); s != o {
		return fmt.Sprintf("Σ load² %d, oracle %d", s, o)
	}
	kept := func(a spec.Assignment) int {
		n := 0
		for i, m := range g.Members {
			for _, r := range a[m.ID] {
				if c := claims[r]; c != nil && c.winner == i {
					n++
				}
			}
		}
		return n
	}
	if k, o := kept(got), kept(want); k != o {
		return fmt.Sprintf("%d won claims kept, oracle %d", k, o)
	}
	return ""
}

// TestOracleCooperativeSticky: the cooperative sticky assignor, with and
// without its fault switches, returns exactly what it returned before.
func TestOracleCooperativeSticky(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genOracleGroup(t)
		if rapid.IntRange(0, 4).Draw(t, "corrupt") == 0 {
			g = corrupt(t, g)
		}
		for _, opts := range []CooperativeOptions{{}, {NoWithholding: true}, {KeepSameGenerationClaims: true}, {NoWithholding: true, KeepSameGenerationClaims: true}} {
			what := fmt.Sprintf("CooperativeSticky(%+v)", opts)
			got, gotErr := CooperativeStickyWith(opts).Assign(g)
			want, wantErr := oldCooperative(g, opts)
			if gotErr != nil || wantErr != nil || !heterogeneousAtOracle(g) {
				sameResult(t, what, g, got, want, gotErr, wantErr)
				continue
			}
			cooperativeOptimum(t, what, g, opts, got)
		}
	})
}

// cooperativeOptimum fails t unless got, the cooperative sticky assignor's
// result with opts on the valid group g, is the old withholding (or none,
// with NoWithholding) applied to a target that sameOptimum accepts: the
// target of CooperativeStickyWith with NoWithholding and opts' claim rule.
func cooperativeOptimum(t *rapid.T, what string, g Group, opts CooperativeOptions, got spec.Assignment) {
	t.Helper()
	claims := oldResolveClaims(g, opts.KeepSameGenerationClaims)
	target, err := CooperativeStickyWith(CooperativeOptions{NoWithholding: true, KeepSameGenerationClaims: opts.KeepSameGenerationClaims}).Assign(g)
	if err != nil {
		t.Fatalf("%s: target: %v", what, err)
	}
	sameOptimum(t, what+" target", g, claims, target, oldStickyTarget(g, claims, false))
	want := target
	if !opts.NoWithholding {
		want = oldWithhold(g, claims, target)
	}
	sameResult(t, what+" (the old withholding of its target)", g, got, want, nil, nil)
}

// TestOracleUniform: the server-side uniform assignor, with and without
// KAFKA-18688's fix, returns exactly what it returned before.
func TestOracleUniform(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genOracleGroup(t)
		if rapid.IntRange(0, 4).Draw(t, "corrupt") == 0 {
			g = corrupt(t, g)
		}
		for _, opts := range []UniformOptions{{}, {BeforeKafka18688: true}} {
			got, gotErr := UniformWith(opts).Assign(g)
			want, wantErr := oldUniform(g, opts)
			sameResult(t, fmt.Sprintf("Uniform(%+v)", opts), g, got, want, gotErr, wantErr)
		}
	})
}

// TestOracleBenchGroups: on small cells of the benchmark grid, full and
// incremental, the rewritten assignors agree with the oracle.
func TestOracleBenchGroups(t *testing.T) {
	for _, s := range []benchShape{
		{members: 7, perMember: 5, topics: 3},
		{members: 10, perMember: 3, topics: 10},
		{members: 30, perMember: 10, topics: 7, hetero: true},
		{members: 100, perMember: 5, topics: 10},
		{members: 100, perMember: 5, topics: 1000},
	} {
		for _, inc := range []bool{false, true} {
			s.incremental = inc
			g := s.group()
			if inc {
				prev, err := oldSticky(g)
				if err != nil {
					t.Fatal(err)
				}
				g = incrementalGroup(g, prev)
			}
			got, _ := CooperativeSticky().Assign(g)
			want, _ := oldCooperative(g, CooperativeOptions{})
			if heterogeneousAtOracle(g) {
				// Per component and by the flow: the same optimum, the same
				// withholding.
				claims := oldResolveClaims(g, false)
				target, _ := Sticky().Assign(g)
				if d := stickyOptimumDiff(g, claims, target, oldStickyTarget(g, claims, false)); d != "" {
					t.Errorf("%s: sticky is not the oracle's optimum: %s", s, d)
				}
				if !reflect.DeepEqual(got, oldWithhold(g, claims, target)) {
					t.Errorf("%s: cooperative sticky is not the old withholding of sticky's target", s)
				}
			} else {
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: cooperative sticky differs from the oracle", s)
				}
				got, _ = Sticky().Assign(g)
				want, _ = oldSticky(g)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: sticky differs from the oracle", s)
				}
			}
			got, _ = Uniform().Assign(g)
			want, _ = oldUniform(g, UniformOptions{})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: uniform differs from the oracle", s)
			}
		}
	}
}

// TestOracleRange: the client-side range assignor returns exactly what it
// returned before.
func TestOracleRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genOracleGroup(t)
		if rapid.IntRange(0, 4).Draw(t, "corrupt") == 0 {
			g = corrupt(t, g)
		}
		got, gotErr := Range().Assign(g)
		want, wantErr := oldRange(g)
		sameResult(t, "Range", g, got, want, gotErr, wantErr)
	})
}

// TestOracleServerRange: the server-side range assignor returns exactly
// what it returned before.
func TestOracleServerRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genOracleGroup(t)
		if rapid.IntRange(0, 4).Draw(t, "corrupt") == 0 {
			g = corrupt(t, g)
		}
		got, gotErr := ServerRange().Assign(g)
		want, wantErr := oldServerRange(g)
		sameResult(t, "ServerRange", g, got, want, gotErr, wantErr)
	})
}

// TestValidatePrunedGroup: on a group pruned by PruneOwned from one whose
// Owned sets are valid, ValidatePrunedGroup returns what ValidateGroup
// returns, on valid and corrupt groups.
func TestValidatePrunedGroup(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genOracleGroup(t)
		if rapid.Bool().Draw(t, "corrupt") {
			g = corrupt(t, g)
		}
		// What the leader validated: sets (sorted, without repeats).
		for i := range g.Members {
			m := &g.Members[i]
			m.Owned = spec.NewSet(m.Owned...)
			if err := m.Owned.Validate(); err != nil {
				t.Fatalf("member %s: %v", m.ID, err)
			}
		}
		p := PruneOwned(g)
		got, want := ValidatePrunedGroup(p), ValidateGroup(p)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("ValidatePrunedGroup: %v, ValidateGroup %v\ngroup: %s", got, want, groupString(p))
		}
	})
}
