package classic

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/node/nodetest"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestEncodeCanonCoversEveryField fails when a field is added to a struct
// the hand-written encoders walk, until the encoder handles it (writes it,
// or leaves it out on purpose with a canon:"-" tag) and its count in
// encode.go is raised.
func TestEncodeCanonCoversEveryField(t *testing.T) {
	nodetest.CheckEncoders(t,
		nodetest.Encoded{Type: reflect.TypeFor[Coordinator](), Encoder: "Coordinator.EncodeCanon", Handled: coordinatorFields, LeftOut: []string{"cfg", "instances", "nextArrival", "supported", "shared"}},
		nodetest.Encoded{Type: reflect.TypeFor[coordMember](), Encoder: "encodeCoordMember", Handled: coordMemberFields},
		nodetest.Encoded{Type: reflect.TypeFor[coordParked](), Encoder: "encodeCoordParked", Handled: coordParkedFields},
		nodetest.Encoded{Type: reflect.TypeFor[Member](), Encoder: "Member.EncodeCanon", Handled: memberFields, LeftOut: []string{"cfg", "seq", "memo"}},
		nodetest.Encoded{Type: reflect.TypeFor[LeaderMemory](), Encoder: "encodeLeaderMemory", Handled: leaderMemoryFields},
	)
}

// encoding is the finished canonical encoding of what write writes at
// clock now.
func encoding(now Millis, abstract bool, write func(*canon.Encoder)) []byte {
	e := &canon.Encoder{Now: int64(now)}
	if abstract {
		e.AbstractIdentities = func(v int64) int64 { return v }
	}
	write(e)
	return bytes.Clone(e.Finish())
}

// perturb changes v (settable) to a different value of its type and
// reports whether it could.
func perturb(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Slice:
		v.Set(reflect.Append(v, reflect.New(v.Type().Elem()).Elem()))
	case reflect.Pointer:
		if !v.IsNil() {
			return perturb(v.Elem())
		}
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Struct:
		for i := range v.NumField() {
			if perturb(v.Field(i)) {
				return true
			}
		}
		return false
	default:
		return false
	}
	return true
}

// TestEncodeMessageEveryField changes each field of each message type in
// turn and checks that the encoding changes: a field added to a message
// without EncodeMessage writing it fails here.
func TestEncodeMessageEveryField(t *testing.T) {
	msgs := []Message{
		JoinGroupRequest{}, JoinGroupResponse{}, SyncGroupRequest{}, SyncGroupResponse{},
		HeartbeatRequest{}, HeartbeatResponse{}, LeaveGroupRequest{}, LeaveGroupResponse{},
		OffsetCommitRequest{}, OffsetCommitResponse{},
	}
	seen := map[string]Message{}
	for _, m := range msgs {
		base := encoding(0, false, func(e *canon.Encoder) { EncodeMessage(e, m) })
		if other, ok := seen[string(base)]; ok {
			t.Errorf("%T and %T encode alike", m, other)
		}
		seen[string(base)] = m
		typ := reflect.TypeOf(m)
		for i := range typ.NumField() {
			v := reflect.New(typ).Elem()
			if !perturb(v.Field(i)) {
				t.Fatalf("%s.%s: the test cannot change a %s", typ, typ.Field(i).Name, typ.Field(i).Type)
			}
			changed := v.Interface().(Message)
			if got := encoding(0, false, func(e *canon.Encoder) { EncodeMessage(e, changed) }); bytes.Equal(got, base) {
				t.Errorf("%s.%s is not encoded: update EncodeMessage", typ, typ.Field(i).Name)
			}
		}
	}
	if got := encoding(0, false, func(e *canon.Encoder) { EncodeMessage(e, nil) }); len(got) != 1 || seen[string(got)] != nil {
		t.Errorf("a nil message encodes as %v, want one byte of its own", got)
	}
	// A sync request with its protocol fields absent differs from one with
	// them present and empty.
	empty := ""
	a := encoding(0, false, func(e *canon.Encoder) { EncodeMessage(e, SyncGroupRequest{}) })
	b := encoding(0, false, func(e *canon.Encoder) { EncodeMessage(e, SyncGroupRequest{ProtocolName: &empty}) })
	if bytes.Equal(a, b) {
		t.Error("SyncGroupRequest: an absent protocol name encodes like an empty one")
	}
}

// TestEncodeTimer checks that timers differing in kind or member encode
// differently.
func TestEncodeTimer(t *testing.T) {
	enc := func(tm Timer) string {
		return string(encoding(0, false, func(e *canon.Encoder) { EncodeTimer(e, tm) }))
	}
	ts := []Timer{{Kind: SessionTimer, Member: "A-1"}, {Kind: SessionTimer, Member: "B-1"}, {Kind: JoinTimer}, {Kind: HeartbeatTimer}}
	for i := range ts {
		for j := range i {
			if enc(ts[i]) == enc(ts[j]) {
				t.Errorf("%s and %s encode alike", ts[i], ts[j])
			}
		}
	}
}

// testCoordinator is a coordinator with something in every field, at clock
// 1000: two members (A-1 with a parked JoinGroup, B-1 static with a parked
// SyncGroup), a pending id and three armed timers.
func testCoordinator() *Coordinator {
	c, err := NewCoordinator(CoordinatorConfig{GroupID: "g", MaxSize: 5})
	if err != nil {
		panic(err)
	}
	c.state = GroupPreparingRebalance
	c.generation = 3
	c.protocolType = "consumer"
	c.protocol = "range"
	c.leader = "A-1"
	c.members.Put("A-1", &coordMember{
		id: "A-1", clientID: "A", clientHost: "/A", node: "A",
		protocols:      []ProtocolMetadata{{Name: "range", Metadata: "md-a"}},
		sessionTimeout: 10000, rebalanceTimeout: 30000, assignment: "asg-a",
		join: coordParked{ok: true, from: "A", seq: 11, arrival: 4},
	})
	c.members.Put("B-1", &coordMember{
		id: "B-1", instanceID: "b", clientID: "B", clientHost: "/B", node: "B",
		protocols:      []ProtocolMetadata{{Name: "range", Metadata: "md-b"}},
		sessionTimeout: 10000, rebalanceTimeout: 30000,
		sync: coordParked{ok: true, from: "B", seq: 12},
	})
	c.pending["C-3"] = true
	c.instances["b"] = "B-1"
	c.timers.set(Timer{Kind: SessionTimer, Member: "A-1"}, 11000)
	c.timers.set(Timer{Kind: SessionTimer, Member: "C-3"}, 500) // due
	c.timers.set(coordJoinTimer, 31000)
	c.nextMemberID = 4
	c.nextArrival = 5
	return c
}

// TestCoordinatorEncodeCanon checks that coordinators differing in an
// encoded field encode differently, and that those differing only in what
// the encoding abstracts (the clock with every instant, correlation ids
// renumbered, order values with the same ranks, a due deadline, fields
// left out) encode alike.
func TestCoordinatorEncodeCanon(t *testing.T) {
	const now = 1000
	for _, c := range []struct {
		name     string
		change   func(c *Coordinator) Millis // returns the clock
		same     bool
		abstract bool // encode with AbstractIdentities set
	}{
		{"state", func(c *Coordinator) Millis { c.state = GroupStable; return now }, false, false},
		{"generation", func(c *Coordinator) Millis { c.generation++; return now }, false, false},
		{"protocol type", func(c *Coordinator) Millis { c.protocolType = "connect"; return now }, false, false},
		{"protocol", func(c *Coordinator) Millis { c.protocol = "roundrobin"; return now }, false, false},
		{"leader", func(c *Coordinator) Millis { c.leader = "B-1"; return now }, false, false},
		{"member removed", func(c *Coordinator) Millis { c.members.Remove("B-1"); return now }, false, false},
		{"member id", func(c *Coordinator) Millis { c.members.Get("A-1").id = "A-2"; return now }, false, false},
		{"member instance", func(c *Coordinator) Millis { c.members.Get("A-1").instanceID = "a"; return now }, false, false},
		{"member client", func(c *Coordinator) Millis { c.members.Get("A-1").clientID = "X"; return now }, false, false},
		{"member host", func(c *Coordinator) Millis { c.members.Get("A-1").clientHost = "/X"; return now }, false, false},
		{"member node", func(c *Coordinator) Millis { c.members.Get("A-1").node = "X"; return now }, false, false},
		{"member protocols", func(c *Coordinator) Millis { c.members.Get("A-1").protocols[0].Metadata = "md-x"; return now }, false, false},
		{"member session", func(c *Coordinator) Millis { c.members.Get("A-1").sessionTimeout++; return now }, false, false},
		{"member rebalance", func(c *Coordinator) Millis { c.members.Get("A-1").rebalanceTimeout++; return now }, false, false},
		{"member assignment", func(c *Coordinator) Millis { c.members.Get("A-1").assignment = ""; return now }, false, false},
		{"parked ok", func(c *Coordinator) Millis { c.members.Get("A-1").join.ok = false; return now }, false, false},
		{"parked from", func(c *Coordinator) Millis { c.members.Get("A-1").join.from = "X"; return now }, false, false},
		{"parked arrival set", func(c *Coordinator) Millis { c.members.Get("B-1").sync.arrival = 9; return now }, false, false},
		{"pending", func(c *Coordinator) Millis { c.pending["C-3"] = false; return now }, false, false},
		{"pending removed", func(c *Coordinator) Millis { delete(c.pending, "C-3"); return now }, false, false},
		{"timer deadline", func(c *Coordinator) Millis {
			at, _ := c.timers.get(coordJoinTimer)
			c.timers.set(coordJoinTimer, at+1)
			return now
		}, false, false},
		{"timer now due", func(c *Coordinator) Millis { c.timers.set(coordJoinTimer, now); return now }, false, false},
		{"timer disarmed", func(c *Coordinator) Millis { c.timers.remove(coordJoinTimer); return now }, false, false},
		{"clock alone", func(c *Coordinator) Millis { return now + 1 }, false, false},
		{"next member id", func(c *Coordinator) Millis { c.nextMemberID++; return now }, false, false},

		{"unchanged", func(c *Coordinator) Millis { return now }, true, false},
		{"clock and instants shifted", func(c *Coordinator) Millis {
			for i := range c.timers {
				c.timers[i].at += 700
			}
			return now + 700
		}, true, false},
		{"due deadline moved", func(c *Coordinator) Millis {
			c.timers.set(Timer{Kind: SessionTimer, Member: "C-3"}, 1)
			return now
		}, true, false},
		{"seqs renumbered", func(c *Coordinator) Millis {
			c.members.Get("A-1").join.seq, c.members.Get("B-1").sync.seq = 40, 77
			return now
		}, true, false},
		// A's and B's ids are issued by two counters and never compared:
		// that they coincide is not part of the state.
		{"seqs of two members coincide", func(c *Coordinator) Millis { c.members.Get("A-1").join.seq = 12; return now }, true, false},
		{"arrival same rank", func(c *Coordinator) Millis { c.members.Get("A-1").join.arrival = 90; return now }, true, false},
		{"next arrival", func(c *Coordinator) Millis { c.nextArrival = 99; return now }, true, false},
		// Fixed for the coordinator's life, or a function of the members'
		// records: only a coordinator that broke an invariant differs in
		// these alone.
		{"config group", func(c *Coordinator) Millis { c.cfg.GroupID = "h"; return now }, true, false},
		{"config max size", func(c *Coordinator) Millis { c.cfg.MaxSize++; return now }, true, false},
		{"config faults", func(c *Coordinator) Millis { c.cfg.Faults = SkipGenerationCheck; return now }, true, false},
		{"instance", func(c *Coordinator) Millis { c.instances["b"] = "B-2"; return now }, true, false},
		{"next member id abstracted", func(c *Coordinator) Millis { c.nextMemberID++; return now }, true, true},
	} {
		base := testCoordinator()
		changed := testCoordinator()
		at := c.change(changed)
		a := encoding(now, c.abstract, base.EncodeCanon)
		b := encoding(at, c.abstract, changed.EncodeCanon)
		if got := bytes.Equal(a, b); got != c.same {
			t.Errorf("%s: encodings equal = %v, want %v", c.name, got, c.same)
		}
	}
}

// testMember is a member with something in every field, at clock 1000.
func testMember() *Member {
	pt, pn := "consumer", "coop"
	return &Member{
		cfg:   &MemberConfig{Name: "A", Topics: []string{"t"}, Protocols: []Protocol{coopProto}},
		state: AwaitingSync, id: "A-1", generation: 3, leader: "A-1", protocol: "coop",
		topics: []string{"t", "u"}, metadata: spec.Topics{"t": 2, "u": 1},
		owned: spec.NewSet(spec.TP("t", 0)), ownedGen: 2, ownedLeader: "B-1",
		kept:          spec.NewSet(spec.TP("u", 0)),
		lastCompleted: 2,
		memory: &keptMemory{LeaderMemory: LeaderMemory{
			Generation: 2, Assignment: spec.Assignment{"A-1": spec.NewSet(spec.TP("t", 0))},
			Members: []spec.MemberID{"A-1", "B-1"}, ScheduledAt: 5000,
			Lost: spec.NewSet(spec.TP("t", 1)), Candidates: []spec.MemberID{"B-1"},
			SuccessiveRevokingRounds: 1, Revoked: true, Revocation: spec.NewSet(spec.TP("u", 0)),
		}},
		seq: 9, joinSeq: 7, syncSeq: 9, heartbeatSeq: 8,
		sync: &SyncGroupRequest{
			Seq: 9, MemberID: "A-1", Generation: 3, ProtocolType: &pt, ProtocolName: &pn,
			Assignments: []MemberAssignment{{MemberID: "A-1", Assignment: "asg"}},
		},
		timers: [ScheduledRebalanceTimer + 1]node.TimerSlot{
			HeartbeatTimer: {Armed: true, At: 4000},
			RequestTimer:   {Armed: true, At: 500}, // due
		},
	}
}

// TestMemberEncodeCanon is TestCoordinatorEncodeCanon for the member.
func TestMemberEncodeCanon(t *testing.T) {
	const now = 1000
	other := "x"
	for _, c := range []struct {
		name   string
		change func(m *Member) Millis // returns the clock
		same   bool
	}{
		{"eager", func(m *Member) Millis { m.eager = true; return now }, false},
		{"state", func(m *Member) Millis { m.state = Stable; return now }, false},
		{"id", func(m *Member) Millis { m.id = "A-2"; return now }, false},
		{"generation", func(m *Member) Millis { m.generation++; return now }, false},
		{"leader", func(m *Member) Millis { m.leader = "B-1"; return now }, false},
		{"protocol", func(m *Member) Millis { m.protocol = "eager"; return now }, false},
		{"topics", func(m *Member) Millis { m.topics = []string{"t"}; return now }, false},
		{"metadata", func(m *Member) Millis { m.metadata["u"] = 2; return now }, false},
		{"owned", func(m *Member) Millis { m.owned = nil; return now }, false},
		{"owned generation", func(m *Member) Millis { m.ownedGen++; return now }, false},
		{"owned leader", func(m *Member) Millis { m.ownedLeader = "A-1"; return now }, false},
		{"kept", func(m *Member) Millis { m.kept = nil; return now }, false},
		{"last completed", func(m *Member) Millis { m.lastCompleted++; return now }, false},
		{"memory generation", func(m *Member) Millis { m.memory.Generation++; return now }, false},
		{"memory assignment", func(m *Member) Millis { m.memory.Assignment["B-1"] = nil; return now }, false},
		{"memory members", func(m *Member) Millis { m.memory.Members = m.memory.Members[:1]; return now }, false},
		{"memory scheduled", func(m *Member) Millis { m.memory.ScheduledAt = 0; return now }, false},
		{"memory lost", func(m *Member) Millis { m.memory.Lost = nil; return now }, false},
		{"memory candidates", func(m *Member) Millis { m.memory.Candidates = nil; return now }, false},
		{"memory successive", func(m *Member) Millis { m.memory.SuccessiveRevokingRounds++; return now }, false},
		{"memory revoked", func(m *Member) Millis { m.memory.Revoked = false; return now }, false},
		{"memory revocation", func(m *Member) Millis { m.memory.Revocation = nil; return now }, false},
		{"join seq none", func(m *Member) Millis { m.joinSeq = 0; return now }, false},
		{"sync seq matches join", func(m *Member) Millis { m.syncSeq = 7; return now }, false},
		{"heartbeat seq matches sync", func(m *Member) Millis { m.heartbeatSeq = 9; return now }, false},
		{"sync request seq", func(m *Member) Millis { m.sync.Seq = 8; return now }, false},
		{"sync request member", func(m *Member) Millis { m.sync.MemberID = "A-2"; return now }, false},
		{"sync request instance", func(m *Member) Millis { m.sync.InstanceID = "a"; return now }, false},
		{"sync request generation", func(m *Member) Millis { m.sync.Generation++; return now }, false},
		{"sync request assignments", func(m *Member) Millis { m.sync.Assignments = nil; return now }, false},
		{"sync request protocol type", func(m *Member) Millis { m.sync.ProtocolType = nil; return now }, false},
		{"sync request protocol name", func(m *Member) Millis { m.sync.ProtocolName = &other; return now }, false},
		{"rejoin after sync", func(m *Member) Millis { m.rejoinAfterSync = true; return now }, false},
		{"timer armed", func(m *Member) Millis { m.timers[ScheduledRebalanceTimer].Armed = true; return now }, false},
		{"timer deadline", func(m *Member) Millis { m.timers[HeartbeatTimer].At++; return now }, false},
		{"clock alone", func(m *Member) Millis { return now + 1 }, false},

		{"unchanged", func(m *Member) Millis { return now }, true},
		{"clock and instants shifted", func(m *Member) Millis {
			m.timers[HeartbeatTimer].At += 300
			m.memory.ScheduledAt += 300
			return now + 300
		}, true},
		{"due deadline moved", func(m *Member) Millis { m.timers[RequestTimer].At = 1; return now }, true},
		{"seqs renumbered", func(m *Member) Millis {
			m.joinSeq, m.syncSeq, m.heartbeatSeq, m.sync.Seq = 30, 50, 40, 50
			return now
		}, true},
		{"next seq", func(m *Member) Millis { m.seq = 99; return now }, true},
		{"config", func(m *Member) Millis {
			m.cfg = &MemberConfig{Name: "B", Protocols: []Protocol{eagerProto}}
			return now
		}, true},
	} {
		base := testMember()
		changed := testMember()
		at := c.change(changed)
		a := encoding(now, false, base.EncodeCanon)
		b := encoding(at, false, changed.EncodeCanon)
		if got := bytes.Equal(a, b); got != c.same {
			t.Errorf("%s: encodings equal = %v, want %v", c.name, got, c.same)
		}
	}
}

// TestEncodeCanonRenames checks that member ids are written through
// Encoder.Rename wherever they appear, the leader's id inside the stored
// assignments included, so that symmetry reduction sees them: a
// coordinator and a member whose ids are swapped encode alike under the
// swap. As the checker does, every encoding compared opens the payloads.
func TestEncodeCanonRenames(t *testing.T) {
	// Two coordinators that are each other's image under the swap.
	mk := func(x, y spec.MemberID) *Coordinator {
		c, _ := NewCoordinator(CoordinatorConfig{GroupID: "g"})
		c.state, c.leader = GroupStable, x
		assigned := func(p int32) Metadata {
			return Assignment{Assigned: spec.Set{{Topic: "T", Partition: p}}, Leader: x}.Encode()
		}
		c.members.Put(x, &coordMember{id: x, node: "n1", assignment: assigned(0)})
		c.members.Put(y, &coordMember{id: y, node: "n2", assignment: assigned(1)})
		c.timers.set(Timer{Kind: SessionTimer, Member: x}, 2000)
		c.timers.set(Timer{Kind: SessionTimer, Member: y}, 3000)
		return c
	}
	c1, c2 := mk("A-1", "B-1"), mk("B-1", "A-1")
	e1 := &canon.Encoder{Now: 1000, OpenPayloads: true}
	c1.EncodeCanon(e1)
	e2 := &canon.Encoder{Now: 1000, Rename: swapIDs}
	c2.EncodeCanon(e2)
	if !bytes.Equal(e1.Finish(), e2.Finish()) {
		t.Error("coordinator: swapped member ids do not encode alike under the swap")
	}
	if bytes.Equal(encoding(1000, false, c1.EncodeCanon), encoding(1000, false, c2.EncodeCanon)) {
		t.Error("coordinator: swapped member ids encode alike without renaming")
	}
	// The identity renaming writes what no renaming writes: the checker
	// takes the smallest of the renamed encodings and the plain one, so a
	// renamed encoding that ordered the armed timers otherwise would give
	// one state two encodings. The group's JoinTimer (no member) sorts
	// after the session timers by kind, before them by member.
	c1.timers.set(Timer{Kind: JoinTimer}, 2500)
	plain := &canon.Encoder{Now: 1000, OpenPayloads: true}
	c1.EncodeCanon(plain)
	same := &canon.Encoder{Now: 1000, Rename: func(s string) string { return s }}
	c1.EncodeCanon(same)
	if !bytes.Equal(plain.Finish(), same.Finish()) {
		t.Error("coordinator: the identity renaming encodes otherwise than no renaming")
	}
}

// TestPayloadsOpen: the subscription and assignment metadata a message
// carries are written as their bytes unless the encoder opens payloads;
// opened, their fields are written, the leader's member id through
// Rename and the generation through AbstractIdentities, and metadata
// that does not decode keeps its bytes behind a tag of its own.
func TestPayloadsOpen(t *testing.T) {
	sub := func(leader spec.MemberID) Metadata {
		return Subscription{Topics: []string{"T"}, Owned: spec.Set{{Topic: "T", Partition: 0}}, Generation: 3, Leader: leader}.Encode()
	}
	asg := func(leader spec.MemberID) Metadata {
		return Assignment{Assigned: spec.Set{{Topic: "T", Partition: 1}}, Leader: leader}.Encode()
	}
	msgs := func(x, y spec.MemberID, md Metadata, a Metadata) []Message {
		return []Message{
			JoinGroupRequest{MemberID: x, Protocols: []ProtocolMetadata{{Name: "cooperative", Metadata: md}}},
			JoinGroupResponse{Leader: x, MemberID: y, Members: []JoinedMember{{MemberID: x, Metadata: md}, {MemberID: y, Metadata: md}}},
			SyncGroupRequest{MemberID: x, Assignments: []MemberAssignment{{MemberID: y, Assignment: a}}},
			SyncGroupResponse{Assignment: a},
		}
	}
	ab := msgs("A-1", "B-1", sub("A-1"), asg("A-1"))
	ba := msgs("B-1", "A-1", sub("B-1"), asg("B-1"))
	write := func(e *canon.Encoder, m Message) []byte {
		EncodeMessage(e, m)
		return bytes.Clone(e.Finish())
	}
	for i := range ab {
		// Closed: the metadata is its bytes, as a plain string.
		if bytes.Contains(write(&canon.Encoder{}, ab[i]), []byte(sub("A-1"))) == bytes.Contains(write(&canon.Encoder{}, ab[i]), []byte(asg("A-1"))) {
			t.Errorf("%T: closed, the metadata's bytes are not in the encoding (or both kinds are)", ab[i])
		}
		// Opened: the leader inside is renamed with the other ids.
		if !bytes.Equal(write(&canon.Encoder{OpenPayloads: true}, ab[i]), write(&canon.Encoder{Rename: swapIDs}, ba[i])) {
			t.Errorf("%T: the swapped message does not encode alike under the swap with payloads opened", ab[i])
		}
		// Closed, under a renaming that reaches no payload, the swapped
		// message's metadata would still name the other leader.
		if bytes.Equal(write(&canon.Encoder{}, ab[i]), write(&canon.Encoder{}, ba[i])) {
			t.Errorf("%T: the swapped message encodes alike without renaming", ab[i])
		}
	}
	// Opened, the metadata's generation goes through AbstractIdentities.
	var gens []int64
	e := &canon.Encoder{AbstractIdentities: func(g int64) int64 { gens = append(gens, g); return g }}
	EncodeMessage(e, JoinGroupResponse{Generation: 5, Members: []JoinedMember{{MemberID: "A-1", Metadata: sub("A-1")}}})
	if !slices.Equal(gens, []int64{5, 3}) {
		t.Errorf("generations abstracted: %v, want the response's 5 and the metadata's 3", gens)
	}
	// Metadata that does not decode: its bytes, behind a tag of its own.
	bad := func(md Metadata) []byte {
		return write(&canon.Encoder{OpenPayloads: true}, SyncGroupResponse{Assignment: md})
	}
	if x, y := bad("garbage"), bad("rubbish"); bytes.Equal(x, y) || !bytes.Contains(x, []byte("garbage")) {
		t.Error("opened, undecodable assignments encode alike or without their bytes")
	}
	if bytes.Equal(bad(""), bad(asg(""))) {
		t.Error("opened, an empty assignment encodes as a decoded one")
	}
}

// swapIDs renames member id A-1 to B-1 and B-1 to A-1.
func swapIDs(s string) string {
	switch s {
	case "A-1":
		return "B-1"
	case "B-1":
		return "A-1"
	}
	return s
}

// BenchmarkEncodeCanon encodes a coordinator and a member with a reused
// Encoder, as the model checker does for every state it reaches.
func BenchmarkEncodeCanon(b *testing.B) {
	c, m := testCoordinator(), testMember()
	e := &canon.Encoder{Now: 1000}
	b.ReportAllocs()
	for b.Loop() {
		e.Reset()
		c.EncodeCanon(e)
		m.EncodeCanon(e)
		e.Finish()
	}
}

// TestEncodeLeaderMemoryAssignment: the leader memory's assignment is
// written exactly as canon's Encoder.Assignment writes it, with and
// without renaming.
func TestEncodeLeaderMemoryAssignment(t *testing.T) {
	mem := testMember().memory.LeaderMemory
	for _, rename := range []func(string) string{nil, func(s string) string { return s + "'" }} {
		got := encoding(0, false, func(e *canon.Encoder) { e.Rename = rename; encodeLeaderMemory(e, &mem) })
		want := encoding(0, false, func(e *canon.Encoder) {
			e.Rename = rename
			e.Generation(int64(mem.Generation))
			e.Assignment(mem.Assignment)
			encodeIDs(e, mem.Members)
			e.Instant(int64(mem.ScheduledAt))
			e.Set(mem.Lost)
			encodeIDs(e, mem.Candidates)
			e.Int(int64(mem.SuccessiveRevokingRounds))
			e.Bool(mem.Revoked)
			e.Set(mem.Revocation)
		})
		if !bytes.Equal(got, want) {
			t.Errorf("rename=%t: the leader memory encodes as %v, want %v", rename != nil, got, want)
		}
	}
}
