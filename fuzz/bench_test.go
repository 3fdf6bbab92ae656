package fuzz_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/fuzz"
	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
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

// BenchmarkJudgeLargest is the harness on groups at the top of
// BenchmarkAssignor's range: 50 members subscribing to five topics of 100
// partitions each, claiming an earlier assignment with some partitions
// moved and some claimed twice, judged by Judge (rounds until the fixed
// point, every guarantee each assignor states). groups/s is Judge calls a
// second.
//
//	go test ./fuzz -run '^$' -bench JudgeLargest -cpu 1 -benchtime 20x
func BenchmarkJudgeLargest(b *testing.B) {
	names := []string{"a", "b", "c", "d", "e"}
	g := assign.Group{Topics: spec.Topics{}}
	for _, n := range names {
		g.Topics[n] = 100
	}
	rng := rand.New(rand.NewPCG(7, 7))
	owned := make([][]spec.Resource, 50)
	for i, r := range g.Topics.Resources(names...) {
		owned[(i+rng.IntN(3))%50] = append(owned[(i+rng.IntN(3))%50], r)
		if rng.IntN(20) == 0 {
			o := rng.IntN(50)
			owned[o] = append(owned[o], r)
		}
	}
	for i := range 50 {
		g.Members = append(g.Members, assign.Member{ID: spec.MemberID(fmt.Sprintf("m%02d", i)), Topics: names, Owned: spec.NewSet(owned[i]...), Generation: spec.Generation(3 - rng.IntN(2))})
	}
	cases := []struct {
		name string
		a    assign.Assignor
		o    fuzz.Options
	}{
		{"range", assign.Range(), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.Complete, fuzz.TopicBalanced, fuzz.CoPartitioned, fuzz.ConvergesWithin(1)}}},
		{"sticky", assign.Sticky(), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.Complete, fuzz.Balanced, fuzz.Sticky, fuzz.ConvergesWithin(1), fuzz.NoBackAndForth}}},
		{"cooperative-sticky", assign.CooperativeSticky(), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.CooperativeHandoff, fuzz.Complete, fuzz.Balanced, fuzz.Sticky, fuzz.ConvergesWithin(2), fuzz.NoBackAndForth}}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			start := time.Now()
			n := 0
			for b.Loop() {
				if err := fuzz.Judge(c.a, c.o, g); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(n)/time.Since(start).Seconds(), "groups/s")
		})
	}
}
