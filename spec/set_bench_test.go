package spec

import (
	"fmt"
	"testing"
)

// BenchmarkParseSet reads a member's share of a large group as a leader
// reads it from each member's subscription in every round: 100 partitions
// over ten topics, printed by String. Run it with
//
//	go test ./spec -run XXX -bench ParseSet -count 10
func BenchmarkParseSet(b *testing.B) {
	var rs []Resource
	for t := range 10 {
		for p := range 10 {
			rs = append(rs, TP(fmt.Sprintf("topic-%02d", t), int32(t*1000+p*7)))
		}
	}
	text := NewSet(rs...).String()
	b.ReportAllocs()
	for b.Loop() {
		s, err := ParseSet(text)
		if err != nil || len(s) != len(rs) {
			b.Fatalf("ParseSet: %d resources, %v", len(s), err)
		}
	}
}
