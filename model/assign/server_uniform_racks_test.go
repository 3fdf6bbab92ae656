package assign

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// srvRackGroup draws a homogeneous group (srvGenGroup's, previous targets
// and overlaps included) with racks: 0-3 member racks r0-r2, each member on
// one of them or on none; for each topic, now and then no replica racks
// (unknown), else for each partition 1-3 replica racks (repetitions
// allowed, now and then none) out of 1-4 racks that may include rx, a rack
// without members; and now and then every partition on the same racks.
func srvRackGroup(t *rapid.T) Group {
	g := srvGenGroup(t, srvIdentical)
	racks := rapid.IntRange(0, 3).Draw(t, "member-racks")
	for i := range g.Members {
		if r := rapid.IntRange(-1, racks-1).Draw(t, "rack"); r >= 0 {
			g.Members[i].Rack = fmt.Sprintf("r%d", r)
		}
	}
	universe := []string{"r0", "r1", "r2", "rx"}
	universe = universe[:rapid.IntRange(1, 4).Draw(t, "replica-racks")]
	drawSet := func() []string {
		if rapid.IntRange(0, 15).Draw(t, "no-racks") == 0 {
			return nil
		}
		set := make([]string, rapid.IntRange(1, 3).Draw(t, "replicas"))
		for k := range set {
			set[k] = rapid.SampledFrom(universe).Draw(t, "replica-rack")
		}
		return set
	}
	var same []string
	if rapid.IntRange(0, 4).Draw(t, "same-racks") == 0 {
		same = drawSet()
	}
	g.ReplicaRacks = map[string][][]string{}
	for _, name := range g.Topics.Names() {
		if rapid.IntRange(0, 5).Draw(t, "unknown-topic") == 0 {
			continue
		}
		rows := make([][]string, g.Topics[name])
		for p := range rows {
			if same != nil {
				rows[p] = slices.Clone(same)
			} else {
				rows[p] = drawSet()
			}
		}
		g.ReplicaRacks[name] = rows
	}
	if err := ValidateGroup(g); err != nil {
		t.Fatalf("generator made an invalid group: %v\n%s", err, srvRackString(g))
	}
	return g
}

// srvRackString is srvGroupString with racks.
func srvRackString(g Group) string {
	s := srvGroupString(g)
	for _, m := range g.Members {
		s += fmt.Sprintf("\n  %s rack=%q", m.ID, m.Rack)
	}
	for _, name := range g.Topics.Names() {
		s += fmt.Sprintf("\n  %s racks=%v", name, g.ReplicaRacks[name])
	}
	return s
}

// srvRackFeedBack is srvFeedBack keeping g's racks.
func srvRackFeedBack(g Group, a spec.Assignment) Group {
	out := srvFeedBack(g, a)
	out.ReplicaRacks = g.ReplicaRacks
	return out
}

// srvAlignment is 1 when r is aligned to m (m has a rack and a replica of r
// is on it), -1 when misaligned (m has a rack, r's racks are known and
// none is m's), 0 when neutral, computed from g directly.
func srvAlignment(g Group, m Member, r spec.Resource) int {
	rows := g.ReplicaRacks[r.Topic]
	if m.Rack == "" || rows == nil || len(rows[r.Partition]) == 0 {
		return 0
	}
	if slices.Contains(rows[r.Partition], m.Rack) {
		return 1
	}
	return -1
}

// srvAlignedCount counts the partitions of a aligned to their member.
func srvAlignedCount(g Group, a spec.Assignment) int {
	n := 0
	for _, m := range g.Members {
		for _, r := range a[m.ID] {
			if srvAlignment(g, m, r) == 1 {
				n++
			}
		}
	}
	return n
}

// srvRacksApply is KIP-881's rule over the partitions of topics, computed
// from g directly: some member rack holds a replica, and not every
// partition has the same set of replica racks.
func srvRacksApply(g Group, topics []string) bool {
	memberRacks := map[string]bool{}
	for _, m := range g.Members {
		if m.Rack != "" {
			memberRacks[m.Rack] = true
		}
	}
	overlap, same := false, true
	var first map[string]bool
	for _, r := range g.Topics.Resources(topics...) {
		set := map[string]bool{}
		if rows := g.ReplicaRacks[r.Topic]; rows != nil {
			for _, x := range rows[r.Partition] {
				set[x] = true
				overlap = overlap || memberRacks[x]
			}
		}
		if first == nil {
			first = set
		} else if len(set) != len(first) || !srvSubset(set, first) {
			same = false
		}
	}
	return overlap && !same
}

func srvSubset(a, b map[string]bool) bool {
	for x := range a {
		if !b[x] {
			return false
		}
	}
	return true
}

// TestServerPropertiesUniformRackAware checks UniformOptions.RackAware's
// guarantees on random homogeneous groups with racks, for both
// BeforeKafka18688 settings:
//
//	(f) validity: every partition of the subscribed topics goes to exactly
//	    one member, and every member appears;
//	(a) every member's size is the one it gets without RackAware;
//	(b) when the rule says racks do not apply, the result is the one
//	    without RackAware;
//	(c) when no two previous targets overlap, at least as many partitions
//	    are aligned to their member as without RackAware;
//	(d) when racks apply and no two previous targets overlap, every member
//	    of size q keeps at least min(q, a) of the a partitions of its
//	    previous target aligned to it, and min(q, a+n) of those aligned or
//	    neutral (n the neutral ones);
//	(e) feeding the result back as the previous target changes nothing;
//	(g) when racks apply and no two previous targets overlap, the match
//	    is maximum: given what members kept of their previous targets
//	    (their aligned and neutral partitions), no other placement within
//	    the sizes has more of the other partitions aligned (checked with an
//	    independent augmenting-path matching);
//	(h) when racks apply and no two previous targets overlap, a partition
//	    of a member's previous target that went to a member it is not
//	    aligned to left a member whose new partitions (those not in its
//	    previous target) are all aligned to it: it was given back if its
//	    member had room after the match;
//
// and that the result does not depend on the order or repetitions in the
// replica rack lists, and is deterministic.
func TestServerPropertiesUniformRackAware(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := srvRackGroup(t)
		topics, ok := serverHomogeneous(g)
		if !ok {
			t.Fatalf("not homogeneous:\n%s", srvRackString(g))
		}
		apply := srvRacksApply(g, topics)
		overlaps := srvOverlaps(g)
		all := g.Topics.Resources(topics...)
		for _, before := range []bool{false, true} {
			off := srvAssign(t, UniformWith(UniformOptions{BeforeKafka18688: before}), g)
			as := UniformWith(UniformOptions{BeforeKafka18688: before, RackAware: true})
			on := srvAssign(t, as, g)
			// Every failed property is reported, so that a failure says
			// which of them it breaks.
			var failed []string
			fail := func(format string, args ...any) {
				failed = append(failed, fmt.Sprintf(format, args...))
			}
			// (f)
			if len(on) != len(g.Members) {
				fail("(f) %d members in the result, want %d", len(on), len(g.Members))
			}
			var got []spec.Resource
			for _, m := range g.Members {
				s, ok := on[m.ID]
				if !ok {
					fail("(f) %s missing", m.ID)
				}
				got = append(got, s...)
			}
			if n := len(got); n != all.Len() || !spec.NewSet(got...).Equal(all) {
				fail("(f) assigned %d partitions %v, want each of %v once", n, spec.NewSet(got...), all)
			}
			// (a)
			if l, want := srvLoads(g, on), srvLoads(g, off); !slices.Equal(l, want) {
				fail("(a) sizes %v, want %v", l, want)
			}
			// (b)
			if !apply && !on.Equal(off) {
				fail("(b) racks do not apply, but the result differs")
			}
			// (c)
			if !overlaps {
				if n, want := srvAlignedCount(g, on), srvAlignedCount(g, off); n < want {
					fail("(c) %d partitions aligned, %d without RackAware", n, want)
				}
			}
			// (d)
			if apply && !overlaps {
				for _, m := range g.Members {
					prev := m.Owned.Filter(func(r spec.Resource) bool { return inSubscription(m, r.Topic) && g.Topics.Has(r) })
					q := on[m.ID].Len()
					var aligned, neutral, keptAligned, keptNeutral int
					for _, r := range prev {
						c := srvAlignment(g, m, r)
						kept := on[m.ID].Contains(r)
						switch c {
						case 1:
							aligned++
							if kept {
								keptAligned++
							}
						case 0:
							neutral++
							if kept {
								keptNeutral++
							}
						}
					}
					if keptAligned < min(q, aligned) {
						fail("(d) %s kept %d of its %d aligned partitions, size %d", m.ID, keptAligned, aligned, q)
					}
					if keptAligned+keptNeutral < min(q, aligned+neutral) {
						fail("(d) %s kept %d of its %d aligned or neutral partitions, size %d", m.ID, keptAligned+keptNeutral, aligned+neutral, q)
					}
				}
			}
			// (g) and (h)
			if apply && !overlaps {
				if n, want := srvMovableAligned(g, on); n != want {
					fail("(g) %d partitions outside what members kept are aligned, %d possible", n, want)
				}
				srvCheckGiveBack(g, on, fail)
			}
			// (e)
			if again := srvAssign(t, as, srvRackFeedBack(g, on)); !again.Equal(on) {
				fail("(e) not a fixed point: again %s", again)
			}
			// Rack lists are sets; the assignor is deterministic.
			shuffled := g
			shuffled.ReplicaRacks = map[string][][]string{}
			for name, rows := range g.ReplicaRacks {
				out := make([][]string, len(rows))
				for p, set := range rows {
					out[p] = append(rapid.Permutation(set).Draw(t, "shuffled"), set...)
				}
				shuffled.ReplicaRacks[name] = out
			}
			if again := srvAssign(t, as, shuffled); !again.Equal(on) {
				fail("depends on the order of replica racks: %s", again)
			}
			if again := srvAssign(t, as, g); !again.Equal(on) {
				fail("not deterministic: %s", again)
			}
			if failed != nil {
				t.Fatalf("before=%v apply=%v:\n%s\n%s\noff %s\non  %s", before, apply, strings.Join(failed, "\n"), srvRackString(g), off, on)
			}
		}
	})
}

// TestServerUniformRackAwareExamples: small groups computed by hand from
// the steps of UniformOptions.RackAware.
func TestServerUniformRackAwareExamples(t *testing.T) {
	racks := func(sets ...string) [][]string {
		out := make([][]string, len(sets))
		for p, s := range sets {
			if s != "" {
				out[p] = strings.Fields(s)
			}
		}
		return out
	}
	tests := []struct {
		name    string
		topics  spec.Topics
		members []Member
		racks   map[string][][]string
		want    map[string]string
		// off is the result without RackAware.
		off map[string]string
	}{
		{
			// A (r0) held t-0 and t-1, both on r1 only: misaligned. B (r1)
			// held t-2 (r0 only, misaligned) and t-3 (r0 and r1, aligned).
			// C has no rack. Quotas 2, 2, 2. Keep: B keeps t-3; A releases
			// t-0, t-1, B releases t-2. Match (released partitions are all
			// candidates here): r1 has room for one (B), r0 for two (A);
			// t-0 → B, t-1 finds no room on r1, t-2 → A. Give back: t-1 →
			// A. Fill: C gets t-4 (unknown racks) and t-5 (r2, no member).
			name:   "misaligned previous targets move to their racks",
			topics: spec.Topics{"t": 6},
			members: []Member{
				srvRackMember(t, "A", "r0", "{t-0 t-1}"),
				srvRackMember(t, "B", "r1", "{t-2 t-3}"),
				srvRackMember(t, "C", "", "{}"),
			},
			racks: map[string][][]string{"t": racks("r1", "r1", "r0", "r0 r1", "", "r2")},
			want:  map[string]string{"A": "{t-1 t-2}", "B": "{t-0 t-3}", "C": "{t-4 t-5}"},
			off:   map[string]string{"A": "{t-0 t-1}", "B": "{t-2 t-3}", "C": "{t-4 t-5}"},
		},
		{
			// First assignment, 5 partitions over A (r0), B (r1): quotas 3
			// (A, first in ID order) and 2. Types: {r0} t-0 t-3 t-4, {r1}
			// t-1 t-2. The maximum flow is forced: r0 takes t-0 t-3 t-4, r1
			// t-1 t-2.
			name:   "first assignment",
			topics: spec.Topics{"t": 5},
			members: []Member{
				srvRackMember(t, "A", "r0", "{}"),
				srvRackMember(t, "B", "r1", "{}"),
			},
			racks: map[string][][]string{"t": racks("r0 r2", "r1", "r1", "r0", "r0")},
			want:  map[string]string{"A": "{t-0 t-3 t-4}", "B": "{t-1 t-2}"},
			off:   map[string]string{"A": "{t-0 t-1 t-2}", "B": "{t-3 t-4}"},
		},
		{
			// First assignment: A on r1, B on r0; t-0 is on r0 only, t-1 on
			// r0 and r1. The maximum match gives t-0 to B and t-1 to A;
			// one that gave t-1 to B first (as the first phase of Dinic's
			// algorithm does here, racks being numbered in member order)
			// must reroute it through A.
			name:   "maximum match",
			topics: spec.Topics{"t": 2},
			members: []Member{
				srvRackMember(t, "A", "r1", "{}"),
				srvRackMember(t, "B", "r0", "{}"),
			},
			racks: map[string][][]string{"t": racks("r0", "r0 r1")},
			want:  map[string]string{"A": "{t-1}", "B": "{t-0}"},
			off:   map[string]string{"A": "{t-0}", "B": "{t-1}"},
		},
		{
			// A (r0), B (r1); t-0 on r0 and r1, t-1 on r0 only: B takes
			// t-0 and A t-1, against the order of the fill.
			name:   "maximum match against the order",
			topics: spec.Topics{"t": 2},
			members: []Member{
				srvRackMember(t, "A", "r0", "{}"),
				srvRackMember(t, "B", "r1", "{}"),
			},
			racks: map[string][][]string{"t": racks("r0 r1", "r0")},
			want:  map[string]string{"A": "{t-1}", "B": "{t-0}"},
			off:   map[string]string{"A": "{t-0}", "B": "{t-1}"},
		},
		{
			// Quotas 2 and 2. A keeps t-0. B keeps its aligned t-1 and t-3
			// and releases t-2 (misaligned), although t-2 comes before t-3;
			// the match gives t-2 (r0) to A. Without RackAware B keeps t-1
			// and t-2, and A is filled with t-3.
			name:   "aligned partitions are kept first",
			topics: spec.Topics{"t": 4},
			members: []Member{
				srvRackMember(t, "A", "r0", "{t-0}"),
				srvRackMember(t, "B", "r1", "{t-1 t-2 t-3}"),
			},
			racks: map[string][][]string{"t": racks("r0", "r1", "r0", "r1")},
			want:  map[string]string{"A": "{t-0 t-2}", "B": "{t-1 t-3}"},
			off:   map[string]string{"A": "{t-0 t-3}", "B": "{t-1 t-2}"},
		},
		{
			// A (r0) held t-1 (r1 only, misaligned) and t-2 (r0); B has no
			// rack; t-0's racks are unknown. Quotas 2 (A held more) and 1.
			// A keeps t-2, releases t-1; nobody is on r1, so the match
			// places nothing and t-1 goes back to A. Fill: B gets t-0.
			name:   "misaligned partition given back",
			topics: spec.Topics{"t": 3},
			members: []Member{
				srvRackMember(t, "A", "r0", "{t-1 t-2}"),
				srvRackMember(t, "B", "", "{}"),
			},
			racks: map[string][][]string{"t": racks("", "r1", "r0")},
			want:  map[string]string{"A": "{t-1 t-2}", "B": "{t-0}"},
			off:   map[string]string{"A": "{t-1 t-2}", "B": "{t-0}"},
		},
		{
			// Every partition on the same racks: the rule says racks do not
			// apply, and the result is the one without RackAware.
			name:   "same racks everywhere",
			topics: spec.Topics{"t": 4},
			members: []Member{
				srvRackMember(t, "A", "r0", "{t-1 t-3}"),
				srvRackMember(t, "B", "r1", "{}"),
			},
			racks: map[string][][]string{"t": racks("r0 r1", "r1 r0", "r0 r1", "r1 r1 r0")},
			want:  map[string]string{"A": "{t-1 t-3}", "B": "{t-0 t-2}"},
			off:   map[string]string{"A": "{t-1 t-3}", "B": "{t-0 t-2}"},
		},
		{
			// No member rack holds a replica: racks do not apply.
			name:   "disjoint racks",
			topics: spec.Topics{"t": 2},
			members: []Member{
				srvRackMember(t, "A", "r0", "{}"),
				srvRackMember(t, "B", "r1", "{}"),
			},
			racks: map[string][][]string{"t": racks("r2", "r3")},
			want:  map[string]string{"A": "{t-0}", "B": "{t-1}"},
			off:   map[string]string{"A": "{t-0}", "B": "{t-1}"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.members {
				tc.members[i].Topics = []string{"t"}
			}
			g := Group{Topics: tc.topics, Members: tc.members, ReplicaRacks: tc.racks}
			as := UniformWith(UniformOptions{RackAware: true})
			got := srvAssign(t, as, g)
			srvCheck(t, "rack-aware", got, srvWant(t, tc.want))
			srvCheck(t, "without RackAware", srvAssign(t, Uniform(), g), srvWant(t, tc.off))
			srvCheck(t, "fed back", srvAssign(t, as, srvRackFeedBack(g, got)), got)
		})
	}
}

// srvRackMember is srvMember with a rack; the topics are set by the caller.
func srvRackMember(t testing.TB, id, rack, prev string) Member {
	m := srvMember(t, id, "", prev)
	m.Rack = rack
	return m
}

// srvPrevious is m's previous target within its subscription.
func srvPrevious(g Group, m Member) spec.Set {
	return m.Owned.Filter(func(r spec.Resource) bool { return inSubscription(m, r.Topic) && g.Topics.Has(r) })
}

// srvMovableAligned returns, for a result a of g, the number of partitions
// aligned to their member among those that are not kept aligned or neutral
// partitions of their member's previous target, and the maximum of that
// number over all placements of those partitions within the same sizes (a
// maximum bipartite b-matching by augmenting paths).
func srvMovableAligned(g Group, a spec.Assignment) (int, int) {
	room := make([]int, len(g.Members))
	var movable []spec.Resource
	got := 0
	for i, m := range g.Members {
		prev := srvPrevious(g, m)
		for _, r := range a[m.ID] {
			c := srvAlignment(g, m, r)
			if prev.Contains(r) && c >= 0 {
				continue
			}
			room[i]++
			movable = append(movable, r)
			if c == 1 {
				got++
			}
		}
	}
	held := make([][]int, len(g.Members)) // movable partitions matched to i
	var try func(p int, seen []bool) bool
	try = func(p int, seen []bool) bool {
		for i, m := range g.Members {
			if seen[i] || srvAlignment(g, m, movable[p]) != 1 {
				continue
			}
			seen[i] = true
			if len(held[i]) < room[i] {
				held[i] = append(held[i], p)
				return true
			}
			for k, q := range held[i] {
				if try(q, seen) {
					held[i][k] = p
					return true
				}
			}
		}
		return false
	}
	best := 0
	for p := range movable {
		if try(p, make([]bool, len(g.Members))) {
			best++
		}
	}
	return got, best
}

// srvCheckGiveBack checks (h) of TestServerPropertiesUniformRackAware.
func srvCheckGiveBack(g Group, a spec.Assignment, fail func(string, ...any)) {
	owner := map[spec.Resource]Member{}
	for _, m := range g.Members {
		for _, r := range a[m.ID] {
			owner[r] = m
		}
	}
	for _, m := range g.Members {
		prev := srvPrevious(g, m)
		for _, r := range prev {
			to := owner[r]
			if to.ID == m.ID || srvAlignment(g, to, r) == 1 {
				continue
			}
			for _, x := range a[m.ID].Minus(prev) {
				if srvAlignment(g, m, x) != 1 {
					fail("(h) %s lost %s to %s, not aligned there, but got %s, not aligned to it", m.ID, r, to.ID, x)
				}
			}
		}
	}
}
