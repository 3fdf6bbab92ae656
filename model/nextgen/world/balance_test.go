package world

import (
	"testing"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/node/nodetest"
	"github.com/rebalance-ref/rebalance/spec"
)

// unstated is an assignor that states no balance law.
type unstated struct{ assign.Assignor }

// TestBalanceOf: the law a converged next-gen group is judged by is the
// one its coordinator's assignor states: uniform's is the members' totals
// (it flags a view balanced per topic whose totals differ by two, and
// passes one whose totals are even though a topic is not spread), and an
// assignor that states none is judged on Coverage alone.
func TestBalanceOf(t *testing.T) {
	view := func(topics spec.Topics, owns ...string) spec.View { return nodetest.View(t, topics, owns...) }
	uniform := BalanceOf(assign.Uniform())
	if uniform == nil {
		t.Fatal("uniform states no balance law")
	}
	if len(uniform(view(spec.Topics{"a": 1, "b": 1}, "{a-0 b-0}", "{}"))) == 0 {
		t.Error("uniform's law passes totals of 2 and 0")
	}
	if vs := uniform(view(spec.Topics{"a": 2, "b": 2}, "{a-0 a-1}", "{b-0 b-1}")); len(vs) != 0 {
		t.Errorf("uniform's law judges per topic: %v", vs)
	}
	if BalanceOf(unstated{assign.Uniform()}) != nil {
		t.Error("an assignor that states no balance law is judged by one")
	}
}
