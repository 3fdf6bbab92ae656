package nextgen

import (
	"cmp"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/nextgen/reconcile"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/node/nodetest"
	"github.com/rebalance-ref/rebalance/spec"
)

// The tests drive a Coordinator with Inputs and compare each Step's Output,
// printed with Output.String, with the expected text. The harness
// (nodetest.Harness) checks the coordinator's invariants after every step,
// and steps a Fork of it beside a Clone, so every coordinator test checks
// Fork's sharing.

const testRebalance = 30000

type harness struct {
	*nodetest.Harness[*Coordinator, Output]
}

func newHarness(t *testing.T, cfg CoordinatorConfig) *harness {
	cfg.GroupID = cmp.Or(cfg.GroupID, "g")
	return &harness{nodetest.NewHarness[*Coordinator, Output](t, nodetest.Must(NewCoordinator(cfg)), norm)}
}

// sameState reports whether a and b are deeply equal but for what they
// share with the coordinators they were forked from.
func sameState(a, b *Coordinator) bool {
	x, y := *a, *b
	x.shared, y.shared = 0, 0
	return reflect.DeepEqual(&x, &y)
}

// step runs ev at time at and returns the output.
func (h *harness) step(at Millis, ev node.Event) Output {
	h.T.Helper()
	h.Now = at
	return h.Step(ev)
}

// hb delivers r from node from (the member id, unless r has none) at at.
func (h *harness) hb(at Millis, r HeartbeatRequest, want string) {
	h.T.Helper()
	h.Expect(at, Receive{From: nodeOf(r), Msg: r}, want)
}

func (h *harness) fire(at Millis, t Timer, want string) {
	h.T.Helper()
	h.Expect(at, TimerFired{Timer: t}, want)
}

// expectGroup checks the group epoch, target epoch and state.
func (h *harness) expectGroup(epoch, targetEpoch spec.Epoch, state GroupState) {
	h.T.Helper()
	if h.Node.GroupEpoch() != epoch || h.Node.TargetEpoch() != targetEpoch || h.Node.State() != state {
		h.T.Fatalf("group epoch=%d target=%d state=%s, want %d %d %s\n%s",
			h.Node.GroupEpoch(), h.Node.TargetEpoch(), h.Node.State(), epoch, targetEpoch, state, h.Node)
	}
}

// expectMember checks a member's epoch, state, assigned and pending sets.
func (h *harness) expectMember(id spec.MemberID, epoch spec.Epoch, state reconcile.State, assigned, pending string) {
	h.T.Helper()
	m, ok := h.Node.Member(id)
	if !ok {
		h.T.Fatalf("no member %s\n%s", id, h.Node)
	}
	if m.Epoch != epoch || m.State != state || m.Assigned.String() != assigned || m.PendingRevocation.String() != pending {
		h.T.Fatalf("member %s: epoch=%d %s assigned=%s pending=%s, want epoch=%d %s assigned=%s pending=%s\n%s",
			id, m.Epoch, m.State, m.Assigned, m.PendingRevocation, epoch, state, assigned, pending, h.Node)
	}
}

// mustMember returns the snapshot of member id.
func (h *harness) mustMember(id spec.MemberID) CoordinatorMemberSnapshot {
	h.T.Helper()
	m, ok := h.Node.Member(id)
	if !ok {
		h.T.Fatalf("no member %s\n%s", id, h.Node)
	}
	return m
}

func nodeOf(r HeartbeatRequest) string {
	if r.MemberID == "" {
		return "client"
	}
	return string(r.MemberID)
}

// norm trims every line and drops empty ones.
func norm(s string) string { return nodetest.Trim(s, nil) }

func set(s string) spec.Set {
	out, err := spec.ParseSet(s)
	if err != nil {
		panic(err)
	}
	return out
}

func ptr(s string) *string { return &s }

// join is the first heartbeat of a dynamic member: epoch 0, every field
// sent, owning nothing.
func join(id string, topics ...string) HeartbeatRequest {
	return HeartbeatRequest{
		GroupID: "g", MemberID: spec.MemberID(id), MemberEpoch: 0,
		RebalanceTimeoutMs:   testRebalance,
		SubscribedTopicNames: topics, SubscriptionSent: true,
		OwnedSent: true,
	}
}

// staticJoin is join for a static member.
func staticJoin(id, instance string, topics ...string) HeartbeatRequest {
	r := join(id, topics...)
	r.InstanceID = ptr(instance)
	return r
}

// hbOwned is a regular heartbeat that reports owned (a set like "{foo-0}")
// and sends nothing else.
func hbOwned(id string, epoch spec.Epoch, owned string) HeartbeatRequest {
	return HeartbeatRequest{
		GroupID: "g", MemberID: spec.MemberID(id), MemberEpoch: epoch,
		RebalanceTimeoutMs: -1, TopicPartitions: set(owned), OwnedSent: true,
	}
}

// hbNull is a regular heartbeat that sends no optional field.
func hbNull(id string, epoch spec.Epoch) HeartbeatRequest {
	return HeartbeatRequest{GroupID: "g", MemberID: spec.MemberID(id), MemberEpoch: epoch, RebalanceTimeoutMs: -1}
}

// withInstance returns r with the static instance id set.
func withInstance(r HeartbeatRequest, instance string) HeartbeatRequest {
	r.InstanceID = ptr(instance)
	return r
}

func leave(id string, epoch spec.Epoch) HeartbeatRequest {
	return HeartbeatRequest{GroupID: "g", MemberID: spec.MemberID(id), MemberEpoch: epoch, RebalanceTimeoutMs: -1}
}

func sessionT(id string) Timer { return sessionTimer(spec.MemberID(id)) }

func rebalanceT(id string, e spec.Epoch) Timer { return rebalanceTimer(spec.MemberID(id), e) }

// TestSeedWalkthrough is the seed scenario at the coordinator level: A owns
// foo-0..2 at epoch 1; B joins (group epoch 2); A must first revoke foo-2,
// and B gets it only once A has released it.
func TestSeedWalkthrough(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 3}})
	h.expectGroup(0, 0, GroupEmpty)
	if h.Node.Exists() {
		t.Fatal("the group exists before anyone joined")
	}

	h.hb(0, join("A", "foo"), `
		send coordinator->A HeartbeatResponse member=A epoch=1 assignment={foo-0 foo-1 foo-2}
		set session(A)@45000`)
	h.expectGroup(1, 1, GroupStable)
	h.expectMember("A", 1, reconcile.Stable, "{foo-0 foo-1 foo-2}", "{}")

	// B joins: the group epoch moves to 2 and the target to A:{foo-0 foo-1}
	// B:{foo-2}. foo-2 is still A's, so B moves to epoch 2 with nothing.
	h.hb(100, join("B", "foo"), `
		send coordinator->B HeartbeatResponse member=B epoch=2 assignment={}
		set session(B)@45100`)
	h.expectGroup(2, 2, GroupReconciling)
	h.expectMember("B", 2, reconcile.UnreleasedPartitions, "{}", "{}")

	// A's next heartbeat: it must revoke foo-2 and stays at epoch 1.
	h.hb(200, hbOwned("A", 1, "{foo-0 foo-1 foo-2}"), `
		send coordinator->A HeartbeatResponse member=A epoch=1 assignment={foo-0 foo-1}
		set rebalance(A@1)@30200
		set session(A)@45200`)
	h.expectMember("A", 1, reconcile.UnrevokedPartitions, "{foo-0 foo-1}", "{foo-2}")

	// B: still nothing, as foo-2 is unreleased; nothing changed, so no
	// assignment in the response.
	h.hb(300, hbOwned("B", 2, "{}"), `
		send coordinator->B HeartbeatResponse member=B epoch=2 assignment=null
		set session(B)@45300`)

	// A reports that it no longer owns foo-2: it moves to epoch 2.
	h.hb(400, hbOwned("A", 1, "{foo-0 foo-1}"), `
		send coordinator->A HeartbeatResponse member=A epoch=2 assignment=null
		cancel rebalance(A@1)
		set session(A)@45400`)
	h.expectMember("A", 2, reconcile.Stable, "{foo-0 foo-1}", "{}")

	// B receives foo-2.
	h.hb(500, hbOwned("B", 2, "{}"), `
		send coordinator->B HeartbeatResponse member=B epoch=2 assignment={foo-2}
		set session(B)@45500`)
	h.expectGroup(2, 2, GroupStable)
	h.ExpectState(`
		group g exists=true epoch=2 target-epoch=2 state=STABLE metadata-expired=false
		metadata=[foo:3] subscribed=[foo:3] target-metadata=[foo:3]
		member A node=A instance=- epoch=2 previous=1 state=STABLE assigned={foo-0 foo-1} pending-revocation={} assigned-at=[foo-0@1 foo-1@1] target={foo-0 foo-1} subscription=[foo] assignor=- rack=- rebalance-timeout=30000 session-timer=@45400 rebalance-timer=-
		member B node=B instance=- epoch=2 previous=2 state=STABLE assigned={foo-2} pending-revocation={} assigned-at=[foo-2@2] target={foo-2} subscription=[foo] assignor=- rack=- rebalance-timeout=30000 session-timer=@45500 rebalance-timer=-
		owners foo-0=A@2 foo-1=A@2 foo-2=B@2`)
	if !h.Node.Exists() || h.Node.MemberNode("A") != "A" || h.Node.MemberNode("X") != "" {
		t.Fatalf("Exists=%t MemberNode(A)=%q MemberNode(X)=%q", h.Node.Exists(), h.Node.MemberNode("A"), h.Node.MemberNode("X"))
	}
	if !h.Node.IsMemberAt("A", "A") || h.Node.IsMemberAt("A", "B") || h.Node.IsMemberAt("X", "") {
		t.Fatalf("IsMemberAt(A, A)=%t (A, B)=%t (X, \"\")=%t, want true, false, false",
			h.Node.IsMemberAt("A", "A"), h.Node.IsMemberAt("A", "B"), h.Node.IsMemberAt("X", ""))
	}
	if got := h.Node.Members(); !reflect.DeepEqual(got, []spec.MemberID{"A", "B"}) {
		t.Fatalf("Members() = %v", got)
	}
}

// TestImpossibleTransitionPanics: the group state changes only through the
// transition table.
func TestImpossibleTransitionPanics(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{})
	defer func() {
		if recover() == nil {
			t.Fatal("EMPTY -> ASSIGNING did not panic")
		}
	}()
	h.Node.transitionTo(GroupAssigning)
}

// twoMembers runs the seed walkthrough to its end: A:{foo-0 foo-1} and
// B:{foo-2}, both STABLE at epoch 2, at time 500.
func twoMembers(t *testing.T, cfg CoordinatorConfig) *harness {
	t.Helper()
	if cfg.Topics == nil {
		cfg.Topics = spec.Topics{"foo": 3}
	}
	h := newHarness(t, cfg)
	h.step(0, Receive{From: "A", Msg: join("A", "foo")})
	h.step(100, Receive{From: "B", Msg: join("B", "foo")})
	h.step(200, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1 foo-2}")})
	h.step(400, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1}")})
	h.step(500, Receive{From: "B", Msg: hbOwned("B", 2, "{}")})
	h.expectGroup(2, 2, GroupStable)
	h.expectMember("A", 2, reconcile.Stable, "{foo-0 foo-1}", "{}")
	h.expectMember("B", 2, reconcile.Stable, "{foo-2}", "{}")
	return h
}

// TestStaticMemberComesBack: a static member that leaves with -2 keeps its
// partitions (held at -2, unavailable to others) and gets them back under a
// new member id without a group epoch bump.
func TestStaticMemberComesBack(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 4}})
	h.step(0, Receive{From: "A", Msg: join("A", "foo")})
	h.hb(100, staticJoin("S1", "i", "foo"), `
		send coordinator->S1 HeartbeatResponse member=S1 epoch=2 assignment={}
		set session(S1)@45100`)
	h.step(200, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1 foo-2 foo-3}")})
	h.step(300, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1}")})
	h.hb(400, withInstance(hbOwned("S1", 2, "{}"), "i"), `
		send coordinator->S1 HeartbeatResponse member=S1 epoch=2 assignment={foo-2 foo-3}
		set session(S1)@45400`)
	h.expectGroup(2, 2, GroupStable)

	// S1 leaves temporarily: epoch -2, no bump, its partitions stay held.
	h.hb(1000, withInstance(leave("S1", spec.StaticLeaveEpoch), "i"), `
		send coordinator->S1 HeartbeatResponse member=S1 epoch=-2 assignment=null`)
	h.expectGroup(2, 2, GroupReconciling)
	h.expectMember("S1", spec.StaticLeaveEpoch, reconcile.Stable, "{foo-2 foo-3}", "{}")
	if h.Node.IsMember("S1") || !h.Node.IsMember("A") {
		t.Fatalf("IsMember(S1)=%t IsMember(A)=%t, want false true", h.Node.IsMember("S1"), h.Node.IsMember("A"))
	}
	if got := h.Node.Owners()["S1"].String(); got != "{foo-2 foo-3}" {
		t.Fatalf("S1 holds %s while parked, want {foo-2 foo-3}", got)
	}
	// A heartbeats meanwhile: nothing moves.
	h.hb(2000, hbOwned("A", 2, "{foo-0 foo-1}"), `
		send coordinator->A HeartbeatResponse member=A epoch=2 assignment=null
		set session(A)@47000`)
	// A heartbeat of the parked member at its old epoch is fenced.
	h.hb(2500, withInstance(hbOwned("S1", 2, "{}"), "i"), `
		send coordinator->S1 HeartbeatResponse error=FENCED_MEMBER_EPOCH The consumer group member has a greater member epoch (2) than the one known by the group coordinator (-2). The member must abandon all its partitions and rejoin.`)

	// The instance comes back under a new member id with the same
	// subscription: it replaces S1, inherits its assignment and target, and
	// the group epoch does not move.
	h.hb(3000, staticJoin("S2", "i", "foo"), `
		send coordinator->S2 HeartbeatResponse member=S2 epoch=2 assignment={foo-2 foo-3}
		cancel session(S1)
		set session(S2)@48000`)
	h.expectGroup(2, 2, GroupStable)
	if h.Node.IsMember("S1") {
		t.Fatal("S1 is still a member after its replacement")
	}
	h.expectMember("S2", 2, reconcile.Stable, "{foo-2 foo-3}", "{}")
	if m, _ := h.Node.Member("S2"); m.PreviousEpoch != 0 || m.InstanceID != "i" || m.Target.String() != "{foo-2 foo-3}" {
		t.Fatalf("S2 = %+v, want previous epoch 0, instance i, target {foo-2 foo-3}", m)
	}
}

// TestStaticReplacementUnderAnotherMembersID: a static member that comes
// back under the member id of another member replaces both records, as
// Kafka's records overwrite the other member: that member's partitions are
// released and its session timer cancelled.
func TestStaticReplacementUnderAnotherMembersID(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 4}})
	h.step(0, Receive{From: "A", Msg: join("A", "foo")})
	h.step(100, Receive{From: "S1", Msg: staticJoin("S1", "i", "foo")})
	h.step(200, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1 foo-2 foo-3}")})
	h.step(300, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1}")})
	h.step(400, Receive{From: "S1", Msg: withInstance(hbOwned("S1", 2, "{}"), "i")})
	h.step(1000, Receive{From: "S1", Msg: withInstance(leave("S1", spec.StaticLeaveEpoch), "i")})
	h.hb(3000, staticJoin("A", "i", "foo"), `
		send coordinator->A HeartbeatResponse member=A epoch=2 assignment={foo-2 foo-3}
		cancel session(S1)
		cancel session(A)
		set session(A)@48000`)
	if got := h.Node.Owners().String(); got != "A:{foo-2 foo-3}" {
		t.Fatalf("owners %s, want only S1's partitions, now A's", got)
	}
	if got := h.Node.Members(); len(got) != 1 || got[0] != "A" {
		t.Fatalf("members %v, want [A]", got)
	}
}

// TestStaticMemberChangesInstanceID: a member that joins at epoch 0 under
// an unused instance id keeps its record (validate.Join: ExistingMember)
// and takes the new instance id; its old one is released, so another
// member can join under it.
func TestStaticMemberChangesInstanceID(t *testing.T) {
	h := baseGroup(t, CoordinatorConfig{})
	h.hb(1000, staticJoin("S", "j", "foo"), `
		send coordinator->S HeartbeatResponse member=S epoch=3 assignment={foo-2 foo-3 foo-5}
		set session(S)@46000`)
	if m := h.mustMember("S"); m.InstanceID != "j" {
		t.Fatalf("S has instance %q, want j", m.InstanceID)
	}
	h.hb(1100, staticJoin("T", "i", "foo"), `
		send coordinator->T HeartbeatResponse member=T epoch=4 assignment={}
		set session(T)@46100`)
}

// TestStaticReplacementWithNewSubscription: a static member that comes
// back with a different subscription bumps the group epoch.
func TestStaticReplacementWithNewSubscription(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 2, "bar": 2}})
	h.step(0, Receive{From: "S1", Msg: staticJoin("S1", "i", "foo")})
	h.step(10, Receive{From: "S1", Msg: withInstance(leave("S1", spec.StaticLeaveEpoch), "i")})
	h.expectGroup(1, 1, GroupReconciling)
	// The replacement reports owning nothing (epoch 0), so foo is dropped
	// without a revocation step and bar is free: it gets bar at once.
	h.hb(20, staticJoin("S2", "i", "bar"), `
		send coordinator->S2 HeartbeatResponse member=S2 epoch=2 assignment={bar-0 bar-1}
		cancel session(S1)
		set session(S2)@45020`)
	h.expectGroup(2, 2, GroupStable)
	if got := h.Node.Owners().String(); got != "S2:{bar-0 bar-1}" {
		t.Fatalf("owners %s", got)
	}
}

// TestSlowRevokerFencedByRebalanceTimeout: a member that never revokes is
// fenced when its rebalance timeout fires, and its partitions go to the
// other member.
func TestSlowRevokerFencedByRebalanceTimeout(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 3}})
	h.step(0, Receive{From: "A", Msg: join("A", "foo")})
	h.step(100, Receive{From: "B", Msg: join("B", "foo")})
	h.hb(200, hbOwned("A", 1, "{foo-0 foo-1 foo-2}"), `
		send coordinator->A HeartbeatResponse member=A epoch=1 assignment={foo-0 foo-1}
		set rebalance(A@1)@30200
		set session(A)@45200`)
	// A keeps heartbeating but never lets go of foo-2: the rebalance timer
	// is not moved.
	for _, at := range []Millis{10000, 20000} {
		h.step(at, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1 foo-2}")})
		h.step(at, Receive{From: "B", Msg: hbOwned("B", 2, "{}")})
	}
	h.expectMember("A", 1, reconcile.UnrevokedPartitions, "{foo-0 foo-1}", "{foo-2}")
	h.expectMember("B", 2, reconcile.UnreleasedPartitions, "{}", "{}")

	// Firing early is stale.
	h.fire(30199, rebalanceT("A", 1), ``)
	h.fire(30200, rebalanceT("A", 1), `cancel session(A)`)
	if h.Node.IsMember("A") {
		t.Fatal("A is still a member")
	}
	h.expectGroup(3, 2, GroupAssigning)

	h.hb(30300, hbOwned("B", 2, "{}"), `
		send coordinator->B HeartbeatResponse member=B epoch=3 assignment={foo-0 foo-1 foo-2}
		set session(B)@75300`)
	h.expectGroup(3, 3, GroupStable)

	// The fenced member is unknown now and must rejoin with epoch 0.
	h.hb(30400, hbOwned("A", 1, "{foo-0 foo-1 foo-2}"), `
		send coordinator->A HeartbeatResponse error=UNKNOWN_MEMBER_ID Member A is not a member of group g.`)
}

// TestFullHeartbeat: a regular heartbeat whose assignment did not change
// gets it back only if it is full: rebalance timeout, subscription and
// owned partitions all sent.
func TestFullHeartbeat(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		timeout, subscribe, owned bool
		want                      string
	}{
		{"all three", true, true, true, "assignment={foo-0 foo-1}"},
		{"no rebalance timeout", false, true, true, "assignment=null"},
		{"no subscription", true, false, true, "assignment=null"},
		{"no owned partitions", true, true, false, "assignment=null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := twoMembers(t, CoordinatorConfig{})
			r := hbNull("A", 2)
			if tc.timeout {
				r.RebalanceTimeoutMs = testRebalance
			}
			if tc.subscribe {
				r.SubscribedTopicNames, r.SubscriptionSent = []string{"foo"}, true
			}
			if tc.owned {
				r.TopicPartitions, r.OwnedSent = set("{foo-0 foo-1}"), true
			}
			h.hb(600, r, "send coordinator->A HeartbeatResponse member=A epoch=2 "+tc.want+"\nset session(A)@45600")
		})
	}
}

// TestLostResponse: a heartbeat at the previous epoch is accepted if it
// owns a subset of the assignment (the response that carried the epoch
// bump was lost), and fenced otherwise.
func TestLostResponse(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  HeartbeatRequest
		want string
	}{
		{"owned subset", hbOwned("A", 1, "{foo-0 foo-1}"),
			"send coordinator->A HeartbeatResponse member=A epoch=2 assignment=null\nset session(A)@45600"},
		{"owned empty", hbOwned("A", 1, "{}"),
			"send coordinator->A HeartbeatResponse member=A epoch=2 assignment=null\nset session(A)@45600"},
		{"owned not a subset", hbOwned("A", 1, "{foo-0 foo-2}"),
			"send coordinator->A HeartbeatResponse error=FENCED_MEMBER_EPOCH The consumer group member has a smaller member epoch (1) than the one known by the group coordinator (2). The member must abandon all its partitions and rejoin."},
		{"owned not sent", hbNull("A", 1),
			"send coordinator->A HeartbeatResponse error=FENCED_MEMBER_EPOCH The consumer group member has a smaller member epoch (1) than the one known by the group coordinator (2). The member must abandon all its partitions and rejoin."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A's move to epoch 2 (at 400) is the response that is lost.
			h := twoMembers(t, CoordinatorConfig{})
			h.hb(600, tc.req, tc.want)
		})
	}
}

// TestTwoLostResponses: a member that lost two epoch bumps in a row is two
// epochs behind and is fenced.
func TestTwoLostResponses(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 3}})
	h.step(0, Receive{From: "A", Msg: join("A", "foo")})

	// foo grows: the metadata expires and A's next heartbeat bumps the
	// epoch. The response is lost.
	h.Expect(100, node.MetadataUpdate{Topics: spec.Topics{"foo": 4}}, ``)
	h.hb(200, hbOwned("A", 1, "{foo-0 foo-1 foo-2}"), `
		send coordinator->A HeartbeatResponse member=A epoch=2 assignment={foo-0 foo-1 foo-2 foo-3}
		set session(A)@45200`)
	// foo grows again; A heartbeats at epoch 1 (its previous epoch, owning a
	// subset): accepted and bumped to 3. This response is lost too.
	h.Expect(300, node.MetadataUpdate{Topics: spec.Topics{"foo": 5}}, ``)
	h.hb(400, hbOwned("A", 1, "{foo-0 foo-1 foo-2}"), `
		send coordinator->A HeartbeatResponse member=A epoch=3 assignment={foo-0 foo-1 foo-2 foo-3 foo-4}
		set session(A)@45400`)
	h.expectMember("A", 3, reconcile.Stable, "{foo-0 foo-1 foo-2 foo-3 foo-4}", "{}")
	// Epoch 1 is neither the current (3) nor the previous (2) epoch.
	before := h.Node.Clone()
	h.hb(500, hbOwned("A", 1, "{foo-0 foo-1 foo-2}"), `
		send coordinator->A HeartbeatResponse error=FENCED_MEMBER_EPOCH The consumer group member has a smaller member epoch (1) than the one known by the group coordinator (3). The member must abandon all its partitions and rejoin.`)
	if !sameState(before, h.Node) {
		t.Fatalf("a fenced heartbeat changed the state:\n%s\nwas:\n%s", h.Node, before)
	}
}

// TestTwoTargetEpochsBehind: a revoking member whose target moves again
// steps one epoch at a time, and the rebalance timer follows its epoch; the
// timer of the epoch it left is stale.
func TestTwoTargetEpochsBehind(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 6}})
	h.step(0, Receive{From: "A", Msg: join("A", "foo")})
	h.step(100, Receive{From: "B", Msg: join("B", "foo")})
	h.hb(200, hbOwned("A", 1, "{foo-0 foo-1 foo-2 foo-3 foo-4 foo-5}"), `
		send coordinator->A HeartbeatResponse member=A epoch=1 assignment={foo-0 foo-1 foo-2}
		set rebalance(A@1)@30200
		set session(A)@45200`)
	// C joins: group epoch 3, target A:{foo-0 foo-1} B:{foo-3 foo-4}
	// C:{foo-2 foo-5}.
	h.hb(300, join("C", "foo"), `
		send coordinator->C HeartbeatResponse member=C epoch=3 assignment={}
		set session(C)@45300`)
	h.expectGroup(3, 3, GroupReconciling)
	if got := h.Node.Target().String(); got != "A:{foo-0 foo-1} B:{foo-3 foo-4} C:{foo-2 foo-5}" {
		t.Fatalf("target %s", got)
	}

	// A has revoked foo-3..5 but still owns foo-2, which it must now give
	// up too: it steps to epoch 2 (not 3) and revokes again.
	h.hb(400, hbOwned("A", 1, "{foo-0 foo-1 foo-2}"), `
		send coordinator->A HeartbeatResponse member=A epoch=2 assignment={foo-0 foo-1}
		cancel rebalance(A@1)
		set rebalance(A@2)@30400
		set session(A)@45400`)
	h.expectMember("A", 2, reconcile.UnrevokedPartitions, "{foo-0 foo-1}", "{foo-2}")

	// The timer of epoch 1 is stale.
	before := h.Node.String()
	h.fire(30200, rebalanceT("A", 1), ``)
	if h.Node.String() != before {
		t.Fatalf("stale timer changed the state:\n%s\nwas:\n%s", h.Node, before)
	}

	h.hb(30300, hbOwned("A", 2, "{foo-0 foo-1}"), `
		send coordinator->A HeartbeatResponse member=A epoch=3 assignment=null
		cancel rebalance(A@2)
		set session(A)@75300`)
	h.expectMember("A", 3, reconcile.Stable, "{foo-0 foo-1}", "{}")
	// The epoch-2 timer is stale now as well.
	h.fire(30400, rebalanceT("A", 2), ``)
	h.hb(30500, hbOwned("B", 2, "{}"), `
		send coordinator->B HeartbeatResponse member=B epoch=3 assignment={foo-3 foo-4}
		set session(B)@75500`)
	h.hb(30600, hbOwned("C", 3, "{}"), `
		send coordinator->C HeartbeatResponse member=C epoch=3 assignment={foo-2 foo-5}
		set session(C)@75600`)
	h.expectGroup(3, 3, GroupStable)
}

// TestSessionTimeout: a member with no accepted heartbeat within the
// session timeout is fenced, a parked static member too; early or stale
// firings are ignored.
func TestSessionTimeout(t *testing.T) {
	h := twoMembers(t, CoordinatorConfig{})
	// B's session runs until 45500; firing earlier is stale.
	h.fire(45000, sessionT("B"), ``)
	h.fire(45500, sessionT("B"), ``) // B's deadline; no timer to cancel
	h.expectGroup(3, 2, GroupAssigning)
	if h.Node.IsMember("B") {
		t.Fatal("B is still a member")
	}
	if got := h.Node.Owners().String(); got != "A:{foo-0 foo-1}" {
		t.Fatalf("owners %s", got)
	}
	// B's timers are gone: another firing is stale.
	h.fire(45600, sessionT("B"), ``)
	h.hb(45700, hbOwned("A", 2, "{foo-0 foo-1}"), `
		send coordinator->A HeartbeatResponse member=A epoch=3 assignment={foo-0 foo-1 foo-2}
		set session(A)@90700`)
	h.expectGroup(3, 3, GroupStable)
	// The last member goes: the group is empty and keeps its epoch.
	h.fire(90700, sessionT("A"), ``)
	h.expectGroup(4, 3, GroupEmpty)

	// A static member parked at -2 that does not come back in time.
	s := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 2}})
	s.step(0, Receive{From: "S", Msg: staticJoin("S", "i", "foo")})
	s.step(1000, Receive{From: "S", Msg: withInstance(leave("S", spec.StaticLeaveEpoch), "i")})
	s.fire(45000, sessionT("S"), ``) // the leave did not reset the session
	s.expectGroup(2, 1, GroupEmpty)
	if len(s.Node.Owners()) != 0 || len(s.Node.Members()) != 0 {
		t.Fatalf("after the session expired:\n%s", s.Node)
	}
	// The instance id is free again.
	s.hb(46000, staticJoin("S2", "i", "foo"), `
		send coordinator->S2 HeartbeatResponse member=S2 epoch=3 assignment={foo-0 foo-1}
		set session(S2)@91000`)
}

// TestLeave: a dynamic member leaving with -1 is fenced and answered with
// epoch -1; its partitions are free at once.
func TestLeave(t *testing.T) {
	h := twoMembers(t, CoordinatorConfig{})
	h.hb(600, leave("B", spec.LeaveEpoch), `
		send coordinator->B HeartbeatResponse member=B epoch=-1 assignment=null
		cancel session(B)`)
	h.expectGroup(3, 2, GroupAssigning)
	h.hb(700, hbOwned("A", 2, "{foo-0 foo-1}"), `
		send coordinator->A HeartbeatResponse member=A epoch=3 assignment={foo-0 foo-1 foo-2}
		set session(A)@45700`)
	// A static member leaving with -1 is fenced too.
	h.step(800, Receive{From: "S", Msg: staticJoin("S", "i", "foo")})
	h.expectGroup(4, 4, GroupReconciling)
	h.hb(900, withInstance(leave("S", spec.LeaveEpoch), "i"), `
		send coordinator->S HeartbeatResponse member=S epoch=-1 assignment=null
		cancel session(S)`)
	h.expectGroup(5, 4, GroupAssigning)
}

// TestRejoinAtEpochZero: since KAFKA-19233 an existing member that rejoins
// with epoch 0 keeps its record; before it, it is fenced.
func TestRejoinAtEpochZero(t *testing.T) {
	h := twoMembers(t, CoordinatorConfig{})
	h.hb(600, join("A", "foo"), `
		send coordinator->A HeartbeatResponse member=A epoch=2 assignment={foo-0 foo-1}
		set session(A)@45600`)
	h.expectGroup(2, 2, GroupStable)

	old := twoMembers(t, CoordinatorConfig{Semantics: Semantics{BeforeKafka19233: true}})
	old.hb(600, join("A", "foo"), `
		send coordinator->A HeartbeatResponse error=FENCED_MEMBER_EPOCH The consumer group member has a smaller member epoch (0) than the one known by the group coordinator (2). The member must abandon all its partitions and rejoin.`)
}

// TestMetadataUpdate: only a change of a subscribed topic bumps the group
// epoch, and only on the next heartbeat.
func TestMetadataUpdate(t *testing.T) {
	h := twoMembers(t, CoordinatorConfig{Topics: spec.Topics{"foo": 3, "bar": 1}})
	h.Expect(600, node.MetadataUpdate{Topics: spec.Topics{"foo": 3, "bar": 5}}, ``)
	h.hb(700, hbOwned("A", 2, "{foo-0 foo-1}"), `
		send coordinator->A HeartbeatResponse member=A epoch=2 assignment=null
		set session(A)@45700`)
	h.expectGroup(2, 2, GroupStable)

	h.Expect(800, node.MetadataUpdate{Topics: spec.Topics{"foo": 4, "bar": 5}}, ``)
	h.expectGroup(2, 2, GroupStable)
	h.hb(900, hbOwned("A", 2, "{foo-0 foo-1}"), `
		send coordinator->A HeartbeatResponse member=A epoch=3 assignment=null
		set session(A)@45900`)
	h.expectGroup(3, 3, GroupReconciling)
	if got := h.Node.Target().String(); got != "A:{foo-0 foo-1} B:{foo-2 foo-3}" {
		t.Fatalf("target %s", got)
	}

	// A deleted topic: its partitions leave the target and are revoked.
	h.Expect(1000, node.MetadataUpdate{Topics: spec.Topics{"bar": 5}}, ``)
	h.hb(1100, hbOwned("B", 2, "{foo-2}"), `
		send coordinator->B HeartbeatResponse member=B epoch=2 assignment={}
		set rebalance(B@2)@31100
		set session(B)@46100`)
	h.expectGroup(4, 4, GroupReconciling)
	h.hb(1200, hbOwned("B", 2, "{}"), `
		send coordinator->B HeartbeatResponse member=B epoch=4 assignment=null
		cancel rebalance(B@2)
		set session(B)@46200`)
}

// TestPreferredAssignor: the assignor most members ask for wins; without
// any, the first configured one.
func TestPreferredAssignor(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 2, "bar": 2}})
	r := join("A", "foo", "bar")
	r.ServerAssignor = ptr("range")
	h.step(0, Receive{From: "A", Msg: r})
	h.step(10, Receive{From: "B", Msg: join("B", "foo", "bar")})
	// Range gives A foo-0 and bar-0, where uniform would keep A's first two.
	if got := h.Node.Target().String(); got != "A:{bar-0 foo-0} B:{bar-1 foo-1}" {
		t.Fatalf("target %s, want range's", got)
	}
	if got := h.Node.PreferredAssignor(); got != "range" {
		t.Fatalf("PreferredAssignor = %q, want range", got)
	}
	u := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 2, "bar": 2}})
	u.step(0, Receive{From: "A", Msg: join("A", "foo", "bar")})
	u.step(10, Receive{From: "B", Msg: join("B", "foo", "bar")})
	if got := u.Node.Target().String(); got != "A:{bar-0 bar-1} B:{foo-0 foo-1}" {
		t.Fatalf("target %s, want uniform's", got)
	}
	// The heartbeating member's own choice counts: B's join, asking for
	// range, makes range the preferred assignor of the target it computes.
	b := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 2, "bar": 2}})
	b.step(0, Receive{From: "A", Msg: join("A", "foo", "bar")})
	r = join("B", "foo", "bar")
	r.ServerAssignor = ptr("range")
	b.step(10, Receive{From: "B", Msg: r})
	if got := b.Node.Target().String(); got != "A:{bar-0 foo-0} B:{bar-1 foo-1}" {
		t.Fatalf("target %s, want range's", got)
	}
}

// baseGroup is the group every rejection case starts from: A dynamic and S
// static (instance "i"), STABLE at epoch 3 (previous 2) after foo grew
// from 4 to 6 partitions.
func baseGroup(t *testing.T, cfg CoordinatorConfig) *harness {
	t.Helper()
	cfg.Topics = spec.Topics{"foo": 4}
	h := newHarness(t, cfg)
	step := func(at Millis, r HeartbeatRequest) {
		t.Helper()
		out := h.step(at, Receive{From: nodeOf(r), Msg: r})
		if resp := out.Messages[0].Msg.(HeartbeatResponse); resp.Error != spec.None {
			t.Fatalf("setup %s: %s", r, resp)
		}
	}
	step(0, join("A", "foo"))
	step(10, staticJoin("S", "i", "foo"))
	step(20, hbOwned("A", 1, "{foo-0 foo-1 foo-2 foo-3}"))
	step(30, hbOwned("A", 1, "{foo-0 foo-1}"))
	step(40, withInstance(hbOwned("S", 2, "{}"), "i"))
	h.step(50, node.MetadataUpdate{Topics: spec.Topics{"foo": 6}})
	step(60, hbOwned("A", 2, "{foo-0 foo-1}"))
	step(70, withInstance(hbOwned("S", 2, "{foo-2 foo-3}"), "i"))
	h.expectGroup(3, 3, GroupStable)
	h.expectMember("A", 3, reconcile.Stable, "{foo-0 foo-1 foo-4}", "{}")
	h.expectMember("S", 3, reconcile.Stable, "{foo-2 foo-3 foo-5}", "{}")
	return h
}

// TestRejectedRequestsChangeNothing: every malformed or refused request
// gets its error code and changes nothing, timers included.
func TestRejectedRequestsChangeNothing(t *testing.T) {
	mod := func(r HeartbeatRequest, f func(*HeartbeatRequest)) HeartbeatRequest {
		f(&r)
		return r
	}
	for _, tc := range []struct {
		name  string
		cfg   CoordinatorConfig
		fresh bool // a coordinator whose group does not exist yet
		req   HeartbeatRequest
		code  spec.ErrorCode
	}{
		{name: "empty group id", req: mod(hbOwned("A", 3, "{}"), func(r *HeartbeatRequest) { r.GroupID = "" }), code: spec.InvalidRequest},
		{name: "empty instance id", req: withInstance(hbOwned("S", 3, "{}"), ""), code: spec.InvalidRequest},
		{name: "blank rack id", req: mod(hbOwned("A", 3, "{}"), func(r *HeartbeatRequest) { r.RackID = ptr("  ") }), code: spec.InvalidRequest},
		{name: "epoch > 0 without member id", req: hbOwned("", 3, "{}"), code: spec.InvalidRequest},
		{name: "leave without member id", req: leave("", spec.LeaveEpoch), code: spec.InvalidRequest},
		{name: "join without rebalance timeout", req: mod(join("C", "foo"), func(r *HeartbeatRequest) { r.RebalanceTimeoutMs = -1 }), code: spec.InvalidRequest},
		{name: "join without owned", req: mod(join("C", "foo"), func(r *HeartbeatRequest) { r.OwnedSent = false }), code: spec.InvalidRequest},
		{name: "join owning something", req: mod(join("C", "foo"), func(r *HeartbeatRequest) { r.TopicPartitions = set("{foo-0}") }), code: spec.InvalidRequest},
		{name: "join without subscription", req: mod(join("C"), func(r *HeartbeatRequest) { r.SubscriptionSent = false }), code: spec.InvalidRequest},
		{name: "join with empty subscription", req: join("C"), code: spec.InvalidRequest},
		{name: "join without member id (KIP-1082)", req: join("", "foo"), code: spec.InvalidRequest},
		{name: "join with a space for member id", req: join(" ", "foo"), code: spec.InvalidRequest},
		{name: "static leave without instance id", req: leave("S", spec.StaticLeaveEpoch), code: spec.InvalidRequest},
		{name: "epoch -3", req: hbOwned("A", -3, "{}"), code: spec.InvalidRequest},
		{name: "invalid owned partition", req: mod(hbOwned("A", 3, "{}"), func(r *HeartbeatRequest) { r.TopicPartitions = spec.Set{{Topic: "foo", Partition: -5}} }), code: spec.InvalidRequest},
		{name: "unsupported assignor", req: mod(hbOwned("A", 3, "{}"), func(r *HeartbeatRequest) { r.ServerAssignor = ptr("sticky") }), code: spec.UnsupportedAssignor},
		{name: "other group", req: mod(hbOwned("A", 3, "{}"), func(r *HeartbeatRequest) { r.GroupID = "other" }), code: spec.NotCoordinator},
		{name: "other group leave", req: mod(leave("A", spec.LeaveEpoch), func(r *HeartbeatRequest) { r.GroupID = "other" }), code: spec.NotCoordinator},
		{name: "no group yet", fresh: true, req: hbOwned("A", 3, "{}"), code: spec.GroupIDNotFound},
		{name: "no group yet, leave", fresh: true, req: leave("A", spec.LeaveEpoch), code: spec.GroupIDNotFound},
		{name: "unknown member", req: hbOwned("X", 3, "{}"), code: spec.UnknownMemberID},
		{name: "unknown member leaves", req: leave("X", spec.LeaveEpoch), code: spec.UnknownMemberID},
		{name: "unknown instance", req: withInstance(hbOwned("S", 3, "{}"), "j"), code: spec.UnknownMemberID},
		{name: "unknown instance leaves", req: withInstance(leave("S", spec.StaticLeaveEpoch), "j"), code: spec.UnknownMemberID},
		{name: "epoch ahead", req: hbOwned("A", 4, "{}"), code: spec.FencedMemberEpoch},
		{name: "epoch two behind", req: hbOwned("A", 1, "{}"), code: spec.FencedMemberEpoch},
		{name: "previous epoch, owned not assigned", req: hbOwned("A", 2, "{foo-2}"), code: spec.FencedMemberEpoch},
		{name: "previous epoch, owned not sent", req: hbNull("A", 2), code: spec.FencedMemberEpoch},
		{name: "instance held by another member id", req: withInstance(hbOwned("A", 3, "{}"), "i"), code: spec.FencedInstanceID},
		{name: "static leave from another member id", req: withInstance(leave("X", spec.StaticLeaveEpoch), "i"), code: spec.FencedInstanceID},
		{name: "instance in use", req: staticJoin("S2", "i", "foo"), code: spec.UnreleasedInstanceID},
		{name: "group full", cfg: CoordinatorConfig{MaxSize: 2}, req: join("C", "foo"), code: spec.GroupMaxSizeReached},
		{name: "rejoin at epoch 0 before KAFKA-19233", cfg: CoordinatorConfig{Semantics: Semantics{BeforeKafka19233: true}}, req: join("A", "foo"), code: spec.FencedMemberEpoch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h *harness
			if tc.fresh {
				h = newHarness(t, tc.cfg)
			} else {
				h = baseGroup(t, tc.cfg)
			}
			before, dump := h.Node.Clone(), h.Node.String()
			out := h.step(1000, Receive{From: "client", Msg: tc.req})
			if len(out.Messages) != 1 || len(out.Timers) != 0 || len(out.Callbacks) != 0 {
				t.Fatalf("output:\n%s", out)
			}
			resp := out.Messages[0].Msg.(HeartbeatResponse)
			if out.Messages[0].To != "client" || resp.Error != tc.code || resp.ErrorMessage == "" {
				t.Fatalf("got %s to %s, want %s", resp, out.Messages[0].To, tc.code)
			}
			if h.Node.String() != dump {
				t.Fatalf("state changed:\n%s\nwas:\n%s", h.Node, dump)
			}
			if !sameState(before, h.Node) {
				t.Fatalf("state changed (not equal to its clone):\n%s", h.Node)
			}
		})
	}
}

// TestCloneIsIndependent: stepping a clone leaves the original as it was.
func TestCloneIsIndependent(t *testing.T) {
	h := twoMembers(t, CoordinatorConfig{})
	orig := h.Node.Clone()
	dump := h.Node.String()
	cl := h.Node.Clone() // stepped itself, not through the harness's forks
	for _, in := range []node.Input{
		{Now: 600, Event: Receive{From: "C", Msg: join("C", "foo")}},
		{Now: 700, Event: Receive{From: "A", Msg: hbOwned("A", 2, "{foo-0 foo-1}")}},
		{Now: 800, Event: node.MetadataUpdate{Topics: spec.Topics{"foo": 9}}},
		{Now: 900, Event: TimerFired{Timer: sessionT("B")}},
		{Now: 45500, Event: TimerFired{Timer: sessionT("B")}},
	} {
		cl.Step(in)
	}
	if cl.String() == dump {
		t.Fatalf("the steps changed nothing in the clone:\n%s", cl)
	}
	if h.Node.String() != dump || !sameState(orig, h.Node) {
		t.Fatalf("original changed:\n%s\nwas:\n%s", h.Node, dump)
	}
}

// TestFaults: each fault switch breaks its rule.
func TestFaults(t *testing.T) {
	t.Run("assign-before-release", func(t *testing.T) {
		h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 3}, Faults: AssignBeforeRelease})
		h.step(0, Receive{From: "A", Msg: join("A", "foo")})
		h.hb(100, join("B", "foo"), `
			send coordinator->B HeartbeatResponse member=B epoch=2 assignment={foo-2}
			set session(B)@45100`)
		if got := h.Node.Owners().String(); got != "A:{foo-0 foo-1 foo-2} B:{foo-2}" {
			t.Fatalf("owners %s", got)
		}
		// A gives foo-2 up: B stays its only holder.
		h.step(200, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1}")})
		if got := h.Node.Owners().String(); got != "A:{foo-0 foo-1} B:{foo-2}" {
			t.Fatalf("owners %s after A's release", got)
		}
	})
	t.Run("skip-epoch-check", func(t *testing.T) {
		h := twoMembers(t, CoordinatorConfig{Faults: SkipEpochCheck})
		h.hb(600, hbOwned("A", 7, "{foo-0 foo-1}"), `
			send coordinator->A HeartbeatResponse member=A epoch=2 assignment=null
			set session(A)@45600`)
		// A static member's epoch is not checked either.
		s := baseGroup(t, CoordinatorConfig{Faults: SkipEpochCheck})
		s.hb(1000, withInstance(hbOwned("S", 7, "{foo-2 foo-3 foo-5}"), "i"), `
			send coordinator->S HeartbeatResponse member=S epoch=3 assignment=null
			set session(S)@46000`)
		// A static member parked at -2 stays parked: the fault skips the
		// epoch check, not the parking, so a heartbeat at its old epoch
		// is fenced as it is without the fault.
		for _, faults := range []Fault{0, SkipEpochCheck} {
			p := baseGroup(t, CoordinatorConfig{Faults: faults})
			p.step(1000, Receive{From: "S", Msg: withInstance(leave("S", spec.StaticLeaveEpoch), "i")})
			p.hb(1100, withInstance(hbOwned("S", 3, "{foo-2 foo-3 foo-5}"), "i"), `
				send coordinator->S HeartbeatResponse error=FENCED_MEMBER_EPOCH The consumer group member has a greater member epoch (3) than the one known by the group coordinator (-2). The member must abandon all its partitions and rejoin.`)
		}
		// Nor a dynamic member's rejoin at epoch 0, which is fenced
		// before KAFKA-19233 without the fault (TestRejoinAtEpochZero).
		old := twoMembers(t, CoordinatorConfig{Faults: SkipEpochCheck, Semantics: Semantics{BeforeKafka19233: true}})
		old.hb(600, join("A", "foo"), `
			send coordinator->A HeartbeatResponse member=A epoch=2 assignment={foo-0 foo-1}
			set session(A)@45600`)
	})
	t.Run("straight-to-target", func(t *testing.T) {
		h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 3}, Faults: StraightToTarget})
		h.step(0, Receive{From: "A", Msg: join("A", "foo")})
		h.step(100, Receive{From: "B", Msg: join("B", "foo")})
		h.hb(200, hbOwned("A", 1, "{foo-0 foo-1 foo-2}"), `
			send coordinator->A HeartbeatResponse member=A epoch=2 assignment={foo-0 foo-1}
			set session(A)@45200`)
		h.hb(300, hbOwned("B", 2, "{}"), `
			send coordinator->B HeartbeatResponse member=B epoch=2 assignment={foo-2}
			set session(B)@45300`)
	})
}

// TestRestartOnNewTarget: A is revoking foo-2 for B when C joins and a
// new target is installed. A's next heartbeat acknowledges the revocation.
// Today the acknowledgement counts: foo-2 is released and A moves on. With
// the RestartOnNewTarget fault (before KAFKA-16249) A is recomputed from
// everything it holds and the acknowledgement is ignored: foo-2 is pending
// revocation again, and A's later heartbeats, which carry no owned
// partitions, never release it.
func TestRestartOnNewTarget(t *testing.T) {
	run := func(t *testing.T, faults Fault) *harness {
		h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 3}, Faults: faults})
		h.step(0, Receive{From: "A", Msg: join("A", "foo")})
		h.step(100, Receive{From: "B", Msg: join("B", "foo")})
		h.step(200, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1 foo-2}")})
		h.expectMember("A", 1, reconcile.UnrevokedPartitions, "{foo-0 foo-1}", "{foo-2}")
		h.step(300, Receive{From: "C", Msg: join("C", "foo")})
		h.expectGroup(3, 3, GroupReconciling)
		h.step(400, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1}")})
		h.step(500, Receive{From: "A", Msg: hbNull("A", h.mustMember("A").Epoch)})
		return h
	}
	t.Run("today", func(t *testing.T) {
		h := run(t, 0)
		h.expectMember("A", 2, reconcile.UnrevokedPartitions, "{foo-0}", "{foo-1}")
		if got := h.Node.Owners().String(); got != "A:{foo-0 foo-1}" {
			t.Fatalf("owners %s, want foo-2 released", got)
		}
	})
	t.Run("restart-on-new-target", func(t *testing.T) {
		h := run(t, RestartOnNewTarget)
		h.expectMember("A", 1, reconcile.UnrevokedPartitions, "{foo-0}", "{foo-1 foo-2}")
		if got := h.mustMember("A").PreviousEpoch; got != 0 {
			t.Errorf("A's previous epoch %d, want 0: going back to revoking keeps the epochs", got)
		}
		if got := h.Node.Owners().String(); got != "A:{foo-0 foo-1 foo-2}" {
			t.Fatalf("owners %s, want foo-2 still held by A", got)
		}
		// The restart at 400 changed A's record (its target epoch), so
		// its rebalance timer, armed at 200 for epoch 1, was re-armed.
		if !strings.Contains(h.Node.String(), "rebalance-timer=1@30400") {
			t.Fatalf("A's rebalance timer not re-armed at 400:\n%s", h.Node)
		}
	})
	// An UNRELEASED_PARTITIONS member is restarted too. B has foo-2 and
	// waits for foo-5 when foo shrinks to two partitions; B's heartbeat
	// (the one that installs the new target) reports owning nothing.
	// Today foo-2 is simply dropped (B waits for foo-1 at epoch 4); with
	// the fault the report is ignored and B must revoke foo-2.
	unreleased := func(t *testing.T, faults Fault) *harness {
		h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 6}, Faults: faults})
		h.step(0, Receive{From: "A", Msg: join("A", "foo")})
		h.step(10, Receive{From: "C", Msg: join("C", "foo")})
		h.step(20, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1 foo-2 foo-3 foo-4 foo-5}")})
		h.step(30, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1 foo-2}")})
		h.step(40, Receive{From: "C", Msg: hbOwned("C", 2, "{}")})
		h.step(50, Receive{From: "B", Msg: join("B", "foo")})
		h.step(60, Receive{From: "A", Msg: hbOwned("A", 2, "{foo-0 foo-1 foo-2}")})
		h.step(70, Receive{From: "A", Msg: hbOwned("A", 2, "{foo-0 foo-1}")})
		h.step(80, Receive{From: "B", Msg: hbOwned("B", 3, "{}")})
		h.expectMember("B", 3, reconcile.UnreleasedPartitions, "{foo-2}", "{}")
		h.step(90, node.MetadataUpdate{Topics: spec.Topics{"foo": 2}})
		h.step(100, Receive{From: "B", Msg: hbOwned("B", 3, "{}")})
		h.expectGroup(4, 4, GroupReconciling)
		return h
	}
	t.Run("today, unreleased", func(t *testing.T) {
		unreleased(t, 0).expectMember("B", 4, reconcile.UnreleasedPartitions, "{}", "{}")
	})
	t.Run("restart-on-new-target, unreleased", func(t *testing.T) {
		unreleased(t, RestartOnNewTarget).expectMember("B", 3, reconcile.UnrevokedPartitions, "{}", "{foo-2}")
	})
}

// TestPerSetEpochUpdate: A is revoking foo-2 for B when B leaves, so the
// new target gives foo-2 back to A, and A's acknowledgement makes it
// assigned again in one step. Today the owner map records A as its holder.
// With the PerSetEpochUpdate fault (before KAFKA-16147) the update of the
// pending set deletes the entry the update of the assigned set had just
// written: foo-2 looks free while A holds it, and C, joining, is given it
// at once.
func TestPerSetEpochUpdate(t *testing.T) {
	run := func(t *testing.T, faults Fault) *harness {
		h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 3}, Faults: faults})
		h.step(0, Receive{From: "A", Msg: join("A", "foo")})
		h.step(100, Receive{From: "B", Msg: join("B", "foo")})
		h.step(200, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1 foo-2}")})
		h.expectMember("A", 1, reconcile.UnrevokedPartitions, "{foo-0 foo-1}", "{foo-2}")
		h.step(300, Receive{From: "B", Msg: leave("B", -1)})
		h.step(400, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1}")})
		h.expectMember("A", 3, reconcile.Stable, "{foo-0 foo-1 foo-2}", "{}")
		h.step(500, Receive{From: "C", Msg: join("C", "foo")})
		return h
	}
	t.Run("today", func(t *testing.T) {
		h := run(t, 0)
		h.expectMember("C", 4, reconcile.UnreleasedPartitions, "{}", "{}")
		if got := h.Node.Owners().String(); got != "A:{foo-0 foo-1 foo-2}" {
			t.Fatalf("owners %s", got)
		}
	})
	t.Run("per-set-epoch-update", func(t *testing.T) {
		h := run(t, PerSetEpochUpdate)
		h.expectMember("C", 4, reconcile.Stable, "{foo-2}", "{}")
		h.expectMember("A", 3, reconcile.Stable, "{foo-0 foo-1 foo-2}", "{}")
	})
}

// TestNewCoordinatorRejectsBadConfig: nonsensical configurations are Go
// errors; defaults fill the zero fields.
func TestNewCoordinatorRejectsBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  CoordinatorConfig
	}{
		{"empty group id", CoordinatorConfig{}},
		{"negative session timeout", CoordinatorConfig{GroupID: "g", SessionTimeout: -1}},
		{"negative heartbeat interval", CoordinatorConfig{GroupID: "g", HeartbeatInterval: -1}},
		{"heartbeat interval not below session timeout", CoordinatorConfig{GroupID: "g", SessionTimeout: 5000, HeartbeatInterval: 5000}},
		{"heartbeat interval beyond int32", CoordinatorConfig{GroupID: "g", SessionTimeout: math.MaxInt32 + 2, HeartbeatInterval: math.MaxInt32 + 1}},
		{"negative max size", CoordinatorConfig{GroupID: "g", MaxSize: -1}},
		{"unknown assignor", CoordinatorConfig{GroupID: "g", Assignors: []string{"uniform", "sticky"}}},
		{"repeated assignor", CoordinatorConfig{GroupID: "g", Assignors: []string{"range", "range"}}},
		{"empty topic name", CoordinatorConfig{GroupID: "g", Topics: spec.Topics{"": 1}}},
		{"negative partition count", CoordinatorConfig{GroupID: "g", Topics: spec.Topics{"foo": -1}}},
		{"unknown fault", CoordinatorConfig{GroupID: "g", Faults: 1 << 20}},
		{"negative classic max size", CoordinatorConfig{GroupID: "g", ClassicMaxSize: -1}},
		{"unknown migration policy", CoordinatorConfig{GroupID: "g", Migration: validate.PolicyDisabled + 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if c, err := NewCoordinator(tc.cfg); err == nil {
				t.Fatalf("no error; got\n%s", c)
			}
		})
	}
	// The largest heartbeat interval the int32 wire field holds is valid.
	if _, err := NewCoordinator(CoordinatorConfig{GroupID: "g", SessionTimeout: math.MaxInt32 + 1, HeartbeatInterval: math.MaxInt32}); err != nil {
		t.Fatalf("heartbeat interval MaxInt32: %v", err)
	}
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 1}})
	out := h.step(0, Receive{From: "A", Msg: join("A", "foo")})
	if resp := out.Messages[0].Msg.(HeartbeatResponse); resp.HeartbeatIntervalMs != 5000 {
		t.Fatalf("heartbeat interval %d, want the default 5000", resp.HeartbeatIntervalMs)
	}
	if out.Timers[0].At != 45000 {
		t.Fatalf("session deadline %d, want the default 45000", out.Timers[0].At)
	}
}

// TestOffsetRequests: the coordinator answers the fencing half of
// OffsetCommit and OffsetFetch from its own records, for its own group
// only, and changes nothing.
func TestOffsetRequests(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 2}})
	both := spec.Range("foo", 0, 1)
	commit := func(group, member string, epoch spec.Epoch) OffsetCommitRequest {
		return OffsetCommitRequest{Seq: 7, GroupID: group, MemberID: spec.MemberID(member), MemberEpoch: epoch, Version: 9, Partitions: both}
	}
	h.Expect(0, Receive{From: "A", Msg: commit("g", "A", 1)}, `
		send coordinator->A OffsetResponse#7 error=GROUP_ID_NOT_FOUND Group g does not exist.`)
	h.hb(10, join("A", "foo"), `
		send coordinator->A HeartbeatResponse member=A epoch=1 assignment={foo-0 foo-1}
		set session(A)@45010`)
	before := h.Node.String()
	h.Expect(20, Receive{From: "A", Msg: commit("g", "A", 1)}, `send coordinator->A OffsetResponse#7 error=NONE`)
	// KIP-1251: an older epoch is judged partition by partition; A was
	// assigned both at epoch 1.
	h.Expect(30, Receive{From: "A", Msg: commit("g", "A", 0)}, `
		send coordinator->A OffsetResponse#7 error=NONE stale={foo-0 foo-1}`)
	h.Expect(35, Receive{From: "A", Msg: commit("g", "A", 2)}, `
		send coordinator->A OffsetResponse#7 error=STALE_MEMBER_EPOCH The received member epoch 2 is newer than the current member epoch 1.`)
	h.Expect(40, Receive{From: "A", Msg: commit("other", "A", 1)}, `
		send coordinator->A OffsetResponse#7 error=NOT_COORDINATOR This coordinator runs group g, not other.`)
	id := spec.MemberID("A")
	h.Expect(50, Receive{From: "A", Msg: OffsetFetchRequest{Seq: 8, GroupID: "g", MemberID: &id, MemberEpoch: 1}}, `
		send coordinator->A OffsetResponse#8 error=NONE`)
	h.Expect(60, Receive{From: "A", Msg: OffsetFetchRequest{Seq: 8, GroupID: "g", MemberID: &id, MemberEpoch: 2}}, `
		send coordinator->A OffsetResponse#8 error=STALE_MEMBER_EPOCH The received member epoch 2 does not match the expected member epoch 1.`)
	if h.Node.String() != before {
		t.Fatalf("offset requests changed the group:\n%s\nwas:\n%s", h.Node, before)
	}
	if got := h.Node.PreferredAssignor(); got != "uniform" {
		t.Fatalf("PreferredAssignor = %q, want uniform", got)
	}

	// B joins: A keeps foo-0 (assigned at 1) and revokes foo-1, moving to
	// epoch 2; B is given foo-1 at epoch 2. A's commit at epoch 1 is
	// accepted for foo-0 and refused for foo-1, which it gave up; B's at
	// epoch 1 is refused for foo-1 (given later) and foo-0 (never held).
	h.hb(100, join("B", "foo"), `
		send coordinator->B HeartbeatResponse member=B epoch=2 assignment={}
		set session(B)@45100`)
	h.hb(200, hbOwned("A", 1, "{foo-0 foo-1}"), `
		send coordinator->A HeartbeatResponse member=A epoch=1 assignment={foo-0}
		set rebalance(A@1)@30200
		set session(A)@45200`)
	h.hb(300, hbOwned("A", 1, "{foo-0}"), `
		send coordinator->A HeartbeatResponse member=A epoch=2 assignment=null
		cancel rebalance(A@1)
		set session(A)@45300`)
	h.hb(400, hbOwned("B", 2, "{}"), `
		send coordinator->B HeartbeatResponse member=B epoch=2 assignment={foo-1}
		set session(B)@45400`)
	h.Expect(500, Receive{From: "A", Msg: commit("g", "A", 1)}, `send coordinator->A OffsetResponse#7 error=NONE stale={foo-1}`)
	h.Expect(510, Receive{From: "B", Msg: commit("g", "B", 1)}, `send coordinator->B OffsetResponse#7 error=NONE stale={foo-0 foo-1}`)
	h.Expect(520, Receive{From: "B", Msg: commit("g", "B", 2)}, `send coordinator->B OffsetResponse#7 error=NONE`)

	// Before KAFKA-20066 the epoch must be the member's exactly.
	old := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 2}, Semantics: Semantics{BeforeKafka20066: true}})
	old.hb(10, join("A", "foo"), `
		send coordinator->A HeartbeatResponse member=A epoch=1 assignment={foo-0 foo-1}
		set session(A)@45010`)
	old.Expect(20, Receive{From: "A", Msg: commit("g", "A", 0)}, `
		send coordinator->A OffsetResponse#7 error=STALE_MEMBER_EPOCH The received member epoch 0 does not match the expected member epoch 1.`)
}

// TestObserverOutputs: the step that computes a new target reports it as a
// round (node.Output.Target, marked sticky for the uniform assignor), and
// the step that keeps part of a member's target from it reports what it
// withholds and who holds it (node.Output.Withheld); other steps report
// neither.
func TestObserverOutputs(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 3}})
	out := h.step(0, Receive{From: "A", Msg: join("A", "foo")})
	if out.Target == nil || !out.Target.Sticky || !out.Target.Assigned["A"].Equal(spec.Range("foo", 0, 2)) || out.Withheld != nil {
		t.Fatalf("A joins: target %+v, withheld %+v", out.Target, out.Withheld)
	}
	out = h.step(100, Receive{From: "B", Msg: join("B", "foo")})
	if out.Target == nil || !out.Target.Claims["A"].Equal(spec.Range("foo", 0, 2)) {
		t.Fatalf("B joins: target %+v, want A's previous target as its claims", out.Target)
	}
	w := out.Withheld
	if w == nil || w.Member != "B" || !w.Withheld.Equal(spec.Range("foo", 2, 2)) || len(w.HeldBy[spec.TP("foo", 2)]) != 1 || w.HeldBy[spec.TP("foo", 2)][0] != "A" {
		t.Fatalf("B joins: withheld %+v, want foo-2 withheld from B, held by A", w)
	}
	if vs := spec.CheckNoNeedlessWait(*w); len(vs) > 0 {
		t.Errorf("B waits for a partition A holds: %v", vs)
	}
	out = h.step(200, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1 foo-2}")})
	if out.Target != nil || out.Withheld != nil {
		t.Errorf("A revokes: target %+v, withheld %+v, want neither", out.Target, out.Withheld)
	}
}

// TestCheckInvariantsCatchesCorruption: CheckInvariants, which every test
// step runs, reports each broken invariant. Each case corrupts one part of
// the base group's state by hand (re-deriving the recorded group state
// unless the state is what it corrupts) and expects the named complaint.
func TestCheckInvariantsCatchesCorruption(t *testing.T) {
	edit := func(c *Coordinator, id spec.MemberID, f func(*member)) {
		i, _ := c.members.Index(id)
		m := *c.members[i].Rec
		f(&m)
		c.members[i].Rec = &m // under id's key even if f changed m.id
	}
	for _, tc := range []struct {
		name    string
		corrupt func(c *Coordinator)
		want    string
	}{
		{"recorded state", func(c *Coordinator) { c.state = GroupReconciling }, "state RECONCILING, but the group is STABLE"},
		{"group epoch behind the target", func(c *Coordinator) { c.groupEpoch = 2 }, "group epoch 2, target epoch 3"},
		{"member table out of order", func(c *Coordinator) { c.members[0].Key = "X" }, `member table holds "S" after "X"`},
		{"member records swapped", func(c *Coordinator) { c.members[0], c.members[1] = c.members[1], c.members[0] }, `member table holds "A" after`},
		{"member row without a key", func(c *Coordinator) { c.members[0].Key = "" }, "member table row 0 has no key"},
		{"member recorded twice", func(c *Coordinator) { c.members = slices.Insert(c.members, 0, c.members[0]) }, `member table holds "A" after "A"`},
		{"record under another id", func(c *Coordinator) { edit(c, "A", func(m *member) { m.id = "X" }) }, `member table row "A" holds the record of member "X"`},
		{"member without an id", func(c *Coordinator) { edit(c, "A", func(m *member) { m.id = "" }) }, `member table row "A" holds the record of member ""`},
		{"records under each other's keys", func(c *Coordinator) { c.members[0].Rec, c.members[1].Rec = c.members[1].Rec, c.members[0].Rec }, `member table row "A" holds the record of member`},
		{"instance mapped elsewhere", func(c *Coordinator) { c.instances["i"] = "A" }, "instance i of S maps to"},
		{"dynamic member parked", func(c *Coordinator) { edit(c, "A", func(m *member) { m.cur.Epoch = spec.StaticLeaveEpoch }) }, "dynamic member A at epoch -2"},
		{"parked static member revoking", func(c *Coordinator) {
			edit(c, "S", func(m *member) {
				m.cur.Epoch, m.cur.State = spec.StaticLeaveEpoch, reconcile.UnrevokedPartitions
				m.cur.Assigned, m.cur.PendingRevocation = set("{foo-2 foo-3}"), set("{foo-5}")
			})
		}, "parked static member S has partitions pending revocation {foo-5}"},
		{"negative epoch", func(c *Coordinator) { edit(c, "A", func(m *member) { m.cur.Epoch = -1 }) }, "member A at epoch -1"},
		{"epoch past the target", func(c *Coordinator) { edit(c, "A", func(m *member) { m.cur.Epoch = 4 }) }, "member A at epoch 4, past the target epoch 3"},
		{"previous epoch ahead", func(c *Coordinator) { edit(c, "A", func(m *member) { m.cur.PreviousEpoch = 4 }) }, "member A at epoch 3 has previous epoch 4"},
		{"subscription repeats a topic", func(c *Coordinator) { edit(c, "A", func(m *member) { m.subscription = []string{"foo", "foo"} }) }, "subscription [foo foo] not sorted and distinct"},
		{"subscription unsorted", func(c *Coordinator) { edit(c, "A", func(m *member) { m.subscription = []string{"foo", "bar"} }) }, "subscription [foo bar] not sorted and distinct"},
		{"no session timer", func(c *Coordinator) { edit(c, "A", func(m *member) { m.sessionArmed = false }) }, "member A has no session timer"},
		{"rebalance timer while stable", func(c *Coordinator) { edit(c, "A", func(m *member) { m.rebalanceArmed, m.rebalanceEpoch = true, 3 }) }, "rebalance timer armed=true"},
		{"no target", func(c *Coordinator) { delete(c.target, "A") }, "member A has no target"},
		{"target twice", func(c *Coordinator) { c.target["S"] = c.target["S"].Add(spec.TP("foo", 0)) }, "target gives {foo-0} twice"},
		{"owner map missing a partition", func(c *Coordinator) { c.owners.set(spec.TP("foo", 0), slot{}) }, "owner map has 5 partitions, members hold 6"},
		{"owner map names another holder", func(c *Coordinator) { c.owners.set(spec.TP("foo", 0), slotOf([]holder{{member: "S", epoch: 3}})) }, "owners of foo-0 are"},
		{"two holders out of order", func(c *Coordinator) {
			// AssignBeforeRelease lets A and S both hold foo-0; the slot
			// must list them in member order, A first.
			cfg := *c.cfg
			cfg.Faults |= AssignBeforeRelease
			c.cfg = &cfg
			edit(c, "S", func(m *member) {
				was := m.cur
				m.cur.Assigned = m.cur.Assigned.Add(spec.TP("foo", 0))
				m.assignedAt = assignmentEpochs(m.assignedAt, was, m.cur)
			})
			c.owners.set(spec.TP("foo", 0), slotOf([]holder{{member: "S"}, {member: "A"}}))
		}, "owners of foo-0 are [{S 3} {A 3}], members hold it as [{A 3} {S 3}]"},
		{"stale subscription metadata", func(c *Coordinator) { c.subscribed = spec.Topics{"foo": 4} }, "subscription metadata [foo:4] is stale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := baseGroup(t, CoordinatorConfig{})
			c := h.Node.Clone()
			tc.corrupt(c)
			if tc.name != "recorded state" {
				c.state = c.derivedState()
			}
			err := c.CheckInvariants()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckInvariants() = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestRestartedReplacementAtEpochZero: with the RestartOnNewTarget fault
// a member can be recorded at epoch 0. S1 parks; A's join installs a
// target that gives half of S1's partitions to A; S2 replaces S1 (epoch 0,
// previous 0) and, its target epoch having moved, is restarted from what
// it holds, ignoring its empty owned list: it must revoke foo-2 and
// foo-3, so it stays UNREVOKED_PARTITIONS at epoch 0, a current member
// with a rebalance timer for epoch 0. With SkipEpochCheck too, its next
// heartbeat passes whatever epoch it carries.
func TestRestartedReplacementAtEpochZero(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 4}, Faults: RestartOnNewTarget | SkipEpochCheck})
	h.step(0, Receive{From: "S1", Msg: staticJoin("S1", "i", "foo")})
	h.step(100, Receive{From: "S1", Msg: withInstance(leave("S1", spec.StaticLeaveEpoch), "i")})
	h.step(200, Receive{From: "A", Msg: join("A", "foo")})
	h.hb(300, staticJoin("S2", "i", "foo"), `
		send coordinator->S2 HeartbeatResponse member=S2 epoch=0 assignment={foo-0 foo-1}
		cancel session(S1)
		set rebalance(S2@0)@30300
		set session(S2)@45300`)
	h.expectMember("S2", 0, reconcile.UnrevokedPartitions, "{foo-0 foo-1}", "{foo-2 foo-3}")
	if !h.Node.IsMember("S2") {
		t.Fatal("S2 at epoch 0 is not a current member")
	}
	h.hb(400, withInstance(hbOwned("S2", 5, "{foo-0 foo-1}"), "i"), `
		send coordinator->S2 HeartbeatResponse member=S2 epoch=2 assignment=null
		cancel rebalance(S2@0)
		set session(S2)@45400`)
}
