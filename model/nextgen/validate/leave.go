package validate

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/model/nextgen/message"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// LeaveKind says what the coordinator does with an accepted leave.
type LeaveKind uint8

const (
	// NoLeave is the kind of the zero LeaveDecision, returned with a
	// rejection.
	NoLeave LeaveKind = iota
	// Fence removes the member (consumerGroupFenceMember): tombstones for
	// its records, the group epoch bumped, its timers cancelled.
	Fence
	// StaticTemporaryLeave keeps the static member with member epoch -2 and
	// no partitions pending revocation (consumerGroupStaticMemberGroupLeave):
	// no group epoch bump, its assignment and target stay and its session
	// timer keeps running, so it can come back under the same instance id.
	StaticTemporaryLeave
)

var leaveKinds = node.Enum[LeaveKind]{Type: "LeaveKind", Names: []string{"none", "fence", "static-temporary-leave"}}

// String names the kind ("none", "fence", "static-temporary-leave").
func (k LeaveKind) String() string { return leaveKinds.Name(k) }

// LeaveDecision is the outcome of Leave for an accepted leave.
type LeaveDecision struct {
	Kind LeaveKind
	// Member is the member that leaves; empty for NoLeave.
	Member spec.MemberID
}

// String prints the decision, e.g. "fence m1".
func (d LeaveDecision) String() string {
	if d.Member == "" {
		return d.Kind.String()
	}
	return d.Kind.String() + " " + string(d.Member)
}

// Leave decides what a leave heartbeat (epoch -1 or -2) does. It models
// GroupMetadataManager.consumerGroupLeave:
//
//   - No group (g == nil): GROUP_ID_NOT_FOUND.
//   - Dynamic member (InstanceID nil): an unknown MemberID gives
//     UNKNOWN_MEMBER_ID; otherwise Fence.
//   - Static member: an unknown instance id gives UNKNOWN_MEMBER_ID
//     ("Instance id X is unknown."); an instance id held by another member
//     id gives FENCED_INSTANCE_ID; then epoch -2 gives StaticTemporaryLeave
//     and epoch -1 gives Fence.
//
// There is no epoch check: the member id (or instance id and member id) is
// the only credential a leave needs. The response to an accepted leave
// echoes the request's member id and epoch (-1 or -2).
//
// Leave expects a request that Request accepted (so epoch -2 comes with an
// instance id). It panics if !IsLeave(r.MemberEpoch): a regular heartbeat
// goes to Join.
func Leave(g Group, r message.HeartbeatRequest) (LeaveDecision, Rejection) {
	if !IsLeave(r.MemberEpoch) {
		panic(fmt.Sprintf("validate.Leave: member epoch %d is not a leave; regular heartbeats go to Join", r.MemberEpoch))
	}
	if g == nil {
		return LeaveDecision{}, reject(spec.GroupIDNotFound, "Group %s not found.", r.GroupID)
	}
	if r.InstanceID == nil {
		m, ok := g.Member(r.MemberID)
		if !ok {
			return LeaveDecision{}, unknownMember(r)
		}
		return LeaveDecision{Kind: Fence, Member: m.ID}, Rejection{}
	}
	instance := *r.InstanceID
	holder, held := g.InstanceOwner(instance)
	m, rej := staticHolder(g, r, instance, holder, held)
	if !rej.OK() {
		return LeaveDecision{}, rej
	}
	if r.MemberEpoch == spec.StaticLeaveEpoch {
		return LeaveDecision{Kind: StaticTemporaryLeave, Member: m.ID}, Rejection{}
	}
	return LeaveDecision{Kind: Fence, Member: m.ID}, Rejection{}
}
