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
// them.
//
// Two worlds, since each leaves part of the delivery state implied by the
// rest. Without a crash a record is processed at most once, so the
// processing counts follow from the positions and the commits: only the
// world with a crash, where the crashed member's partition passes to the
// other member, which processes again what was never committed, sees an
// encoding that drops the counts. In neither
// does a committed offset differ alone (a state's positions and counts
// give it away); the rule before KIP-1251 makes it differ alone, but that
// world breaks a law at depth 18, where the exploration stops.
func TestDeliveryIsEncoded(t *testing.T) {
	base := ngworld.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Leaves: 1, Drops: 1, Records: 1, RecordsOn: []string{"T-0"}}
	withCrash := base
	withCrash.Leaves, withCrash.Crashes = 0, 1
	for _, c := range []struct {
		name string
		o    ngworld.CheckOptions
	}{{"leave and drop", base}, {"crash and drop", withCrash}} {
		t.Run(c.name, func(t *testing.T) {
			m := nextGenModel(t, c.o)
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
		})
	}
}
