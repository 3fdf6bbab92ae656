package assign

import (
	"os"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/spec"
)

// franz-go (github.com/twmb/franz-go) is a test-only dependency: only this
// file imports it. Its cooperative-sticky balancer is called through its
// public API, on the same group as ours: the same member IDs,
// subscriptions, owned partitions and generations, encoded in the consumer
// protocol metadata a JoinGroup response carries (kgo's JoinGroupMetadata).
// The timed part on its side is what a group leader runs on a JoinGroup
// response: MemberBalancer (parsing the metadata) and BalanceOrError
// (balancing and the cooperative adjustment). On our side it is Assign
// (validation, claim resolution, balancing and withholding).

// franzMembers encodes g as the members of a JoinGroup response for the
// cooperative-sticky protocol.
func franzMembers(g Group) []kmsg.JoinGroupResponseMember {
	bal := kgo.CooperativeStickyBalancer()
	out := make([]kmsg.JoinGroupResponseMember, 0, len(g.Members))
	for _, m := range g.Members {
		owned := map[string][]int32{}
		for _, r := range m.Owned {
			owned[r.Topic] = append(owned[r.Topic], r.Partition)
		}
		meta := bal.JoinGroupMetadata(slices.Clone(m.Topics), owned, int32(m.Generation))
		out = append(out, kmsg.JoinGroupResponseMember{MemberID: string(m.ID), ProtocolMetadata: meta})
	}
	return out
}

// franzBalance runs franz-go's cooperative-sticky balancer on the encoded
// members and returns its plan.
func franzBalance(members []kmsg.JoinGroupResponseMember, topics map[string]int32) (*kgo.BalancePlan, error) {
	mb, _, err := kgo.CooperativeStickyBalancer().MemberBalancer(members)
	if err != nil {
		return nil, err
	}
	into, err := mb.(kgo.GroupMemberBalancerOrError).BalanceOrError(topics)
	if err != nil {
		return nil, err
	}
	return into.(*kgo.BalancePlan), nil
}

// franzAssign is franz-go's balancer as a function of a Group, its plan
// turned into an Assignment naming every member of g.
func franzAssign(g Group) (spec.Assignment, error) {
	plan, err := franzBalance(franzMembers(g), map[string]int32(g.Topics))
	if err != nil {
		return nil, err
	}
	out := emptyAssignment(g)
	for id, topics := range plan.AsMemberIDMap() {
		var rs []spec.Resource
		for t, ps := range topics {
			for _, p := range ps {
				rs = append(rs, spec.TP(t, p))
			}
		}
		out[spec.MemberID(id)] = spec.NewSet(rs...)
	}
	return out, nil
}

// coopQuality measures one implementation's rebalance of g: it runs the
// round, feeds the result back as every member's Owned at the next
// generation and runs the follow-up round (the one that hands out the
// resources withheld in the first), then returns the max − min load of the
// final assignment, its Σ load² (the balance measure that also means
// something when members subscribe differently: the smaller, the more even)
// and the number of resources owned before that end up with another member.
func coopQuality(g Group, assign func(Group) (spec.Assignment, error)) (spread, sumSquares, moves int, err error) {
	a := spec.Assignment(nil)
	cur := g
	gen := spec.Generation(0)
	for _, m := range g.Members {
		gen = max(gen, m.Generation)
	}
	for range 2 {
		if a, err = assign(cur); err != nil {
			return 0, 0, 0, err
		}
		gen++
		next := Group{Topics: g.Topics, Members: make([]Member, len(g.Members))}
		for i, m := range cur.Members {
			m.Owned, m.Generation = a[m.ID], gen
			next.Members[i] = m
		}
		cur = next
	}
	lo, hi := -1, 0
	owner := map[spec.Resource]spec.MemberID{}
	for id, s := range a {
		n := s.Len()
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
		sumSquares += n * n
		for _, r := range s {
			owner[r] = id
		}
	}
	for _, m := range g.Members {
		for _, r := range m.Owned {
			if owner[r] != m.ID {
				moves++
			}
		}
	}
	return hi - max(lo, 0), sumSquares, moves, nil
}

// movesLowerBound is the fewest resources that must change owner to balance
// the homogeneous group g: every member ends with ⌊P/M⌋ or ⌈P/M⌉, and at
// best the P mod M larger quotas go to the members owning the most.
func movesLowerBound(g Group) int {
	p := 0
	for _, t := range g.Members[0].Topics {
		p += int(g.Topics[t])
	}
	n := len(g.Members)
	owned := make([]int, n)
	for i, m := range g.Members {
		owned[i] = m.Owned.Len()
	}
	slices.Sort(owned)
	slices.Reverse(owned)
	lb := 0
	for i, o := range owned {
		q := p / n
		if i < p%n {
			q++
		}
		lb += max(0, o-q)
	}
	return lb
}

// coopPair is one franz-go comparison: a named group, full or incremental.
type coopPair struct {
	name string
	// group builds the FULL group; the incremental one is built from it.
	group                    func() Group
	homogeneous, incremental bool
}

// coopPairs are the franz-go comparisons: Kafka's and franz-go's "medium"
// (1,000 members, 50 topics × 1,000 partitions) and "large" (2,000 members,
// 500 topics × 2,000 partitions) homogeneous groups, and the overlapping
// heterogeneous group of BenchmarkStickyComponentsOverlapping (800 members,
// 10 of 80 topics each), full and incremental. The large pair runs only
// under REBALANCE_BENCH_GRID=full or =pairs, since building and checking
// its input takes a few seconds.
func coopPairs() []coopPair {
	var out []coopPair
	for _, s := range coopShapes() {
		out = append(out, coopPair{name: s.String(), group: s.group, homogeneous: true, incremental: s.incremental})
	}
	for _, inc := range []bool{false, true} {
		mode := "full"
		if inc {
			mode = "incremental"
		}
		out = append(out, coopPair{name: benchOverlapping.String() + "/mode=" + mode, group: benchOverlapping.group, incremental: inc})
	}
	return out
}

// coopShapes are the homogeneous groups of coopPairs.
func coopShapes() []benchShape {
	out := []benchShape{
		{members: 1000, perMember: 50, topics: 50},
		{members: 1000, perMember: 50, topics: 50, incremental: true},
	}
	if fullGrid() || os.Getenv(benchGridEnv) == "pairs" {
		out = append(out,
			benchShape{members: 2000, perMember: 500, topics: 500},
			benchShape{members: 2000, perMember: 500, topics: 500, incremental: true})
	}
	return out
}

// BenchmarkCooperativeSticky runs our cooperative-sticky assignor and
// franz-go's side by side on the same groups; the pattern
// 'CooperativeSticky/members=1000/partitions=50000/.*mode=full' selects one
// pair (impl=rebalance and impl=franzgo). Besides time and allocations it
// reports, computed once outside the timed loop over the round and its
// follow-up round: spread (max − min load at the end), moves (resources
// owned before that end with another member) and moves-lb (the fewest
// moves any balanced assignment needs, homogeneous groups only) and
// sum-sq (Σ load² at the end); and thread-ns/op, the CPU time of the
// benchmark's own thread (see threadClock).
func BenchmarkCooperativeSticky(b *testing.B) {
	for _, s := range coopPairs() {
		g := s.group()
		if s.incremental {
			prev, err := Sticky().Assign(g)
			if err != nil {
				b.Fatal(err)
			}
			g = incrementalGroup(g, prev)
		}
		lb := -1
		if s.homogeneous {
			lb = movesLowerBound(g)
		}
		report := func(b *testing.B, spread, sumSquares, moves int) {
			b.ReportMetric(float64(spread), "spread")
			b.ReportMetric(float64(sumSquares), "sum-sq")
			b.ReportMetric(float64(moves), "moves")
			if lb >= 0 {
				b.ReportMetric(float64(lb), "moves-lb")
			}
		}
		b.Run(s.name+"/impl=rebalance", func(b *testing.B) {
			as := CooperativeSticky()
			spread, sumSquares, moves, err := coopQuality(g, as.Assign)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			clock := startThreadClock()
			for b.Loop() {
				if _, err := as.Assign(g); err != nil {
					b.Fatal(err)
				}
			}
			clock.report(b)
			report(b, spread, sumSquares, moves)
		})
		b.Run(s.name+"/impl=franzgo", func(b *testing.B) {
			spread, sumSquares, moves, err := coopQuality(g, franzAssign)
			if err != nil {
				b.Fatal(err)
			}
			members := franzMembers(g)
			topics := map[string]int32(g.Topics)
			b.ReportAllocs()
			b.ResetTimer()
			clock := startThreadClock()
			for b.Loop() {
				if _, err := franzBalance(members, topics); err != nil {
					b.Fatal(err)
				}
			}
			clock.report(b)
			report(b, spread, sumSquares, moves)
		})
	}
}
