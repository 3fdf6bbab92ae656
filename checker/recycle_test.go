package checker

import (
	"sync/atomic"
	"testing"

	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
)

// hidden is a model with its Recycle method hidden: the checker recycles
// nothing.
type hidden[S, A any] struct{ Model[S, A] }

// counted is a recycling model that counts the states it takes back.
type counted[S, A any] struct {
	Model[S, A]
	n *atomic.Int64
}

func (c counted[S, A]) Recycle(s S) {
	c.n.Add(1)
	c.Model.(Recycler[S]).Recycle(s)
}

// TestRecyclingChangesNothing explores worlds of both families (delivery
// on) with the worlds' own recycling of dropped successors and without
// it: the counts must be the same, and states must have been recycled.
func TestRecyclingChangesNothing(t *testing.T) {
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
	t.Run("nextgen", func(t *testing.T) { recyclingChangesNothing(t, nextGenModel(t, ng)) })
	t.Run("cooperative", func(t *testing.T) { recyclingChangesNothing(t, clModel) })
}

func recyclingChangesNothing[S, A any](t *testing.T, m Model[S, A]) {
	t.Helper()
	if _, ok := m.(Recycler[S]); !ok {
		t.Fatalf("%T does not recycle", m)
	}
	for _, workers := range []int{1, 2} {
		var n atomic.Int64
		got, err := Explore[S, A](counted[S, A]{m, &n}, Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Explore[S, A](hidden[S, A]{m}, Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if got.Distinct != want.Distinct || got.Transitions != want.Transitions || got.Depth != want.Depth || len(got.Violations) != len(want.Violations) || !got.Complete {
			t.Errorf("%d workers: recycling: %d states, %d transitions, depth %d, %d violations, complete %t; without: %d, %d, %d, %d",
				workers, got.Distinct, got.Transitions, got.Depth, len(got.Violations), got.Complete, want.Distinct, want.Transitions, want.Depth, len(want.Violations))
		}
		if n.Load() == 0 {
			t.Errorf("%d workers: no state recycled", workers)
		}
		t.Logf("%d workers: %d states, %d transitions, %d recycled", workers, got.Distinct, got.Transitions, n.Load())
	}
}
