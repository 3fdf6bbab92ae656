package target

import (
	"fmt"
	"testing"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// BenchmarkBuildLarge is the target computation of a rebalance of a
// large group: 1,000 members subscribed to 10 topics of 10,000 partitions
// each, with a complete, balanced previous target, of which one member
// leaves.
//
//	go test -run '^$' -bench BuildLarge -benchmem ./model/nextgen/target/
func BenchmarkBuildLarge(b *testing.B) {
	topics, names := spec.NumberedTopics("topic-%02d", 10, 10000)
	var members []Member
	for i := range 1000 {
		members = append(members, Member{ID: spec.MemberID(fmt.Sprintf("member-%04d", i)), Topics: append([]string(nil), names...)})
	}
	first, err := Build(Input{Members: members, Topics: topics, Assignor: assign.Uniform()})
	if err != nil {
		b.Fatal(err)
	}
	in := Input{Members: members, Previous: first.Target, Topics: topics, Assignor: assign.Uniform(), Remove: []spec.MemberID{members[0].ID}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(in); err != nil {
			b.Fatal(err)
		}
	}
}
