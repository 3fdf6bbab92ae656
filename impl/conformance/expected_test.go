package conformance

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// diff is one difference between kfake's answer and ours: which API and
// field, what each side said (member ids replaced by member names), and
// where (group, step, member) for the failure message.
type diff struct {
	API, Field  string
	Kfake, Ours string
	Where       string
	// Group and Step say after which request of which sequence the
	// difference was seen; State marks a difference in the group's state
	// (DescribeGroups, ConsumerGroupDescribe) rather than in an answer.
	Group string
	Step  int
	State bool
	// Context names circumstances of the step that a row may require,
	// separated by spaces: "parked-static" when a static member was parked
	// at epoch -2 on our side before the request, "was-parked" when one
	// was at any earlier step of the sequence; "target-behind" (group
	// state only) when our group's epoch is ahead of its target's after
	// the request (Kafka computes the target on the next heartbeat).
	Context string
}

func (d diff) String() string {
	return fmt.Sprintf("%s: %s %s: kfake %s, ours %s", d.Where, d.API, d.Field, d.Kfake, d.Ours)
}

// Classifications of an expected difference (docs/conformance.md).
const (
	kfakeBug   = "kfake bug"
	deliberate = "deliberate difference"
	oursBug    = "bug of ours"
)

// expected is a known difference: the suite stays green when it shows,
// and fails when a difference matches no row, or when a hand-written
// sequence that shows a row no longer does.
type expected struct {
	ID    string
	Class string
	// Why, in one line; docs/conformance.md says more.
	Why string
	// Stops says the two coordinators' states part for good after this
	// difference: a generated sequence stops comparing there, as every
	// later answer could differ for this reason alone.
	Stops bool
	// Diffs are the differences the row explains: a diff is explained
	// when it matches one of them.
	Diffs []pattern
}

// pattern matches a diff: API, Field, Kfake and Ours must equal the
// diff's; an empty field matches anything; a field ending in "*" matches a
// prefix, one between two "*" a substring.
type pattern struct {
	API, Field, Kfake, Ours string
	// Values, when set, must also hold of the two values.
	Values func(kfake, ours string) bool
	// Context, when set, must be one of the diff's.
	Context string
	// Consequence restricts the pattern to a difference seen at a step
	// where another difference was explained by a plain pattern of the
	// same row.
	Consequence bool
}

func (e expected) matches(d diff) bool { return e.matchesAs(d, false) }

// matchesAs is matches; consequence allows the Consequence patterns.
func (e expected) matchesAs(d diff, consequence bool) bool {
	for _, p := range e.Diffs {
		if p.Consequence && !consequence {
			continue
		}
		if match(p.API, d.API) && match(p.Field, d.Field) && match(p.Kfake, d.Kfake) && match(p.Ours, d.Ours) &&
			(p.Values == nil || p.Values(d.Kfake, d.Ours)) && (p.Context == "" || slices.Contains(strings.Fields(d.Context), p.Context)) {
			return true
		}
	}
	return false
}

func match(pattern, s string) bool {
	if pattern == "" {
		return true
	}
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		if inner, ok := strings.CutPrefix(p, "*"); ok {
			return strings.Contains(s, inner)
		}
		return strings.HasPrefix(s, p)
	}
	return pattern == s
}

// expectedDiffs is the table of known differences; docs/conformance.md
// has one row per entry, with the command that reproduces it. A diff is
// explained by the first row that matches it, so the broad rows come last.
var expectedDiffs = []expected{
	{
		ID: "K1", Class: kfakeBug,
		Why: "kfake's join barrier does not wait for member ids handed out with MEMBER_ID_REQUIRED (Kafka's hasAllMembersJoined does)",
		Diffs: []pattern{
			{API: "JoinGroup", Field: "answered", Kfake: "answered JoinGroup error=NONE", Ours: "parked"},
			{API: "DescribeGroups", Field: "state", Kfake: "CompletingRebalance", Ours: "PreparingRebalance"},
		},
	},
	{
		ID: "K2", Class: kfakeBug,
		Why: "kfake keeps an empty group's protocol type, so a JoinGroup of another protocol type is INCONSISTENT_GROUP_PROTOCOL (Kafka accepts any in Empty)",
		Diffs: []pattern{
			{API: "JoinGroup", Field: "error", Kfake: "INCONSISTENT_GROUP_PROTOCOL", Ours: "MEMBER_ID_REQUIRED"},
		},
	},
	{
		ID: "K3", Class: deliberate,
		Why: "kfake replaces a zero-byte assignment of a consumer-protocol group by an encoded empty ConsumerMemberAssignment (a workaround for clients; Kafka passes the bytes through)",
		Diffs: []pattern{
			{API: "SyncGroup", Field: "assignment", Kfake: "empty ConsumerMemberAssignment", Ours: `""`},
			{API: "DescribeGroups", Field: "assignments", Kfake: "*empty ConsumerMemberAssignment*"},
		},
	},
	{
		ID: "K4", Class: kfakeBug,
		Why: "kfake sets HeartbeatIntervalMs on every ConsumerGroupHeartbeat response; Kafka leaves it 0 on errors and leaves (cosmetic: clients read it only on success)",
		Diffs: []pattern{
			{API: "ConsumerGroupHeartbeat", Field: "heartbeatInterval", Kfake: "5000", Ours: "0"},
		},
	},
	{
		ID: "K6", Class: kfakeBug,
		Why: "kfake leaves a static member parked at epoch -2 out of the group state; Kafka counts it as not reconciled (RECONCILING)",
		Diffs: []pattern{
			{API: "ConsumerGroupDescribe", Field: "state", Kfake: "stable", Ours: "reconciling"},
			{API: "ConsumerGroupDescribe", Field: "state", Kfake: "empty", Ours: "reconciling"},
			{API: "ConsumerGroupDescribe", Field: "state", Kfake: "empty", Ours: "stable or reconciling"},
		},
	},
	{
		ID: "K7", Class: deliberate,
		Why: "our core takes only member ids the client made (KIP-1082) and answers an empty MemberId at epoch 0 INVALID_REQUEST; kfake, like Kafka before 4.0, makes one up",
		Diffs: []pattern{
			{API: "ConsumerGroupHeartbeat", Field: "error", Kfake: "NONE", Ours: "INVALID_REQUEST (MemberId can't be empty.)"},
			{API: "ConsumerGroupDescribe", Field: "state", Kfake: "stable", Ours: "error GROUP_ID_NOT_FOUND", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "groupEpoch", Kfake: "1", Ours: "0", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "assignmentEpoch", Kfake: "1", Ours: "0", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "memberEpochs", Kfake: "client-*", Ours: "", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "members", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "assignments", Consequence: true},
		},
	},
	{
		ID: "K8", Class: kfakeBug,
		Why: "kfake accepts a ConsumerGroupHeartbeat at epoch -2 without InstanceId (fencing a dynamic member, parking a static one); Kafka answers INVALID_REQUEST \"InstanceId can't be null.\"",
		Diffs: []pattern{
			{API: "ConsumerGroupHeartbeat", Field: "error", Kfake: "NONE", Ours: "INVALID_REQUEST (InstanceId can't be null.)"},
			{API: "ConsumerGroupDescribe", Field: "state", Kfake: "empty", Ours: "stable", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "groupEpoch", Kfake: "2", Ours: "1", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "memberEpochs", Kfake: "", Ours: "member-a=1", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "memberEpochs", Kfake: "member-a=-2", Ours: "member-a=1", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "members", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "assignments", Consequence: true},
		},
	},
	{
		ID: "K9", Class: kfakeBug,
		Why: "kfake accepts a join (epoch 0) without RebalanceTimeoutMs (-1) or with a null or empty SubscribedTopicNames; Kafka answers INVALID_REQUEST",
		Diffs: []pattern{
			{API: "ConsumerGroupHeartbeat", Field: "error", Kfake: "NONE", Ours: "INVALID_REQUEST (RebalanceTimeoutMs must be provided in first request.)"},
			{API: "ConsumerGroupHeartbeat", Field: "error", Kfake: "NONE", Ours: "INVALID_REQUEST (SubscribedTopicNames must be set in first request.)"},
			{API: "ConsumerGroupDescribe", Field: "state", Kfake: "stable", Ours: "error GROUP_ID_NOT_FOUND", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "groupEpoch", Kfake: "1", Ours: "0", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "assignmentEpoch", Kfake: "1", Ours: "0", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "memberEpochs", Kfake: "member-a=1", Ours: "", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "members", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "assignments", Consequence: true},
		},
	},
	{
		ID: "K10", Class: kfakeBug,
		Why: "kfake never answers the parked JoinGroup of a member that leaves (LeaveGroup) during the rebalance; Kafka answers it UNKNOWN_MEMBER_ID before removing the member",
		Diffs: []pattern{
			{API: "JoinGroup", Field: "answered", Kfake: "parked", Ours: "answered JoinGroupResponse#0 error=UNKNOWN_MEMBER_ID"},
		},
	},
	{
		ID: "K11", Class: kfakeBug,
		Why: "kfake answers a Heartbeat, SyncGroup or LeaveGroup for a group that does not exist GROUP_ID_NOT_FOUND; Kafka answers UNKNOWN_MEMBER_ID (\"Group ... not found.\")",
		Diffs: []pattern{
			{API: "Heartbeat", Field: "error", Kfake: "GROUP_ID_NOT_FOUND", Ours: "UNKNOWN_MEMBER_ID"},
			{API: "SyncGroup", Field: "error", Kfake: "GROUP_ID_NOT_FOUND", Ours: "UNKNOWN_MEMBER_ID"},
			{API: "LeaveGroup", Field: "error", Kfake: "top=GROUP_ID_NOT_FOUND", Ours: "top=NONE,UNKNOWN_MEMBER_ID"},
		},
	},
	{
		ID: "K12", Class: deliberate,
		Why: "a classic core is the coordinator of one group and exists from its start (Empty); kfake describes a group it never created as Dead, as Kafka does, and so does impl/kafkaserver in front of our cores",
		Diffs: []pattern{
			{API: "DescribeGroups", Field: "state", Kfake: "Dead", Ours: "Empty"},
		},
	},
	{
		ID: "K13", Class: kfakeBug,
		Why: "kfake answers a ConsumerGroupHeartbeat at a non-zero epoch for a group that does not exist UNKNOWN_MEMBER_ID and creates the group; Kafka answers GROUP_ID_NOT_FOUND and creates nothing (only epoch 0 creates a group)",
		Diffs: []pattern{
			{API: "ConsumerGroupHeartbeat", Field: "error", Kfake: "UNKNOWN_MEMBER_ID", Ours: "GROUP_ID_NOT_FOUND (Consumer group *"},
			{API: "ConsumerGroupDescribe", Field: "state", Kfake: "empty", Ours: "error GROUP_ID_NOT_FOUND"},
		},
	},
	{
		ID: "K14", Class: kfakeBug, Stops: true,
		Why: "kfake never answers a member's parked SyncGroup when the same member's JoinGroup with new metadata starts a rebalance (its one waitingReply is overwritten, and the join is not counted, so the new barrier waits for the rebalance timeout); Kafka answers the SyncGroup REBALANCE_IN_PROGRESS and the barrier falls when every member rejoined",
		Diffs: []pattern{
			{API: "SyncGroup", Field: "answered", Kfake: "parked", Ours: "answered SyncGroupResponse#0 error=REBALANCE_IN_PROGRESS"},
			{API: "JoinGroup", Field: "answered", Kfake: "parked", Ours: "answered JoinGroupResponse#0 gen=*"},
			{API: "DescribeGroups", Field: "state", Kfake: "PreparingRebalance", Ours: "CompletingRebalance"},
		},
	},
	{
		ID: "K15", Class: kfakeBug, Stops: true,
		Why: "a member that revoked what it had to while a newer target asks it to revoke more: Kafka moves it to its epoch + 1 (CurrentAssignmentBuilder, UNREVOKED_PARTITIONS), kfake keeps its epoch",
		Diffs: []pattern{
			{API: "ConsumerGroupHeartbeat", Field: "memberEpoch", Values: func(k, o string) bool {
				kn, err1 := strconv.Atoi(k)
				on, err2 := strconv.Atoi(o)
				return err1 == nil && err2 == nil && on == kn+1
			}},
			{API: "ConsumerGroupDescribe", Field: "memberEpochs", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "state", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "assignments", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "ownership", Consequence: true},
		},
	},
	{
		ID: "K16", Class: kfakeBug, Stops: true,
		Why: "kfake keeps a member's previous epoch when the member starts revoking at its current epoch; Kafka sets the previous epoch to the current one then (updateMemberEpoch), so a heartbeat at the older epoch is fenced in Kafka and accepted by kfake",
		Diffs: []pattern{
			{API: "ConsumerGroupHeartbeat", Field: "error", Kfake: "NONE", Ours: "FENCED_MEMBER_EPOCH (The consumer group member has a smaller member epoch*"},
			{API: "ConsumerGroupDescribe", Field: "memberEpochs", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "state", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "assignments", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "ownership", Consequence: true},
		},
	},
	{
		ID: "K18", Class: kfakeBug, Stops: true,
		Why: "a static member rejoining after a -2 leave whose inherited assignment must shrink: kfake reconciles it with no owned list (as if it still owned everything), so it stays at epoch 0 revoking; Kafka reads the join's empty owned list and moves it to the target epoch at once",
		Diffs: []pattern{
			{API: "ConsumerGroupHeartbeat", Field: "memberEpoch", Kfake: "0", Values: func(_, o string) bool { return o != "0" }},
			{API: "ConsumerGroupDescribe", Field: "memberEpochs", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "state", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "assignments", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "ownership", Consequence: true},
			{API: "ConsumerGroupHeartbeat", Field: "assignment", Consequence: true},
		},
	},
	{
		ID: "K17", Class: kfakeBug, Stops: true,
		Why: "kfake leaves a static member parked at epoch -2 out of the target assignment, so its partitions are targeted to others (who wait for them) and it comes back to its old, stale target (and with only parked members left, the target epoch is not advanced at all); Kafka keeps the parked member in the target",
		Diffs: []pattern{
			{API: "ConsumerGroupHeartbeat", Field: "assignment", Context: "was-parked"},
			{API: "ConsumerGroupHeartbeat", Field: "memberEpoch", Context: "was-parked"},
			{API: "ConsumerGroupHeartbeat", Field: "assignmentSent", Context: "was-parked"},
			{API: "ConsumerGroupDescribe", Field: "assignmentEpoch", Context: "was-parked"},
			{API: "ConsumerGroupHeartbeat", Field: "error", Context: "was-parked"},
			{API: "ConsumerGroupDescribe", Field: "assignments", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "memberEpochs", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "state", Context: "was-parked"},
		},
	},
	{
		ID: "K19", Class: deliberate, Stops: true,
		Why: "a member that changes its subscription while revoking: kfake takes the partitions of topics it no longer subscribes to out of its assignment at once (a later Kafka behaviour); the October 2024 Kafka our core follows keeps them until the new target revokes them",
		Diffs: []pattern{
			{API: "ConsumerGroupHeartbeat", Field: "assignment", Context: "resubscribed", Values: func(k, o string) bool {
				ks, err1 := spec.ParseSet(k)
				os, err2 := spec.ParseSet(o)
				return err1 == nil && err2 == nil && !ks.Equal(os) && ks.Minus(os).IsEmpty()
			}},
			{API: "ConsumerGroupHeartbeat", Field: "memberEpoch", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "state", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "memberEpochs", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "assignments", Consequence: true},
		},
	},
	{
		ID: "K20", Class: kfakeBug, Stops: true,
		Why: "kfake lets a static member rejoin (epoch 0) under its own member id while that incarnation is still active; Kafka answers UNRELEASED_INSTANCE_ID unless the old one left with -2",
		Diffs: []pattern{
			{API: "ConsumerGroupHeartbeat", Field: "error", Kfake: "NONE", Ours: "UNRELEASED_INSTANCE_ID*"},
			{API: "ConsumerGroupDescribe", Field: "memberEpochs", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "state", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "assignments", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "groupEpoch", Consequence: true},
			{API: "ConsumerGroupDescribe", Field: "assignmentEpoch", Consequence: true},
		},
	},
	{
		ID: "K5", Class: deliberate,
		Why: "kfake computes the new target assignment in the leave or fence itself; Kafka bumps the group epoch and computes the target on the next heartbeat (the group is ASSIGNING meanwhile)",
		Diffs: []pattern{
			{API: "ConsumerGroupDescribe", Field: "state", Ours: "assigning"},
			{API: "ConsumerGroupDescribe", Field: "assignmentEpoch", Context: "target-behind"},
		},
	},
}

// classify returns the ids of the expected rows the diffs match, sorted
// and distinct, and the diffs no row matches. A diff is explained by the
// first row whose plain patterns match it; a diff none explains is then
// explained by the Consequence patterns of a row that explained another
// diff of the same step (a consequence of that difference).
func classify(diffs []diff) (ids []string, unknown []diff) {
	type at struct {
		group string
		step  int
	}
	rows := map[at][]int{}
	add := func(i int) {
		if !slices.Contains(ids, expectedDiffs[i].ID) {
			ids = append(ids, expectedDiffs[i].ID)
		}
	}
	var rest []diff
	for _, d := range diffs {
		i := slices.IndexFunc(expectedDiffs, func(e expected) bool { return e.matches(d) })
		if i < 0 {
			rest = append(rest, d)
			continue
		}
		add(i)
		if k := (at{d.Group, d.Step}); !slices.Contains(rows[k], i) {
			rows[k] = append(rows[k], i)
		}
	}
	for _, d := range rest {
		i := slices.IndexFunc(rows[at{d.Group, d.Step}], func(r int) bool { return expectedDiffs[r].matchesAs(d, true) })
		if i < 0 {
			unknown = append(unknown, d)
		}
	}
	slices.Sort(ids)
	return ids, unknown
}

// stopper returns the id of the first expected row with Stops that the
// diffs show, or "".
func stopper(diffs []diff) string {
	ids, _ := classify(diffs)
	for _, id := range ids {
		if i := slices.IndexFunc(expectedDiffs, func(e expected) bool { return e.ID == id }); expectedDiffs[i].Stops {
			return id
		}
	}
	return ""
}

// checkDiffs fails t for every unknown difference and, when want is not
// nil, unless exactly the expected rows want showed.
func checkDiffs(t harnessT, diffs []diff, want []string) {
	t.Helper()
	ids, unknown := classify(diffs)
	for _, d := range unknown {
		t.Errorf("new difference: %s", d)
	}
	if want != nil {
		want = slices.Sorted(slices.Values(want))
		if !slices.Equal(ids, want) {
			t.Errorf("expected differences %v, got %v", want, ids)
		}
	}
	for _, d := range diffs {
		t.Logf("difference: %s", d)
	}
}

// TestEveryExpectedDifferenceHasASequence makes sure each row of
// expectedDiffs is shown by a hand-written sequence (whose test then fails
// if it stops showing it), and that the ids are distinct.
func TestEveryExpectedDifferenceHasASequence(t *testing.T) {
	shown := map[string]bool{}
	for _, sq := range classicSequences {
		for _, id := range sq.want {
			shown[id] = true
		}
	}
	for _, sq := range ngSequences {
		for _, id := range sq.want {
			shown[id] = true
		}
	}
	seen := map[string]bool{}
	for _, e := range expectedDiffs {
		if seen[e.ID] {
			t.Errorf("row %s appears twice", e.ID)
		}
		seen[e.ID] = true
		if !shown[e.ID] {
			t.Errorf("row %s (%s) is shown by no hand-written sequence", e.ID, e.Why)
		}
		if e.Class != kfakeBug && e.Class != deliberate && e.Class != oursBug {
			t.Errorf("row %s has no classification", e.ID)
		}
	}
	for id := range shown {
		if !seen[id] {
			t.Errorf("a sequence expects %s, which is not a row", id)
		}
	}
}
