package cost

import (
	"cmp"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/node"
	"pgregory.net/rapid"
)

// TestQueueOrder: whatever the interleaving of pushes and pops, the queue
// hands events out by time, and events of one time in the order they were
// pushed, each exactly once and intact (checked against a sorted list).
func TestQueueOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q queue[string, int]
		var pending []event[string, int] // the oracle: what was pushed, not yet popped
		pushed := 0
		for range rapid.IntRange(0, 200).Draw(t, "ops") {
			if len(pending) == 0 || rapid.Bool().Draw(t, "push") {
				pushed++
				ev := event[string, int]{at: node.Millis(rapid.IntRange(0, 20).Draw(t, "at")), timer: pushed}
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
