package canon

import (
	"slices"
	"sync/atomic"
)

// Memo keeps the last encoding one node wrote through Encoder.Memoized,
// with the clock it was written at, so that a node that did not change
// between two states is not encoded twice. The node owns it and must give
// itself a fresh Memo (or Forget) before it changes: a Memo says nothing
// about whether its node changed. Its zero value is empty. It is safe for
// concurrent use: the model checker encodes states that share an unchanged
// node on several goroutines.
type Memo struct {
	last atomic.Pointer[memoEntry]
}

type memoEntry struct {
	now   int64
	space string
	buf   []byte
	// slots and oslots are the correlation ids and order values written,
	// at offsets into buf.
	slots  []seqSlot
	oslots []int
}

// Forget empties m.
func (m *Memo) Forget() { m.last.Store(nil) }

// Memoized appends what write appends, taking it from m when m holds an
// encoding written at the same clock and in the same correlation-id space
// (SeqSpace): its correlation ids and order values are recorded with it
// and take part in Finish's renumbering as if written again. Nothing is
// kept or reused while the encoder renames, abstracts identities or skips
// correlation ids. A nil m memoizes nothing.
func (e *Encoder) Memoized(m *Memo, write func()) {
	reusable := m != nil && e.Rename == nil && e.AbstractIdentities == nil && !e.SkipSeq
	if reusable {
		if x := m.last.Load(); x != nil && x.now == e.Now && x.space == e.SeqSpace {
			base := len(e.Buf)
			e.Buf = append(e.Buf, x.buf...)
			for _, sl := range x.slots {
				e.slots = append(e.slots, seqSlot{base + sl.off, sl.space})
			}
			for _, off := range x.oslots {
				e.oslots = append(e.oslots, base+off)
			}
			return
		}
	}
	start, slots, oslots := len(e.Buf), len(e.slots), len(e.oslots)
	write()
	if !reusable {
		return
	}
	x := &memoEntry{now: e.Now, space: e.SeqSpace, buf: slices.Clone(e.Buf[start:])}
	for _, sl := range e.slots[slots:] {
		x.slots = append(x.slots, seqSlot{sl.off - start, sl.space})
	}
	for _, off := range e.oslots[oslots:] {
		x.oslots = append(x.oslots, off-start)
	}
	m.last.Store(x)
}
