package classic

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/node/nodetest"
	"github.com/rebalance-ref/rebalance/spec"
)

// The coordinator tests drive a Coordinator with Inputs and compare each
// Step's Output, printed with Output.String, against the expected text.
// Every helper here is prefixed coord so it cannot collide with the member
// tests of the same package.

const (
	coordSession   Millis = 10000
	coordRebalance Millis = 30000
)

// coordHarness steps one coordinator at a settable time (nodetest.Harness:
// every step also checks the coordinator's invariants and its Fork against
// a Clone, so every coordinator test checks Fork's sharing).
type coordHarness struct {
	*nodetest.Harness[*Coordinator, Output]
}

func newCoordHarness(t *testing.T, cfg CoordinatorConfig) *coordHarness {
	cfg.GroupID = cmp.Or(cfg.GroupID, "g")
	return &coordHarness{nodetest.NewHarness[*Coordinator, Output](t, nodetest.Must(NewCoordinator(cfg)), coordNorm)}
}

// step runs ev at h.Now and returns the printed output.
func (h *coordHarness) step(ev node.Event) string {
	h.T.Helper()
	return h.Step(ev).String()
}

// coordSameState reports whether a and b are deeply equal but for what
// they share with the coordinators they were forked from.
func coordSameState(a, b *Coordinator) bool {
	x, y := *a, *b
	x.shared, y.shared = 0, 0
	return reflect.DeepEqual(&x, &y)
}

func (h *coordHarness) recv(from string, msg Message) string {
	h.T.Helper()
	return h.step(Receive{From: from, Msg: msg})
}

// coordNorm trims every line and drops empty ones, so expected text can be
// indented in the test source. It keeps the two-space indent of the
// coordinator dump's member detail lines.
func coordNorm(s string) string {
	return nodetest.Trim(s, func(l string) bool {
		return strings.HasPrefix(l, "awaiting-") || strings.HasPrefix(l, "assignment=")
	})
}

func (h *coordHarness) fire(at Millis, t Timer, want string) {
	h.T.Helper()
	h.Expect(at, TimerFired{Timer: t}, want)
}

// coordProtos builds a protocol list from "name" (metadata "<name>-md") or
// "name=metadata".
func coordProtos(specs ...string) []ProtocolMetadata {
	var out []ProtocolMetadata
	for _, s := range specs {
		name, md, ok := strings.Cut(s, "=")
		if !ok {
			md = name + "-md"
		}
		out = append(out, ProtocolMetadata{Name: name, Metadata: Metadata(md)})
	}
	return out
}

// coordJoin is a JoinGroup from client with the test's default timeouts.
func coordJoin(seq uint64, client string, id spec.MemberID, protos ...string) JoinGroupRequest {
	return JoinGroupRequest{
		Seq: seq, MemberID: id, ClientID: client, ProtocolType: "consumer",
		Protocols: coordProtos(protos...), SessionTimeout: coordSession, RebalanceTimeout: coordRebalance,
	}
}

// coordStaticJoin is coordJoin for a static member.
func coordStaticJoin(seq uint64, client, instance string, id spec.MemberID, protos ...string) JoinGroupRequest {
	r := coordJoin(seq, client, id, protos...)
	r.InstanceID = instance
	return r
}

// coordMemberSpec is one member of a group built by coordForm.
type coordMemberSpec struct {
	node, instance string
	protos         []string
}

// coordForm builds a Stable group at time h.Now, the way Kafka's clients
// would: every member joins in order (the first completes a one-member
// generation at once, the second starts a rebalance), the first member
// rejoins to complete the barrier, the followers sync and then the leader
// syncs with assignment "asg-<id>" for each member. Member ids are
// <node>-<n> in join order. It returns the ids.
func coordForm(h *coordHarness, specs ...coordMemberSpec) []spec.MemberID {
	h.T.Helper()
	for i, s := range specs {
		h.recv(s.node, coordStaticJoin(1, s.node, s.instance, "", s.protos...))
		if len(h.Node.Members()) != i+1 {
			h.T.Fatalf("coordForm: join of %s rejected\n%s", s.node, h.Node)
		}
	}
	ids := h.Node.Members()
	if len(specs) > 1 {
		first := specs[0]
		h.recv(first.node, coordStaticJoin(2, first.node, first.instance, coordIDOf(h, first.node), first.protos...))
	}
	if h.Node.State() != GroupCompletingRebalance {
		h.T.Fatalf("coordForm: state %s after the joins\n%s", h.Node.State(), h.Node)
	}
	leader := h.Node.Leader()
	var asg []MemberAssignment
	for _, id := range ids {
		asg = append(asg, MemberAssignment{MemberID: id, Assignment: Metadata("asg-" + id)})
	}
	for _, id := range ids {
		if id != leader {
			h.recv(h.Node.MemberNode(id), SyncGroupRequest{Seq: 3, MemberID: id, InstanceID: h.Node.members.Get(id).instanceID, Generation: h.Node.Generation()})
		}
	}
	h.recv(h.Node.MemberNode(leader), SyncGroupRequest{Seq: 3, MemberID: leader, InstanceID: h.Node.members.Get(leader).instanceID, Generation: h.Node.Generation(), Assignments: asg})
	if h.Node.State() != GroupStable {
		h.T.Fatalf("coordForm: state %s after the syncs\n%s", h.Node.State(), h.Node)
	}
	return ids
}

// coordIDOf returns the member id node holds.
func coordIDOf(h *coordHarness, node string) spec.MemberID {
	h.T.Helper()
	for _, id := range h.Node.Members() {
		if h.Node.MemberNode(id) == node {
			return id
		}
	}
	h.T.Fatalf("no member on node %s\n%s", node, h.Node)
	return ""
}

func coordABC() []coordMemberSpec {
	return []coordMemberSpec{
		{node: "A", protos: []string{"range"}},
		{node: "B", protos: []string{"range"}},
		{node: "C", protos: []string{"range"}},
	}
}

// TestCoordinatorJoinSyncThreeMembers walks a group of three from empty to
// Stable: the first member's join completes a one-member generation at
// once (no initial rebalance delay), the next two start and park in a
// rebalance the first member completes by rejoining, and the leader's
// assignments, which are not valid assignment metadata, are stored and
// handed out unread.
func TestCoordinatorJoinSyncThreeMembers(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	h.Expect(0, Receive{From: "A", Msg: coordJoin(1, "A", "", "range=A-sub")}, `
		send coordinator->A JoinGroupResponse#1 gen=1 protocol=range leader=A-1 member=A-1 [A-1 A-sub]
		set session(A-1)@10000
	`)
	if h.Node.State() != GroupCompletingRebalance || h.Node.Generation() != 1 || h.Node.Leader() != "A-1" {
		t.Fatalf("after the first join:\n%s", h.Node)
	}
	h.Expect(100, Receive{From: "B", Msg: coordJoin(1, "B", "", "range=B-sub")}, `
		set session(B-2)@10100
		set join@30100
	`)
	if h.Node.State() != GroupPreparingRebalance {
		t.Fatalf("a new member did not start a rebalance:\n%s", h.Node)
	}
	h.Expect(200, Receive{From: "C", Msg: coordJoin(1, "C", "", "range=C-sub")}, `
		set session(C-3)@10200
	`)
	h.Expect(300, Receive{From: "A", Msg: coordJoin(2, "A", "A-1", "range=A-sub")}, `
		send coordinator->A JoinGroupResponse#2 gen=2 protocol=range leader=A-1 member=A-1 [A-1 A-sub] [B-2 B-sub] [C-3 C-sub]
		send coordinator->B JoinGroupResponse#1 gen=2 protocol=range leader=A-1 member=B-2
		send coordinator->C JoinGroupResponse#1 gen=2 protocol=range leader=A-1 member=C-3
		set session(A-1)@10300
		cancel join
		set session(B-2)@10300
		set session(C-3)@10300
	`)
	h.Expect(400, Receive{From: "B", Msg: SyncGroupRequest{Seq: 2, MemberID: "B-2", Generation: 2}}, `
		set session(B-2)@10400
	`)
	asg := []MemberAssignment{{MemberID: "A-1", Assignment: "\x01opaque:A"}, {MemberID: "B-2", Assignment: "opaque:B"}, {MemberID: "C-3", Assignment: "opaque:C"}}
	h.Expect(500, Receive{From: "A", Msg: SyncGroupRequest{Seq: 3, MemberID: "A-1", Generation: 2, Assignments: asg}}, `
		send coordinator->A SyncGroupResponse#3 `+"\x01"+`opaque:A
		send coordinator->B SyncGroupResponse#2 opaque:B
		set session(A-1)@10500
		set session(B-2)@10500
	`)
	h.Expect(600, Receive{From: "C", Msg: SyncGroupRequest{Seq: 2, MemberID: "C-3", Generation: 2}}, `
		send coordinator->C SyncGroupResponse#2 opaque:C
		set session(C-3)@10600
	`)
	h.ExpectState(`
		group g state=Stable gen=2 type=consumer protocol=range leader=A-1 join-timer=- next-id=4 next-arrival=5
		member A-1 node=A client=A session=10000 rebalance=30000 session-timer=@10500 protocols=[range="A-sub"]
		  assignment="\x01opaque:A"
		member B-2 node=B client=B session=10000 rebalance=30000 session-timer=@10500 protocols=[range="B-sub"]
		  assignment="opaque:B"
		member C-3 node=C client=C session=10000 rebalance=30000 session-timer=@10600 protocols=[range="C-sub"]
		  assignment="opaque:C"
	`)
	// A follower's heartbeat in Stable restarts its session.
	h.Expect(700, Receive{From: "B", Msg: HeartbeatRequest{Seq: 3, MemberID: "B-2", Generation: 2}}, `
		send coordinator->B HeartbeatResponse#3 error=NONE gen=2
		set session(B-2)@10700
	`)
}

// TestCoordinatorLeaderSyncFillsAssignments: members the leader leaves out
// get an empty assignment, and assignments for non-members are dropped
// (Kafka's classicGroupSyncToClassicGroup).
func TestCoordinatorLeaderSyncFillsAssignments(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	for _, n := range []string{"A", "B"} {
		h.recv(n, coordJoin(1, n, "", "range"))
	}
	h.recv("A", coordJoin(2, "A", "A-1", "range"))
	h.Expect(0, Receive{From: "B", Msg: SyncGroupRequest{Seq: 2, MemberID: "B-2", Generation: 2}}, ``)
	asg := []MemberAssignment{{MemberID: "A-1", Assignment: "x"}, {MemberID: "Z-9", Assignment: "z"}}
	h.Expect(0, Receive{From: "A", Msg: SyncGroupRequest{Seq: 3, MemberID: "A-1", Generation: 2, Assignments: asg}}, `
		send coordinator->A SyncGroupResponse#3 x
		send coordinator->B SyncGroupResponse#2
	`)
	if h.Node.State() != GroupStable || h.Node.IsMember("Z-9") {
		t.Fatalf("after the leader's sync:\n%s", h.Node)
	}
}

// TestCoordinatorRebalanceOnNewMember: a member joining a Stable group
// starts a rebalance; heartbeats answer REBALANCE_IN_PROGRESS (and still
// restart the session) until every member has rejoined; the new
// generation's join responses go to every member.
func TestCoordinatorRebalanceOnNewMember(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	coordForm(h, coordABC()[:2]...) // A-1 (leader), B-2 at generation 2
	h.Expect(1000, Receive{From: "C", Msg: coordJoin(1, "C", "", "range")}, `
		set session(C-3)@11000
		set join@31000
	`)
	if h.Node.State() != GroupPreparingRebalance || h.Node.Generation() != 2 {
		t.Fatalf("after C joined:\n%s", h.Node)
	}
	h.Expect(2000, Receive{From: "B", Msg: HeartbeatRequest{Seq: 4, MemberID: "B-2", Generation: 2}}, `
		send coordinator->B HeartbeatResponse#4 error=REBALANCE_IN_PROGRESS gen=2
		set session(B-2)@12000
	`)
	// A SyncGroup during the rebalance is turned away.
	h.Expect(2100, Receive{From: "B", Msg: SyncGroupRequest{Seq: 5, MemberID: "B-2", Generation: 2}}, `
		send coordinator->B SyncGroupResponse#5 error=REBALANCE_IN_PROGRESS
	`)
	h.Expect(2500, Receive{From: "B", Msg: coordJoin(6, "B", "B-2", "range")}, `
		set session(B-2)@12500
	`)
	// A newer JoinGroup of a parked member replaces the older one.
	h.Expect(2600, Receive{From: "B", Msg: coordJoin(7, "B", "B-2", "range")}, `
		set session(B-2)@12600
	`)
	h.Expect(3000, Receive{From: "A", Msg: coordJoin(4, "A", "A-1", "range")}, `
		send coordinator->A JoinGroupResponse#4 gen=3 protocol=range leader=A-1 member=A-1 [A-1 range-md] [B-2 range-md] [C-3 range-md]
		send coordinator->B JoinGroupResponse#7 gen=3 protocol=range leader=A-1 member=B-2
		send coordinator->C JoinGroupResponse#1 gen=3 protocol=range leader=A-1 member=C-3
		set session(A-1)@13000
		cancel join
		set session(B-2)@13000
		set session(C-3)@13000
	`)
	if h.Node.State() != GroupCompletingRebalance || h.Node.Generation() != 3 {
		t.Fatalf("after everyone rejoined:\n%s", h.Node)
	}
	// A heartbeat of the new generation while the leader assigns is fine.
	h.Expect(3100, Receive{From: "C", Msg: HeartbeatRequest{Seq: 2, MemberID: "C-3", Generation: 3}}, `
		send coordinator->C HeartbeatResponse#2 error=NONE gen=3
		set session(C-3)@13100
	`)
}

// TestCoordinatorRejoinInStable: a follower rejoining a Stable group with
// unchanged protocols gets the current generation back at once; the
// leader's rejoin, or changed protocols, start a rebalance (Kafka's
// classicGroupJoinExistingMember).
func TestCoordinatorRejoinInStable(t *testing.T) {
	t.Run("follower-same-protocols", func(t *testing.T) {
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h, coordABC()...)
		h.Expect(1000, Receive{From: "B", Msg: coordJoin(9, "B", "B-2", "range")}, `
			send coordinator->B JoinGroupResponse#9 gen=2 protocol=range leader=A-1 member=B-2
			set session(B-2)@11000
		`)
		if h.Node.State() != GroupStable {
			t.Fatalf("state %s", h.Node.State())
		}
	})
	t.Run("follower-new-protocols", func(t *testing.T) {
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h, coordABC()...)
		h.Expect(1000, Receive{From: "B", Msg: coordJoin(9, "B", "B-2", "range=new-subscription")}, `
			set session(B-2)@11000
			set join@31000
		`)
		if h.Node.State() != GroupPreparingRebalance {
			t.Fatalf("state %s", h.Node.State())
		}
	})
	t.Run("leader", func(t *testing.T) {
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h, coordABC()...)
		h.Expect(1000, Receive{From: "A", Msg: coordJoin(9, "A", "A-1", "range")}, `
			set session(A-1)@11000
			set join@31000
		`)
		if h.Node.State() != GroupPreparingRebalance {
			t.Fatalf("state %s", h.Node.State())
		}
	})
	t.Run("completing-lost-response", func(t *testing.T) {
		// In CompletingRebalance a member that lost its JoinGroup response
		// gets it again; the leader's carries the members.
		h := newCoordHarness(t, CoordinatorConfig{})
		h.recv("A", coordJoin(1, "A", "", "range"))
		h.recv("B", coordJoin(1, "B", "", "range"))
		h.recv("A", coordJoin(2, "A", "A-1", "range"))
		h.Expect(10, Receive{From: "B", Msg: coordJoin(2, "B", "B-2", "range")}, `
			send coordinator->B JoinGroupResponse#2 gen=2 protocol=range leader=A-1 member=B-2
			set session(B-2)@10010
		`)
		h.Expect(20, Receive{From: "A", Msg: coordJoin(3, "A", "A-1", "range")}, `
			send coordinator->A JoinGroupResponse#3 gen=2 protocol=range leader=A-1 member=A-1 [A-1 range-md] [B-2 range-md]
			set session(A-1)@10020
		`)
		if h.Node.State() != GroupCompletingRebalance {
			t.Fatalf("state %s", h.Node.State())
		}
	})
	t.Run("completing-changed-protocols", func(t *testing.T) {
		// Changed protocols in CompletingRebalance start a rebalance; the
		// parked SyncGroups are answered REBALANCE_IN_PROGRESS.
		h := newCoordHarness(t, CoordinatorConfig{})
		h.recv("A", coordJoin(1, "A", "", "range"))
		h.recv("B", coordJoin(1, "B", "", "range"))
		h.recv("A", coordJoin(2, "A", "A-1", "range"))
		h.Expect(10, Receive{From: "B", Msg: SyncGroupRequest{Seq: 2, MemberID: "B-2", Generation: 2}}, `
			set session(B-2)@10010
		`)
		h.Expect(20, Receive{From: "A", Msg: coordJoin(3, "A", "A-1", "range=changed")}, `
			send coordinator->B SyncGroupResponse#2 error=REBALANCE_IN_PROGRESS
			set session(A-1)@10020
			set session(B-2)@10020
			set join@30020
		`)
	})
}

// TestCoordinatorJoinTimerRemovesLaggards: when the JoinTimer fires, the
// members that did not rejoin are removed and the join completes with the
// others (Kafka's DelayedJoin expiring into completeClassicGroupJoin).
func TestCoordinatorJoinTimerRemovesLaggards(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	coordForm(h, coordABC()...) // A-1 leader, B-2, C-3 at generation 2
	h.Expect(1000, Receive{From: "D", Msg: coordJoin(1, "D", "", "range")}, `
		set session(D-4)@11000
		set join@31000
	`)
	h.Expect(2000, Receive{From: "B", Msg: coordJoin(4, "B", "B-2", "range")}, `
		set session(B-2)@12000
	`)
	// The old leader A keeps heartbeating but never rejoins; C is silent.
	// D's JoinGroup arrived first in this rebalance, so D will lead.
	h.Expect(9000, Receive{From: "A", Msg: HeartbeatRequest{Seq: 4, MemberID: "A-1", Generation: 2}}, `
		send coordinator->A HeartbeatResponse#4 error=REBALANCE_IN_PROGRESS gen=2
		set session(A-1)@19000
	`)
	// C's session expires before the JoinTimer: C is removed, the barrier
	// still waits for A.
	h.fire(10000, coordSessionTimer("C-3"), ``)
	if h.Node.IsMember("C-3") || h.Node.State() != GroupPreparingRebalance {
		t.Fatalf("after C's session expired:\n%s", h.Node)
	}
	// B and D are parked: their session timers firing does not remove them
	// (Kafka's hasSatisfiedHeartbeat).
	h.fire(12000, coordSessionTimer("B-2"), ``)
	h.fire(12000, coordSessionTimer("D-4"), ``)
	h.Expect(18000, Receive{From: "A", Msg: HeartbeatRequest{Seq: 5, MemberID: "A-1", Generation: 2}}, `
		send coordinator->A HeartbeatResponse#5 error=REBALANCE_IN_PROGRESS gen=2
		set session(A-1)@28000
	`)
	h.fire(31000, coordJoinTimer, `
		send coordinator->B JoinGroupResponse#4 gen=3 protocol=range leader=D-4 member=B-2
		send coordinator->D JoinGroupResponse#1 gen=3 protocol=range leader=D-4 member=D-4 [B-2 range-md] [D-4 range-md]
		cancel session(A-1)
		set session(B-2)@41000
		set session(D-4)@41000
	`)
	h.ExpectState(`
		group g state=CompletingRebalance gen=3 type=consumer protocol=range leader=D-4 join-timer=- next-id=5 next-arrival=7
		member B-2 node=B client=B session=10000 rebalance=30000 session-timer=@41000 protocols=[range="range-md"]
		member D-4 node=D client=D session=10000 rebalance=30000 session-timer=@41000 protocols=[range="range-md"]
	`)
	// A is gone: its next heartbeat is UNKNOWN_MEMBER_ID.
	h.Expect(31001, Receive{From: "A", Msg: HeartbeatRequest{Seq: 6, MemberID: "A-1", Generation: 2}}, `
		send coordinator->A HeartbeatResponse#6 error=UNKNOWN_MEMBER_ID gen=2
	`)
}

// TestCoordinatorJoinTimerNobodyRejoined: a JoinTimer firing with no
// member rejoined empties the group; the generation still advances.
func TestCoordinatorJoinTimerNobodyRejoined(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	coordForm(h, coordABC()[:2]...)
	h.Expect(100, Receive{From: "A", Msg: LeaveGroupRequest{Seq: 9, MemberID: "A-1"}}, `
		send coordinator->A LeaveGroupResponse#9 error=NONE
		cancel session(A-1)
		set join@30100
	`)
	h.fire(30100, coordJoinTimer, `cancel session(B-2)`)
	h.ExpectState(`group g state=Empty gen=3 type=- protocol=- leader=- join-timer=- next-id=3 next-arrival=4`)
}

// TestCoordinatorSessionTimeout: a member whose session expires is removed
// as if it had left; here it is the leader, so the next generation is led
// by the first member to rejoin.
func TestCoordinatorSessionTimeout(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	coordForm(h, coordABC()...) // sessions at 10000
	h.Expect(5000, Receive{From: "B", Msg: HeartbeatRequest{Seq: 4, MemberID: "B-2", Generation: 2}}, `
		send coordinator->B HeartbeatResponse#4 error=NONE gen=2
		set session(B-2)@15000
	`)
	h.Expect(6000, Receive{From: "C", Msg: HeartbeatRequest{Seq: 4, MemberID: "C-3", Generation: 2}}, `
		send coordinator->C HeartbeatResponse#4 error=NONE gen=2
		set session(C-3)@16000
	`)
	h.fire(10000, coordSessionTimer("A-1"), `
		set join@40000
	`)
	if h.Node.IsMember("A-1") || h.Node.State() != GroupPreparingRebalance || h.Node.Leader() != "" {
		t.Fatalf("after A's session expired:\n%s", h.Node)
	}
	h.Expect(11000, Receive{From: "C", Msg: HeartbeatRequest{Seq: 5, MemberID: "C-3", Generation: 2}}, `
		send coordinator->C HeartbeatResponse#5 error=REBALANCE_IN_PROGRESS gen=2
		set session(C-3)@21000
	`)
	h.Expect(11100, Receive{From: "C", Msg: coordJoin(6, "C", "C-3", "range")}, `
		set session(C-3)@21100
	`)
	h.Expect(11200, Receive{From: "B", Msg: coordJoin(5, "B", "B-2", "range")}, `
		send coordinator->B JoinGroupResponse#5 gen=3 protocol=range leader=C-3 member=B-2
		send coordinator->C JoinGroupResponse#6 gen=3 protocol=range leader=C-3 member=C-3 [B-2 range-md] [C-3 range-md]
		set session(B-2)@21200
		cancel join
		set session(C-3)@21200
	`)
}

// TestCoordinatorLeaveGroup: a leave removes the member at once, in every
// state that has members.
func TestCoordinatorLeaveGroup(t *testing.T) {
	t.Run("stable", func(t *testing.T) {
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h, coordABC()...)
		h.Expect(100, Receive{From: "B", Msg: LeaveGroupRequest{Seq: 4, MemberID: "B-2"}}, `
			send coordinator->B LeaveGroupResponse#4 error=NONE
			cancel session(B-2)
			set join@30100
		`)
		h.Expect(200, Receive{From: "A", Msg: coordJoin(4, "A", "A-1", "range")}, `
			set session(A-1)@10200
		`)
		h.Expect(300, Receive{From: "C", Msg: coordJoin(4, "C", "C-3", "range")}, `
			send coordinator->A JoinGroupResponse#4 gen=3 protocol=range leader=A-1 member=A-1 [A-1 range-md] [C-3 range-md]
			send coordinator->C JoinGroupResponse#4 gen=3 protocol=range leader=A-1 member=C-3
			set session(C-3)@10300
			cancel join
			set session(A-1)@10300
		`)
	})
	t.Run("preparing-completes-barrier", func(t *testing.T) {
		// The only member that has not rejoined leaves: the barrier falls.
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h, coordABC()...)
		h.recv("A", coordJoin(4, "A", "A-1", "range"))
		h.recv("B", coordJoin(4, "B", "B-2", "range"))
		h.Expect(100, Receive{From: "C", Msg: LeaveGroupRequest{Seq: 4, MemberID: "C-3"}}, `
			send coordinator->C LeaveGroupResponse#4 error=NONE
			send coordinator->A JoinGroupResponse#4 gen=3 protocol=range leader=A-1 member=A-1 [A-1 range-md] [B-2 range-md]
			send coordinator->B JoinGroupResponse#4 gen=3 protocol=range leader=A-1 member=B-2
			cancel session(C-3)
			cancel join
			set session(A-1)@10100
			set session(B-2)@10100
		`)
	})
	t.Run("parked-join-answered", func(t *testing.T) {
		// A member leaving with a JoinGroup parked gets it answered
		// UNKNOWN_MEMBER_ID (Kafka's removeCurrentMemberFromClassicGroup).
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h, coordABC()...)
		h.recv("A", coordJoin(4, "A", "A-1", "range"))
		h.Expect(100, Receive{From: "A", Msg: LeaveGroupRequest{Seq: 5, MemberID: "A-1"}}, `
			send coordinator->A LeaveGroupResponse#5 error=NONE
			send coordinator->A JoinGroupResponse#4 error=UNKNOWN_MEMBER_ID
			cancel session(A-1)
		`)
		if h.Node.Leader() != "" {
			t.Fatalf("the leader left but is still leader:\n%s", h.Node)
		}
	})
	t.Run("completing", func(t *testing.T) {
		// A leave while the leader assigns restarts the rebalance; parked
		// SyncGroups are answered REBALANCE_IN_PROGRESS.
		h := newCoordHarness(t, CoordinatorConfig{})
		h.recv("A", coordJoin(1, "A", "", "range"))
		h.recv("B", coordJoin(1, "B", "", "range"))
		h.recv("C", coordJoin(1, "C", "", "range"))
		h.recv("A", coordJoin(2, "A", "A-1", "range"))
		h.recv("B", SyncGroupRequest{Seq: 2, MemberID: "B-2", Generation: 2})
		h.Expect(100, Receive{From: "C", Msg: LeaveGroupRequest{Seq: 2, MemberID: "C-3"}}, `
			send coordinator->C LeaveGroupResponse#2 error=NONE
			send coordinator->B SyncGroupResponse#2 error=REBALANCE_IN_PROGRESS
			cancel session(C-3)
			set session(B-2)@10100
			set join@30100
		`)
	})
	t.Run("last-member", func(t *testing.T) {
		// The last member leaving empties the group through a completed
		// join of no members: the generation still advances.
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h, coordABC()[:1]...)
		h.Expect(100, Receive{From: "A", Msg: LeaveGroupRequest{Seq: 4, MemberID: "A-1"}}, `
			send coordinator->A LeaveGroupResponse#4 error=NONE
			cancel session(A-1)
		`)
		h.ExpectState(`group g state=Empty gen=2 type=- protocol=- leader=- join-timer=- next-id=2 next-arrival=2`)
		// A new member starts generation 3 alone.
		h.Expect(200, Receive{From: "E", Msg: coordJoin(1, "E", "", "rr")}, `
			send coordinator->E JoinGroupResponse#1 gen=3 protocol=rr leader=E-2 member=E-2 [E-2 rr-md]
			set session(E-2)@10200
		`)
	})
	t.Run("static-by-instance", func(t *testing.T) {
		// An empty MemberID with a known instance id removes that
		// instance's member (KIP-345 administrative removal).
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h, coordMemberSpec{node: "A", protos: []string{"range"}}, coordMemberSpec{node: "S", instance: "s", protos: []string{"range"}})
		h.Expect(100, Receive{From: "admin", Msg: LeaveGroupRequest{Seq: 1, InstanceID: "s"}}, `
			send coordinator->admin LeaveGroupResponse#1 error=NONE
			cancel session(S-2)
			set join@30100
		`)
	})
}

// TestCoordinatorStaticReplacement: a static member that restarts (empty
// MemberID, known InstanceID) replaces its old member id without a
// rebalance in a Stable group; the old id is fenced; the new id syncs and
// gets the stored assignment. When it is the leader, its JoinGroup
// response carries the members and SkipAssignment (KIP-814).
func TestCoordinatorStaticReplacement(t *testing.T) {
	specs := []coordMemberSpec{
		{node: "S", instance: "s", protos: []string{"range"}},
		{node: "B", protos: []string{"range"}},
	}
	t.Run("follower", func(t *testing.T) {
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h, specs[1], specs[0]) // B-1 leads, S-2 follows
		h.Expect(1000, Receive{From: "S2", Msg: coordStaticJoin(1, "S", "s", "", "range")}, `
			send coordinator->S2 JoinGroupResponse#1 gen=2 protocol=range leader=B-1 member=S-3
			cancel session(S-2)
			set session(S-3)@11000
		`)
		if h.Node.State() != GroupStable || h.Node.IsMember("S-2") || h.Node.MemberNode("S-3") != "S2" {
			t.Fatalf("after the replacement:\n%s", h.Node)
		}
		// The old member id is fenced, with or without its instance id.
		h.Expect(1100, Receive{From: "S", Msg: HeartbeatRequest{Seq: 4, MemberID: "S-2", InstanceID: "s", Generation: 2}}, `
			send coordinator->S HeartbeatResponse#4 error=FENCED_INSTANCE_ID gen=2
		`)
		h.Expect(1100, Receive{From: "S", Msg: SyncGroupRequest{Seq: 4, MemberID: "S-2", InstanceID: "s", Generation: 2}}, `
			send coordinator->S SyncGroupResponse#4 error=FENCED_INSTANCE_ID
		`)
		h.Expect(1100, Receive{From: "S", Msg: HeartbeatRequest{Seq: 5, MemberID: "S-2", Generation: 2}}, `
			send coordinator->S HeartbeatResponse#5 error=UNKNOWN_MEMBER_ID gen=2
		`)
		h.Expect(1200, Receive{From: "S2", Msg: SyncGroupRequest{Seq: 2, MemberID: "S-3", InstanceID: "s", Generation: 2}}, `
			send coordinator->S2 SyncGroupResponse#2 asg-S-2
			set session(S-3)@11200
		`)
	})
	t.Run("leader", func(t *testing.T) {
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h, specs...) // S-1 leads, B-2 follows
		h.Expect(1000, Receive{From: "S2", Msg: coordStaticJoin(1, "S", "s", "", "range")}, `
			send coordinator->S2 JoinGroupResponse#1 gen=2 protocol=range leader=S-3 member=S-3 skip-assignment [B-2 range-md] [S-3 instance=s range-md]
			cancel session(S-1)
			set session(S-3)@11000
		`)
		if h.Node.Leader() != "S-3" || h.Node.State() != GroupStable {
			t.Fatalf("after the leader's replacement:\n%s", h.Node)
		}
		h.Expect(1200, Receive{From: "S2", Msg: SyncGroupRequest{Seq: 2, MemberID: "S-3", InstanceID: "s", Generation: 2}}, `
			send coordinator->S2 SyncGroupResponse#2 asg-S-1
			set session(S-3)@11200
		`)
	})
	t.Run("changed-metadata", func(t *testing.T) {
		// Kafka compares only the protocol the vote would select: new
		// metadata under the same protocol does not rebalance.
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h, specs...)
		h.Expect(1000, Receive{From: "S2", Msg: coordStaticJoin(1, "S", "s", "", "range=new")}, `
			send coordinator->S2 JoinGroupResponse#1 gen=2 protocol=range leader=S-3 member=S-3 skip-assignment [B-2 range-md] [S-3 instance=s new]
			cancel session(S-1)
			set session(S-3)@11000
		`)
		if h.Node.State() != GroupStable || h.Node.Leader() != "S-3" {
			t.Fatalf("after the replacement:\n%s", h.Node)
		}
	})
	t.Run("changed-vote", func(t *testing.T) {
		// The restarted instance now prefers roundrobin, which turns the
		// vote (2 to 1): the replacement rebalances.
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h,
			coordMemberSpec{node: "S", instance: "s", protos: []string{"range", "roundrobin"}},
			coordMemberSpec{node: "B", protos: []string{"roundrobin", "range"}},
			coordMemberSpec{node: "C", protos: []string{"range", "roundrobin"}})
		if h.Node.Protocol() != "range" {
			t.Fatalf("vote before the restart: %s", h.Node.Protocol())
		}
		h.Expect(1000, Receive{From: "S2", Msg: coordStaticJoin(1, "S", "s", "", "roundrobin", "range")}, `
			cancel session(S-1)
			set session(S-4)@11000
			set join@31000
		`)
		if h.Node.State() != GroupPreparingRebalance || h.Node.Leader() != "S-4" {
			t.Fatalf("after the replacement:\n%s", h.Node)
		}
	})
	t.Run("completing-fences-parked-sync", func(t *testing.T) {
		// In CompletingRebalance the replacement rebalances; the old id's
		// parked SyncGroup is answered FENCED_INSTANCE_ID.
		h := newCoordHarness(t, CoordinatorConfig{})
		h.recv("B", coordJoin(1, "B", "", "range"))
		h.recv("S", coordStaticJoin(1, "S", "s", "", "range"))
		h.recv("B", coordJoin(2, "B", "B-1", "range"))
		h.recv("S", SyncGroupRequest{Seq: 2, MemberID: "S-2", InstanceID: "s", Generation: 2})
		h.Expect(100, Receive{From: "S2", Msg: coordStaticJoin(1, "S", "s", "", "range")}, `
			send coordinator->S SyncGroupResponse#2 error=FENCED_INSTANCE_ID
			cancel session(S-2)
			set session(S-3)@10100
			set join@30100
		`)
	})
	t.Run("preparing-fences-parked-join", func(t *testing.T) {
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h, specs...)
		h.recv("B", coordJoin(4, "B", "B-2", "range=changed"))
		h.recv("S", coordStaticJoin(4, "S", "s", "S-1", "range"))
		if h.Node.State() != GroupCompletingRebalance {
			t.Fatalf("state %s", h.Node.State())
		}
		h.recv("S", coordStaticJoin(5, "S", "s", "S-1", "range=changed"))
		if h.Node.State() != GroupPreparingRebalance {
			t.Fatalf("state %s", h.Node.State())
		}
		// S's join is parked, B has not rejoined yet; S restarts.
		h.Expect(100, Receive{From: "S2", Msg: coordStaticJoin(1, "S", "s", "", "range")}, `
			send coordinator->S JoinGroupResponse#5 error=FENCED_INSTANCE_ID
			cancel session(S-1)
			set session(S-3)@10100
		`)
	})
}

// TestCoordinatorProtocolVote: the selected protocol is the one most
// members prefer among those all support; ties go to the name that sorts
// first (Kafka's selectProtocol).
func TestCoordinatorProtocolVote(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members [][]string
		want    string
	}{
		{"single", [][]string{{"range", "rr"}}, "range"},
		{"majority", [][]string{{"rr", "range"}, {"range", "rr"}, {"range", "rr"}}, "range"},
		{"majority-second", [][]string{{"rr", "range"}, {"rr", "range"}, {"range", "rr"}}, "rr"},
		{"only-common", [][]string{{"sticky", "range"}, {"range", "rr"}, {"rr", "range"}}, "range"},
		{"tie-sorted", [][]string{{"b", "a"}, {"a", "b"}}, "a"},
		{"vote-for-first-candidate", [][]string{{"x", "b", "a"}, {"a", "b"}, {"b", "a"}}, "b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newCoordHarness(t, CoordinatorConfig{})
			var specs []coordMemberSpec
			for i, p := range tc.members {
				specs = append(specs, coordMemberSpec{node: string(rune('A' + i)), protos: p})
			}
			coordForm(h, specs...)
			if got := h.Node.Protocol(); got != tc.want {
				t.Fatalf("protocol %q, want %q\n%s", got, tc.want, h.Node)
			}
		})
	}
}

// TestCoordinatorBadRequests sends one rejected request per row and checks
// the error code, that the output is exactly the one error response (no
// timers), and that the coordinator's state is unchanged, both its dump
// and a deep comparison with a clone taken before.
func TestCoordinatorBadRequests(t *testing.T) {
	empty := func(*coordHarness) {}
	stable := func(h *coordHarness) {
		coordForm(h, coordMemberSpec{node: "A", protos: []string{"range", "rr"}},
			coordMemberSpec{node: "S", instance: "s", protos: []string{"range"}})
	} // A-1 (leader), S-2 (static "s") at generation 2
	preparing := func(h *coordHarness) {
		stable(h)
		h.recv("C", coordJoin(1, "C", "", "range"))
	}
	completing := func(h *coordHarness) {
		h.recv("A", coordJoin(1, "A", "", "range"))
		h.recv("S", coordStaticJoin(1, "S", "s", "", "range"))
		h.recv("A", coordJoin(2, "A", "A-1", "range"))
		h.recv("S", SyncGroupRequest{Seq: 2, MemberID: "S-2", InstanceID: "s", Generation: 2})
	}
	switched := func(h *coordHarness) {
		coordForm(h, coordMemberSpec{node: "A", protos: []string{"range", "rr"}},
			coordMemberSpec{node: "S", instance: "s", protos: []string{"range", "rr"}})
		h.recv("A", coordJoin(5, "A", "A-1", "range")) // A drops rr: a rebalance starts
	}
	withType := func(r JoinGroupRequest, typ string) JoinGroupRequest { r.ProtocolType = typ; return r }
	withSession := func(r JoinGroupRequest, ms Millis) JoinGroupRequest { r.SessionTimeout = ms; return r }

	for _, tc := range []struct {
		name  string
		cfg   CoordinatorConfig
		setup func(*coordHarness)
		msg   Message
		want  spec.ErrorCode
	}{
		// JoinGroup
		{"join/session-too-short", CoordinatorConfig{}, stable, withSession(coordJoin(9, "C", "", "range"), 5999), spec.InvalidSessionTimeout},
		{"join/session-too-long", CoordinatorConfig{}, empty, withSession(coordJoin(9, "C", "", "range"), 1800001), spec.InvalidSessionTimeout},
		{"join/session-custom-bounds", CoordinatorConfig{MinSessionTimeout: 11000, MaxSessionTimeout: 20000}, empty, coordJoin(9, "A", "", "range"), spec.InvalidSessionTimeout},
		{"join/max-size", CoordinatorConfig{MaxSize: 2}, stable, coordJoin(9, "C", "", "range"), spec.GroupMaxSizeReached},
		{"join/max-size-preparing", CoordinatorConfig{MaxSize: 3}, preparing, coordJoin(9, "D", "", "range"), spec.GroupMaxSizeReached},
		{"join/max-size-static-new-instance", CoordinatorConfig{MaxSize: 2}, stable, coordStaticJoin(9, "T", "t", "", "range"), spec.GroupMaxSizeReached},
		{"join/no-common-protocol", CoordinatorConfig{}, stable, coordJoin(9, "C", "", "sticky"), spec.InconsistentGroupProtocol},
		{"join/no-common-protocol-with-others", CoordinatorConfig{}, stable, coordJoin(9, "A", "A-1", "rr"), spec.InconsistentGroupProtocol},
		{"join/other-protocol-type", CoordinatorConfig{}, stable, withType(coordJoin(9, "C", "", "range"), "connect"), spec.InconsistentGroupProtocol},
		{"join/no-protocols", CoordinatorConfig{}, empty, coordJoin(9, "C", ""), spec.InconsistentGroupProtocol},
		{"join/no-protocol-type", CoordinatorConfig{}, empty, withType(coordJoin(9, "C", "", "range"), ""), spec.InconsistentGroupProtocol},
		{"join/protocol-a-member-dropped", CoordinatorConfig{}, switched, coordJoin(9, "C", "", "rr"), spec.InconsistentGroupProtocol},
		{"join/static-replacement-inconsistent", CoordinatorConfig{}, stable, coordStaticJoin(9, "S", "s", "", "sticky"), spec.InconsistentGroupProtocol},
		{"join/unknown-member", CoordinatorConfig{}, stable, coordJoin(9, "C", "C-9", "range"), spec.UnknownMemberID},
		{"join/unknown-member-empty-group", CoordinatorConfig{}, empty, coordJoin(9, "A", "A-1", "range"), spec.UnknownMemberID},
		{"join/unknown-instance", CoordinatorConfig{}, stable, coordStaticJoin(9, "A", "a", "A-1", "range"), spec.UnknownMemberID},
		{"join/fenced-instance", CoordinatorConfig{}, stable, coordStaticJoin(9, "S", "s", "S-1", "range"), spec.FencedInstanceID},
		{"join/fenced-instance-other-member", CoordinatorConfig{}, stable, coordStaticJoin(9, "A", "s", "A-1", "range"), spec.FencedInstanceID},
		{"join/fenced-instance-preparing", CoordinatorConfig{}, preparing, coordStaticJoin(9, "S", "s", "S-7", "range"), spec.FencedInstanceID},
		// SyncGroup
		{"sync/empty-group", CoordinatorConfig{}, empty, SyncGroupRequest{Seq: 9, MemberID: "A-1", Generation: 0}, spec.UnknownMemberID},
		{"sync/unknown-member", CoordinatorConfig{}, stable, SyncGroupRequest{Seq: 9, MemberID: "C-9", Generation: 2}, spec.UnknownMemberID},
		{"sync/unknown-instance", CoordinatorConfig{}, stable, SyncGroupRequest{Seq: 9, MemberID: "A-1", InstanceID: "a", Generation: 2}, spec.UnknownMemberID},
		{"sync/fenced-instance", CoordinatorConfig{}, stable, SyncGroupRequest{Seq: 9, MemberID: "A-1", InstanceID: "s", Generation: 2}, spec.FencedInstanceID},
		{"sync/illegal-generation", CoordinatorConfig{}, stable, SyncGroupRequest{Seq: 9, MemberID: "A-1", Generation: 1}, spec.IllegalGeneration},
		{"sync/illegal-generation-completing", CoordinatorConfig{}, completing, SyncGroupRequest{Seq: 9, MemberID: "A-1", Generation: 3}, spec.IllegalGeneration},
		{"sync/rebalance-in-progress", CoordinatorConfig{}, preparing, SyncGroupRequest{Seq: 9, MemberID: "A-1", Generation: 2}, spec.RebalanceInProgress},
		// Heartbeat
		{"heartbeat/empty-group", CoordinatorConfig{}, empty, HeartbeatRequest{Seq: 9, MemberID: "A-1", Generation: 0}, spec.UnknownMemberID},
		{"heartbeat/unknown-member", CoordinatorConfig{}, preparing, HeartbeatRequest{Seq: 9, MemberID: "C-9", Generation: 2}, spec.UnknownMemberID},
		{"heartbeat/fenced-instance", CoordinatorConfig{}, completing, HeartbeatRequest{Seq: 9, MemberID: "S-1", InstanceID: "s", Generation: 2}, spec.FencedInstanceID},
		{"heartbeat/illegal-generation", CoordinatorConfig{}, stable, HeartbeatRequest{Seq: 9, MemberID: "S-2", InstanceID: "s", Generation: 3}, spec.IllegalGeneration},
		{"heartbeat/illegal-generation-preparing", CoordinatorConfig{}, preparing, HeartbeatRequest{Seq: 9, MemberID: "A-1", Generation: 1}, spec.IllegalGeneration},
		// LeaveGroup
		{"leave/empty-group", CoordinatorConfig{}, empty, LeaveGroupRequest{Seq: 9, MemberID: "A-1"}, spec.UnknownMemberID},
		{"leave/unknown-member", CoordinatorConfig{}, stable, LeaveGroupRequest{Seq: 9, MemberID: "C-9"}, spec.UnknownMemberID},
		{"leave/no-ids", CoordinatorConfig{}, stable, LeaveGroupRequest{Seq: 9}, spec.UnknownMemberID},
		{"leave/unknown-instance", CoordinatorConfig{}, stable, LeaveGroupRequest{Seq: 9, InstanceID: "x"}, spec.UnknownMemberID},
		{"leave/fenced-instance", CoordinatorConfig{}, preparing, LeaveGroupRequest{Seq: 9, MemberID: "A-1", InstanceID: "s"}, spec.FencedInstanceID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newCoordHarness(t, tc.cfg)
			tc.setup(h)
			h.Now = 5000
			before, dump := h.Node.Clone(), h.Node.String()
			out := h.Node.Step(node.Input{Now: h.Now, Event: Receive{From: "X", Msg: tc.msg}})
			if len(out.Messages) != 1 || len(out.Timers) != 0 || len(out.Callbacks) != 0 || out.Round != nil {
				t.Fatalf("want exactly one response, got:\n%s", out)
			}
			env := out.Messages[0]
			if env.From != CoordinatorNode || env.To != "X" {
				t.Fatalf("response %s is not from the coordinator to X", env)
			}
			var code spec.ErrorCode
			var seq uint64
			switch r := env.Msg.(type) {
			case JoinGroupResponse:
				code, seq = r.Error, r.Seq
			case SyncGroupResponse:
				code, seq = r.Error, r.Seq
			case HeartbeatResponse:
				code, seq = r.Error, r.Seq
			case LeaveGroupResponse:
				code, seq = r.Error, r.Seq
			default:
				t.Fatalf("unexpected response %s", env)
			}
			if code != tc.want || seq != 9 {
				t.Fatalf("got %s (seq %d), want %s (seq 9)", env.Msg, seq, tc.want)
			}
			if got := h.Node.String(); got != dump {
				t.Fatalf("state changed:\nbefore:\n%s\nafter:\n%s", dump, got)
			}
			if !coordSameState(before, h.Node) {
				t.Fatalf("state changed (deep comparison with the clone):\n%s", h.Node)
			}
		})
	}
}

// TestCoordinatorStaleTimers: a TimerFired for a timer that was cancelled,
// re-armed to a later deadline, fired already, or never armed changes
// nothing and outputs nothing.
func TestCoordinatorStaleTimers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(*coordHarness)
		at    Millis
		timer Timer
	}{
		{"session-rearmed", func(h *coordHarness) {
			h.Now = 4000
			h.recv("A", HeartbeatRequest{Seq: 9, MemberID: "A-1", Generation: 2})
		}, 10000, coordSessionTimer("A-1")},
		{"session-before-deadline", func(*coordHarness) {}, 9999, coordSessionTimer("A-1")},
		{"session-of-departed-member", func(h *coordHarness) {
			h.recv("B", LeaveGroupRequest{Seq: 9, MemberID: "B-2"})
			h.recv("A", coordJoin(9, "A", "A-1", "range"))
		}, 10000, coordSessionTimer("B-2")},
		{"session-of-unknown-member", func(*coordHarness) {}, 50000, coordSessionTimer("Z-1")},
		{"join-after-completion", func(h *coordHarness) {
			h.recv("C", coordJoin(1, "C", "", "range"))
			h.recv("A", coordJoin(9, "A", "A-1", "range"))
			h.recv("B", coordJoin(9, "B", "B-2", "range"))
		}, 30000, coordJoinTimer},
		{"join-before-deadline", func(h *coordHarness) {
			h.recv("C", coordJoin(1, "C", "", "range"))
		}, 29999, coordJoinTimer},
		{"join-in-stable", func(*coordHarness) {}, 90000, coordJoinTimer},
		{"member-timer-kind", func(*coordHarness) {}, 90000, Timer{Kind: HeartbeatTimer, Member: "A-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newCoordHarness(t, CoordinatorConfig{})
			coordForm(h, coordABC()[:2]...)
			tc.setup(h)
			before, dump := h.Node.Clone(), h.Node.String()
			h.fire(tc.at, tc.timer, ``)
			if got := h.Node.String(); got != dump {
				t.Fatalf("state changed:\nbefore:\n%s\nafter:\n%s", dump, got)
			}
			if !coordSameState(before, h.Node) {
				t.Fatalf("state changed (deep comparison):\n%s", h.Node)
			}
		})
	}
	// A timer fires once: the same firing delivered twice acts once.
	h := newCoordHarness(t, CoordinatorConfig{})
	coordForm(h, coordABC()[:2]...)
	h.fire(10000, coordSessionTimer("A-1"), `set join@40000`)
	h.fire(10000, coordSessionTimer("A-1"), ``)
}

// TestCoordinatorSkipGenerationCheck: with the fault on, SyncGroup and
// Heartbeat from another generation are accepted.
func TestCoordinatorSkipGenerationCheck(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{Faults: SkipGenerationCheck})
	coordForm(h, coordABC()[:2]...)
	h.Expect(100, Receive{From: "B", Msg: HeartbeatRequest{Seq: 9, MemberID: "B-2", Generation: 1}}, `
		send coordinator->B HeartbeatResponse#9 error=NONE gen=1
		set session(B-2)@10100
	`)
	h.Expect(200, Receive{From: "B", Msg: SyncGroupRequest{Seq: 10, MemberID: "B-2", Generation: 1}}, `
		send coordinator->B SyncGroupResponse#10 asg-B-2
		set session(B-2)@10200
	`)
}

// TestCoordinatorInconsistentProtocol: a member may join with protocols
// that overlap every other member's; one that shares none is rejected, and
// the group then runs on what everyone supports.
func TestCoordinatorInconsistentProtocol(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	coordForm(h, coordMemberSpec{node: "A", protos: []string{"rr", "range"}}, coordMemberSpec{node: "B", protos: []string{"rr", "range"}})
	if h.Node.Protocol() != "rr" {
		t.Fatalf("protocol %s", h.Node.Protocol())
	}
	h.Expect(100, Receive{From: "C", Msg: coordJoin(1, "C", "", "sticky")}, `
		send coordinator->C JoinGroupResponse#1 error=INCONSISTENT_GROUP_PROTOCOL
	`)
	h.Expect(200, Receive{From: "C", Msg: coordJoin(2, "C", "", "sticky", "range")}, `
		set session(C-3)@10200
		set join@30200
	`)
	h.recv("A", coordJoin(4, "A", "A-1", "rr", "range"))
	h.recv("B", coordJoin(4, "B", "B-2", "rr", "range"))
	if h.Node.Protocol() != "range" || h.Node.Generation() != 3 {
		t.Fatalf("after the rebalance:\n%s", h.Node)
	}
	// Now rr is no longer supported by everyone: a member offering only rr
	// is inconsistent, even one already in the group.
	h.Expect(300, Receive{From: "A", Msg: coordJoin(5, "A", "A-1", "rr")}, `
		send coordinator->A JoinGroupResponse#5 error=INCONSISTENT_GROUP_PROTOCOL
	`)
}

// TestCoordinatorMemberIDs: ids are <ClientID>-<n> with one counter per
// coordinator, and a rejected join consumes no number.
func TestCoordinatorMemberIDs(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{MaxSize: 2})
	h.recv("p1", coordJoin(1, "app", "", "range"))
	h.recv("p2", coordJoin(1, "app", "", "range"))
	h.recv("p3", coordJoin(1, "app", "", "range")) // rejected: full
	h.recv("p1", LeaveGroupRequest{Seq: 2, MemberID: "app-1"})
	h.recv("p3", coordJoin(2, "app", "", "range"))
	if got, want := h.Node.Members(), []spec.MemberID{"app-2", "app-3"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("members %v, want %v", got, want)
	}
	if h.Node.MemberNode("app-3") != "p3" || h.Node.MemberNode("app-1") != "" {
		t.Fatalf("nodes:\n%s", h.Node)
	}
}

// TestCoordinatorClone: a clone shares nothing mutable with the original.
func TestCoordinatorClone(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	coordForm(h, coordABC()...)
	orig := h.Node.Clone()
	dump := orig.String()
	h.recv("D", coordJoin(1, "D", "", "range"))
	h.recv("A", coordJoin(4, "A", "A-1", "range=changed"))
	if orig.String() != dump {
		t.Fatalf("stepping the original changed its clone:\n%s", orig)
	}
	c2 := orig.Clone()
	c2.members.Get("A-1").protocols[0].Metadata = "mutated"
	if orig.String() != dump {
		t.Fatal("a clone of a clone shares protocol slices")
	}
}

// TestCoordinatorRequestsNotAliased: the coordinator copies the request's
// protocol list; later writes by the caller do not reach it.
func TestCoordinatorRequestsNotAliased(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	req := coordJoin(1, "A", "", "range")
	h.recv("A", req)
	dump := h.Node.String()
	req.Protocols[0].Metadata = "mutated"
	if h.Node.String() != dump {
		t.Fatal("the coordinator aliases the request's protocols")
	}
}

// TestNewCoordinatorConfig checks defaults and the rejection of nonsensical
// configurations.
func TestNewCoordinatorConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  CoordinatorConfig
		ok   bool
	}{
		{"defaults", CoordinatorConfig{GroupID: "g"}, true},
		{"custom", CoordinatorConfig{GroupID: "g", MinSessionTimeout: 10, MaxSessionTimeout: 10, MaxSize: 1}, true},
		{"min-only-below-default-max", CoordinatorConfig{GroupID: "g", MinSessionTimeout: 7000}, true},
		{"no-group-id", CoordinatorConfig{}, false},
		{"min-above-max", CoordinatorConfig{GroupID: "g", MinSessionTimeout: 2000, MaxSessionTimeout: 1000}, false},
		{"min-above-default-max", CoordinatorConfig{GroupID: "g", MinSessionTimeout: 2000000}, false},
		{"negative-min", CoordinatorConfig{GroupID: "g", MinSessionTimeout: -1}, false},
		{"negative-max", CoordinatorConfig{GroupID: "g", MaxSessionTimeout: -1}, false},
		{"negative-size", CoordinatorConfig{GroupID: "g", MaxSize: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCoordinator(tc.cfg)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok=%t", err, tc.ok)
			}
			if err != nil {
				return
			}
			if c.State() != GroupEmpty || c.Generation() != 0 || c.Leader() != "" || c.Protocol() != "" || len(c.Members()) != 0 {
				t.Fatalf("new coordinator:\n%s", c)
			}
			if err := c.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
		})
	}
	c, _ := NewCoordinator(CoordinatorConfig{GroupID: "g"})
	if c.cfg.MinSessionTimeout != DefaultMinSessionTimeout || c.cfg.MaxSessionTimeout != DefaultMaxSessionTimeout {
		t.Fatalf("defaults not applied: %+v", c.cfg)
	}
}

// TestCoordinatorGroupStateTransitions: String names every state, and
// transitionTo panics on a transition Kafka does not allow.
func TestCoordinatorGroupStateTransitions(t *testing.T) {
	names := map[GroupState]string{GroupEmpty: "Empty", GroupPreparingRebalance: "PreparingRebalance", GroupCompletingRebalance: "CompletingRebalance", GroupStable: "Stable", 9: "GroupState(9)"}
	for s, want := range names {
		if s.String() != want {
			t.Errorf("%d.String() = %q, want %q", s, s.String(), want)
		}
	}
	for _, from := range []GroupState{GroupEmpty, GroupPreparingRebalance, GroupCompletingRebalance, GroupStable} {
		for _, to := range []GroupState{GroupEmpty, GroupPreparingRebalance, GroupCompletingRebalance, GroupStable} {
			c := &Coordinator{state: from}
			allowed := groupStates.Allows(from, to)
			func() {
				defer func() {
					if r := recover(); (r != nil) == allowed {
						t.Errorf("%s -> %s: panic %v, allowed %t", from, to, r, allowed)
					}
				}()
				c.transitionTo(to)
			}()
		}
	}
}

// TestCoordinatorMisuse: events that are not for a coordinator panic.
func TestCoordinatorMisuse(t *testing.T) {
	for _, ev := range []node.Event{node.Start{}, Receive{From: "A", Msg: HeartbeatResponse{}}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", ev)
				}
			}()
			c, _ := NewCoordinator(CoordinatorConfig{GroupID: "g"})
			c.Step(node.Input{Event: ev})
		}()
	}
}

// TestCoordinatorJoinTimerDeadline: the JoinTimer is armed at now plus the
// largest rebalance timeout of the members (Kafka's
// ClassicGroup.rebalanceTimeoutMs); a RebalanceTimeout of 0 means the
// session timeout (JoinGroup v0).
func TestCoordinatorJoinTimerDeadline(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	coordForm(h, coordABC()[:2]...)
	slow := coordJoin(1, "C", "", "range")
	slow.RebalanceTimeout = 45000
	h.Expect(1000, Receive{From: "C", Msg: slow}, `
		set session(C-3)@11000
		set join@46000
	`)
	h2 := newCoordHarness(t, CoordinatorConfig{})
	v0 := coordJoin(1, "A", "", "range")
	v0.RebalanceTimeout = 0
	h2.recv("A", v0)
	v0.ClientID = "B"
	h2.Expect(100, Receive{From: "B", Msg: v0}, `
		set session(B-2)@10100
		set join@10100
	`)
}

// TestCoordinatorParkedSyncKeepsSession: a member whose SyncGroup is parked
// is waiting on the leader, so its session expiring does not remove it;
// its session restarts when the leader's SyncGroup answers it (Kafka's
// hasSatisfiedHeartbeat and propagateAssignment).
func TestCoordinatorParkedSyncKeepsSession(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	h.recv("A", coordJoin(1, "A", "", "range"))
	h.recv("B", coordJoin(1, "B", "", "range"))
	h.recv("A", coordJoin(2, "A", "A-1", "range"))
	h.Expect(0, Receive{From: "B", Msg: SyncGroupRequest{Seq: 2, MemberID: "B-2", Generation: 2}}, ``)
	h.Expect(5000, Receive{From: "A", Msg: HeartbeatRequest{Seq: 3, MemberID: "A-1", Generation: 2}}, `
		send coordinator->A HeartbeatResponse#3 error=NONE gen=2
		set session(A-1)@15000
	`)
	h.fire(10000, coordSessionTimer("B-2"), ``)
	h.ExpectState(`
		group g state=CompletingRebalance gen=2 type=consumer protocol=range leader=A-1 join-timer=- next-id=3 next-arrival=4
		member A-1 node=A client=A session=10000 rebalance=30000 session-timer=@15000 protocols=[range="range-md"]
		member B-2 node=B client=B session=10000 rebalance=30000 session-timer=- protocols=[range="range-md"]
		  awaiting-sync #2 from B
	`)
	asg := []MemberAssignment{{MemberID: "A-1", Assignment: "a"}, {MemberID: "B-2", Assignment: "b"}}
	h.Expect(11000, Receive{From: "A", Msg: SyncGroupRequest{Seq: 4, MemberID: "A-1", Generation: 2, Assignments: asg}}, `
		send coordinator->A SyncGroupResponse#4 a
		send coordinator->B SyncGroupResponse#2 b
		set session(A-1)@21000
		set session(B-2)@21000
	`)
}

// TestCoordinatorSessionTimeoutBounds: a session timeout equal to either
// bound is accepted (Kafka rejects only below group.min.session.timeout.ms
// or above group.max.session.timeout.ms); one past either bound is not.
func TestCoordinatorSessionTimeoutBounds(t *testing.T) {
	for _, tc := range []struct {
		session Millis
		invalid bool
	}{
		{5999, true}, {6000, false}, {1800000, false}, {1800001, true},
	} {
		h := newCoordHarness(t, CoordinatorConfig{})
		req := coordJoin(1, "A", "", "range")
		req.SessionTimeout = tc.session
		out := h.Node.Step(node.Input{Now: 1000, Event: Receive{From: "A", Msg: req}})
		invalid := false
		for _, env := range out.Messages {
			if r, ok := env.Msg.(JoinGroupResponse); ok && r.Error == spec.InvalidSessionTimeout {
				invalid = true
			}
		}
		if invalid != tc.invalid {
			t.Errorf("session timeout %d: rejected %v, want %v\n%s", tc.session, invalid, tc.invalid, out)
		}
	}
}

// TestCoordinatorIssuedIDs: every member id the coordinator hands out
// counts once, and a member that joins again after leaving counts again
// under its new id, so IssuedIDs exceeds the members exactly when one has
// departed (the closed world's truth for the Timely law's delay clause).
func TestCoordinatorIssuedIDs(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	if got := h.Node.IssuedIDs(); got != 0 {
		t.Fatalf("a new coordinator has issued %d ids, want 0", got)
	}
	ids := coordForm(h, coordABC()...)
	if got := h.Node.IssuedIDs(); got != len(ids) {
		t.Fatalf("after %d joins: %d ids issued, want %d", len(ids), got, len(ids))
	}
	h.recv("B", LeaveGroupRequest{Seq: 4, MemberID: coordIDOf(h, "B")})
	h.recv("B", coordJoin(5, "B", "", "range"))
	if got, members := h.Node.IssuedIDs(), len(h.Node.Members()); got != 4 || members != 3 {
		t.Fatalf("after B left and joined again: %d ids issued for %d members, want 4 for 3", got, members)
	}
}

// TestCoordinatorInvariantFastPaths checks CheckInvariants' counts
// without allocation (supportedCounted, hasCandidate) against their
// references (countSupported, candidates) on groups of members with
// overlapping, repeated and disjoint protocols, with the protocol counts
// as the coordinator keeps them and broken in every way a count can be.
func TestCoordinatorInvariantFastPaths(t *testing.T) {
	groups := map[string][]coordMemberSpec{
		"one":      {{node: "A", protos: []string{"range"}}},
		"same":     coordABC(),
		"overlap":  {{node: "A", protos: []string{"range", "rr"}}, {node: "B", protos: []string{"rr", "sticky"}}, {node: "C", protos: []string{"sticky", "rr", "range"}}},
		"repeated": {{node: "A", protos: []string{"rr", "rr=other"}}, {node: "B", protos: []string{"rr"}}},
	}
	for name, specs := range groups {
		t.Run(name, func(t *testing.T) {
			h := newCoordHarness(t, CoordinatorConfig{})
			coordForm(h, specs...)
			c := h.Node
			check := func(what string) {
				t.Helper()
				want := maps.Equal(c.supported, countSupported(c.members))
				if got := c.supportedCounted(); got != want {
					t.Fatalf("%s: supportedCounted()=%t, the reference says %t for %v", what, got, want, c.supported)
				}
				if want {
					if got, want := c.hasCandidate(), len(c.candidates()) > 0; got != want {
						t.Fatalf("%s: hasCandidate()=%t, candidates %v", what, got, c.candidates())
					}
				}
				if err := c.CheckInvariants(); (err == nil) != want {
					t.Fatalf("%s: CheckInvariants()=%v with supported=%v", what, err, c.supported)
				}
			}
			check("as kept")
			kept := maps.Clone(c.supported)
			for n := range kept {
				for _, d := range []int{-kept[n], -1, 1} {
					c.supported = maps.Clone(kept)
					c.supported[n] += d
					check(fmt.Sprintf("%s%+d", n, d))
				}
				c.supported = maps.Clone(kept)
				delete(c.supported, n)
				check("without " + n)
			}
			for _, v := range []int{0, 1, 3} {
				c.supported = maps.Clone(kept)
				c.supported["unadvertised"] = v
				check(fmt.Sprintf("unadvertised=%d", v))
			}
			c.supported = kept
			// No protocol every member supports: the reference and the fast
			// path agree that there is no candidate.
			c.members.Get(coordIDOf(h, specs[0].node)).protocols = coordProtos("alone")
			c.supported = countSupported(c.members)
			if len(specs) > 1 && (c.hasCandidate() || len(c.candidates()) > 0) {
				t.Fatalf("a candidate among %v", c.supported)
			}
			if len(specs) == 1 && (!c.hasCandidate() || len(c.candidates()) != 1) {
				t.Fatalf("no single candidate among %v", c.supported)
			}
		})
	}
}

// TestAppendSortedIDs checks the member ids a step sorts into its buffer
// (appendSortedIDs, spec.AppendSortedKeys) against slices.Sorted of the keys,
// appended after what the buffer holds, for groups within and beyond the
// buffer's size.
func TestAppendSortedIDs(t *testing.T) {
	for _, n := range []int{0, 1, 3, len(idBuffer{}), len(idBuffer{}) + 3} {
		h := newCoordHarness(t, CoordinatorConfig{})
		as := map[spec.MemberID]Assignment{}
		for i := range n {
			node := fmt.Sprintf("P%02d", (i*7)%n)
			h.recv(node, coordJoin(1, node, "", "range"))
			as[spec.MemberID(node)] = Assignment{}
		}
		prefix := []spec.MemberID{"zz", "aa"}
		want := append(slices.Clone(prefix), h.Node.members.AppendKeys(nil)...)
		if got := h.Node.appendSortedIDs(slices.Clone(prefix)); !slices.Equal(got, want) {
			t.Errorf("%d members: appendSortedIDs = %v, want %v", n, got, want)
		}
		want = append(slices.Clone(prefix), slices.Sorted(maps.Keys(as))...)
		if got := spec.AppendSortedKeys(slices.Clone(prefix), as); !slices.Equal(got, want) {
			t.Errorf("%d members: AppendSortedKeys = %v, want %v", n, got, want)
		}
	}
}

// TestCoordinatorHeartbeatMovesNode: an accepted heartbeat records the
// node it came from as its member's (the node of the last accepted
// request), in the fork it is taken in and not in the coordinator forked
// from; one from the member's own node changes no record.
func TestCoordinatorHeartbeatMovesNode(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	coordForm(h, coordABC()...)
	h.Now = 100
	before := h.Node
	h.recv("A", HeartbeatRequest{Seq: 9, MemberID: "A-1", Generation: 2})
	if h.Node.MemberNode("A-1") != "A" || h.Node.members.Get("A-1") != before.members.Get("A-1") {
		t.Fatalf("a heartbeat from the member's own node wrote its record:\n%s", h.Node)
	}
	h.recv("X", HeartbeatRequest{Seq: 10, MemberID: "A-1", Generation: 2})
	if got := h.Node.MemberNode("A-1"); got != "X" {
		t.Fatalf("after a heartbeat from X, member A-1 is on node %q, want X:\n%s", got, h.Node)
	}
	if !h.Node.IsMemberAt("A-1", "X") || h.Node.IsMemberAt("A-1", "A") || h.Node.IsMemberAt("Z-1", "") {
		t.Fatalf("IsMemberAt(A-1, X)=%t (A-1, A)=%t (Z-1, \"\")=%t, want true, false, false:\n%s",
			h.Node.IsMemberAt("A-1", "X"), h.Node.IsMemberAt("A-1", "A"), h.Node.IsMemberAt("Z-1", ""), h.Node)
	}
	if before.MemberNode("A-1") != "A" {
		t.Fatal("the heartbeat from X moved the member in the coordinator forked from")
	}
}
