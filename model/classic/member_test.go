package classic

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/node/nodetest"
	"github.com/rebalance-ref/rebalance/spec"
)

// fakeProtocol is a Protocol whose assignment the test supplies. It records
// the LeaderInput of every call in *calls when calls is set.
type fakeProtocol struct {
	name   string
	coop   bool
	sticky bool
	assign func(LeaderInput) (LeaderResult, error)
	calls  *[]LeaderInput
}

func (p fakeProtocol) Name() string      { return p.name }
func (p fakeProtocol) Cooperative() bool { return p.coop }
func (p fakeProtocol) KeepsClaims() bool { return p.sticky }
func (p fakeProtocol) Assign(in LeaderInput) (LeaderResult, error) {
	if p.calls != nil {
		*p.calls = append(*p.calls, in)
	}
	if p.assign == nil {
		return LeaderResult{}, errors.New("fake: no assignment configured")
	}
	return p.assign(in)
}

var (
	coopProto  = fakeProtocol{name: "coop", coop: true}
	eagerProto = fakeProtocol{name: "eager"}
)

// fixed returns an assign function that always returns as and mem.
func fixed(as map[spec.MemberID]Assignment, mem LeaderMemory) func(LeaderInput) (LeaderResult, error) {
	return func(LeaderInput) (LeaderResult, error) {
		return LeaderResult{Assignments: maps.Clone(as), Memory: mem.Clone()}, nil
	}
}

func set(t testing.TB, s string) spec.Set { return nodetest.Set(t, s) }

// testConfig is member A, subscribed to t, knowing t:4 and u:2, speaking
// the cooperative fake protocol, with the default timeouts.
func testConfig(mods ...func(*MemberConfig)) MemberConfig {
	cfg := MemberConfig{
		Name:      "A",
		Topics:    []string{"t"},
		Protocols: []Protocol{coopProto},
		Metadata:  spec.Topics{"t": 4, "u": 2},
	}
	for _, f := range mods {
		f(&cfg)
	}
	return cfg
}

func withProtocols(ps ...Protocol) func(*MemberConfig) {
	return func(c *MemberConfig) { c.Protocols = ps }
}

func withFaults(f Faults) func(*MemberConfig) { return func(c *MemberConfig) { c.Faults = f } }

func withTopics(ts ...string) func(*MemberConfig) { return func(c *MemberConfig) { c.Topics = ts } }

// harness drives one member and remembers the last request of each kind it
// sent, so responses can echo the right Seq.
type harness struct {
	t    *testing.T
	m    *Member
	now  Millis
	join JoinGroupRequest
	sync SyncGroupRequest
	hb   HeartbeatRequest
}

func newHarness(t *testing.T, cfg MemberConfig) *harness {
	return &harness{t: t, m: nodetest.Must(NewMember(cfg))}
}

// step steps the member, and in lockstep a copy of it that has forgotten
// its codec memo (memo.go), as a reference: both must give the same output
// and end in the same state, and the memo must still hold what printing
// and reading its sets gives.
func (h *harness) step(e node.Event) Output {
	ref := h.m.Clone()
	ref.memo = nil
	// The reference's protocols record no calls: the test counts the
	// member's. (The copies share their configuration: the reference
	// gets its own.)
	cfg := *ref.cfg
	ref.cfg = &cfg
	ref.cfg.Protocols = slices.Clone(ref.cfg.Protocols)
	for i, p := range ref.cfg.Protocols {
		if f, ok := p.(fakeProtocol); ok {
			f.calls = nil
			ref.cfg.Protocols[i] = f
		}
	}
	out := h.m.Step(node.Input{Now: h.now, Event: e})
	want := ref.Step(node.Input{Now: h.now, Event: e})
	if !reflect.DeepEqual(out, want) || h.m.String() != ref.String() {
		h.t.Fatalf("%s: with the codec memo:\n%s\n%s\nwithout:\n%s\n%s", e, out, h.m, want, ref)
	}
	checkMemoUnchanged(h.t, h.m)
	for _, env := range out.Messages {
		if env.From != h.m.cfg.Name || env.To != CoordinatorNode {
			h.t.Fatalf("message %s: want %s->%s", env, h.m.cfg.Name, CoordinatorNode)
		}
		switch r := env.Msg.(type) {
		case JoinGroupRequest:
			h.join = r
		case SyncGroupRequest:
			h.sync = r
		case HeartbeatRequest:
			h.hb = r
		}
	}
	return out
}

func (h *harness) recv(msg Message) Output { return h.step(Receive{From: CoordinatorNode, Msg: msg}) }

// joinResp answers the last JoinGroup; a zero Generation means "the next
// one", a zero MemberID "A-1" and a zero Leader "L-1".
func (h *harness) joinResp(r JoinGroupResponse) Output {
	r.Seq = h.join.Seq
	if r.Error == spec.None {
		if r.Generation == 0 {
			r.Generation = max(h.m.Generation(), 0) + 1
		}
		if r.MemberID == "" {
			r.MemberID = "A-1"
		}
		if r.Leader == "" {
			r.Leader = "L-1"
		}
		if r.ProtocolName == "" {
			r.ProtocolName = h.m.cfg.Protocols[0].Name()
		}
	}
	return h.recv(r)
}

func (h *harness) syncResp(a Assignment) Output {
	return h.recv(SyncGroupResponse{Seq: h.sync.Seq, Assignment: a.Encode()})
}

func (h *harness) syncErr(code spec.ErrorCode) Output {
	return h.recv(SyncGroupResponse{Seq: h.sync.Seq, Error: code})
}

// round takes the member through one round as a non-leader, from Unjoined
// or Stable, ending Stable with owned.
func (h *harness) round(owned spec.Set) Output {
	h.t.Helper()
	switch h.m.State() {
	case Unjoined:
		h.step(node.Start{})
	case Stable:
		h.step(RequestRejoin{Reason: "test"})
	}
	h.joinResp(JoinGroupResponse{})
	out := h.syncResp(Assignment{Assigned: owned, Leader: "L-1"})
	if h.m.State() != Stable {
		h.t.Fatalf("after a round: state %s, want stable\n%s", h.m.State(), h.m)
	}
	return out
}

func wantOutput(t *testing.T, what string, got Output, want string) {
	t.Helper()
	if got.String() != want {
		t.Errorf("%s:\ngot:\n%swant:\n%s", what, got, want)
	}
}

func TestMemberJoinSyncStable(t *testing.T) {
	var calls []LeaderInput
	mem := LeaderMemory{Generation: 1, Members: []spec.MemberID{"A-1", "B-1"}}
	proto := fakeProtocol{name: "coop", coop: true, sticky: true, calls: &calls, assign: fixed(map[spec.MemberID]Assignment{
		"A-1": {Assigned: set(t, "{t-0 t-1}")},
		"B-1": {Assigned: set(t, "{t-2 t-3}")},
	}, mem)}
	empty := Subscription{Topics: []string{"t"}, Generation: spec.NoGeneration}.Encode()
	tests := []struct {
		name      string
		resp      JoinGroupResponse
		wantSync  string
		wantRound bool
	}{{
		name: "leader",
		resp: JoinGroupResponse{Generation: 1, Leader: "A-1", MemberID: "A-1", ProtocolName: "coop", Members: []JoinedMember{
			{MemberID: "B-1", Metadata: empty}, {MemberID: "A-1", Metadata: empty}, // unsorted on purpose
		}},
		wantSync: "send A->coordinator SyncGroup#2 member=A-1 gen=1" +
			" [A-1 assigned={t-0 t-1};revoked={};delay=0;leader=A-1;error=0]" +
			" [B-1 assigned={t-2 t-3};revoked={};delay=0;leader=A-1;error=0]\n" +
			"set request@1010000\nset heartbeat@1003000\n",
		wantRound: true,
	}, {
		name:     "follower",
		resp:     JoinGroupResponse{Generation: 1, Leader: "B-1", MemberID: "A-1", ProtocolName: "coop"},
		wantSync: "send A->coordinator SyncGroup#2 member=A-1 gen=1\nset request@1010000\nset heartbeat@1003000\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls = nil
			h := newHarness(t, testConfig(withProtocols(proto)))
			h.now = 1000000
			wantOutput(t, "start", h.step(node.Start{}),
				"send A->coordinator JoinGroup#1 member=- protocols=[coop=topics=[t];owned={};gen=-1;leader=-]\nset request@1035000\n")
			if h.join.ClientID != "A" || h.join.ProtocolType != "consumer" || h.join.SessionTimeout != 10000 || h.join.RebalanceTimeout != 30000 {
				t.Errorf("JoinGroup fields: %+v", h.join)
			}
			if h.m.State() != Joining {
				t.Fatalf("state %s, want joining", h.m.State())
			}
			out := h.joinResp(tt.resp)
			wantOutput(t, "join response", out, tt.wantSync)
			if h.m.State() != AwaitingSync || h.m.ID() != "A-1" || h.m.Generation() != 1 {
				t.Fatalf("after join: %s", h.m)
			}
			if (out.Round != nil) != tt.wantRound {
				t.Fatalf("Round = %v, want present=%v", out.Round, tt.wantRound)
			}
			if tt.wantRound {
				if len(calls) != 1 {
					t.Fatalf("Assign called %d times", len(calls))
				}
				in := calls[0]
				if in.Generation != 1 || in.Leader != "A-1" || in.LastCompletedGeneration != spec.NoGeneration ||
					len(in.Members) != 2 || in.Members[0].ID != "A-1" || !maps.Equal(in.Topics, spec.Topics{"t": 4, "u": 2}) || in.Now != 1000000 {
					t.Errorf("LeaderInput: %+v", in)
				}
				r := out.Round
				if !r.Cooperative || !r.Sticky || !r.Assigned.Equal(spec.Assignment{"A-1": set(t, "{t-0 t-1}"), "B-1": set(t, "{t-2 t-3}")}) ||
					!slices.Equal(r.Subscriptions["B-1"], []string{"t"}) || len(r.Claims) != 2 {
					t.Errorf("Round: %+v", r)
				}
				if got := h.m.LeaderMemory(); got.Generation != 1 || len(got.Members) != 2 {
					t.Errorf("leader memory not kept: %+v", got)
				}
			} else if len(calls) != 0 {
				t.Errorf("a follower called Assign")
			}
			h.now += 10
			wantOutput(t, "sync response", h.syncResp(Assignment{Assigned: set(t, "{t-0 t-1}"), Leader: tt.resp.Leader}),
				"cancel request\ncallback assigned {t-0 t-1} gen=1\n")
			if h.m.State() != Stable || !h.m.Owned().Equal(set(t, "{t-0 t-1}")) || h.m.LastCompletedGeneration() != 1 {
				t.Fatalf("after sync: %s", h.m)
			}
			v := h.m.View()
			if v.Name != "A" || v.ID != "A-1" || v.Generation != 1 || !v.Owns.Equal(set(t, "{t-0 t-1}")) || !slices.Equal(v.Subscription, []string{"t"}) || v.Current || v.Fenced {
				t.Errorf("View: %+v", v)
			}
			// The next JoinGroup claims the assignment with its generation and leader.
			h.step(RequestRejoin{})
			want := Subscription{Topics: []string{"t"}, Owned: set(t, "{t-0 t-1}"), Generation: 1, Leader: tt.resp.Leader}.Encode()
			if got := h.join.Protocols[0].Metadata; got != want {
				t.Errorf("rejoin subscription %s, want %s", got, want)
			}
		})
	}
}

func TestMemberRejoinRevokes(t *testing.T) {
	tests := []struct {
		name      string
		cfg       MemberConfig
		wantEager bool
		want      string
	}{{
		name: "cooperative keeps what it owns",
		cfg:  testConfig(),
		want: "send A->coordinator JoinGroup#3 member=A-1 protocols=[coop=topics=[t];owned={t-0 t-1};gen=1;leader=L-1]\nset request@35000\n",
	}, {
		name:      "eager revokes everything first",
		cfg:       testConfig(withProtocols(eagerProto)),
		wantEager: true,
		want: "send A->coordinator JoinGroup#3 member=A-1 protocols=[eager=topics=[t];owned={};gen=1;leader=L-1]\nset request@35000\n" +
			"callback revoked {t-0 t-1} gen=1\n",
	}, {
		name:      "one eager protocol makes the member eager (KIP-429)",
		cfg:       testConfig(withProtocols(coopProto, eagerProto)),
		wantEager: true,
		want: "send A->coordinator JoinGroup#3 member=A-1 protocols=[coop=topics=[t];owned={};gen=1;leader=L-1 eager=topics=[t];owned={};gen=1;leader=L-1]\nset request@35000\n" +
			"callback revoked {t-0 t-1} gen=1\n",
	}, {
		name:      "EagerNoRevoke keeps everything",
		cfg:       testConfig(withProtocols(eagerProto), withFaults(EagerNoRevoke)),
		wantEager: true,
		want:      "send A->coordinator JoinGroup#3 member=A-1 protocols=[eager=topics=[t];owned={t-0 t-1};gen=1;leader=L-1]\nset request@35000\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.cfg)
			if h.m.Eager() != tt.wantEager {
				t.Fatalf("Eager() = %v", h.m.Eager())
			}
			h.round(set(t, "{t-0 t-1}"))
			wantOutput(t, "rejoin", h.step(RequestRejoin{Reason: "test"}), tt.want)
			if h.m.State() != Joining {
				t.Fatalf("state %s", h.m.State())
			}
		})
	}
}

func TestMemberSyncApplies(t *testing.T) {
	tests := []struct {
		name      string
		cfg       MemberConfig
		assign    Assignment
		want      string
		wantState MemberState
		wantOwned string
		wantOwns  string // View().Owns
		// notCompleted: the assignment is not applied, so the generation
		// does not count as completed.
		notCompleted bool
	}{{
		name:      "cooperative revocation triggers the follow-up rejoin (KIP-429)",
		cfg:       testConfig(),
		assign:    Assignment{Assigned: set(t, "{t-0}"), Revoked: set(t, "{t-1}")},
		want:      "send A->coordinator JoinGroup#5 member=A-1 protocols=[coop=topics=[t];owned={t-0};gen=2;leader=L-1]\ncancel request\nset request@35000\ncallback revoked {t-1} gen=1\n",
		wantState: Joining, wantOwned: "{t-0}", wantOwns: "{t-0}",
	}, {
		name:      "implicit revocation (owned minus assigned) also follows up",
		cfg:       testConfig(),
		assign:    Assignment{Assigned: set(t, "{t-1 t-2}")},
		want:      "send A->coordinator JoinGroup#5 member=A-1 protocols=[coop=topics=[t];owned={t-1 t-2};gen=2;leader=L-1]\ncancel request\nset request@35000\ncallback revoked {t-0} gen=1\ncallback assigned {t-2} gen=2\n",
		wantState: Joining, wantOwned: "{t-1 t-2}", wantOwns: "{t-1 t-2}",
	}, {
		name:      "a revocation of something the member no longer holds still asks for the follow-up (restarted static member)",
		cfg:       testConfig(),
		assign:    Assignment{Assigned: set(t, "{t-0 t-1}"), Revoked: set(t, "{t-2}")},
		want:      "send A->coordinator JoinGroup#5 member=A-1 protocols=[coop=topics=[t];owned={t-0 t-1};gen=2;leader=L-1]\ncancel request\nset request@35000\n",
		wantState: Joining, wantOwned: "{t-0 t-1}", wantOwns: "{t-0 t-1}",
	}, {
		name:      "no revocation, no follow-up",
		cfg:       testConfig(),
		assign:    Assignment{Assigned: set(t, "{t-0 t-1 t-2}")},
		want:      "cancel request\ncallback assigned {t-2} gen=2\n",
		wantState: Stable, wantOwned: "{t-0 t-1 t-2}", wantOwns: "{t-0 t-1 t-2}",
	}, {
		name:      "eager member gets everything back without a follow-up",
		cfg:       testConfig(withProtocols(eagerProto)),
		assign:    Assignment{Assigned: set(t, "{t-0}")},
		want:      "cancel request\ncallback assigned {t-0} gen=2\n",
		wantState: Stable, wantOwned: "{t-0}", wantOwns: "{t-0}",
	}, {
		name:      "KeepRevoked keeps working on the revoked resource but does not claim it",
		cfg:       testConfig(withFaults(KeepRevoked)),
		assign:    Assignment{Assigned: set(t, "{t-0}"), Revoked: set(t, "{t-1}")},
		want:      "send A->coordinator JoinGroup#5 member=A-1 protocols=[coop=topics=[t];owned={t-0};gen=2;leader=L-1]\ncancel request\nset request@35000\n",
		wantState: Joining, wantOwned: "{t-0}", wantOwns: "{t-0 t-1}",
	}, {
		name:      "an assignment for an older subscription is not applied; the member rejoins (Kafka's onJoinComplete)",
		cfg:       testConfig(),
		assign:    Assignment{Assigned: set(t, "{t-0 t-1 u-0}")},
		want:      "send A->coordinator JoinGroup#5 member=A-1 protocols=[coop=topics=[t];owned={t-0 t-1};gen=2;leader=L-1]\ncancel request\nset request@35000\n",
		wantState: Joining, wantOwned: "{t-0 t-1}", wantOwns: "{t-0 t-1}", notCompleted: true,
	}, {
		name:      "an assignment carrying an error changes nothing",
		cfg:       testConfig(),
		assign:    Assignment{Assigned: set(t, "{t-3}"), Error: spec.UnknownServerError},
		want:      "cancel request\n",
		wantState: Stable, wantOwned: "{t-0 t-1}", wantOwns: "{t-0 t-1}",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.cfg)
			h.round(set(t, "{t-0 t-1}"))
			h.step(RequestRejoin{})
			h.joinResp(JoinGroupResponse{})
			tt.assign.Leader = "L-1"
			wantOutput(t, "sync", h.syncResp(tt.assign), tt.want)
			if h.m.State() != tt.wantState || h.m.Owned().String() != tt.wantOwned || h.m.View().Owns.String() != tt.wantOwns {
				t.Errorf("state %s owned %s owns %s, want %s %s %s", h.m.State(), h.m.Owned(), h.m.View().Owns, tt.wantState, tt.wantOwned, tt.wantOwns)
			}
			wantLast := spec.Generation(2)
			if tt.assign.Error != spec.None || tt.notCompleted {
				wantLast = 1
			}
			if h.m.LastCompletedGeneration() != wantLast {
				t.Errorf("last completed %d, want %d", h.m.LastCompletedGeneration(), wantLast)
			}
		})
	}
}

func TestMemberScheduledRebalance(t *testing.T) {
	h := newHarness(t, testConfig())
	h.step(node.Start{})
	h.joinResp(JoinGroupResponse{})
	h.now = 100
	wantOutput(t, "sync with delay", h.syncResp(Assignment{Delay: 5000}), "cancel request\nset scheduled-rebalance@5100\n")
	// A later round without a delay does not cancel the scheduled rebalance.
	h.now = 200
	h.round(set(t, "{t-0}"))
	if !h.m.timers[ScheduledRebalanceTimer].Armed {
		t.Fatalf("a round without a delay cancelled the scheduled rebalance:\n%s", h.m)
	}
	h.now = 5099
	wantOutput(t, "early firing", h.step(TimerFired{Timer: Timer{Kind: ScheduledRebalanceTimer}}), "")
	h.now = 5100
	wantOutput(t, "due firing", h.step(TimerFired{Timer: Timer{Kind: ScheduledRebalanceTimer}}),
		"send A->coordinator JoinGroup#5 member=A-1 protocols=[coop=topics=[t];owned={t-0};gen=2;leader=L-1]\nset request@40100\n")
	wantOutput(t, "fired twice", h.step(TimerFired{Timer: Timer{Kind: ScheduledRebalanceTimer}}), "")
}

// TestMemberErrors checks the member's reaction to every error code of
// JoinGroup, SyncGroup and Heartbeat, starting from a cooperative member
// that owns {t-0} at generation 1.
func TestMemberErrors(t *testing.T) {
	type phase int
	const (
		join phase = iota
		sync
		heartbeat
	)
	tests := []struct {
		phase     phase
		code      spec.ErrorCode
		memberID  spec.MemberID // JoinGroupResponse.MemberID
		callbacks string        // kinds, space separated
		state     MemberState
		id        spec.MemberID
		gen       spec.Generation
		rejoin    bool   // a JoinGroup was sent
		claim     string // the JoinGroup's subscription, if rejoin
		faults    Faults
	}{
		{phase: join, code: spec.UnknownMemberID, callbacks: "lost", state: Joining, id: "", gen: -1, rejoin: true, claim: "topics=[t];owned={};gen=-1;leader=-"},
		{phase: join, code: spec.FencedInstanceID, callbacks: "lost fatal", state: Failed, id: "A-1", gen: 1},
		{phase: join, code: spec.InconsistentGroupProtocol, callbacks: "lost fatal", state: Failed, id: "A-1", gen: 1},
		{phase: join, code: spec.InvalidSessionTimeout, callbacks: "lost fatal", state: Failed, id: "A-1", gen: 1},
		{phase: join, code: spec.GroupMaxSizeReached, callbacks: "lost fatal", state: Failed, id: "A-1", gen: 1},
		{phase: join, code: spec.RebalanceInProgress, state: Joining, id: "A-1", gen: 1, rejoin: true, claim: "topics=[t];owned={t-0};gen=1;leader=L-1"},
		{phase: join, code: spec.CoordinatorNotAvailable, state: Joining, id: "A-1", gen: 1, rejoin: true, claim: "topics=[t];owned={t-0};gen=1;leader=L-1"},
		{phase: join, code: spec.MemberIDRequired, memberID: "A-9", state: Joining, id: "A-9", gen: 1, rejoin: true, claim: "topics=[t];owned={t-0};gen=1;leader=L-1"},
		{phase: join, code: spec.MemberIDRequired, callbacks: "lost fatal", state: Failed, id: "A-1", gen: 1},
		{phase: join, code: spec.InvalidRequest, callbacks: "lost fatal", state: Failed, id: "A-1", gen: 1},

		{phase: sync, code: spec.RebalanceInProgress, state: Joining, id: "A-1", gen: 2, rejoin: true, claim: "topics=[t];owned={t-0};gen=2;leader=L-1"},
		{phase: sync, code: spec.RebalanceInProgress, faults: SyncRebalanceResetsGeneration, callbacks: "lost", state: Joining, id: "A-1", gen: -1, rejoin: true, claim: "topics=[t];owned={};gen=-1;leader=-"},
		{phase: sync, code: spec.IllegalGeneration, callbacks: "lost", state: Joining, id: "A-1", gen: -1, rejoin: true, claim: "topics=[t];owned={};gen=-1;leader=-"},
		{phase: sync, code: spec.UnknownMemberID, callbacks: "lost", state: Joining, id: "", gen: -1, rejoin: true, claim: "topics=[t];owned={};gen=-1;leader=-"},
		{phase: sync, code: spec.FencedInstanceID, callbacks: "lost fatal", state: Failed, id: "A-1", gen: 2},

		{phase: heartbeat, code: spec.None, state: Stable, id: "A-1", gen: 1},
		{phase: heartbeat, code: spec.NotCoordinator, state: Stable, id: "A-1", gen: 1},
		{phase: heartbeat, code: spec.RebalanceInProgress, state: Joining, id: "A-1", gen: 1, rejoin: true, claim: "topics=[t];owned={t-0};gen=1;leader=L-1"},
		{phase: heartbeat, code: spec.IllegalGeneration, callbacks: "lost", state: Joining, id: "A-1", gen: -1, rejoin: true, claim: "topics=[t];owned={};gen=-1;leader=-"},
		{phase: heartbeat, code: spec.UnknownMemberID, callbacks: "lost", state: Joining, id: "", gen: -1, rejoin: true, claim: "topics=[t];owned={};gen=-1;leader=-"},
		{phase: heartbeat, code: spec.FencedInstanceID, callbacks: "lost fatal", state: Failed, id: "A-1", gen: 1},
	}
	for _, tt := range tests {
		name := []string{"join", "sync", "heartbeat"}[tt.phase] + "/" + tt.code.String()
		if tt.memberID != "" {
			name += "/with-id"
		}
		if tt.faults != 0 {
			name += "/" + tt.faults.String()
		}
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, testConfig(withProtocols(fakeProtocol{name: "coop", coop: true}), withFaults(tt.faults), func(c *MemberConfig) { c.InstanceID = "a" }))
			h.round(set(t, "{t-0}"))
			var out Output
			switch tt.phase {
			case join:
				h.step(RequestRejoin{})
				out = h.recv(JoinGroupResponse{Seq: h.join.Seq, Error: tt.code, MemberID: tt.memberID})
			case sync:
				h.step(RequestRejoin{})
				h.joinResp(JoinGroupResponse{})
				out = h.syncErr(tt.code)
			case heartbeat:
				h.now = 3000
				hb := h.step(TimerFired{Timer: Timer{Kind: HeartbeatTimer}})
				wantOutput(t, "heartbeat", hb, "send A->coordinator Heartbeat#3 member=A-1 instance=a gen=1\nset heartbeat@6000\n")
				out = h.recv(HeartbeatResponse{Seq: h.hb.Seq, Error: tt.code})
			}
			var kinds []string
			for _, c := range out.Callbacks {
				kinds = append(kinds, c.Kind.String())
				if c.Kind == Lost && !c.Resources.Equal(set(t, "{t-0}")) {
					t.Errorf("lost %s, want {t-0}", c.Resources)
				}
				if c.Kind == Fatal && !strings.Contains(c.Detail, tt.code.String()) && tt.code != spec.MemberIDRequired {
					t.Errorf("fatal detail %q does not name %s", c.Detail, tt.code)
				}
			}
			if got := strings.Join(kinds, " "); got != tt.callbacks {
				t.Errorf("callbacks %q, want %q\n%s", got, tt.callbacks, out)
			}
			if h.m.State() != tt.state || h.m.ID() != tt.id || h.m.Generation() != tt.gen {
				t.Errorf("state %s id %q gen %d, want %s %q %d", h.m.State(), h.m.ID(), h.m.Generation(), tt.state, tt.id, tt.gen)
			}
			var joins []JoinGroupRequest
			for _, e := range out.Messages {
				if j, ok := e.Msg.(JoinGroupRequest); ok {
					joins = append(joins, j)
				}
			}
			if (len(joins) == 1) != tt.rejoin || len(joins) > 1 {
				t.Fatalf("sent %d JoinGroups, want rejoin=%v\n%s", len(joins), tt.rejoin, out)
			}
			if tt.rejoin {
				if got := string(joins[0].Protocols[0].Metadata); got != tt.claim {
					t.Errorf("rejoin claims %s, want %s", got, tt.claim)
				}
				if joins[0].MemberID != tt.id {
					t.Errorf("rejoin with member id %q, want %q", joins[0].MemberID, tt.id)
				}
			}
			if tt.state == Failed {
				for _, k := range []TimerKind{HeartbeatTimer, RequestTimer, ScheduledRebalanceTimer} {
					if h.m.timers[k].Armed {
						t.Errorf("timer %s still armed after a fatal error", k)
					}
				}
				if !strings.Contains(out.String(), "cancel heartbeat") {
					t.Errorf("no heartbeat cancel in\n%s", out)
				}
				if !h.m.View().Owns.IsEmpty() {
					t.Errorf("a failed member still owns %s", h.m.View().Owns)
				}
				if o := h.step(node.Start{}); !o.IsEmpty() {
					t.Errorf("failed member acted on Start: %s", o)
				}
			}
		})
	}
}

// TestMemberClaimGeneration: a cooperative member that owns {t-0} from
// generation 1 joins generation 2, and its SyncGroup is answered
// REBALANCE_IN_PROGRESS. It rejoins claiming {t-0} at generation 2 (the one
// it joined, Kafka since KIP-792) by default, and at generation 1 (the one
// its assignment came from, the cooperative-sticky user data before
// KIP-792) with ClaimAtAssigned.
func TestMemberClaimGeneration(t *testing.T) {
	for _, tt := range []struct {
		mode  ClaimGeneration
		claim string
	}{
		{ClaimAtJoined, "topics=[t];owned={t-0};gen=2;leader=L-1"},
		{ClaimAtAssigned, "topics=[t];owned={t-0};gen=1;leader=L-1"},
	} {
		t.Run(tt.mode.String(), func(t *testing.T) {
			h := newHarness(t, testConfig(withProtocols(fakeProtocol{name: "coop", coop: true}), func(c *MemberConfig) { c.ClaimGeneration = tt.mode }))
			h.round(set(t, "{t-0}"))
			h.step(RequestRejoin{})
			h.joinResp(JoinGroupResponse{})
			out := h.syncErr(spec.RebalanceInProgress)
			var claims []string
			for _, e := range out.Messages {
				if j, ok := e.Msg.(JoinGroupRequest); ok {
					claims = append(claims, string(j.Protocols[0].Metadata))
				}
			}
			if len(claims) != 1 || claims[0] != tt.claim {
				t.Errorf("rejoin claims %v, want [%s]", claims, tt.claim)
			}
		})
	}
	if _, err := NewMember(testConfig(func(c *MemberConfig) { c.ClaimGeneration = ClaimAtAssigned + 1 })); err == nil || !strings.Contains(err.Error(), "claim-generation(2)") {
		t.Errorf("NewMember with an unknown ClaimGeneration: %v, want an error naming it", err)
	}
	for name, want := range map[string]ClaimGeneration{"": ClaimAtJoined, "joined": ClaimAtJoined, "assigned": ClaimAtAssigned} {
		if got, err := ParseClaimGeneration(name); err != nil || got != want {
			t.Errorf("ParseClaimGeneration(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := ParseClaimGeneration("owned"); err == nil || !strings.Contains(err.Error(), "want joined or assigned") {
		t.Errorf("ParseClaimGeneration(owned): %v, want an error listing the values", err)
	}
}

func TestMemberRejoinAfterSync(t *testing.T) {
	tests := []struct {
		name  string
		event func(h *harness) Output
	}{
		{"heartbeat REBALANCE_IN_PROGRESS", func(h *harness) Output {
			h.step(TimerFired{Timer: Timer{Kind: HeartbeatTimer}})
			return h.recv(HeartbeatResponse{Seq: h.hb.Seq, Error: spec.RebalanceInProgress})
		}},
		{"RequestRejoin", func(h *harness) Output { return h.step(RequestRejoin{}) }},
		{"Subscribe", func(h *harness) Output { return h.step(node.Subscribe{Topics: []string{"t", "u"}}) }},
		{"MetadataUpdate", func(h *harness) Output { return h.step(node.MetadataUpdate{Topics: spec.Topics{"t": 5}}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, testConfig())
			h.step(node.Start{})
			h.joinResp(JoinGroupResponse{})
			h.now = 3000
			out := tt.event(h)
			for _, e := range out.Messages {
				if _, ok := e.Msg.(JoinGroupRequest); ok {
					t.Fatalf("rejoined while the sync is in flight: %s", out)
				}
			}
			if h.m.State() != AwaitingSync {
				t.Fatalf("state %s", h.m.State())
			}
			out = h.syncResp(Assignment{Assigned: set(t, "{t-0}")})
			if h.m.State() != Joining || !strings.Contains(out.String(), "callback assigned {t-0} gen=1") || !strings.Contains(out.String(), "JoinGroup#") {
				t.Errorf("after the sync: state %s\n%s", h.m.State(), out)
			}
		})
	}
}

func TestMemberStaleResponses(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, h *harness) Message // prepares h, returns the stale message
	}{
		{"join response with another seq", func(t *testing.T, h *harness) Message {
			h.step(node.Start{})
			return JoinGroupResponse{Seq: h.join.Seq + 7, Generation: 1, MemberID: "A-1", Leader: "A-1", ProtocolName: "coop"}
		}},
		{"join response to a JoinGroup that was resent", func(t *testing.T, h *harness) Message {
			h.step(node.Start{})
			old := h.join.Seq
			h.now = 35000
			h.step(TimerFired{Timer: Timer{Kind: RequestTimer}})
			if h.join.Seq == old {
				t.Fatal("resent JoinGroup kept its seq")
			}
			return JoinGroupResponse{Seq: old, Generation: 1, MemberID: "A-1", Leader: "A-1", ProtocolName: "coop"}
		}},
		{"duplicated join response", func(t *testing.T, h *harness) Message {
			h.step(node.Start{})
			r := JoinGroupResponse{Seq: h.join.Seq, Generation: 1, MemberID: "A-1", Leader: "L-1", ProtocolName: "coop"}
			h.recv(r)
			return r
		}},
		{"sync response with another seq", func(t *testing.T, h *harness) Message {
			h.step(node.Start{})
			h.joinResp(JoinGroupResponse{})
			return SyncGroupResponse{Seq: h.sync.Seq + 1, Assignment: Assignment{Assigned: set(t, "{t-0}")}.Encode()}
		}},
		{"duplicated sync response", func(t *testing.T, h *harness) Message {
			h.round(set(t, "{t-0}"))
			return SyncGroupResponse{Seq: h.sync.Seq, Assignment: Assignment{Assigned: set(t, "{t-1}")}.Encode()}
		}},
		{"response to an older heartbeat of another generation", func(t *testing.T, h *harness) Message {
			h.round(set(t, "{t-0}"))
			h.now = 3000
			h.step(TimerFired{Timer: Timer{Kind: HeartbeatTimer}})
			old := h.hb
			h.round(set(t, "{t-0}"))
			h.now = 6000
			h.step(TimerFired{Timer: Timer{Kind: HeartbeatTimer}})
			return HeartbeatResponse{Seq: old.Seq, Error: spec.IllegalGeneration, Generation: old.Generation}
		}},
		{"duplicated response to the latest heartbeat", func(t *testing.T, h *harness) Message {
			h.round(set(t, "{t-0}"))
			h.now = 3000
			h.step(TimerFired{Timer: Timer{Kind: HeartbeatTimer}})
			h.recv(HeartbeatResponse{Seq: h.hb.Seq, Generation: h.hb.Generation})
			return HeartbeatResponse{Seq: h.hb.Seq, Error: spec.RebalanceInProgress, Generation: h.hb.Generation}
		}},
		{"heartbeat response that names no heartbeat", func(t *testing.T, h *harness) Message {
			h.round(set(t, "{t-0}"))
			h.now = 3000
			h.step(TimerFired{Timer: Timer{Kind: HeartbeatTimer}})
			return HeartbeatResponse{Error: spec.RebalanceInProgress, Generation: h.hb.Generation}
		}},
		{"heartbeat response after the member started to rejoin", func(t *testing.T, h *harness) Message {
			h.round(set(t, "{t-0}"))
			h.now = 3000
			h.step(TimerFired{Timer: Timer{Kind: HeartbeatTimer}})
			h.step(RequestRejoin{})
			return HeartbeatResponse{Seq: h.hb.Seq, Error: spec.UnknownMemberID}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, testConfig())
			msg := tt.run(t, h)
			before := h.m.String()
			wantOutput(t, "stale "+msg.String(), h.recv(msg), "")
			if after := h.m.String(); after != before {
				t.Errorf("state changed:\n%s\n->\n%s", before, after)
			}
			// A message from anyone but the coordinator is ignored too.
			if out := h.step(Receive{From: "B", Msg: msg}); !out.IsEmpty() {
				t.Errorf("acted on a message from B: %s", out)
			}
		})
	}
}

// TestMemberOvertakenHeartbeat: the heartbeat timer sends the next
// heartbeat whether or not the last one was answered, so with a round trip
// of an interval or more the responses arrive after newer heartbeats were
// sent. Each response of the member's generation is read, as Kafka's
// client reads each (heartbeat_response_overtaken.txt in the classic
// world's scenarios is the whole story): an older heartbeat's
// REBALANCE_IN_PROGRESS makes the member rejoin, and an older heartbeat's
// NONE leaves the member waiting for the newest one's answer.
func TestMemberOvertakenHeartbeat(t *testing.T) {
	tests := []struct {
		name      string
		responses []spec.ErrorCode // to the older heartbeat, then to the newer
		want      MemberState
	}{
		{"older REBALANCE_IN_PROGRESS", []spec.ErrorCode{spec.RebalanceInProgress}, Joining},
		{"older NONE, newer REBALANCE_IN_PROGRESS", []spec.ErrorCode{spec.None, spec.RebalanceInProgress}, Joining},
		{"older UNKNOWN_MEMBER_ID", []spec.ErrorCode{spec.UnknownMemberID}, Joining},
		{"both NONE", []spec.ErrorCode{spec.None, spec.None}, Stable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, testConfig())
			h.round(set(t, "{t-0}"))
			var sent []HeartbeatRequest
			for _, at := range []Millis{3000, 6000} {
				h.now = at
				h.step(TimerFired{Timer: Timer{Kind: HeartbeatTimer}})
				sent = append(sent, h.hb)
			}
			if sent[0].Seq == sent[1].Seq {
				t.Fatalf("two heartbeats with one seq %d", sent[0].Seq)
			}
			for i, code := range tt.responses {
				h.recv(HeartbeatResponse{Seq: sent[i].Seq, Error: code, Generation: sent[i].Generation})
			}
			if h.m.State() != tt.want {
				t.Errorf("state %s, want %s\n%s", h.m.State(), tt.want, h.m)
			}
		})
	}
}

// TestMemberLeaderValidation: a leader whose protocol returns an illegal
// assignment reports AssignorFailed naming the law and sends the "no
// change" SyncGroup; with SkipLeaderValidation it sends the bad assignment.
func TestMemberLeaderValidation(t *testing.T) {
	sub := func(owned string) Metadata {
		return Subscription{Topics: []string{"t"}, Owned: set(t, owned), Generation: 1, Leader: "A-1"}.Encode()
	}
	good := []JoinedMember{{MemberID: "A-1", Metadata: sub("{t-0}")}, {MemberID: "B-1", Metadata: sub("{t-1}")}}
	noChange := "send A->coordinator SyncGroup#2 member=A-1 gen=2" +
		" [A-1 assigned={t-0};revoked={};delay=0;leader=A-1;error=-1]" +
		" [B-1 assigned={t-1};revoked={};delay=0;leader=A-1;error=-1]\n" +
		"set request@10000\nset heartbeat@3000\n"
	type as = map[spec.MemberID]Assignment
	tests := []struct {
		name      string
		coop      bool
		members   []JoinedMember
		assign    func(LeaderInput) (LeaderResult, error)
		wantLaw   string // in the AssignorFailed detail; "" for a legal round
		noChange  string // the no-change SyncGroup when it differs from noChange
		skippable bool   // SkipLeaderValidation sends the result
		malformed bool   // what is sent cannot be decoded (not a law of the round)
	}{{
		name:      "resource twice",
		coop:      true,
		assign:    fixed(as{"A-1": {Assigned: set(t, "{t-0 t-2}")}, "B-1": {Assigned: set(t, "{t-1 t-2}")}}, LeaderMemory{Generation: 2}),
		wantLaw:   "AssignedOnce: t-2 [A-1 B-1]",
		skippable: true,
	}, {
		name:      "unknown member",
		coop:      true,
		assign:    fixed(as{"A-1": {Assigned: set(t, "{t-0}")}, "B-1": {Assigned: set(t, "{t-1}")}, "C-1": {Assigned: set(t, "{t-2}")}}, LeaderMemory{Generation: 2}),
		wantLaw:   "KnownMembersOnly: [C-1]",
		skippable: true,
	}, {
		name:      "unsubscribed topic",
		coop:      true,
		assign:    fixed(as{"A-1": {Assigned: set(t, "{t-0 u-0}")}, "B-1": {Assigned: set(t, "{t-1}")}}, LeaderMemory{Generation: 2}),
		wantLaw:   "SubscribedOnly: u-0 [A-1]",
		skippable: true,
	}, {
		name:      "no such partition",
		coop:      true,
		assign:    fixed(as{"A-1": {Assigned: set(t, "{t-0 t-7}")}, "B-1": {Assigned: set(t, "{t-1}")}}, LeaderMemory{Generation: 2}),
		wantLaw:   "ExistingOnly: t-7 [A-1]",
		skippable: true,
	}, {
		name:      "handed over in the revoke round",
		coop:      true,
		assign:    fixed(as{"A-1": {Assigned: set(t, "{t-0 t-1}")}, "B-1": {Revoked: set(t, "{t-1}")}}, LeaderMemory{Generation: 2}),
		wantLaw:   "CooperativeHandoff: t-1 [B-1 A-1]",
		skippable: true,
	}, {
		name:      "assigned and revoked at once",
		coop:      true,
		assign:    fixed(as{"A-1": {Assigned: set(t, "{t-0}"), Revoked: set(t, "{t-0}")}, "B-1": {Assigned: set(t, "{t-1}")}}, LeaderMemory{Generation: 2}),
		wantLaw:   "member A-1: {t-0} both assigned and revoked",
		skippable: true,
		malformed: true,
	}, {
		name:      "negative delay",
		coop:      true,
		assign:    fixed(as{"A-1": {Assigned: set(t, "{t-0}"), Delay: -1}, "B-1": {Assigned: set(t, "{t-1}")}}, LeaderMemory{Generation: 2}),
		wantLaw:   "member A-1: negative delay -1",
		skippable: true,
		malformed: true,
	}, {
		name:    "assign error",
		coop:    true,
		assign:  func(LeaderInput) (LeaderResult, error) { return LeaderResult{}, errors.New("boom") },
		wantLaw: "protocol fake: boom",
	}, {
		name:    "assign panics",
		coop:    true,
		assign:  func(LeaderInput) (LeaderResult, error) { panic("kaboom") },
		wantLaw: "protocol fake: panicked: kaboom",
	}, {
		name:    "malformed subscription",
		coop:    true,
		members: []JoinedMember{{MemberID: "A-1", Metadata: sub("{t-0}")}, {MemberID: "B-1", Metadata: "garbage"}},
		assign:  fixed(as{"A-1": {Assigned: set(t, "{t-0}")}}, LeaderMemory{Generation: 2}),
		wantLaw: "member B-1: subscription",
		noChange: "send A->coordinator SyncGroup#2 member=A-1 gen=2" +
			" [A-1 assigned={t-0};revoked={};delay=0;leader=A-1;error=-1]" +
			" [B-1 assigned={};revoked={};delay=0;leader=A-1;error=-1]\n" +
			"set request@10000\nset heartbeat@3000\n",
	}, {
		name:   "eager hand-over is legal",
		assign: fixed(as{"A-1": {Assigned: set(t, "{t-0 t-1}")}}, LeaderMemory{Generation: 2}),
	}}
	for _, tt := range tests {
		for _, skip := range []bool{false, true} {
			name := tt.name
			if skip {
				name += "/SkipLeaderValidation"
			}
			t.Run(name, func(t *testing.T) {
				var calls []LeaderInput
				p := fakeProtocol{name: "fake", coop: tt.coop, assign: tt.assign, calls: &calls}
				var f Faults
				if skip {
					f = SkipLeaderValidation
				}
				h := newHarness(t, testConfig(withProtocols(p), withFaults(f)))
				prior := LeaderMemory{Generation: 1, Members: []spec.MemberID{"A-1"}}
				mem := prior.Clone()
				h.m.memory = &keptMemory{LeaderMemory: mem}
				h.m.lastCompleted = 1
				h.step(node.Start{})
				members := tt.members
				if members == nil {
					members = good
				}
				out := h.joinResp(JoinGroupResponse{Generation: 2, Leader: "A-1", MemberID: "A-1", ProtocolName: "fake", Members: members})
				if len(calls) == 1 && calls[0].LastCompletedGeneration != 1 {
					t.Errorf("LeaderInput.LastCompletedGeneration = %d", calls[0].LastCompletedGeneration)
				}
				sent := tt.wantLaw == "" || (skip && tt.skippable)
				if sent {
					if len(out.Callbacks) != 0 || out.Round == nil {
						t.Fatalf("want the round sent:\n%s", out)
					}
					if got := h.m.LeaderMemory(); got.Generation != 2 {
						t.Errorf("memory %+v, want the protocol's", got)
					}
					// What is sent is exactly the protocol's result.
					res, _ := tt.assign(LeaderInput{})
					for _, a := range h.sync.Assignments {
						got, err := DecodeAssignment(a.Assignment)
						if err != nil {
							// Only the malformed case may send what no member can decode.
							if !tt.malformed {
								t.Error(err)
							}
							continue
						}
						if want := res.Assignments[a.MemberID]; !got.Assigned.Equal(want.Assigned) || !got.Revoked.Equal(want.Revoked) || got.Error != spec.None || got.Leader != "A-1" {
							t.Errorf("sent %s to %s, want %+v", a.Assignment, a.MemberID, want)
						}
					}
					// The reported round is what the world checks: it shows the
					// law the leader skipped checking (the assigned-and-revoked
					// case is malformed, not a law of the round).
					vs := spec.CheckRound(*out.Round)
					wantClean := tt.wantLaw == "" || tt.malformed
					if (len(vs) == 0) != wantClean || (!wantClean && !strings.Contains(vs[0].String(), tt.wantLaw)) {
						t.Errorf("CheckRound on the reported round: %v, want %q", vs, tt.wantLaw)
					}
					return
				}
				want := noChange
				if tt.noChange != "" {
					want = tt.noChange
				}
				var msgs Output
				msgs.Messages, msgs.Timers = out.Messages, out.Timers
				wantOutput(t, "no-change sync", msgs, want)
				if out.Round != nil {
					t.Errorf("a failed round was reported: %+v", out.Round)
				}
				if len(out.Callbacks) != 1 || out.Callbacks[0].Kind != AssignorFailed || !strings.Contains(out.Callbacks[0].Detail, tt.wantLaw) || out.Callbacks[0].Round != 2 {
					t.Fatalf("callbacks %v, want assignor-failed naming %q", out.Callbacks, tt.wantLaw)
				}
				if got := h.m.LeaderMemory(); got.Generation != prior.Generation || !slices.Equal(got.Members, prior.Members) {
					t.Errorf("memory changed to %+v", got)
				}
				// The leader's own no-change assignment leaves it as it was.
				owned := h.m.Owned()
				o := h.recv(SyncGroupResponse{Seq: h.sync.Seq, Assignment: h.sync.Assignments[0].Assignment})
				wantOutput(t, "no-change applied", o, "cancel request\n")
				if h.m.State() != Stable || !h.m.Owned().Equal(owned) || h.m.LastCompletedGeneration() != 1 {
					t.Errorf("after the no-change sync: %s", h.m)
				}
			})
		}
	}
}

func TestMemberBadJoinResponse(t *testing.T) {
	tests := []struct {
		name string
		resp JoinGroupResponse
		want string
	}{
		{"unsupported protocol", JoinGroupResponse{Generation: 1, MemberID: "A-1", Leader: "A-1", ProtocolName: "range"}, `protocol "range"`},
		{"no member id", JoinGroupResponse{Generation: 1, Leader: "B-1", ProtocolName: "coop"}, "without a member id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, testConfig())
			h.step(node.Start{})
			tt.resp.Seq = h.join.Seq
			out := h.recv(tt.resp)
			if h.m.State() != Failed || len(out.Callbacks) != 1 || out.Callbacks[0].Kind != Fatal || !strings.Contains(out.Callbacks[0].Detail, tt.want) {
				t.Errorf("state %s\n%s", h.m.State(), out)
			}
		})
	}
}

func TestMemberSkipAssignment(t *testing.T) {
	var calls []LeaderInput
	h := newHarness(t, testConfig(withProtocols(fakeProtocol{name: "coop", coop: true, calls: &calls})))
	h.step(node.Start{})
	out := h.joinResp(JoinGroupResponse{Generation: 3, Leader: "A-1", MemberID: "A-1", SkipAssignment: true})
	wantOutput(t, "KIP-814 static leader", out, "send A->coordinator SyncGroup#2 member=A-1 gen=3\nset request@10000\nset heartbeat@3000\n")
	if len(calls) != 0 || out.Round != nil {
		t.Errorf("assigned although told to skip")
	}
}

func TestMemberTimers(t *testing.T) {
	h := newHarness(t, testConfig())
	fire := func(k TimerKind) Output { return h.step(TimerFired{Timer: Timer{Kind: k}}) }

	wantOutput(t, "unarmed heartbeat", fire(HeartbeatTimer), "")
	h.step(node.Start{})
	h.now = 34999
	wantOutput(t, "request timer not yet due", fire(RequestTimer), "")
	h.now = 35000
	wantOutput(t, "JoinGroup resent", fire(RequestTimer),
		"send A->coordinator JoinGroup#2 member=- protocols=[coop=topics=[t];owned={};gen=-1;leader=-]\nset request@70000\n")
	h.now = 36000
	h.joinResp(JoinGroupResponse{})
	first := h.sync
	h.now = 39000
	wantOutput(t, "heartbeat while awaiting sync", fire(HeartbeatTimer),
		"send A->coordinator Heartbeat#4 member=A-1 gen=1\nset heartbeat@42000\n")
	h.now = 46000
	wantOutput(t, "SyncGroup resent", fire(RequestTimer),
		"send A->coordinator SyncGroup#5 member=A-1 gen=1\nset request@56000\n")
	if h.sync.Seq == first.Seq || h.sync.Generation != first.Generation {
		t.Errorf("resent %v after %v", h.sync, first)
	}
	h.syncResp(Assignment{Assigned: set(t, "{t-0}")})
	wantOutput(t, "request timer cancelled by the sync", fire(RequestTimer), "")
	h.now = 50000
	wantOutput(t, "stable heartbeat", fire(HeartbeatTimer), "send A->coordinator Heartbeat#6 member=A-1 gen=1\nset heartbeat@53000\n")
	// A heartbeat timer that falls due while joining lapses; the next
	// JoinGroupResponse arms it again.
	h.step(RequestRejoin{})
	h.now = 53000
	wantOutput(t, "heartbeat while joining", fire(HeartbeatTimer), "")
	out := h.joinResp(JoinGroupResponse{})
	if !strings.Contains(out.String(), "set heartbeat@56000") {
		t.Errorf("heartbeat not re-armed on join:\n%s", out)
	}
	// Timers of other nodes are not the member's.
	wantOutput(t, "coordinator timer", h.step(TimerFired{Timer: Timer{Kind: SessionTimer, Member: "A-1"}}), "")
}

func TestMemberSubscribe(t *testing.T) {
	tests := []struct {
		name   string
		cfg    MemberConfig
		setup  func(h *harness)
		topics []string
		want   string
		state  MemberState
	}{{
		name:   "unjoined records only",
		cfg:    testConfig(),
		setup:  func(h *harness) {},
		topics: []string{"u", "t", "u"},
		want:   "",
		state:  Unjoined,
	}, {
		name:   "cooperative revokes dropped topics at once and rejoins",
		cfg:    testConfig(withTopics("t", "u")),
		setup:  func(h *harness) { h.round(set(h.t, "{t-0 t-1 u-0 u-1}")) },
		topics: []string{"t"},
		want:   "send A->coordinator JoinGroup#3 member=A-1 protocols=[coop=topics=[t];owned={t-0 t-1};gen=1;leader=L-1]\nset request@35000\ncallback revoked {u-0 u-1} gen=1\n",
		state:  Joining,
	}, {
		name:   "eager revokes everything and rejoins",
		cfg:    testConfig(withTopics("t", "u"), withProtocols(eagerProto)),
		setup:  func(h *harness) { h.round(set(h.t, "{t-0 u-0}")) },
		topics: []string{"t"},
		want:   "send A->coordinator JoinGroup#3 member=A-1 protocols=[eager=topics=[t];owned={};gen=1;leader=L-1]\nset request@35000\ncallback revoked {u-0} gen=1\ncallback revoked {t-0} gen=1\n",
		state:  Joining,
	}, {
		// Two JoinGroups in flight could arrive in either order on a
		// network that reorders: a stale one, arriving last, would start
		// a round with claims the member no longer has. Like Kafka's
		// client, the member rejoins once the round in flight ends.
		name:   "joining under a member id waits for the round in flight",
		cfg:    testConfig(),
		setup:  func(h *harness) { h.round(set(h.t, "{t-0}")); h.step(RequestRejoin{Reason: "test"}) },
		topics: []string{"t", "u"},
		want:   "",
		state:  Joining,
	}, {
		// A second JoinGroup without an id would make a second member
		// (an orphan): the member rejoins once the round in flight ends.
		name:   "joining without a member id waits for the round in flight",
		cfg:    testConfig(),
		setup:  func(h *harness) { h.step(node.Start{}) },
		topics: []string{"t", "u"},
		want:   "",
		state:  Joining,
	}, {
		name:   "the same subscription is a no-op",
		cfg:    testConfig(),
		setup:  func(h *harness) { h.round(set(h.t, "{t-0}")) },
		topics: []string{"t"},
		want:   "",
		state:  Stable,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.cfg)
			tt.setup(h)
			wantOutput(t, "subscribe", h.step(node.Subscribe{Topics: tt.topics}), tt.want)
			if h.m.State() != tt.state {
				t.Errorf("state %s, want %s", h.m.State(), tt.state)
			}
			if want := slices.Compact(slices.Sorted(slices.Values(tt.topics))); !slices.Equal(h.m.Subscription(), want) {
				t.Errorf("subscription %v, want %v", h.m.Subscription(), want)
			}
		})
	}
	// A member that had no id when its subscription changed rejoins with
	// the new one, under its id, as soon as its first round completes.
	h := newHarness(t, testConfig())
	h.step(node.Start{})
	h.step(node.Subscribe{Topics: []string{"t", "u"}})
	h.joinResp(JoinGroupResponse{})
	h.syncResp(Assignment{Assigned: set(t, "{t-0}"), Leader: "L-1"})
	if got := string(h.join.Protocols[0].Metadata); h.m.State() != Joining || h.join.MemberID != "A-1" || got != "topics=[t u];owned={t-0};gen=1;leader=L-1" {
		t.Errorf("after its first round: state %s, JoinGroup member=%s with %s; want a rejoin as A-1 with topics [t u]", h.m.State(), h.join.MemberID, got)
	}
	// So does a member with an id whose subscription changed while its
	// JoinGroup was in flight: the round in flight ends first, and the
	// rejoin claims what that round gave it.
	h = newHarness(t, testConfig())
	h.round(set(t, "{t-0}"))
	h.step(RequestRejoin{Reason: "test"})
	h.step(node.Subscribe{Topics: []string{"t", "u"}})
	h.joinResp(JoinGroupResponse{})
	h.syncResp(Assignment{Assigned: set(t, "{t-0 t-1}"), Leader: "L-1"})
	if got := string(h.join.Protocols[0].Metadata); h.m.State() != Joining || got != "topics=[t u];owned={t-0 t-1};gen=2;leader=L-1" {
		t.Errorf("after the round in flight: state %s, JoinGroup with %s; want a rejoin with topics [t u] claiming {t-0 t-1}", h.m.State(), got)
	}
	// A member that drops a topic while a round is in flight keeps that
	// topic's resources, counted as revoking, until the round ends: the
	// assignment made for the old subscription is not applied, and the
	// rejoin revokes them under the generation of the round, which the
	// group still has (Kafka's onJoinPrepare), so that the revocation's
	// commit is not refused (finding_revoke_during_round.txt).
	h = newHarness(t, testConfig(withTopics("t", "u")))
	h.round(set(t, "{t-0 u-0}"))
	h.step(RequestRejoin{Reason: "test"})
	wantOutput(t, "subscribe while joining", h.step(node.Subscribe{Topics: []string{"t"}}), "")
	if v := h.m.View(); !v.Owns.Equal(set(t, "{t-0 u-0}")) || !v.Revoking.Equal(set(t, "{u-0}")) {
		t.Errorf("while the round is in flight: owns %s revoking %s, want owns {t-0 u-0} revoking {u-0}", v.Owns, v.Revoking)
	}
	h.joinResp(JoinGroupResponse{})
	if v := h.m.View(); h.m.State() != AwaitingSync || !v.Revoking.Equal(set(t, "{u-0}")) {
		t.Errorf("awaiting the sync (%s): revoking %s, want {u-0}", h.m.State(), v.Revoking)
	}
	out := h.syncResp(Assignment{Assigned: set(t, "{t-0 u-0}"), Leader: "L-1"})
	if got := string(h.join.Protocols[0].Metadata); !strings.Contains(out.String(), "callback revoked {u-0} gen=1\n") || strings.Contains(out.String(), "assigned") ||
		got != "topics=[t];owned={t-0};gen=2;leader=L-1" {
		t.Errorf("after the round in flight: JoinGroup with %s, output\n%s\nwant u-0 revoked, nothing assigned, and a rejoin claiming {t-0} at generation 2", got, out)
	}
	if v := h.m.View(); !v.Owns.Equal(set(t, "{t-0}")) || !v.Revoking.IsEmpty() {
		t.Errorf("after the rejoin: owns %s revoking %s, want owns {t-0} revoking {}", v.Owns, v.Revoking)
	}
	// The recorded subscription is what Start joins with.
	h = newHarness(t, testConfig())
	h.step(node.Subscribe{Topics: []string{"u"}})
	h.step(node.Start{})
	if got := string(h.join.Protocols[0].Metadata); got != "topics=[u];owned={};gen=-1;leader=-" {
		t.Errorf("Start after Subscribe joins with %s", got)
	}
}

func TestMemberLeave(t *testing.T) {
	tests := []struct {
		name     string
		instance string
		setup    func(h *harness)
		want     string
	}{{
		name:  "dynamic member",
		setup: func(h *harness) { h.round(set(h.t, "{t-0}")) },
		want:  "send A->coordinator LeaveGroup#3 member=A-1\ncancel heartbeat\ncallback revoked {t-0} gen=1\n",
	}, {
		name:     "static member leaves silently (KIP-345)",
		instance: "a",
		setup:    func(h *harness) { h.round(set(h.t, "{t-0}")) },
		want:     "cancel heartbeat\ncallback revoked {t-0} gen=1\n",
	}, {
		name:  "before the first join response",
		setup: func(h *harness) { h.step(node.Start{}) },
		want:  "cancel request\n",
	}, {
		name:  "unjoined",
		setup: func(h *harness) {},
		want:  "",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, testConfig(func(c *MemberConfig) { c.InstanceID = tt.instance }))
			tt.setup(h)
			wantOutput(t, "leave", h.step(node.Leave{}), tt.want)
			if h.m.State() != Left || !h.m.View().Owns.IsEmpty() {
				t.Fatalf("after leave: %s", h.m)
			}
			for _, e := range []node.Event{node.Start{}, RequestRejoin{}, node.Subscribe{Topics: []string{"u"}}, node.Leave{}, TimerFired{Timer: Timer{Kind: HeartbeatTimer}},
				Receive{From: CoordinatorNode, Msg: LeaveGroupResponse{Seq: 3}}, Receive{From: CoordinatorNode, Msg: JoinGroupRequest{}}} {
				if out := h.step(e); !out.IsEmpty() {
					t.Errorf("left member acted on %s: %s", e, out)
				}
			}
		})
	}
}

func TestMemberMetadataUpdate(t *testing.T) {
	tests := []struct {
		name   string
		topics spec.Topics
		rejoin bool
	}{
		{"subscribed topic grew", spec.Topics{"t": 5, "u": 2}, true},
		{"subscribed topic deleted", spec.Topics{"u": 2}, true},
		{"other topic changed", spec.Topics{"t": 4, "u": 3, "v": 1}, false},
		{"nothing changed", spec.Topics{"t": 4, "u": 2}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, testConfig())
			h.round(set(t, "{t-0}"))
			out := h.step(node.MetadataUpdate{Topics: tt.topics})
			if got := h.m.State() == Joining && len(out.Messages) == 1; got != tt.rejoin {
				t.Errorf("rejoined=%v, want %v:\n%s", got, tt.rejoin, out)
			}
			if !maps.Equal(h.m.metadata, tt.topics) {
				t.Errorf("metadata %v", h.m.metadata)
			}
		})
	}
	// While joining the member only records: the leader reads its
	// metadata when the JoinGroupResponse arrives.
	var calls []LeaderInput
	h := newHarness(t, testConfig(withProtocols(fakeProtocol{name: "coop", coop: true, calls: &calls, assign: fixed(nil, LeaderMemory{})})))
	h.step(node.Start{})
	wantOutput(t, "metadata while joining", h.step(node.MetadataUpdate{Topics: spec.Topics{"t": 6}}), "")
	h.joinResp(JoinGroupResponse{Leader: "A-1", Members: []JoinedMember{{MemberID: "A-1", Metadata: h.join.Protocols[0].Metadata}}})
	if len(calls) != 1 || calls[0].Topics["t"] != 6 {
		t.Errorf("leader assigned from stale metadata: %+v", calls)
	}
}

func TestMemberMalformedAssignment(t *testing.T) {
	h := newHarness(t, testConfig())
	h.round(set(t, "{t-0}"))
	h.step(RequestRejoin{})
	h.joinResp(JoinGroupResponse{})
	out := h.recv(SyncGroupResponse{Seq: h.sync.Seq, Assignment: "assigned={t-1};revoked={t-1};delay=0;leader=-;error=0"})
	if h.m.State() != Failed || len(out.Callbacks) != 2 || out.Callbacks[0].Kind != Lost || out.Callbacks[1].Kind != Fatal ||
		!strings.Contains(out.Callbacks[1].Detail, "both assigned and revoked") {
		t.Errorf("malformed assignment: state %s\n%s", h.m.State(), out)
	}
}

// TestMemberCloneSharesNothing: whatever the original goes through, its
// clone stays as it was, and steps on its own.
func TestMemberCloneSharesNothing(t *testing.T) {
	p := fakeProtocol{name: "coop", coop: true, assign: fixed(map[spec.MemberID]Assignment{"A-1": {Assigned: set(t, "{t-0}")}},
		LeaderMemory{Generation: 1, Members: []spec.MemberID{"A-1"}, Assignment: spec.Assignment{"A-1": set(t, "{t-0}")}})}
	h := newHarness(t, testConfig(withProtocols(p)))
	h.step(node.Start{})
	h.joinResp(JoinGroupResponse{Leader: "A-1", Members: []JoinedMember{{MemberID: "A-1", Metadata: h.join.Protocols[0].Metadata}}})
	c := h.m.Clone()
	before := c.String()
	if before != h.m.String() {
		t.Fatalf("clone differs:\n%s\n%s", before, h.m)
	}
	// The original goes on: a new subscription and metadata, the round's
	// end, a rejoin led again (new leader memory and SyncGroup), a leave.
	h.step(node.Subscribe{Topics: []string{"t", "u"}})
	h.step(node.MetadataUpdate{Topics: spec.Topics{"t": 3, "u": 1}})
	h.syncResp(Assignment{Assigned: set(t, "{t-0}")})
	h.step(node.Leave{})
	if after := c.String(); after != before {
		t.Errorf("clone changed with the original:\n%s\n->\n%s", before, after)
	}
	// The clone carries on independently.
	out := c.Step(node.Input{Now: 0, Event: Receive{From: CoordinatorNode, Msg: SyncGroupResponse{Seq: 2, Assignment: Assignment{Assigned: set(t, "{t-0}")}.Encode()}}})
	if c.State() != Stable || !strings.Contains(out.String(), "assigned {t-0}") {
		t.Errorf("clone did not step: %s\n%s", c, out)
	}
}

func TestMemberStringIsDeterministic(t *testing.T) {
	h := newHarness(t, testConfig(withTopics("u", "t"), withFaults(KeepRevoked), func(c *MemberConfig) { c.InstanceID = "a" }))
	h.round(set(t, "{t-0 u-1}"))
	want := "member A state=stable id=A-1 gen=1 leader=L-1 protocol=coop mode=cooperative instance=a faults=keep-revoked\n" +
		"  subscription=[t u] owned={t-0 u-1} owned-gen=1 owned-leader=L-1 last-completed=1\n" +
		"  seq=2 waiting join=0 sync=0 heartbeat=0\n" +
		"  timers heartbeat@3000\n" +
		"  metadata t:4 u:2"
	if got := h.m.String(); got != want {
		t.Errorf("String:\n%s\nwant:\n%s", got, want)
	}
}

// TestMemberMemoryString: the leader's memory as Member.String prints it,
// each optional field only when set.
func TestMemberMemoryString(t *testing.T) {
	full := testMember().memory.LeaderMemory
	for _, c := range []struct {
		mem  LeaderMemory
		want string
	}{
		{full, "gen=2 members=[A-1 B-1] assignment=A-1:{t-0} scheduled-at=5000 lost={t-1} candidates=[B-1] successive-revoking=1 revocation={u-0} revoked"},
		{LeaderMemory{Generation: 4, Members: []spec.MemberID{"A-1"}}, "gen=4 members=[A-1] assignment="},
	} {
		if got := memberMemoryString(c.mem); got != c.want {
			t.Errorf("memberMemoryString = %q, want %q", got, c.want)
		}
	}
	if !memberMemoryIsZero(LeaderMemory{}) {
		t.Errorf("the zero memory is not zero")
	}
}

func TestNewMemberErrors(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*MemberConfig)
		want string
	}{
		{"empty name", func(c *MemberConfig) { c.Name = "" }, "empty name"},
		{"no protocols", func(c *MemberConfig) { c.Protocols = nil }, "no protocols"},
		{"nil protocol", func(c *MemberConfig) { c.Protocols = []Protocol{nil} }, "nil"},
		{"empty protocol name", func(c *MemberConfig) { c.Protocols = []Protocol{fakeProtocol{}} }, "empty name"},
		{"duplicate protocol", func(c *MemberConfig) { c.Protocols = []Protocol{coopProto, fakeProtocol{name: "coop"}} }, "listed twice"},
		{"negative session", func(c *MemberConfig) { c.SessionTimeout = -1 }, "negative"},
		{"negative rebalance", func(c *MemberConfig) { c.RebalanceTimeout = -1 }, "negative"},
		{"negative heartbeat", func(c *MemberConfig) { c.HeartbeatInterval = -5 }, "negative"},
		{"heartbeat equals session", func(c *MemberConfig) { c.SessionTimeout, c.HeartbeatInterval = 3000, 3000 }, "below the session timeout"},
		{"heartbeat above default session", func(c *MemberConfig) { c.HeartbeatInterval = 20000 }, "below the session timeout"},
		{"empty topic", func(c *MemberConfig) { c.Topics = []string{"t", ""} }, "empty topic"},
		{"negative partitions", func(c *MemberConfig) { c.Metadata = spec.Topics{"t": -1} }, "partitions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(tt.mod)
			m, err := NewMember(cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewMember = %v, %v; want an error containing %q", m, err, tt.want)
			}
		})
	}
	// A good config does not alias the caller's slices and map.
	cfg := testConfig(withTopics("u", "t"))
	m, err := NewMember(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Topics[0] = "x"
	cfg.Metadata["t"] = 1
	if !slices.Equal(m.Subscription(), []string{"t", "u"}) || m.metadata["t"] != 4 || m.cfg.ProtocolType != "consumer" ||
		m.cfg.SessionTimeout != 10000 || m.cfg.RebalanceTimeout != 30000 || m.cfg.HeartbeatInterval != 3000 {
		t.Errorf("NewMember: %s", m)
	}
	if m.State() != Unjoined || m.Generation() != spec.NoGeneration || m.View().Generation != spec.NoGeneration {
		t.Errorf("new member: %s", m)
	}
	// A topic of no partitions (a connector's marker) is valid metadata.
	if _, err := NewMember(testConfig(func(c *MemberConfig) { c.Metadata = spec.Topics{}.AddConnector("c", 0) })); err != nil {
		t.Errorf("NewMember with a topic of no partitions: %v", err)
	}
}

func TestMemberPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func(m *Member)
	}{
		{"impossible transition", func(m *Member) { m.become(Stable) }},
		{"request delivered to a member", func(m *Member) {
			m.Step(node.Input{Event: Receive{From: CoordinatorNode, Msg: HeartbeatRequest{}}})
		}},
		{"unknown event", func(m *Member) { m.Step(node.Input{}) }},
		{"empty topic in Subscribe", func(m *Member) { m.Step(node.Input{Event: node.Subscribe{Topics: []string{""}}}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewMember(testConfig())
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			tt.f(m)
		})
	}
}

func TestMemberStateString(t *testing.T) {
	var got []string
	for s := Unjoined; s <= Failed+1; s++ {
		got = append(got, s.String())
	}
	if want := "unjoined joining awaiting-sync stable left failed member-state(6)"; strings.Join(got, " ") != want {
		t.Errorf("got %q", strings.Join(got, " "))
	}
}

// TestDecodeMetadataErrors: malformed subscription and assignment metadata
// is an error naming what is wrong.
func TestDecodeMetadataErrors(t *testing.T) {
	for _, c := range []struct {
		md         Metadata
		assignment bool
		want       string
	}{
		{"topics=[t];owned={};gen=1", false, "want 4 fields"},
		{"topics=[t];owned={};generation=1;leader=-", false, `field 3: want key "gen"`},
		{"assigned={};revoked={};delay=0;leader=-;err=0", true, `field 5: want key "error"`},
		{"assigned={};revoked={};delay=0;leader-;error=0", true, `field 4: want key "leader"`},
	} {
		var err error
		if c.assignment {
			_, err = DecodeAssignment(c.md)
		} else {
			_, err = DecodeSubscription(c.md)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("decode %q: %v, want an error containing %q", c.md, err, c.want)
		}
	}
}

// TestMemberPhases: the phase of every member state, as the closed world
// reads it (rebalancing from JoinGroup to the end of SyncGroup).
func TestMemberPhases(t *testing.T) {
	nodetest.CheckPhases(t, &memberStates, "unjoined:active joining:rebalancing awaiting-sync:rebalancing stable:settled left:left failed:failed")
}
