package checker

import (
	"fmt"
	"slices"

	"github.com/rebalance-ref/rebalance/model/canon"

	"github.com/rebalance-ref/rebalance/spec"
)

// edge is a step of the liveness graph: an Own step (with its fairness
// key) or an unbounded environment step. Bounded environment steps are not
// in the graph: the environment may stop at any time, so liveness must hold
// on the paths without them.
type edge struct {
	from, to uint32
	act      uint16
	env      bool
	key      uint64
}

// stateInfo is what liveness needs of one expanded state, as a worker
// collects it: keysFrom:keysTo index the worker's fairness keys of the
// state's enabled Own actions.
type stateInfo struct {
	id               uint32
	converged        bool
	owners           uint64
	keysFrom, keysTo int
}

type nodeInfo struct {
	converged        bool
	expanded         bool
	owners           uint64
	keysFrom, keysTo uint32
}

// graph is the liveness graph, kept while exploring.
type graph struct {
	// edges are the steps in the lists the workers made them in, one a
	// worker and level, kept as they are: copying them into one list at
	// the end of each level was most of the time the level's one worker
	// spent after the others had stopped.
	edges [][]edge
	nodes []nodeInfo
	keys  []uint64
}

// add takes a worker's steps, the states it expanded and their fairness
// keys, for one level; the graph keeps edges and the caller must not
// change it.
func (g *graph) add(edges []edge, states []stateInfo, keys []uint64) {
	if len(edges) > 0 {
		g.edges = append(g.edges, edges)
	}
	base := uint32(len(g.keys))
	g.keys = append(g.keys, keys...)
	for _, s := range states {
		for int(s.id) >= len(g.nodes) {
			g.nodes = append(g.nodes, nodeInfo{})
		}
		g.nodes[s.id] = nodeInfo{converged: s.converged, expanded: true, owners: s.owners, keysFrom: base + uint32(s.keysFrom), keysTo: base + uint32(s.keysTo)}
	}
}

// hasEnvSteps reports whether the graph holds an unbounded environment
// step.
func (g *graph) hasEnvSteps() bool {
	for _, es := range g.edges {
		if slices.ContainsFunc(es, func(e edge) bool { return e.env }) {
			return true
		}
	}
	return false
}

func (g *graph) size() int64 {
	var n int64
	for _, es := range g.edges {
		n += int64(len(es))
	}
	return n*24 + int64(len(g.nodes))*24 + int64(len(g.keys))*8
}

// adjacency is the graph's edges grouped by source: out[start[v]:start[v+1]]
// are v's, and to[i] is out[i].to. The component search reads only the
// targets, 4 bytes an edge where an edge is 24: on the default worlds it
// walks a few hundred thousand edges in no order a cache can guess.
type adjacency struct {
	start []uint32
	out   []edge
	to    []uint32
}

func (g *graph) adjacency(n int, keep func(e edge) bool) adjacency {
	start := make([]uint32, n+1)
	for _, es := range g.edges {
		for _, e := range es {
			if keep(e) {
				start[e.from+1]++
			}
		}
	}
	for i := range n {
		start[i+1] += start[i]
	}
	out := make([]edge, start[n])
	to := make([]uint32, start[n])
	fill := slices.Clone(start)
	for _, es := range g.edges {
		for _, e := range es {
			if keep(e) {
				out[fill[e.from]], to[fill[e.from]] = e, e.to
				fill[e.from]++
			}
		}
	}
	return adjacency{start, out, to}
}

func (a adjacency) of(v uint32) []edge { return a.out[a.start[v]:a.start[v+1]] }

// targets are the states v's edges lead to, in the order of of(v).
func (a adjacency) targets(v uint32) []uint32 { return a.to[a.start[v]:a.start[v+1]] }

// cyclic reports whether component c holds a cycle: more than one state,
// or a step from its one state to itself.
func (a adjacency) cyclic(c []uint32) bool {
	return len(c) > 1 || slices.Contains(a.targets(c[0]), c[0])
}

// components are the strongly connected components of a graph, in the
// order Tarjan's algorithm completes them: component k is
// states[bounds[k]:bounds[k+1]]. One array for all of them, because
// nearly every component of a state graph is a single state (248,755
// components of 259,450 states in the deferred world), and a slice each
// was an allocation a state.
type components struct {
	states []uint32
	bounds []uint32
}

// count is the number of components.
func (c components) count() int { return len(c.bounds) - 1 }

// of returns component k's states.
func (c components) of(k int) []uint32 { return c.states[c.bounds[k]:c.bounds[k+1]] }

// sccs returns the strongly connected components of the graph's n states
// (Tarjan's algorithm, iterative), each listing its states from the last
// one the search reached to the first, and each state's component index.
func (a adjacency) sccs(n int) (components, []int32) {
	// index[v] is one more than the order in which the search reached v
	// (0: not yet); low[v] likewise. A state reached and not yet given a
	// component (comp -1) is on the stack.
	index := make([]int32, n)
	low := make([]int32, n)
	comp := make([]int32, n)
	for i := range comp {
		comp[i] = -1
	}
	cs := components{states: make([]uint32, 0, n), bounds: []uint32{0}}
	var stack []uint32
	type frame struct {
		v    uint32
		next uint32 // next edge to look at
	}
	var calls []frame
	var counter int32
	reach := func(v uint32) {
		counter++
		index[v], low[v] = counter, counter
		stack = append(stack, v)
		calls = append(calls, frame{v, a.start[v]})
	}
	for root := range uint32(n) {
		if index[root] != 0 {
			continue
		}
		reach(root)
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			if f.next < a.start[f.v+1] {
				w := a.to[f.next]
				f.next++
				if index[w] == 0 {
					reach(w)
				} else if comp[w] < 0 {
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				p := calls[len(calls)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] == index[v] {
				k := int32(cs.count())
				bottom := len(stack) - 1
				for stack[bottom] != v {
					bottom--
				}
				for i := len(stack) - 1; i >= bottom; i-- {
					comp[stack[i]] = k
					cs.states = append(cs.states, stack[i])
				}
				stack = stack[:bottom]
				cs.bounds = append(cs.bounds, uint32(len(cs.states)))
			}
		}
	}
	return cs, comp
}

// liveness checks EventuallyConverged and Stability over the complete
// graph and returns a lasso for each law broken (the first found).
//
// Under weak fairness of Own actions, a path may stay forever in a
// strongly connected component C exactly when every Own action enabled in
// all of C's states is taken by some step inside C (a path that tours all
// of C then takes each of them). So: a state with no Own step that is not
// converged is stuck; a component with a cycle that holds a state that is
// not converged, or two ownerships, is a counterexample if it is fair.
func (x *explorer[S, A]) liveness() []Counterexample {
	g := x.graph
	n := len(x.records)
	for len(g.nodes) < n {
		g.nodes = append(g.nodes, nodeInfo{})
	}
	adj := g.adjacency(n, func(e edge) bool { return !e.env })
	var out []Counterexample
	reported := map[spec.Law]bool{}
	// Stuck states.
	for v := range uint32(n) {
		if !g.nodes[v].expanded || g.nodes[v].converged || reported[spec.EventuallyConverged] {
			continue
		}
		own := false
		for _, e := range adj.of(v) {
			own = own || !e.env
		}
		if !own {
			reported[spec.EventuallyConverged] = true
			out = append(out, x.lasso(spec.EventuallyConverged, "no step of the protocol is enabled", v, nil))
		}
	}
	comps, comp := adj.sccs(n)
	for k := range comps.count() {
		c := comps.of(k)
		if !adj.cyclic(c) {
			continue
		}
		law, bad := spec.Law(""), uint32(0)
		for _, v := range c {
			if !g.nodes[v].converged {
				law, bad = spec.EventuallyConverged, v
				break
			}
		}
		if law == "" {
			for _, v := range c[1:] {
				if g.nodes[v].owners != g.nodes[c[0]].owners {
					law, bad = spec.Stability, v
					break
				}
			}
		}
		if law == "" || reported[law] {
			continue
		}
		required, ok := x.fair(c, comp, adj)
		if !ok {
			continue
		}
		reported[law] = true
		detail := "a fair cycle never converges"
		var other int64 = -1
		if law == spec.Stability {
			detail = "a fair cycle keeps moving resources in a converged group"
			other = int64(c[0])
		}
		out = append(out, x.lasso(law, detail, bad, x.tour(bad, required, other, comp, adj)))
	}
	if !reported[spec.EventuallyConverged] && g.hasEnvSteps() {
		if ce, ok := x.livenessUnderEnv(n); ok {
			out = append(out, ce)
		}
	}
	return out
}

// livenessUnderEnv checks the liveness law where the environment may act
// forever (EnvUnbounded steps): no protocol converges for good while the
// environment keeps changing the group, so the law is that it converges
// again and again. A counterexample is a fair cycle, through environment
// and own steps, that never passes a converged state: the seed design's
// Design II concern, a delay extended forever by leader changes.
func (x *explorer[S, A]) livenessUnderEnv(n int) (Counterexample, bool) {
	g := x.graph
	open := func(v uint32) bool { return g.nodes[v].expanded && !g.nodes[v].converged }
	adj := g.adjacency(n, func(e edge) bool { return open(e.from) && open(e.to) })
	comps, comp := adj.sccs(n)
	for k := range comps.count() {
		c := comps.of(k)
		if !open(c[0]) {
			continue
		}
		if !adj.cyclic(c) {
			continue
		}
		required, ok := x.fair(c, comp, adj)
		if !ok {
			continue
		}
		return x.lasso(spec.EventuallyConverged, "with the environment acting forever, a fair cycle never reaches a converged state", c[0], x.tour(c[0], required, -1, comp, adj)), true
	}
	return Counterexample{}, false
}

// fair returns the fairness keys that every state of component c enables,
// and whether each is taken by a step inside c.
func (x *explorer[S, A]) fair(c []uint32, comp []int32, adj adjacency) ([]uint64, bool) {
	g := x.graph
	id := comp[c[0]]
	first := g.nodes[c[0]]
	always := slices.Clone(g.keys[first.keysFrom:first.keysTo])
	slices.Sort(always)
	always = slices.Compact(always)
	for _, v := range c[1:] {
		nv := g.nodes[v]
		ks := g.keys[nv.keysFrom:nv.keysTo]
		always = slices.DeleteFunc(always, func(k uint64) bool { return !slices.Contains(ks, k) })
	}
	for _, k := range always {
		taken := false
		for _, v := range c {
			for _, e := range adj.of(v) {
				if !e.env && e.key == k && comp[e.to] == id {
					taken = true
				}
			}
		}
		if !taken {
			return nil, false
		}
	}
	return always, true
}

// hop is one step of a tour: the state it reaches and, for a step taken
// for fairness, the key it must have.
type hop struct {
	to    uint32
	key   uint64
	keyed bool
}

// tour returns a cycle from start back to start inside start's component
// that takes a step with each of the required fairness keys and, when
// other >= 0, passes through state other.
func (x *explorer[S, A]) tour(start uint32, required []uint64, other int64, comp []int32, adj adjacency) []hop {
	id := comp[start]
	var hops []hop
	cur := start
	// goTo appends the shortest path inside the component from cur to a
	// step accepted by want, that step included.
	goTo := func(want func(e edge) bool) {
		prev := map[uint32]uint32{cur: cur}
		queue := []uint32{cur}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			for _, e := range adj.of(v) {
				if comp[e.to] != id {
					continue
				}
				if want(e) {
					var rev []hop
					for w := v; w != cur; w = prev[w] {
						rev = append(rev, hop{to: w})
					}
					slices.Reverse(rev)
					hops = append(hops, rev...)
					hops = append(hops, hop{to: e.to, key: e.key, keyed: !e.env})
					cur = e.to
					return
				}
				if _, ok := prev[e.to]; !ok {
					prev[e.to] = v
					queue = append(queue, e.to)
				}
			}
		}
		panic(fmt.Sprintf("checker: no step inside component %d from %d", id, cur))
	}
	for _, k := range required {
		goTo(func(e edge) bool { return !e.env && e.key == k })
	}
	if other >= 0 {
		goTo(func(e edge) bool { return e.to == uint32(other) })
	}
	if cur != start || len(hops) == 0 {
		goTo(func(e edge) bool { return e.to == start })
	}
	return hops
}

// lasso builds the counterexample: the breadth-first path to state bad,
// then the cycle. The cycle is replayed by state, not by action index: the
// concrete states met on it behave like the stored ones but may list their
// actions in another order.
func (x *explorer[S, A]) lasso(law spec.Law, detail string, bad uint32, cycle []hop) Counterexample {
	init, acts := x.path(bad)
	steps, s := x.replay(init, acts)
	v := spec.Violation{Law: law, Detail: detail}
	if conv := x.m.Converged(s); len(conv) > 0 {
		v.Resource, v.Members = conv[0].Resource, conv[0].Members
		v.Detail = detail + ": " + conv[0].String()
	}
	ce := Counterexample{Law: law, Violation: v, Steps: steps, Loop: len(steps)}
	if cycle == nil {
		ce.Loop = -1
		return ce
	}
	enc := &canon.Encoder{}
	var buf []A
	for hi, h := range cycle {
		buf = x.m.Actions(s, buf[:0])
		took := false
		for _, a := range buf {
			k := x.m.Kind(a)
			if k == Env || (h.keyed && (k != Own || x.m.FairKey(s, a) != h.key)) {
				continue
			}
			t, _ := x.m.Step(s, a)
			if id, missing := x.seen.find(x.fingerprint(enc, t)); !missing && id == h.to {
				ce.Steps = append(ce.Steps, x.step(s, a))
				s, took = t, true
				break
			}
		}
		if !took {
			var got []string
			for _, a := range buf {
				t, _ := x.m.Step(s, a)
				id, missing := x.seen.find(x.fingerprint(enc, t))
				got = append(got, fmt.Sprintf("%s->%d(%v)", x.m.Line(s, a), id, missing))
			}
			panic(fmt.Sprintf("checker: cannot replay the cycle of a %s counterexample: no step to state %d at hop %d of %d; steps lead to %v", law, h.to, hi, len(cycle), got))
		}
	}
	return ce
}
