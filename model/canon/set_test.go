package canon

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestStringIsLengthThenBytes: String writes the string's length as a
// uvarint, then its bytes, at every length around the one-byte fast
// path's edge.
func TestStringIsLengthThenBytes(t *testing.T) {
	for _, n := range []int{0, 1, 5, 126, 127, 128, 129, 300, 16384} {
		s := strings.Repeat("x", n)
		var e Encoder
		e.String(s)
		want := append(binary.AppendUvarint(nil, uint64(n)), s...)
		if !bytes.Equal(e.Buf, want) {
			t.Errorf("String of %d bytes: % x..., want % x...", n, e.Buf[:min(len(e.Buf), 4)], want[:min(len(want), 4)])
		}
	}
}

// TestSetEncoding: a set is written as its size, then each run of one
// topic as the topic, the run's length and its partitions.
func TestSetEncoding(t *testing.T) {
	var e Encoder
	e.Set(spec.Set{spec.TP("a", 0), spec.TP("a", 2), spec.TP("bc", -1)})
	want := []byte{3, 1, 'a', 2, 0, 4, 2, 'b', 'c', 1, 1}
	if !bytes.Equal(e.Buf, want) {
		t.Fatalf("Set: % x, want % x", e.Buf, want)
	}
}

// TestSetEncodingIsAPrefixCode: over every sorted set of up to four
// resources of a small universe (topics whose names are prefixes of one
// another, connectors and partitions), no two sets encode alike and no
// set's encoding is a prefix of another's, so a set followed by anything
// else in a state's encoding is read back unambiguously.
func TestSetEncodingIsAPrefixCode(t *testing.T) {
	var universe []spec.Resource
	for _, topic := range []string{"a", "aa", "b"} {
		for _, p := range []int32{-1, 0, 1, 63, 64} {
			universe = append(universe, spec.TP(topic, p))
		}
	}
	var sets []spec.Set
	var grow func(from int, s spec.Set)
	grow = func(from int, s spec.Set) {
		sets = append(sets, append(spec.Set(nil), s...))
		if len(s) == 4 {
			return
		}
		for i := from; i < len(universe); i++ {
			grow(i+1, append(s, universe[i]))
		}
	}
	grow(0, nil)
	encs := make([]string, len(sets))
	for i, s := range sets {
		var e Encoder
		e.Set(s)
		encs[i] = string(e.Buf)
	}
	for i := range encs {
		for j := range encs {
			if i != j && strings.HasPrefix(encs[j], encs[i]) {
				t.Fatalf("%v encodes as % x, a prefix of %v's % x", sets[i], encs[i], sets[j], encs[j])
			}
		}
	}
	if len(sets) != 1941 { // 1 + 15 + 105 + 455 + 1365
		t.Fatalf("%d sets, want 1941", len(sets))
	}
}
