// Package validate holds the request-validation and epoch-fencing rules of
// the KIP-848 group coordinator (Kafka's GroupMetadataManager, "GMM") as
// pure functions. Each function says which Kafka method it models; the
// behaviour follows the apache/kafka group-coordinator source (trunk,
// October 2024) plus the later KAFKA-19233, KAFKA-18134 and KAFKA-20640
// fixes, each selectable with Semantics.
//
// A ConsumerGroupHeartbeat goes through the rules in this order, and a
// caller composing them must keep it:
//
//  1. Request: the request on its own (INVALID_REQUEST, UNSUPPORTED_ASSIGNOR).
//  2. If IsLeave(r.MemberEpoch) (epoch -1 or -2): Leave, which decides whether
//     the member is fenced or a static member leaves temporarily.
//  3. Otherwise (epoch >= 0): Join, which decides whether the heartbeat
//     comes from a new member, an existing member, or a static member that
//     replaces its earlier incarnation; Join runs MemberEpoch where Kafka
//     does.
//
// A ConsumerGroupHeartbeat whose group id names a classic group goes, after
// Request, to HeartbeatToClassic (online upgrade), and then, if accepted, to
// Join on the converted group. The other migration rules (DowngradeOnLeave,
// DowngradeOnReplace, ClassicJoin) and the migration policy are in
// migrate.go.
//
// Nothing here changes state: the functions return a decision for the
// coordinator to carry out, or a Rejection carrying Kafka's error code and,
// where Kafka has one, Kafka's error message. A Rejection is a protocol
// output, not a Go error. Calling Join with a leave epoch or Leave with a
// non-leave epoch is caller misuse and panics, as does a Group whose
// InstanceOwner names a member that Member does not know (a broken view).
package validate

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/model/nextgen/message"
	"github.com/rebalance-ref/rebalance/spec"
)

// Rejection is the refusal of a request (a heartbeat, or a classic
// JoinGroup in ClassicJoin): Kafka's error code and message.
// The zero value means the request is accepted.
type Rejection struct {
	Code    spec.ErrorCode
	Message string
}

// OK reports whether r accepts the request (Code is spec.None).
func (r Rejection) OK() bool { return r.Code == spec.None }

// String prints "OK" or "CODE: message".
func (r Rejection) String() string {
	if r.OK() {
		return "OK"
	}
	return fmt.Sprintf("%s: %s", r.Code, r.Message)
}

// Response returns the heartbeat response that carries r, or the zero
// response when r accepts the request.
func (r Rejection) Response() message.HeartbeatResponse {
	return message.HeartbeatResponse{Error: r.Code, ErrorMessage: r.Message}
}

func reject(code spec.ErrorCode, format string, args ...any) Rejection {
	return Rejection{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Semantics selects between upstream behaviours where Kafka changed a rule.
// The zero value is today's upstream.
type Semantics struct {
	// BeforeKafka19233 restores the rule of Kafka before KAFKA-19233
	// (apache/kafka#21305, January 2026). Before the fix, an existing member
	// that heartbeats with epoch 0 (it was fenced on the client side and
	// rejoins with the member id it keeps for its lifetime) went through the
	// ordinary epoch check, so 0 < server epoch gave FENCED_MEMBER_EPOCH
	// unless 0 happened to be its previous epoch and the (empty) owned list
	// matched; the member could only get back in once the coordinator had
	// removed it (session or rebalance timeout). With the fix (the default,
	// false), epoch 0 passes the check and the member rejoins at once,
	// keeping its member record: the coordinator answers with the member's
	// current epoch and assignment and reconciles as usual, with an empty
	// owned list (Kafka tests testMemberCanRejoinWithEpochZeroIn{Stable,
	// UnrevokedPartitions,UnreleasedPartitions}State).
	BeforeKafka19233 bool
	// BeforeKafka20066 restores the offset-commit rule before KIP-1251
	// (KAFKA-20066, Kafka 4.3): a commit is accepted only at the member's
	// current epoch exactly, so a member whose new epoch is still on its
	// way to it (the response in flight) has its commit refused. With the
	// fix (the default, false), an older epoch is accepted for each
	// partition the member was assigned at that epoch or before (see
	// OffsetCommit).
	BeforeKafka20066 bool
	// BeforeKafka20640 restores the rule of Kafka before KAFKA-20640
	// (apache/kafka#22457, June 2026): under the migration policy
	// "disabled", a classic JoinGroup to a non-empty consumer group was still
	// admitted, so the group could stay mixed for good. With the fix (the
	// default, false) ClassicJoin refuses it. See ClassicJoin.
	BeforeKafka20640 bool
	// BeforeKafka18134 restores the rule of Kafka before KAFKA-18134
	// (apache/kafka#18046, December 2024): a classic group whose members'
	// assignments carry assignor user data (a custom client-side assignor)
	// was upgraded like any other. With the fix (the default, false)
	// HeartbeatToClassic refuses the upgrade. See HeartbeatToClassic.
	BeforeKafka18134 bool
}

// IsLeave reports whether a heartbeat with member epoch e is a leave
// (spec.LeaveEpoch or spec.StaticLeaveEpoch), which Kafka's
// consumerGroupHeartbeat entry point hands to consumerGroupLeave (see Leave)
// instead of the regular heartbeat path (see Join).
func IsLeave(e spec.Epoch) bool {
	return e == spec.LeaveEpoch || e == spec.StaticLeaveEpoch
}
