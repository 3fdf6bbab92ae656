package reconcile

import (
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// benchMember is a STABLE member holding 100 partitions of each of two
// topics, and its heartbeat's input: it reports owning them.
func benchMember() (Member, Input) {
	owned := spec.Range("topic-a", 0, 99).Union(spec.Range("topic-b", 100, 199))
	m := Member{Epoch: 7, PreviousEpoch: 6, State: Stable, Assigned: owned}
	return m, Input{TargetEpoch: 8, Owned: owned, OwnedSent: true,
		PartitionOwned: func(spec.Resource) bool { return false }}
}

// BenchmarkNextNewEpoch is the common step of a rebalance for most
// members: a new target epoch whose target for the member is what it
// already has (an equal set, not the same slice).
//
//	go test -run '^$' -bench Next -benchmem ./model/nextgen/reconcile/
func BenchmarkNextNewEpoch(b *testing.B) {
	m, in := benchMember()
	in.Target = append(spec.Set(nil), m.Assigned...)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Next(m, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNextRevoke is a member whose new target takes ten of its
// partitions and gives it ten others.
func BenchmarkNextRevoke(b *testing.B) {
	m, in := benchMember()
	in.Target = m.Assigned.Minus(spec.Range("topic-a", 0, 9)).Union(spec.Range("topic-c", 0, 9))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Next(m, in); err != nil {
			b.Fatal(err)
		}
	}
}
