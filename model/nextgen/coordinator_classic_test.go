package nextgen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen/reconcile"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
	"github.com/rebalance-ref/rebalance/spec"
)

// The tests of the classic members of a consumer group: each classic
// request answered as Kafka's classicGroup*ToConsumerGroup answers it, the
// classic timers, and the admission rules (validate.ClassicJoin).

// classicSession is the session timeout the classic members ask for: not
// the group's (45000), so a test sees which one a session timer uses.
const classicSession = 10000

// cmeta is the embedded consumer protocol's subscription metadata.
func cmeta(owned string, topics ...string) classic.Metadata {
	return classic.Subscription{Topics: topics, Owned: set(owned), Generation: spec.NoGeneration}.Encode()
}

// cjoin is a classic JoinGroup of client (node and client id) under member
// id id ("" for a first join) owning owned, offering the protocol "range".
func cjoin(seq uint64, client, id, owned string, topics ...string) classic.JoinGroupRequest {
	return classic.JoinGroupRequest{
		Seq: seq, MemberID: spec.MemberID(id), ClientID: client, ClientHost: "/" + client, ProtocolType: "consumer",
		Protocols:      []classic.ProtocolMetadata{{Name: "range", Metadata: cmeta(owned, topics...)}},
		SessionTimeout: classicSession, RebalanceTimeout: testRebalance,
	}
}

func csync(seq uint64, id string, gen spec.Generation) classic.SyncGroupRequest {
	return classic.SyncGroupRequest{Seq: seq, MemberID: spec.MemberID(id), Generation: gen}
}

func cheartbeat(seq uint64, id string, gen spec.Generation) classic.HeartbeatRequest {
	return classic.HeartbeatRequest{Seq: seq, MemberID: spec.MemberID(id), Generation: gen}
}

// cl delivers the classic request msg from node from at at and compares
// the output with want.
func (h *harness) cl(at Millis, from string, msg classic.Message, want string) {
	h.T.Helper()
	h.Expect(at, Receive{From: from, Msg: Classic{Msg: msg}}, want)
}

// clStep delivers the classic request msg from node from at at.
func (h *harness) clStep(at Millis, from string, msg classic.Message) Output {
	h.T.Helper()
	return h.step(at, Receive{From: from, Msg: Classic{Msg: msg}})
}

func classicJoinT(id string) Timer { return classicJoinTimer(spec.MemberID(id)) }
func classicSyncT(id string) Timer { return classicSyncTimer(spec.MemberID(id)) }

// TestClassicMemberJoinsConsumerGroup: a classic member joins a consumer
// group whose only member, A, owns every partition. Its JoinGroup is
// answered at once, with its member epoch as generation and no leader; the
// partition its target gives it waits for A (UNRELEASED_PARTITIONS), so
// its SyncGroup gets nothing and its heartbeats are answered NONE while A
// holds it. Once A released it, the heartbeat answers
// REBALANCE_IN_PROGRESS (arming the join timer), the rejoin gets the
// partition, and the SyncGroup hands it out.
func TestClassicMemberJoinsConsumerGroup(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 3}})
	h.step(0, Receive{From: "A", Msg: join("A", "foo")})

	h.cl(100, "C", cjoin(1, "C", "", "{}", "foo"), `
		send coordinator->C classic JoinGroupResponse#1 gen=2 protocol=range leader= member=C-1
		set session(C-1)@10100
		set classic-sync(C-1)@30100`)
	h.expectGroup(2, 2, GroupReconciling)
	h.expectMember("C-1", 2, reconcile.UnreleasedPartitions, "{}", "{}")
	m := h.mustMember("C-1")
	if !m.Classic || m.ClassicSessionTimeout != classicSession || len(m.ClassicProtocols) != 1 || m.ClassicProtocols[0].Name != "range" ||
		m.Node != "C" || m.RebalanceTimeout != testRebalance || strings.Join(m.Subscription, ",") != "foo" || m.Target.String() != "{foo-2}" {
		t.Fatalf("classic member snapshot %+v", m)
	}
	if a := h.mustMember("A"); a.Classic || a.ClassicProtocols != nil || a.ClassicSessionTimeout != 0 {
		t.Fatalf("consumer member snapshot %+v", a)
	}

	h.cl(200, "C", csync(2, "C-1", 2), `
		send coordinator->C classic SyncGroupResponse#2 assigned={};revoked={};delay=0;leader=-;error=0
		cancel classic-sync(C-1)
		set session(C-1)@10200`)
	// foo-2 is still A's: C-1 waits.
	h.cl(300, "C", cheartbeat(3, "C-1", 2), `
		send coordinator->C classic HeartbeatResponse#3 error=NONE gen=2
		set session(C-1)@10300`)

	// A revokes foo-2.
	h.step(400, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1 foo-2}")})
	h.step(500, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1}")})
	h.expectMember("A", 2, reconcile.Stable, "{foo-0 foo-1}", "{}")

	// foo-2 is free: C-1 must rejoin to get it.
	h.cl(600, "C", cheartbeat(4, "C-1", 2), `
		send coordinator->C classic HeartbeatResponse#4 error=REBALANCE_IN_PROGRESS gen=2
		set session(C-1)@10600
		set classic-join(C-1)@30600`)
	// A second REBALANCE_IN_PROGRESS leaves the join timer as it is.
	h.cl(700, "C", cheartbeat(5, "C-1", 2), `
		send coordinator->C classic HeartbeatResponse#5 error=REBALANCE_IN_PROGRESS gen=2
		set session(C-1)@10700`)
	h.cl(800, "C", cjoin(6, "C", "C-1", "{}", "foo"), `
		send coordinator->C classic JoinGroupResponse#6 gen=2 protocol=range leader= member=C-1
		set session(C-1)@10800
		cancel classic-join(C-1)
		set classic-sync(C-1)@30800`)
	h.expectMember("C-1", 2, reconcile.Stable, "{foo-2}", "{}")
	h.expectGroup(2, 2, GroupStable)
	h.cl(900, "C", csync(7, "C-1", 2), `
		send coordinator->C classic SyncGroupResponse#7 assigned={foo-2};revoked={};delay=0;leader=-;error=0
		cancel classic-sync(C-1)
		set session(C-1)@10900`)
	h.cl(1000, "C", cheartbeat(8, "C-1", 2), `
		send coordinator->C classic HeartbeatResponse#8 error=NONE gen=2
		set session(C-1)@11000`)
	h.ExpectState(`
		group g exists=true epoch=2 target-epoch=2 state=STABLE metadata-expired=false classic-ids=1
		metadata=[foo:3] subscribed=[foo:3] target-metadata=[foo:3]
		member A node=A instance=- epoch=2 previous=1 state=STABLE assigned={foo-0 foo-1} pending-revocation={} assigned-at=[foo-0@1 foo-1@1] target={foo-0 foo-1} subscription=[foo] assignor=- rack=- rebalance-timeout=30000 session-timer=@45500 rebalance-timer=-
		member C-1 node=C instance=- epoch=2 previous=2 state=STABLE assigned={foo-2} pending-revocation={} assigned-at=[foo-2@2] target={foo-2} subscription=[foo] assignor=- rack=- rebalance-timeout=30000 session-timer=@11000 rebalance-timer=- classic session=10000 protocols=[range="topics=[foo];owned={};gen=-1;leader=-"] client=C host=/C join-timer=- sync-timer=-
		owners foo-0=A@2 foo-1=A@2 foo-2=C-1@2`)
}

// mixed builds TestClassicMemberJoinsConsumerGroup's group at time 1000: A
// (consumer protocol) {foo-0 foo-1} and C-1 (classic, client C)
// {foo-2}, both STABLE at epoch 2, the classic id counter at 1.
func mixed(t *testing.T, cfg CoordinatorConfig) *harness {
	t.Helper()
	if cfg.Topics == nil {
		cfg.Topics = spec.Topics{"foo": 3}
	}
	h := newHarness(t, cfg)
	h.step(0, Receive{From: "A", Msg: join("A", "foo")})
	h.clStep(100, "C", cjoin(1, "C", "", "{}", "foo"))
	h.step(400, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1 foo-2}")})
	h.step(500, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1}")})
	h.clStep(800, "C", cjoin(6, "C", "C-1", "{}", "foo"))
	h.clStep(900, "C", csync(7, "C-1", 2))
	h.expectGroup(2, 2, GroupStable)
	h.expectMember("C-1", 2, reconcile.Stable, "{foo-2}", "{}")
	h.Now = 1000
	return h
}

// TestClassicRejections: every refusal of Kafka's classic handlers in a
// consumer group, with its error code, and that it changes nothing (but
// the id counter of MEMBER_ID_REQUIRED).
func TestClassicRejections(t *testing.T) {
	withType := func(r classic.SyncGroupRequest, typ, name string) classic.SyncGroupRequest {
		if typ != "" {
			r.ProtocolType = ptr(typ)
		}
		if name != "" {
			r.ProtocolName = ptr(name)
		}
		return r
	}
	joinWith := func(f func(*classic.JoinGroupRequest)) classic.JoinGroupRequest {
		r := cjoin(1, "D", "", "{}", "foo")
		f(&r)
		return r
	}
	for _, tc := range []struct {
		name string
		cfg  CoordinatorConfig
		from string
		msg  classic.Message
		want string
	}{
		// SyncGroup: validateConsumerGroupMember, throwIfMemberDoesNotUseClassicProtocol,
		// throwIfGenerationIdUnmatched, throwIfClassicProtocolUnmatched.
		{name: "sync unknown member", msg: csync(1, "X", 2), want: "SyncGroupResponse#1 error=UNKNOWN_MEMBER_ID"},
		{name: "sync consumer member", msg: csync(1, "A", 2), want: "SyncGroupResponse#1 error=UNKNOWN_MEMBER_ID"},
		{name: "sync generation", msg: csync(1, "C-1", 1), want: "SyncGroupResponse#1 error=ILLEGAL_GENERATION"},
		{name: "sync newer generation", msg: csync(1, "C-1", 3), want: "SyncGroupResponse#1 error=ILLEGAL_GENERATION"},
		{name: "sync protocol type", msg: withType(csync(1, "C-1", 2), "connect", ""), want: "SyncGroupResponse#1 error=INCONSISTENT_GROUP_PROTOCOL"},
		{name: "sync protocol name", msg: withType(csync(1, "C-1", 2), "consumer", "roundrobin"), want: "SyncGroupResponse#1 error=INCONSISTENT_GROUP_PROTOCOL"},
		{name: "sync unknown instance", msg: classic.SyncGroupRequest{Seq: 1, MemberID: "C-1", InstanceID: "i", Generation: 2}, want: "SyncGroupResponse#1 error=UNKNOWN_MEMBER_ID"},
		// Heartbeat.
		{name: "heartbeat unknown member", msg: cheartbeat(1, "X", 2), want: "HeartbeatResponse#1 error=UNKNOWN_MEMBER_ID gen=2"},
		{name: "heartbeat consumer member", msg: cheartbeat(1, "A", 2), want: "HeartbeatResponse#1 error=UNKNOWN_MEMBER_ID gen=2"},
		{name: "heartbeat generation", msg: cheartbeat(1, "C-1", 1), want: "HeartbeatResponse#1 error=ILLEGAL_GENERATION gen=1"},
		{name: "heartbeat unknown instance", msg: classic.HeartbeatRequest{Seq: 1, MemberID: "C-1", InstanceID: "i", Generation: 2}, want: "HeartbeatResponse#1 error=UNKNOWN_MEMBER_ID gen=2"},
		// LeaveGroup.
		{name: "leave unknown member", msg: classic.LeaveGroupRequest{Seq: 1, MemberID: "X"}, want: "LeaveGroupResponse#1 error=UNKNOWN_MEMBER_ID"},
		{name: "leave consumer member", msg: classic.LeaveGroupRequest{Seq: 1, MemberID: "A"}, want: "LeaveGroupResponse#1 error=UNKNOWN_MEMBER_ID"},
		{name: "leave unknown instance", msg: classic.LeaveGroupRequest{Seq: 1, MemberID: "C-1", InstanceID: "i"}, want: "LeaveGroupResponse#1 error=UNKNOWN_MEMBER_ID"},
		// JoinGroup: validate.ClassicJoin, then the subscription.
		{name: "join protocol type", msg: joinWith(func(r *classic.JoinGroupRequest) { r.ProtocolType = "connect" }), want: "JoinGroupResponse#1 error=INCONSISTENT_GROUP_PROTOCOL"},
		{name: "join protocol unsupported", msg: joinWith(func(r *classic.JoinGroupRequest) { r.Protocols[0].Name = "roundrobin" }), want: "JoinGroupResponse#1 error=INCONSISTENT_GROUP_PROTOCOL"},
		{name: "join full", cfg: CoordinatorConfig{MaxSize: 2}, msg: cjoin(1, "D", "", "{}", "foo"), want: "JoinGroupResponse#1 error=GROUP_MAX_SIZE_REACHED"},
		{name: "join malformed", msg: joinWith(func(r *classic.JoinGroupRequest) { r.Protocols[0].Metadata = "topics=foo" }), want: "JoinGroupResponse#1 error=UNKNOWN_SERVER_ERROR"},
		{name: "join unknown instance with id", msg: joinWith(func(r *classic.JoinGroupRequest) { r.MemberID, r.InstanceID = "D-9", "i" }), want: "JoinGroupResponse#1 error=UNKNOWN_MEMBER_ID"},
		// OffsetCommit: validate.OffsetCommit's classic rule.
		{name: "commit generation", msg: classic.OffsetCommitRequest{Seq: 1, MemberID: "C-1", Generation: 1}, want: "OffsetCommitResponse#1 error=ILLEGAL_GENERATION"},
		{name: "commit unknown", msg: classic.OffsetCommitRequest{Seq: 1, MemberID: "X", Generation: 2}, want: "OffsetCommitResponse#1 error=UNKNOWN_MEMBER_ID"},
		{name: "commit consumer member", msg: classic.OffsetCommitRequest{Seq: 1, MemberID: "A", Generation: 2}, want: "OffsetCommitResponse#1 error=UNSUPPORTED_VERSION"},
		{name: "commit", msg: classic.OffsetCommitRequest{Seq: 1, MemberID: "C-1", Generation: 2}, want: "OffsetCommitResponse#1 error=NONE"},
		{name: "commit accepted by the fault", cfg: CoordinatorConfig{Faults: AcceptStaleCommits}, msg: classic.OffsetCommitRequest{Seq: 1, MemberID: "X", Generation: 7}, want: "OffsetCommitResponse#1 error=NONE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := mixed(t, tc.cfg)
			before := h.Node.String()
			from := tc.from
			if from == "" {
				from = "D"
			}
			h.cl(1000, from, tc.msg, "send coordinator->"+from+" classic "+tc.want)
			if after := h.Node.String(); after != before {
				t.Fatalf("a refused request changed the group:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// TestClassicMemberIDRequired: a dynamic classic member without an id at
// JoinGroup v4 or later gets MEMBER_ID_REQUIRED with a generated id, and
// joins with it.
func TestClassicMemberIDRequired(t *testing.T) {
	h := mixed(t, CoordinatorConfig{})
	r := cjoin(1, "D", "", "{}", "foo")
	r.RequireKnownMemberID = true
	h.cl(1000, "D", r, `send coordinator->D classic JoinGroupResponse#1 error=MEMBER_ID_REQUIRED member=D-2`)
	if h.Node.IsMember("D-2") {
		t.Fatal("MEMBER_ID_REQUIRED made a member")
	}
	r.Seq, r.MemberID = 2, "D-2"
	h.cl(1100, "D", r, `
		send coordinator->D classic JoinGroupResponse#2 gen=3 protocol=range leader= member=D-2
		set session(D-2)@11100
		set classic-sync(D-2)@31100`)
	// The next generated id is not D-2 again.
	h.cl(1200, "E", cjoin(3, "D", "", "{}", "foo"), `
		send coordinator->E classic JoinGroupResponse#3 gen=4 protocol=range leader= member=D-3
		set session(D-3)@11200
		set classic-sync(D-3)@31200`)
}

// staticCJoin is cjoin for a static member with instance id instance.
func staticCJoin(seq uint64, client, id, instance, owned string, topics ...string) classic.JoinGroupRequest {
	r := cjoin(seq, client, id, owned, topics...)
	r.InstanceID = instance
	return r
}

// TestClassicStaticMember: a static classic member is found by its
// instance id (FENCED_INSTANCE_ID for another member id), replaced by a
// JoinGroup without a member id under its instance id (a new member id
// takes its record, assignment and target; the group epoch stays), and
// removed by a LeaveGroup naming its instance id alone.
func TestClassicStaticMember(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 2}})
	h.step(0, Receive{From: "A", Msg: join("A", "foo")})
	h.step(10, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1}")})
	h.cl(100, "S", staticCJoin(1, "S", "", "i", "{}", "foo"), `
		send coordinator->S classic JoinGroupResponse#1 gen=2 protocol=range leader= member=S-1
		set session(S-1)@10100
		set classic-sync(S-1)@30100`)
	h.step(200, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0 foo-1}")})
	h.step(300, Receive{From: "A", Msg: hbOwned("A", 1, "{foo-0}")})
	h.clStep(400, "S", staticCJoin(2, "S", "S-1", "i", "{}", "foo"))
	h.expectMember("S-1", 2, reconcile.Stable, "{foo-1}", "{}")

	sync := csync(3, "S-2", 2)
	sync.InstanceID = "i"
	h.cl(500, "S", sync, `send coordinator->S classic SyncGroupResponse#3 error=FENCED_INSTANCE_ID`)
	hb := cheartbeat(4, "S-2", 2)
	hb.InstanceID = "i"
	h.cl(500, "S", hb, `send coordinator->S classic HeartbeatResponse#4 error=FENCED_INSTANCE_ID gen=2`)
	h.cl(500, "S", classic.LeaveGroupRequest{Seq: 5, MemberID: "S-2", InstanceID: "i"}, `send coordinator->S classic LeaveGroupResponse#5 error=FENCED_INSTANCE_ID`)
	hb.MemberID = "S-1"
	h.cl(500, "S", hb, `
		send coordinator->S classic HeartbeatResponse#4 error=NONE gen=2
		set session(S-1)@10500`)

	// The instance restarts: it joins without its member id, and a new
	// member id replaces the old one with its assignment and target, at
	// epoch 0 first and the target epoch at once (it owns what it is given).
	h.cl(600, "S@2", staticCJoin(6, "S", "", "i", "{}", "foo"), `
		send coordinator->S@2 classic JoinGroupResponse#6 gen=2 protocol=range leader= member=S-2
		cancel session(S-1)
		cancel classic-sync(S-1)
		set session(S-2)@10600
		set classic-sync(S-2)@30600`)
	h.expectGroup(2, 2, GroupStable)
	h.expectMember("S-2", 2, reconcile.Stable, "{foo-1}", "{}")
	if _, ok := h.Node.Member("S-1"); ok {
		t.Fatal("the replaced member id is still a member")
	}

	// An administrative removal by instance id alone.
	h.cl(700, "admin", classic.LeaveGroupRequest{Seq: 7, InstanceID: "i"}, `
		send coordinator->admin classic LeaveGroupResponse#7 error=NONE
		cancel session(S-2)
		cancel classic-sync(S-2)`)
	h.expectGroup(3, 2, GroupAssigning)
	if h.Node.IsMember("S-2") || len(h.Node.Members()) != 1 {
		t.Fatalf("after the leave: %v", h.Node.Members())
	}
}

// TestClassicTimeouts: a classic member's session lasts its own session
// timeout; it is fenced when it does not rejoin within its rebalance
// timeout after REBALANCE_IN_PROGRESS (join timer), and when it does not
// sync within its rebalance timeout after a JoinGroup (sync timer). A
// stale firing does nothing.
func TestClassicTimeouts(t *testing.T) {
	t.Run("session", func(t *testing.T) {
		h := mixed(t, CoordinatorConfig{})
		h.fire(10899, sessionT("C-1"), ``)
		h.fire(10900, sessionT("C-1"), ``)
		h.expectGroup(3, 2, GroupAssigning)
		if h.Node.IsMember("C-1") {
			t.Fatal("the session expired, the member stays")
		}
	})
	t.Run("join", func(t *testing.T) {
		h := mixed(t, CoordinatorConfig{})
		// B joins: the group epoch moves past C-1's, which must rejoin.
		h.step(1000, Receive{From: "B", Msg: join("B", "foo")})
		h.cl(1100, "C", cheartbeat(9, "C-1", 2), `
			send coordinator->C classic HeartbeatResponse#9 error=REBALANCE_IN_PROGRESS gen=2
			set session(C-1)@11100
			set classic-join(C-1)@31100`)
		// Heartbeats go on, so the session does not expire, but the member
		// never rejoins.
		h.clStep(10000, "C", cheartbeat(10, "C-1", 2))
		h.clStep(20000, "C", cheartbeat(11, "C-1", 2))
		h.clStep(30000, "C", cheartbeat(12, "C-1", 2))
		h.fire(31099, classicJoinT("C-1"), ``)
		h.fire(31100, classicJoinT("C-1"), `
			cancel session(C-1)`)
		if h.Node.IsMember("C-1") {
			t.Fatal("the join timer fired, the member stays")
		}
		h.expectGroup(4, 3, GroupAssigning)
		h.fire(31100, classicJoinT("C-1"), ``)
	})
	t.Run("sync", func(t *testing.T) {
		h := mixed(t, CoordinatorConfig{})
		h.clStep(1000, "C", cjoin(9, "C", "C-1", "{foo-2}", "foo"))
		h.clStep(10000, "C", cheartbeat(10, "C-1", 2))
		h.fire(31000, classicSyncT("C-1"), `
			cancel session(C-1)`)
		if h.Node.IsMember("C-1") {
			t.Fatal("the sync timer fired, the member stays")
		}
	})
	t.Run("sync in time", func(t *testing.T) {
		h := mixed(t, CoordinatorConfig{})
		h.clStep(1000, "C", cjoin(9, "C", "C-1", "{foo-2}", "foo"))
		h.clStep(2000, "C", csync(10, "C-1", 2))
		h.fire(31000, classicSyncT("C-1"), ``)
		if !h.Node.IsMember("C-1") {
			t.Fatal("a cancelled sync timer fenced the member")
		}
	})
	t.Run("sync REBALANCE_IN_PROGRESS arms the join timer", func(t *testing.T) {
		h := mixed(t, CoordinatorConfig{})
		h.step(1000, Receive{From: "B", Msg: join("B", "foo")})
		h.cl(1100, "C", csync(9, "C-1", 2), `
			send coordinator->C classic SyncGroupResponse#9 error=REBALANCE_IN_PROGRESS
			set classic-join(C-1)@31100`)
	})
}

// TestClassicPolicy: under "disabled" (KAFKA-20640) a classic JoinGroup to
// a non-empty consumer group is refused with GROUP_ID_NOT_FOUND, a first
// join and a rejoin of a classic member alike; "upgrade" and "downgrade"
// admit it, and so does "disabled" before the fix... which Semantics does
// not reach from the coordinator: not tested here.
func TestClassicPolicy(t *testing.T) {
	for _, p := range []validate.MigrationPolicy{validate.PolicyBidirectional, validate.PolicyUpgrade, validate.PolicyDowngrade, validate.PolicyDisabled} {
		t.Run(p.String(), func(t *testing.T) {
			h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 3}, Migration: p})
			h.step(0, Receive{From: "A", Msg: join("A", "foo")})
			out := h.clStep(100, "C", cjoin(1, "C", "", "{}", "foo")).String()
			refused := strings.Contains(out, "error=GROUP_ID_NOT_FOUND")
			if refused != (p == validate.PolicyDisabled) || h.Node.IsMember("C-1") == refused {
				t.Fatalf("policy %s: %s", p, out)
			}
		})
	}
	// A classic member carried over by an upgrade cannot rejoin under
	// "disabled".
	cc := classicGroup(t, 2)
	c, _, err := FromClassicGroup(CoordinatorConfig{GroupID: "g", Topics: spec.Topics{"foo": 4}, Migration: validate.PolicyDisabled}, cc.Snapshot(), 0)
	if err != nil {
		t.Fatal(err)
	}
	id := c.Members()[0]
	out := c.Step(nodeInput(100, Receive{From: "x", Msg: Classic{Msg: cjoin(1, "x", string(id), "{}", "foo")}}))
	if got := out.String(); !strings.Contains(got, "JoinGroupResponse#1 error=GROUP_ID_NOT_FOUND") {
		t.Fatalf("rejoin under disabled: %s", got)
	}
}

// TestClassicJoinDetails: a JoinGroup without a rebalance timeout (v0)
// takes the session timeout as its rebalance timeout, for the sync timer
// and the member record; a generated member id skips an id a member
// already has (here a next-gen member's, whose ids its client makes up).
func TestClassicJoinDetails(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 3}})
	h.step(0, Receive{From: "C-1", Msg: join("C-1", "foo")})
	r := cjoin(1, "C", "", "{}", "foo")
	r.RebalanceTimeout = 0
	h.cl(100, "C", r, `
		send coordinator->C classic JoinGroupResponse#1 gen=2 protocol=range leader= member=C-2
		set session(C-2)@10100
		set classic-sync(C-2)@10100`)
	if m := h.mustMember("C-2"); m.RebalanceTimeout != classicSession || !m.Classic {
		t.Fatalf("member %+v", m)
	}
	if m := h.mustMember("C-1"); m.Classic {
		t.Fatalf("the next-gen member C-1 became classic: %+v", m)
	}
}

// TestClassicJoinToEmptyGroupPanics: a JoinGroup to a consumer group
// without members is the classic coordinator's (Kafka replaces the group
// offline); the caller routes it there, and Step panics on one.
func TestClassicJoinToEmptyGroupPanics(t *testing.T) {
	h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 1}})
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "empty consumer group") {
			t.Fatalf("recovered %v", r)
		}
	}()
	h.clStep(100, "C", cjoin(1, "C", "", "{}", "foo"))
}

// TestClassicResponseToCoordinatorPanics: a classic response sent to the
// coordinator is a driver bug.
func TestClassicResponseToCoordinatorPanics(t *testing.T) {
	h := mixed(t, CoordinatorConfig{})
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	h.clStep(1000, "C", classic.HeartbeatResponse{Seq: 1})
}

// TestClassicSyncTimerRestarts: each accepted JoinGroup restarts the sync
// timer (Kafka's schedule replaces it); one at the same deadline emits
// nothing.
func TestClassicSyncTimerRestarts(t *testing.T) {
	h := mixed(t, CoordinatorConfig{})
	h.cl(1000, "C", cjoin(9, "C", "C-1", "{foo-2}", "foo"), `
		send coordinator->C classic JoinGroupResponse#9 gen=2 protocol=range leader= member=C-1
		set session(C-1)@11000
		set classic-sync(C-1)@31000`)
	h.cl(1000, "C", cjoin(10, "C", "C-1", "{foo-2}", "foo"), `
		send coordinator->C classic JoinGroupResponse#10 gen=2 protocol=range leader= member=C-1`)
	h.cl(2000, "C", cjoin(11, "C", "C-1", "{foo-2}", "foo"), `
		send coordinator->C classic JoinGroupResponse#11 gen=2 protocol=range leader= member=C-1
		set session(C-1)@12000
		set classic-sync(C-1)@32000`)
	h.fire(31000, classicSyncT("C-1"), ``)
	if !h.Node.IsMember("C-1") {
		t.Fatal("a sync timer that was moved fenced the member")
	}
}

// TestClassicRecordInvariants: CheckInvariants refuses a classic record
// that is not one: on a member of the consumer protocol, without
// protocols, with a deadline for a timer not armed, and a rebalance timer
// on a classic member.
func TestClassicRecordInvariants(t *testing.T) {
	for name, edit := range map[string]func(m *member){
		"consumer member with a session":  func(m *member) { m.cl.use = false },
		"consumer member with a join":     func(m *member) { m.cl = classicMember{joinArmed: true} },
		"consumer member with a sync":     func(m *member) { m.cl = classicMember{syncArmed: true} },
		"consumer member with a deadline": func(m *member) { m.cl = classicMember{joinAt: 5} },
		"consumer member with a client":   func(m *member) { m.cl = classicMember{clientID: "x"} },
		"consumer member with a host":     func(m *member) { m.cl = classicMember{clientHost: "x"} },
		"consumer member with protocols":  func(m *member) { m.cl = classicMember{protocols: []classic.ProtocolMetadata{}} },
		"consumer member with a timeout":  func(m *member) { m.cl = classicMember{sessionTimeout: 1} },
		"consumer member with a sync at":  func(m *member) { m.cl = classicMember{syncAt: 5} },
		"no protocols":                    func(m *member) { m.cl.protocols = nil },
		"join deadline not armed":         func(m *member) { m.cl.joinAt = 5 },
		"sync deadline not armed":         func(m *member) { m.cl.syncAt = 5 },
		"rebalance timer": func(m *member) {
			m.cur.State, m.rebalanceArmed, m.rebalanceEpoch = reconcile.UnrevokedPartitions, true, m.cur.Epoch
			m.cur.PendingRevocation = m.cur.Assigned
			m.cur.Assigned = nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			h := mixed(t, CoordinatorConfig{})
			m := *h.Node.members.Get("C-1")
			edit(&m)
			h.Node.members.Put(m.id, &m)
			if err := h.Node.CheckInvariants(); err == nil {
				t.Fatalf("no error for\n%s", h.Node)
			}
		})
	}
	h := mixed(t, CoordinatorConfig{})
	if err := h.Node.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}
