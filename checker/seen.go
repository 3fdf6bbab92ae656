package checker

import (
	"math/bits"
	"sync"
)

// seenShards is the number of independently locked parts of the seen set;
// a power of two, many more than workers, so that workers rarely wait.
const seenShards = 256

// seenSet maps each stored state to its id: by 64-bit fingerprint (an open
// addressing table of 12 bytes a slot, kept between half and three
// quarters full, so 16 to 24 bytes a state) or, in exact mode, by the
// whole canonical encoding. It is safe for concurrent use.
type seenSet struct {
	exact  bool
	shards [seenShards]seenShard
}

type seenShard struct {
	mu sync.Mutex
	// keys and ids are the fingerprint table: keys[i] == 0 marks a free
	// slot (fingerprint 0 is stored as 1). A fingerprint's probe starts
	// at home(fp) and goes on linearly, wrapping around.
	keys []uint64
	ids  []uint32
	used int
	// encodings is the exact table.
	encodings map[string]uint32
	bytes     int64 // encoding bytes held, exact mode
	// The blank field fills the shard out to two 64-byte cache lines, so
	// that workers locking neighbouring shards do not write to one line.
	_ [128 - 80]byte
}

func newSeenSet(exact bool) *seenSet {
	s := &seenSet{exact: exact}
	for i := range s.shards {
		sh := &s.shards[i]
		if exact {
			sh.encodings = map[string]uint32{}
		} else {
			sh.keys = make([]uint64, 64)
			sh.ids = make([]uint32, 64)
		}
	}
	return s
}

// insert stores the state with fingerprint fp (and encoding enc, in exact
// mode) under the id newID() returns if it is new, and reports its id and
// whether it was new. newID is called under the shard's lock, at most once.
func (s *seenSet) insert(fp uint64, enc []byte, newID func() uint32) (uint32, bool) {
	sh := &s.shards[fp>>56%seenShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if s.exact {
		if id, ok := sh.encodings[string(enc)]; ok {
			return id, false
		}
		id := newID()
		sh.encodings[string(enc)] = id
		sh.bytes += int64(len(enc))
		return id, true
	}
	if fp == 0 {
		fp = 1
	}
	for i := home(fp, len(sh.keys)); ; i = next(i, len(sh.keys)) {
		switch sh.keys[i] {
		case fp:
			return sh.ids[i], false
		case 0:
			id := newID()
			sh.keys[i], sh.ids[i] = fp, id
			sh.used++
			if sh.used*4 >= len(sh.keys)*3 {
				sh.grow()
			}
			return id, true
		}
	}
}

// home is where the probe for fp starts in a table of n slots: fp's bits
// below the shard's (the top eight choose the shard) scaled to [0, n).
func home(fp uint64, n int) int {
	hi, _ := bits.Mul64(fp<<8, uint64(n))
	return int(hi)
}

// next is the slot after i in a table of n slots.
func next(i, n int) int {
	if i++; i == n {
		return 0
	}
	return i
}

// grow makes the table half as large again: from three quarters full to
// half full.
func (sh *seenShard) grow() {
	keys, ids := sh.keys, sh.ids
	n := len(keys) + len(keys)/2
	sh.keys, sh.ids = make([]uint64, n), make([]uint32, n)
	for j, k := range keys {
		if k == 0 {
			continue
		}
		i := home(k, n)
		for sh.keys[i] != 0 {
			i = next(i, n)
		}
		sh.keys[i], sh.ids[i] = k, ids[j]
	}
}

// find returns the id of a stored state and false, or true when it is
// not stored.
func (s *seenSet) find(fp uint64, enc []byte) (uint32, bool) {
	sh := &s.shards[fp>>56%seenShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if s.exact {
		id, ok := sh.encodings[string(enc)]
		return id, !ok
	}
	if fp == 0 {
		fp = 1
	}
	for i := home(fp, len(sh.keys)); sh.keys[i] != 0; i = next(i, len(sh.keys)) {
		if sh.keys[i] == fp {
			return sh.ids[i], false
		}
	}
	return 0, true
}

// bytes estimates the memory the set holds: the fingerprint tables'
// slots, or the stored encodings plus a map entry's overhead (a string
// header, an id and about 16 bytes of Go map bookkeeping) each.
func (s *seenSet) size() int64 {
	var n int64
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		if s.exact {
			n += sh.bytes + int64(len(sh.encodings))*(16+4+16)
		} else {
			n += int64(len(sh.keys)) * 12
		}
		sh.mu.Unlock()
	}
	return n
}
