package assign

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// This file checks the rack awareness of Sticky and CooperativeSticky
// (KIP-881) on random groups with racks: 0 to 3 member racks, some members
// without one, 1 to 3 replica racks per partition (sometimes on a rack no
// member is on, sometimes unknown), stale generations and double claims
// (genGroup's). rapid prints the seed of a failure (go test -run
// 'TestStickyRacks/<row>' -rapid.seed=N).

// genStickyRackGroup draws a valid group with racks; homogeneous forces every
// member to member 0's subscription.
func genStickyRackGroup(t *rapid.T, homogeneous bool) Group {
	var g Group
	if homogeneous && rapid.IntRange(0, 3).Draw(t, "balanced") == 0 {
		g = genBalancedHomogeneous(t)
	} else {
		g = genGroup(t, defaultLimits)
	}
	if homogeneous {
		for i := range g.Members {
			g.Members[i].Topics = slices.Clone(g.Members[0].Topics)
		}
	}
	pool := []string{"r0", "r1", "r2"}[:rapid.IntRange(0, 3).Draw(t, "racks")]
	for i := range g.Members {
		if len(pool) > 0 && rapid.IntRange(0, 4).Draw(t, "has-rack") > 0 {
			g.Members[i].Rack = rapid.SampledFrom(pool).Draw(t, "rack")
		}
	}
	if rapid.IntRange(0, 5).Draw(t, "no-replica-racks") == 0 {
		return g
	}
	replicas := append(slices.Clone(pool), "rx") // rx: no member is on it
	everywhere := rapid.IntRange(0, 4).Draw(t, "replicas-everywhere") == 0
	g.ReplicaRacks = map[string][][]string{}
	for _, name := range g.Topics.Names() {
		if rapid.IntRange(0, 6).Draw(t, "topic-racks-unknown") == 0 {
			continue
		}
		parts := make([][]string, g.Topics[name])
		for p := range parts {
			if everywhere {
				parts[p] = slices.Clone(replicas)
				continue
			}
			for range rapid.IntRange(1, 3).Draw(t, "replicas") {
				parts[p] = append(parts[p], rapid.SampledFrom(replicas).Draw(t, "replica-rack"))
			}
		}
		g.ReplicaRacks[name] = parts
	}
	if err := ValidateGroup(g); err != nil {
		t.Fatalf("generator made an invalid group: %v\n%s", err, rackGroupString(g))
	}
	return g
}

// withoutRacks is g with every rack removed.
func withoutRacks(g Group) Group {
	out := cloneGroup(g)
	out.ReplicaRacks = nil
	for i := range out.Members {
		out.Members[i].Rack = ""
	}
	return out
}

// rackGroupString is groupString with the racks.
func rackGroupString(g Group) string {
	var b strings.Builder
	b.WriteString(groupString(g))
	for _, m := range g.Members {
		fmt.Fprintf(&b, "\n  %s rack=%q", m.ID, m.Rack)
	}
	for _, t := range slices.Sorted(maps.Keys(g.ReplicaRacks)) {
		fmt.Fprintf(&b, "\n  replicas %s: %v", t, g.ReplicaRacks[t])
	}
	return b.String()
}

// replicaRacksOf returns the racks of the replicas of r (nil if unknown).
func replicaRacksOf(g Group, r spec.Resource) []string {
	if parts, ok := g.ReplicaRacks[r.Topic]; ok {
		return parts[r.Partition]
	}
	return nil
}

// rackAwareSticky is KIP-881's rule for the sticky assignors, written out
// independently of racks.go: some member has a rack, and, over every
// partition of a topic some member effectively subscribes to, some member
// rack holds a replica and some partition lacks one of the replica racks.
func rackAwareSticky(g Group) bool {
	consumer := map[string]bool{}
	for _, m := range g.Members {
		if m.Rack != "" {
			consumer[m.Rack] = true
		}
	}
	if len(consumer) == 0 {
		return false
	}
	topics := map[string]bool{}
	for _, m := range g.Members {
		for _, t := range effectiveSubscription(g, m) {
			topics[t] = true
		}
	}
	union := map[string]bool{}
	var sets []map[string]bool
	for t := range topics {
		for p := range g.Topics[t] {
			set := map[string]bool{}
			for _, r := range replicaRacksOf(g, spec.TP(t, p)) {
				set[r], union[r] = true, true
			}
			sets = append(sets, set)
		}
	}
	shared := false
	for r := range consumer {
		shared = shared || union[r]
	}
	if !shared {
		return false
	}
	for _, s := range sets {
		if len(s) < len(union) {
			return true
		}
	}
	return false
}

// mismatched reports Kafka's racksMismatch: m has a rack and no replica of
// r is on it.
func mismatched(g Group, m Member, r spec.Resource) bool {
	return m.Rack != "" && !slices.Contains(replicaRacksOf(g, r), m.Rack)
}

// alignedCount counts the partitions a gives to a member whose rack holds
// one of their replicas.
func alignedCount(g Group, a spec.Assignment) int {
	n := 0
	for _, m := range g.Members {
		for _, r := range a[m.ID] {
			if m.Rack != "" && slices.Contains(replicaRacksOf(g, r), m.Rack) {
				n++
			}
		}
	}
	return n
}

// sortedLoads is the load vector of a over g's members, sorted.
func sortedLoads(g Group, a spec.Assignment) []int {
	out := make([]int, len(g.Members))
	for i, m := range g.Members {
		out[i] = a[m.ID].Len()
	}
	slices.Sort(out)
	return out
}

// nextRoundRacks is nextRound keeping the replica racks.
func nextRoundRacks(g Group, a spec.Assignment, gen spec.Generation) Group {
	out := nextRound(g, a, gen)
	out.ReplicaRacks = g.ReplicaRacks
	return out
}

// stickyRackAssignors are the two assignors the properties run.
var stickyRackAssignors = []Assignor{Sticky(), CooperativeSticky()}

// convergeRacks runs cooperative rounds of CooperativeSticky from g until a
// round revokes nothing, at most bound rounds, checking spec.CheckRound
// (Cooperative) on every round and that no resource goes back to a member
// it left; it returns the last group and its assignment.
func convergeRacks(t *rapid.T, g Group, bound int) (Group, spec.Assignment) {
	o := owners{}
	o.record(t, 0, wonClaims(g))
	gen := maxGeneration(g)
	for round := 1; ; round++ {
		a := mustAssign(t, CooperativeSticky(), g)
		if vs := spec.CheckRound(RoundOf(g, a, true)); len(vs) > 0 {
			t.Fatalf("round %d: %v\ngroup: %s\nassigned: %s", round, vs, rackGroupString(g), a)
		}
		o.record(t, round, a)
		if !revokes(g, a) {
			return g, a
		}
		if round >= bound {
			t.Fatalf("round %d still revokes; the bound is %d\ngroup: %s\nassigned: %s", round, bound, rackGroupString(g), a)
		}
		gen++
		g = nextRoundRacks(g, a, gen)
	}
}

// TestStickyRacks checks the rack properties the doc comments of Sticky
// and CooperativeSticky state.
func TestStickyRacks(t *testing.T) {
	for _, homogeneous := range []bool{true, false} {
		kind := "heterogeneous"
		if homogeneous {
			kind = "homogeneous"
		}
		for _, as := range stickyRackAssignors {
			name := as.Name() + "/" + kind
			t.Run(name+"/load-vector-as-without-racks", func(t *testing.T) {
				rapid.Check(t, func(t *rapid.T) { checkRackLoads(t, as, genStickyRackGroup(t, homogeneous)) })
			})
			t.Run(name+"/unchanged-when-racks-do-not-apply", func(t *testing.T) {
				rapid.Check(t, func(t *rapid.T) { checkRacksOff(t, as, genStickyRackGroup(t, homogeneous)) })
			})
			t.Run(name+"/fixed-point", func(t *testing.T) {
				rapid.Check(t, func(t *rapid.T) { checkRackFixedPoint(t, as, genStickyRackGroup(t, homogeneous)) })
			})
			t.Run(name+"/keeps-aligned-claims-within-count", func(t *testing.T) {
				rapid.Check(t, func(t *rapid.T) { checkKeepsKeepable(t, as, genStickyRackGroup(t, homogeneous), homogeneous) })
			})
		}
		t.Run("sticky/"+kind+"/aligned-at-least-as-without-racks", func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) { checkAlignedAtLeast(t, genStickyRackGroup(t, homogeneous), homogeneous) })
		})
		if homogeneous {
			t.Run("sticky/homogeneous/no-swap-improves-alignment", func(t *testing.T) {
				rapid.Check(t, func(t *rapid.T) { checkNoImprovingSwap(t, genStickyRackGroup(t, true)) })
			})
		}
		t.Run("cooperative-sticky/"+kind+"/rounds", func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) { checkRackRounds(t, genStickyRackGroup(t, homogeneous)) })
		})
	}
}

// checkRackLoads (property 1): racks never cost balance. For Sticky the
// sorted load vector is the one of the group without racks; for
// CooperativeSticky, whose rounds withhold, it is that of the assignment
// the rounds converge to.
func checkRackLoads(t *rapid.T, as Assignor, g Group) {
	plain := withoutRacks(g)
	var got, want spec.Assignment
	if as.Name() == "sticky" {
		got, want = mustAssign(t, as, g), mustAssign(t, as, plain)
	} else {
		_, got = convergeRacks(t, g, 2)
		_, want = convergeRacks(t, plain, 2)
	}
	if a, b := sortedLoads(g, got), sortedLoads(g, want); !slices.Equal(a, b) {
		t.Fatalf("loads %v with racks, %v without\ngroup: %s\nwith:    %s\nwithout: %s", a, b, rackGroupString(g), got, want)
	}
}

// checkRacksOff (property 2): when KIP-881's rule does not make the group
// rack-aware, the result is the one without racks, bit for bit.
func checkRacksOff(t *rapid.T, as Assignor, g Group) {
	if rackAwareSticky(g) {
		return
	}
	if got, want := mustAssign(t, as, g), mustAssign(t, as, withoutRacks(g)); !got.Equal(want) {
		t.Fatalf("racks do not apply but change the result\ngroup: %s\nwith:    %s\nwithout: %s", rackGroupString(g), got, want)
	}
}

// checkRackFixedPoint (property 3): Sticky's result, fed back as every
// member's Owned at one common newer generation, comes back unchanged from
// both assignors; CooperativeSticky's rounds end at a fixed point.
func checkRackFixedPoint(t *rapid.T, as Assignor, g Group) {
	var a spec.Assignment
	if as.Name() == "sticky" {
		a = mustAssign(t, as, g)
	} else {
		g, a = convergeRacks(t, g, 2)
	}
	next := nextRoundRacks(g, a, maxGeneration(g)+1)
	if b := mustAssign(t, as, next); !b.Equal(a) {
		t.Fatalf("not a fixed point\ngroup: %s\nfirst:  %s\nsecond: %s", rackGroupString(g), a, b)
	}
}

// checkKeepsKeepable (property 5): a homogeneous group's member keeps each
// rack-aligned won claim (it has a rack and a replica is on it), as many as
// its final count allows: with K its such claims and
// c its count in Sticky's target, it keeps at least min(|K|, c) of them,
// and CooperativeSticky keeps the same ones. The general path keeps them
// within the flow's per-topic counts only, which the property cannot see,
// so heterogeneous groups check the cooperative subset property alone.
func checkKeepsKeepable(t *rapid.T, as Assignor, g Group, homogeneous bool) {
	target := mustAssign(t, Sticky(), g)
	a := mustAssign(t, as, g)
	won := ResolveClaims(g).Won
	for _, m := range g.Members {
		var keepable spec.Set
		for _, r := range won[m.ID] {
			if slices.Contains(effectiveSubscription(g, m), r.Topic) && m.Rack != "" && !mismatched(g, m, r) {
				keepable = append(keepable, r)
			}
		}
		kept := keepable.Intersect(a[m.ID]).Len()
		if homogeneous {
			if want := min(keepable.Len(), target[m.ID].Len()); kept < want {
				t.Fatalf("%s keeps %d of its rack-aligned claims %s, its count %d allows %d\ngroup: %s\nassigned: %s",
					m.ID, kept, keepable, target[m.ID].Len(), want, rackGroupString(g), a)
			}
		}
		if lost := keepable.Intersect(target[m.ID]).Minus(a[m.ID]); !lost.IsEmpty() {
			t.Fatalf("%s: Sticky keeps %s but %s does not\ngroup: %s", m.ID, lost, as.Name(), rackGroupString(g))
		}
	}
}

// checkAlignedAtLeast (property 4): racks never lower the number of
// rack-aligned partitions below the rack-blind result's. It holds for
// homogeneous groups (an optimal rack fill after keeping); heterogeneous
// groups only log a counterexample: the flow fixes per-topic counts without
// racks, so materialize may have no aligned member left for a partition
// that the rack-blind tie-breaking happened to align.
func checkAlignedAtLeast(t *rapid.T, g Group, homogeneous bool) {
	got := mustAssign(t, Sticky(), g)
	blind := mustAssign(t, Sticky(), withoutRacks(g))
	if a, b := alignedCount(g, got), alignedCount(g, blind); a < b {
		if homogeneous {
			t.Fatalf("%d partitions rack-aligned, %d without racks\ngroup: %s\nwith:    %s\nwithout: %s", a, b, rackGroupString(g), got, blind)
		}
		t.Logf("general path: %d aligned with racks, %d by the rack-blind result", a, b)
	}
}

// checkNoImprovingSwap: in a homogeneous group, Sticky's rack fill is
// optimal, so no exchange of two partitions, and no move of one partition
// from a member at maxQuota to one at minQuota when the former's count is
// not forced by its rack-aligned claims, places more partitions on a rack
// holding a replica: whenever member i holds d off-rack and member j's rack
// holds a replica of d, j holds nothing off-rack, and j does not have fewer
// partitions than i unless i keeps more than minQuota rack-aligned claims.
func checkNoImprovingSwap(t *rapid.T, g Group) {
	if !rackAwareSticky(g) {
		return
	}
	a := mustAssign(t, Sticky(), g)
	won := ResolveClaims(g).Won
	onRack := func(m Member, r spec.Resource) bool { return m.Rack != "" && !mismatched(g, m, r) }
	for _, mi := range g.Members {
		alignedWon := 0
		for _, r := range won[mi.ID] {
			if onRack(mi, r) {
				alignedWon++
			}
		}
		for _, d := range a[mi.ID] {
			if onRack(mi, d) {
				continue
			}
			for _, mj := range g.Members {
				if mj.ID == mi.ID || !onRack(mj, d) {
					continue
				}
				for _, e := range a[mj.ID] {
					if !onRack(mj, e) {
						t.Fatalf("swapping %s (%s) and %s (%s) aligns more\ngroup: %s\nassigned: %s", d, mi.ID, e, mj.ID, rackGroupString(g), a)
					}
				}
				if a[mj.ID].Len() < a[mi.ID].Len() && alignedWon <= a[mj.ID].Len() {
					t.Fatalf("moving %s from %s to %s aligns more\ngroup: %s\nassigned: %s", d, mi.ID, mj.ID, rackGroupString(g), a)
				}
			}
		}
	}
}

// checkRackRounds (property 6): CooperativeSticky's rounds with racks pass
// spec.CheckRound (nothing handed over in the round it is revoked), never
// move a resource back to a member it left, stop revoking within two rounds
// at a complete and balanced assignment, which is a fixed point; then a
// membership change (a member leaves, or one joins) converges the same way.
func checkRackRounds(t *rapid.T, g Group) {
	for change := range 2 {
		var a spec.Assignment
		g, a = convergeRacks(t, g, 2)
		v := ViewOf(g, a)
		if vs := append(spec.CheckCoverage(v), spec.CheckBalance(v)...); len(vs) > 0 {
			t.Fatalf("converged to %v\ngroup: %s\nassigned: %s", vs, rackGroupString(g), a)
		}
		if b := mustAssign(t, CooperativeSticky(), nextRoundRacks(g, a, maxGeneration(g)+1)); !b.Equal(a) {
			t.Fatalf("not a fixed point:\n%s\n%s", a, b)
		}
		g = nextRoundRacks(g, a, maxGeneration(g)+1)
		if change == 1 {
			return
		}
		if len(g.Members) > 1 && rapid.Bool().Draw(t, "leave") {
			i := rapid.IntRange(0, len(g.Members)-1).Draw(t, "leaver")
			g.Members = slices.Delete(slices.Clone(g.Members), i, i+1)
		} else {
			joiner := Member{ID: "zz-joiner", Topics: slices.Clone(g.Members[0].Topics), Generation: spec.NoGeneration}
			if rapid.Bool().Draw(t, "joiner-has-rack") {
				joiner.Rack = rapid.SampledFrom([]string{"r0", "r1", "r2"}).Draw(t, "joiner-rack")
			}
			g.Members = append(slices.Clone(g.Members), joiner)
		}
	}
}

// kafkaStickyRackGroup builds the group of Kafka's
// AbstractStickyAssignorTest.verifyRackAssignment: topics in the given
// order with their partition counts, brokers on brokerRacks, partition i of
// the topic whose partitions start at global index next on brokers
// (i+j+next) mod len(brokerRacks) for j < rf, consumers consumer0.. on
// consumerRacks ("" for none), all subscribed to every topic, owning owned
// (may be nil) at generation 1.
func kafkaStickyRackGroup(t *testing.T, topics []string, counts []int, rf int, brokerRacks, consumerRacks []string, owned []string) Group {
	g := Group{Topics: spec.Topics{}, ReplicaRacks: map[string][][]string{}}
	next := 0
	for k, name := range topics {
		g.Topics[name] = int32(counts[k])
		parts := make([][]string, counts[k])
		for i := range parts {
			for j := range rf {
				if r := brokerRacks[(i+j+next)%len(brokerRacks)]; r != "" {
					parts[i] = append(parts[i], r)
				}
			}
		}
		g.ReplicaRacks[name] = parts
		next += counts[k]
	}
	for i, rack := range consumerRacks {
		m := Member{ID: spec.MemberID(fmt.Sprintf("consumer%d", i)), Topics: topics, Rack: rack, Generation: spec.NoGeneration}
		if owned != nil {
			m.Owned = mustSet(t, "{"+strings.ReplaceAll(owned[i], ",", "")+"}")
			m.Generation = 1
		}
		g.Members = append(g.Members, m)
	}
	return g
}

// stickyMismatchCount is Kafka's verifyRackAssignment count: partitions given to
// a member with a rack on which none of their replicas is.
func stickyMismatchCount(g Group, a spec.Assignment) int {
	n := 0
	for _, m := range g.Members {
		for _, r := range a[m.ID] {
			if mismatched(g, m, r) {
				n++
			}
		}
	}
	return n
}

// TestStickyRacksKafkaExamples replays Kafka's
// testRackAwareAssignmentWithUniformSubscription (topics t1=6, t2=7, t3=2,
// three consumers subscribed to all). Where Kafka's expected assignment is
// the only one with its mismatch count (rf=1: every partition on one rack,
// five per rack) the assignment must be Kafka's exactly; with rf=2 several
// assignments are perfectly aligned and our tie-breaking (rack members in
// member order) picks another, so only the mismatch count is compared.
func TestStickyRacksKafkaExamples(t *testing.T) {
	topics, counts := []string{"t1", "t2", "t3"}, []int{6, 7, 2}
	abc := []string{"a", "b", "c"}
	uniform := []string{
		"t1-0, t1-3, t2-0, t2-3, t2-6",
		"t1-1, t1-4, t2-1, t2-4, t3-0",
		"t1-2, t1-5, t2-2, t2-5, t3-1",
	}
	misaligned := []string{
		"t1-0, t1-1, t1-2, t1-3, t1-4",
		"t1-5, t2-0, t2-1, t2-2, t2-3",
		"t2-4, t2-5, t2-6, t3-0, t3-1",
	}
	for _, tc := range []struct {
		name                       string
		as                         Assignor
		rf                         int
		brokerRacks, consumerRacks []string
		owned, want                []string
		exact                      bool
		mismatches                 int
	}{
		{"rf=1", Sticky(), 1, abc, abc, nil, uniform, true, 0},
		{"rf=1/owned-as-expected", Sticky(), 1, abc, abc, uniform, uniform, true, 0},
		{"rf=2", Sticky(), 2, abc, abc, nil, uniform, false, 0},
		{"rf=3/every-rack-has-every-partition", Sticky(), 3, abc, abc, nil, uniform, true, 0},
		// A consumer on a rack with no replica: every partition is on both
		// broker racks, so rack awareness is off and the result is the
		// rack-blind one, c's five partitions mismatched.
		{"consumer-on-empty-rack", Sticky(), 3, []string{"a", "b"}, abc, nil, uniform, true, 5},
		// Misaligned claims move to improve locality (eager)...
		{"misaligned-owned/eager", Sticky(), 1, abc, abc, misaligned, uniform, true, 0},
		// ...and are withheld for a round (cooperative): Kafka expects
		// exactly the aligned claims kept.
		{"misaligned-owned/cooperative", CooperativeSticky(), 1, abc, abc, misaligned,
			[]string{"t1-0, t1-3", "t2-1", "t2-5, t3-1"}, true, 0},
		{"racks-no-replica-on", Sticky(), 3, abc, []string{"d", "e", "f"}, nil, uniform, true, 15},
		{"racks-some-unknown", Sticky(), 3, abc, []string{"", "e", "f"}, nil, uniform, true, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := kafkaStickyRackGroup(t, topics, counts, tc.rf, tc.brokerRacks, tc.consumerRacks, tc.owned)
			got := mustAssign(t, tc.as, g)
			want := spec.Assignment{}
			for i, s := range tc.want {
				want[spec.MemberID(fmt.Sprintf("consumer%d", i))] = mustSet(t, "{"+strings.ReplaceAll(s, ",", "")+"}")
			}
			if tc.exact {
				assertAssignment(t, got, want)
			}
			if n := stickyMismatchCount(g, got); n != tc.mismatches {
				t.Errorf("%d partitions with a rack mismatch, Kafka has %d\ngot: %s", n, tc.mismatches, got)
			}
		})
	}
}

// TestStickyRacksKeepOrder: with racks, a member that owns more
// rack-aligned partitions than its quota keeps them in Kafka's order since
// 3.8 (KAFKA-16277: by partition, then topic), as without racks. Two
// topics of four partitions on racks a and b (partition i of t1 on rack
// i mod 2, t2's likewise), consumer0 (rack a) and consumer1 (rack b) own
// their racks' four each, and two new consumers join, one on each rack:
// the quota is 2, so consumer0 keeps t1-0 and t2-0 (not t1-0 and t1-2,
// its listing order) and, in an eager round, the rest of rack a goes to
// consumer2 (a cooperative round withholds it for a round).
func TestStickyRacksKeepOrder(t *testing.T) {
	for _, as := range []Assignor{Sticky(), CooperativeSticky()} {
		owned := []string{"t1-0, t1-2, t2-0, t2-2", "t1-1, t1-3, t2-1, t2-3", "", ""}
		g := kafkaStickyRackGroup(t, []string{"t1", "t2"}, []int{4, 4}, 1, []string{"a", "b"}, []string{"a", "b", "a", "b"}, owned)
		got := mustAssign(t, as, g)
		want := map[spec.MemberID]string{"consumer0": "t1-0, t2-0", "consumer1": "t1-1, t2-1"}
		if as.Name() == Sticky().Name() {
			want["consumer2"], want["consumer3"] = "t1-2, t2-2", "t1-3, t2-3"
		}
		for id, w := range want {
			if ws := mustSet(t, "{"+strings.ReplaceAll(w, ",", "")+"}"); !got[id].Equal(ws) {
				t.Errorf("%s: %s gets %s, want %s (all: %s)", as.Name(), id, got[id], ws, got)
			}
		}
	}
}

// TestStickyRacksDecision: the sticky assignors' rack decision on the whole
// group (claimIndex.decideRacks, for sticky_components.go's sub-groups) is
// KIP-881's rule as rackAwareSticky writes it out.
func TestStickyRacksDecision(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genStickyRackGroup(t, rapid.Bool().Draw(t, "homogeneous"))
		c := resolveClaims(g, claimFaults{})
		c.decideRacks(g)
		if got, want := c.racks == racksOn, rackAwareSticky(g); got != want {
			t.Fatalf("decideRacks says %v, the rule %v\ngroup: %s", got, want, rackGroupString(g))
		}
	})
}

// TestStickyRacksGeneralPath: with different subscriptions the flow fixes
// how many partitions of each topic each member gets (m0 one of a and b-0,
// m1 one of a and c-0), and materialize gives the freed partitions to
// members on their racks: a-0 (on r1) to m1, a-1 (on r0) to m0. Rack-blind,
// a-0 goes to m0 (fewest held, lower ID), both off-rack.
func TestStickyRacksGeneralPath(t *testing.T) {
	g := Group{
		Topics: spec.Topics{"a": 2, "b": 1, "c": 1},
		Members: []Member{
			{ID: "m0", Topics: []string{"a", "b"}, Rack: "r0", Generation: spec.NoGeneration},
			{ID: "m1", Topics: []string{"a", "c"}, Rack: "r1", Generation: spec.NoGeneration},
		},
		ReplicaRacks: map[string][][]string{"a": {{"r1"}, {"r0"}}, "b": {{"r0"}}, "c": {{"r1"}}},
	}
	for _, as := range stickyRackAssignors {
		assertAssignment(t, mustAssign(t, as, g), parseAssignment(t, map[string]string{"m0": "{a-1 b-0}", "m1": "{a-0 c-0}"}))
	}
	blind := mustAssign(t, Sticky(), withoutRacks(g))
	assertAssignment(t, blind, parseAssignment(t, map[string]string{"m0": "{a-0 b-0}", "m1": "{a-1 c-0}"}))
}

// TestStickyRacksManyRacks: groups with more member racks than the linear
// rack lookup and the mask table of replica sets take (up to 24 members,
// each on its own rack or none): the properties hold there too.
func TestStickyRacksManyRacks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(17, 24).Draw(t, "members")
		names := []string{"a", "b"}
		g := Group{Topics: spec.Topics{}, ReplicaRacks: map[string][][]string{}}
		for _, name := range names {
			g.Topics[name] = int32(rapid.IntRange(0, 40).Draw(t, "partitions"))
			parts := make([][]string, g.Topics[name])
			for p := range parts {
				for range rapid.IntRange(1, 3).Draw(t, "replicas") {
					parts[p] = append(parts[p], fmt.Sprintf("r%02d", rapid.IntRange(0, n+2).Draw(t, "replica-rack")))
				}
			}
			g.ReplicaRacks[name] = parts
		}
		all := g.Topics.Resources(names...)
		owned := make([][]spec.Resource, n)
		for _, r := range all {
			if o := rapid.IntRange(-1, n-1).Draw(t, "owner"); o >= 0 {
				owned[o] = append(owned[o], r)
			}
		}
		for i := range n {
			m := Member{ID: spec.MemberID(fmt.Sprintf("m%02d", i)), Topics: names, Owned: spec.NewSet(owned[i]...), Generation: 1}
			if rapid.IntRange(0, 5).Draw(t, "has-rack") > 0 {
				m.Rack = fmt.Sprintf("r%02d", i)
			}
			g.Members = append(g.Members, m)
		}
		for _, as := range stickyRackAssignors {
			checkRackLoads(t, as, g)
			checkRackFixedPoint(t, as, g)
			checkKeepsKeepable(t, as, g, true)
		}
		checkAlignedAtLeast(t, g, true)
		checkNoImprovingSwap(t, g)
	})
}

// BenchmarkStickyRacksMany is the grid's homogeneous full cell of 10,000
// members × 500,000 partitions × 100 topics (bench_test.go) with 30 racks
// instead of 3: partition p on racks p mod 30 and 7p+1 mod 30, member
// i on rack i mod 30 (hundreds of replica-rack sets: a bigger rack flow).
func BenchmarkStickyRacksMany(b *testing.B) {
	const racks = 30
	s := benchShape{members: 10_000, perMember: 50, topics: 100, racks: true}
	g := s.group()
	for name, parts := range g.ReplicaRacks {
		for p := range parts {
			parts[p] = []string{fmt.Sprintf("rack-%d", p%racks), fmt.Sprintf("rack-%d", (7*p+1)%racks)}
		}
		g.ReplicaRacks[name] = parts
	}
	for i := range g.Members {
		g.Members[i].Rack = fmt.Sprintf("rack-%d", i%racks)
	}
	for _, inc := range []bool{false, true} {
		g := g
		mode := "full"
		if inc {
			mode = "incremental"
			g = incrementalGroup(g, mustAssign(b, Sticky(), g))
		}
		b.Run("sticky/racks=30/mode="+mode, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Sticky().Assign(g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
