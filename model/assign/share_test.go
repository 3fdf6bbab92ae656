package assign

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// sharingAssignors are the assignors whose homogeneous builders give a
// member that keeps exactly its claims its Owned set itself
// (homogeneousPlan.collect, collectDense).
func sharingAssignors() []Assignor {
	return []Assignor{Sticky(), CooperativeSticky(), Uniform(), UniformWith(UniformOptions{BeforeKafka18688: true})}
}

// sameArray reports whether a and b are non-empty and start at the same
// element: one set handed on, not a copy.
func sameArray(a, b spec.Set) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}

// withSpareCapacity returns a copy of s whose array has room beyond its
// length: a result that hands s on uncapped would let an append write
// into the caller's array.
func withSpareCapacity(s spec.Set) spec.Set {
	if len(s) == 0 {
		return s
	}
	out := make(spec.Set, len(s), len(s)+3)
	copy(out, s)
	return out
}

// genDisjointHomogeneous draws a homogeneous group whose members claim
// disjoint sets at one generation (some partitions unclaimed), each with
// spare capacity: no claim is contested, so a member whose result is its
// claims won all of them.
func genDisjointHomogeneous(t *rapid.T) Group {
	names, universe := drawUniverse(t, 4, 8)
	g := Group{Topics: universe}
	n := rapid.IntRange(1, 8).Draw(t, "members")
	g.Members = make([]Member, n)
	for i := range g.Members {
		g.Members[i] = Member{ID: spec.MemberID(fmt.Sprintf("m%d", i)), Topics: slices.Clone(names), Generation: 3}
	}
	owned := make([][]spec.Resource, n)
	for _, r := range g.Topics.Resources(names...) {
		if o := rapid.IntRange(-1, n-1).Draw(t, "owner"); o >= 0 {
			owned[o] = append(owned[o], r)
		}
	}
	for i := range g.Members {
		g.Members[i].Owned = withSpareCapacity(spec.NewSet(owned[i]...))
	}
	return g
}

// TestUnchangedSetsAreShared: with uncontested claims and one
// subscription, every member whose result is exactly its claims gets its
// Owned set itself, capped (so that an append cannot write into the
// caller's array); on any group, a result that starts where a member's
// Owned set starts is that set, capped. The values themselves are checked
// against Kafka's algorithms by the oracle tests.
func TestUnchangedSetsAreShared(t *testing.T) {
	for _, a := range sharingAssignors() {
		t.Run(a.Name()+"/uncontested", func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := genDisjointHomogeneous(t)
				out := mustAssign(t, a, g)
				for _, m := range g.Members {
					got := out[m.ID]
					if len(m.Owned) == 0 || !got.Equal(m.Owned) {
						continue
					}
					if !sameArray(got, m.Owned) {
						t.Fatalf("%s: %s keeps exactly its claims %s but gets a copy\ngroup: %s", a.Name(), m.ID, m.Owned, groupString(g))
					}
				}
				checkSharedCapped(t, a, g, out)
			})
		})
	}
	for _, a := range append(allAssignors(), Uniform()) {
		t.Run(a.Name()+"/any", func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := genGroup(t, defaultLimits)
				for i := range g.Members {
					g.Members[i].Owned = withSpareCapacity(g.Members[i].Owned)
				}
				checkSharedCapped(t, a, g, mustAssign(t, a, g))
			})
		})
	}
}

// checkSharedCapped fails when a member's result shares its Owned set's
// array without being exactly that set, capped.
func checkSharedCapped(t *rapid.T, a Assignor, g Group, out spec.Assignment) {
	for _, m := range g.Members {
		got := out[m.ID]
		if !sameArray(got, m.Owned) {
			continue
		}
		if len(got) != len(m.Owned) || cap(got) != len(got) {
			t.Fatalf("%s: %s gets %d of its claims' array with capacity %d, claims %d: not its Owned set, capped\ngroup: %s",
				a.Name(), m.ID, len(got), cap(got), len(m.Owned), groupString(g))
		}
	}
}
