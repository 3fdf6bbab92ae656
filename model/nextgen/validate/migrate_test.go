package validate

import (
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

var policies = []MigrationPolicy{PolicyBidirectional, PolicyUpgrade, PolicyDowngrade, PolicyDisabled}

// TestMigrationPolicy is ConsumerGroupMigrationPolicy: the names, their
// case-insensitive parse, and what each policy enables.
func TestMigrationPolicy(t *testing.T) {
	want := []struct {
		p         MigrationPolicy
		name      string
		up, down  bool
		spellings []string
	}{
		{PolicyBidirectional, "bidirectional", true, true, []string{"bidirectional", "BIDIRECTIONAL", "BiDirectional"}},
		{PolicyUpgrade, "upgrade", true, false, []string{"upgrade", "UPGRADE", "Upgrade"}},
		{PolicyDowngrade, "downgrade", false, true, []string{"downgrade", "DOWNGRADE", "downGrade"}},
		{PolicyDisabled, "disabled", false, false, []string{"disabled", "DISABLED", "Disabled"}},
	}
	for _, w := range want {
		if got := w.p.String(); got != w.name {
			t.Errorf("String() = %q, want %q", got, w.name)
		}
		if w.p.UpgradeEnabled() != w.up || w.p.DowngradeEnabled() != w.down {
			t.Errorf("%s: upgrade %v downgrade %v, want %v %v", w.p, w.p.UpgradeEnabled(), w.p.DowngradeEnabled(), w.up, w.down)
		}
		for _, s := range w.spellings {
			got, err := ParseMigrationPolicy(s)
			if err != nil || got != w.p {
				t.Errorf("ParseMigrationPolicy(%q) = %v, %v; want %s", s, got, err, w.p)
			}
		}
	}
	if MigrationPolicy(0) != PolicyBidirectional {
		t.Error("the zero policy is not Kafka's default, bidirectional")
	}
	if got := MigrationPolicy(9).String(); got != "MigrationPolicy(9)" {
		t.Errorf("out of range: %q", got)
	}
	for _, bad := range []string{"", "none", "bidi", "upgrades", "upgrad", " upgrade", "upgrade ", "DİSABLED", "dısabled", "up-grade", "upgradf", "Upgradf", "`pgrade", "{pgrade", "@PGRADE", "[PGRADE"} {
		p, err := ParseMigrationPolicy(bad)
		if err == nil {
			t.Errorf("ParseMigrationPolicy(%q) = %s, want an error", bad, p)
			continue
		}
		if !strings.Contains(err.Error(), "bidirectional, upgrade, downgrade, disabled") || !strings.Contains(err.Error(), "group.consumer.migration.policy") {
			t.Errorf("error for %q does not list the names: %v", bad, err)
		}
	}
}

// TestHeartbeatToClassic has a row per rule of HeartbeatToClassic, under
// every policy where the policy matters.
func TestHeartbeatToClassic(t *testing.T) {
	consumers := ClassicGroupInfo{Members: 3, ProtocolType: "consumer"}
	const (
		notConsumer = "Group g is not a consumer group."
		disabled    = "Cannot upgrade classic group g to consumer group because online upgrade is disabled."
		protocol    = "Cannot upgrade classic group g to consumer group because the group does not use the consumer embedded protocol."
		size        = "Cannot upgrade classic group g to consumer group because the group size exceeds the consumer group maximum size."
		custom      = "Cannot upgrade classic group g to consumer group because an unsupported custom assignor is in use. Please refer to the documentation or switch to a default assignor before re-attempting the upgrade."
	)
	tests := []struct {
		name    string
		g       ClassicGroupInfo
		epoch   spec.Epoch
		policy  MigrationPolicy
		maxSize int
		sem     Semantics
		want    ConversionKind
		code    spec.ErrorCode
		msg     string
	}{
		{name: "join upgrades under bidirectional [testConsumerGroupHeartbeatWithStableClassicGroup]", g: consumers, policy: PolicyBidirectional, want: OnlineUpgrade},
		{name: "join upgrades under upgrade", g: consumers, policy: PolicyUpgrade, want: OnlineUpgrade},
		{name: "join refused under downgrade", g: consumers, policy: PolicyDowngrade, code: spec.GroupIDNotFound, msg: disabled},
		{name: "join refused under disabled", g: consumers, policy: PolicyDisabled, code: spec.GroupIDNotFound, msg: disabled},
		{name: "epoch > 0 is not a join", g: consumers, epoch: 5, code: spec.GroupIDNotFound, msg: notConsumer},
		{name: "epoch 1 is not a join", g: consumers, epoch: 1, code: spec.GroupIDNotFound, msg: notConsumer},
		{name: "leave -1 to a classic group", g: consumers, epoch: spec.LeaveEpoch, code: spec.GroupIDNotFound, msg: notConsumer},
		{name: "static leave -2 to a classic group", g: consumers, epoch: spec.StaticLeaveEpoch, code: spec.GroupIDNotFound, msg: notConsumer},
		{name: "epoch > 0 to an empty classic group", g: ClassicGroupInfo{Empty: true}, epoch: 3, code: spec.GroupIDNotFound, msg: notConsumer},
		{name: "empty classic group is replaced under disabled [testConsumerGroupHeartbeatWithEmptyClassicGroup]", g: ClassicGroupInfo{Empty: true, ProtocolType: "consumer"}, policy: PolicyDisabled, want: ReplaceEmptyClassic},
		{name: "empty classic group is replaced under downgrade", g: ClassicGroupInfo{Empty: true}, policy: PolicyDowngrade, want: ReplaceEmptyClassic},
		{name: "empty classic group is replaced whatever its protocol type", g: ClassicGroupInfo{Empty: true, ProtocolType: "connect"}, want: ReplaceEmptyClassic},
		{name: "empty classic group is replaced even with user data", g: ClassicGroupInfo{Empty: true, AssignorUserData: true}, maxSize: 1, want: ReplaceEmptyClassic},
		{name: "no members but not Empty (rebalancing) is refused [testConsumerGroupHeartbeatWithNonEmptyClassicGroup]", g: ClassicGroupInfo{}, code: spec.GroupIDNotFound, msg: protocol},
		{name: "no members but not Empty, consumer protocol: upgraded", g: ClassicGroupInfo{ProtocolType: "consumer"}, want: OnlineUpgrade},
		{name: "a Connect group is not upgraded", g: ClassicGroupInfo{Members: 2, ProtocolType: "connect"}, code: spec.GroupIDNotFound, msg: protocol},
		{name: "a group without protocol type is not upgraded", g: ClassicGroupInfo{Members: 2}, code: spec.GroupIDNotFound, msg: protocol},
		{name: "policy is checked before the protocol type", g: ClassicGroupInfo{Members: 2, ProtocolType: "connect"}, policy: PolicyDisabled, code: spec.GroupIDNotFound, msg: disabled},
		{name: "larger than the consumer max size", g: consumers, maxSize: 2, code: spec.GroupIDNotFound, msg: size},
		{name: "exactly the consumer max size passes here", g: consumers, maxSize: 3, want: OnlineUpgrade},
		{name: "below the consumer max size", g: consumers, maxSize: 4, want: OnlineUpgrade},
		{name: "maxSize 0 is no limit", g: ClassicGroupInfo{Members: 1000, ProtocolType: "consumer"}, want: OnlineUpgrade},
		{name: "protocol type is checked before size", g: ClassicGroupInfo{Members: 3, ProtocolType: "connect"}, maxSize: 1, code: spec.GroupIDNotFound, msg: protocol},
		{name: "custom assignor user data (KAFKA-18134)", g: ClassicGroupInfo{Members: 3, ProtocolType: "consumer", AssignorUserData: true}, code: spec.GroupIDNotFound, msg: custom},
		{name: "custom assignor user data before KAFKA-18134", g: ClassicGroupInfo{Members: 3, ProtocolType: "consumer", AssignorUserData: true}, sem: Semantics{BeforeKafka18134: true}, want: OnlineUpgrade},
		{name: "size is checked before user data", g: ClassicGroupInfo{Members: 3, ProtocolType: "consumer", AssignorUserData: true}, maxSize: 2, code: spec.GroupIDNotFound, msg: size},
		{name: "policy is checked before user data", g: ClassicGroupInfo{Members: 3, ProtocolType: "consumer", AssignorUserData: true}, policy: PolicyDisabled, code: spec.GroupIDNotFound, msg: disabled},
	}
	mustPanic(t, "Empty with members", func() {
		HeartbeatToClassic(ClassicGroupInfo{Empty: true, Members: 1}, join("c1"), PolicyBidirectional, 0, Semantics{})
	})
	for _, tc := range tests {
		r := join("c1")
		r.MemberEpoch = tc.epoch
		got, rej := HeartbeatToClassic(tc.g, r, tc.policy, tc.maxSize, tc.sem)
		t.Run(tc.name, func(t *testing.T) {
			checkRejection(t, rej, tc.code, tc.msg)
			if got != tc.want {
				t.Fatalf("kind %s, want %s", got, tc.want)
			}
		})
	}
}

// TestUpgradeThenFull: a classic group of exactly group.consumer.max.size
// members passes validateOnlineUpgrade, and the joining consumer is then
// refused by the full-group check on the converted group.
func TestUpgradeThenFull(t *testing.T) {
	kind, rej := HeartbeatToClassic(ClassicGroupInfo{Members: 2, ProtocolType: "consumer"}, join("c1"), PolicyBidirectional, 2, Semantics{})
	if kind != OnlineUpgrade || !rej.OK() {
		t.Fatalf("got %s %v", kind, rej)
	}
	converted := Members{{ID: "k1", Epoch: 7, PreviousEpoch: 7, Classic: true}, {ID: "k2", Epoch: 7, PreviousEpoch: 7, Classic: true}}
	_, rej = Join(converted, join("c1"), 2, Semantics{})
	checkRejection(t, rej, spec.GroupMaxSizeReached, "The consumer group has reached its maximum capacity of 2 members.")
}

// mixed is a consumer group with one consumer-protocol member c1 and two
// classic members k1 (dynamic) and k2 (static, instance i2); both classic
// members support "range", only k1 "cooperative-sticky".
func mixed() Members {
	return Members{
		{ID: "c1", Epoch: 8, PreviousEpoch: 7},
		{ID: "k1", Epoch: 8, PreviousEpoch: 7, Classic: true, Protocols: []string{"range", "cooperative-sticky"}},
		{ID: "k2", InstanceID: "i2", Epoch: 8, PreviousEpoch: 7, Classic: true, Protocols: []string{"range"}},
	}
}

func TestMembersClassicCounts(t *testing.T) {
	g := mixed()
	if n := g.ClassicMembers(); n != 2 {
		t.Errorf("ClassicMembers = %d", n)
	}
	// c1 lists a protocol but is no classic member: it does not count.
	g[0].Protocols = []string{"range"}
	for name, want := range map[string]int{"range": 2, "cooperative-sticky": 1, "roundrobin": 0} {
		if n := g.ClassicProtocolSupport(name); n != want {
			t.Errorf("ClassicProtocolSupport(%s) = %d, want %d", name, n, want)
		}
	}
	if n := (Members{}).ClassicMembers(); n != 0 {
		t.Errorf("empty: %d", n)
	}
}

// TestDowngradeOnLeave has a row per rule of DowngradeOnLeave, under every
// policy.
func TestDowngradeOnLeave(t *testing.T) {
	twoConsumers := append(mixed(), MemberInfo{ID: "c2", Epoch: 8})
	onlyConsumer := Members{{ID: "c1", Epoch: 3}}
	allClassic := Members{{ID: "k1", Classic: true}, {ID: "k2", Classic: true}}
	checkDowngrades(t, DowngradeOnLeave, []downgradeCase{
		{"the last consumer member leaves [testLastConsumerProtocolMemberLeavingConsumerGroup]", mixed(), "c1", 0,
			[4]DowngradeVerdict{DowngradeToClassic, DowngradeDisabled, DowngradeToClassic, DowngradeDisabled}},
		{"a classic member leaves", mixed(), "k1", 0,
			[4]DowngradeVerdict{ConsumerMembersRemain, ConsumerMembersRemain, ConsumerMembersRemain, ConsumerMembersRemain}},
		{"another consumer member stays", twoConsumers, "c1", 0,
			[4]DowngradeVerdict{ConsumerMembersRemain, ConsumerMembersRemain, ConsumerMembersRemain, ConsumerMembersRemain}},
		{"a classic member leaves a group of classic members only", allClassic, "k1", 0,
			[4]DowngradeVerdict{ConsumerMembersRemain, ConsumerMembersRemain, ConsumerMembersRemain, ConsumerMembersRemain}},
		{"the only member leaves", onlyConsumer, "c1", 0,
			[4]DowngradeVerdict{GroupBecomesEmpty, GroupBecomesEmpty, GroupBecomesEmpty, GroupBecomesEmpty}},
		{"two classic members would exceed a classic max size of 1 [testNoConversionWhenSizeExceedsClassicMaxGroupSize]", mixed(), "c1", 1,
			[4]DowngradeVerdict{ExceedsClassicMaxSize, DowngradeDisabled, ExceedsClassicMaxSize, DowngradeDisabled}},
		{"two classic members fit a classic max size of 2", mixed(), "c1", 2,
			[4]DowngradeVerdict{DowngradeToClassic, DowngradeDisabled, DowngradeToClassic, DowngradeDisabled}},
	})
	mustPanic(t, "unknown leaving member", func() { DowngradeOnLeave(mixed(), "zz", PolicyBidirectional, 0) })
}

// TestDowngradeOnReplace has a row per rule of DowngradeOnReplace, under
// every policy.
func TestDowngradeOnReplace(t *testing.T) {
	staticConsumer := Members{
		{ID: "c1", InstanceID: "i1", Epoch: 8},
		{ID: "k1", Classic: true},
		{ID: "k2", Classic: true},
	}
	twoConsumers := append(Members{{ID: "c2", Epoch: 8}}, staticConsumer...)
	alone := Members{{ID: "c1", InstanceID: "i1", Epoch: 8}}
	checkDowngrades(t, DowngradeOnReplace, []downgradeCase{
		{"the last consumer member is replaced by a classic static member [testLastStaticConsumerProtocolMemberReplacedByClassicProtocolMember]", staticConsumer, "c1", 0,
			[4]DowngradeVerdict{DowngradeToClassic, DowngradeDisabled, DowngradeToClassic, DowngradeDisabled}},
		{"the only member, a consumer, is replaced: the group stays non-empty", alone, "c1", 0,
			[4]DowngradeVerdict{DowngradeToClassic, DowngradeDisabled, DowngradeToClassic, DowngradeDisabled}},
		{"a classic member is replaced", staticConsumer, "k1", 0,
			[4]DowngradeVerdict{ConsumerMembersRemain, ConsumerMembersRemain, ConsumerMembersRemain, ConsumerMembersRemain}},
		{"another consumer member stays", twoConsumers, "c1", 0,
			[4]DowngradeVerdict{ConsumerMembersRemain, ConsumerMembersRemain, ConsumerMembersRemain, ConsumerMembersRemain}},
		{"three members exceed a classic max size of 2", staticConsumer, "c1", 2,
			[4]DowngradeVerdict{ExceedsClassicMaxSize, DowngradeDisabled, ExceedsClassicMaxSize, DowngradeDisabled}},
		{"three members fit a classic max size of 3", staticConsumer, "c1", 3,
			[4]DowngradeVerdict{DowngradeToClassic, DowngradeDisabled, DowngradeToClassic, DowngradeDisabled}},
	})
	mustPanic(t, "unknown replaced member", func() { DowngradeOnReplace(mixed(), "zz", PolicyBidirectional, 0) })
}

// downgradeCase is one row of a downgrade rule's table: the group, the
// member that leaves or is replaced, the classic max size, and the verdict
// under each policy (bidirectional, upgrade, downgrade, disabled).
type downgradeCase struct {
	name     string
	g        Members
	member   spec.MemberID
	max      int
	byPolicy [4]DowngradeVerdict
}

// checkDowngrades runs rule on every case under every policy.
func checkDowngrades(t *testing.T, rule func(MixedGroup, spec.MemberID, MigrationPolicy, int) DowngradeVerdict, cases []downgradeCase) {
	t.Helper()
	for _, tc := range cases {
		for i, p := range policies {
			if got := rule(tc.g, tc.member, p, tc.max); got != tc.byPolicy[i] {
				t.Errorf("%s, policy %s: got %s, want %s", tc.name, p, got, tc.byPolicy[i])
			}
		}
	}
}

// classicJoin is a JoinGroup v9 of a Java consumer offering range.
func classicJoin(member spec.MemberID) ClassicJoinRequest {
	return ClassicJoinRequest{GroupID: "g", MemberID: member, ProtocolType: "consumer", Protocols: []string{"range"}, Version: 9}
}

// TestClassicJoin has a row per rule of ClassicJoin.
func TestClassicJoin(t *testing.T) {
	before := Semantics{BeforeKafka20640: true}
	edit := func(r ClassicJoinRequest, f func(*ClassicJoinRequest)) ClassicJoinRequest { f(&r); return r }
	staticJ := func(member spec.MemberID, instance string) ClassicJoinRequest {
		r := classicJoin(member)
		r.InstanceID = str(instance)
		return r
	}
	consumersOnly := Members{{ID: "c1", Epoch: 4}, {ID: "c2", InstanceID: "i9", Epoch: spec.StaticLeaveEpoch}}
	const disabledMsg = "Cannot join consumer group g with the classic protocol because online migration is disabled."
	tests := []struct {
		name    string
		g       Members
		r       ClassicJoinRequest
		policy  MigrationPolicy
		maxSize int
		sem     Semantics
		want    Decision
		code    spec.ErrorCode
		msg     string
	}{
		// The policy.
		{name: "disabled refuses a new classic member (KAFKA-20640)", g: mixed(), r: classicJoin("k9"), policy: PolicyDisabled,
			code: spec.GroupIDNotFound, msg: disabledMsg},
		{name: "disabled refuses a rejoining classic member (KAFKA-20640)", g: mixed(), r: classicJoin("k1"), policy: PolicyDisabled,
			code: spec.GroupIDNotFound, msg: disabledMsg},
		{name: "disabled admits a new classic member before KAFKA-20640", g: mixed(), r: classicJoin("k9"), policy: PolicyDisabled, sem: before,
			want: Decision{Kind: NewMember}},
		{name: "disabled refuses before checking the size", g: mixed(), r: classicJoin("k9"), policy: PolicyDisabled, maxSize: 3,
			code: spec.GroupIDNotFound},
		{name: "upgrade admits a new classic member", g: mixed(), r: classicJoin("k9"), policy: PolicyUpgrade,
			want: Decision{Kind: NewMember}},
		{name: "downgrade admits a new classic member", g: mixed(), r: classicJoin("k9"), policy: PolicyDowngrade,
			want: Decision{Kind: NewMember}},
		{name: "bidirectional admits a new classic member into a consumer-only group", g: consumersOnly, r: classicJoin("k9"),
			want: Decision{Kind: NewMember}},

		// Size.
		{name: "full group refuses a new member [testJoiningConsumerGroupThrowsExceptionIfGroupOverMaxSize]", g: mixed(), r: classicJoin("k9"), maxSize: 3,
			code: spec.GroupMaxSizeReached, msg: "The consumer group has reached its maximum capacity of 3 members."},
		{name: "full group refuses a first join without member id", g: mixed(), r: classicJoin(""), maxSize: 3,
			code: spec.GroupMaxSizeReached},
		{name: "full group refuses a static replacement", g: mixed(), r: staticJ("", "i2"), maxSize: 3,
			code: spec.GroupMaxSizeReached},
		{name: "full group still admits a member's rejoin", g: mixed(), r: classicJoin("k1"), maxSize: 3,
			want: Decision{Kind: ExistingMember, Member: "k1"}},
		{name: "group below its maximum size", g: mixed(), r: classicJoin("k9"), maxSize: 4,
			want: Decision{Kind: NewMember}},
		{name: "size is checked before the protocols", g: mixed(), r: edit(classicJoin("k9"), func(r *ClassicJoinRequest) { r.ProtocolType = "connect" }), maxSize: 3,
			code: spec.GroupMaxSizeReached},

		// Protocols.
		{name: "protocol type must be consumer [testJoiningConsumerGroupThrowsExceptionIfProtocolIsNotSupported]", g: mixed(), r: edit(classicJoin("k9"), func(r *ClassicJoinRequest) { r.ProtocolType = "connect" }),
			code: spec.InconsistentGroupProtocol, msg: "Member k9's protocols are not supported."},
		{name: "empty protocol type", g: mixed(), r: edit(classicJoin("k9"), func(r *ClassicJoinRequest) { r.ProtocolType = "" }),
			code: spec.InconsistentGroupProtocol},
		{name: "no protocol offered", g: mixed(), r: edit(classicJoin("k9"), func(r *ClassicJoinRequest) { r.Protocols = nil }),
			code: spec.InconsistentGroupProtocol},
		{name: "no protocol offered, no classic member", g: consumersOnly, r: edit(classicJoin("k9"), func(r *ClassicJoinRequest) { r.Protocols = nil }),
			code: spec.InconsistentGroupProtocol},
		{name: "a protocol only some classic members support", g: mixed(), r: edit(classicJoin("k9"), func(r *ClassicJoinRequest) { r.Protocols = []string{"cooperative-sticky"} }),
			code: spec.InconsistentGroupProtocol},
		{name: "one of the offered protocols is supported by every classic member", g: mixed(), r: edit(classicJoin("k9"), func(r *ClassicJoinRequest) { r.Protocols = []string{"cooperative-sticky", "range"} }),
			want: Decision{Kind: NewMember}},
		{name: "any protocol when the group has no classic member", g: consumersOnly, r: edit(classicJoin("k9"), func(r *ClassicJoinRequest) { r.Protocols = []string{"roundrobin"} }),
			want: Decision{Kind: NewMember}},
		{name: "protocols are checked before MEMBER_ID_REQUIRED", g: mixed(), r: edit(classicJoin(""), func(r *ClassicJoinRequest) { r.Protocols = []string{"roundrobin"} }),
			code: spec.InconsistentGroupProtocol, msg: "Member 's protocols are not supported."},

		// Dynamic members.
		{name: "first join at v4+ gets MEMBER_ID_REQUIRED", g: mixed(), r: classicJoin(""),
			code: spec.MemberIDRequired},
		{name: "first join at v4 gets MEMBER_ID_REQUIRED", g: mixed(), r: edit(classicJoin(""), func(r *ClassicJoinRequest) { r.Version = 4 }),
			code: spec.MemberIDRequired},
		{name: "first join below v4 is a new member at once", g: mixed(), r: edit(classicJoin(""), func(r *ClassicJoinRequest) { r.Version = 3 }),
			want: Decision{Kind: NewMember}},
		{name: "rejoin of a classic member", g: mixed(), r: classicJoin("k1"),
			want: Decision{Kind: ExistingMember, Member: "k1"}},
		{name: "a member id the group does not know is created [testJoiningConsumerGroupWithNewDynamicMember]", g: mixed(), r: classicJoin("k9"),
			want: Decision{Kind: NewMember}},
		{name: "a consumer-protocol member id is not checked", g: mixed(), r: classicJoin("c1"),
			want: Decision{Kind: ExistingMember, Member: "c1"}},

		// Static members.
		{name: "static first join with an unused instance id", g: mixed(), r: staticJ("", "i7"),
			want: Decision{Kind: NewMember}},
		{name: "static first join never gets MEMBER_ID_REQUIRED", g: mixed(), r: edit(staticJ("", "i7"), func(r *ClassicJoinRequest) { r.Version = 9 }),
			want: Decision{Kind: NewMember}},
		{name: "static first join replaces the holder at any epoch [testJoiningConsumerGroupReplacingExistingStaticMember]", g: mixed(), r: staticJ("", "i2"),
			want: Decision{Kind: ReplaceStatic, Member: "k2"}},
		{name: "static first join replaces a departed consumer member", g: consumersOnly, r: staticJ("", "i9"),
			want: Decision{Kind: ReplaceStatic, Member: "c2"}},
		{name: "static rejoin with its member id", g: mixed(), r: staticJ("k2", "i2"),
			want: Decision{Kind: ExistingMember, Member: "k2"}},
		{name: "static join with a member id and an unknown instance id [testStaticMemberJoiningConsumerGroupWithUnknownInstanceId]", g: mixed(), r: staticJ("k2", "i7"),
			code: spec.UnknownMemberID, msg: "Instance id i7 is unknown."},
		{name: "static join with another member's instance id [testStaticMemberJoiningConsumerGroupWithUnmatchedMemberId]", g: mixed(), r: staticJ("k1", "i2"),
			code: spec.FencedInstanceID, msg: "Static member k1 with instance id i2 was fenced by member k2."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, rej := ClassicJoin(tc.g, tc.r, tc.policy, tc.maxSize, tc.sem)
			checkRejection(t, rej, tc.code, tc.msg)
			if got != tc.want {
				t.Fatalf("decision %s, want %s", got, tc.want)
			}
		})
	}
	mustPanic(t, "empty consumer group", func() { ClassicJoin(Members{}, classicJoin("k1"), PolicyBidirectional, 0, Semantics{}) })
}

func TestMigrationStrings(t *testing.T) {
	checks := []struct{ got, want string }{
		{NoConversion.String(), "none"},
		{ReplaceEmptyClassic.String(), "replace-empty-classic"},
		{OnlineUpgrade.String(), "online-upgrade"},
		{ConversionKind(7).String(), "ConversionKind(7)"},
		{ConsumerMembersRemain.String(), "consumer-members-remain"},
		{GroupBecomesEmpty.String(), "group-becomes-empty"},
		{DowngradeDisabled.String(), "downgrade-disabled"},
		{ExceedsClassicMaxSize.String(), "exceeds-classic-max-size"},
		{DowngradeToClassic.String(), "downgrade-to-classic"},
		{DowngradeVerdict(9).String(), "DowngradeVerdict(9)"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for v := ConsumerMembersRemain; v <= DowngradeToClassic+1; v++ {
		if v.Downgrades() != (v == DowngradeToClassic) {
			t.Errorf("%s.Downgrades() = %v", v, v.Downgrades())
		}
	}
}

// TestASCIIEqualFold covers the helper's whole alphabet, including the
// letters no policy name has.
func TestASCIIEqualFold(t *testing.T) {
	for _, c := range []struct {
		s, lower string
		want     bool
	}{
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz", true},
		{"abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz", true},
		{"@[`{", "@[`{", true},
		{"@[", "`{", false},
		{"FIZZ", "fiz", false},
		{"", "", true},
	} {
		if got := asciiEqualFold(c.s, c.lower); got != c.want {
			t.Errorf("asciiEqualFold(%q, %q) = %v", c.s, c.lower, got)
		}
	}
}
