package canon

import (
	"bytes"
	"testing"
)

// TestMemoized: a memoized encoding is reused only at the clock it was
// written at, only while nothing renames or abstracts, never when it holds
// a correlation id, and never after Forget; what it appends is always what
// the writer appends.
func TestMemoized(t *testing.T) {
	calls := 0
	write := func(e *Encoder) func() {
		return func() {
			calls++
			e.String("coordinator")
			e.Instant(1500)
		}
	}
	fresh := func(now int64) []byte {
		var e Encoder
		e.Now = now
		write(&e)()
		return e.Finish()
	}
	encode := func(m *Memo, now int64, setup func(*Encoder)) []byte {
		var e Encoder
		e.Now = now
		if setup != nil {
			setup(&e)
		}
		e.Int(7) // what the state writes before the node
		e.Memoized(m, write(&e))
		return e.Finish()
	}
	withPrefix := func(b []byte) []byte {
		var e Encoder
		e.Int(7)
		return append(e.Buf, b...)
	}
	for _, tc := range []struct {
		name  string
		run   func(m *Memo) [][]byte
		calls int
	}{
		{"reused at the same clock", func(m *Memo) [][]byte { return [][]byte{encode(m, 1000, nil), encode(m, 1000, nil)} }, 1},
		{"written again at another clock", func(m *Memo) [][]byte { return [][]byte{encode(m, 1000, nil), encode(m, 1200, nil)} }, 2},
		{"nothing kept without a memo", func(*Memo) [][]byte { return [][]byte{encode(nil, 1000, nil), encode(nil, 1000, nil)} }, 2},
		{"nothing kept while renaming", func(m *Memo) [][]byte {
			rename := func(e *Encoder) { e.Rename = func(s string) string { return s } }
			return [][]byte{encode(m, 1000, rename), encode(m, 1000, rename)}
		}, 2},
		{"nothing kept while abstracting identities", func(m *Memo) [][]byte {
			abstract := func(e *Encoder) { e.AbstractIdentities = func(v int64) int64 { return v } }
			return [][]byte{encode(m, 1000, abstract), encode(m, 1000, abstract)}
		}, 2},
		{"forgotten", func(m *Memo) [][]byte {
			a := encode(m, 1000, nil)
			m.Forget()
			return [][]byte{a, encode(m, 1000, nil)}
		}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls = 0
			var m Memo
			got := tc.run(&m)
			if calls != tc.calls {
				t.Errorf("the writer ran %d times, want %d", calls, tc.calls)
			}
			for i, b := range got {
				now := int64(1000)
				if tc.name == "written again at another clock" && i == 1 {
					now = 1200
				}
				if want := withPrefix(fresh(now)); !bytes.Equal(b, want) {
					t.Errorf("encoding %d: got %x, want %x", i, b, want)
				}
			}
		})
	}

	t.Run("correlation ids are renumbered as if written again", func(t *testing.T) {
		var m Memo
		n := 0
		enc := func(space string, seq uint64, before bool) []byte {
			var e Encoder
			if before {
				e.SeqSpace = "B"
				e.Seq(9) // another node's id comes first and takes number 1
			}
			e.SeqSpace = space
			e.Memoized(&m, func() { n++; e.Seq(seq); e.Order(seq) })
			return e.Finish()
		}
		first := enc("A", 42, false)
		again := enc("A", 42, true)
		if n != 1 {
			t.Fatalf("the writer ran %d times, want 1", n)
		}
		var want Encoder
		want.SeqSpace = "B"
		want.Seq(9)
		want.SeqSpace = "A"
		want.Seq(42)
		want.Order(42)
		if w := want.Finish(); !bytes.Equal(again, w) {
			t.Errorf("reused encoding %x, want %x (first %x)", again, w, first)
		}
		enc("C", 42, false)
		if n != 2 {
			t.Errorf("another space reused the memo: the writer ran %d times, want 2", n)
		}
	})
}
