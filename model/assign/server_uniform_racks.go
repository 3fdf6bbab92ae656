package assign

import (
	"math"
	"math/bits"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// This file is the opt-in rack-aware mode of the uniform assignor's
// homogeneous builder (UniformOptions.RackAware), after the design of
// apache/kafka PR #20000 (KAFKA-19909, open when this was written): balance
// first, then rack awareness, then stickiness. Released Kafka's
// UniformHomogeneousAssignmentBuilder ignores racks.
//
// Words used below, for member i and partition p of a subscribed topic:
//
//   - p is aligned to i when i has a rack and a replica of p is on it;
//   - misaligned when i has a rack, p's racks are known and none is i's;
//   - neutral otherwise (i has no rack, or p's racks are unknown: no entry
//     in Group.ReplicaRacks, or an empty list).

// uniformRacks is what the rack-aware builder knows of racks: racks are
// numbered, those of members first (0 to racks-1, in member order), then
// the others, and each partition (in dense order, as in uniformHomogeneous)
// has a type, the sorted set of member racks among its replicas' racks.
type uniformRacks struct {
	// memberRack[i] is member i's rack, -1 when it has none.
	memberRack []int32
	// racks is the number of distinct member racks.
	racks int
	// typeOf[d] is the index in types of partition d's type, -1 when its
	// racks are unknown (neutral to every member).
	typeOf []int32
	// types[k] lists the member racks holding a replica of the partitions
	// of type k, sorted; empty when none does (such partitions are
	// misaligned to every member with a rack).
	types [][]int32
}

// aligned classifies partition d for member i: 1 aligned, -1 misaligned, 0
// neutral.
func (r *uniformRacks) aligned(i, d int) int {
	mr, t := r.memberRack[i], r.typeOf[d]
	if mr < 0 || t < 0 {
		return 0
	}
	for _, x := range r.types[t] {
		if x == mr {
			return 1
		}
	}
	return -1
}

// uniformRackInfo reads the racks of g's members and of the partitions of
// topics (base as in uniformHomogeneous) and reports whether rack awareness
// applies: KIP-881's rule (Kafka's useRackAwareAssignment), applied to the
// whole group as KAFKA-19909 does: some member rack holds a replica of some
// partition, and not every partition has replicas on the same set of racks
// (useRackAware, the rule Range and the sticky assignors use too). The order
// and repetitions within a Group.ReplicaRacks list do not matter (empty rack
// names, which ValidateGroup rejects, would be ignored).
func uniformRackInfo(g Group, topics []string, base []int) (*uniformRacks, bool) {
	var ids rackIDs
	r := &uniformRacks{memberRack: make([]int32, len(g.Members))}
	for i, m := range g.Members {
		r.memberRack[i] = -1
		if m.Rack != "" {
			r.memberRack[i] = ids.id(m.Rack)
		}
	}
	r.racks = len(ids.names)
	if r.racks == 0 {
		return nil, false
	}
	total := base[len(topics)]
	r.typeOf = make([]int32, total)
	var (
		set []int32
		key []byte
		// inReplicas[k] reports that rack k holds a replica of some
		// partition; fewest is the least number of distinct racks of one
		// partition's replicas (useRackAware's arguments).
		inReplicas []bool
		fewest     = math.MaxInt
		// Types by the mask of their member racks when there are at most
		// 64 (byMask, or dense when at most 10), else by a string key.
		byMask = map[uint64]int32{}
		dense  []int32
		byKey  map[string]int32
	)
	if r.racks <= 10 {
		dense = make([]int32, 1<<r.racks)
		for k := range dense {
			dense[k] = -1
		}
	}
	for t, name := range topics {
		rows := g.ReplicaRacks[name]
		for p := range base[t+1] - base[t] {
			d := base[t] + p
			set = set[:0]
			var mask uint64 // all racks, when every id is below 64
			narrow := true
			if p < len(rows) {
				for _, rack := range rows[p] {
					if rack == "" {
						continue
					}
					id := ids.id(rack)
					set = append(set, id)
					if id < 64 {
						mask |= 1 << id
					} else {
						narrow = false
					}
				}
			}
			if !narrow {
				slices.Sort(set)
				set = slices.Compact(set)
			}
			distinct := len(set)
			if narrow {
				distinct = bits.OnesCount64(mask)
			}
			fewest = min(fewest, distinct)
			for _, x := range set {
				for int(x) >= len(inReplicas) {
					inReplicas = append(inReplicas, false)
				}
				inReplicas[x] = true
			}
			if len(set) == 0 {
				r.typeOf[d] = -1
				continue
			}
			if r.racks <= 64 {
				// Member racks are numbered first: they are the low bits.
				m := mask
				if r.racks < 64 {
					m &= 1<<r.racks - 1
				}
				ti := int32(-1)
				if dense != nil {
					ti = dense[m]
				} else if x, ok := byMask[m]; ok {
					ti = x
				}
				if ti < 0 {
					ti = int32(len(r.types))
					if dense != nil {
						dense[m] = ti
					} else {
						byMask[m] = ti
					}
					var racks []int32
					for x := range int32(r.racks) {
						if m&(1<<x) != 0 {
							racks = append(racks, x)
						}
					}
					r.types = append(r.types, racks)
				}
				r.typeOf[d] = ti
				continue
			}
			if narrow {
				slices.Sort(set)
				set = slices.Compact(set)
			}
			k := 0 // member racks have the smallest numbers: a prefix
			for k < len(set) && set[k] < int32(r.racks) {
				k++
			}
			key = key[:0]
			for _, x := range set[:k] {
				key = append(key, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
			}
			if byKey == nil {
				byKey = map[string]int32{}
			}
			ti, ok := byKey[string(key)]
			if !ok {
				ti = int32(len(r.types))
				byKey[string(key)] = ti
				r.types = append(r.types, slices.Clone(set[:k]))
			}
			r.typeOf[d] = ti
		}
	}
	consumerRacks, partitionRacks := map[string]bool{}, map[string]bool{}
	for k, name := range ids.names {
		if k < r.racks {
			consumerRacks[name] = true
		}
		if k < len(inReplicas) && inReplicas[k] {
			partitionRacks[name] = true
		}
	}
	return r, useRackAware(consumerRacks, partitionRacks, fewest)
}

// rackIDs numbers rack names in order of first appearance.
type rackIDs struct {
	names  []string
	byName map[string]int32
}

// id returns name's number, numbering it if it is new. The first few
// names are compared directly: there are usually few racks, and a
// coordinator's rack strings often share their bytes.
func (r *rackIDs) id(name string) int32 {
	for k, n := range r.names[:min(len(r.names), 8)] {
		if n == name {
			return int32(k)
		}
	}
	if id, ok := r.byName[name]; ok {
		return id
	}
	if r.byName == nil {
		r.byName = map[string]int32{}
	}
	id := int32(len(r.names))
	r.names = append(r.names, name)
	r.byName[name] = id
	return id
}

// uniformHomogeneousRacks is the homogeneous builder with
// UniformOptions.RackAware set (see UniformOptions.RackAware for the steps
// and guarantees). It reports false, having done nothing, when rack
// awareness does not apply; the caller then runs uniformHomogeneous.
func uniformHomogeneousRacks(g Group, topics []string, before bool) (spec.Assignment, bool, error) {
	if len(g.Members) == 0 || len(topics) == 0 {
		return nil, false, nil
	}
	base := make([]int, len(topics)+1)
	for t, name := range topics {
		base[t+1] = base[t] + int(g.Topics[name])
	}
	racks, use := uniformRackInfo(g, topics, base)
	if !use {
		return nil, false, nil
	}
	total, members := base[len(topics)], len(g.Members)
	topicIx := newTopicIndex(topics)
	owner := make([]int32, total)
	quota := uniformQuotas(g, topicIx, base, owner, before)
	clear(owner)
	sizes := make([]int, members)
	// prev[d] is i+1 when member i had partition d in its previous target
	// but released it as misaligned (the first such member), 0 otherwise.
	prev := make([]int32, total)

	// Keep: aligned partitions first, then neutral ones, up to the quota;
	// misaligned ones are released.
	for i, m := range g.Members {
		neutral := false
		ownedDense(m, topicIx, base, func(d int) {
			if owner[d] != 0 {
				return // kept by an earlier member
			}
			switch racks.aligned(i, d) {
			case 1:
				if sizes[i] < quota[i] {
					owner[d] = int32(i + 1)
					sizes[i]++
				}
			case 0:
				neutral = true
			case -1:
				if prev[d] == 0 {
					prev[d] = int32(i + 1)
				}
			}
		})
		if neutral && sizes[i] < quota[i] {
			ownedDense(m, topicIx, base, func(d int) {
				if owner[d] == 0 && sizes[i] < quota[i] && racks.aligned(i, d) == 0 {
					owner[d] = int32(i + 1)
					sizes[i]++
				}
			})
		}
	}

	// Match: as many unassigned partitions as possible go to members with
	// quota left on one of their racks (a maximum flow).
	uniformRackMatch(racks, quota, sizes, owner, prev)

	// Give back: misaligned partitions left unassigned return to the member
	// that released them, while it has quota left.
	for d, i := range prev {
		if i != 0 && owner[d] == 0 && sizes[i-1] < quota[i-1] {
			owner[d] = i
			sizes[i-1]++
		}
	}

	// Fill, in dense order, each member in member ID order up to its quota.
	d := 0
	for i := range g.Members {
		for sizes[i] < quota[i] {
			for d < total && owner[d] != 0 {
				d++
			}
			if d == total {
				return nil, true, errServerUnassigned
			}
			owner[d] = int32(i + 1)
			sizes[i]++
		}
	}
	a, err := collectDense(g, topics, base, owner, sizes, nil)
	return a, true, err
}

// ownedDense calls f with the dense index (see uniformHomogeneous) of every
// partition of m's previous target in a topic of topicIx, in order.
func ownedDense(m Member, topicIx *topicIndex, base []int, f func(d int)) {
	var (
		topic string
		start = -1
		at    = topicIx.cursor()
	)
	for k, r := range m.Owned {
		if k == 0 || r.Topic != topic {
			topic, start = r.Topic, -1
			if t, ok := at.find(topic); ok {
				start = base[t]
			}
		}
		if start >= 0 {
			f(start + int(r.Partition))
		}
	}
}

// uniformQuotas returns each member's final size in uniformHomogeneous's
// result for g, without racks: its Keep step (uniformKeep), replayed on
// owner, zeroed, then its final sizes (uniformTargets). It leaves owner
// dirty.
func uniformQuotas(g Group, topicIx *topicIndex, base []int, owner []int32, before bool) []int {
	sizes := make([]int, len(g.Members))
	extras := uniformKeep(g, topicIx, base, owner, sizes, before)
	return uniformTargets(sizes, base[len(base)-1], extras, before)
}

// uniformRackMatch assigns a maximum number of the unassigned partitions of
// owner (those with a type with at least one member rack) to members on one
// of their racks, within quota (sizes grow accordingly). It aggregates
// partitions by type and members by rack and runs Dinic's maximum flow on
// source → type (capacity: its unassigned partitions) → rack (unbounded,
// when the type holds it) → sink (capacity: the quota left of the rack's
// members); the flow then goes to partitions in dense order, those that no
// member released as misaligned (prev) first, so that released ones are
// the ones left to return to their member, and within a rack to members in
// member ID order.
func uniformRackMatch(racks *uniformRacks, quota, sizes []int, owner, prev []int32) {
	nt, nr := len(racks.types), racks.racks
	supply := make([]int, nt)
	for d, o := range owner {
		if t := racks.typeOf[d]; o == 0 && t >= 0 && len(racks.types[t]) > 0 {
			supply[t]++
		}
	}
	room := make([]int, nr)
	byRack := make([][]int, nr)
	for i, r := range racks.memberRack {
		if r >= 0 && quota[i] > sizes[i] {
			room[r] += quota[i] - sizes[i]
			byRack[r] = append(byRack[r], i)
		}
	}
	// Nodes: 0 source, 1..nt types, nt+1..nt+nr racks, nt+nr+1 sink.
	f := newFlowGraph(nt + nr + 2)
	src, sink := 0, nt+nr+1
	typeEdges := make([][]int, nt) // edge indexes type → rack, by rack order
	for t, n := range supply {
		if n == 0 {
			continue
		}
		f.add(src, 1+t, n)
		for _, r := range racks.types[t] {
			if room[r] > 0 {
				typeEdges[t] = append(typeEdges[t], f.add(1+t, 1+nt+int(r), n))
			}
		}
	}
	for r, n := range room {
		if n > 0 {
			f.add(1+nt+r, sink, n)
		}
	}
	left := f.maxFlow(src, sink)
	if left == 0 {
		return
	}
	// shares[t] is the flow from type t to each rack, to hand out.
	type share struct {
		rack int32
		n    int
	}
	shares := make([][]share, nt)
	for t, edges := range typeEdges {
		for _, e := range edges {
			if n := f.flow(e); n > 0 {
				shares[t] = append(shares[t], share{int32(f.to(e) - 1 - nt), n})
			}
		}
	}
	next := make([]int, nr) // position in byRack[r] of the next member with room
	for _, released := range []bool{false, true} {
		for d, o := range owner {
			t := racks.typeOf[d]
			if o != 0 || t < 0 || (prev[d] != 0) != released {
				continue
			}
			sh := shares[t]
			k := 0
			for k < len(sh) && sh[k].n == 0 {
				k++
			}
			if k == len(sh) {
				continue
			}
			sh[k].n--
			r, members := sh[k].rack, byRack[sh[k].rack]
			for quota[members[next[r]]] == sizes[members[next[r]]] {
				next[r]++
			}
			i := members[next[r]]
			owner[d] = int32(i + 1)
			sizes[i]++
			if left--; left == 0 {
				return
			}
		}
	}
}

// flowGraph is a small directed graph for Dinic's maximum flow. Edges come
// in pairs: edge e and its residual e^1.
type flowGraph struct {
	head       []int // first edge out of each node, -1 for none
	nextEdge   []int
	dst        []int
	cap        []int // residual capacity
	level, arc []int
}

func newFlowGraph(nodes int) *flowGraph {
	f := &flowGraph{head: make([]int, nodes), level: make([]int, nodes), arc: make([]int, nodes)}
	for i := range f.head {
		f.head[i] = -1
	}
	return f
}

// add adds an edge u → v of capacity c and returns its index.
func (f *flowGraph) add(u, v, c int) int {
	e := len(f.dst)
	f.dst = append(f.dst, v, u)
	f.cap = append(f.cap, c, 0)
	f.nextEdge = append(f.nextEdge, f.head[u], f.head[v])
	f.head[u], f.head[v] = e, e+1
	return e
}

// flow returns the flow on edge e not yet consumed by use.
func (f *flowGraph) flow(e int) int { return f.cap[e^1] }

// to returns the node edge e goes to.
func (f *flowGraph) to(e int) int { return f.dst[e] }

// maxFlow pushes a maximum flow from s to t and returns its value.
func (f *flowGraph) maxFlow(s, t int) int {
	total := 0
	queue := make([]int, 0, len(f.head))
	for {
		for i := range f.level {
			f.level[i] = -1
		}
		f.level[s] = 0
		queue = append(queue[:0], s)
		for k := 0; k < len(queue); k++ {
			u := queue[k]
			for e := f.head[u]; e >= 0; e = f.nextEdge[e] {
				if v := f.dst[e]; f.cap[e] > 0 && f.level[v] < 0 {
					f.level[v] = f.level[u] + 1
					queue = append(queue, v)
				}
			}
		}
		if f.level[t] < 0 {
			return total
		}
		copy(f.arc, f.head)
		for {
			pushed := f.push(s, t, int(^uint(0)>>1))
			if pushed == 0 {
				break
			}
			total += pushed
		}
	}
}

// push sends up to limit units from u to t along the level graph (a
// blocking-flow step of Dinic's algorithm) and returns how many it sent.
func (f *flowGraph) push(u, t, limit int) int {
	if u == t {
		return limit
	}
	for ; f.arc[u] >= 0; f.arc[u] = f.nextEdge[f.arc[u]] {
		e := f.arc[u]
		v := f.dst[e]
		if f.cap[e] == 0 || f.level[v] != f.level[u]+1 {
			continue
		}
		if got := f.push(v, t, min(limit, f.cap[e])); got > 0 {
			f.cap[e] -= got
			f.cap[e^1] += got
			return got
		}
	}
	return 0
}
