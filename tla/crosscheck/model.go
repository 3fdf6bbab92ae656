package crosscheck

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/checker"
	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/tla/tlaval"
)

// FromModel explores every state of the Go model m reachable from its
// initial states, breadth-first, telling states apart exactly by their
// whole canonical encoding (the checker's --exact storage, so no two Go
// states are ever merged by a fingerprint collision), and returns the
// graph of their images: state maps a Go state to the TLA+ record of the
// spec's variables, action names the TLA+ action a step is. Several Go
// states may have one image; the graph holds each image and each image
// step once. state must depend only on what the encoding keeps (states
// with one encoding behave alike, so they must look alike): each encoding
// is mapped once. maxStates bounds the search (0: none); reaching it is an
// error, as an incomplete graph cannot be compared.
func FromModel[S, A any](m checker.Model[S, A], state func(S) tlaval.Value, action func(S, A) string, maxStates int) (*Graph, error) {
	g := NewGraph()
	enc := &canon.Encoder{}
	key := func(s S) string {
		enc.Reset()
		m.Encode(enc, s)
		return string(enc.Finish())
	}
	// seen maps each Go state's encoding to its image, so a state
	// reached again is not mapped again.
	seen := map[string]string{}
	type item struct {
		s    S
		text string
	}
	var frontier []item
	for _, s := range m.Init() {
		k := key(s)
		if _, ok := seen[k]; ok {
			continue
		}
		text := state(s).String()
		g.AddState(text, true)
		seen[k] = text
		frontier = append(frontier, item{s, text})
	}
	var acts []A
	for len(frontier) > 0 {
		var next []item
		for _, it := range frontier {
			acts = m.Actions(it.s, acts[:0])
			for _, a := range acts {
				name := action(it.s, a)
				t, _ := m.Step(it.s, a)
				k := key(t)
				if text, ok := seen[k]; ok {
					g.AddEdge(it.text, name, text)
					continue
				}
				text := state(t).String()
				g.AddEdge(it.text, name, text)
				seen[k] = text
				if maxStates > 0 && len(seen) > maxStates {
					return nil, fmt.Errorf("more than %d Go states: the search stopped before the graph was complete", maxStates)
				}
				next = append(next, item{t, text})
			}
		}
		frontier = next
	}
	return g, nil
}
