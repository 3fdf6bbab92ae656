package spec

import (
	"fmt"
	"strings"
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

// BenchmarkSetOps runs the set operations on two of a member's sets as a
// leader and a member meet them in a large group: 100 partitions over ten
// topics each, read from text (so each set holds its own topic strings),
// the second with every tenth partition replaced by another. Run it with
//
//	go test ./spec -run XXX -bench SetOps -count 10
func BenchmarkSetOps(b *testing.B) {
	var xs, ys []Resource
	for t := range 10 {
		for p := range 10 {
			xs = append(xs, TP(fmt.Sprintf("topic-%02d", t), int32(t*1000+p*7)))
			q := int32(t*1000 + p*7)
			if p%10 == 3 {
				q++
			}
			ys = append(ys, TP(fmt.Sprintf("topic-%02d", t), q))
		}
	}
	s, err := ParseSet(NewSet(xs...).String())
	if err != nil {
		b.Fatal(err)
	}
	o, err := ParseSet(NewSet(ys...).String())
	if err != nil {
		b.Fatal(err)
	}
	for _, op := range []struct {
		name string
		f    func() int
	}{
		{"minus", func() int { return len(s.Minus(o)) }},
		{"union", func() int { return len(s.Union(o)) }},
		{"intersect", func() int { return len(s.Intersect(o)) }},
		{"split", func() int {
			both, onlyS, onlyO := Split(s, o)
			return len(both) + len(onlyS) + len(onlyO)
		}},
		{"meets", func() int {
			if s.Meets(o) {
				return 1
			}
			return 0
		}},
	} {
		want := op.f()
		b.Run(op.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := op.f(); got != want {
					b.Fatalf("%d, want %d", got, want)
				}
			}
		})
	}
}

// BenchmarkSetString prints a member's share of a large group as a member
// prints what it owns in its subscription and a leader prints each
// member's assignment, in every round: 100 partitions over ten topics.
// Run it with
//
//	go test ./spec -run XXX -bench SetString -count 10
func BenchmarkSetString(b *testing.B) {
	var rs []Resource
	for t := range 10 {
		for p := range 10 {
			rs = append(rs, TP(fmt.Sprintf("topic-%02d", t), int32(t*1000+p*7)))
		}
	}
	s := NewSet(rs...)
	want := len(s.String())
	b.ReportAllocs()
	for b.Loop() {
		var sb strings.Builder
		s.BuildString(&sb)
		if sb.Len() != want {
			b.Fatalf("BuildString wrote %d bytes, want %d", sb.Len(), want)
		}
	}
}
