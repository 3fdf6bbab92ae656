package fuzz_test

import (
	"flag"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/fuzz"
	"github.com/rebalance-ref/rebalance/model/assign"
)

// BenchmarkAssignor measures the harness on groups of up to 50 members and
// 500 partitions (5 topics of up to 100), each case a few rounds with
// changes, with every guarantee each assignor states. Each iteration is
// one rapid.Check of -rapid.checks cases; groups/s is cases per second.
//
//	go test ./fuzz -run '^$' -bench Assignor -cpu 1 -benchtime 10x
func BenchmarkAssignor(b *testing.B) {
	large := fuzz.Limits{Members: 50, Topics: 5, Partitions: 100}
	cases := []struct {
		name string
		a    assign.Assignor
		o    fuzz.Options
	}{
		{"range", assign.Range(), fuzz.Options{Limits: large, Guarantees: []fuzz.Guarantee{fuzz.Complete, fuzz.TopicBalanced, fuzz.CoPartitioned, fuzz.ConvergesWithin(1)}}},
		{"sticky", assign.Sticky(), fuzz.Options{Limits: large, Guarantees: []fuzz.Guarantee{fuzz.Complete, fuzz.Balanced, fuzz.Sticky, fuzz.ConvergesWithin(1), fuzz.NoBackAndForth}}},
		{"cooperative-sticky", assign.CooperativeSticky(), fuzz.Options{Limits: large, Guarantees: []fuzz.Guarantee{fuzz.CooperativeHandoff, fuzz.Complete, fuzz.Balanced, fuzz.Sticky, fuzz.ConvergesWithin(2), fuzz.NoBackAndForth}}},
		{"uniform", assign.Uniform(), fuzz.Options{Side: fuzz.ServerSide, Limits: large, Guarantees: []fuzz.Guarantee{fuzz.Complete, fuzz.Sticky}}},
	}
	checks := 100
	if f := flag.Lookup("rapid.checks"); f != nil {
		if v, ok := f.Value.(flag.Getter); ok {
			checks = v.Get().(int)
		}
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			prop, err := fuzz.AssignorProperty(c.a, c.o)
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			n := 0
			for b.Loop() {
				rapid.Check(b, prop)
				n++
			}
			b.ReportMetric(float64(n*checks)/time.Since(start).Seconds(), "groups/s")
		})
	}
}
