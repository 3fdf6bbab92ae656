package spec

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkCheckRound checks one cooperative round of a thousand-member
// group over ten topics of 10,000 partitions, as a leader of the cost
// simulator's largest rolling restart does at every round: each member
// claims its hundred partitions (a tenth of each topic's run), and the
// round gives them back but for one member, whose partitions go to
// nobody (the revoking half of a cooperative rebalance).
//
//	go test -run '^$' -bench BenchmarkCheckRound -count 8 -benchmem ./spec/
func BenchmarkCheckRound(b *testing.B) {
	const members, topics, partitions = 1000, 10, 10000
	r := Round{Topics: Topics{}, Subscriptions: map[MemberID][]string{}, Claims: map[MemberID]Set{}, Assigned: Assignment{}, Cooperative: true}
	var names []string
	for t := range topics {
		name := fmt.Sprintf("topic-%02d", t)
		names = append(names, name)
		r.Topics[name] = partitions
	}
	for m := range members {
		id := MemberID(fmt.Sprintf("m%04d", m))
		// Each set has topic strings of its own, one per run, as
		// ParseSet reads them from a member's metadata.
		owned := func() Set {
			var rs []Resource
			for _, t := range names {
				t = strings.Clone(t)
				for p := m * partitions / members; p < (m+1)*partitions/members; p++ {
					rs = append(rs, TP(t, int32(p)))
				}
			}
			return NewSet(rs...)
		}
		r.Subscriptions[id] = names
		r.Claims[id] = owned()
		if m == members/2 {
			r.Assigned[id] = nil
			continue
		}
		// The assignor's output is a set of its own, not the claim.
		r.Assigned[id] = owned()
	}
	b.ReportAllocs()
	for b.Loop() {
		if vs := CheckRound(r); len(vs) != 0 {
			b.Fatal(vs)
		}
	}
}
