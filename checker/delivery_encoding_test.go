package checker

import (
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// ngState is a next-gen model checker state.
type ngState = *core.State[nextgen.Message, nextgen.Timer, nextgen.Callback, nextgen.MemberConfig]

// withDeliveryText is a next-gen model whose encoding also carries the
// state's delivery view as printed (committed offsets, processing counts,
// clean or not): a reference that cannot leave any of it out.
type withDeliveryText struct{ *ngworld.Model }

func (m withDeliveryText) Encode(e *canon.Encoder, s ngState) {
	m.Model.Encode(e, s)
	e.String(s.W.Delivery().String())
}

// TestDeliveryIsEncoded: with records on, the model's encoding tells
// apart every two states whose delivery views differ. Exploring a small
// world with records, storing whole encodings, finds as many states and
// transitions as with the reference encoding that appends the delivery
// view; an encoding that dropped the delivery state would merge states the
// reference keeps apart, and the checker would miss what follows from
// them. (In this world a committed offset never differs alone: a state's
// positions and counts give it away; the rule before KIP-1251 makes it
// differ alone, but that world breaks a law at depth 18, where the
// exploration stops.)
func TestDeliveryIsEncoded(t *testing.T) {
	o := ngworld.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Leaves: 1, Drops: 1, Records: 1, RecordsOn: []string{"T-0"}}
	m := nextGenModel(t, o)
	opts := Options{Workers: 2, Exact: true, NoLiveness: true}
	got, err := Explore(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Explore(withDeliveryText{m}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Complete || !want.Complete {
		t.Fatalf("incomplete: %s, %s", got.Stopped, want.Stopped)
	}
	if got.Distinct != want.Distinct || got.Transitions != want.Transitions {
		t.Errorf("the encoding merges states whose delivery differs: %d states, %d transitions; with the delivery view: %d and %d",
			got.Distinct, got.Transitions, want.Distinct, want.Transitions)
	}
	t.Logf("%d states, %d transitions", got.Distinct, got.Transitions)
}
