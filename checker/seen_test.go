package checker

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestSeenSet: every fingerprint inserted is found again with its id, a
// second insert is not new, fingerprint 0 is a fingerprint like the
// others (stored as 1, which a 64-bit hash all but never is), and the table stays between half and three quarters full once
// it has grown, so it holds at most 24 bytes a state.
func TestSeenSet(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d (rerun: set it in the test)", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	s := newSeenSet(false)
	var next uint32
	newID := func() uint32 { next++; return next - 1 }
	fps := []uint64{0, 1 << 63, ^uint64(0)}
	for range 200000 {
		if fp := rng.Uint64(); fp > 1 {
			fps = append(fps, fp)
		}
	}
	ids := map[uint64]uint32{}
	for _, fp := range fps {
		id, isNew := s.insert(fp, nil, newID)
		if old, seen := ids[fp]; seen {
			if isNew || id != old {
				t.Fatalf("fingerprint %#x inserted again: id %d new %v, want %d", fp, id, isNew, old)
			}
			continue
		}
		if !isNew {
			t.Fatalf("fingerprint %#x is new but was reported seen (id %d)", fp, id)
		}
		ids[fp] = id
	}
	for fp, want := range ids {
		if id, missing := s.find(fp, nil); missing || id != want {
			t.Fatalf("find(%#x) = %d, missing %v; want %d", fp, id, missing, want)
		}
		if _, isNew := s.insert(fp, nil, newID); isNew {
			t.Fatalf("fingerprint %#x stored twice", fp)
		}
	}
	if _, missing := s.find(12345, nil); !missing && ids[12345] == 0 {
		t.Errorf("a fingerprint never inserted is found")
	}
	if per := float64(s.size()) / float64(len(ids)); per > 24 {
		t.Errorf("%.1f bytes a state in the table, want at most 24", per)
	}
}

// TestSeenShardFillsTwoCacheLines: the padding keeps each shard on lines
// of its own (a field added to seenShard must shrink pad).
func TestSeenShardFillsTwoCacheLines(t *testing.T) {
	if n := unsafe.Sizeof(seenShard{}); n != 128 {
		t.Fatalf("seenShard is %d bytes, want 128", n)
	}
}
