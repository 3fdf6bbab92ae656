package sim

import (
	"fmt"
	"testing"
)

type tm string

func (t tm) String() string { return string(t) }

func show(ts Timers[tm, int64]) string { return fmt.Sprint(ts) }

// pending is a timer of the tests' lists.
type pending = Pending[tm, int64]

// armed is the empty list with each of ps armed in turn (Set).
func armed(ps ...pending) Timers[tm, int64] {
	var ts Timers[tm, int64]
	for _, p := range ps {
		ts = ts.Set(p.Node, p.Timer, p.At, false)
	}
	return ts
}

func TestTimersKeepFiringOrder(t *testing.T) {
	ts := armed(pending{"b", "hb", 30}, pending{"a", "session", 30}, pending{"a", "hb", 30}, pending{"c", "hb", 10})
	if got, want := show(ts), "[c:hb@10 a:hb@30 a:session@30 b:hb@30]"; got != want {
		t.Fatalf("order: got %s, want %s", got, want)
	}
	before := show(ts)
	moved := ts.Set("c", "hb", 40, false)
	if got, want := show(moved), "[a:hb@30 a:session@30 b:hb@30 c:hb@40]"; got != want {
		t.Fatalf("re-arm: got %s, want %s", got, want)
	}
	if show(ts) != before {
		t.Fatalf("Set wrote to its receiver: %s, was %s", show(ts), before)
	}
	cancelled := moved.Set("a", "session", 0, true)
	if got, want := show(cancelled), "[a:hb@30 b:hb@30 c:hb@40]"; got != want {
		t.Fatalf("cancel: got %s, want %s", got, want)
	}
	dropped := cancelled.DropNode("a")
	if got, want := show(dropped), "[b:hb@30 c:hb@40]"; got != want {
		t.Fatalf("drop node: got %s, want %s", got, want)
	}
	first, rest := dropped.Take(0)
	if first.String() != "b:hb@30" || show(rest) != "[c:hb@40]" || show(dropped) != "[b:hb@30 c:hb@40]" {
		t.Fatalf("take: got %s and %s (receiver now %s)", first, show(rest), show(dropped))
	}
}

// TestPutIsSet: Put, in place, leaves the list Set returns, on a long
// pseudo-random sequence of arms, re-arms and cancels over a few nodes
// and timers with colliding deadlines.
func TestPutIsSet(t *testing.T) {
	var set, put Timers[tm, int64]
	x := uint64(7)
	for i := range 5000 {
		x = x*6364136223846793005 + 1442695040888963407
		node := []string{"a", "b", "coordinator"}[x>>60%3]
		timer := tm([]string{"hb", "session", "rebalance"}[x>>56%3])
		at := int64(x >> 50 % 8 * 10)
		cancel := x>>40%4 == 0
		set = set.Set(node, timer, at, cancel)
		put = put.Put(node, timer, at, cancel)
		if show(put) != show(set) {
			t.Fatalf("step %d: Put gives %s, Set %s", i, show(put), show(set))
		}
	}
}

// TestCoordinatorFiresAfterMembers: at one instant the coordinator's
// timers fire after every member's, whether a member's name sorts before
// "coordinator" (A) or after it (zed, worker-1), and members fire in the
// order of their names.
func TestCoordinatorFiresAfterMembers(t *testing.T) {
	ts := armed(pending{"coordinator", "session", 30}, pending{"zed", "hb", 30},
		pending{"worker-1", "hb", 30}, pending{"A", "hb", 30}, pending{"coordinator", "join", 20})
	if got, want := show(ts), "[coordinator:join@20 A:hb@30 worker-1:hb@30 zed:hb@30 coordinator:session@30]"; got != want {
		t.Fatalf("order: got %s, want %s", got, want)
	}
	put := Timers[tm, int64]{}
	for _, p := range []pending{{"coordinator", "session", 30}, {"zed", "hb", 30}, {"A", "hb", 30}} {
		put = put.Put(p.Node, p.Timer, p.At, false)
	}
	if got, want := show(put), "[A:hb@30 zed:hb@30 coordinator:session@30]"; got != want {
		t.Fatalf("Put's order: got %s, want %s", got, want)
	}
}
