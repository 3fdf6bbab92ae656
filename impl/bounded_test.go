package impl

import (
	"errors"
	"testing"
	"time"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

type blocking struct{ release chan struct{} }

func (blocking) Name() string { return "blocking" }
func (b blocking) Assign(assign.Group) (spec.Assignment, error) {
	<-b.release
	return nil, nil
}

// TestBoundedAssignor: a call that does not return in time is an
// ErrAssignorTimeout, which the next-gen coordinator answers with
// UNKNOWN_SERVER_ERROR and no change; a call that returns in time is the
// wrapped assignor's result, and stickiness is kept.
func TestBoundedAssignor(t *testing.T) {
	stuck := blocking{release: make(chan struct{})}
	defer close(stuck.release)
	b, err := BoundedAssignor(stuck, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	g := assign.Group{Topics: spec.Topics{"t": 2}, Members: []assign.Member{{ID: "A", Topics: []string{"t"}}}}
	if _, err := b.Assign(g); !errors.Is(err, ErrAssignorTimeout) {
		t.Fatalf("Assign = %v, want ErrAssignorTimeout", err)
	}

	c, err := nextgen.NewCoordinator(nextgen.CoordinatorConfig{GroupID: "g", Topics: spec.Topics{"t": 2}, ServerAssignors: []assign.Assignor{b}})
	if err != nil {
		t.Fatal(err)
	}
	before := c.String()
	out := c.Step(node.Input{Now: 0, Event: nextgen.Receive{From: "A", Msg: nextgen.HeartbeatRequest{
		GroupID: "g", MemberID: "A", RebalanceTimeoutMs: 1000, SubscribedTopicNames: []string{"t"}, SubscriptionSent: true, OwnedSent: true,
	}}})
	if resp := out.Messages[0].Msg.(nextgen.HeartbeatResponse); resp.Error != spec.UnknownServerError {
		t.Fatalf("response %s, want UNKNOWN_SERVER_ERROR", resp)
	}
	if c.String() != before {
		t.Fatalf("the timed-out heartbeat changed the coordinator:\n%s", c.String())
	}

	fast, err := BoundedAssignor(assign.Uniform(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fast.Assign(g)
	want, _ := assign.Uniform().Assign(g)
	if err != nil || !got.Equal(want) {
		t.Fatalf("Assign = %s, %v; want %s", got, err, want)
	}
	if s, ok := fast.(assign.StickyAssignor); !ok || !s.KeepsClaims() || fast.Name() != "uniform" {
		t.Fatalf("the wrapper lost the name or the stickiness: %T %q", fast, fast.Name())
	}
	if _, err := BoundedAssignor(assign.Range(), 0); err == nil {
		t.Fatal("a zero limit was accepted")
	}
}
