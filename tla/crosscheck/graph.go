// Package crosscheck compares the Go closed worlds with the TLA+ specs in
// tla/: both sides become a Graph of canonical TLA+ texts (package tlaval),
// TLC's through its -dump dot,actionlabels output (ReadDot), the Go model's
// through an exhaustive search that maps every state to the record of the
// spec's variables and every step to the spec's action name (FromModel).
// The two graphs must be equal: the same initial states, the same states
// and the same transitions (from, action, to). Summary reduces a graph to
// its counts and digests, which is what tla/golden keeps of each TLC run;
// Compare says where two graphs differ.
package crosscheck

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/tla/tlaval"
)

// Edge is one transition: the canonical texts of its states and the name
// of the action (the TLA+ operator, without its arguments).
type Edge struct {
	From, Action, To string
}

// Graph is a state graph over canonical TLA+ texts. Invariant: every
// initial state and every edge's end is in States.
type Graph struct {
	Init   map[string]bool
	States map[string]bool
	Edges  map[Edge]bool
}

// NewGraph returns an empty graph.
func NewGraph() *Graph {
	return &Graph{Init: map[string]bool{}, States: map[string]bool{}, Edges: map[Edge]bool{}}
}

// AddState adds state s, initial when init is true.
func (g *Graph) AddState(s string, init bool) {
	g.States[s] = true
	if init {
		g.Init[s] = true
	}
}

// AddEdge adds the transition from --action--> to and both states.
func (g *Graph) AddEdge(from, action, to string) {
	g.States[from] = true
	g.States[to] = true
	g.Edges[Edge{from, action, to}] = true
}

// Summary is what a graph is reduced to for the golden files: its counts,
// its diameter and digests of its sets of states and transitions.
type Summary struct {
	// States is the number of distinct states; Transitions the number of
	// distinct (from, action, to) triples, self-loops included.
	States      int `json:"distinct_states"`
	Transitions int `json:"transitions"`
	// Diameter is the number of breadth-first levels from the initial
	// states, as TLC reports "the depth of the complete state graph
	// search" (a graph of initial states only has diameter 1).
	Diameter int `json:"diameter"`
	// StatesDigest is the SHA-256 of the sorted canonical state texts,
	// each followed by a newline; InitDigest the same of the initial
	// states.
	StatesDigest string `json:"states_digest"`
	InitDigest   string `json:"init_digest"`
	// TransitionsDigest is the SHA-256 of the sorted lines "from TAB
	// action TAB to" of every transition, each followed by a newline.
	TransitionsDigest string `json:"transitions_digest"`
}

// Summarize computes g's summary.
func (g *Graph) Summarize() Summary {
	return Summary{
		States:            len(g.States),
		Transitions:       len(g.Edges),
		Diameter:          g.Diameter(),
		StatesDigest:      digest(sortedKeys(g.States)),
		InitDigest:        digest(sortedKeys(g.Init)),
		TransitionsDigest: digest(g.edgeLines()),
	}
}

// Diameter returns the number of breadth-first levels reachable from the
// initial states.
func (g *Graph) Diameter() int {
	succ := map[string][]string{}
	for e := range g.Edges {
		succ[e.From] = append(succ[e.From], e.To)
	}
	seen := map[string]bool{}
	var level []string
	for s := range g.Init {
		seen[s] = true
		level = append(level, s)
	}
	depth := 0
	for len(level) > 0 {
		depth++
		var next []string
		for _, s := range level {
			for _, t := range succ[s] {
				if !seen[t] {
					seen[t] = true
					next = append(next, t)
				}
			}
		}
		level = next
	}
	return depth
}

func (g *Graph) edgeLines() []string {
	lines := make([]string, 0, len(g.Edges))
	for e := range g.Edges {
		lines = append(lines, e.From+"\t"+e.Action+"\t"+e.To)
	}
	slices.Sort(lines)
	return lines
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func digest(lines []string) string {
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Compare returns "" when want and got are the same graph, and otherwise
// a report of how they differ: the counts on each side; the steps where
// the sides part (from a state both have to a state one side only has);
// then up to n initial states, states and transitions found on one side
// only, each as TLA+ text, in sorted order. wantName and gotName label the
// sides (for example "TLC" and "Go").
func Compare(wantName string, want *Graph, gotName string, got *Graph, n int) string {
	var b strings.Builder
	list := func(header string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "%d %s:\n", len(items), header)
		for i, s := range items {
			if i == n {
				fmt.Fprintf(&b, "  ... and %d more\n", len(items)-n)
				break
			}
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	step := func(e Edge) string { return e.From + "\n    --" + e.Action + "-->\n  " + e.To }
	// The steps that leave the common part: from a state both sides have
	// to a state one side only has, the first place they part.
	parting := func(g, other *Graph) []string {
		var out []string
		for _, e := range partingSteps(g, other) {
			out = append(out, step(e))
		}
		slices.Sort(out)
		return out
	}
	list("places where one step from a common state leads to different states (variable: "+wantName+"'s value / "+gotName+"'s)", successorDiffs(want, got))
	list("steps "+wantName+" takes from a common state to a state only "+wantName+" has", parting(want, got))
	list("steps "+gotName+" takes from a common state to a state only "+gotName+" has", parting(got, want))
	list("initial states only "+wantName+" has", onlyIn(want.Init, got.Init))
	list("initial states only "+gotName+" has", onlyIn(got.Init, want.Init))
	list("states only "+wantName+" has", onlyIn(want.States, got.States))
	list("states only "+gotName+" has", onlyIn(got.States, want.States))
	edges := func(g, other *Graph) []string {
		var out []string
		for e := range g.Edges {
			if !other.Edges[e] && other.States[e.From] && other.States[e.To] {
				out = append(out, step(e))
			}
		}
		slices.Sort(out)
		return out
	}
	list("transitions between common states only "+wantName+" has", edges(want, got))
	list("transitions between common states only "+gotName+" has", edges(got, want))
	if b.Len() == 0 {
		return ""
	}
	ws, gs := want.Summarize(), got.Summarize()
	head := fmt.Sprintf("%s: %d states, %d transitions, diameter %d; %s: %d states, %d transitions, diameter %d\n",
		wantName, ws.States, ws.Transitions, ws.Diameter, gotName, gs.States, gs.Transitions, gs.Diameter)
	return head + b.String()
}

// successorDiffs pairs the steps where the graphs part: a step of want
// and a step of got from the same common state with the same action, each
// to a state only its side has, and lists where the two successors differ.
func successorDiffs(want, got *Graph) []string {
	type key struct{ from, action string }
	leaving := func(g, other *Graph) map[key][]string {
		m := map[key][]string{}
		for _, e := range partingSteps(g, other) {
			k := key{e.From, e.Action}
			m[k] = append(m[k], e.To)
		}
		return m
	}
	w, g := leaving(want, got), leaving(got, want)
	var out []string
	for k, wTos := range w {
		gTos := g[k]
		if len(wTos) != 1 || len(gTos) != 1 {
			continue // ambiguous pairing: the lists below show both
		}
		a, err1 := tlaval.Parse(wTos[0])
		b, err2 := tlaval.Parse(gTos[0])
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, k.action+" from "+k.from+"\n    "+strings.Join(tlaval.Diff("", a, b), "\n    "))
	}
	slices.Sort(out)
	return out
}

// partingSteps returns g's steps from a state other has to a state other
// does not have: where the two graphs part.
func partingSteps(g, other *Graph) []Edge {
	var out []Edge
	for e := range g.Edges {
		if other.States[e.From] && !other.States[e.To] {
			out = append(out, e)
		}
	}
	return out
}

func onlyIn(a, b map[string]bool) []string {
	var out []string
	for s := range a {
		if !b[s] {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}
