package checker

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// hidden is a model with its Recycle method hidden: the checker recycles
// nothing.
type hidden[S, A any] struct{ Model[S, A] }

// counted is a recycling model that counts the states it takes back:
// recycled in n, discarded in d. With d nil it hides the model's
// Discard, so that the checker recycles its dropped successors too.
type counted[S, A any] struct {
	Model[S, A]
	n, d *atomic.Int64
}

func (c counted[S, A]) Recycle(s S) {
	c.n.Add(1)
	c.Model.(Recycler[S]).Recycle(s)
}

// discarding is counted with the model's Discard, counted in d.
type discarding[S, A any] struct{ counted[S, A] }

func (c discarding[S, A]) Discard(s S) {
	c.d.Add(1)
	c.Model.(Discarder[S]).Discard(s)
}

// TestRecyclingChangesNothing explores worlds of both families (delivery
// on) with the worlds' own recycling of dropped successors and without
// it: the counts must be the same, and states must have been recycled.
func TestRecyclingChangesNothing(t *testing.T) {
	ng, clModel := smallDeliveryWorlds(t)
	t.Run("nextgen", func(t *testing.T) { recyclingChangesNothing(t, nextGenModel(t, ng)) })
	t.Run("cooperative", func(t *testing.T) { recyclingChangesNothing(t, clModel) })
}

// smallDeliveryWorlds are the two families' small worlds with delivery on
// (two members, one topic, a record on T-0): the next-gen world's options
// and the cooperative world's model.
func smallDeliveryWorlds(t *testing.T) (ngworld.CheckOptions, *classicworld.Model) {
	t.Helper()
	ng := ngworld.DefaultCheckOptions()
	ng.Members, ng.Topics, ng.Records, ng.RecordsOn = 2, 1, 1, []string{"T-0"}
	cl := classicworld.DefaultCheckOptions()
	cl.Members, cl.Topics, cl.Records, cl.RecordsOn = 2, 1, 1, []string{"T-0"}
	clCfg, err := classicworld.CheckWorld("cooperative", cl)
	if err != nil {
		t.Fatal(err)
	}
	clModel, err := classicworld.NewModel(clCfg)
	if err != nil {
		t.Fatal(err)
	}
	return ng, clModel
}

// keeping is a model that recycles and keeps new states' encodings, and
// counts the states it keeps.
type keeping[S, A any] struct {
	Model[S, A]
	n *atomic.Int64
}

func (k keeping[S, A]) Recycle(s S) { k.Model.(Recycler[S]).Recycle(s) }

func (k keeping[S, A]) Keep(e *canon.Encoder, s S) {
	k.n.Add(1)
	k.Model.(Keeper[S]).Keep(e, s)
}

// TestKeepingChangesNothing explores worlds of both families, with and
// without symmetry reduction (which encodes each state several times),
// with the worlds recording the encodings of new states (Keeper) and
// without: the counts must be the same, and every new state kept.
func TestKeepingChangesNothing(t *testing.T) {
	ng, clModel := smallDeliveryWorlds(t)
	t.Run("nextgen", func(t *testing.T) { keepingChangesNothing(t, nextGenModel(t, ng)) })
	t.Run("cooperative", func(t *testing.T) { keepingChangesNothing(t, clModel) })
}

func keepingChangesNothing[S, A any](t *testing.T, m Model[S, A]) {
	t.Helper()
	for _, o := range []Options{{Workers: 1}, {Workers: 2}, {Workers: 1, Symmetry: true, NoLiveness: true}} {
		var n atomic.Int64
		got, err := Explore[S, A](keeping[S, A]{m, &n}, o)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Explore[S, A](hidden[S, A]{m}, o)
		if err != nil {
			t.Fatal(err)
		}
		if got.Distinct != want.Distinct || got.Transitions != want.Transitions || got.Depth != want.Depth || len(got.Violations) != len(want.Violations) || !got.Complete {
			t.Errorf("%+v: keeping: %d states, %d transitions, depth %d, %d violations, complete %t; without: %d, %d, %d, %d",
				o, got.Distinct, got.Transitions, got.Depth, len(got.Violations), got.Complete, want.Distinct, want.Transitions, want.Depth, len(want.Violations))
		}
		if n.Load() != got.Distinct {
			t.Errorf("%+v: %d states kept of %d", o, n.Load(), got.Distinct)
		}
	}
}

func recyclingChangesNothing[S, A any](t *testing.T, m Model[S, A]) {
	t.Helper()
	if _, ok := m.(Recycler[S]); !ok {
		t.Fatalf("%T does not recycle", m)
	}
	if _, ok := m.(Discarder[S]); !ok {
		t.Fatalf("%T does not discard", m)
	}
	inits := int64(len(m.Init()))
	for _, workers := range []int{1, 2} {
		want, err := Explore[S, A](hidden[S, A]{m}, Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		for _, discard := range []bool{false, true} {
			var n, d atomic.Int64
			var model Model[S, A] = counted[S, A]{m, &n, &d}
			if discard {
				model = discarding[S, A]{counted[S, A]{m, &n, &d}}
			}
			got, err := Explore[S, A](model, Options{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if got.Distinct != want.Distinct || got.Transitions != want.Transitions || got.Depth != want.Depth || len(got.Violations) != len(want.Violations) || !got.Complete {
				t.Errorf("%d workers, discarding %t: %d states, %d transitions, depth %d, %d violations, complete %t; without recycling: %d, %d, %d, %d",
					workers, discard, got.Distinct, got.Transitions, got.Depth, len(got.Violations), got.Complete, want.Distinct, want.Transitions, want.Depth, len(want.Violations))
			}
			// Every state but the initial ones is expanded and then
			// recycled; every successor not new is dropped, and
			// discarded when the model discards, else recycled.
			expanded, dropped := got.Distinct-inits, got.Transitions-(got.Distinct-inits)
			wantN, wantD := expanded+dropped, int64(0)
			if discard {
				wantN, wantD = expanded, dropped
			}
			if n.Load() != wantN || d.Load() != wantD {
				t.Errorf("%d workers, discarding %t: %d recycled and %d discarded, want %d and %d", workers, discard, n.Load(), d.Load(), wantN, wantD)
			}
			t.Logf("%d workers, discarding %t: %d states, %d transitions, %d recycled, %d discarded", workers, discard, got.Distinct, got.Transitions, n.Load(), d.Load())
		}
	}
}

// poisoning is counters recycling its states: Recycle writes -1 into a
// state's counters, so that any later use of it shows. It records the
// first misuse: a recycled state stepped, encoded, asked for its actions,
// or recycled again, or an initial state recycled.
type poisoning struct {
	counters
	recycled *atomic.Int64
	misuse   *atomic.Pointer[string]
}

func (p poisoning) check(s cstate, what string) {
	if slices.Contains(s.c, -1) {
		msg := what + " of a recycled state"
		p.misuse.CompareAndSwap(nil, &msg)
	}
}

func (p poisoning) Actions(s cstate, dst []caction) []caction {
	p.check(s, "Actions")
	return p.counters.Actions(s, dst)
}

func (p poisoning) Step(s cstate, a caction) (cstate, []spec.Violation) {
	p.check(s, "Step")
	return p.counters.Step(s, a)
}

func (p poisoning) Encode(e *canon.Encoder, s cstate) {
	p.check(s, "Encode")
	p.counters.Encode(e, s)
}

func (p poisoning) Recycle(s cstate) {
	p.check(s, "Recycle")
	if s.resets == 0 && !slices.ContainsFunc(s.c, func(v int) bool { return v != 0 }) {
		msg := "the initial state recycled"
		p.misuse.CompareAndSwap(nil, &msg)
	}
	p.recycled.Add(1)
	for i := range s.c {
		s.c[i] = -1
	}
}

// TestRecyclingContract explores counters with states that Recycle (and
// Discard, when the model discards) poisons: the checker must never use a
// state it recycled or discarded, never recycle an initial state, and, in
// a complete exploration, recycle every state it expands but the initial
// one and recycle or discard every successor it drops (one state for each
// transition); the counts, and a counterexample's path, must be those of
// the same exploration without recycling.
func TestRecyclingContract(t *testing.T) {
	for _, c := range []struct {
		name string
		m    counters
	}{
		{"complete", counters{n: 3, max: 3, resets: 1, converged: func(c []int) bool { return true }}},
		{"violation", counters{n: 2, max: 5, bad: []int{2, 3}}},
	} {
		for _, o := range []Options{{Workers: 1}, {Workers: 3}, {Workers: 2, NoLiveness: true}} {
			for _, discard := range []bool{false, true} {
				var recycled, discarded atomic.Int64
				var misuse atomic.Pointer[string]
				var m Model[cstate, caction] = poisoning{c.m, &recycled, &misuse}
				if discard {
					m = discardPoisoning{poisoning{c.m, &recycled, &misuse}, &discarded}
				}
				got, err := Explore(m, o)
				if err != nil {
					t.Fatal(err)
				}
				want := explore(t, c.m, o)
				if m := misuse.Load(); m != nil {
					t.Errorf("%s %+v: %s", c.name, o, *m)
				}
				if got.Distinct != want.Distinct || got.Transitions != want.Transitions || got.Depth != want.Depth || got.Complete != want.Complete {
					t.Errorf("%s %+v: recycling: %d states, %d transitions, depth %d, complete %t; without: %d, %d, %d, %t",
						c.name, o, got.Distinct, got.Transitions, got.Depth, got.Complete, want.Distinct, want.Transitions, want.Depth, want.Complete)
				}
				// With several workers, which of a state's parents is recorded
				// first, and so the path, may differ from run to run.
				if g, w := violationsOf(got, o.Workers > 1), violationsOf(want, o.Workers > 1); g != w {
					t.Errorf("%s %+v: recycling found %s, without %s", c.name, o, g, w)
				}
				// Each transition's successor is recycled: when new, once
				// expanded; else at once, or discarded when the model
				// discards.
				if got.Complete && recycled.Load()+discarded.Load() != got.Transitions {
					t.Errorf("%s %+v discarding %t: %d states recycled and %d discarded in a complete exploration of %d transitions", c.name, o, discard, recycled.Load(), discarded.Load(), got.Transitions)
				}
				if got.Complete && discard && recycled.Load() != got.Distinct-1 {
					t.Errorf("%s %+v: %d states recycled, %d expanded", c.name, o, recycled.Load(), got.Distinct-1)
				}
				if recycled.Load() == 0 || discard != (discarded.Load() > 0) {
					t.Errorf("%s %+v discarding %t: %d recycled, %d discarded", c.name, o, discard, recycled.Load(), discarded.Load())
				}
			}
		}
	}
}

// discardPoisoning is poisoning with a Discard that poisons too, and
// counts: the checker may discard only a successor it drops, which it
// never uses again.
type discardPoisoning struct {
	poisoning
	discarded *atomic.Int64
}

func (p discardPoisoning) Discard(s cstate) {
	p.check(s, "Discard")
	p.discarded.Add(1)
	for i := range s.c {
		s.c[i] = -1
	}
}

// violationsOf prints r's violations; with lengthsOnly, their laws and the
// lengths of their paths, not the steps.
func violationsOf(r Result, lengthsOnly bool) string {
	if !lengthsOnly {
		return fmt.Sprint(r.Violations)
	}
	var b []string
	for _, v := range r.Violations {
		b = append(b, fmt.Sprintf("%s in %d steps, loop %d", v.Law, len(v.Steps), v.Loop))
	}
	return fmt.Sprint(b)
}
