package assign

import (
	"math"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// assignGeneral is the sticky assignor for members with different effective
// subscriptions: eff[i] is member i's subscription restricted to topics with
// partitions, won[i] the claims it won of those topics.
//
// It solves a min-cost flow: source → topic (capacity: its partitions) →
// member (one arc per subscription) → sink. A unit on arc topic→member is a
// partition of the topic given to the member; its cost is -1 while the
// member keeps one of its won claims of the topic (the first c units, c the
// number of such claims) and 0 after. The member→sink arc costs
// K·(2l+1) for the member's (l+1)-th partition, K = P+1, so the total cost is
// K·Σ load² − kept. Any two feasible load vectors have sums of squares of the
// same parity (Σ l² ≡ Σ l = P mod 2), so they differ by at least 2K > P, and
// balance always dominates stickiness. Successive shortest paths from the
// zero flow, one unit at a time, keep the flow optimal for its value (no
// negative cycle in the residual graph) and end at the optimum.
func assignGeneral(g Group, eff [][]string, won []spec.Set, racks rackDecision) spec.Assignment {
	f := newStickyFlow(g, eff, won)
	for range f.total {
		f.augment()
	}
	return f.materialize(g, racks)
}

// flowArc is the arc topic→member of the sticky flow.
type flowArc struct {
	topic, member int
	// claims are the won claims of the member on the topic, sorted.
	claims spec.Set
	// flow is the number of the topic's partitions given to the member.
	flow int
}

// fwdCost is the cost of giving the member one more partition of the topic.
func (a *flowArc) fwdCost() int64 {
	if a.flow < a.claims.Len() {
		return -1
	}
	return 0
}

// bwdCost is the cost of taking one partition of the topic back from the
// member (flow > 0).
func (a *flowArc) bwdCost() int64 {
	if a.flow <= a.claims.Len() {
		return 1
	}
	return 0
}

// stickyFlow is the flow network of assignGeneral.
type stickyFlow struct {
	topics  []string // sorted
	supply  []int    // partitions per topic
	used    []int    // flow source → topic
	arcs    []flowArc
	byTopic [][]int // arc indexes per topic, by member index
	load    []int   // flow member → sink
	total   int     // P
	k       int64   // balance weight, P+1

	// Scratch space of the shortest path search.
	distT, distM []int64
	predT, predM []int
}

func newStickyFlow(g Group, eff [][]string, won []spec.Set) *stickyFlow {
	f := &stickyFlow{load: make([]int, len(g.Members))}
	index := map[string]int{}
	for _, t := range g.Topics.Names() {
		for i := range g.Members {
			if containsSorted(eff[i], t) {
				index[t] = len(f.topics)
				f.topics = append(f.topics, t)
				f.supply = append(f.supply, int(g.Topics[t]))
				f.total += int(g.Topics[t])
				break
			}
		}
	}
	f.used = make([]int, len(f.topics))
	f.byTopic = make([][]int, len(f.topics))
	arcOf := map[[2]int]int{}
	for i := range g.Members {
		for _, t := range eff[i] {
			ti := index[t]
			arcOf[[2]int{ti, i}] = len(f.arcs)
			f.arcs = append(f.arcs, flowArc{topic: ti, member: i})
		}
	}
	// The search relaxes arcs by topic, then member: a fixed order.
	for a := range f.arcs {
		f.byTopic[f.arcs[a].topic] = append(f.byTopic[f.arcs[a].topic], a)
	}
	for i := range g.Members {
		start := 0
		for start < len(won[i]) {
			end := start
			for end < len(won[i]) && won[i][end].Topic == won[i][start].Topic {
				end++
			}
			a := arcOf[[2]int{index[won[i][start].Topic], i}]
			f.arcs[a].claims = won[i][start:end:end]
			start = end
		}
	}
	f.k = int64(f.total) + 1
	f.distT = make([]int64, len(f.topics))
	f.distM = make([]int64, len(g.Members))
	f.predT = make([]int, len(f.topics))
	f.predM = make([]int, len(g.Members))
	return f
}

// containsSorted reports whether the sorted slice s holds x.
func containsSorted(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
		if y > x {
			return false
		}
	}
	return false
}

// unreached is the distance of a node the search has not reached.
const unreached = math.MaxInt64

// augment finds a cheapest path source → topic → member (→ topic → member)*
// → sink in the residual graph with Bellman-Ford and pushes one unit along
// it. predT[t] is -1 when t is entered from the source, else the arc whose
// flow the path takes back; predM[i] is the arc that gives i a partition.
func (f *stickyFlow) augment() {
	for t := range f.topics {
		f.distT[t], f.predT[t] = unreached, -1
		if f.used[t] < f.supply[t] {
			f.distT[t] = 0
		}
	}
	for i := range f.distM {
		f.distM[i], f.predM[i] = unreached, -1
	}
	nodes := len(f.topics) + len(f.distM) + 2
	for pass := 0; ; pass++ {
		if pass > nodes {
			panic("assign: sticky flow has a negative cycle")
		}
		changed := false
		for _, arcs := range f.byTopic {
			for _, a := range arcs {
				arc := &f.arcs[a]
				if d := f.distT[arc.topic]; d != unreached && d+arc.fwdCost() < f.distM[arc.member] {
					f.distM[arc.member], f.predM[arc.member] = d+arc.fwdCost(), a
					changed = true
				}
			}
		}
		for _, arcs := range f.byTopic {
			for _, a := range arcs {
				arc := &f.arcs[a]
				if arc.flow == 0 {
					continue
				}
				if d := f.distM[arc.member]; d != unreached && d+arc.bwdCost() < f.distT[arc.topic] {
					f.distT[arc.topic], f.predT[arc.topic] = d+arc.bwdCost(), a
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	best, bestDist := -1, int64(unreached)
	for i, d := range f.distM {
		if d == unreached {
			continue
		}
		if c := d + f.k*int64(2*f.load[i]+1); c < bestDist {
			best, bestDist = i, c
		}
	}
	if best < 0 {
		panic("assign: sticky flow found no member for a subscribed partition")
	}
	f.load[best]++
	i := best
	for steps := 0; ; steps++ {
		if steps > len(f.arcs) {
			panic("assign: sticky flow predecessor chain loops")
		}
		in := &f.arcs[f.predM[i]]
		in.flow++
		t := in.topic
		if f.predT[t] < 0 {
			f.used[t]++
			return
		}
		out := &f.arcs[f.predT[t]]
		out.flow--
		i = out.member
	}
}

// materialize turns the optimal flow into partitions: per topic, each member
// keeps min(flow, claims) of its won claims, and the topic's other
// partitions go, in order, to the members whose flow is not yet met, the one
// holding fewest of the topic first (ties to the lower member ID).
//
// When the sticky assignors are rack-aware for g (as decided by racks, or
// by KIP-881's rule on g when racksUndecided; see stickyRacksOf), the flow's
// counts stay, but a member keeps its rack-aligned claims (a replica is on
// its rack) before its others, each lowest first, and the freed
// partitions go first, in order, to the members whose flow is not met and
// whose rack holds a replica (fewest held first, ties to the lower member
// ID), then, as above, to the others: rack alignment is best effort within
// the flow's per-topic counts.
func (f *stickyFlow) materialize(g Group, racks rackDecision) spec.Assignment {
	var (
		ix *stickyIndex
		rk *stickyRacks
	)
	if g.ReplicaRacks != nil {
		ix = newStickyIndex(g)
		if rk = stickyRacksOf(g, ix, racks); rk != nil && !slices.Equal(ix.names, f.topics) {
			panic("assign: sticky flow topics differ from the sticky index")
		}
	}
	got := make([][]spec.Resource, len(g.Members))
	for t, name := range f.topics {
		arcs := f.byTopic[t]
		held := make([]int, len(arcs))
		taken := map[spec.Resource]bool{}
		for k, a := range arcs {
			arc := &f.arcs[a]
			keep := arc.claims[:min(arc.flow, arc.claims.Len())]
			if rk != nil && len(keep) < arc.claims.Len() {
				keep = keepAlignedFirst(arc.claims, arc.flow, func(r spec.Resource) bool {
					return rk.aligned(arc.member, ix.base[t]+int(r.Partition))
				})
			}
			for _, r := range keep {
				taken[r] = true
			}
			got[arc.member] = append(got[arc.member], keep...)
			held[k] = len(keep)
		}
		give := func(r spec.Resource, eligible func(k int) bool) bool {
			pick := -1
			for k, a := range arcs {
				if held[k] < f.arcs[a].flow && (pick < 0 || held[k] < held[pick]) && eligible(k) {
					pick = k
				}
			}
			if pick < 0 {
				return false
			}
			held[pick]++
			taken[r] = true
			got[f.arcs[arcs[pick]].member] = append(got[f.arcs[arcs[pick]].member], r)
			return true
		}
		if rk != nil {
			for p := range int32(f.supply[t]) {
				if r := spec.TP(name, p); !taken[r] {
					give(r, func(k int) bool { return rk.aligned(f.arcs[arcs[k]].member, ix.base[t]+int(p)) })
				}
			}
		}
		for p := range int32(f.supply[t]) {
			if r := spec.TP(name, p); !taken[r] && !give(r, func(int) bool { return true }) {
				panic("assign: sticky flow does not cover topic " + name)
			}
		}
	}
	out := make(spec.Assignment, len(g.Members))
	for i, m := range g.Members {
		out[m.ID] = spec.NewSet(got[i]...)
	}
	return out
}

// keepAlignedFirst returns n of the sorted claims: those for which
// aligned is true first, then the others, each lowest first.
func keepAlignedFirst(claims spec.Set, n int, aligned func(spec.Resource) bool) []spec.Resource {
	out := make([]spec.Resource, 0, n)
	for _, pass := range []bool{true, false} {
		for _, r := range claims {
			if len(out) < n && aligned(r) == pass {
				out = append(out, r)
			}
		}
	}
	return out
}
