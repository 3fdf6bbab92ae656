package world

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestByResourceAgainstMap drives a byResource and a Go map (the type the
// delivery state used before) through the same random changes, and checks
// after each one that they hold the same entries, that the byResource is
// sorted in resource order with one entry per partition (the order the
// encoding writes without sorting), and that no earlier version changed:
// forks share these maps, so a change must leave its receiver as it was.
func TestByResourceAgainstMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		resource := rapid.Custom(func(t *rapid.T) spec.Resource {
			return spec.Resource{Topic: rapid.SampledFrom([]string{"T", "U", "V"}).Draw(t, "topic"), Partition: rapid.Int32Range(0, 3).Draw(t, "partition")}
		})
		var m byResource[int]
		ref := map[spec.Resource]int{}
		type version struct {
			m   byResource[int]
			was string
		}
		var versions []version
		for i := range rapid.IntRange(0, 30).Draw(t, "changes") {
			versions = append(versions, version{m, fmt.Sprint(m)})
			if rapid.Bool().Draw(t, fmt.Sprintf("with %d", i)) {
				r, v := resource.Draw(t, "r"), rapid.IntRange(0, 9).Draw(t, "v")
				m = m.with(r, v)
				ref[r] = v
			} else {
				rs := spec.NewSet(rapid.SliceOfN(resource, 0, 4).Draw(t, "rs")...)
				m = m.without(rs)
				for _, r := range rs {
					delete(ref, r)
				}
			}
			if len(m) != len(ref) {
				t.Fatalf("%d entries %v, want %d %v", len(m), m, len(ref), ref)
			}
			for r, v := range ref {
				if got, ok := m.get(r); !ok || got != v {
					t.Fatalf("get(%s) = %d, %t; want %d (%v)", r, got, ok, v, m)
				}
			}
			if _, ok := m.get(spec.Resource{Topic: "W"}); ok {
				t.Fatalf("get of a partition never set is found in %v", m)
			}
			if !slices.IsSortedFunc(m, func(a, b resourceValue[int]) int { return a.R.Compare(b.R) }) {
				t.Fatalf("not in resource order: %v", m)
			}
			if want := spec.NewSet(slices.Collect(maps.Keys(ref))...); !m.resources().Equal(want) {
				t.Fatalf("resources() = %v, want %v", m.resources(), want)
			}
			for _, v := range versions {
				if fmt.Sprint(v.m) != v.was {
					t.Fatalf("an earlier version changed: %v, was %s", v.m, v.was)
				}
			}
		}
	})
}

// TestByResourceEdges checks what the delivery code relies on beyond the
// map's behaviour: without returns its receiver when it removes nothing
// (no copy for a commit of partitions without positions) and nil when it
// removes everything (an application with no positions left holds none);
// merged sets the other map's values over the receiver's; resources of an
// empty map is the empty set, nil.
func TestByResourceEdges(t *testing.T) {
	t0, t1, u0 := spec.Resource{Topic: "T"}, spec.Resource{Topic: "T", Partition: 1}, spec.Resource{Topic: "U"}
	m := byResource[int](nil).with(t1, 1).with(t0, 0).with(u0, 5)
	if got := m.without(spec.NewSet(spec.Resource{Topic: "V"})); &got[0] != &m[0] {
		t.Errorf("without(nothing held) copied %v", m)
	}
	if got := m.without(spec.NewSet(t0, t1, u0)); got != nil {
		t.Errorf("without(everything) = %#v, want nil", got)
	}
	if got, want := fmt.Sprint(m.without(spec.NewSet(t1))), fmt.Sprint(byResource[int]{{t0, 0}, {u0, 5}}); got != want {
		t.Errorf("without(T-1) = %s, want %s", got, want)
	}
	o := byResource[int](nil).with(t0, 7).with(spec.Resource{Topic: "A"}, 2)
	if got, want := fmt.Sprint(m.merged(o)), fmt.Sprint(byResource[int]{{spec.Resource{Topic: "A"}, 2}, {t0, 7}, {t1, 1}, {u0, 5}}); got != want {
		t.Errorf("merged = %s, want %s", got, want)
	}
	if got := byResource[int](nil).resources(); got != nil {
		t.Errorf("resources of nothing = %#v, want nil", got)
	}
}
