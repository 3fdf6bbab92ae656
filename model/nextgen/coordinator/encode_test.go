package coordinator

import (
	"reflect"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/nextgen/reconcile"
	"github.com/rebalance-ref/rebalance/model/node/nodetest"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestEncoderCoversEveryField fails when a field is added to a type that
// Coordinator.EncodeCanon writes by hand: update the encoder, and the
// count here with it.
func TestEncoderCoversEveryField(t *testing.T) {
	const encoder = "Coordinator.EncodeCanon"
	nodetest.CheckEncoders(t,
		nodetest.Encoded{Type: reflect.TypeFor[Coordinator](), Encoder: encoder, Handled: 15, LeftOut: []string{"cfg", "assignors", "forked"}},
		nodetest.Encoded{Type: reflect.TypeFor[member](), Encoder: encoder, Handled: 14},
		nodetest.Encoded{Type: reflect.TypeFor[reconcile.Member](), Encoder: encoder, Handled: 5},
		nodetest.Encoded{Type: reflect.TypeFor[holder](), Encoder: encoder, Handled: 2},
	)
}

// TestEncodingSeesMembersAndOwners: coordinators that differ in a member
// record or in the owner map encode differently, and the encoding does not
// depend on map order.
func TestEncodingSeesMembersAndOwners(t *testing.T) {
	c, err := NewCoordinator(CoordinatorConfig{GroupID: "g", Topics: spec.Topics{"T": 2}})
	if err != nil {
		t.Fatal(err)
	}
	c.members = map[spec.MemberID]member{
		"A-1": {id: "A-1", subscription: []string{"T"}, sessionArmed: true, sessionAt: 5000},
		"B-1": {id: "B-1", subscription: []string{"T"}, sessionArmed: true, sessionAt: 6000},
	}
	c.owners.set(spec.TP("T", 0), slotOf([]holder{{member: "A-1", epoch: 1}}))
	c.owners.set(spec.TP("T", 1), slotOf([]holder{{member: "B-1", epoch: 1}}))
	enc := func(c *Coordinator) string {
		e := &canon.Encoder{Now: 1000}
		c.EncodeCanon(e)
		return string(e.Finish())
	}
	want := enc(c)
	for range 10 {
		if enc(c.Clone()) != want {
			t.Fatalf("encoding depends on map order")
		}
	}
	d := c.Clone()
	d.owners.set(spec.TP("T", 1), slotOf([]holder{{member: "A-1", epoch: 1}}))
	if enc(d) == want {
		t.Errorf("a changed owner leaves the encoding the same")
	}
	d = c.Clone()
	m := d.members["B-1"]
	m.sessionAt = 7000
	d.members["B-1"] = m
	if enc(d) == want {
		t.Errorf("a changed session deadline leaves the encoding the same")
	}
}
