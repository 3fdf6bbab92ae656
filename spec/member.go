package spec

// MemberID identifies one membership of one process in a group: the member
// id a classic coordinator hands out, or the id a next-gen member
// generates (KIP-1082). A process that is fenced and joins again may get a
// new MemberID; laws about monotonic generations are stated per MemberID.
type MemberID string

// Generation is a classic group generation (JoinGroup/SyncGroup). The
// coordinator bumps it by one on every completed join; NoGeneration (-1) is
// what a member reports before its first assignment or after it was fenced.
type Generation int32

// NoGeneration is the generation of a member that holds no assignment from
// any generation (Kafka's DEFAULT_GENERATION, -1).
const NoGeneration Generation = -1

// Epoch is a next-gen (KIP-848) group, target or member epoch. Member epoch 0
// is a join, LeaveEpoch (-1) a leave and StaticLeaveEpoch (-2) a temporary
// leave of a static member.
type Epoch int32

const (
	// LeaveEpoch is the member epoch of a heartbeat that leaves the group.
	LeaveEpoch Epoch = -1
	// StaticLeaveEpoch is the member epoch of a static member that leaves
	// temporarily and expects to come back under the same instance id.
	StaticLeaveEpoch Epoch = -2
)
