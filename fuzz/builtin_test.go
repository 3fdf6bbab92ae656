package fuzz_test

import (
	"testing"

	"github.com/rebalance-ref/rebalance/fuzz"
	"github.com/rebalance-ref/rebalance/model/assign"
)

// TestBuiltinAssignors runs the project's own assignors through the
// harness with the guarantees their doc comments state (model/assign's
// package comment): a harness that failed them would be wrong, and the
// guarantees they do not state are left out on purpose.
func TestBuiltinAssignors(t *testing.T) {
	cases := []struct {
		name string
		a    assign.Assignor
		o    fuzz.Options
	}{
		{"range", assign.Range(), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.Complete, fuzz.TopicBalanced, fuzz.CoPartitioned, fuzz.ConvergesWithin(1), fuzz.NoBackAndForth}}},
		{"roundrobin", assign.RoundRobin(), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.Complete, fuzz.ConvergesWithin(1), fuzz.NoBackAndForth}}},
		{"sticky", assign.Sticky(), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.Complete, fuzz.Balanced, fuzz.Sticky, fuzz.ConvergesWithin(1), fuzz.NoBackAndForth}}},
		{"sticky-racks", assign.Sticky(), fuzz.Options{Racks: true, Guarantees: []fuzz.Guarantee{fuzz.Complete, fuzz.Balanced, fuzz.ConvergesWithin(1), fuzz.NoBackAndForth}}},
		{"cooperative-sticky", assign.CooperativeSticky(), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.CooperativeHandoff, fuzz.Complete, fuzz.Balanced, fuzz.Sticky, fuzz.ConvergesWithin(2), fuzz.NoBackAndForth}}},
		{"uniform", assign.Uniform(), fuzz.Options{Side: fuzz.ServerSide, Guarantees: []fuzz.Guarantee{fuzz.Complete, fuzz.Sticky}}},
		{"server-range", assign.ServerRange(), fuzz.Options{Side: fuzz.ServerSide, Guarantees: []fuzz.Guarantee{fuzz.Complete, fuzz.TopicBalanced, fuzz.CoPartitioned, fuzz.ConvergesWithin(1)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { fuzz.Assignor(t, c.a, c.o) })
	}
}
