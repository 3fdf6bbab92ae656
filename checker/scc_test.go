package checker

import (
	"testing"

	"pgregory.net/rapid"
)

// TestComponentsAgainstReachability checks the component search on random
// graphs against the definition: two states share a component exactly
// when each reaches the other. It also checks what the liveness check
// relies on besides the partition: comp names each state's component,
// every step between two components goes from a later one to an earlier
// one (Tarjan completes a component only after all it reaches), a
// component's states are listed from the last the search reached to the
// first (the order the counterexamples were found in before the
// components shared one array), and cyclic is true exactly for the
// components a path can go round.
//
// A failure prints rapid's seed; rerun it with
//
//	go test ./checker -run TestComponentsAgainstReachability -rapid.seed=SEED
func TestComponentsAgainstReachability(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(t, "states")
		state := rapid.Custom(func(t *rapid.T) uint32 { return uint32(rapid.IntRange(0, n-1).Draw(t, "state")) })
		var es []edge
		for _, e := range rapid.SliceOfN(rapid.Custom(func(t *rapid.T) [2]uint32 {
			return [2]uint32{state.Draw(t, "from"), state.Draw(t, "to")}
		}), 0, 3*n).Draw(t, "steps") {
			es = append(es, edge{from: e[0], to: e[1]})
		}
		// The steps in two lists, as two workers would give them.
		cut := rapid.IntRange(0, len(es)).Draw(t, "cut")
		g := graph{edges: [][]edge{es[:cut], es[cut:]}}
		adj := g.adjacency(n, func(edge) bool { return true })

		// reach[u][v]: a path of one step or more leads from u to v.
		reach := make([][]bool, n)
		for u := range reach {
			reach[u] = make([]bool, n)
		}
		for _, e := range es {
			reach[e.from][e.to] = true
		}
		for k := range n {
			for u := range n {
				for v := range n {
					reach[u][v] = reach[u][v] || reach[u][k] && reach[k][v]
				}
			}
		}

		comps, comp := adj.sccs(n)
		seen := make([]int, n)
		for k := range comps.count() {
			c := comps.of(k)
			if len(c) == 0 {
				t.Fatalf("component %d is empty", k)
			}
			for _, v := range c {
				seen[v]++
				if comp[v] != int32(k) {
					t.Fatalf("state %d listed in component %d, comp says %d", v, k, comp[v])
				}
			}
			cycle := len(c) > 1 || reach[c[0]][c[0]]
			if adj.cyclic(c) != cycle {
				t.Fatalf("component %v: cyclic %v, want %v", c, adj.cyclic(c), cycle)
			}
		}
		for v := range n {
			if seen[v] != 1 {
				t.Fatalf("state %d is in %d components, want 1", v, seen[v])
			}
			for u := range n {
				same := u == v || reach[u][v] && reach[v][u]
				if (comp[u] == comp[v]) != same {
					t.Fatalf("states %d and %d: same component %v, mutually reachable %v", u, v, comp[u] == comp[v], same)
				}
			}
		}
		for _, e := range es {
			if comp[e.from] < comp[e.to] {
				t.Fatalf("step %d->%d goes from component %d to the later %d", e.from, e.to, comp[e.from], comp[e.to])
			}
		}
		// The listing order: a search in state order reaches the states of
		// each component in the order of a depth-first walk; the last
		// reached is listed first, the component's first reached (its
		// root, the least in search order) last.
		order := searchOrder(adj, n)
		for k := range comps.count() {
			c := comps.of(k)
			for i := 1; i < len(c); i++ {
				if order[c[i-1]] < order[c[i]] {
					t.Fatalf("component %v: state %d, reached at %d, listed before %d, reached at %d", c, c[i-1], order[c[i-1]], c[i], order[c[i]])
				}
			}
		}
	})
}

// searchOrder numbers the states in the order a depth-first search from
// each unreached state in turn, taking each state's steps in their order,
// first reaches them (written recursively, unlike sccs).
func searchOrder(adj adjacency, n int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = -1
	}
	next := 0
	var visit func(v uint32)
	visit = func(v uint32) {
		order[v] = next
		next++
		for _, w := range adj.targets(v) {
			if order[w] < 0 {
				visit(w)
			}
		}
	}
	for v := range uint32(n) {
		if order[v] < 0 {
			visit(v)
		}
	}
	return order
}
