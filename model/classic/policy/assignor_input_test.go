package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// scribbler is an assignor of a caller's that writes over the universe
// and every member's subscription and owned set it is given, then gives
// every member nothing.
type scribbler struct{}

func (scribbler) Name() string { return "scribbler" }

func (scribbler) Assign(g assign.Group) (spec.Assignment, error) {
	out := spec.Assignment{}
	for t := range g.Topics {
		g.Topics[t] = 0
	}
	for _, m := range g.Members {
		out[m.ID] = nil
		for k := range m.Topics {
			m.Topics[k] = "scribbled"
		}
		for k := range m.Owned {
			m.Owned[k] = spec.Resource{Topic: "scribbled"}
		}
	}
	return out, nil
}

// TestAssignorCannotWriteInput: the policies that run an assignor of the
// caller's hand it the round's group, which shares the leader's decoded
// subscriptions, claims and metadata; one that writes to its input must
// reach none of them (assign.AssignValid gives it a copy).
func TestAssignorCannotWriteInput(t *testing.T) {
	for _, p := range []classic.Protocol{Eager(scribbler{}), CooperativeWith(scribbler{})} {
		g := newGroup(t, p, spec.Topics{"a": 4, "b": 2}).
			join("m1", []string{"a", "b"}, "{a-0 a-1 b-0}").
			join("m2", []string{"a", "b"}, "{a-2 a-3 b-1}")
		g.leader = "m1"
		in := g.input()
		before := g.input()
		if _, err := p.Assign(in); err != nil {
			t.Fatalf("%s: %v", p.Name(), err)
		}
		if d := cmp.Diff(before, in); d != "" {
			t.Errorf("%s (cooperative %v): the assignor wrote through the policy into the leader's input:\n%s", p.Name(), p.Cooperative(), d)
		}
	}
}
