package assign

import (
	"maps"
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
// balance always dominates stickiness.
//
// Both convex costs are parallel arcs handled implicitly: topic→member is an
// arc of cost -1 and capacity c beside one of cost 0 and unbounded capacity,
// member→sink one unit arc per step of cost K·(2l+1), and the residual graph
// offers the cheapest forward and the dearest backward piece of each (the
// others cannot be on a shortest path: a cheaper piece always has room).
//
// The flow is the primal-dual method (successive shortest paths with
// Johnson potentials). Potentials π keep every residual arc's reduced cost
// c(u,v) + π(u) − π(v) non-negative; the zero flow's graph is acyclic, so
// its shortest distances are the first potentials. A phase finds the
// reduced distances d from the source with Dijkstra, stopping at the
// sink's, D, and adds min(d, D) to π, which keeps the reduced costs
// non-negative and makes every arc of a shortest source→sink path
// admissible (reduced cost 0), and every source→sink path of admissible
// arcs a shortest one. It then pushes a blocking flow through the
// admissible arcs, in Dinic's rounds (BFS levels, DFS with current arcs).
// Every path ends in a member's unit step to the sink, so it carries one
// unit, and a member takes at most one unit per phase. Pushing along
// admissible arcs keeps the reduced costs non-negative (a reverse arc gets
// 0, a piece that fills up hands over to the next, dearer one, whose
// reduced cost is positive), so the flow stays a cheapest flow of its value
// and the flow of value P is optimal: the cost that unit-by-unit successive
// shortest paths reach, K·Σ load² − kept minimal.
//
// Cost: F phases, each a Dijkstra, O(E log V), and R Dinic rounds, each
// O(E + n·L) for n units pushed along paths of L arcs; V = topics+members,
// E = the total subscription size. F is at most P, and in practice about
// the number of distinct marginal costs, a few per load level.
//
// Everything runs in a fixed order (topics by index, then their arcs by
// member; members by index, then their arcs by topic; the heap by distance,
// then node), so the flow, and the assignment, do not depend on map order.
func assignGeneral(g Group, eff [][]string, won []spec.Set, racks rackDecision) spec.Assignment {
	f := newStickyFlow(g, eff, won)
	f.solve()
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
	// adjT is byTopic with the other end of each arc, adjM the same per
	// member (by topic index), so the searches skip visited nodes without
	// loading the arc.
	adjT, adjM [][]flowAdj
	load       []int // flow member → sink
	total      int   // P
	k          int64 // balance weight, P+1

	// Potentials of the topics, the members and the sink; the source's is
	// always 0.
	piT, piM []int64
	piSink   int64

	// Scratch space of the phases: Dijkstra's distances (topics, then
	// members) and heap; Dinic's levels and current arcs.
	dist           []int64
	heap           []flowHeapItem
	levelT, levelM []int
	levelSink      int
	iterT, iterM   []int
	queue          []int
}

// flowAdj is an arc seen from one end: the node at the other end (a member
// from a topic, a topic from a member) and the arc's index.
type flowAdj struct {
	node, arc int32
}

// flowHeapItem is a node of Dijkstra's heap: topics are 0..T-1, members
// T+i.
type flowHeapItem struct {
	dist int64
	node int
}

// newStickyFlow builds the network of g with the zero flow.
func newStickyFlow(g Group, eff [][]string, won []spec.Set) *stickyFlow {
	f := &stickyFlow{load: make([]int, len(g.Members))}
	index := map[string]int{}
	for i := range g.Members {
		for _, t := range eff[i] {
			if _, ok := g.Topics[t]; ok {
				index[t] = -1
			}
		}
	}
	f.topics = slices.Sorted(maps.Keys(index))
	f.supply = make([]int, len(f.topics))
	for ti, t := range f.topics {
		index[t] = ti
		f.supply[ti] = int(g.Topics[t])
		f.total += f.supply[ti]
	}
	f.used = make([]int, len(f.topics))
	// The arcs are numbered by topic, then member, so that the searches
	// scan a topic's arcs in memory order.
	next := make([]int, len(f.topics)+1)
	for i := range g.Members {
		for _, t := range eff[i] {
			if ti, ok := index[t]; ok {
				next[ti+1]++
			}
		}
	}
	for ti := range f.topics {
		next[ti+1] += next[ti]
	}
	f.arcs = make([]flowArc, next[len(f.topics)])
	f.byTopic = make([][]int, len(f.topics))
	f.adjT = make([][]flowAdj, len(f.topics))
	for ti := range f.topics {
		n := next[ti+1] - next[ti]
		f.byTopic[ti] = make([]int, 0, n)
		f.adjT[ti] = make([]flowAdj, 0, n)
	}
	f.adjM = make([][]flowAdj, len(g.Members))
	for i := range g.Members {
		for _, t := range eff[i] {
			ti, ok := index[t]
			if !ok {
				continue
			}
			a := next[ti]
			next[ti]++
			f.arcs[a] = flowArc{topic: ti, member: i}
			f.byTopic[ti] = append(f.byTopic[ti], a)
			f.adjT[ti] = append(f.adjT[ti], flowAdj{node: int32(i), arc: int32(a)})
			f.adjM[i] = append(f.adjM[i], flowAdj{node: int32(ti), arc: int32(a)})
		}
	}
	// A member's arcs follow its sorted effective subscription, and so do
	// its won claims: match them up in one pass.
	for i := range g.Members {
		adj, k := f.adjM[i], 0
		start := 0
		for start < len(won[i]) {
			end := won[i].RunEnd(start)
			for k < len(adj) && f.topics[adj[k].node] != won[i][start].Topic {
				k++
			}
			if k == len(adj) {
				panic("assign: sticky flow claim of a topic outside the subscription")
			}
			f.arcs[adj[k].arc].claims = won[i][start:end:end]
			start = end
		}
	}
	f.k = int64(f.total) + 1
	return f
}

// unreached is the distance of a node the search has not reached.
const unreached = math.MaxInt64

// solve turns the zero flow into the optimal flow of value P.
//
// The zero flow's residual graph is acyclic (source → topic → member →
// sink), so its shortest distances are valid potentials: 0 for the topics,
// for a member the cheapest of its arcs (-1 when it won a claim of a topic
// it subscribes to, else 0), and 0 for the sink, whose unit steps cost at
// least K > 1.
func (f *stickyFlow) solve() {
	nt, nm := len(f.topics), len(f.load)
	f.piT = make([]int64, nt)
	f.piM = make([]int64, nm)
	for a := range f.arcs {
		arc := &f.arcs[a]
		f.piM[arc.member] = min(f.piM[arc.member], arc.fwdCost())
	}
	f.dist = make([]int64, nt+nm)
	f.levelT, f.levelM = make([]int, nt), make([]int, nm)
	f.iterT, f.iterM = make([]int, nt), make([]int, nm)
	pushed := 0
	for pushed < f.total {
		if !f.shortestPaths() {
			panic("assign: sticky flow found no member for a subscribed partition")
		}
		n := f.blockingFlow()
		if n == 0 {
			panic("assign: sticky flow phase pushed nothing")
		}
		pushed += n
	}
}

// sinkCost is the reduced cost of member i's next unit step to the sink.
func (f *stickyFlow) sinkCost(i int) int64 {
	return f.k*int64(2*f.load[i]+1) + f.piM[i] - f.piSink
}

// shortestPaths runs Dijkstra on the reduced costs from the source, stops
// once the sink's distance D is final, and adds every node's distance,
// capped at D, to its potential (D to the sink's). Capping keeps the
// reduced costs non-negative: an arc (u, v) had d(v) ≤ d(u) + c_π(u, v),
// so min(d(v), D) ≤ min(d(u), D) + c_π(u, v). It reports whether the sink
// is reachable.
func (f *stickyFlow) shortestPaths() bool {
	nt := len(f.topics)
	for v := range f.dist {
		f.dist[v] = unreached
	}
	f.heap = f.heap[:0]
	for t := range nt {
		if f.used[t] < f.supply[t] {
			// Reduced cost of source → t: 0 + 0 − π(t).
			f.dist[t] = -f.piT[t]
			f.heapPush(flowHeapItem{f.dist[t], t})
		}
	}
	sink := int64(unreached)
	for len(f.heap) > 0 {
		it := f.heapPop()
		if it.dist != f.dist[it.node] {
			continue // stale
		}
		if it.dist >= sink {
			break
		}
		if it.node < nt {
			t := it.node
			for _, e := range f.adjT[t] {
				v := nt + int(e.node)
				if d := it.dist + f.arcs[e.arc].fwdCost() + f.piT[t] - f.piM[e.node]; d < f.dist[v] {
					f.dist[v] = d
					f.heapPush(flowHeapItem{d, v})
				}
			}
			continue
		}
		i := it.node - nt
		sink = min(sink, it.dist+f.sinkCost(i))
		for _, e := range f.adjM[i] {
			arc := &f.arcs[e.arc]
			if arc.flow == 0 {
				continue
			}
			if d := it.dist + arc.bwdCost() + f.piM[i] - f.piT[e.node]; d < f.dist[e.node] {
				f.dist[e.node] = d
				f.heapPush(flowHeapItem{d, int(e.node)})
			}
		}
	}
	if sink == unreached {
		return false
	}
	for t := range nt {
		f.piT[t] += min(f.dist[t], sink)
	}
	for i := range f.piM {
		f.piM[i] += min(f.dist[nt+i], sink)
	}
	f.piSink += sink
	return true
}

// Admissible arcs: residual arcs of reduced cost 0. Only the cheapest
// forward and dearest backward piece of an arc is residual-relevant, so
// admissibility is read from the current flow.

// admissibleSource reports whether source → t is admissible.
func (f *stickyFlow) admissibleSource(t int) bool {
	return f.used[t] < f.supply[t] && f.piT[t] == 0
}

// admissibleFwd reports whether topic → member along arc is admissible.
func (f *stickyFlow) admissibleFwd(arc *flowArc) bool {
	return arc.fwdCost()+f.piT[arc.topic]-f.piM[arc.member] == 0
}

// admissibleBwd reports whether member → topic along arc (taking one of the
// topic's partitions back) is admissible.
func (f *stickyFlow) admissibleBwd(arc *flowArc) bool {
	return arc.flow > 0 && arc.bwdCost()+f.piM[arc.member]-f.piT[arc.topic] == 0
}

// blockingFlow pushes, in Dinic rounds, unit paths through the admissible
// arcs until the sink is out of their reach, and returns how many.
func (f *stickyFlow) blockingFlow() int {
	pushed := 0
	for f.levels() {
		clear(f.iterT)
		clear(f.iterM)
		for t := range f.topics {
			for f.levelT[t] == 1 && f.admissibleSource(t) && f.pathFromTopic(t) {
				f.used[t]++
				pushed++
			}
		}
	}
	return pushed
}

// levels numbers the nodes by their BFS depth from the source (level 0)
// along admissible arcs, -1 if unreached, and reports whether the sink is
// reached.
func (f *stickyFlow) levels() bool {
	nt := len(f.topics)
	for t := range f.levelT {
		f.levelT[t] = -1
	}
	for i := range f.levelM {
		f.levelM[i] = -1
	}
	f.levelSink = -1
	f.queue = f.queue[:0]
	for t := range nt {
		if f.admissibleSource(t) {
			f.levelT[t] = 1
			f.queue = append(f.queue, t)
		}
	}
	for q := 0; q < len(f.queue); q++ {
		v := f.queue[q]
		if v < nt {
			if f.levelSink >= 0 && f.levelT[v]+1 >= f.levelSink {
				continue
			}
			for _, e := range f.adjT[v] {
				if f.levelM[e.node] < 0 && f.admissibleFwd(&f.arcs[e.arc]) {
					f.levelM[e.node] = f.levelT[v] + 1
					f.queue = append(f.queue, nt+int(e.node))
				}
			}
			continue
		}
		i := v - nt
		if f.levelSink >= 0 && f.levelM[i]+1 > f.levelSink {
			continue
		}
		if f.sinkCost(i) == 0 {
			f.levelSink = f.levelM[i] + 1
			continue
		}
		for _, e := range f.adjM[i] {
			if f.levelT[e.node] < 0 && f.admissibleBwd(&f.arcs[e.arc]) {
				f.levelT[e.node] = f.levelM[i] + 1
				f.queue = append(f.queue, int(e.node))
			}
		}
	}
	return f.levelSink >= 0
}

// pathFromTopic looks for a unit path from topic t to the sink along
// admissible arcs that go one level deeper, from each node's current arc
// on, and pushes one unit along it (the caller pushes source → t).
func (f *stickyFlow) pathFromTopic(t int) bool {
	adj := f.adjT[t]
	for ; f.iterT[t] < len(adj); f.iterT[t]++ {
		e := adj[f.iterT[t]]
		if f.levelM[e.node] != f.levelT[t]+1 {
			continue
		}
		if arc := &f.arcs[e.arc]; f.admissibleFwd(arc) && f.pathFromMember(int(e.node)) {
			arc.flow++
			return true
		}
	}
	f.levelT[t] = -1
	return false
}

// pathFromMember is pathFromTopic from member i: first its step to the
// sink, then its arcs back to topics.
func (f *stickyFlow) pathFromMember(i int) bool {
	if f.levelM[i]+1 == f.levelSink && f.sinkCost(i) == 0 {
		f.load[i]++
		return true
	}
	adj := f.adjM[i]
	for ; f.iterM[i] < len(adj); f.iterM[i]++ {
		e := adj[f.iterM[i]]
		if f.levelT[e.node] != f.levelM[i]+1 {
			continue
		}
		if arc := &f.arcs[e.arc]; f.admissibleBwd(arc) && f.pathFromTopic(int(e.node)) {
			arc.flow--
			return true
		}
	}
	f.levelM[i] = -1
	return false
}

// heapPush and heapPop are a binary min-heap on (dist, node).
func (f *stickyFlow) heapPush(it flowHeapItem) {
	h := append(f.heap, it)
	for c := len(h) - 1; c > 0; {
		p := (c - 1) / 2
		if !flowHeapLess(h[c], h[p]) {
			break
		}
		h[c], h[p] = h[p], h[c]
		c = p
	}
	f.heap = h
}

func (f *stickyFlow) heapPop() flowHeapItem {
	h := f.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for p := 0; ; {
		c := 2*p + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && flowHeapLess(h[c+1], h[c]) {
			c++
		}
		if !flowHeapLess(h[c], h[p]) {
			break
		}
		h[c], h[p] = h[p], h[c]
		p = c
	}
	f.heap = h
	return top
}

func flowHeapLess(a, b flowHeapItem) bool {
	return a.dist < b.dist || a.dist == b.dist && a.node < b.node
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
