package world_test

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/mixed"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/sim"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// TestStepMemoChangesNothing: the model checker's memo of coordinator
// steps is a cache and nothing more. Each world below is explored
// breadth first twice, with the memo off and with it on, every hit
// stepped afresh as well and compared with what the memo kept (a
// difference panics); the two explorations must take the same
// transitions between the same states and report the same violations,
// in the same order. The worlds cover every family, delivery with
// commits, and faults whose violations the coordinator's step causes;
// each must hit the memo, or it tests nothing.
func TestStepMemoChangesNothing(t *testing.T) {
	small := classicworld.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1}
	for _, p := range []string{"eager", "cooperative", "deferred", "incremental"} {
		t.Run(p, func(t *testing.T) {
			memoChangesNothing(t, func() *classicworld.Model { return classicModel(t, p, small) })
		})
	}
	t.Run("eager/restarts=1", func(t *testing.T) {
		// A restarted member's first request equals its first
		// incarnation's, still in flight, but for the address it comes
		// from.
		o := small
		o.Restarts, o.Drops, o.EnvAnywhere = 1, 0, true
		memoChangesNothing(t, func() *classicworld.Model { return classicModel(t, "eager", o) })
	})
	t.Run("cooperative/records=1", func(t *testing.T) {
		o := small
		o.Records, o.Partitions, o.Drops = 1, 1, 0
		memoChangesNothing(t, func() *classicworld.Model { return classicModel(t, "cooperative", o) })
	})
	for _, c := range []struct {
		name string
		edit func(*ngworld.CheckOptions)
	}{
		{"nextgen", func(*ngworld.CheckOptions) {}},
		{"nextgen/records=1", func(o *ngworld.CheckOptions) { o.Records, o.Partitions, o.Drops = 1, 1, 0 }},
		{"nextgen/records=1+overruns", func(o *ngworld.CheckOptions) { o.Records, o.Partitions, o.Drops, o.Overruns = 1, 1, 0, 1 }},
		{"nextgen/assign-before-release", func(o *ngworld.CheckOptions) { o.Faults = nextgen.AssignBeforeRelease }},
		{"nextgen/per-set-epoch-update", func(o *ngworld.CheckOptions) { o.Faults = nextgen.PerSetEpochUpdate }},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := ngworld.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1}
			c.edit(&o)
			memoChangesNothing(t, func() *ngworld.Model { return nextgenModel(t, o) })
		})
	}
	t.Run("mixed", func(t *testing.T) {
		o := core.DefaultCheckOptions[nextgen.Fault]()
		o.Members, o.Joins, o.Topics, o.Partitions, o.Crashes, o.Drops, o.Migrations = 2, 1, 1, 1, 0, 0, 1
		memoChangesNothing(t, func() *mixed.Model { return mixedModel(t, o) })
	})
}

// memoChangesNothing explores two models newModel makes, the first
// without the memo of coordinator steps and the second with it (every
// hit verified), and fails unless the two explorations agree step by
// step, or the second never hit the memo.
func memoChangesNothing[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, newModel func() *core.Model[M, T, C, P]) {
	t.Helper()
	off, on := newModel(), newModel()
	core.SetStepMemo(off, false, false)
	core.SetStepMemo(on, true, true)
	states, steps, viols, replayedOff, want := transcript(t, off)
	_, _, _, replayed, got := transcript(t, on)
	hits, misses := core.StepMemoCounts(on)
	t.Logf("%d states, %d transitions, %d violations; memo: %d hits, %d misses, %d coordinators' encodings replayed from it", states, steps, viols, hits, misses, replayed)
	if got != want {
		t.Errorf("the exploration with the memo of coordinator steps differs from the one without it")
	}
	if hits == 0 {
		t.Errorf("the memo was never hit: the world tests nothing")
	}
	// A step's coordinator is encoded once, by the first world that took
	// it and was kept: the others replay that encoding. Without the memo,
	// a world that steps its coordinator has none to replay.
	if replayedOff != 0 || replayed == 0 {
		t.Errorf("successors that stepped the coordinator and replay its encoding: %d without the memo (want 0), %d with it (want some)", replayedOff, replayed)
	}
}

// transcript explores m breadth first as the checker does, expanding
// every state once (violations or not) and keeping the recordings of the
// states it finds new (Model.Keep), and returns the number of states,
// transitions and violations, and a digest of every transition in order:
// the encodings of the state and its successor, and the violations the
// step reported; replayed counts the successors that stepped the
// coordinator and yet have its encoding recorded (from the memo). It
// fails t when a successor's world holds a memo step that did not make
// its coordinator.
func transcript[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, m *core.Model[M, T, C, P]) (states, steps, viols, replayed int, digest [32]byte) {
	t.Helper()
	h := sha256.New()
	seen := map[string]bool{}
	var e canon.Encoder
	frontier := m.Init()
	for _, s := range frontier {
		seen[string(encode(m, s))] = true
	}
	for len(frontier) > 0 {
		var next []*core.State[M, T, C, P]
		for _, s := range frontier {
			from := encode(m, s)
			for _, a := range m.Actions(s, nil) {
				u, vs := m.Step(s, a)
				if !core.MemoStepAgrees(u.W) {
					t.Fatalf("after %s the world holds a memo step that did not make its coordinator", m.Line(s, a))
				}
				if coordinator, _ := core.Recorded(u); coordinator && u.W.Coordinator != s.W.Coordinator {
					replayed++
				}
				e.Reset()
				m.Encode(&e, u)
				to := e.Finish()
				steps++
				viols += len(vs)
				fmt.Fprintf(h, "%x>%x %v\n", from, to, vs)
				if k := string(to); !seen[k] {
					seen[k] = true
					m.Keep(&e, u)
					next = append(next, u)
				}
			}
		}
		frontier = slices.Clip(next)
	}
	copy(digest[:], h.Sum(nil))
	return len(seen), steps, viols, replayed, digest
}

// TestStepMemoKeepsItsCoordinator: a coordinator the memo keeps is
// shared by every world that takes the step, so the world that stepped it
// gives it up: when that world steps its coordinator again (two deliveries
// to the coordinator in one fork), it copies it first, and what the memo
// keeps stays as it was.
func TestStepMemoKeepsItsCoordinator(t *testing.T) {
	m := nextgenModel(t, ngworld.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1})
	core.CountStepMemo(m)
	toCoordinator := func(w *ngworld.World) []int {
		var is []int
		for i, env := range w.InFlight {
			if env.To == node.CoordinatorNode {
				is = append(is, i)
			}
		}
		return is
	}
	// Walk the first enabled actions until a state has two requests in
	// flight to the coordinator.
	s := m.Init()[0]
	for len(toCoordinator(s.W)) < 2 {
		acts := m.Actions(s, nil)
		if len(acts) == 0 {
			t.Fatal("no state on the path has two requests in flight to the coordinator")
		}
		s, _ = m.Step(s, acts[len(acts)-1])
	}
	w := s.W.Fork()
	if err := w.Deliver(toCoordinator(w)[0]); err != nil {
		t.Fatal(err)
	}
	if hits, misses := core.StepMemoCounts(m); hits+misses == 0 {
		t.Fatal("the delivery did not go through the memo")
	}
	kept := w.Coordinator
	before := kept.String()
	if err := w.Deliver(toCoordinator(w)[0]); err != nil {
		t.Fatal(err)
	}
	if w.Coordinator == kept {
		t.Errorf("the second step changed the memo's coordinator in place")
	}
	if !core.MemoStepAgrees(w) {
		t.Errorf("the world holds a memo step that did not make its coordinator")
	}
	if after := kept.String(); after != before {
		t.Errorf("the memo's coordinator changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestStepMemoWhereTheFamilyAsks: NewModel gives a model the memo of
// coordinator steps exactly when its family asks for it
// (Family.RemembersCoordinatorSteps): next-gen does, classic and mixed
// do not. Each model delivers the requests in flight along one path.
func TestStepMemoWhereTheFamilyAsks(t *testing.T) {
	mixedOptions := core.DefaultCheckOptions[nextgen.Fault]()
	mixedOptions.Drops, mixedOptions.Migrations = 0, 1
	for _, c := range []struct {
		name string
		want bool
		used func() (hits, misses int64)
	}{
		{"cooperative", false, func() (int64, int64) {
			return memoUsed(t, classicModel(t, "cooperative", classicworld.DefaultCheckOptions()))
		}},
		{"nextgen", true, func() (int64, int64) { return memoUsed(t, nextgenModel(t, ngworld.DefaultCheckOptions())) }},
		{"mixed", false, func() (int64, int64) { return memoUsed(t, mixedModel(t, mixedOptions)) }},
	} {
		hits, misses := c.used()
		if got := hits+misses > 0; got != c.want {
			t.Errorf("%s: the memo was looked up %d times; want it used: %v", c.name, hits+misses, c.want)
		}
	}
}

// memoUsed takes the first enabled action of m, 40 times from its initial
// state, and returns the lookups of its memo of coordinator steps.
func memoUsed[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, m *core.Model[M, T, C, P]) (hits, misses int64) {
	t.Helper()
	core.CountStepMemo(m)
	s := m.Init()[0]
	for range 40 {
		acts := m.Actions(s, nil)
		if len(acts) == 0 {
			break
		}
		s, _ = m.Step(s, acts[0])
	}
	return core.StepMemoCounts(m)
}
