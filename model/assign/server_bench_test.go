package assign

import (
	"fmt"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// srvBenchGroup is Kafka's ServerSideAssignorBenchmark shape, homogeneous
// and FULL (no previous target): members members subscribed to all of
// topics topics, with members×ratio partitions spread evenly over them.
func srvBenchGroup(members, ratio, topics int) Group {
	universe, names := spec.NumberedTopics("topic-%04d", topics, int32(members*ratio/topics))
	g := Group{Topics: universe, Members: make([]Member, members)}
	for i := range g.Members {
		g.Members[i] = Member{ID: spec.MemberID(fmt.Sprintf("member-%06d", i)), Topics: names}
	}
	return g
}

// BenchmarkUniformHomogeneous: the uniform assignor's homogeneous builder,
// full assignment of 10,000 members × 50 partitions per member over 100
// topics (500,000 partitions), Kafka's ServerSideAssignorBenchmark
// doAssignment(FULL, UNIFORM, HOMOGENEOUS, 10000, 50, 100), for which
// KAFKA-18688's PR reports about 12-14 ms in Java. Besides wall-clock time
// it reports thread-ns/op, the CPU time of the benchmark's own thread (see
// threadClock). Run it with
//
//	go test ./model/assign/ -run XXX -bench UniformHomogeneous -benchtime 5x
func BenchmarkUniformHomogeneous(b *testing.B) {
	g := srvBenchGroup(10_000, 50, 100)
	as := Uniform()
	b.ReportAllocs()
	clock := startThreadClock()
	for b.Loop() {
		if _, err := as.Assign(g); err != nil {
			b.Fatal(err)
		}
	}
	clock.report(b)
}
