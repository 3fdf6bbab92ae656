package mixed

import (
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/script"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// run runs scenario lines on a new script and fails at the first error.
func run(t *testing.T, lines ...string) *Script {
	t.Helper()
	s := NewScript()
	for _, l := range lines {
		if err := script.RunLine(s.Run, l); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
	return s
}

const opts = "protocols=(cooperative) topics=(T,U) session=3000 heartbeat=1000 rebalance=4000 request=1500"

// TestGroupTypeFollowsTheMembers walks one group through Kafka's
// conversions and checks the type of the group the coordinator holds,
// the members it counts and the laws after each stage: created classic by
// classic members; upgraded online by the first consumer-protocol
// heartbeat (the classic members kept, at the classic generation);
// downgraded when the last consumer-protocol member leaves; and an empty
// group replaced by the first request's protocol.
func TestGroupTypeFollowsTheMembers(t *testing.T) {
	s := run(t, "group topics=(T:2,U:2) session=3000 heartbeat=1000 session-min=1000 policy=bidirectional")
	c := CoordinatorOf(s.W)
	if c.Type() != ClassicGroup || c.ClassicGroup() == nil || c.ConsumerGroup() != nil {
		t.Fatalf("a new group: type %s, want an empty classic group", c.Type())
	}
	step := func(lines ...string) {
		t.Helper()
		for _, l := range lines {
			if err := script.RunLine(s.Run, l); err != nil {
				t.Fatalf("%s: %v", l, err)
			}
		}
		if len(s.W.Violations) > 0 {
			t.Fatalf("after %v: %v", lines, s.W.Violations)
		}
	}
	want := func(typ GroupType, members ...spec.MemberID) {
		t.Helper()
		c := CoordinatorOf(s.W)
		if c.Type() != typ {
			t.Fatalf("group type %s, want %s\n%s", c.Type(), typ, c)
		}
		for _, id := range members {
			if !c.IsMember(id) {
				t.Errorf("%s is not a member of the %s group\n%s", id, typ, c)
			}
		}
		if err := c.CheckInvariants(); err != nil {
			t.Error(err)
		}
	}
	step("add-member A protocol=classic "+opts, "add-member B protocol=classic "+opts, "stabilize")
	want(ClassicGroup, "A-1", "B-2")
	if CoordinatorOf(s.W).Leader() == "" || CoordinatorOf(s.W).Protocol() != "cooperative" {
		t.Errorf("a classic group has a leader and a protocol: %q %q", CoordinatorOf(s.W).Leader(), CoordinatorOf(s.W).Protocol())
	}
	step("add-member C protocol=consumer "+opts, "tick 5000")
	want(ConsumerGroup, "A-1", "B-2", "C-1001")
	if c := CoordinatorOf(s.W); c.Leader() != "" || c.Protocol() != "" || !c.Stable() {
		t.Errorf("a settled consumer group: leader %q, protocol %q, stable %t", c.Leader(), c.Protocol(), c.Stable())
	}
	if !strings.HasPrefix(CoordinatorOf(s.W).Summary(), "consumer ") || !strings.HasPrefix(CoordinatorOf(s.W).String(), "consumer group: ") {
		t.Errorf("summary %q / string %q: want the group type first", CoordinatorOf(s.W).Summary(), CoordinatorOf(s.W).String())
	}
	step("leave C", "tick 5000")
	want(ClassicGroup, "A-1", "B-2")
	if !strings.HasPrefix(CoordinatorOf(s.W).Summary(), "classic ") || !strings.HasPrefix(CoordinatorOf(s.W).String(), "classic group: ") {
		t.Errorf("summary %q / string %q: want the group type first", CoordinatorOf(s.W).Summary(), CoordinatorOf(s.W).String())
	}
	if !CoordinatorOf(s.W).Stable() {
		t.Errorf("the downgraded group did not settle:\n%s", CoordinatorOf(s.W))
	}
	// Everybody leaves: an empty classic group, which a heartbeat
	// replaces by a consumer group, which a JoinGroup replaces by a
	// classic group again.
	step("leave A", "leave B", "tick 5000", "add-member D protocol=consumer "+opts, "tick 3000")
	want(ConsumerGroup, "D-1001")
	step("leave D", "tick 5000", "add-member E protocol=classic "+opts, "tick 3000")
	want(ClassicGroup)
	if got := len(CoordinatorOf(s.W).ClassicGroup().Members()); got != 1 {
		t.Errorf("the classic group that replaced the empty consumer group has %d members, want 1 (E)", got)
	}
}

// TestConversionDropsTheOtherGroupsTimers: the step that converts the
// group reports it (TimersReset), so the world drops the timers of the
// group it replaced; no other step does.
func TestConversionDropsTheOtherGroupsTimers(t *testing.T) {
	s := run(t, "group topics=(T:2) session=3000 heartbeat=1000 session-min=1000",
		"add-member A protocol=classic "+opts, "stabilize")
	c := CoordinatorOf(s.W)
	if c.TimersReset() {
		t.Fatal("TimersReset after steps that converted nothing")
	}
	for _, pt := range s.W.Timers {
		if pt.Node == node.CoordinatorNode && !pt.Timer.IsClassic() {
			t.Fatalf("a consumer-group timer %s armed by a classic group", pt.Timer)
		}
	}
	if err := script.RunLine(s.Run, "add-member B protocol=consumer "+opts); err != nil {
		t.Fatal(err)
	}
	if err := s.W.Deliver(0); err != nil { // B's heartbeat: the online upgrade
		t.Fatal(err)
	}
	if !CoordinatorOf(s.W).TimersReset() {
		t.Fatal("the upgrading step does not report TimersReset")
	}
	for _, pt := range s.W.Timers {
		if pt.Node == node.CoordinatorNode && pt.Timer.IsClassic() {
			t.Errorf("the classic group's timer %s outlived the upgrade", pt.Timer)
		}
	}
	// A step that converts nothing clears it.
	CoordinatorOf(s.W).Step(node.Input{Now: s.W.Now, Event: node.MetadataUpdate{Topics: s.W.Topics}})
	if CoordinatorOf(s.W).TimersReset() {
		t.Error("TimersReset stays set after a step that converted nothing")
	}
}

// TestPolicyDisabledRefusesTheOtherProtocol: under disabled, a consumer
// member's heartbeat to a live classic group is GROUP_ID_NOT_FOUND and
// the group stays classic.
func TestPolicyDisabledRefusesTheOtherProtocol(t *testing.T) {
	s := run(t, "group topics=(T:2) session=3000 heartbeat=1000 session-min=1000 policy=disabled",
		"add-member A protocol=classic "+opts, "stabilize", "add-member B protocol=consumer "+opts, "tick 3000")
	if c := CoordinatorOf(s.W); c.Type() != ClassicGroup || c.IsMember("B-1001") {
		t.Fatalf("disabled: group %s, B a member %t", c.Type(), c.IsMember("B-1001"))
	}
	if ph := s.W.Process("B").Node.Phase(); ph != core.Failed {
		t.Errorf("B's phase %d, want Failed (GROUP_ID_NOT_FOUND is fatal)", ph)
	}
}

// TestMigrated flips the protocol and keeps the rest.
func TestMigrated(t *testing.T) {
	c := classic.MemberConfig{Name: "A", InstanceID: "a", Topics: []string{"T"}, Protocols: []classic.Protocol{policy.Cooperative()}}
	cfg, err := NewMemberConfig(ClassicProtocol, c, nextgen.MemberConfig{RequestTimeout: 7})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Consumer.Name != "A" || cfg.Consumer.InstanceID != "a" || len(cfg.Consumer.Topics) != 1 || cfg.Consumer.RequestTimeout != 7 {
		t.Errorf("the consumer settings do not carry the process's name, instance and topics: %+v", cfg.Consumer)
	}
	up, ok := Family{}.Migrated(cfg)
	if !ok || up.Protocol != ConsumerProtocol {
		t.Fatalf("Migrated(classic) = %s, %t", up.Protocol, ok)
	}
	down, ok := Family{}.Migrated(up)
	if !ok || down.Protocol != ClassicProtocol {
		t.Fatalf("Migrated(consumer) = %s, %t", down.Protocol, ok)
	}
	if _, ok := (Family{}).Migrated(MemberConfig{}); ok {
		t.Error("a configuration without a protocol migrates")
	}
	for _, bad := range []struct {
		p Protocol
		c classic.MemberConfig
	}{{0, c}, {3, c}, {ClassicProtocol, classic.MemberConfig{Name: "A"}}} {
		if _, err := NewMemberConfig(bad.p, bad.c, nextgen.MemberConfig{}); err == nil {
			t.Errorf("NewMemberConfig(%d, %+v) accepted", bad.p, bad.c)
		}
	}
	for _, s := range []string{"classic", "consumer"} {
		if p, err := ParseProtocol(s); err != nil || p.String() != s {
			t.Errorf("ParseProtocol(%q) = %s, %v", s, p, err)
		}
	}
	if _, err := ParseProtocol("Consumer"); err == nil {
		t.Error("ParseProtocol takes a name it does not know")
	}
}

// TestVocabulary checks the unions' printers, the family's readings of
// timers and callbacks, and the encodings that tell the protocols apart.
func TestVocabulary(t *testing.T) {
	f := Family{}
	ct := Timer{Classic: classic.Timer{Kind: classic.SessionTimer, Member: "A-1"}}
	nt := Timer{Consumer: nextgen.Timer{Kind: nextgen.SessionTimer, Member: "A-2"}}
	if !ct.IsClassic() || nt.IsClassic() || ct.String() != ct.Classic.String() || nt.String() != nt.Consumer.String() {
		t.Errorf("timers: %v %v", ct, nt)
	}
	if id, ok := f.SessionExpiry(ct); !ok || id != "A-1" {
		t.Errorf("classic session expiry: %s %t", id, ok)
	}
	if id, ok := f.SessionExpiry(nt); !ok || id != "A-2" {
		t.Errorf("consumer session expiry: %s %t", id, ok)
	}
	for _, tc := range []struct {
		t       Timer
		removes bool
		detects bool
	}{
		{ct, true, true},
		{Timer{Classic: classic.Timer{Kind: classic.RequestTimer}}, false, true},
		{Timer{Classic: classic.Timer{Kind: classic.HeartbeatTimer}}, false, false},
		{nt, true, false},
		{Timer{Consumer: nextgen.Timer{Kind: nextgen.RebalanceTimer, Member: "x"}}, true, false},
		{Timer{Consumer: nextgen.Timer{Kind: nextgen.ClassicJoinTimer, Member: "x"}}, true, false},
		{Timer{Consumer: nextgen.Timer{Kind: nextgen.ClassicSyncTimer, Member: "x"}}, true, false},
		{Timer{Consumer: nextgen.Timer{Kind: nextgen.HeartbeatTimer}}, false, false},
	} {
		if _, ok := f.Removes(tc.t); ok != tc.removes {
			t.Errorf("Removes(%s) = %t", tc.t, ok)
		}
		if f.Detects(tc.t) != tc.detects {
			t.Errorf("Detects(%s) = %t", tc.t, !tc.detects)
		}
	}
	rs := spec.NewSet(spec.Resource{Topic: "T", Partition: 0})
	cRevoked := Callback{Protocol: ClassicProtocol, Classic: classic.Callback{Kind: classic.Revoked, Resources: rs}}
	cLost := Callback{Protocol: ClassicProtocol, Classic: classic.Callback{Kind: classic.Lost, Resources: rs}}
	nRevoke := Callback{Protocol: ConsumerProtocol, Consumer: nextgen.Callback{Kind: nextgen.Revoke, Resources: rs}}
	nLost := Callback{Protocol: ConsumerProtocol, Consumer: nextgen.Callback{Kind: nextgen.Lost, Resources: rs}}
	if later, forget := f.RevokeCallback(cRevoked); !later.IsEmpty() || forget {
		t.Error("a classic revocation is not left pending: it completes within the callback")
	}
	if later, forget := f.RevokeCallback(nRevoke); !later.Equal(rs) || forget {
		t.Error("a next-gen revocation is pending until the application is done")
	}
	if _, forget := f.RevokeCallback(nLost); !forget {
		t.Error("a next-gen loss forgets the pending revocation")
	}
	if !f.Revoked(cRevoked).Equal(rs) || !f.Revoked(nRevoke).Equal(rs) || !f.Revoked(cLost).IsEmpty() {
		t.Error("Revoked reads the revocations of both protocols only")
	}
	if !f.LostCallback(cLost) || !f.LostCallback(nLost) || f.LostCallback(cRevoked) || f.LostCallback(nRevoke) {
		t.Error("LostCallback reads the losses of both protocols only")
	}
	if cRevoked.String() != cRevoked.Classic.String() || nRevoke.String() != nRevoke.Consumer.String() {
		t.Error("a callback prints as the one it holds")
	}
	if code, refused, ok := f.CommitError(nextgen.Classic{Msg: classic.OffsetCommitResponse{Error: spec.IllegalGeneration}}); !ok || code != spec.IllegalGeneration || refused != nil {
		t.Errorf("classic commit answer: %s %v %t", code, refused, ok)
	}
	if code, refused, ok := f.CommitError(nextgen.OffsetResponse{Error: spec.StaleMemberEpoch, StalePartitions: rs}); !ok || code != spec.StaleMemberEpoch || !refused.Equal(rs) {
		t.Errorf("next-gen commit answer: %s %v %t", code, refused, ok)
	}
	if _, _, ok := f.CommitError(nextgen.Classic{Msg: classic.HeartbeatResponse{}}); ok {
		t.Error("a heartbeat answer read as a commit answer")
	}
	enc := func(t Timer) string {
		e := &canon.Encoder{}
		f.EncodeTimer(e, t)
		return string(e.Finish())
	}
	// A classic and a consumer timer with the same kind number and member
	// must not encode alike.
	if enc(Timer{Classic: classic.Timer{Kind: 1, Member: "m"}}) == enc(Timer{Consumer: nextgen.Timer{Kind: 1, Member: "m"}}) {
		t.Error("the timer encoding does not tell the protocols apart")
	}
	config := func(p Protocol) MemberConfig {
		c := classic.MemberConfig{Name: "A", Protocols: []classic.Protocol{policy.Cooperative()}}
		cfg, _ := NewMemberConfig(p, c, nextgen.MemberConfig{})
		return cfg
	}
	if f.SameConfig(config(ClassicProtocol), config(ConsumerProtocol)) {
		t.Error("SameConfig does not tell the protocols apart")
	}
}

// TestCommitRequests: each member commits on its own protocol, and not
// before it has joined.
func TestCommitRequests(t *testing.T) {
	s := run(t, "group topics=(T:2) session=3000 heartbeat=1000 session-min=1000",
		"add-member A protocol=classic instance=a "+opts, "add-member B protocol=consumer instance=b "+opts)
	f := Family{GroupID: "group"}
	rs := spec.NewSet(spec.Resource{Topic: "T", Partition: 0})
	b := s.W.Process("B")
	if _, ok := f.CommitRequest(b.Config(), b.Node, rs); ok {
		t.Error("a next-gen member commits before it has an epoch")
	}
	if err := script.RunLine(s.Run, "tick 5000"); err != nil {
		t.Fatal(err)
	}
	a := s.W.Process("A")
	req, ok := f.CommitRequest(a.Config(), a.Node, rs)
	c, isClassic := req.(nextgen.Classic)
	if !ok || !isClassic {
		t.Fatalf("A's commit: %v %t", req, ok)
	}
	if r := c.Msg.(classic.OffsetCommitRequest); r.MemberID != a.Node.ID() || r.InstanceID != "a" || r.Generation != a.Node.Generation() {
		t.Errorf("A's commit %s: want its id, instance and generation", r)
	}
	b = s.W.Process("B")
	req, ok = f.CommitRequest(b.Config(), b.Node, rs)
	r, isNextgen := req.(nextgen.OffsetCommitRequest)
	if !ok || !isNextgen || r.MemberID != b.Node.ID() || r.InstanceID == nil || *r.InstanceID != "b" || r.Version != 9 || !r.Partitions.Equal(rs) || r.GroupID != "group" {
		t.Errorf("B's commit: %v %t", req, ok)
	}
	if _, ok := f.CommitRequest(a.Config(), classicMember{mustClassic(t)}, rs); ok {
		t.Error("a classic member without a member id commits")
	}
}

func mustClassic(t *testing.T) *classic.Member {
	m, err := classic.NewMember(classic.MemberConfig{Name: "Z", Protocols: []classic.Protocol{policy.Cooperative()}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCheckWorldRefusesWhatDoesNotApply: the mixed world's knobs and the
// ones it refuses.
func TestCheckWorldRefusesWhatDoesNotApply(t *testing.T) {
	base := core.DefaultCheckOptions[nextgen.Fault]()
	if _, err := CheckWorld(base); err != nil {
		t.Fatalf("default options: %v", err)
	}
	for name, mod := range map[string]func(*CheckOptions){
		"faults":          func(o *CheckOptions) { o.Faults = nextgen.AssignBeforeRelease },
		"semantics":       func(o *CheckOptions) { o.Semantics = []string{"before-kafka-19233"} },
		"connectors":      func(o *CheckOptions) { o.Connectors, o.Tasks = 1, 1 },
		"leader bounces":  func(o *CheckOptions) { o.LeaderBounces = 1 },
		"no settled":      func(o *CheckOptions) { o.Joins = o.Members },
		"unknown policy":  func(o *CheckOptions) { o.MigrationPolicy = "sideways" },
		"invalid options": func(o *CheckOptions) { o.Members = 0 },
	} {
		o := base
		mod(&o)
		if _, err := CheckWorld(o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	o := base
	o.MigrationPolicy = "bidirectional"
	cfg, err := CheckWorld(o)
	if err != nil || !strings.Contains(cfg.Setup[0], "policy=bidirectional") {
		t.Errorf("policy bidirectional: %v %q", err, cfg.Setup)
	}
	cfg, _ = CheckWorld(base)
	if !strings.Contains(cfg.Setup[0], "policy="+DefaultCheckPolicy) || len(cfg.Joiners) != 1 || !strings.Contains(cfg.Joiners[0], "protocol=consumer") {
		t.Errorf("default world: setup %q joiners %q", cfg.Setup, cfg.Joiners)
	}
	for _, c := range []struct {
		o    CheckOptions
		want int
	}{
		{base, 2 * 3 * 4}, // join, crash, leave, a lost message
		{CheckOptions{Members: 2, Joins: 1, Restarts: 2, Resubscribes: 3, AddPartitions: 4, Leaves: 5, Crashes: 6, Migrations: 7, Drops: 3}, 2 * 2 * (1 + 2 + 3 + 4 + 5 + 6 + 14 + 2)},
		{CheckOptions{Members: 1}, 1},
	} {
		if got := MaxRoundsOf(c.o); got != c.want {
			t.Errorf("MaxRoundsOf(%+v) = %d, want %d", c.o, got, c.want)
		}
	}
	if _, err := validate.ParseMigrationPolicy(DefaultCheckPolicy); err != nil {
		t.Error(err)
	}
}

// TestFamilyDetails covers the family's small rules one by one: a
// classic member without metadata of its own starts with the group's,
// SameConfig reads an empty list as none, AdjustView reads an epoch of 0 as
// no generation, and the upgrade and downgrade verbs refuse a member
// already on the protocol they move to.
func TestFamilyDetails(t *testing.T) {
	f := Family{GroupID: "g"}
	c := classic.MemberConfig{Name: "A", Topics: []string{"T"}, Protocols: []classic.Protocol{policy.Cooperative()}}
	cfg, _ := NewMemberConfig(ClassicProtocol, c, nextgen.MemberConfig{})
	topics := spec.Topics{"T": 2}
	m, err := f.NewMember(cfg, 1, topics)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.String(); !strings.Contains(got, " T:2") {
		t.Errorf("a classic member without metadata does not start with the group's (T:2): %s", got)
	}
	empty := cfg
	empty.Classic.Topics, empty.Classic.Metadata = []string{}, spec.Topics{}
	none := cfg
	none.Classic.Topics, none.Classic.Metadata = nil, nil
	if !f.SameConfig(empty, none) {
		t.Error("SameConfig tells an empty list from none")
	}
	noProtocols := cfg
	noProtocols.Classic.Protocols = []classic.Protocol{}
	nilProtocols := cfg
	nilProtocols.Classic.Protocols = nil
	if !f.SameConfig(noProtocols, nilProtocols) {
		t.Error("SameConfig tells an empty protocol list from none")
	}
	if got := f.AdjustView(spec.MemberView{Generation: 0}).Generation; got != spec.NoGeneration {
		t.Errorf("AdjustView of epoch 0 = %d, want NoGeneration", got)
	}
	if got := f.AdjustView(spec.MemberView{Generation: 1}).Generation; got != 1 {
		t.Errorf("AdjustView of generation 1 = %d", got)
	}
	s := run(t, "group topics=(T:2) session=3000 heartbeat=1000 session-min=1000",
		"add-member A protocol=classic "+opts, "add-member B protocol=consumer "+opts, "tick 3000")
	for _, bad := range []string{"downgrade A", "upgrade B", "upgrade Z", "upgrade"} {
		if err := script.RunLine(s.Run, bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	if err := script.RunLine(s.Run, "add-member C protocol=sideways "+opts); err == nil {
		t.Error("an unknown protocol accepted")
	}
	if err := script.RunLine(s.Run, "add-member C protocol=classic topics=(T)"); err == nil {
		t.Error("a member without classic protocols accepted")
	}
	if err := script.RunLine(s.Run, "add-member A protocol=classic "+opts); err == nil {
		t.Error("a second process named A accepted")
	}
}

// TestCopies: a clone or a fork of the coordinator is a group of its own;
// stepping it leaves the original as it was.
func TestCopies(t *testing.T) {
	for _, typ := range []GroupType{ClassicGroup, ConsumerGroup} {
		s := run(t, "group topics=(T:2) session=3000 heartbeat=1000 session-min=1000 policy=upgrade", "add-member A protocol=classic "+opts, "stabilize")
		if typ == ConsumerGroup {
			if err := script.RunLine(s.Run, "add-member B protocol=consumer "+opts); err != nil {
				t.Fatal(err)
			}
			if err := script.RunLine(s.Run, "tick 3000"); err != nil {
				t.Fatal(err)
			}
		}
		c := CoordinatorOf(s.W)
		if c.Type() != typ {
			t.Fatalf("setup: group type %s, want %s", c.Type(), typ)
		}
		before := c.String()
		for name, d := range map[string]core.Coordinator[nextgen.Message, Timer, Callback]{"clone": c.CloneCoordinator(), "fork": c.ForkCoordinator()} {
			if d.String() != before {
				t.Fatalf("%s of a %s group differs from it", name, typ)
			}
			d.StepInto(node.Input{Now: s.W.Now + 100000, Event: node.Receive[nextgen.Message]{From: "A", Msg: nextgen.Classic{Msg: classic.LeaveGroupRequest{MemberID: "A-1"}}}}, new(Output))
			if d.String() == before {
				t.Fatalf("%s: A's LeaveGroup changed nothing", name)
			}
			if c.String() != before {
				t.Fatalf("stepping the %s of a %s group changed the original", name, typ)
			}
		}
		if c.HeartbeatInterval() != 1000 {
			t.Errorf("%s group: heartbeat interval %d, want the consumer group's 1000", typ, c.HeartbeatInterval())
		}
	}
}

// TestConsumerCommitToClassicGroup: a consumer-protocol member's commit
// reaching a classic group is judged by the classic group's rule (its
// member id is unknown there) and answered in its own vocabulary.
func TestConsumerCommitToClassicGroup(t *testing.T) {
	s := run(t, "group topics=(T:2) session=3000 heartbeat=1000 session-min=1000", "add-member A protocol=classic "+opts, "stabilize")
	c := CoordinatorOf(s.W)
	instance := "b"
	out := c.Step(node.Input{Now: s.W.Now, Event: node.Receive[nextgen.Message]{From: "B", Msg: nextgen.OffsetCommitRequest{Seq: 7, MemberID: "B-1", MemberEpoch: 3, InstanceID: &instance, Version: 9}}})
	if len(out.Messages) != 1 {
		t.Fatalf("answers: %v", out.Messages)
	}
	r, ok := out.Messages[0].Msg.(nextgen.OffsetResponse)
	if !ok || r.Seq != 7 || r.Error == spec.None || out.Messages[0].To != "B" {
		t.Errorf("answer %v to %s: want an error for an unknown member, to B, echoing the request", out.Messages[0].Msg, out.Messages[0].To)
	}
	if c.Type() != ClassicGroup {
		t.Error("a commit converted the group")
	}
}

// TestConsumerCommitCarriesItsInstance: the classic group judges a
// consumer-protocol commit's instance id too: under a static member's
// instance id and another member id it is FENCED_INSTANCE_ID.
func TestConsumerCommitCarriesItsInstance(t *testing.T) {
	s := run(t, "group topics=(T:2) session=3000 heartbeat=1000 session-min=1000", "add-member A protocol=classic instance=a "+opts, "stabilize")
	instance := "a"
	out := CoordinatorOf(s.W).Step(node.Input{Now: s.W.Now, Event: node.Receive[nextgen.Message]{From: "B", Msg: nextgen.OffsetCommitRequest{Seq: 1, MemberID: "A-9", MemberEpoch: 1, InstanceID: &instance, Version: 9}}})
	if len(out.Messages) != 1 || out.Messages[0].Msg.(nextgen.OffsetResponse).Error != spec.FencedInstanceID {
		t.Errorf("answers %v: want FENCED_INSTANCE_ID", out.Messages)
	}
}
