package cost

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/node"
	"pgregory.net/rapid"
)

// TestQueueOrder: whatever the interleaving of pushes and pops, the queue
// hands events out by time, and events of one time in the order they were
// pushed, each exactly once and intact (checked against a sorted list).
// Some events are deliveries, most of them due no earlier than the last
// one (the FIFO's case), some earlier (the heap's).
func TestQueueOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q queue[string, int]
		var pending []event[string, int] // the oracle: what was pushed, not yet popped
		pushed := 0
		last := node.Millis(0) // the latest delivery time pushed
		for range rapid.IntRange(0, 200).Draw(t, "ops") {
			if len(pending) == 0 || rapid.Bool().Draw(t, "push") {
				pushed++
				ev := event[string, int]{at: node.Millis(rapid.IntRange(0, 20).Draw(t, "at")), timer: pushed, kind: evTimer}
				switch rapid.IntRange(0, 3).Draw(t, "kind") {
				case 0, 1:
					ev.kind = evDeliver
					ev.at = last + node.Millis(rapid.IntRange(0, 3).Draw(t, "later"))
				case 2:
					ev.kind = evDeliver
				}
				if ev.kind == evDeliver {
					last = max(last, ev.at)
				}
				q.push(ev)
				ev.seq = uint64(pushed)
				pending = append(pending, ev)
				continue
			}
			slices.SortStableFunc(pending, func(a, b event[string, int]) int {
				return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq))
			})
			want := pending[0]
			pending = pending[1:]
			if q.peek() != want.at {
				t.Fatalf("peek = %d, want %d", q.peek(), want.at)
			}
			if got := q.pop(); got.at != want.at || got.timer != want.timer || got.seq != want.seq {
				t.Fatalf("pop = (at %d, #%d), want (at %d, #%d)", got.at, got.timer, want.at, want.timer)
			}
			if q.len() != len(pending) {
				t.Fatalf("len = %d, want %d", q.len(), len(pending))
			}
		}
	})
}

// TestQueueOrderLarge: the same on a queue thousands of events deep, as a
// thousand-member group keeps (every level of the four-ary heap, and
// nodes whose children end mid-group, take part): pushes and pops
// interleaved at random from one seed, checked against a sorted list.
func TestQueueOrderLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var q queue[string, int]
	var pending []event[string, int]
	pushed := 0
	last := node.Millis(0) // the latest delivery time pushed
	for op := 0; op < 20000; op++ {
		if len(pending) == 0 || rng.IntN(5) < 3 {
			pushed++
			ev := event[string, int]{at: node.Millis(rng.IntN(1000)), timer: pushed, kind: evTimer}
			if rng.IntN(3) > 0 {
				// A delivery, due at most a little before the
				// last one (the FIFO takes those not before it).
				ev.kind, ev.at = evDeliver, last+node.Millis(rng.IntN(8))-1
				last = max(last, ev.at)
			}
			q.push(ev)
			ev.seq = uint64(pushed)
			pending = append(pending, ev)
			continue
		}
		i := 0
		for j := range pending {
			if a, b := pending[j], pending[i]; a.at < b.at || (a.at == b.at && a.seq < b.seq) {
				i = j
			}
		}
		want := pending[i]
		pending = slices.Delete(pending, i, i+1)
		if got := q.pop(); got.at != want.at || got.timer != want.timer {
			t.Fatalf("pop %d = (at %d, #%d), want (at %d, #%d)", op, got.at, got.timer, want.at, want.timer)
		}
	}
	if q.len() != len(pending) {
		t.Fatalf("len = %d, want %d", q.len(), len(pending))
	}
}

// pop removes and returns the next event, and frees its slot: the tests
// take whole events; the engine runs each where it lies (popSlot).
func (q *queue[M, T]) pop() event[M, T] {
	slot := q.popSlot()
	ev := q.pool[slot]
	q.release(slot)
	return ev
}
