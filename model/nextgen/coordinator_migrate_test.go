package nextgen

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// The migration tests: real classic and next-gen members in one consumer
// group, the upgrade from a real classic coordinator's state, and the
// downgrade to a classic coordinator that real classic members then
// rebalance against. The world (migrate_world_test.go) checks after every
// step that no partition is owned by two members.

// protocols are the classic embedded protocols the scenarios run: eager
// (revoke everything, rejoin) and cooperative (revoke what the assignment
// no longer holds, then rejoin at once).
var protocols = []struct {
	name string
	p    func() classic.Protocol
}{
	{"eager", func() classic.Protocol { return policy.Eager(assign.Range()) }},
	{"cooperative", policy.Cooperative},
}

// newMixed starts a consumer group over topics whose first member is the
// next-gen member N1, once N1 owns everything.
func newMixed(t *testing.T, topics spec.Topics, cfg CoordinatorConfig) *mworld {
	t.Helper()
	w := newMWorld(t, topics)
	cfg.GroupID, cfg.Topics = "g", topics
	w.cg = nodeMust(NewCoordinator(cfg))
	w.addNextGen("N1")
	w.runUntil("N1 owning everything", 100, w.converged)
	return w
}

// TestClassicRevokesWhileNextGenWaits: classic members join a consumer
// group a next-gen member owns; the next-gen member leaves (the "upgrade"
// policy keeps the group a consumer group), so the classic members own
// everything; then a second next-gen member joins. Each classic member
// revokes the classic way (REBALANCE_IN_PROGRESS on its heartbeat, revoke,
// rejoin with what it still owns) while the next-gen member waits for the
// partitions it releases; no partition is ever owned by two members, and
// the group converges with every partition owned.
func TestClassicRevokesWhileNextGenWaits(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			w := newMixed(t, spec.Topics{"foo": 6}, CoordinatorConfig{Migration: validate.PolicyUpgrade})
			w.addClassic("C0", p.p())
			w.addClassic("C1", p.p())
			w.runUntil("the classic members in", 1000, func() bool {
				return w.converged() && len(w.cms["C0"].Owned()) > 0 && len(w.cms["C1"].Owned()) > 0
			})
			w.leaveNextGen("N1")
			w.runUntil("the classic members owning everything", 1000, func() bool {
				return w.converged() && w.cms["C0"].Owned().Len()+w.cms["C1"].Owned().Len() == 6
			})
			before := w.cms["C0"].Owned().Union(w.cms["C1"].Owned())
			w.addNextGen("N2")
			w.runUntil("N2 in", 1000, func() bool { return w.converged() && len(w.ngs["N2"].Owned()) > 0 })
			after := w.cms["C0"].Owned().Union(w.cms["C1"].Owned())
			if after.Len() >= before.Len() {
				t.Fatalf("the classic members revoked nothing: %s then %s", before, after)
			}
			log := strings.Join(w.log, "\n")
			for _, want := range []string{"error=REBALANCE_IN_PROGRESS", "C0 callback revoked", "C1 callback revoked"} {
				if !strings.Contains(log, want) {
					t.Errorf("the run has no %q:\n%s", want, log)
				}
			}
			for _, id := range w.cg.Members() {
				m := w.cg.mustSnapshot(t, id)
				if m.Classic != strings.HasPrefix(string(id), "C") {
					t.Errorf("member %s: Classic=%t", id, m.Classic)
				}
			}
			// N2 waited for the classic members' partitions: its first
			// assignment was empty (UNRELEASED_PARTITIONS).
			if !slices.ContainsFunc(w.log, func(l string) bool {
				return strings.Contains(l, "coordinator -> N2 HeartbeatResponse") && strings.HasSuffix(l, "assignment={}")
			}) {
				t.Errorf("N2 never waited:\n%s", log)
			}
		})
	}
}

// mustSnapshot is Member for a test.
func (c *Coordinator) mustSnapshot(t *testing.T, id spec.MemberID) CoordinatorMemberSnapshot {
	t.Helper()
	m, ok := c.Member(id)
	if !ok {
		t.Fatalf("no member %s", id)
	}
	return m
}

// TestUpgradeFromClassicCoordinator: a real classic coordinator's group of
// two stable members is upgraded (validate.HeartbeatToClassic says
// OnlineUpgrade for the next-gen member's join) into a consumer group
// holding them as classic members at the generation, with their
// assignments as current and target assignment and their own session
// timers. The classic members keep running against the consumer group; the
// next-gen member's join bumps the epoch, the classic members rejoin on
// REBALANCE_IN_PROGRESS, and the group converges, no partition ever owned
// twice.
func TestUpgradeFromClassicCoordinator(t *testing.T) {
	w := newMWorld(t, spec.Topics{"foo": 4})
	w.cc = nodeMust(classic.NewCoordinator(w.ccfg))
	w.addClassic("C0", policy.Cooperative())
	w.addClassic("C1", policy.Cooperative())
	w.runUntil("a stable classic group", 500, w.converged)
	snap := w.cc.Snapshot()
	gen := snap.Generation
	if snap.State != classic.GroupStable || gen < 1 || snap.Protocol != "cooperative" || snap.ProtocolType != "consumer" || snap.Leader == "" {
		t.Fatalf("classic snapshot %+v", snap)
	}

	joinReq := HeartbeatRequest{GroupID: "g", MemberID: "N1", RebalanceTimeoutMs: testRebalance, SubscribedTopicNames: []string{"foo"}, SubscriptionSent: true, OwnedSent: true}
	info := validate.ClassicGroupInfo{Empty: false, Members: len(snap.Members), ProtocolType: snap.ProtocolType}
	if kind, rej := validate.HeartbeatToClassic(info, joinReq, validate.PolicyBidirectional, 0, validate.Semantics{}); kind != validate.OnlineUpgrade || !rej.OK() {
		t.Fatalf("HeartbeatToClassic: %s %v", kind, rej)
	}
	cg, out, err := FromClassicGroup(CoordinatorConfig{GroupID: "g", Topics: w.topics}, snap, w.now)
	if err != nil {
		t.Fatal(err)
	}
	if err := cg.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	if cg.GroupEpoch() != spec.Epoch(gen) || cg.TargetEpoch() != spec.Epoch(gen) || cg.State() != GroupStable {
		t.Fatalf("converted group: %s", cg)
	}
	var wantTimers []string
	for _, ms := range snap.Members {
		m := cg.mustSnapshot(t, ms.ID)
		a := nodeMust(classic.DecodeAssignment(ms.Assignment))
		name := strings.SplitN(string(ms.ID), "-", 2)[0]
		if !m.Classic || m.Epoch != spec.Epoch(gen) || m.PreviousEpoch != spec.Epoch(gen) || !m.Assigned.Equal(a.Assigned) ||
			!m.Target.Equal(a.Assigned) || !m.Assigned.Equal(w.cms[name].Owned()) || m.ClassicSessionTimeout != classicSession ||
			!slices.Equal(m.Subscription, []string{"foo"}) || m.Node != ms.Node || m.RebalanceTimeout != ms.RebalanceTimeout {
			t.Errorf("member %s converted to %+v from %+v", ms.ID, m, ms)
		}
		wantTimers = append(wantTimers, fmt.Sprintf("set session(%s)@%d", ms.ID, w.now+classicSession))
	}
	if got := strings.TrimSpace(out.String()); got != strings.Join(wantTimers, "\n") {
		t.Fatalf("conversion output:\n%s\nwant:\n%s", got, strings.Join(wantTimers, "\n"))
	}
	if !strings.Contains(cg.String(), "metadata-expired=true") {
		t.Errorf("the converted group's subscription metadata is not expired:\n%s", cg)
	}

	// The world switches coordinators: the classic coordinator's timers go.
	for k := range w.timers {
		if k.node == CoordinatorNode {
			delete(w.timers, k)
		}
	}
	w.cc, w.cg = nil, cg
	w.coordOut(out)
	w.addNextGen("N1")
	w.runUntil("N1 in", 2000, func() bool { return w.converged() && len(w.ngs["N1"].Owned()) > 0 })
	if w.cg.GroupEpoch() <= spec.Epoch(gen) {
		t.Fatalf("the join did not bump the group epoch past %d:\n%s", gen, w.cg)
	}
	for _, ms := range snap.Members {
		if m := w.cg.mustSnapshot(t, ms.ID); !m.Classic || m.Epoch != w.cg.TargetEpoch() {
			t.Errorf("classic member %s: %+v", ms.ID, m)
		}
	}
}

// TestUpgradeDuringClassicRebalance: a classic group caught in a rebalance
// (a member's JoinGroup parked at the barrier) is converted: the parked
// request is answered REBALANCE_IN_PROGRESS, and a member that has joined
// but holds no assignment yet is converted with nothing.
func TestUpgradeDuringClassicRebalance(t *testing.T) {
	w := newMWorld(t, spec.Topics{"foo": 4})
	w.cc = nodeMust(classic.NewCoordinator(w.ccfg))
	w.addClassic("C0", policy.Cooperative())
	w.runUntil("a stable classic group", 500, w.converged)
	w.addClassic("C1", policy.Cooperative())
	w.runUntil("a parked JoinGroup", 50, func() bool {
		return slices.ContainsFunc(w.cc.Snapshot().Members, func(m classic.CoordinatorMemberSnapshot) bool { return m.Join.Parked })
	})
	snap := w.cc.Snapshot()
	cg, out, err := FromClassicGroup(CoordinatorConfig{GroupID: "g", Topics: w.topics}, snap, w.now)
	if err != nil {
		t.Fatal(err)
	}
	if err := cg.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	var answered int
	for _, ms := range snap.Members {
		if ms.Join.Parked {
			answered++
			want := fmt.Sprintf("send coordinator->%s classic JoinGroupResponse#%d error=REBALANCE_IN_PROGRESS", ms.Join.From, ms.Join.Seq)
			if !strings.Contains(out.String(), want) {
				t.Errorf("no %q in\n%s", want, out)
			}
		}
		if ms.Assignment == "" && !cg.mustSnapshot(t, ms.ID).Assigned.IsEmpty() {
			t.Errorf("member %s without an assignment converted with one", ms.ID)
		}
	}
	if answered == 0 || strings.Count(out.String(), "send ") != answered {
		t.Fatalf("output:\n%s", out)
	}
	// The group goes on as a consumer group and converges.
	for k := range w.timers {
		if k.node == CoordinatorNode {
			delete(w.timers, k)
		}
	}
	w.cc, w.cg = nil, cg
	w.coordOut(out)
	w.runUntil("a converged consumer group", 2000, func() bool {
		return w.converged() && len(w.cms["C0"].Owned()) > 0 && len(w.cms["C1"].Owned()) > 0
	})
}

// TestFromClassicGroupRefuses: what Kafka cannot convert is an error.
func TestFromClassicGroupRefuses(t *testing.T) {
	good := classicGroup(t, 2).Snapshot()
	cfg := CoordinatorConfig{GroupID: "g", Topics: spec.Topics{"foo": 4}}
	for _, tc := range []struct {
		name string
		edit func(*classic.CoordinatorSnapshot)
		want string
	}{
		{"empty", func(g *classic.CoordinatorSnapshot) { g.Members = nil }, "no members"},
		{"connect", func(g *classic.CoordinatorSnapshot) { g.ProtocolType = "connect" }, `protocol type is "connect"`},
		{"no protocol", func(g *classic.CoordinatorSnapshot) { g.Protocol = "" }, "no protocol is selected"},
		{"no metadata", func(g *classic.CoordinatorSnapshot) { g.Protocol = "other" }, "no metadata for protocol other"},
		{"malformed subscription", func(g *classic.CoordinatorSnapshot) { g.Members[0].Protocols[0].Metadata = "x" }, "malformed"},
		{"malformed assignment", func(g *classic.CoordinatorSnapshot) { g.Members[1].Assignment = "x" }, "malformed"},
		{"twice", func(g *classic.CoordinatorSnapshot) { g.Members[1].Assignment = g.Members[0].Assignment }, "is assigned to"},
		{"repeated id", func(g *classic.CoordinatorSnapshot) { g.Members[1].ID = g.Members[0].ID }, "repeated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := good
			g.Members = slices.Clone(good.Members)
			for i := range g.Members {
				g.Members[i].Protocols = slices.Clone(g.Members[i].Protocols)
			}
			tc.edit(&g)
			c, _, err := FromClassicGroup(cfg, g, 0)
			if err == nil || c != nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v; want an error with %q", c, err, tc.want)
			}
		})
	}
	if _, _, err := FromClassicGroup(CoordinatorConfig{}, good, 0); err == nil {
		t.Fatal("an invalid configuration was accepted")
	}
	// A member without a rebalance timeout gets its session timeout.
	g := good
	g.Members = slices.Clone(good.Members)
	g.Members[0].RebalanceTimeout = 0
	if c, _, err := FromClassicGroup(cfg, g, 0); err != nil || c.mustSnapshot(t, g.Members[0].ID).RebalanceTimeout != g.Members[0].SessionTimeout {
		t.Fatalf("a member without a rebalance timeout: %v\n%v", err, c)
	}
	// The good one converts, and its generated ids go on from the classic
	// group's counter.
	c, _, err := FromClassicGroup(cfg, good, 0)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := c.nextClassicID("C9"); id != spec.MemberID(fmt.Sprintf("C9-%d", good.NextMemberID)) {
		t.Fatalf("next generated id %s, want C9-%d", id, good.NextMemberID)
	}
}

// TestDowngradeToClassicCoordinator: a consumer group of one next-gen
// member and classic members; the next-gen member leaves (or its session
// expires), the last of the consumer protocol: the step reports the
// classic group (DowngradeTo), classic.RestoreCoordinator builds the
// classic coordinator in PreparingRebalance, and the real classic members
// complete a rebalance against it, every partition owned once. Under the
// "upgrade" policy the group stays a consumer group of classic members
// only, and converges as one.
func TestDowngradeToClassicCoordinator(t *testing.T) {
	for _, p := range protocols {
		for _, how := range []string{"leave", "session"} {
			t.Run(p.name+"/"+how, func(t *testing.T) {
				w := newMixed(t, spec.Topics{"foo": 4}, CoordinatorConfig{})
				w.addClassic("C0", p.p())
				w.addClassic("C1", p.p())
				w.runUntil("the classic members in", 2000, func() bool {
					return w.converged() && len(w.cms["C0"].Owned()) > 0 && len(w.cms["C1"].Owned()) > 0 && len(w.ngs["N1"].Owned()) > 0
				})
				epoch := w.cg.GroupEpoch()
				switch how {
				case "leave":
					w.leaveNextGen("N1")
				case "session":
					// N1 crashes: it owns nothing any more, and sends nothing.
					delete(w.ngs, "N1")
					for k := range w.timers {
						if k.node == "N1" {
							delete(w.timers, k)
						}
					}
				}
				w.runUntil("the downgrade", 500, func() bool { return w.cc != nil })
				if w.cc.State() != classic.GroupPreparingRebalance || w.cc.Generation() != spec.Generation(epoch) {
					t.Fatalf("restored classic group at epoch %d:\n%s", epoch, w.cc)
				}
				w.runUntil("a converged classic group", 2000, w.converged)
				if w.cc.Generation() != spec.Generation(epoch)+1 || len(w.cc.Members()) != 2 {
					t.Fatalf("classic group after the rebalance:\n%s", w.cc)
				}
				for _, name := range []string{"C0", "C1"} {
					if w.cms[name].Owned().IsEmpty() || w.cms[name].Generation() != w.cc.Generation() {
						t.Errorf("%s owns %s at generation %d", name, w.cms[name].Owned(), w.cms[name].Generation())
					}
				}
			})
		}
	}
	t.Run("upgrade policy", func(t *testing.T) {
		w := newMixed(t, spec.Topics{"foo": 4}, CoordinatorConfig{Migration: validate.PolicyUpgrade})
		w.addClassic("C0", policy.Cooperative())
		w.runUntil("the classic member in", 2000, func() bool { return w.converged() && len(w.cms["C0"].Owned()) > 0 })
		w.leaveNextGen("N1")
		w.runUntil("a consumer group of a classic member", 2000, func() bool { return w.converged() && w.cms["C0"].Owned().Len() == 4 })
		if w.cc != nil || w.cg == nil {
			t.Fatal("the group was downgraded under the upgrade policy")
		}
	})
}

// TestDowngradeData: the classic group DowngradeTo reports is Kafka's
// fromConsumerGroup: the remaining members with their classic records and
// target assignments, at the group epoch; the step that made it is the
// only one that reports it.
func TestDowngradeData(t *testing.T) {
	h := mixed(t, CoordinatorConfig{})
	if _, ok := h.Node.DowngradeTo(); ok {
		t.Fatal("a downgrade reported before any")
	}
	h.hb(1000, leave("A", spec.LeaveEpoch), `
		send coordinator->A HeartbeatResponse member=A epoch=-1 assignment=null
		cancel session(A)`)
	g, ok := h.Node.DowngradeTo()
	if !ok {
		t.Fatalf("no downgrade:\n%s", h.Node)
	}
	want := classic.CoordinatorSnapshot{
		State: classic.GroupPreparingRebalance, Generation: 2, ProtocolType: "consumer", NextMemberID: 2,
		Members: []classic.CoordinatorMemberSnapshot{{
			ID: "C-1", Node: "C", ClientID: "C", ClientHost: "/C", SessionTimeout: classicSession, RebalanceTimeout: testRebalance,
			Protocols:  []classic.ProtocolMetadata{{Name: "range", Metadata: cmeta("{}", "foo")}},
			Assignment: classic.Assignment{Assigned: set("{foo-2}")}.Encode(),
		}},
		Instances: map[string]spec.MemberID{},
	}
	if fmt.Sprintf("%+v", g) != fmt.Sprintf("%+v", want) {
		t.Fatalf("DowngradeTo:\n%+v\nwant:\n%+v", g, want)
	}
	g.Members[0].Protocols[0].Name = "changed"
	if again, _ := h.Node.DowngradeTo(); again.Members[0].Protocols[0].Name != "range" {
		t.Fatal("DowngradeTo shares its members with the coordinator")
	}
	cc, out := classic.RestoreCoordinator(classic.CoordinatorConfig{GroupID: "g"}, g, 1000)
	if err := cc.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != "set session(C-1)@11000\nset join@31000" {
		t.Fatalf("RestoreCoordinator output:\n%s", got)
	}
	// The next step clears it.
	h.cl(1100, "C", cheartbeat(9, "C-1", 2), `
		send coordinator->C classic HeartbeatResponse#9 error=REBALANCE_IN_PROGRESS gen=2
		set session(C-1)@11100
		set classic-join(C-1)@31100`)
	if _, ok := h.Node.DowngradeTo(); ok {
		t.Fatal("the downgrade is still reported a step later")
	}
	if got := fmt.Sprint(h.Node.ArmedTimers()); got != "[set session(C-1)@11100 set classic-join(C-1)@31100]" {
		t.Fatalf("ArmedTimers() = %s", got)
	}
}

// TestDowngradeOnReplace: a classic static member takes the instance id of
// the last member of the consumer protocol (KAFKA-17317): the group is
// downgraded without a rebalance, the joining member holding the replaced
// member's target; under the "upgrade" policy it is not.
func TestDowngradeOnReplace(t *testing.T) {
	for _, p := range []validate.MigrationPolicy{validate.PolicyBidirectional, validate.PolicyUpgrade} {
		t.Run(p.String(), func(t *testing.T) {
			h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 2}, Migration: p})
			h.step(0, Receive{From: "S", Msg: staticJoin("S", "i", "foo")})
			h.clStep(100, "C", cjoin(1, "C", "", "{}", "foo"))
			h.step(200, Receive{From: "S", Msg: withInstance(hbOwned("S", 1, "{foo-0}"), "i")})
			h.clStep(300, "C", cjoin(2, "C", "C-1", "{}", "foo"))
			h.expectGroup(2, 2, GroupStable)
			h.cl(400, "S2", staticCJoin(3, "S2", "", "i", "{}", "foo"), `
				send coordinator->S2 classic JoinGroupResponse#3 gen=2 protocol=range leader= member=S2-2
				cancel session(S)
				set session(S2-2)@10400
				set classic-sync(S2-2)@30400`)
			g, ok := h.Node.DowngradeTo()
			if ok != (p == validate.PolicyBidirectional) {
				t.Fatalf("downgraded=%t under %s", ok, p)
			}
			if !ok {
				return
			}
			if g.State != classic.GroupStable || len(g.Members) != 2 || g.Members[1].ID != "S2-2" || g.Members[1].InstanceID != "i" ||
				g.Members[1].Assignment != (classic.Assignment{Assigned: set("{foo-0}")}.Encode()) || g.Instances["i"] != "S2-2" ||
				g.NextMemberID != 3 {
				t.Fatalf("DowngradeTo: %+v", g)
			}
			cc, out := classic.RestoreCoordinator(classic.CoordinatorConfig{GroupID: "g"}, g, 400)
			if cc.State() != classic.GroupStable || strings.Contains(out.String(), "join") {
				t.Fatalf("restored:\n%s\n%s", cc, out)
			}
		})
	}
}

// TestRestoreThenRejoin checks the restored classic coordinator answers a
// heartbeat of a downgraded member REBALANCE_IN_PROGRESS at its
// generation (it must rejoin), and ILLEGAL_GENERATION at another.
func TestRestoreThenRejoin(t *testing.T) {
	h := mixed(t, CoordinatorConfig{})
	h.step(1000, Receive{From: "A", Msg: leave("A", spec.LeaveEpoch)})
	g, _ := h.Node.DowngradeTo()
	cc, _ := classic.RestoreCoordinator(classic.CoordinatorConfig{GroupID: "g"}, g, 1000)
	for gen, want := range map[spec.Generation]spec.ErrorCode{2: spec.RebalanceInProgress, 1: spec.IllegalGeneration} {
		out := cc.Clone().Step(node.Input{Now: 1100, Event: classic.Receive{From: "C", Msg: cheartbeat(1, "C-1", gen)}})
		if r, ok := out.Messages[0].Msg.(classic.HeartbeatResponse); !ok || r.Error != want {
			t.Errorf("heartbeat at generation %d: %s, want %s", gen, out, want)
		}
	}
}
