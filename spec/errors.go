package spec

import "strconv"

// ErrorCode is a Kafka protocol error code, with Kafka's numeric values, as
// carried in responses. Protocol rejections are outputs carrying an
// ErrorCode; they are never Go errors.
type ErrorCode int16

// The error codes used by the group protocols, with Kafka's numbers
// (clients/src/main/java/org/apache/kafka/common/protocol/Errors.java).
const (
	UnknownServerError        ErrorCode = -1
	None                      ErrorCode = 0
	CoordinatorNotAvailable   ErrorCode = 15
	NotCoordinator            ErrorCode = 16
	IllegalGeneration         ErrorCode = 22
	InconsistentGroupProtocol ErrorCode = 23
	InvalidGroupID            ErrorCode = 24
	UnknownMemberID           ErrorCode = 25
	InvalidSessionTimeout     ErrorCode = 26
	RebalanceInProgress       ErrorCode = 27
	UnsupportedVersion        ErrorCode = 35
	InvalidRequest            ErrorCode = 42
	GroupIDNotFound           ErrorCode = 69
	MemberIDRequired          ErrorCode = 79
	GroupMaxSizeReached       ErrorCode = 81
	FencedInstanceID          ErrorCode = 82
	FencedMemberEpoch         ErrorCode = 110
	UnreleasedInstanceID      ErrorCode = 111
	UnsupportedAssignor       ErrorCode = 112
	StaleMemberEpoch          ErrorCode = 113
)

var errorNames = map[ErrorCode]string{
	UnknownServerError:        "UNKNOWN_SERVER_ERROR",
	None:                      "NONE",
	CoordinatorNotAvailable:   "COORDINATOR_NOT_AVAILABLE",
	NotCoordinator:            "NOT_COORDINATOR",
	IllegalGeneration:         "ILLEGAL_GENERATION",
	InconsistentGroupProtocol: "INCONSISTENT_GROUP_PROTOCOL",
	InvalidGroupID:            "INVALID_GROUP_ID",
	UnknownMemberID:           "UNKNOWN_MEMBER_ID",
	InvalidSessionTimeout:     "INVALID_SESSION_TIMEOUT",
	RebalanceInProgress:       "REBALANCE_IN_PROGRESS",
	UnsupportedVersion:        "UNSUPPORTED_VERSION",
	InvalidRequest:            "INVALID_REQUEST",
	GroupIDNotFound:           "GROUP_ID_NOT_FOUND",
	MemberIDRequired:          "MEMBER_ID_REQUIRED",
	GroupMaxSizeReached:       "GROUP_MAX_SIZE_REACHED",
	FencedInstanceID:          "FENCED_INSTANCE_ID",
	FencedMemberEpoch:         "FENCED_MEMBER_EPOCH",
	UnreleasedInstanceID:      "UNRELEASED_INSTANCE_ID",
	UnsupportedAssignor:       "UNSUPPORTED_ASSIGNOR",
	StaleMemberEpoch:          "STALE_MEMBER_EPOCH",
}

// String returns Kafka's name for the code, or "ERROR(n)" for a code this
// module does not use.
func (c ErrorCode) String() string {
	if n, ok := errorNames[c]; ok {
		return n
	}
	return "ERROR(" + strconv.Itoa(int(c)) + ")"
}
