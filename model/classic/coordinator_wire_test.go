package classic

import (
	"testing"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// The tests in this file cover what the coordinator needs to answer real
// Kafka clients: JoinGroup v4+ (MEMBER_ID_REQUIRED and pending ids,
// KIP-394), SyncGroup v5+ protocol checks, generated-id prefixes, commit
// fencing and DescribeGroups.

// coordJoinV4 is coordJoin with RequireKnownMemberID set (JoinGroup v4+).
func coordJoinV4(seq uint64, client string, id spec.MemberID, protos ...string) JoinGroupRequest {
	r := coordJoin(seq, client, id, protos...)
	r.RequireKnownMemberID = true
	return r
}

// TestCoordinatorMemberIDRequired walks KIP-394: a new dynamic member's
// first JoinGroup gets a pending id with MEMBER_ID_REQUIRED and changes
// nothing else; it joins when it sends that id back.
func TestCoordinatorMemberIDRequired(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	h.Expect(0, Receive{From: "A", Msg: coordJoinV4(1, "A", "", "range")}, `
		send coordinator->A JoinGroupResponse#1 error=MEMBER_ID_REQUIRED member=A-1
		set session(A-1)@10000
	`)
	if h.Node.State() != GroupEmpty || len(h.Node.Members()) != 0 {
		t.Fatalf("a pending id changed the group:\n%s", h.Node)
	}
	h.ExpectState(`
		group g state=Empty gen=0 type=- protocol=- leader=- join-timer=- next-id=2 next-arrival=1
		pending A-1 session-timer=@10000
	`)
	h.Expect(50, Receive{From: "A", Msg: coordJoinV4(2, "A", "A-1", "range")}, `
		send coordinator->A JoinGroupResponse#2 gen=1 protocol=range leader=A-1 member=A-1 [A-1 range-md]
		cancel session(A-1)
		set session(A-1)@10050
	`)
	if d := h.Node.Describe(); len(d.Pending) != 0 || len(d.Members) != 1 || d.Members[0].ID != "A-1" {
		t.Fatalf("after the join: %+v", d)
	}
	// A static member is never made to wait: it joins at once (Kafka's
	// classicGroupJoinNewStaticMember).
	h.Expect(100, Receive{From: "S", Msg: func() JoinGroupRequest {
		r := coordJoinV4(1, "S", "", "range")
		r.InstanceID = "s1"
		return r
	}()}, `
		set session(S-2)@10100
		set join@30100
	`)
}

// TestCoordinatorPendingIDs: a pending id holds up a join barrier until it
// joins, leaves (a leave also counts as a membership change, so a stable
// group rebalances, as Kafka's LeaveGroup does) or expires; it cannot
// heartbeat or sync, cannot be static, and a group that filled up while
// it was pending refuses it.
func TestCoordinatorPendingIDs(t *testing.T) {
	t.Run("barrier waits for a pending id until it expires", func(t *testing.T) {
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h, coordABC()[:2]...)
		h.Expect(1000, Receive{From: "C", Msg: coordJoinV4(1, "C", "", "range")}, `
			send coordinator->C JoinGroupResponse#1 error=MEMBER_ID_REQUIRED member=C-3
			set session(C-3)@11000
		`)
		// A and B rejoin (the leader's join starts the rebalance), but C-3
		// is pending, so the barrier stays up.
		h.Expect(1100, Receive{From: "A", Msg: coordJoin(3, "A", "A-1", "range")}, `
			set session(A-1)@11100
			set join@31100
		`)
		h.Expect(1200, Receive{From: "B", Msg: coordJoin(2, "B", "B-2", "range")}, `
			set session(B-2)@11200
		`)
		if h.Node.State() != GroupPreparingRebalance {
			t.Fatalf("the barrier fell with a pending id:\n%s", h.Node)
		}
		// Heartbeat and SyncGroup from a pending id: it is not a member.
		h.Expect(1300, Receive{From: "C", Msg: HeartbeatRequest{Seq: 2, MemberID: "C-3", Generation: 2}}, `
			send coordinator->C HeartbeatResponse#2 error=UNKNOWN_MEMBER_ID gen=2
		`)
		h.Expect(1400, Receive{From: "C", Msg: SyncGroupRequest{Seq: 3, MemberID: "C-3", Generation: 2}}, `
			send coordinator->C SyncGroupResponse#3 error=UNKNOWN_MEMBER_ID
		`)
		// The pending id expires: the barrier completes with A and B.
		h.fire(11000, coordSessionTimer("C-3"), `
			send coordinator->A JoinGroupResponse#3 gen=3 protocol=range leader=A-1 member=A-1 [A-1 range-md] [B-2 range-md]
			send coordinator->B JoinGroupResponse#2 gen=3 protocol=range leader=A-1 member=B-2
			cancel join
			set session(A-1)@21000
			set session(B-2)@21000
		`)
	})
	t.Run("a pending id that leaves rebalances a stable group", func(t *testing.T) {
		h := newCoordHarness(t, CoordinatorConfig{})
		coordForm(h, coordABC()[:1]...)
		h.recv("B", coordJoinV4(1, "B", "", "range"))
		h.Expect(500, Receive{From: "B", Msg: LeaveGroupRequest{Seq: 2, MemberID: "B-2"}}, `
			send coordinator->B LeaveGroupResponse#2 error=NONE
			cancel session(B-2)
			set join@30500
		`)
		if h.Node.State() != GroupPreparingRebalance {
			t.Fatalf("state %s, want PreparingRebalance", h.Node.State())
		}
	})
	t.Run("a pending id with an instance id is refused", func(t *testing.T) {
		h := newCoordHarness(t, CoordinatorConfig{})
		h.recv("A", coordJoinV4(1, "A", "", "range"))
		r := coordJoinV4(2, "A", "A-1", "range")
		r.InstanceID = "i"
		h.Expect(10, Receive{From: "A", Msg: r}, `
			send coordinator->A JoinGroupResponse#2 error=UNKNOWN_SERVER_ERROR
		`)
	})
	t.Run("a group that filled up refuses and forgets a pending id", func(t *testing.T) {
		h := newCoordHarness(t, CoordinatorConfig{MaxSize: 1})
		h.recv("B", coordJoinV4(1, "B", "", "range"))
		h.recv("A", coordJoin(1, "A", "", "range"))
		h.Expect(10, Receive{From: "B", Msg: coordJoinV4(2, "B", "B-1", "range")}, `
			send coordinator->B JoinGroupResponse#2 error=GROUP_MAX_SIZE_REACHED
			cancel session(B-1)
		`)
		if d := h.Node.Describe(); len(d.Pending) != 0 || len(d.Members) != 1 {
			t.Fatalf("after the refusal: %+v", d)
		}
	})
}

// TestCoordinatorMemberIDPrefix: generated ids carry the configured
// prefix, and a prefix that would make ids ambiguous is refused.
func TestCoordinatorMemberIDPrefix(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{MemberIDPrefix: "x7f"})
	h.Expect(0, Receive{From: "A", Msg: coordJoinV4(1, "kgo", "", "range")}, `
		send coordinator->A JoinGroupResponse#1 error=MEMBER_ID_REQUIRED member=kgo-x7f1
		set session(kgo-x7f1)@10000
	`)
	for _, bad := range []string{"a-b", "a b"} {
		if _, err := NewCoordinator(CoordinatorConfig{GroupID: "g", MemberIDPrefix: bad}); err == nil {
			t.Errorf("MemberIDPrefix %q accepted", bad)
		}
	}
}

// TestCoordinatorSyncProtocolChecks: SyncGroup v5+ names the protocol
// type and name; either, when sent, must be the group's.
func TestCoordinatorSyncProtocolChecks(t *testing.T) {
	str := func(s string) *string { return &s }
	cases := []struct {
		name       string
		typ, proto *string
		want       string
	}{
		{"both null", nil, nil, "SyncGroupResponse#9 asg-A-1"},
		{"both match", str("consumer"), str("range"), "SyncGroupResponse#9 asg-A-1"},
		{"other type", str("connect"), str("range"), "SyncGroupResponse#9 error=INCONSISTENT_GROUP_PROTOCOL"},
		{"other name", str("consumer"), str("roundrobin"), "SyncGroupResponse#9 error=INCONSISTENT_GROUP_PROTOCOL"},
		{"empty name", nil, str(""), "SyncGroupResponse#9 error=INCONSISTENT_GROUP_PROTOCOL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newCoordHarness(t, CoordinatorConfig{})
			coordForm(h, coordABC()[:1]...)
			h.Now = 100
			out := h.Node.Step(node.Input{Now: 100, Event: Receive{From: "A", Msg: SyncGroupRequest{Seq: 9, MemberID: "A-1", Generation: 1, ProtocolType: tc.typ, ProtocolName: tc.proto}}})
			if len(out.Messages) != 1 || out.Messages[0].Msg.String() != tc.want {
				t.Fatalf("got %s, want %s", out, tc.want)
			}
			if r := out.Messages[0].Msg.(SyncGroupResponse); r.Error == spec.None && (r.ProtocolType != "consumer" || r.ProtocolName != "range") {
				t.Fatalf("response names %q/%q", r.ProtocolType, r.ProtocolName)
			}
		})
	}
}

// TestCoordinatorOffsetCommitFencing is ClassicGroup.validateOffsetCommit
// case by case, in every group state, plus the session rule of
// commitOffset.
func TestCoordinatorOffsetCommitFencing(t *testing.T) {
	type build func(h *coordHarness)
	empty := func(h *coordHarness) {}
	stable := func(h *coordHarness) { coordForm(h, coordABC()[:2]...) }
	preparing := func(h *coordHarness) {
		stable(h)
		h.recv("A", coordJoin(9, "A", "A-1", "range")) // the leader's rejoin starts a rebalance
	}
	completing := func(h *coordHarness) {
		preparing(h)
		h.recv("B", coordJoin(9, "B", "B-2", "range"))
	}
	static := func(h *coordHarness) {
		coordForm(h, coordMemberSpec{node: "A", instance: "a", protos: []string{"range"}})
	}
	cases := []struct {
		name    string
		group   build
		req     OffsetCommitRequest
		want    spec.ErrorCode
		session bool // the member's session restarts
	}{
		{"admin commit to an empty group", empty, OffsetCommitRequest{Generation: -1}, spec.None, false},
		{"v0 commit to an empty group", empty, OffsetCommitRequest{Generation: -1}, spec.None, false},
		{"admin commit to a live group", stable, OffsetCommitRequest{Generation: -1}, spec.UnknownMemberID, false},
		{"generation but no member", empty, OffsetCommitRequest{Generation: 0}, spec.UnknownMemberID, false},
		{"current member and generation", stable, OffsetCommitRequest{MemberID: "B-2", Generation: 2}, spec.None, true},
		{"stale generation", stable, OffsetCommitRequest{MemberID: "B-2", Generation: 1}, spec.IllegalGeneration, false},
		{"future generation", stable, OffsetCommitRequest{MemberID: "B-2", Generation: 3}, spec.IllegalGeneration, false},
		{"unknown member", stable, OffsetCommitRequest{MemberID: "Z-9", Generation: 2}, spec.UnknownMemberID, false},
		{"member id without generation", stable, OffsetCommitRequest{MemberID: "B-2", Generation: -1}, spec.IllegalGeneration, false},
		{"during PreparingRebalance", preparing, OffsetCommitRequest{MemberID: "A-1", Generation: 2}, spec.None, true},
		{"during CompletingRebalance", completing, OffsetCommitRequest{MemberID: "A-1", Generation: 3}, spec.RebalanceInProgress, false},
		{"old generation during CompletingRebalance", completing, OffsetCommitRequest{MemberID: "A-1", Generation: 2}, spec.IllegalGeneration, false},
		{"static member", static, OffsetCommitRequest{MemberID: "A-1", InstanceID: "a", Generation: 1}, spec.None, true},
		{"fenced static instance", static, OffsetCommitRequest{MemberID: "A-0", InstanceID: "a", Generation: 1}, spec.FencedInstanceID, false},
		{"unknown static instance", static, OffsetCommitRequest{MemberID: "A-1", InstanceID: "b", Generation: 1}, spec.UnknownMemberID, false},
		{"instance id alone (no member id, no generation)", static, OffsetCommitRequest{InstanceID: "a", Generation: -1}, spec.FencedInstanceID, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newCoordHarness(t, CoordinatorConfig{})
			tc.group(h)
			before := h.Node.String()
			tc.req.Seq = 77
			h.Now = 5000
			out := h.Node.Step(node.Input{Now: h.Now, Event: Receive{From: "X", Msg: tc.req}})
			if err := h.Node.CheckInvariants(); err != nil {
				t.Fatal(err)
			}
			if len(out.Messages) != 1 {
				t.Fatalf("got %s", out)
			}
			got := out.Messages[0].Msg.(OffsetCommitResponse)
			if got.Error != tc.want || got.Seq != 77 || out.Messages[0].To != "X" {
				t.Fatalf("got %s to %s, want error=%s", got, out.Messages[0].To, tc.want)
			}
			restarted := len(out.Timers) == 1 && out.Timers[0] == TimerCmd{Timer: coordSessionTimer(tc.req.MemberID), At: 5000 + coordSession}
			if restarted != tc.session || (!tc.session && len(out.Timers) != 0) {
				t.Fatalf("timers %v, want session restart %t", out.Timers, tc.session)
			}
			if !tc.session && h.Node.String() != before {
				t.Fatalf("a commit changed the group:\nbefore:\n%s\nafter:\n%s", before, h.Node)
			}
			// With AcceptStaleCommits every commit is accepted.
			f := newCoordHarness(t, CoordinatorConfig{Faults: AcceptStaleCommits})
			tc.group(f)
			out = f.Node.Step(node.Input{Now: 5000, Event: Receive{From: "X", Msg: tc.req}})
			if got := out.Messages[0].Msg.(OffsetCommitResponse); got.Error != spec.None {
				t.Fatalf("accept-stale-commits: got %s", got)
			}
		})
	}
}

// TestCoordinatorDescribe: Describe copies members, their metadata for the
// selected protocol and their stored assignments, and shares nothing with
// the coordinator.
func TestCoordinatorDescribe(t *testing.T) {
	h := newCoordHarness(t, CoordinatorConfig{})
	r := coordJoin(1, "A", "", "range=A-sub", "roundrobin=A-rr")
	r.ClientHost = "/127.0.0.1"
	h.recv("A", r)
	h.recv("A", SyncGroupRequest{Seq: 2, MemberID: "A-1", Generation: 1, Assignments: []MemberAssignment{{MemberID: "A-1", Assignment: "asg"}}})
	d := h.Node.Describe()
	if d.State != GroupStable || d.Generation != 1 || d.ProtocolType != "consumer" || d.Protocol != "range" || d.Leader != "A-1" || len(d.Members) != 1 {
		t.Fatalf("group: %+v", d)
	}
	m := d.Members[0]
	if m.ID != "A-1" || m.ClientID != "A" || m.ClientHost != "/127.0.0.1" || m.Metadata != "A-sub" || m.Assignment != "asg" || m.SessionTimeout != coordSession || m.RebalanceTimeout != coordRebalance {
		t.Fatalf("member: %+v", m)
	}
	m.Protocols[0].Name = "changed"
	if h.Node.Describe().Members[0].Protocols[0].Name != "range" {
		t.Fatal("Describe shares the protocol list with the coordinator")
	}
}
