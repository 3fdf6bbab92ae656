package validate

import (
	"fmt"
	"slices"

	"github.com/rebalance-ref/rebalance/model/nextgen/message"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file holds the rules of online migration between the classic and
// the consumer group protocols (KIP-848's upgrade and downgrade paths in
// GroupMetadataManager): the migration policy, the online upgrade of a
// classic group by a ConsumerGroupHeartbeat, the online downgrade of a
// consumer group when its last consumer-protocol member goes, and the
// admission of a classic JoinGroup into a consumer group. The facts follow
// the apache/kafka source of October 2024; the later changes are named
// where they apply (KAFKA-18134, KAFKA-20640, and the messages of a later
// trunk).

// ConsumerProtocolType is the protocol type of the consumer's embedded
// protocol (ConsumerProtocol.PROTOCOL_TYPE): the only classic protocol type
// that can live in a consumer group.
const ConsumerProtocolType = "consumer"

// MigrationPolicy is the coordinator's group.consumer.migration.policy
// (ConsumerGroupMigrationPolicy): which online conversions between a
// non-empty classic group and a non-empty consumer group are allowed. The
// conversion of an empty group, in either direction, is always allowed and
// does not consult the policy. The zero value is PolicyBidirectional,
// Kafka's default since September 2024 (apache/kafka#17295).
type MigrationPolicy uint8

const (
	// PolicyBidirectional allows both the upgrade and the downgrade.
	PolicyBidirectional MigrationPolicy = iota
	// PolicyUpgrade allows only the upgrade (classic to consumer).
	PolicyUpgrade
	// PolicyDowngrade allows only the downgrade (consumer to classic).
	PolicyDowngrade
	// PolicyDisabled allows neither.
	PolicyDisabled
)

var migrationPolicies = node.Enum[MigrationPolicy]{Type: "MigrationPolicy", Names: []string{"bidirectional", "upgrade", "downgrade", "disabled"}}

// String is the policy's configuration value ("bidirectional", "upgrade",
// "downgrade", "disabled"), which ParseMigrationPolicy reads back.
func (p MigrationPolicy) String() string { return migrationPolicies.Name(p) }

// UpgradeEnabled reports whether p allows the online upgrade of a non-empty
// classic group to a consumer group (isUpgradeEnabled): true for
// bidirectional and upgrade.
func (p MigrationPolicy) UpgradeEnabled() bool {
	return p == PolicyBidirectional || p == PolicyUpgrade
}

// DowngradeEnabled reports whether p allows the online downgrade of a
// non-empty consumer group to a classic group (isDowngradeEnabled): true for
// bidirectional and downgrade.
func (p MigrationPolicy) DowngradeEnabled() bool {
	return p == PolicyBidirectional || p == PolicyDowngrade
}

// ParseMigrationPolicy reads a policy name, ignoring the case of ASCII
// letters, as Kafka's configuration does. An unknown name (including the
// empty string, and any name with a letter outside ASCII) is an error that
// lists the valid names. Kafka's broker refuses such a value when it
// validates its configuration (CaseInsensitiveValidString);
// ConsumerGroupMigrationPolicy.parse on its own would silently read an
// unknown name, or null, as disabled, which this function never does.
func ParseMigrationPolicy(name string) (MigrationPolicy, error) {
	for i, n := range migrationPolicies.Names {
		if asciiEqualFold(name, n) {
			return MigrationPolicy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown group.consumer.migration.policy %q (want one of bidirectional, upgrade, downgrade, disabled)", name)
}

// asciiEqualFold reports whether s and lower (all lower case ASCII) are
// equal once the ASCII capitals of s are lowered.
func asciiEqualFold(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// ClassicGroupInfo is what the upgrade rules need to know about an existing
// classic group.
type ClassicGroupInfo struct {
	// Empty reports that the group is in state Empty (ClassicGroup.isEmpty).
	// An Empty group has no members; a group with no members need not be
	// Empty (PreparingRebalance while its only joiners still await their
	// member id), and is then not replaced but refused
	// (testConsumerGroupHeartbeatWithNonEmptyClassicGroup).
	Empty bool
	// Members is the number of members (ClassicGroup.numMembers, members
	// awaiting a member id not counted).
	Members int
	// ProtocolType is the group's protocol type ("consumer" for Java
	// consumers, "connect" for Connect workers, ...); empty for none.
	ProtocolType string
	// AssignorUserData reports that some member's current assignment
	// carries non-empty user data, the mark of a custom client-side
	// assignor (KAFKA-18134).
	AssignorUserData bool
}

// ConversionKind says what a ConsumerGroupHeartbeat does to the classic group
// it arrives at.
type ConversionKind uint8

const (
	// NoConversion is the kind returned with a rejection.
	NoConversion ConversionKind = iota
	// ReplaceEmptyClassic: the classic group is empty; the coordinator
	// writes its tombstones and creates a new, empty consumer group under
	// the same id (maybeDeleteEmptyClassicGroup, the offline migration). The
	// committed offsets stay. The policy is not consulted.
	ReplaceEmptyClassic
	// OnlineUpgrade: the coordinator converts the classic group to a
	// consumer group holding the same members as classic members
	// (convertToConsumerGroup, ConsumerGroup.fromClassicGroup): group epoch
	// and target assignment epoch = the classic generation; each member at
	// member epoch = previous epoch = the generation, state Stable, its
	// target and assigned partitions = its last classic assignment, keeping
	// its session timeout and protocols. Pending JoinGroup and SyncGroup
	// requests are answered REBALANCE_IN_PROGRESS so that the classic
	// members rejoin.
	OnlineUpgrade
)

var conversionKinds = node.Enum[ConversionKind]{Type: "ConversionKind", Names: []string{"none", "replace-empty-classic", "online-upgrade"}}

// String names the kind ("none", "replace-empty-classic", "online-upgrade").
func (k ConversionKind) String() string { return conversionKinds.Name(k) }

// HeartbeatToClassic decides what a ConsumerGroupHeartbeat does when its
// group id names a classic group. It models the classic branch of
// GroupMetadataManager.getOrMaybeCreateConsumerGroup (and, for a leave,
// GroupMetadataManager.consumerGroup), with validateOnlineUpgrade and the
// refusals of convertToConsumerGroup, in Kafka's order:
//
//   - Member epoch other than 0 (a regular heartbeat above 0, or a leave at
//     -1 or -2): GROUP_ID_NOT_FOUND ("Group g is not a consumer group.").
//     Only a join can convert a group.
//   - Empty classic group (state Empty): ReplaceEmptyClassic, whatever the
//     policy.
//   - The policy does not allow the upgrade: GROUP_ID_NOT_FOUND.
//   - The group's protocol type is not "consumer" (it is not a group of
//     Java consumers, e.g. Connect workers): GROUP_ID_NOT_FOUND.
//   - The group has more members than consumerMaxSize
//     (group.consumer.max.size; consumerMaxSize <= 0 means no limit):
//     GROUP_ID_NOT_FOUND. A group of exactly consumerMaxSize members
//     passes here and is then full: Join, run on the converted group,
//     answers the joining member GROUP_MAX_SIZE_REACHED, and the conversion
//     is not written (its records are discarded with the failed request).
//   - A member's assignment carries assignor user data (a custom
//     client-side assignor, which the server-side assignors cannot carry
//     on): GROUP_ID_NOT_FOUND, unless sem.BeforeKafka18134.
//   - Otherwise OnlineUpgrade.
//
// GROUP_ID_NOT_FOUND is fatal to the consumer-protocol client: a consumer
// the policy refuses does not join, and the classic group is untouched.
// The October 2024 source answered every refusal with the message "Group g
// is not a consumer group" (validateOnlineUpgrade returned false and only
// logged why); the messages here are those of a later trunk (seen in a
// version of August 2025 or after), where validateOnlineUpgrade throws them
// itself. The code is the same in both.
// A classic group whose embedded protocol data cannot be parsed is refused
// too (GROUP_ID_NOT_FOUND, "... embedded consumer protocol is malformed");
// ClassicGroupInfo does not model malformed bytes.
//
// The caller runs Request before HeartbeatToClassic, and Join after an
// accepted one, on the group as it is after the conversion: a consumer
// group whose members are the classic members (all of them Classic) or,
// after ReplaceEmptyClassic, an empty one. HeartbeatToClassic panics if g
// is Empty with members (a broken view).
func HeartbeatToClassic(g ClassicGroupInfo, r message.HeartbeatRequest, policy MigrationPolicy, consumerMaxSize int, sem Semantics) (ConversionKind, Rejection) {
	if g.Empty && g.Members != 0 {
		panic(fmt.Sprintf("validate.HeartbeatToClassic: an Empty classic group with %d members", g.Members))
	}
	if r.MemberEpoch != 0 {
		return NoConversion, reject(spec.GroupIDNotFound, "Group %s is not a consumer group.", r.GroupID)
	}
	if g.Empty {
		return ReplaceEmptyClassic, Rejection{}
	}
	const cannot = "Cannot upgrade classic group %s to consumer group because "
	if !policy.UpgradeEnabled() {
		return NoConversion, reject(spec.GroupIDNotFound, cannot+"online upgrade is disabled.", r.GroupID)
	}
	if g.ProtocolType != ConsumerProtocolType {
		return NoConversion, reject(spec.GroupIDNotFound, cannot+"the group does not use the consumer embedded protocol.", r.GroupID)
	}
	if consumerMaxSize > 0 && g.Members > consumerMaxSize {
		return NoConversion, reject(spec.GroupIDNotFound, cannot+"the group size exceeds the consumer group maximum size.", r.GroupID)
	}
	if g.AssignorUserData && !sem.BeforeKafka18134 {
		return NoConversion, reject(spec.GroupIDNotFound, cannot+"an unsupported custom assignor is in use. "+
			"Please refer to the documentation or switch to a default assignor before re-attempting the upgrade.", r.GroupID)
	}
	return OnlineUpgrade, Rejection{}
}

// MixedGroup is the view of a consumer group that may hold members of both
// protocols. Members implements it.
type MixedGroup interface {
	Group
	// ClassicMembers is the number of members that use the classic
	// protocol (ConsumerGroup.numClassicProtocolMembers).
	ClassicMembers() int
	// ClassicProtocolSupport is the number of classic members that support
	// the classic protocol (assignor) name
	// (classicProtocolMembersSupportedProtocols).
	ClassicProtocolSupport(name string) int
}

// ClassicMembers counts the members with Classic set.
func (ms Members) ClassicMembers() int {
	n := 0
	for _, m := range ms {
		if m.Classic {
			n++
		}
	}
	return n
}

// ClassicProtocolSupport counts the classic members whose Protocols hold
// name.
func (ms Members) ClassicProtocolSupport(name string) int {
	n := 0
	for _, m := range ms {
		if m.Classic && slices.Contains(m.Protocols, name) {
			n++
		}
	}
	return n
}

// DowngradeVerdict is whether a consumer group is converted to a classic
// group when a member goes, and if not, which rule kept it.
type DowngradeVerdict uint8

const (
	// ConsumerMembersRemain: the member that goes is not the last member
	// of the consumer protocol (another one stays, or it uses the classic
	// protocol itself). The zero value: no downgrade.
	ConsumerMembersRemain DowngradeVerdict = iota
	// GroupBecomesEmpty: no member would remain. The consumer group stays
	// (empty); a later classic JoinGroup replaces it offline, whatever the
	// policy.
	GroupBecomesEmpty
	// DowngradeDisabled: the policy does not allow the downgrade. The group
	// stays a consumer group holding only classic members.
	DowngradeDisabled
	// ExceedsClassicMaxSize: more members would remain than
	// group.max.size allows a classic group.
	ExceedsClassicMaxSize
	// DowngradeToClassic: the group becomes a classic group
	// (convertToClassicGroup, ClassicGroup.fromConsumerGroup).
	DowngradeToClassic
)

var downgradeVerdicts = node.Enum[DowngradeVerdict]{Type: "DowngradeVerdict", Names: []string{
	"consumer-members-remain", "group-becomes-empty", "downgrade-disabled", "exceeds-classic-max-size", "downgrade-to-classic"}}

// String names the verdict ("consumer-members-remain", "group-becomes-empty",
// "downgrade-disabled", "exceeds-classic-max-size", "downgrade-to-classic").
func (v DowngradeVerdict) String() string { return downgradeVerdicts.Name(v) }

// Downgrades reports whether v converts the group (DowngradeToClassic).
func (v DowngradeVerdict) Downgrades() bool { return v == DowngradeToClassic }

// DowngradeOnLeave decides whether the consumer group g becomes a classic
// group when the member leaving is removed from it. It models
// GroupMetadataManager.validateOnlineDowngradeWithFencedMember (named
// validateOnlineDowngrade in the first version, KAFKA-16554), which
// consumerGroupFenceMember runs whenever a member is removed: a leave
// heartbeat at epoch -1 (a static member's -2 is not a removal), an expired
// session, an expired rebalance timeout. The rules, in Kafka's order:
//
//   - leaving uses the classic protocol, or some other member uses the
//     consumer protocol: ConsumerMembersRemain;
//   - leaving is the only member: GroupBecomesEmpty;
//   - the policy does not allow the downgrade: DowngradeDisabled;
//   - classicMaxSize > 0 and more than classicMaxSize members remain:
//     ExceedsClassicMaxSize;
//   - otherwise DowngradeToClassic.
//
// A downgrade writes the consumer group's tombstones and the classic
// group's records, in which every remaining member is a classic member at
// the group epoch as generation with its target assignment as its classic
// assignment, and the group, now Stable, is moved at once to
// PreparingRebalance ("Downgrade group g from consumer to classic."): every
// remaining member rejoins through the classic coordinator. A leave or
// removal that does not downgrade removes the member and bumps the group
// epoch as usual.
//
// From KAFKA-18150 (January 2025) the rule takes the set of members removed
// together (a classic LeaveGroup naming several), and a classic LeaveGroup
// that removes the last consumer-protocol member downgrades too; this
// function models the single member of the October 2024 rule.
//
// DowngradeOnLeave panics if leaving is not a member of g: Kafka removes
// only members it knows.
func DowngradeOnLeave(g MixedGroup, leaving spec.MemberID, policy MigrationPolicy, classicMaxSize int) DowngradeVerdict {
	m, ok := g.Member(leaving)
	if !ok {
		panic(fmt.Sprintf("validate.DowngradeOnLeave: %q is not a member", leaving))
	}
	remain := g.Size() - 1
	if m.Classic || g.ClassicMembers() != remain {
		return ConsumerMembersRemain
	}
	if remain == 0 {
		return GroupBecomesEmpty
	}
	if !policy.DowngradeEnabled() {
		return DowngradeDisabled
	}
	if classicMaxSize > 0 && remain > classicMaxSize {
		return ExceedsClassicMaxSize
	}
	return DowngradeToClassic
}

// DowngradeOnReplace decides whether the consumer group g becomes a classic
// group when a static member joining with the classic protocol (a classic
// JoinGroup under an instance id, accepted by ClassicJoin as ReplaceStatic)
// takes the place of replaced. It models
// GroupMetadataManager.validateOnlineDowngradeWithReplacedMemberId
// (KAFKA-17317, October 2024), run at the end of
// classicGroupJoinToConsumerGroup:
//
//   - replaced uses the classic protocol, or some other member uses the
//     consumer protocol: ConsumerMembersRemain;
//   - the policy does not allow the downgrade: DowngradeDisabled;
//   - classicMaxSize > 0 and g has more than classicMaxSize members (the
//     replacement keeps the count): ExceedsClassicMaxSize;
//   - otherwise DowngradeToClassic: the joining member takes the replaced
//     member's target assignment as its classic assignment, and no
//     rebalance is triggered (a later trunk triggers one when the joining
//     member's subscription differs from the replaced member's).
//
// The group never becomes empty here: the joining member stays.
// DowngradeOnReplace panics if replaced is not a member of g.
func DowngradeOnReplace(g MixedGroup, replaced spec.MemberID, policy MigrationPolicy, classicMaxSize int) DowngradeVerdict {
	m, ok := g.Member(replaced)
	if !ok {
		panic(fmt.Sprintf("validate.DowngradeOnReplace: %q is not a member", replaced))
	}
	if m.Classic || g.ClassicMembers() != g.Size()-1 {
		return ConsumerMembersRemain
	}
	if !policy.DowngradeEnabled() {
		return DowngradeDisabled
	}
	if classicMaxSize > 0 && g.Size() > classicMaxSize {
		return ExceedsClassicMaxSize
	}
	return DowngradeToClassic
}

// ClassicJoinRequest is what ClassicJoin reads of a JoinGroup request.
type ClassicJoinRequest struct {
	GroupID string
	// MemberID is the request's member id; empty is UNKNOWN_MEMBER_ID (a
	// first join).
	MemberID spec.MemberID
	// InstanceID is the static member's group.instance.id; nil for a
	// dynamic member.
	InstanceID *string
	// ProtocolType is the request's protocol type ("consumer" for a Java
	// consumer).
	ProtocolType string
	// Protocols are the names of the protocols (assignors) the member
	// offers, in its order.
	Protocols []string
	// Version is the JoinGroup API version (MEMBER_ID_REQUIRED from v4).
	Version int16
}

// ClassicJoin decides whether a classic JoinGroup is admitted into the
// non-empty consumer group g, and as which member. It models the
// consumer-group branch of GroupMetadataManager.classicGroupJoin and the
// checks of classicGroupJoinToConsumerGroup that run before the member is
// updated, in this order:
//
//   - Policy "disabled" (KAFKA-20640, June 2026): refused, for a new member
//     and for a classic member already in the group alike, unless
//     sem.BeforeKafka20640, under which every policy admits it. The fix
//     mirrors the refused upgrade; the error code here, GROUP_ID_NOT_FOUND,
//     the message and the check's place first are this repository's
//     reading of the fix, not confirmed from Kafka's source (see
//     docs/protocols/nextgen.md). The policies "upgrade" and "downgrade"
//     admit classic members: under "upgrade" the classic members of an
//     upgrade under way must be able to rejoin, and under "downgrade" new
//     classic members are how a downgrade is rolled out.
//   - Group full (throwIfConsumerGroupIsFull): maxSize > 0, g.Size() >=
//     maxSize and the member id is empty or not a member:
//     GROUP_MAX_SIZE_REACHED.
//   - Protocols (throwIfClassicProtocolIsNotSupported): the protocol type
//     must be "consumer", and one of the offered protocol names must be
//     supported by every classic member of g (any name, when g has no
//     classic member; never, when none is offered): otherwise
//     INCONSISTENT_GROUP_PROTOCOL ("Member m's protocols are not
//     supported.", with the empty member id where Kafka prints the one it
//     generated).
//   - A dynamic member without a member id at version 4 or above
//     (JoinGroupRequest.requiresKnownMemberId): MEMBER_ID_REQUIRED; Kafka's
//     response carries the member id it generated for the next join.
//   - Dynamic member: ExistingMember if the member id is a member (of
//     either protocol: Kafka does not check which), otherwise NewMember (a
//     dynamic member id the group does not know is created, not refused).
//   - Static member without a member id: NewMember if the instance id is
//     unused, otherwise ReplaceStatic(holder) whatever the holder's epoch:
//     a classic joiner never gets UNRELEASED_INSTANCE_ID. Run
//     DowngradeOnReplace on the holder afterwards.
//   - Static member with a member id: an unknown instance id is
//     UNKNOWN_MEMBER_ID ("Instance id i is unknown."), an instance id held
//     by another member id FENCED_INSTANCE_ID, otherwise ExistingMember.
//
// No epoch or generation is checked on a JoinGroup. An admitted member
// answers with member id, generation = its member epoch after
// reconciliation, protocol type "consumer" and the first of its protocols;
// its assignment comes in the SyncGroup answer, from the server-side
// assignor. A JoinGroup to a missing group, to an empty consumer group
// (replaced offline by a classic group, whatever the policy) or to a
// classic group goes to the classic coordinator instead.
//
// ClassicJoin panics if g is empty (g.Size() == 0).
func ClassicJoin(g MixedGroup, r ClassicJoinRequest, policy MigrationPolicy, maxSize int, sem Semantics) (Decision, Rejection) {
	if g.Size() == 0 {
		panic("validate.ClassicJoin: an empty consumer group is replaced by a classic group, not joined")
	}
	if policy == PolicyDisabled && !sem.BeforeKafka20640 {
		return Decision{}, reject(spec.GroupIDNotFound,
			"Cannot join consumer group %s with the classic protocol because online migration is disabled.", r.GroupID)
	}
	_, known := g.Member(r.MemberID)
	if maxSize > 0 && g.Size() >= maxSize && !known {
		return Decision{}, reject(spec.GroupMaxSizeReached,
			"The consumer group has reached its maximum capacity of %d members.", maxSize)
	}
	if !supportsClassicProtocols(g, r.ProtocolType, r.Protocols) {
		return Decision{}, reject(spec.InconsistentGroupProtocol, "Member %s's protocols are not supported.", r.MemberID)
	}
	if r.InstanceID == nil {
		if r.MemberID == "" && r.Version >= 4 {
			return Decision{}, reject(spec.MemberIDRequired, "Dynamic member with unknown member id joins the consumer group.")
		}
		if known {
			return Decision{Kind: ExistingMember, Member: r.MemberID}, Rejection{}
		}
		return Decision{Kind: NewMember}, Rejection{}
	}
	instance := *r.InstanceID
	holder, held := g.InstanceOwner(instance)
	if r.MemberID == "" {
		if !held {
			return Decision{Kind: NewMember}, Rejection{}
		}
		return Decision{Kind: ReplaceStatic, Member: holder}, Rejection{}
	}
	m, rej := staticHolder(g, message.HeartbeatRequest{GroupID: r.GroupID, MemberID: r.MemberID}, instance, holder, held)
	if !rej.OK() {
		return Decision{}, rej
	}
	return Decision{Kind: ExistingMember, Member: m.ID}, Rejection{}
}

// supportsClassicProtocols is ConsumerGroup.supportsClassicProtocols for a
// non-empty group.
func supportsClassicProtocols(g MixedGroup, protocolType string, protocols []string) bool {
	if protocolType != ConsumerProtocolType {
		return false
	}
	classic := g.ClassicMembers()
	for _, name := range protocols {
		if g.ClassicProtocolSupport(name) == classic {
			return true
		}
	}
	return false
}
