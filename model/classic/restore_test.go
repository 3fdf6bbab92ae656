package classic

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestSnapshotHasTheGroup: Snapshot carries the group's state, generation,
// protocol type and protocol, leader, id counter, and every member's
// client, timeouts and assignment.
func TestSnapshotHasTheGroup(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	ids := coordForm(h, coordABC()...)
	g := h.Node.Snapshot()
	if g.State != GroupStable || g.Generation != h.Node.Generation() || g.ProtocolType != "consumer" || g.Protocol != "range" ||
		g.Leader != h.Node.Leader() || g.NextMemberID != h.Node.NextMemberID() || len(g.Members) != len(ids) {
		t.Fatalf("snapshot %+v of\n%s", g, h.Node)
	}
	s := newCoordHarness(t, CoordinatorConfig{})
	coordForm(s, coordMemberSpec{node: "A", instance: "a", protos: []string{"range"}})
	if got := s.Node.Snapshot().Instances; len(got) != 1 || got["a"] != "A-1" {
		t.Fatalf("snapshot instances %v", got)
	}
	for i, m := range g.Members {
		if m.ID != ids[i] || m.ClientID != m.Node || m.SessionTimeout != coordSession || m.RebalanceTimeout != coordRebalance ||
			m.Assignment != Metadata("asg-"+ids[i]) {
			t.Errorf("member %+v", m)
		}
	}
}

// TestRestoreCoordinator: a classic coordinator restored from a stable
// group's snapshot describes the same group, arms every member's session
// at now, and takes requests as the original does; restored in
// PreparingRebalance it raises the join barrier with the join timer at now
// plus the largest rebalance timeout, and every member must rejoin.
func TestRestoreCoordinator(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	h.Now = 500
	ids := coordForm(h, coordABC()...)
	g := h.Node.Snapshot()

	c, out := RestoreCoordinator(CoordinatorConfig{GroupID: "g"}, g, 1000)
	if err := c.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	if got, want := c.Describe(), h.Node.Describe(); !reflect.DeepEqual(got, want) {
		t.Fatalf("restored:\n%+v\nwant:\n%+v", got, want)
	}
	want := "set session(A-1)@11000\nset session(B-2)@11000\nset session(C-3)@11000"
	if got := strings.TrimSpace(out.String()); got != want {
		t.Fatalf("output:\n%s\nwant:\n%s", got, want)
	}
	// A follower's SyncGroup gets its stored assignment.
	r := c.Step(Input{Now: 1100, Event: Receive{From: "B", Msg: SyncGroupRequest{Seq: 9, MemberID: ids[1], Generation: g.Generation}}})
	if got := r.String(); !strings.Contains(got, "SyncGroupResponse#9 asg-B-2") {
		t.Fatalf("sync: %s", got)
	}
	// The id counter goes on.
	if c.NextMemberID() != h.Node.NextMemberID() {
		t.Fatalf("next member id %d, want %d", c.NextMemberID(), h.Node.NextMemberID())
	}

	g.State, g.Leader, g.Protocol = GroupPreparingRebalance, "", ""
	g.Members[2].RebalanceTimeout = 45000
	c, out = RestoreCoordinator(CoordinatorConfig{GroupID: "g"}, g, 1000)
	if err := c.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	if c.State() != GroupPreparingRebalance || c.Leader() != ids[0] || c.Protocol() != "range" || c.Generation() != h.Node.Generation() {
		t.Fatalf("restored in a rebalance:\n%s", c)
	}
	if got := strings.TrimSpace(out.String()); !strings.HasSuffix(got, "set join@46000") {
		t.Fatalf("output:\n%s", got)
	}
	hb := c.Step(Input{Now: 1100, Event: Receive{From: "A", Msg: HeartbeatRequest{Seq: 9, MemberID: ids[0], Generation: g.Generation}}})
	if got := hb.String(); !strings.Contains(got, "HeartbeatResponse#9 error=REBALANCE_IN_PROGRESS") {
		t.Fatalf("heartbeat: %s", got)
	}
	// Every member rejoins: the barrier falls, one generation later.
	for i, id := range ids {
		c.Step(Input{Now: 1200, Event: Receive{From: string(id[:1]), Msg: coordJoin(uint64(10+i), string(id[:1]), id, "range")}})
	}
	if c.State() != GroupCompletingRebalance || c.Generation() != g.Generation+1 {
		t.Fatalf("after the rejoins:\n%s", c)
	}
	if err := c.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}

// TestRestoreCoordinatorIDs: generated ids never repeat a restored one,
// whatever the snapshot's counter says; static members are restored with
// their instance ids; an empty group is Empty at the generation.
func TestRestoreCoordinatorIDs(t *testing.T) {
	g := CoordinatorSnapshot{
		State: GroupStable, Generation: 7, ProtocolType: "consumer", NextMemberID: 2,
		Members: []CoordinatorMemberSnapshot{
			{ID: "A-5", ClientID: "A", Node: "A", SessionTimeout: coordSession, Protocols: coordProtos("range")},
			{ID: "B-uuid", InstanceID: "b", ClientID: "B", Node: "B", SessionTimeout: coordSession, Protocols: coordProtos("range")},
		},
	}
	c, _ := RestoreCoordinator(CoordinatorConfig{GroupID: "g"}, g, 0)
	if c.NextMemberID() != 6 {
		t.Fatalf("next member id %d, want 6", c.NextMemberID())
	}
	if d := c.Describe(); d.Members[0].RebalanceTimeout != coordSession || d.Members[1].InstanceID != "b" {
		t.Fatalf("restored members %+v", d.Members)
	}
	// A static join of instance b without a member id replaces B-uuid.
	c.Step(Input{Now: 10, Event: Receive{From: "B2", Msg: coordStaticJoin(1, "B", "b", "", "range")}})
	if c.IsMember("B-uuid") || !c.IsMember("B-6") {
		t.Fatalf("static replacement:\n%s", c)
	}

	// A counter that would hand out a restored id is moved past it.
	g.NextMemberID = 5
	if c, _ := RestoreCoordinator(CoordinatorConfig{GroupID: "g"}, g, 0); c.NextMemberID() != 6 {
		t.Fatalf("next member id %d after A-5 with counter 5, want 6", c.NextMemberID())
	}

	e, out := RestoreCoordinator(CoordinatorConfig{GroupID: "g"}, CoordinatorSnapshot{Generation: 4}, 0)
	if e.State() != GroupEmpty || e.Generation() != 4 || len(out.Timers) != 0 {
		t.Fatalf("empty restore:\n%s", e)
	}
}

// TestRestoreCoordinatorPanics: data no coordinator could hold is a driver
// bug.
func TestRestoreCoordinatorPanics(t *testing.T) {
	member := func(id string) CoordinatorMemberSnapshot {
		return CoordinatorMemberSnapshot{ID: spec.MemberID(id), ClientID: "A", SessionTimeout: coordSession, Protocols: coordProtos("range")}
	}
	base := func() CoordinatorSnapshot {
		return CoordinatorSnapshot{State: GroupStable, Generation: 1, ProtocolType: "consumer", Members: []CoordinatorMemberSnapshot{member("A-1"), member("A-2")}}
	}
	for name, edit := range map[string]func(*CoordinatorSnapshot){
		"config":           nil,
		"state":            func(g *CoordinatorSnapshot) { g.State = GroupCompletingRebalance },
		"empty state":      func(g *CoordinatorSnapshot) { g.Members = nil },
		"no protocol type": func(g *CoordinatorSnapshot) { g.ProtocolType = "" },
		"empty id":         func(g *CoordinatorSnapshot) { g.Members[0].ID = "" },
		"repeated id":      func(g *CoordinatorSnapshot) { g.Members[1].ID = "A-1" },
		"no protocols":     func(g *CoordinatorSnapshot) { g.Members[1].Protocols = nil },
		"parked join":      func(g *CoordinatorSnapshot) { g.Members[1].Join.Parked = true },
		"parked sync":      func(g *CoordinatorSnapshot) { g.Members[0].Sync.Parked = true },
		"pending":          func(g *CoordinatorSnapshot) { g.Pending = []spec.MemberID{"A-9"} },
		"instance twice": func(g *CoordinatorSnapshot) {
			g.Members[0].InstanceID, g.Members[1].InstanceID = "i", "i"
		},
		"no common protocol": func(g *CoordinatorSnapshot) { g.Members[1].Protocols = coordProtos("roundrobin") },
	} {
		t.Run(name, func(t *testing.T) {
			g := base()
			cfg := CoordinatorConfig{GroupID: "g"}
			if edit == nil {
				cfg.GroupID = ""
			} else {
				edit(&g)
			}
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			RestoreCoordinator(cfg, g, 0)
		})
	}
}

// TestCheckInvariantsCatchesBrokenTables: CheckInvariants reports a
// member table out of the canonical order, a row without a key, a member
// recorded twice and a record under another member's id (each would
// encode as another group, or give a lookup the wrong record), and a
// timer armed twice in the coordinator's timer list (whose order the
// encoding and the next deadline rely on).
func TestCheckInvariantsCatchesBrokenTables(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(c *Coordinator)
		want    string
	}{
		{"rows swapped", func(c *Coordinator) { c.members[0], c.members[1] = c.members[1], c.members[0] }, `member table holds "A-1" after "B-2"`},
		{"row without a key", func(c *Coordinator) { c.members[0].Key = "" }, "member table row 0 has no key"},
		{"member recorded twice", func(c *Coordinator) { c.members = slices.Insert(c.members, 0, c.members[0]) }, `member table holds "A-1" after "A-1"`},
		{"record under another id", func(c *Coordinator) { c.members.Get("A-1").id = "X-9" }, "member A-1 recorded as X-9"},
		{"timer armed twice", func(c *Coordinator) { c.timers = slices.Insert(c.timers, 0, c.timers[0]) }, "timers session(A-1) and session(A-1) out of order"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newCoordHarness(t, CoordinatorConfig{})
			coordForm(h, coordABC()...)
			c := h.Node.Clone()
			if err := c.CheckInvariants(); err != nil {
				t.Fatalf("before the corruption: %v", err)
			}
			tc.corrupt(c)
			if err := c.CheckInvariants(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckInvariants() = %v, want %q", err, tc.want)
			}
		})
	}
}
