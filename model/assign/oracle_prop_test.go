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

// genOracleGroup draws a group for the oracle: genGroup's groups at small or
// larger limits, or a balanced homogeneous group that a new member joins;
// members with equal subscriptions sometimes share one slice (the new
// code's fast paths look at slice identity).
func genOracleGroup(t *rapid.T) Group {
	var g Group
	switch rapid.IntRange(0, 3).Draw(t, "shape") {
	case 0:
		g = genGroup(t, defaultLimits)
	case 1:
		g = genGroup(t, limits{maxMembers: 8, maxTopics: 6, maxPartitions: 20})
	case 2:
		g = genBalancedHomogeneous(t)
		if rapid.Bool().Draw(t, "joiner") {
			g.Members = append(g.Members, Member{ID: "zz-new", Topics: slices.Clone(g.Members[0].Topics), Generation: spec.NoGeneration})
		}
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
// target return exactly what they returned before.
func TestOracleSticky(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genOracleGroup(t)
		if rapid.IntRange(0, 4).Draw(t, "corrupt") == 0 {
			g = corrupt(t, g)
		}
		got, gotErr := Sticky().Assign(g)
		want, wantErr := oldSticky(g)
		sameResult(t, "Sticky", g, got, want, gotErr, wantErr)
		if wantErr != nil {
			return
		}
		if c, o := ResolveClaims(g), oldResolveClaims(g, false).summary(g); !reflect.DeepEqual(c, o) {
			t.Fatalf("ResolveClaims: %+v, oracle %+v\ngroup: %s", c, o, groupString(g))
		}
		for _, force := range []bool{false, true} {
			got := stickyTarget(g, resolveClaims(g, false), force)
			want := oldStickyTarget(g, oldResolveClaims(g, false), force)
			sameResult(t, fmt.Sprintf("stickyTarget(force=%v)", force), g, got, want, nil, nil)
		}
	})
}

// TestOracleCooperativeSticky: the cooperative sticky assignor, with and
// without its fault switches, returns exactly what it returned before.
func TestOracleCooperativeSticky(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genOracleGroup(t)
		if rapid.IntRange(0, 4).Draw(t, "corrupt") == 0 {
			g = corrupt(t, g)
		}
		for _, opts := range []CooperativeOptions{{}, {NoWithholding: true}, {KeepSameGenerationClaims: true}, {true, true}} {
			got, gotErr := CooperativeStickyWith(opts).Assign(g)
			want, wantErr := oldCooperative(g, opts)
			sameResult(t, fmt.Sprintf("CooperativeSticky(%+v)", opts), g, got, want, gotErr, wantErr)
		}
	})
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
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: cooperative sticky differs from the oracle", s)
			}
			got, _ = Sticky().Assign(g)
			want, _ = oldSticky(g)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: sticky differs from the oracle", s)
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
