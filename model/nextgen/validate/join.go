package validate

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/model/nextgen/message"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// DecisionKind says how the coordinator goes on with an accepted regular
// heartbeat.
type DecisionKind uint8

const (
	// NoDecision is the kind of the zero Decision, returned with a
	// rejection.
	NoDecision DecisionKind = iota
	// NewMember: create a member (epoch 0, previous epoch -1) under the
	// request's MemberID, or under a generated id when it is empty. If the
	// group does not exist, create it too.
	NewMember
	// ExistingMember: the heartbeat belongs to the member Decision.Member.
	ExistingMember
	// ReplaceStatic: a static member rejoins (epoch 0) under an instance id
	// whose holder, Decision.Member, left temporarily (epoch -2). Kafka's
	// replaceMember removes the old member id and creates the request's
	// MemberID (or a generated one) as a copy of the old member with epoch 0
	// and previous epoch 0, carrying over its target and current
	// assignment; the group epoch is not bumped by the replacement itself.
	ReplaceStatic
)

var decisionKinds = node.Enum[DecisionKind]{Type: "DecisionKind", Names: []string{"none", "new-member", "existing-member", "replace-static"}}

// String names the kind ("none", "new-member", "existing-member",
// "replace-static").
func (k DecisionKind) String() string { return decisionKinds.Name(k) }

// Decision is the outcome of Join for an accepted heartbeat.
type Decision struct {
	Kind DecisionKind
	// Member is the existing member (ExistingMember) or the static member
	// being replaced (ReplaceStatic); empty for NewMember and NoDecision.
	Member spec.MemberID
}

// String prints the decision, e.g. "existing-member m1".
func (d Decision) String() string {
	if d.Member == "" {
		return d.Kind.String()
	}
	return d.Kind.String() + " " + string(d.Member)
}

// Join decides whose heartbeat a regular (non-leave) request is, or rejects
// it. It models the part of GroupMetadataManager.consumerGroupHeartbeat that
// runs before the member is updated: getOrMaybeCreateConsumerGroup,
// throwIfConsumerGroupIsFull, then getOrMaybeSubscribeDynamicConsumerGroupMember
// (ConsumerGroup.getOrMaybeCreateMember) for a dynamic member or
// getOrMaybeSubscribeStaticConsumerGroupMember for a static one, with the
// epoch check of MemberEpoch where Kafka runs it. The rules, in order:
//
//   - No group (g == nil): GROUP_ID_NOT_FOUND unless the epoch is 0, which
//     creates the group (Join then treats it as empty).
//   - Group full: maxSize > 0, g.Size() >= maxSize and the request's MemberID
//     is empty or not a member: GROUP_MAX_SIZE_REACHED. maxSize <= 0 means
//     no limit. As in Kafka the test is on the member id and comes before
//     everything else, so in a full group an unknown member id at epoch > 0
//     gets GROUP_MAX_SIZE_REACHED rather than UNKNOWN_MEMBER_ID, and a static
//     member that would replace its temporarily departed incarnation under a
//     new member id is refused too (the departed member still counts).
//   - Dynamic member (InstanceID nil), found by MemberID: MemberEpoch, then
//     ExistingMember. Not found: NewMember at epoch 0, otherwise
//     UNKNOWN_MEMBER_ID.
//   - Static member, epoch 0: the instance id unused gives NewMember (or
//     ExistingMember, with no epoch check, in the odd case that the
//     MemberID already belongs to a member, as getOrMaybeCreateMember would
//     return it); the instance id held by a member at epoch -2 gives
//     ReplaceStatic(holder); held by a member at any other epoch, including
//     the requesting member itself, UNRELEASED_INSTANCE_ID. The epoch check
//     never runs here, so Semantics does not matter: a static member fenced
//     on the client side that rejoins at epoch 0 gets UNRELEASED_INSTANCE_ID
//     until it has left with -2 or the coordinator has removed its old
//     record (session timeout).
//   - Static member, epoch > 0: an unknown instance id gives UNKNOWN_MEMBER_ID
//     ("Instance id X is unknown."); an instance id held by another member id
//     gives FENCED_INSTANCE_ID; then MemberEpoch, then ExistingMember.
//
// Semantics matters only for a dynamic member that exists and heartbeats
// with epoch 0: accepted as ExistingMember by default (KAFKA-19233),
// fenced by MemberEpoch with sem.BeforeKafka19233 (unless its previous
// epoch is 0).
//
// Join expects a request that Request accepted. It panics if
// IsLeave(r.MemberEpoch) or the epoch is otherwise negative (a leave goes to
// Leave), and if g names an instance holder it does not know.
func Join(g Group, r message.HeartbeatRequest, maxSize int, sem Semantics) (Decision, Rejection) {
	if r.MemberEpoch < 0 {
		panic(fmt.Sprintf("validate.Join: member epoch %d is not a regular heartbeat; leaves go to Leave", r.MemberEpoch))
	}
	if g == nil {
		if r.MemberEpoch != 0 {
			return Decision{}, reject(spec.GroupIDNotFound, "Consumer group %s not found.", r.GroupID)
		}
		g = Members(nil)
	}
	_, known := g.Member(r.MemberID)
	if maxSize > 0 && g.Size() >= maxSize && (r.MemberID == "" || !known) {
		return Decision{}, reject(spec.GroupMaxSizeReached,
			"The consumer group has reached its maximum capacity of %d members.", maxSize)
	}
	if r.InstanceID == nil {
		return joinDynamic(g, r, sem)
	}
	return joinStatic(g, r, *r.InstanceID, sem)
}

func joinDynamic(g Group, r message.HeartbeatRequest, sem Semantics) (Decision, Rejection) {
	m, ok := g.Member(r.MemberID)
	if !ok {
		if r.MemberEpoch == 0 {
			return Decision{Kind: NewMember}, Rejection{}
		}
		return Decision{}, unknownMember(r)
	}
	if rej := MemberEpoch(m, r, sem); !rej.OK() {
		return Decision{}, rej
	}
	return Decision{Kind: ExistingMember, Member: m.ID}, Rejection{}
}

func joinStatic(g Group, r message.HeartbeatRequest, instance string, sem Semantics) (Decision, Rejection) {
	holder, held := g.InstanceOwner(instance)
	if r.MemberEpoch == 0 {
		if !held {
			if m, ok := g.Member(r.MemberID); ok {
				return Decision{Kind: ExistingMember, Member: m.ID}, Rejection{}
			}
			return Decision{Kind: NewMember}, Rejection{}
		}
		old := mustMember(g, holder, instance)
		// Only a holder that also uses the consumer protocol must have
		// left with -2 first: a classic static member sends no leave,
		// and a consumer-protocol joiner replaces it at once (Kafka's
		// getOrMaybeSubscribeStaticConsumerGroupMember calls
		// throwIfInstanceIdIsUnreleased only when both use the consumer
		// protocol), which is how static members are upgraded.
		if old.Epoch != spec.StaticLeaveEpoch && !old.Classic {
			return Decision{}, reject(spec.UnreleasedInstanceID,
				"Static member %s with instance id %s cannot join the group because the instance id is owned by %s member.",
				r.MemberID, instance, holder)
		}
		return Decision{Kind: ReplaceStatic, Member: holder}, Rejection{}
	}
	m, rej := staticHolder(g, r, instance, holder, held)
	if !rej.OK() {
		return Decision{}, rej
	}
	if rej := MemberEpoch(m, r, sem); !rej.OK() {
		return Decision{}, rej
	}
	return Decision{Kind: ExistingMember, Member: m.ID}, Rejection{}
}

// staticHolder applies throwIfStaticMemberIsUnknown and
// throwIfInstanceIdIsFenced, shared by Join and Leave.
func staticHolder(g Group, r message.HeartbeatRequest, instance string, holder spec.MemberID, held bool) (MemberInfo, Rejection) {
	if !held {
		return MemberInfo{}, reject(spec.UnknownMemberID, "Instance id %s is unknown.", instance)
	}
	if holder != r.MemberID {
		return MemberInfo{}, reject(spec.FencedInstanceID,
			"Static member %s with instance id %s was fenced by member %s.", r.MemberID, instance, holder)
	}
	return mustMember(g, holder, instance), Rejection{}
}

func unknownMember(r message.HeartbeatRequest) Rejection {
	return reject(spec.UnknownMemberID, "Member %s is not a member of group %s.", r.MemberID, r.GroupID)
}

// mustMember returns the member that holds an instance id, and panics if
// the Group view does not know it: a broken view, not a protocol outcome.
func mustMember(g Group, id spec.MemberID, instance string) MemberInfo {
	m, ok := g.Member(id)
	if !ok {
		panic(fmt.Sprintf("validate: Group says instance id %q is held by member %q, which it does not know", instance, id))
	}
	return m
}
