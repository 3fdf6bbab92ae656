package assign

import (
	"slices"
)

// This file holds KIP-881's rule for when an assignor is rack-aware, shared
// by the client-side Range (per topic, range_racks.go) and the sticky
// assignors (once for the whole group, stickyRacks), and the rack data the
// sticky assignors use.

// useRackAware is Kafka's AbstractPartitionAssignor.useRackAwareAssignment:
// racks matter when some consumer rack holds a replica (consumerRacks and
// partitionRacks, the racks of all the replicas considered, intersect) and
// not every partition has replicas on all of partitionRacks: fewest is the
// smallest number of distinct racks of one partition's replicas (0 for a
// partition whose racks are unknown; anything ≥ len(partitionRacks) when
// there are no partitions).
func useRackAware(consumerRacks, partitionRacks map[string]bool, fewest int) bool {
	if len(consumerRacks) == 0 || fewest >= len(partitionRacks) {
		return false
	}
	for r := range consumerRacks {
		if partitionRacks[r] {
			return true
		}
	}
	return false
}

// stickyRacks is the rack data of a group for which the sticky assignors
// are rack-aware (stickyRacksOf): the members' racks and, per dense
// partition of a stickyIndex, the member racks that hold a replica of it.
type stickyRacks struct {
	// names are the distinct member racks, sorted; member[i] is member i's
	// rack as an index into names, -1 when it has none.
	names  []string
	member []int32
	// sets are the distinct sets of member racks holding a replica of some
	// partition, each ascending; setOf[d] is dense partition d's.
	sets  [][]int32
	setOf []int32
}

// rackDecision is whether the sticky assignors are rack-aware, when a
// caller decided it on a larger group than the one at hand (claimIndex.racks).
type rackDecision int8

const (
	racksUndecided rackDecision = iota // decide on the group at hand
	racksOn
	racksOff
)

// racksFor returns the rack data of g for the sticky assignors, nil when
// they are not rack-aware: as decided by c.racks, or by KIP-881's rule on g
// when undecided.
func racksFor(g Group, c *claimIndex) *stickyRacks {
	return stickyRacksOf(g, c.stickyIndex, c.racks)
}

// decideRacks records in c (the claims of the whole group g) whether the
// sticky assignors are rack-aware for g, so that sub-groups built from it
// (sticky_components.go, copying the racks field) follow the whole group's
// decision, as Kafka decides once per group.
func (c *claimIndex) decideRacks(g Group) {
	c.racks = racksOff
	if stickyRacksOf(g, c.stickyIndex, racksUndecided) != nil {
		c.racks = racksOn
	}
}

// stickyRacksOf applies useRackAware to the whole valid group g, as Kafka's
// AbstractStickyAssignor.RackInfo does: the member racks are those of all
// members, the partitions those of ix (every topic some member effectively
// subscribes to). It returns nil when the sticky assignors are not
// rack-aware for g. A decision other than racksUndecided (one taken on a
// larger group, claimIndex.racks) replaces the rule.
func stickyRacksOf(g Group, ix *stickyIndex, decision rackDecision) *stickyRacks {
	if decision == racksOff || g.ReplicaRacks == nil {
		return nil
	}
	var names []string
	for _, m := range g.Members {
		if m.Rack != "" {
			names = append(names, m.Rack)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	names = slices.Compact(names)
	lookup := newRackLookup(names)

	rk := &stickyRacks{names: names, member: make([]int32, len(g.Members))}
	for i, m := range g.Members {
		rk.member[i] = -1
		if m.Rack != "" {
			rk.member[i] = int32(lookup.find(m.Rack))
		}
	}
	total := ix.total()
	rk.setOf = make([]int32, total)
	intern := newSetInterner(len(names))
	// Racks of replicas that no member is on, only for the rule.
	var others, local []string
	var set []int32
	shared := make([]bool, len(names))
	fewest := int(^uint(0) >> 1)
	d := 0
	for t, name := range ix.names {
		known := g.ReplicaRacks[name]
		for p := range ix.base[t+1] - ix.base[t] {
			set, local = set[:0], local[:0]
			if known != nil {
				for _, r := range known[p] {
					if k := lookup.find(r); k >= 0 {
						if !slices.Contains(set, int32(k)) {
							set = append(set, int32(k))
							shared[k] = true
						}
					} else if !slices.Contains(local, r) {
						local = append(local, r)
						if !slices.Contains(others, r) {
							others = append(others, r)
						}
					}
				}
			}
			fewest = min(fewest, len(set)+len(local))
			rk.setOf[d] = intern.id(set)
			d++
		}
	}
	rk.sets = intern.sets
	// useRackAware over sets: member racks, and the racks of all replicas.
	consumerRacks := make(map[string]bool, len(names))
	partitionRacks := make(map[string]bool, len(names)+len(others))
	for k, r := range names {
		consumerRacks[r] = true
		if shared[k] {
			partitionRacks[r] = true
		}
	}
	for _, r := range others {
		partitionRacks[r] = true
	}
	if decision == racksUndecided && !useRackAware(consumerRacks, partitionRacks, fewest) {
		return nil
	}
	return rk
}

// rackLookup finds a rack name's index in the sorted names, -1 when absent:
// a linear scan for a few racks, a map otherwise.
type rackLookup struct {
	names []string
	index map[string]int
}

func newRackLookup(names []string) rackLookup {
	l := rackLookup{names: names}
	if len(names) > 8 {
		l.index = make(map[string]int, len(names))
		for k, n := range names {
			l.index[n] = k
		}
	}
	return l
}

func (l rackLookup) find(r string) int {
	if l.index == nil {
		for k, n := range l.names {
			if n == r {
				return k
			}
		}
		return -1
	}
	if k, ok := l.index[r]; ok {
		return k
	}
	return -1
}

// setInterner numbers distinct sets of rack indexes: by bit mask in a table
// for up to 16 racks, by a map otherwise.
type setInterner struct {
	sets  [][]int32
	table []int32 // by mask, id+1 (0: not seen)
	byKey map[string]int32
	buf   []byte
}

func newSetInterner(racks int) *setInterner {
	if racks <= 16 {
		return &setInterner{table: make([]int32, 1<<racks)}
	}
	return &setInterner{byKey: map[string]int32{}}
}

// id returns the number of the set of the distinct rack indexes in set
// (any order; set is not kept).
func (s *setInterner) id(set []int32) int32 {
	if s.table != nil {
		mask := 0
		for _, r := range set {
			mask |= 1 << r
		}
		if id := s.table[mask]; id > 0 {
			return id - 1
		}
		s.table[mask] = int32(len(s.sets)) + 1
		return s.add(set)
	}
	slices.Sort(set)
	s.buf = s.buf[:0]
	for _, r := range set {
		s.buf = append(s.buf, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	if id, ok := s.byKey[string(s.buf)]; ok {
		return id
	}
	s.byKey[string(s.buf)] = int32(len(s.sets))
	return s.add(set)
}

func (s *setInterner) add(set []int32) int32 {
	sorted := slices.Clone(set)
	slices.Sort(sorted)
	s.sets = append(s.sets, sorted)
	return int32(len(s.sets) - 1)
}

// replicas returns the member racks holding a replica of dense partition
// d, ascending.
func (rk *stickyRacks) replicas(d int) []int32 { return rk.sets[rk.setOf[d]] }

// aligned reports that member i has a rack holding a replica of dense
// partition d.
func (rk *stickyRacks) aligned(i, d int) bool {
	r := rk.member[i]
	return r >= 0 && slices.Contains(rk.replicas(d), r)
}

// assignHomogeneousRacks is assignHomogeneous when the sticky assignors are
// rack-aware for g (rk): Kafka's constrained builder with racks, with its
// greedy rack-matching fill replaced by an optimal one. A won claim is
// aligned when its winner's rack holds a replica of it; the winner's other
// won claims (racks mismatch, or the winner has no rack) are its others.
//
//  1. Quotas and keeping. Every member gets minQuota = ⌊P/M⌋ or maxQuota =
//     ⌈P/M⌉, with exactly P mod M at maxQuota, as without racks. The members
//     with at least maxQuota aligned claims get maxQuota (most won claims
//     first, ties to the lower member ID, while slots remain); every member
//     keeps its aligned claims up to its quota in Kafka's order, by
//     partition number, then topic (wonDense). The other
//     maxQuota slots (bonus slots) are not given yet.
//  2. Rack fill. Among the free partitions and the members' free room (a
//     member's quota minus what it keeps, plus possibly one bonus slot), an
//     optimal min-cost flow over (partition class → member rack) chooses,
//     first, the largest number of partitions placed on a member whose rack
//     holds a replica, then the largest number of other claims given back
//     to their winner. A partition class is its set of replica racks and,
//     for an other claim its winner has room for, the winner's rack.
//  3. The remaining bonus slots go to the members that won the most claims
//     (ties to the lower member ID); the partitions still free go back to
//     their winner when it has room, then, in order, round-robin to the
//     members under quota (fillRoundRobin, as without racks).
//
// The rack fill is over racks, not members, so it is cheap: its graph has
// one node per rack and per partition class. Within a rack, the partitions
// it receives go, in order, to its members in member order up to their room.
func assignHomogeneousRacks(g Group, claims *claimIndex, rk *stickyRacks, w denseWins) homogeneousPlan {
	won := w.won
	total, n := claims.total(), len(g.Members)
	minQuota, extra := total/n, total%n
	owner := make([]int32, total)
	for d := range owner {
		owner[d] = -1
	}
	order := byWon(won, claims.cells != nil)
	// Members are grouped by rack; group nr holds those without one.
	nr := len(rk.names)
	groupOf := func(i int) int32 {
		if r := rk.member[i]; r >= 0 {
			return r
		}
		return int32(nr)
	}

	// 1. Quotas and keeping.
	aligned := make([][]int32, n)
	others := make([][]int32, n)
	for i := range n {
		if w.at == nil {
			break
		}
		w.order(i)
		for _, key := range w.at[i] {
			d := int32(key)
			if rk.aligned(i, int(d)) {
				aligned[i] = append(aligned[i], d)
			} else {
				others[i] = append(others[i], d)
			}
		}
	}
	quota := make([]int, n)
	forced := 0
	for _, i := range order {
		quota[i] = minQuota
		if extra > forced && len(aligned[i]) > minQuota {
			quota[i]++
			forced++
		}
	}
	bonus := extra - forced
	load := make([]int, n)
	for i := range n {
		k := min(len(aligned[i]), quota[i])
		for _, d := range aligned[i][:k] {
			owner[d] = int32(i)
		}
		load[i] = k
	}
	eligible := func(i int) bool { return bonus > 0 && quota[i] == minQuota }

	// 2. Rack fill. ret[d]: what free partition d may go back to, 0 for
	// nothing.
	const (
		retRoom  = 1 // an other claim within its winner's room
		retBonus = 2 // the next one, if the winner gets a bonus slot
	)
	ret := make([]int8, total)
	groupRoom := make([]int64, nr+1)
	groupEligible := make([]int64, nr+1)
	for i := range n {
		room := quota[i] - load[i]
		for k, d := range others[i] {
			switch {
			case k < room:
				ret[d] = retRoom
			case k == room && eligible(i):
				ret[d] = retBonus
			}
		}
		groupRoom[groupOf(i)] += int64(room)
		if eligible(i) {
			groupEligible[groupOf(i)]++
		}
	}
	// Classes: (replica set, return kind, winner's group), numbered in
	// order of first partition; a table when small, a map otherwise.
	kinds := 1 + 2*(nr+1)
	kindOf := func(d int) int {
		switch ret[d] {
		case retRoom:
			return 1 + int(groupOf(claims.winner(d)))
		case retBonus:
			return 2 + nr + int(groupOf(claims.winner(d)))
		}
		return 0
	}
	var (
		classTable []int32 // set*kinds + kind → class+1
		classMap   map[int]int32
		classSet   []int32 // per class, its replica set
		classKind  []int   // per class, its kind
		members    [][]int32
	)
	if len(rk.sets)*kinds <= 4*total+64 {
		classTable = make([]int32, len(rk.sets)*kinds)
	} else {
		classMap = map[int]int32{}
	}
	for d := range total {
		if owner[d] >= 0 {
			continue
		}
		key := int(rk.setOf[d])*kinds + kindOf(d)
		var c int32
		if classTable != nil {
			c = classTable[key] - 1
		} else if v, ok := classMap[key]; ok {
			c = v
		} else {
			c = -1
		}
		if c < 0 {
			c = int32(len(classSet))
			if classTable != nil {
				classTable[key] = c + 1
			} else {
				classMap[key] = c
			}
			classSet = append(classSet, rk.setOf[d])
			classKind = append(classKind, key%kinds)
			members = append(members, nil)
		}
		members[c] = append(members[c], int32(d))
	}

	// Nodes: source, sink, the bonus pool, then per group its room and its
	// bonus slots, then one per class.
	const src, sink, pool = 0, 1, 2
	roomNode := func(r int32) int { return 3 + 2*int(r) }
	bonusNode := func(r int32) int { return 4 + 2*int(r) }
	classNode := func(c int) int { return 3 + 2*(nr+1) + c }
	f := newMinCostFlow(3 + 2*(nr+1) + len(classSet))
	alignedCost := int64(total) + 1 // one more aligned partition beats any number of returns
	classEdges := make([][]int, len(classSet))
	for c, kind := range classKind {
		size := int64(len(members[c]))
		f.addEdge(src, classNode(c), size, 0)
		// The return edge first: materialization gives it the lowest
		// partitions of the class.
		switch {
		case kind == 0:
		case kind <= nr+1:
			classEdges[c] = append(classEdges[c], f.addEdge(classNode(c), roomNode(int32(kind-1)), size, -1))
		default:
			classEdges[c] = append(classEdges[c], f.addEdge(classNode(c), bonusNode(int32(kind-2-nr)), size, -1))
		}
		for _, r := range rk.sets[classSet[c]] {
			classEdges[c] = append(classEdges[c], f.addEdge(classNode(c), roomNode(r), size, -alignedCost))
		}
	}
	bonusEdges := make([]int, nr+1)
	for r := range int32(nr + 1) {
		f.addEdge(roomNode(r), sink, groupRoom[r], 0)
		f.addEdge(roomNode(r), bonusNode(r), int64(total), 0)
		bonusEdges[r] = f.addEdge(bonusNode(r), pool, groupEligible[r], 0)
	}
	f.addEdge(pool, sink, int64(bonus), 0)
	f.run(src, sink)

	// Materialize: returns to their winners, partitions placed on a rack
	// marked by dest.
	dest := make([]int32, total)
	for d := range dest {
		dest[d] = -1
	}
	hasBonus := make([]bool, n)
	bonusReturns := make([]int64, nr+1)
	for c, kind := range classKind {
		ps := members[c]
		for k, e := range classEdges[c] {
			isReturn := k == 0 && kind != 0
			to := f.head(e)
			for _, d := range ps[:f.flow(e)] {
				if isReturn {
					w := claims.winner(int(d))
					owner[d] = int32(w)
					load[w]++
					if kind > nr+1 {
						hasBonus[w] = true
						quota[w]++
						bonusReturns[groupOf(w)]++
					}
					continue
				}
				dest[d] = int32((to - 3) / 2)
			}
			ps = ps[f.flow(e):]
		}
	}
	usedBonus := 0
	for r := range int32(nr + 1) {
		used := f.flow(bonusEdges[r])
		usedBonus += int(used)
		more := used - bonusReturns[r]
		for _, i := range order {
			if more == 0 {
				break
			}
			if groupOf(i) == r && eligible(i) && !hasBonus[i] {
				hasBonus[i] = true
				quota[i]++
				more--
			}
		}
	}
	// Each rack's placed partitions, in order, to its members in member
	// order up to their room.
	cursor := make([]int, nr)
	rackMembers := make([][]int32, nr)
	for i := range n {
		if r := rk.member[i]; r >= 0 {
			rackMembers[r] = append(rackMembers[r], int32(i))
		}
	}
	for d, r := range dest {
		if r < 0 {
			continue
		}
		ms := rackMembers[r]
		for load[ms[cursor[r]]] >= quota[ms[cursor[r]]] {
			cursor[r]++
		}
		i := ms[cursor[r]]
		owner[d] = i
		load[i]++
	}

	// 3. The rest of the bonus slots, returns, then the plain fill.
	for _, i := range order {
		if usedBonus == bonus {
			break
		}
		if eligible(i) && !hasBonus[i] {
			hasBonus[i] = true
			quota[i]++
			usedBonus++
		}
	}
	for d := range total {
		if owner[d] < 0 {
			// winner may be n: a claimant outside a sticky_components
			// sub-group.
			if w := claims.winner(d); w >= 0 && w < n && load[w] < quota[w] {
				owner[d] = int32(w)
				load[w]++
			}
		}
	}
	fillRoundRobin(owner, load, quota, minQuota)
	return homogeneousPlan{owner: owner, won: won}
}

// minCostFlow is a small min-cost flow network solved by successive
// shortest paths (Bellman-Ford, costs may be negative), for graphs of a few
// dozen nodes carrying large amounts: each augmentation pushes the path's
// bottleneck.
type minCostFlow struct {
	adj   [][]int // edge indexes per node, in the order added
	to    []int
	cap   []int64 // residual capacity; edge e^1 is e's reverse
	cost  []int64
	start []int64 // initial capacity, to read the flow back
}

func newMinCostFlow(nodes int) *minCostFlow { return &minCostFlow{adj: make([][]int, nodes)} }

// addEdge adds an edge u→v and returns its index.
func (f *minCostFlow) addEdge(u, v int, capacity, cost int64) int {
	e := len(f.to)
	f.to = append(f.to, v, u)
	f.cap = append(f.cap, capacity, 0)
	f.cost = append(f.cost, cost, -cost)
	f.start = append(f.start, capacity, 0)
	f.adj[u] = append(f.adj[u], e)
	f.adj[v] = append(f.adj[v], e+1)
	return e
}

// flow is the flow on edge e; head its end node.
func (f *minCostFlow) flow(e int) int64 { return f.start[e] - f.cap[e] }
func (f *minCostFlow) head(e int) int   { return f.to[e] }

// run pushes flow from s to t along cheapest paths while they cost less
// than zero: the result is a flow of least cost (of any value). The initial
// graph must have no negative cycle. Paths are found by a queue-based
// Bellman-Ford (SPFA).
func (f *minCostFlow) run(s, t int) {
	const inf = int64(^uint64(0) >> 2)
	n := len(f.adj)
	dist := make([]int64, n)
	pred := make([]int, n)
	inQueue := make([]bool, n)
	queued := make([]int, n)
	queue := make([]int, 0, n)
	for {
		for v := range dist {
			dist[v], pred[v], queued[v] = inf, -1, 0
		}
		dist[s] = 0
		queue = append(queue[:0], s)
		inQueue[s] = true
		for head := 0; head < len(queue); head++ {
			u := queue[head]
			inQueue[u] = false
			for _, e := range f.adj[u] {
				v := f.to[e]
				if f.cap[e] > 0 && dist[u]+f.cost[e] < dist[v] {
					dist[v], pred[v] = dist[u]+f.cost[e], e
					if !inQueue[v] {
						// Without a negative cycle a node enters the
						// queue at most n times (once per Bellman-Ford pass).
						if queued[v]++; queued[v] > n {
							panic("assign: rack flow has a negative cycle")
						}
						inQueue[v] = true
						queue = append(queue, v)
					}
				}
			}
		}
		if dist[t] >= 0 {
			return
		}
		push := inf
		for v := t; v != s; v = f.to[pred[v]^1] {
			push = min(push, f.cap[pred[v]])
		}
		for v := t; v != s; v = f.to[pred[v]^1] {
			f.cap[pred[v]] -= push
			f.cap[pred[v]^1] += push
		}
	}
}
