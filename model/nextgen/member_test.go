package nextgen

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/node/nodetest"
	"github.com/rebalance-ref/rebalance/spec"
)

// memberConfig is member A (id A-1) of group g, subscribed to t and u, with
// the default timeouts.
func memberConfig(mods ...func(*MemberConfig)) MemberConfig {
	cfg := MemberConfig{Name: "A", GroupID: "g", MemberID: "A-1", Topics: []string{"u", "t", "t"}}
	for _, f := range mods {
		f(&cfg)
	}
	return cfg
}

func static(c *MemberConfig)           { c.InstanceID = "a" }
func straightToTarget(c *MemberConfig) { c.Faults = StraightToTarget }

// memberHarness drives one member and plays the coordinator by hand: it
// keeps the clock, checks every envelope, and remembers the requests sent.
type memberHarness struct {
	t    *testing.T
	m    *Member
	now  Millis
	sent []HeartbeatRequest
}

func newMemberHarness(t *testing.T, cfg MemberConfig) *memberHarness {
	return &memberHarness{t: t, m: nodetest.Must(NewMember(cfg))}
}

// step applies e at the harness's clock. An empty list of the output must
// be nil, as in an output built without Step's buffer.
func (h *memberHarness) step(e node.Event) Output {
	h.t.Helper()
	out := h.m.Step(node.Input{Now: h.now, Event: e})
	if out.Messages != nil && len(out.Messages) == 0 || out.Timers != nil && len(out.Timers) == 0 || out.Callbacks != nil && len(out.Callbacks) == 0 {
		h.t.Fatalf("output %s has an empty list that is not nil: %#v", out, out)
	}
	for _, env := range out.Messages {
		if env.From != h.m.cfg.Name || env.To != CoordinatorNode {
			h.t.Fatalf("message %s: want %s->%s", env, h.m.cfg.Name, CoordinatorNode)
		}
		r, ok := env.Msg.(HeartbeatRequest)
		if !ok {
			h.t.Fatalf("message %s: want a HeartbeatRequest", env)
		}
		if r.GroupID != h.m.cfg.GroupID {
			h.t.Fatalf("request %s: group %q, want %q", r, r.GroupID, h.m.cfg.GroupID)
		}
		h.sent = append(h.sent, r)
	}
	return out
}

// at moves the clock to now.
func (h *memberHarness) at(now Millis) *memberHarness {
	h.now = now
	return h
}

func (h *memberHarness) recv(r HeartbeatResponse) Output {
	h.t.Helper()
	return h.step(Receive{From: CoordinatorNode, Msg: r})
}

// ok answers the last request sent with a success at epoch; assignment
// "null" sends none.
func (h *memberHarness) ok(epoch spec.Epoch, assignment string) Output {
	h.t.Helper()
	r := okResp(h.t, h.m.ID(), epoch, assignment)
	r.Seq = h.last().Seq
	return h.recv(r)
}

// fail answers the last request sent with an error.
func (h *memberHarness) fail(code spec.ErrorCode) Output {
	h.t.Helper()
	return h.recv(HeartbeatResponse{Seq: h.last().Seq, Error: code, ErrorMessage: "boom"})
}

// fire fires a member timer of kind k.
func (h *memberHarness) fire(k TimerKind) Output {
	h.t.Helper()
	return h.step(TimerFired{Timer: Timer{Kind: k}})
}

// last is the last request sent.
func (h *memberHarness) last() HeartbeatRequest {
	h.t.Helper()
	if len(h.sent) == 0 {
		h.t.Fatal("no request sent")
	}
	return h.sent[len(h.sent)-1]
}

func okResp(t testing.TB, id spec.MemberID, epoch spec.Epoch, assignment string) HeartbeatResponse {
	t.Helper()
	r := HeartbeatResponse{MemberID: id, MemberEpoch: epoch, HeartbeatIntervalMs: 3000}
	if assignment != "null" {
		r.Assignment, r.AssignmentSent = mset(t, assignment), true
	}
	return r
}

func mset(t testing.TB, s string) spec.Set { return nodetest.Set(t, s) }

// lines joins want lines into the form Output.String prints.
func lines(ls ...string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// seqRE matches the Seq that messages print ("Heartbeat#3"); checkOut
// ignores it (TestMemberSeq checks the numbering).
var seqRE = regexp.MustCompile(`#[0-9]+ `)

func checkOut(t *testing.T, what string, got Output, want ...string) {
	t.Helper()
	if g, w := seqRE.ReplaceAllString(got.String(), " "), lines(want...); g != w {
		t.Errorf("%s: output\n%s\nwant\n%s", what, g, w)
	}
}

func checkState(t *testing.T, m *Member, want MemberState) {
	t.Helper()
	if m.State() != want {
		t.Errorf("state %s, want %s\n%s", m.State(), want, m)
	}
}

// The requests as HeartbeatRequest.String prints them.
const (
	joinReq   = "send A->coordinator Heartbeat member=A-1 epoch=0 instance=null rack=null rebalance-timeout=300000 subscription=[t u] assignor=null owned={}"
	beatReq   = "send A->coordinator Heartbeat member=A-1 epoch=%d instance=null rack=null rebalance-timeout=-1 subscription=null assignor=null owned=%s"
	fullReq   = "send A->coordinator Heartbeat member=A-1 epoch=%d instance=null rack=null rebalance-timeout=300000 subscription=[t u] assignor=null owned=%s"
	cancelReq = "cancel request"
)

func beat(epoch spec.Epoch, owned string) string { return fmt.Sprintf(beatReq, epoch, owned) }
func full(epoch spec.Epoch, owned string) string { return fmt.Sprintf(fullReq, epoch, owned) }

func itoa(n int) string { return strconv.Itoa(n) }

// stable returns a harness whose member joined at time 0, received owned at
// epoch 1 at time 10, acknowledged it, and got the acknowledgement's answer
// at time 20: Stable, heartbeat timer at 3020, nothing awaited.
func stable(t *testing.T, owned string, mods ...func(*MemberConfig)) *memberHarness {
	t.Helper()
	h := newMemberHarness(t, memberConfig(mods...))
	h.step(node.Start{})
	h.at(10).ok(1, owned)
	h.at(20).ok(1, "null")
	checkState(t, h.m, MemberStable)
	if !h.m.Owned().Equal(mset(t, owned)) || h.m.awaitSeq != 0 {
		t.Fatalf("setup: %s", h.m)
	}
	return h
}

func TestMemberNewMemberErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*MemberConfig)
		want string
	}{
		{"empty name", func(c *MemberConfig) { c.Name = "" }, "empty name"},
		{"coordinator's name", func(c *MemberConfig) { c.Name = CoordinatorNode }, "reserved"},
		{"empty group", func(c *MemberConfig) { c.GroupID = "" }, "empty group id"},
		{"blank group", func(c *MemberConfig) { c.GroupID = " \t" }, "empty group id"},
		{"empty member id", func(c *MemberConfig) { c.MemberID = "" }, "empty member id"},
		{"blank member id", func(c *MemberConfig) { c.MemberID = "  " }, "empty member id"},
		{"blank instance id", func(c *MemberConfig) { c.InstanceID = " " }, "instance id"},
		{"no topics", func(c *MemberConfig) { c.Topics = nil }, "no topics"},
		{"empty topic", func(c *MemberConfig) { c.Topics = []string{"t", ""} }, "empty topic name"},
		{"negative rebalance timeout", func(c *MemberConfig) { c.RebalanceTimeout = -1 }, "negative duration"},
		{"negative request timeout", func(c *MemberConfig) { c.RequestTimeout = -5 }, "negative duration"},
		{"rebalance timeout above int32", func(c *MemberConfig) { c.RebalanceTimeout = 1 << 31 }, "int32"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := NewMember(memberConfig(c.mod))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("NewMember: %v, %v; want an error containing %q", m, err, c.want)
			}
		})
	}
	t.Run("a rebalance timeout of MaxInt32 fits", func(t *testing.T) {
		if _, err := NewMember(memberConfig(func(c *MemberConfig) { c.RebalanceTimeout = math.MaxInt32 })); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("the config's slice is not kept", func(t *testing.T) {
		cfg := memberConfig()
		m, err := NewMember(cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Topics[0] = "x"
		if got := m.Subscription(); !slices.Equal(got, []string{"t", "u"}) {
			t.Fatalf("subscription %v, want [t u]", got)
		}
	})
}

func TestMemberJoinRequest(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*MemberConfig)
		want []string
	}{
		{"dynamic, defaults", func(*MemberConfig) {},
			[]string{joinReq, "set request@30000"}},
		{"static, assignor, own timeouts",
			func(c *MemberConfig) {
				c.InstanceID, c.ServerAssignor, c.RebalanceTimeout, c.RequestTimeout = "a", "range", 20000, 700
			},
			[]string{`send A->coordinator Heartbeat member=A-1 epoch=0 instance="a" rack=null rebalance-timeout=20000 subscription=[t u] assignor="range" owned={}`, "set request@700"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newMemberHarness(t, memberConfig(c.mod))
			checkState(t, h.m, MemberUnsubscribed)
			checkOut(t, "start", h.step(node.Start{}), c.want...)
			checkState(t, h.m, MemberJoining)
			r := h.last()
			if !r.OwnedSent || !r.TopicPartitions.IsEmpty() || !r.SubscriptionSent || r.MemberEpoch != 0 || h.m.Epoch() != 0 {
				t.Errorf("join request %+v: want epoch 0, owned sent and empty, subscription sent", r)
			}
			checkOut(t, "second start", h.step(node.Start{}))
		})
	}
}

func TestMemberAssignment(t *testing.T) {
	h := newMemberHarness(t, memberConfig())
	h.step(node.Start{})
	checkOut(t, "join response", h.at(10).ok(1, "{t-0 t-1}"),
		beat(1, "{t-0 t-1}"), cancelReq, "set request@30010", "callback assigned {t-0 t-1} epoch=1")
	checkState(t, h.m, MemberStable)
	checkOut(t, "acknowledgement's response", h.at(20).ok(1, "null"), cancelReq, "set heartbeat@3020")
	if h.m.Epoch() != 1 || h.m.AssignmentEpoch() != 1 {
		t.Errorf("epochs %d/%d, want 1/1", h.m.Epoch(), h.m.AssignmentEpoch())
	}
	checkOut(t, "early heartbeat timer", h.at(3000).fire(HeartbeatTimer))
	checkOut(t, "keepalive", h.at(3020).fire(HeartbeatTimer), beat(1, "null"), "set request@33020")
	checkOut(t, "keepalive's response moves the epoch", h.at(3030).ok(2, "null"), cancelReq, "set heartbeat@6030")
	v := h.m.View()
	want := spec.MemberView{Name: "A", ID: "A-1", Generation: 2, Subscription: []string{"t", "u"}, Owns: mset(t, "{t-0 t-1}")}
	if v.String() != want.String() || !v.Revoking.IsEmpty() {
		t.Errorf("view %s, want %s", v, want)
	}

	t.Run("an empty first assignment needs no acknowledgement", func(t *testing.T) {
		h := newMemberHarness(t, memberConfig())
		h.step(node.Start{})
		checkOut(t, "join response", h.at(10).ok(4, "{}"), cancelReq, "set heartbeat@3010")
		checkState(t, h.m, MemberStable)
		if g := h.m.View().Generation; g != 4 {
			t.Errorf("generation %d, want 4", g)
		}
	})
	t.Run("a join response without assignment keeps joining with full requests", func(t *testing.T) {
		h := newMemberHarness(t, memberConfig())
		h.step(node.Start{})
		checkOut(t, "join response", h.at(10).ok(4, "null"), cancelReq, "set heartbeat@3010")
		checkState(t, h.m, MemberJoining)
		checkOut(t, "next", h.at(3010).fire(HeartbeatTimer), full(4, "{}"), "set request@33010")
	})
	t.Run("more partitions at the same epoch", func(t *testing.T) {
		h := stable(t, "{t-0}")
		h.at(3020).fire(HeartbeatTimer)
		checkOut(t, "grow", h.at(3030).ok(1, "{t-0 t-1}"),
			beat(1, "{t-0 t-1}"), cancelReq, "set request@33030", "callback assigned {t-1} epoch=1")
	})
}

func TestMemberRevocation(t *testing.T) {
	for _, c := range []struct {
		name  string
		epoch spec.Epoch // of the revoking response
	}{
		{"at the same epoch (UNREVOKED_PARTITIONS keeps the epoch)", 1},
		{"with an epoch bump (one epoch at a time towards the target)", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := stable(t, "{t-0 t-1 t-2}")
			h.at(3020).fire(HeartbeatTimer)
			checkOut(t, "revoking response", h.at(3030).ok(c.epoch, "{t-0 u-0}"),
				cancelReq, "set heartbeat@6030", "callback revoke {t-1 t-2} epoch=1")
			checkState(t, h.m, MemberReconciling)
			if h.m.Epoch() != c.epoch || h.m.AssignmentEpoch() != 1 {
				t.Errorf("epochs %d/%d, want %d/1: heartbeats carry the new epoch, the assignment stays at the old one", h.m.Epoch(), h.m.AssignmentEpoch(), c.epoch)
			}
			v := h.m.View()
			if !v.Owns.Equal(mset(t, "{t-0 t-1 t-2}")) || !v.Revoking.Equal(mset(t, "{t-1 t-2}")) || v.Generation != 1 {
				t.Errorf("view while revoking: %s", v)
			}
			checkOut(t, "heartbeat while revoking: owned unchanged, not sent", h.at(6030).fire(HeartbeatTimer),
				beat(c.epoch, "null"), "set request@36030")
			checkOut(t, "lost: the full request still reports the revoked partitions", h.at(36030).fire(RequestTimer),
				full(c.epoch, "{t-0 t-1 t-2}"), "set request@66030")
			checkOut(t, "answer", h.at(36040).ok(c.epoch, "{t-0 u-0}"), cancelReq, "set heartbeat@39040")
			checkOut(t, "revocation done", h.at(37000).step(RevocationDone{Resources: mset(t, "{t-1 t-2}")}),
				beat(c.epoch, "{t-0 u-0}"), "cancel heartbeat", "set request@67000", "callback assigned {u-0} epoch="+itoa(int(c.epoch)))
			checkState(t, h.m, MemberStable)
			v = h.m.View()
			if !v.Owns.Equal(mset(t, "{t-0 u-0}")) || !v.Revoking.IsEmpty() || v.Generation != spec.Generation(c.epoch) {
				t.Errorf("view after the revocation: %s", v)
			}
		})
	}
	t.Run("revoking only: the acknowledgement drops the revoked partitions", func(t *testing.T) {
		h := stable(t, "{t-0 t-1}")
		h.at(3020).fire(HeartbeatTimer)
		h.at(3030).ok(1, "{t-0}")
		checkOut(t, "partial revocation done: reported at the next heartbeat", h.at(3100).step(RevocationDone{Resources: mset(t, "{t-5}")}))
		checkOut(t, "revocation done", h.at(3200).step(RevocationDone{Resources: mset(t, "{t-1}")}),
			beat(1, "{t-0}"), "cancel heartbeat", "set request@33200")
		checkState(t, h.m, MemberStable)
	})
	t.Run("a new assignment while revoking waits for the revocation", func(t *testing.T) {
		h := stable(t, "{t-0 t-1}")
		h.at(3020).fire(HeartbeatTimer)
		h.at(3030).ok(1, "{t-0}")
		h.at(6030).fire(HeartbeatTimer)
		h.step(RevocationDone{Resources: mset(t, "{t-1}")}) // awaited: the acknowledgement waits
		checkState(t, h.m, MemberAcknowledging)
		checkOut(t, "answer, then the acknowledgement", h.at(6040).ok(1, "null"),
			beat(1, "{t-0}"), cancelReq, "set request@36040")
		checkState(t, h.m, MemberStable)
	})
	t.Run("a partition given back while it is revoked is assigned again after", func(t *testing.T) {
		h := stable(t, "{t-0 t-1}")
		h.at(3020).fire(HeartbeatTimer)
		h.at(3030).ok(1, "{t-0}")
		h.at(6030).fire(HeartbeatTimer)
		checkOut(t, "given back at a later epoch", h.at(6040).ok(2, "{t-0 t-1}"), cancelReq, "set heartbeat@9040")
		checkOut(t, "revocation done", h.at(7000).step(RevocationDone{Resources: mset(t, "{t-1}")}),
			beat(2, "{t-0 t-1}"), "cancel heartbeat", "set request@37000", "callback assigned {t-1} epoch=2")
	})
}

func TestMemberStraightToTarget(t *testing.T) {
	h := stable(t, "{t-0 t-1 t-2}", straightToTarget)
	h.at(3020).fire(HeartbeatTimer)
	checkOut(t, "revoking response: revoke, assign and acknowledge at once", h.at(3030).ok(2, "{t-0 u-0}"),
		beat(2, "{t-0 u-0}"), cancelReq, "set request@33030",
		"callback revoke {t-1 t-2} epoch=1", "callback assigned {u-0} epoch=2")
	checkState(t, h.m, MemberStable)
	v := h.m.View()
	if !v.Owns.Equal(mset(t, "{t-0 t-1 t-2 u-0}")) || !v.Revoking.Equal(mset(t, "{t-1 t-2}")) || v.Generation != 2 {
		t.Errorf("view: %s, want the revoked partitions still worked on at the new epoch", v)
	}
	checkOut(t, "the acknowledgement's answer moves the epoch", h.at(3040).ok(3, "null"), cancelReq, "set heartbeat@6040")
	checkOut(t, "revocation done: nothing left to report", h.at(4000).step(RevocationDone{Resources: mset(t, "{t-1 t-2}")}))
	if v := h.m.View(); !v.Owns.Equal(mset(t, "{t-0 u-0}")) || !v.Revoking.IsEmpty() || v.Generation != 3 {
		t.Errorf("view after: %s, want generation 3 (never back to the target's 2)", v)
	}

	t.Run("a partition given back while it is revoked waits for the revocation", func(t *testing.T) {
		h := stable(t, "{t-0 t-1}", straightToTarget)
		h.at(3020).fire(HeartbeatTimer)
		h.at(3030).ok(2, "{t-0}")
		h.at(3040).ok(2, "null")
		h.at(6040).fire(HeartbeatTimer)
		checkOut(t, "given back at a later epoch: not assigned while the application still revokes it", h.at(6050).ok(3, "{t-0 t-1}"),
			cancelReq, "set heartbeat@9050")
		checkOut(t, "revocation done: assigned again", h.at(7000).step(RevocationDone{Resources: mset(t, "{t-1}")}),
			beat(3, "{t-0 t-1}"), "cancel heartbeat", "set request@37000", "callback assigned {t-1} epoch=3")
	})
}

func TestMemberFenced(t *testing.T) {
	for _, code := range []spec.ErrorCode{spec.FencedMemberEpoch, spec.UnknownMemberID} {
		t.Run(code.String(), func(t *testing.T) {
			h := stable(t, "{t-0 t-1}")
			h.at(3020).fire(HeartbeatTimer)
			h.at(3030).ok(1, "{t-0}") // t-1 is being revoked
			h.at(6030).fire(HeartbeatTimer)
			checkOut(t, "fenced", h.at(6040).fail(code),
				full(0, "{}"), cancelReq, "set request@36040", "callback lost {t-0 t-1} epoch=1")
			checkState(t, h.m, MemberJoining)
			if h.m.ID() != "A-1" || h.m.Epoch() != 0 || h.last().MemberID != "A-1" {
				t.Errorf("after the fence: id %s epoch %d, request %s", h.m.ID(), h.m.Epoch(), h.last())
			}
			if v := h.m.View(); !v.Owns.IsEmpty() || !v.Revoking.IsEmpty() || v.Generation != spec.NoGeneration {
				t.Errorf("view: %s", v)
			}
			checkOut(t, "the application finishes the overtaken revocation", h.step(RevocationDone{Resources: mset(t, "{t-1}")}))
			stale := okResp(t, "A-1", 1, "{t-0 t-1}")
			stale.Seq = h.sent[len(h.sent)-2].Seq // the fenced keepalive's
			checkOut(t, "a stale answer to the fenced heartbeat", h.recv(stale))
			checkOut(t, "the join's answer", h.at(6050).ok(3, "{t-1}"),
				beat(3, "{t-1}"), cancelReq, "set request@36050", "callback assigned {t-1} epoch=3")
		})
	}
	t.Run("a fenced join backs off", func(t *testing.T) {
		h := newMemberHarness(t, memberConfig())
		h.step(node.Start{})
		checkOut(t, "fenced join", h.at(10).fail(spec.FencedMemberEpoch), cancelReq, "set heartbeat@5010")
		checkState(t, h.m, MemberJoining)
		checkOut(t, "rejoin", h.at(5010).fire(HeartbeatTimer), full(0, "{}"), "set request@35010")
	})
}

func TestMemberFatal(t *testing.T) {
	for _, c := range []struct {
		code  spec.ErrorCode
		owned string
		want  []string
	}{
		{spec.InvalidRequest, "{t-0}", []string{"callback lost {t-0} epoch=1", "callback fatal {} epoch=1: ConsumerGroupHeartbeat: INVALID_REQUEST: boom"}},
		{spec.GroupMaxSizeReached, "{}", []string{"callback fatal {} epoch=1: ConsumerGroupHeartbeat: GROUP_MAX_SIZE_REACHED: boom"}},
		{spec.UnsupportedAssignor, "{t-0}", []string{"callback lost {t-0} epoch=1", "callback fatal {} epoch=1: ConsumerGroupHeartbeat: UNSUPPORTED_ASSIGNOR: boom"}},
		{spec.UnreleasedInstanceID, "{t-0}", []string{"callback lost {t-0} epoch=1", "callback fatal {} epoch=1: ConsumerGroupHeartbeat: UNRELEASED_INSTANCE_ID: boom"}},
		{spec.FencedInstanceID, "{t-0}", []string{"callback lost {t-0} epoch=1", "callback fatal {} epoch=1: ConsumerGroupHeartbeat: FENCED_INSTANCE_ID: boom"}},
		{spec.UnknownServerError, "{t-0}", []string{"callback lost {t-0} epoch=1", "callback fatal {} epoch=1: ConsumerGroupHeartbeat: UNKNOWN_SERVER_ERROR: boom"}},
	} {
		t.Run(c.code.String(), func(t *testing.T) {
			h := stable(t, c.owned)
			h.at(3020).fire(HeartbeatTimer)
			checkOut(t, "fatal", h.at(3030).fail(c.code), append([]string{cancelReq}, c.want...)...)
			checkState(t, h.m, MemberFatal)
			if !h.m.View().Owns.IsEmpty() {
				t.Errorf("view %s: want nothing owned", h.m.View())
			}
			for _, e := range []node.Event{TimerFired{Timer: Timer{Kind: HeartbeatTimer}}, node.Start{}, node.Leave{}, node.Subscribe{Topics: []string{"x"}},
				Receive{From: CoordinatorNode, Msg: okResp(t, "A-1", 9, "{t-9}")}} {
				checkOut(t, "after fatal: "+e.String(), h.at(100000).step(e))
			}
		})
	}
	t.Run("an error while joining", func(t *testing.T) {
		h := newMemberHarness(t, memberConfig())
		h.step(node.Start{})
		checkOut(t, "fatal", h.at(10).fail(spec.GroupMaxSizeReached),
			cancelReq, "callback fatal {} epoch=0: ConsumerGroupHeartbeat: GROUP_MAX_SIZE_REACHED: boom")
	})
}

func TestMemberRetriable(t *testing.T) {
	for _, code := range []spec.ErrorCode{spec.NotCoordinator, spec.CoordinatorNotAvailable} {
		t.Run(code.String(), func(t *testing.T) {
			h := stable(t, "{t-0}")
			h.at(3020).fire(HeartbeatTimer)
			checkOut(t, "retriable", h.at(3030).fail(code), cancelReq, "set heartbeat@6030")
			checkState(t, h.m, MemberStable)
			checkOut(t, "retry is a full request", h.at(6030).fire(HeartbeatTimer), full(1, "{t-0}"), "set request@36030")
		})
	}
}

func TestMemberStaleResponses(t *testing.T) {
	// Each case brings a stable member owning {t-0 t-1} at epoch 1 (its
	// requests so far: 1 join, 2 acknowledgement, both answered) into a
	// situation and delivers a response that must be ignored.
	resp := func(seq uint64, epoch spec.Epoch, a string) HeartbeatResponse {
		r := okResp(t, "A-1", epoch, a)
		r.Seq = seq
		return r
	}
	for _, c := range []struct {
		name    string
		setup   func(h *memberHarness)
		deliver Receive
	}{
		{"duplicate of the last answer, nothing awaited", func(*memberHarness) {},
			Receive{From: CoordinatorNode, Msg: resp(2, 1, "null")}},
		{"duplicate of the join's answer, nothing awaited", func(*memberHarness) {},
			Receive{From: CoordinatorNode, Msg: resp(1, 1, "{t-0 t-1}")}},
		{"error, nothing awaited", func(*memberHarness) {},
			Receive{From: CoordinatorNode, Msg: HeartbeatResponse{Seq: 2, Error: spec.FencedMemberEpoch}}},
		{"an earlier answer, while one is awaited", func(h *memberHarness) { h.at(3020).fire(HeartbeatTimer) },
			Receive{From: CoordinatorNode, Msg: resp(2, 1, "{}")}},
		{"no Seq", func(h *memberHarness) { h.at(3020).fire(HeartbeatTimer) },
			Receive{From: CoordinatorNode, Msg: resp(0, 2, "{}")}},
		{"not from the coordinator", func(h *memberHarness) { h.at(3020).fire(HeartbeatTimer) },
			Receive{From: "B", Msg: resp(3, 2, "{}")}},
		{"for another member id", func(h *memberHarness) { h.at(3020).fire(HeartbeatTimer) },
			Receive{From: CoordinatorNode, Msg: HeartbeatResponse{Seq: 3, MemberID: "A-0", MemberEpoch: 2}}},
		{"an error for another member id", func(h *memberHarness) { h.at(3020).fire(HeartbeatTimer) },
			Receive{From: CoordinatorNode, Msg: HeartbeatResponse{Seq: 3, Error: spec.FencedMemberEpoch, MemberID: "A-0"}}},
		{"the answer before the revocation, while the acknowledgement is awaited", func(h *memberHarness) {
			h.at(3020).fire(HeartbeatTimer)
			h.at(3030).ok(1, "{t-0}")
			h.step(RevocationDone{Resources: mset(t, "{t-1}")})
		}, Receive{From: CoordinatorNode, Msg: resp(1, 1, "{t-0 t-1}")}},
		{"the answer to a heartbeat that timed out", func(h *memberHarness) {
			h.at(3020).fire(HeartbeatTimer)
			h.at(33020).fire(RequestTimer)
		}, Receive{From: CoordinatorNode, Msg: resp(3, 2, "{t-0}")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := stable(t, "{t-0 t-1}")
			c.setup(h)
			before := h.m.String()
			checkOut(t, "deliver", h.at(40000).step(c.deliver))
			if h.m.String() != before {
				t.Errorf("member changed:\n%s\nwant\n%s", h.m, before)
			}
		})
	}
	t.Run("a duplicated request answered twice", func(t *testing.T) {
		h := stable(t, "{t-0}")
		h.at(3020).fire(HeartbeatTimer)
		checkOut(t, "first answer", h.at(3030).ok(2, "null"), cancelReq, "set heartbeat@6030")
		checkOut(t, "second answer", h.at(3031).ok(2, "{t-5}"))
		if h.m.Epoch() != 2 || !h.m.Owned().Equal(mset(t, "{t-0}")) {
			t.Errorf("after: %s", h.m)
		}
	})
	for _, e := range []spec.Epoch{-1, 0} {
		t.Run("an answer with epoch "+itoa(int(e))+" changes nothing but answers", func(t *testing.T) {
			h := stable(t, "{t-0}")
			h.at(3020).fire(HeartbeatTimer)
			checkOut(t, "answer", h.at(3030).ok(e, "{}"), cancelReq, "set heartbeat@6030")
			if h.m.Epoch() != 1 || !h.m.Owned().Equal(mset(t, "{t-0}")) {
				t.Errorf("after: %s", h.m)
			}
		})
	}
	t.Run("an answer with heartbeat interval 0 keeps the interval", func(t *testing.T) {
		h := stable(t, "{t-0}")
		h.at(3020).fire(HeartbeatTimer)
		r := okResp(t, h.m.ID(), 2, "null")
		r.Seq, r.HeartbeatIntervalMs = h.last().Seq, 0
		checkOut(t, "answer", h.at(3030).recv(r), cancelReq, "set heartbeat@6030")
	})
}

func TestMemberSeq(t *testing.T) {
	h := newMemberHarness(t, memberConfig())
	h.step(node.Start{})
	h.at(30000).fire(RequestTimer)
	h.at(30010).ok(1, "{t-0}")
	h.at(30020).ok(1, "null")
	h.at(33020).fire(HeartbeatTimer)
	h.at(33030).step(node.Leave{})
	h.at(34000).step(RevocationDone{Resources: mset(t, "{t-0}")})
	var got []uint64
	for _, r := range h.sent {
		got = append(got, r.Seq)
	}
	// join, join again (timed out), acknowledgement, keepalive, leave
	if want := []uint64{1, 2, 3, 4, 5}; !slices.Equal(got, want) {
		t.Fatalf("Seqs %v, want %v", got, want)
	}
	if !strings.HasPrefix(h.sent[0].String(), "Heartbeat#1 ") {
		t.Errorf("request prints %q", h.sent[0])
	}
	checkOut(t, "the keepalive's answer, after the leave heartbeat replaced it",
		h.recv(HeartbeatResponse{Seq: 4, MemberID: "A-1", MemberEpoch: 1}))
	checkState(t, h.m, MemberLeaving)
	checkOut(t, "the leave's answer", h.recv(HeartbeatResponse{Seq: 5, MemberID: "A-1", MemberEpoch: spec.LeaveEpoch}), cancelReq)
	checkState(t, h.m, MemberLeft)
}

func TestMemberRequestTimeout(t *testing.T) {
	t.Run("join lost", func(t *testing.T) {
		h := newMemberHarness(t, memberConfig())
		h.step(node.Start{})
		checkOut(t, "early", h.at(29999).fire(RequestTimer))
		checkOut(t, "another node's timer", h.at(30000).step(TimerFired{Timer: Timer{Kind: RequestTimer, Member: "B-1"}}))
		checkOut(t, "resend", h.at(30000).fire(RequestTimer), joinReq, "set request@60000")
	})
	t.Run("acknowledgement lost: the resend is full and repeats it", func(t *testing.T) {
		h := newMemberHarness(t, memberConfig())
		h.step(node.Start{})
		h.at(10).ok(1, "{t-0}")
		checkOut(t, "resend", h.at(30010).fire(RequestTimer), full(1, "{t-0}"), "set request@60010")
		checkOut(t, "answer", h.at(30020).ok(1, "{t-0}"), cancelReq, "set heartbeat@33020")
		checkOut(t, "the timer of the answered request", h.at(60010).fire(RequestTimer))
		checkOut(t, "next keepalive is not full", h.at(33020).fire(HeartbeatTimer), beat(1, "null"), "set request@63020")
	})
}

func TestMemberLeave(t *testing.T) {
	for _, c := range []struct {
		name   string
		mod    func(*MemberConfig)
		epoch  spec.Epoch
		inst   string
		owned  string
		revoke []string
	}{
		{"dynamic, owning", func(*MemberConfig) {}, spec.LeaveEpoch, "null", "{t-0}", []string{"callback revoke {t-0} epoch=1"}},
		{"static, owning", static, spec.StaticLeaveEpoch, `"a"`, "{t-0}", []string{"callback revoke {t-0} epoch=1"}},
		{"dynamic, owning nothing", func(*MemberConfig) {}, spec.LeaveEpoch, "null", "{}", nil},
		{"static, owning nothing", static, spec.StaticLeaveEpoch, `"a"`, "{}", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := stable(t, c.owned, c.mod)
			leaveReq := "send A->coordinator Heartbeat member=A-1 epoch=" + itoa(int(c.epoch)) + " instance=" + c.inst +
				" rack=null rebalance-timeout=-1 subscription=null assignor=null owned="
			out := h.at(100).step(node.Leave{})
			if c.revoke != nil {
				checkOut(t, "leave", out, c.revoke...)
				checkState(t, h.m, MemberPrepareLeaving)
				checkOut(t, "leave again", h.step(node.Leave{}))
				checkOut(t, "still heartbeating", h.at(3020).fire(HeartbeatTimer),
					strings.Replace(beat(1, "null"), "instance=null", "instance="+c.inst, 1), "set request@33020")
				checkOut(t, "an assignment is ignored", h.at(3030).ok(2, "{t-0 t-1}"), cancelReq, "set heartbeat@6030")
				out = h.at(4000).step(RevocationDone{Resources: mset(t, c.owned)})
				checkOut(t, "revoked", out, leaveReq+"{}", "cancel heartbeat", "set request@34000")
			} else {
				checkOut(t, "leave at once (owned unchanged: not sent)", out, leaveReq+"null", "cancel heartbeat", "set request@30100")
			}
			checkState(t, h.m, MemberLeaving)
			if h.m.Epoch() != c.epoch || !h.m.View().Owns.IsEmpty() || h.m.View().Generation != spec.NoGeneration {
				t.Errorf("leaving: epoch %d, view %s", h.m.Epoch(), h.m.View())
			}
			checkOut(t, "leave lost", h.at(40000).fire(RequestTimer), leaveReq+"null", "set request@70000")
			checkOut(t, "the answer to the lost leave", h.at(40001).recv(HeartbeatResponse{Seq: h.last().Seq - 1, MemberID: "A-1", MemberEpoch: c.epoch}))
			checkOut(t, "left", h.at(40010).recv(HeartbeatResponse{Seq: h.last().Seq, MemberID: "A-1", MemberEpoch: c.epoch}), cancelReq)
			checkState(t, h.m, MemberLeft)
			checkOut(t, "after left", h.step(node.Start{}))
		})
	}
	t.Run("before start", func(t *testing.T) {
		h := newMemberHarness(t, memberConfig())
		checkOut(t, "leave", h.step(node.Leave{}))
		checkState(t, h.m, MemberLeft)
	})
	t.Run("while joining", func(t *testing.T) {
		h := newMemberHarness(t, memberConfig())
		h.step(node.Start{})
		checkOut(t, "leave", h.at(5).step(node.Leave{}),
			"send A->coordinator Heartbeat member=A-1 epoch=-1 instance=null rack=null rebalance-timeout=-1 subscription=null assignor=null owned=null",
			"set request@30005")
		checkOut(t, "an error answers the leave", h.at(6).fail(spec.UnknownMemberID), cancelReq)
		checkState(t, h.m, MemberLeft)
	})
	t.Run("while revoking: only the rest is revoked", func(t *testing.T) {
		h := stable(t, "{t-0 t-1}")
		h.at(3020).fire(HeartbeatTimer)
		h.at(3030).ok(1, "{t-0}")
		checkOut(t, "leave", h.at(3040).step(node.Leave{}), "callback revoke {t-0} epoch=1")
		checkOut(t, "part done", h.at(3050).step(RevocationDone{Resources: mset(t, "{t-1}")}))
		checkOut(t, "all done", h.at(3060).step(RevocationDone{Resources: mset(t, "{t-0}")}),
			beat(-1, "{}"), "cancel heartbeat", "set request@33060")
	})
	t.Run("fenced while preparing to leave", func(t *testing.T) {
		h := stable(t, "{t-0}")
		h.at(100).step(node.Leave{})
		h.at(3020).fire(HeartbeatTimer)
		checkOut(t, "fenced", h.at(3030).fail(spec.FencedMemberEpoch), cancelReq, "callback lost {t-0} epoch=1")
		checkState(t, h.m, MemberLeft)
	})
}

func TestMemberSubscribe(t *testing.T) {
	subs := "send A->coordinator Heartbeat member=A-1 epoch=1 instance=null rack=null rebalance-timeout=-1 subscription=[t v] assignor=null owned=null"
	t.Run("stable: sent at once, alone", func(t *testing.T) {
		h := stable(t, "{t-0}")
		checkOut(t, "subscribe", h.at(100).step(node.Subscribe{Topics: []string{"v", "t", "v"}}), subs, "cancel heartbeat", "set request@30100")
		checkOut(t, "same again", h.at(101).step(node.Subscribe{Topics: []string{"t", "v"}}))
		if got := h.m.View().Subscription; !slices.Equal(got, []string{"t", "v"}) {
			t.Errorf("view subscription %v", got)
		}
	})
	t.Run("awaiting: sent after the answer", func(t *testing.T) {
		h := stable(t, "{t-0}")
		h.at(3020).fire(HeartbeatTimer)
		checkOut(t, "subscribe", h.at(3021).step(node.Subscribe{Topics: []string{"t", "v"}}))
		checkOut(t, "answer", h.at(3030).ok(1, "null"), subs, cancelReq, "set request@33030")
	})
	t.Run("before start: the join carries it", func(t *testing.T) {
		h := newMemberHarness(t, memberConfig())
		checkOut(t, "subscribe", h.step(node.Subscribe{Topics: []string{"x"}}))
		checkOut(t, "start", h.step(node.Start{}),
			"send A->coordinator Heartbeat member=A-1 epoch=0 instance=null rack=null rebalance-timeout=300000 subscription=[x] assignor=null owned={}",
			"set request@30000")
	})
	t.Run("no topics is a driver bug", func(t *testing.T) {
		h := stable(t, "{t-0}")
		defer func() {
			if recover() == nil {
				t.Error("Subscribe{} did not panic")
			}
		}()
		h.step(node.Subscribe{})
	})
}

func TestMemberClone(t *testing.T) {
	h := stable(t, "{t-0 t-1}")
	h.at(3020).fire(HeartbeatTimer)
	h.at(3030).ok(1, "{t-0}")
	c := h.m.Clone()
	before := c.String()
	h.at(3040).step(node.Subscribe{Topics: []string{"v"}})
	h.step(RevocationDone{Resources: mset(t, "{t-1}")})
	h.at(5000).ok(2, "{t-0 v-0}")
	if c.String() != before {
		t.Fatalf("clone changed with the original:\n%s\nwant\n%s", c, before)
	}
	orig := h.m.String()
	c.Step(node.Input{Now: 4000, Event: node.Leave{}})
	c.Step(node.Input{Now: 4000, Event: RevocationDone{Resources: mset(t, "{t-0 t-1}")}})
	checkState(t, c, MemberLeaving)
	if h.m.String() != orig {
		t.Fatalf("original changed with the clone:\n%s\nwant\n%s", h.m, orig)
	}
	sub := h.m.Subscription()
	sub[0] = "zzz"
	if h.m.String() != orig {
		t.Fatal("changing the returned subscription changed the member")
	}
	// View shares the member's subscription (read-only, by its contract)
	// instead of copying it.
	if v := h.m.View(); !slices.Equal(v.Subscription, h.m.Subscription()) || &v.Subscription[0] != &h.m.topics[0] {
		t.Fatalf("view subscription %v: want the member's own %v", v.Subscription, h.m.topics)
	}
}

func TestMemberTransitions(t *testing.T) {
	// Every state's allowed moves, as the table says; a few impossible ones
	// panic.
	for _, c := range []struct{ from, to MemberState }{
		{MemberUnsubscribed, MemberStable},
		{MemberStable, MemberAcknowledging},
		{MemberFenced, MemberStable},
		{MemberLeaving, MemberJoining},
		{MemberLeft, MemberJoining},
		{MemberFatal, MemberJoining},
	} {
		m, err := NewMember(memberConfig())
		if err != nil {
			t.Fatal(err)
		}
		m.state = c.from
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s -> %s did not panic", c.from, c.to)
				}
			}()
			m.become(c.to)
		}()
	}
	m, _ := NewMember(memberConfig())
	m.state = MemberStable
	m.become(MemberStable) // staying is always allowed
	defer func() {
		if recover() == nil {
			t.Error("an unknown event did not panic")
		}
	}()
	m.Step(node.Input{Event: node.MetadataUpdate{}})
	m.Step(node.Input{Event: nil})
}

func TestMemberString(t *testing.T) {
	h := stable(t, "{t-0 t-1}", static)
	h.at(3020).fire(HeartbeatTimer)
	h.at(3030).ok(2, "{t-0}")
	want := `member A id=A-1 state=reconciling epoch=2 interval=3000 instance=a
  subscription=[t u] sent-subscription=[t u] owned={t-0 t-1} owned-epoch=1 reported revoking={t-1}
  target={t-0}@2
  seq=3 awaiting=0 full=false timers heartbeat@6030`
	if got := h.m.String(); got != want {
		t.Errorf("String:\n%s\nwant\n%s", got, want)
	}
	for s := MemberUnsubscribed; s <= MemberFatal; s++ {
		if strings.HasPrefix(s.String(), "member-state(") {
			t.Errorf("state %d has no name", s)
		}
	}
}

// TestMemberPhases: the phase of every member state, as the closed world
// reads it (no rebalancing phase: active until stable, left or fatal).
func TestMemberPhases(t *testing.T) {
	nodetest.CheckPhases(t, &memberStates, "unsubscribed:active joining:active reconciling:active acknowledging:active stable:settled fenced:active prepare-leaving:active leaving:active left:left fatal:failed")
}
