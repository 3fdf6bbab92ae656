package nextgen

import (
	"reflect"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen/reconcile"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
	"github.com/rebalance-ref/rebalance/model/node/nodetest"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestEncoderCoversEveryField fails when a field is added to a type that
// Coordinator.EncodeCanon writes by hand: update the encoder, and the
// count here with it.
func TestEncoderCoversEveryField(t *testing.T) {
	const encoder = "Coordinator.EncodeCanon"
	nodetest.CheckEncoders(t,
		nodetest.Encoded{Type: reflect.TypeFor[Coordinator](), Encoder: encoder, Handled: 17, LeftOut: []string{"cfg", "assignors", "instances", "shared", "downgrade"}},
		nodetest.Encoded{Type: reflect.TypeFor[member](), Encoder: encoder, Handled: 16},
		nodetest.Encoded{Type: reflect.TypeFor[classicMember](), Encoder: encoder, Handled: 9},
		nodetest.Encoded{Type: reflect.TypeFor[reconcile.Member](), Encoder: encoder, Handled: 5},
		nodetest.Encoded{Type: reflect.TypeFor[holder](), Encoder: encoder, Handled: 2},
	)
}

// TestEncodingSeesMembersAndOwners: coordinators that differ in a member
// record encode differently, and in the owner map only under the
// PerSetEpochUpdate fault (without it the map is derived, as are the
// instance ids and the subscription metadata until it expires); the
// encoding does not depend on map order.
func TestEncodingSeesMembersAndOwners(t *testing.T) {
	c, err := NewCoordinator(CoordinatorConfig{GroupID: "g", Topics: spec.Topics{"T": 2}})
	if err != nil {
		t.Fatal(err)
	}
	c.members = memberTable{
		{Key: "A-1", Rec: &member{id: "A-1", subscription: []string{"T"}, sessionArmed: true, sessionAt: 5000}},
		{Key: "B-1", Rec: &member{id: "B-1", subscription: []string{"T"}, sessionArmed: true, sessionAt: 6000}},
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
	// The owner map, the instance ids and the current subscription
	// metadata are functions of the members' records (CheckInvariants):
	// a coordinator that differs in them alone has broken an invariant,
	// and encodes the same.
	for name, edit := range map[string]func(d *Coordinator){
		"owner":                 func(d *Coordinator) { d.owners.set(spec.TP("T", 1), slotOf([]holder{{member: "A-1"}})) },
		"instance id":           func(d *Coordinator) { d.instances = map[string]spec.MemberID{"i": "A-1"} },
		"subscription metadata": func(d *Coordinator) { d.subscribed = spec.Topics{"U": 1} },
	} {
		d := c.Clone()
		edit(d)
		if enc(d) != want {
			t.Errorf("a changed %s alone changes the encoding", name)
		}
	}
	// Under PerSetEpochUpdate the owner map is the fault's own state, and
	// expired subscription metadata is the last refresh's: both written.
	perSet := *c.cfg
	perSet.Faults = PerSetEpochUpdate
	for name, edit := range map[string]func(d *Coordinator){
		"owner, under PerSetEpochUpdate": func(d *Coordinator) {
			d.cfg = &perSet
			d.owners.set(spec.TP("T", 1), slotOf([]holder{{member: "A-1", epoch: 1}}))
		},
		"owner's stored epoch, under PerSetEpochUpdate": func(d *Coordinator) {
			d.cfg = &perSet
			d.owners.set(spec.TP("T", 0), slotOf([]holder{{member: "A-1", epoch: 2}}))
		},
		"expired subscription metadata": func(d *Coordinator) { d.metadataExpired = true; d.subscribed = spec.Topics{"U": 1} },
	} {
		d, x := c.Clone(), c.Clone()
		edit(d)
		x.cfg, x.metadataExpired = d.cfg, d.metadataExpired
		if enc(d) == enc(x) {
			t.Errorf("a changed %s leaves the encoding the same", name)
		}
	}
	d := c.Clone()
	m := *d.members.Get("B-1")
	m.sessionAt = 7000
	d.setRecord(m)
	if enc(d) == want {
		t.Errorf("a changed session deadline leaves the encoding the same")
	}

	// The assignment epochs are written only in a world with commits.
	d = c.Clone()
	m = *d.members.Get("A-1")
	m.assignedAt = []validate.AssignmentEpoch{{Partition: spec.TP("T", 0), Epoch: 1}}
	d.setRecord(m)
	if enc(d) != want {
		t.Errorf("the assignment epochs change the encoding of a world without commits")
	}
	withCommits := func(c *Coordinator) string {
		e := &canon.Encoder{Now: 1000, Commits: true}
		c.EncodeCanon(e)
		return string(e.Finish())
	}
	if withCommits(d) == withCommits(c) {
		t.Errorf("changed assignment epochs leave the encoding of a world with commits the same")
	}
}

// TestAssignmentEpochs: a partition keeps the epoch it was assigned at
// while the member holds it, assigned or pending revocation; a new one
// takes the member's new epoch; one given up is forgotten.
func TestAssignmentEpochs(t *testing.T) {
	t0, t1, t2 := spec.TP("T", 0), spec.TP("T", 1), spec.TP("T", 2)
	prev := []validate.AssignmentEpoch{{Partition: t0, Epoch: 1}, {Partition: t1, Epoch: 2}}
	for _, c := range []struct {
		name string
		next reconcile.Member
		want string
	}{
		{"unchanged at a new epoch", reconcile.Member{Epoch: 4, Assigned: spec.NewSet(t0, t1)}, "T-0@1 T-1@2"},
		{"one pending revocation", reconcile.Member{Epoch: 2, Assigned: spec.NewSet(t0), PendingRevocation: spec.NewSet(t1)}, "T-0@1 T-1@2"},
		{"one given up, one new", reconcile.Member{Epoch: 5, Assigned: spec.NewSet(t1, t2)}, "T-1@2 T-2@5"},
		{"a new one first", reconcile.Member{Epoch: 6, Assigned: spec.NewSet(t0, t1), PendingRevocation: spec.NewSet(spec.TP("S", 0))}, "S-0@6 T-0@1 T-1@2"},
		{"nothing", reconcile.Member{Epoch: 3}, ""},
	} {
		// was holds t0 and t1 in sets of its own: next's are other slices.
		was := reconcile.Member{Epoch: 2, Assigned: spec.NewSet(t0, t1)}
		if got := assignedAtString(assignmentEpochs(prev, was, c.next)); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	was := reconcile.Member{Epoch: 2, Assigned: spec.NewSet(t0, t1)}
	if got := assignmentEpochs(prev, was, reconcile.Member{Epoch: 9, Assigned: spec.NewSet(t0, t1)}); &got[0] != &prev[0] {
		t.Errorf("the same partitions are copied")
	}
	// The very sets was held: prev, whatever it names (the shortcut does
	// not look at prev; the coordinator's invariants check that prev
	// describes was).
	if got := assignmentEpochs(prev[:1], was, reconcile.Member{Epoch: 9, Assigned: was.Assigned}); len(got) != 1 {
		t.Errorf("the very sets of was: got %s, want prev itself", assignedAtString(got))
	}
}

// TestEncodingOfClassicMembers: the classic id counter and every field of
// a classic member's record are in the encoding; a member of the consumer
// protocol encodes as before classic members existed (its record adds
// nothing), and so does a coordinator that has issued no classic id.
func TestEncodingOfClassicMembers(t *testing.T) {
	h := mixed(t, CoordinatorConfig{})
	enc := func(c *Coordinator) string {
		e := &canon.Encoder{Now: 1000}
		c.EncodeCanon(e)
		return string(e.Finish())
	}
	base := enc(h.Node)
	edits := map[string]func(c *Coordinator){
		"classic ids": func(c *Coordinator) { c.classicIDs++ },
		"exists":      func(c *Coordinator) { c.exists = false },
	}
	for name, f := range map[string]func(m *classicMember){
		"use":             func(m *classicMember) { m.use = false },
		"session timeout": func(m *classicMember) { m.sessionTimeout++ },
		"protocols":       func(m *classicMember) { m.protocols = append(slices.Clone(m.protocols), m.protocols[0]) },
		"protocol name": func(m *classicMember) {
			m.protocols = []classic.ProtocolMetadata{{Name: "x", Metadata: m.protocols[0].Metadata}}
		},
		"metadata": func(m *classicMember) {
			m.protocols = []classic.ProtocolMetadata{{Name: m.protocols[0].Name, Metadata: "x"}}
		},
		"client":     func(m *classicMember) { m.clientID = "x" },
		"host":       func(m *classicMember) { m.clientHost = "x" },
		"join armed": func(m *classicMember) { m.joinArmed = true },
		"join at":    func(m *classicMember) { m.joinAt = 5 },
		"sync armed": func(m *classicMember) { m.syncArmed = true },
		"sync at":    func(m *classicMember) { m.syncAt = 5 },
	} {
		edits[name] = func(c *Coordinator) {
			m := *c.members.Get("C-1") // records are never changed in place
			f(&m.cl)
			c.members.Put(m.id, &m)
		}
	}
	for name, edit := range edits {
		d := h.Node.Clone()
		edit(d)
		if enc(d) == base {
			t.Errorf("%s: the encoding did not change", name)
		}
	}
	// Without classic ids issued and with consumer members only, exists is
	// written as a boolean byte, as before.
	c := nodetest.Must(NewCoordinator(CoordinatorConfig{GroupID: "g"}))
	c.exists = true
	if got := enc(c); got[0] != 1 {
		t.Errorf("exists encodes as %d", got[0])
	}
	c.classicIDs = 3
	if got := enc(c); got[0] != 3 || got[1] != 3 {
		t.Errorf("exists with classic ids encodes as %v", []byte(got[:2]))
	}
}

// TestAssignedAtMatches: the invariant that assignment epochs name
// exactly the partitions a member holds, assigned and pending revocation
// merged in order, holds only for that list.
func TestAssignedAtMatches(t *testing.T) {
	s0, t0, t1, t2 := spec.TP("S", 0), spec.TP("T", 0), spec.TP("T", 1), spec.TP("T", 2)
	cur := reconcile.Member{Epoch: 3, State: reconcile.UnrevokedPartitions, Assigned: spec.NewSet(s0, t2), PendingRevocation: spec.NewSet(t0, t1)}
	at := func(ps ...spec.Resource) []validate.AssignmentEpoch {
		out := make([]validate.AssignmentEpoch, len(ps))
		for i, p := range ps {
			out[i] = validate.AssignmentEpoch{Partition: p, Epoch: 1}
		}
		return out
	}
	for _, c := range []struct {
		name string
		at   []validate.AssignmentEpoch
		want bool
	}{
		{"every holding in order", at(s0, t0, t1, t2), true},
		{"the last one missing", at(s0, t0, t1), false},
		{"the first one missing", at(t0, t1, t2), false},
		{"one more", at(s0, t0, t1, t2, spec.TP("U", 0)), false},
		{"out of order", at(s0, t1, t0, t2), false},
		{"pending before assigned", at(t0, s0, t1, t2), false},
		{"one named twice", at(s0, t0, t0, t2), false},
		{"one not held", at(s0, t0, t1, spec.TP("T", 3)), false},
		{"one not held in a pending one's place", at(s0, spec.TP("S", 1), t1, t2), false},
	} {
		if got := assignedAtMatches(&member{cur: cur, assignedAt: c.at}); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if !assignedAtMatches(&member{}) {
		t.Errorf("a member holding nothing, with no assignment epochs, does not match")
	}
}
