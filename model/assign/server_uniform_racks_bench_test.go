package assign

import (
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// srvRackBenchGroup is srvBenchGroup (10,000 members × 50 partitions over
// 100 topics, 500,000 partitions) with 3 racks: member i on rack i mod 3,
// partition p of every topic with replicas on racks p mod 3 and p+1 mod 3
// (one list per partition, as a coordinator would pass them).
func srvRackBenchGroup() Group {
	g := srvBenchGroup(10_000, 50, 100)
	racks := []string{"rack-0", "rack-1", "rack-2"}
	for i := range g.Members {
		g.Members[i].Rack = racks[i%3]
	}
	g.ReplicaRacks = map[string][][]string{}
	for name, n := range g.Topics {
		rows := make([][]string, n)
		for p := range rows {
			rows[p] = []string{racks[p%3], racks[(p+1)%3]}
		}
		g.ReplicaRacks[name] = rows
	}
	return g
}

// BenchmarkUniformRackAwareFull: UniformOptions.RackAware on
// srvRackBenchGroup, first assignment. Run it with
//
//	go test ./model/assign/ -run XXX -bench UniformRackAware -benchtime 20x
func BenchmarkUniformRackAwareFull(b *testing.B) {
	benchUniformRacks(b, srvRackBenchGroup())
}

// BenchmarkUniformRackAwareIncremental: UniformOptions.RackAware on
// srvRackBenchGroup whose members hold the full assignment's result as
// their previous target, with one member (rack-1) added.
func BenchmarkUniformRackAwareIncremental(b *testing.B) {
	g := srvRackBenchGroup()
	a, err := UniformWith(UniformOptions{RackAware: true}).Assign(g)
	if err != nil {
		b.Fatal(err)
	}
	for i := range g.Members {
		g.Members[i].Owned = a[g.Members[i].ID]
	}
	g.Members = append(g.Members, Member{ID: spec.MemberID("member-999999"), Topics: g.Members[0].Topics, Rack: "rack-1"})
	benchUniformRacks(b, g)
}

// BenchmarkUniformRackAwareOff: the same full group without RackAware,
// for comparison (the racks are ignored).
func BenchmarkUniformRackAwareOff(b *testing.B) {
	g := srvRackBenchGroup()
	as := Uniform()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := as.Assign(g); err != nil {
			b.Fatal(err)
		}
	}
}

func benchUniformRacks(b *testing.B, g Group) {
	as := UniformWith(UniformOptions{RackAware: true})
	b.ReportAllocs()
	clock := startThreadClock()
	for b.Loop() {
		if _, err := as.Assign(g); err != nil {
			b.Fatal(err)
		}
	}
	clock.report(b)
}
