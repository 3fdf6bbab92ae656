package canon

import (
	"bytes"
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// op is one value a random program writes: an instant (relative to the
// clock it is written under, so that some are due and some ahead), a
// correlation id, an order value, a string, or a multiset or keyed map of
// smaller programs (whose instants can reorder their items).
type op struct {
	kind  int
	n     int64
	items [][]op
}

func genProgram(depth int) *rapid.Generator[[]op] {
	return rapid.Custom(func(t *rapid.T) []op {
		var prog []op
		for range rapid.IntRange(0, 6).Draw(t, "len") {
			kind := rapid.IntRange(0, 6).Draw(t, "kind")
			if depth > 0 && kind >= 4 {
				kind = 0
			}
			o := op{kind: kind, n: rapid.Int64Range(-3, 3).Draw(t, "n")}
			if kind >= 4 {
				o.items = rapid.SliceOfN(genProgram(depth+1), 1, 3).Draw(t, "items")
			}
			prog = append(prog, o)
		}
		return prog
	})
}

// run writes prog with its instants at base+n (base the clock the values
// were first written under, whatever e.Now is).
func run(e *Encoder, prog []op, base int64) {
	for _, o := range prog {
		switch o.kind {
		case 0:
			if o.n == -3 {
				e.Instant(0)
			} else {
				e.Instant(base + 10*o.n)
			}
		case 1:
			e.SeqSpace = fmt.Sprint("S", o.n&1)
			e.Seq(uint64(o.n + 3))
		case 2:
			e.Order(uint64(o.n + 3))
		case 3:
			e.String(fmt.Sprint("s", o.n))
		case 4:
			e.Sorted(len(o.items), func(i int) { run(e, o.items[i], base) })
		case 5:
			m := map[string]int{}
			for i := range o.items {
				m[fmt.Sprint("k", i)] = i
			}
			KeyedMap(e, m, func(i int) { run(e, o.items[i], base) })
		case 6:
			m := map[int]int{}
			for i := range o.items {
				m[i] = i
			}
			Map(e, m, func(k, i int) {
				e.Int(int64(k))
				run(e, o.items[i], base)
			})
		}
	}
}

// hasNestedInstant reports whether prog writes an instant inside an item
// (anywhere, when nested is set).
func hasNestedInstant(prog []op, nested bool) bool {
	for _, o := range prog {
		if o.kind == 0 && nested {
			return true
		}
		for _, it := range o.items {
			if hasNestedInstant(it, true) {
				return true
			}
		}
	}
	return false
}

// TestReplayUnderAnotherClock: a recording of a random program, kept
// under one clock and replayed by ReplayKept under another, before or
// after other values and inside a multiset, writes exactly what writing
// the program again under that clock writes; it refuses exactly when the
// clocks differ and an instant sits inside an item of a collection.
func TestReplayUnderAnotherClock(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		prog := genProgram(0).Draw(t, "program")
		before := genProgram(0).Draw(t, "before")
		const base = 1000
		now := base + 10*rapid.Int64Range(-4, 4).Draw(t, "clock step")
		place := rapid.IntRange(0, 2).Draw(t, "place")
		rec := &Encoder{Now: base}
		run(rec, before, base)
		m := rec.Mark()
		run(rec, prog, base)
		rec.Finish()
		rs := rec.RecordSpan(Span{From: m, To: rec.Mark()})
		r := &rs

		// within writes prog's stand-in at the placement under test.
		within := func(e *Encoder, write func()) {
			switch place {
			case 0:
				write()
			case 1:
				run(e, before, base)
				write()
			case 2:
				e.Sorted(2, func(i int) {
					if i == 0 {
						write()
					} else {
						run(e, before, base)
					}
				})
			}
		}
		got := &Encoder{Now: now}
		ok := true
		within(got, func() { ok = got.ReplayKept(r) })
		wantOK := now == base || !hasNestedInstant(prog, false)
		if ok != wantOK {
			t.Fatalf("ReplayKept = %t, want %t", ok, wantOK)
		}
		if ok {
			want := &Encoder{Now: now}
			within(want, func() { run(want, prog, base) })
			if g, w := got.Finish(), want.Finish(); !bytes.Equal(g, w) {
				t.Fatalf("replayed under %d:\n%x\nwant\n%x", now, g, w)
			}
		}

		// The recording replayed under its own clock at the placement,
		// recorded again with what surrounds it, and that replayed under
		// the other clock: a replay inside an item makes its instants
		// nested.
		outer := &Encoder{Now: base}
		within(outer, func() { outer.ReplayKept(r) })
		outer.Finish()
		rs2 := outer.RecordSpan(Span{To: outer.Mark()})
		r2 := &rs2
		got2 := &Encoder{Now: now}
		ok2 := got2.ReplayKept(r2)
		nested := hasNestedInstant(prog, false) ||
			place == 1 && hasNestedInstant(before, false) ||
			place == 2 && (hasNestedInstant(prog, true) || hasNestedInstant(before, true))
		if wantOK2 := now == base || !nested; ok2 != wantOK2 {
			t.Fatalf("replay of a replay: ReplayKept = %t, want %t", ok2, wantOK2)
		}
		if !ok2 {
			return
		}
		want2 := &Encoder{Now: now}
		within(want2, func() { run(want2, prog, base) })
		if g, w := got2.Finish(), want2.Finish(); !bytes.Equal(g, w) {
			t.Fatalf("replay of a replay under %d:\n%x\nwant\n%x", now, g, w)
		}
	})
}
