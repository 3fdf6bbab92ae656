package conformance

import (
	"fmt"
	"slices"
	"strings"
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
	// Diffs are the differences the row explains: a diff is explained
	// when it matches one of them.
	Diffs []pattern
}

// pattern matches a diff: API, Field, Kfake and Ours must equal the
// diff's; an empty field matches anything; a field ending in "*" matches a
// prefix, one between two "*" a substring.
type pattern struct{ API, Field, Kfake, Ours string }

func (e expected) matches(d diff) bool {
	for _, p := range e.Diffs {
		if match(p.API, d.API) && match(p.Field, d.Field) && match(p.Kfake, d.Kfake) && match(p.Ours, d.Ours) {
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
		},
	},
	{
		ID: "K7", Class: deliberate,
		Why: "our core takes only member ids the client made (KIP-1082) and answers an empty MemberId at epoch 0 INVALID_REQUEST; kfake, like Kafka before 4.0, makes one up",
		Diffs: []pattern{
			{API: "ConsumerGroupHeartbeat", Field: "error", Kfake: "NONE", Ours: "INVALID_REQUEST (MemberId can't be empty.)"},
			{API: "ConsumerGroupDescribe", Field: "state", Kfake: "stable", Ours: "error GROUP_ID_NOT_FOUND"},
			{API: "ConsumerGroupDescribe", Field: "groupEpoch", Kfake: "1", Ours: "0"},
			{API: "ConsumerGroupDescribe", Field: "assignmentEpoch", Kfake: "1", Ours: "0"},
			{API: "ConsumerGroupDescribe", Field: "memberEpochs", Kfake: "client-*", Ours: ""},
		},
	},
	{
		ID: "K8", Class: kfakeBug,
		Why: "kfake accepts a ConsumerGroupHeartbeat at epoch -2 without InstanceId (fencing a dynamic member, parking a static one); Kafka answers INVALID_REQUEST \"InstanceId can't be null.\"",
		Diffs: []pattern{
			{API: "ConsumerGroupHeartbeat", Field: "error", Kfake: "NONE", Ours: "INVALID_REQUEST (InstanceId can't be null.)"},
			{API: "ConsumerGroupDescribe", Field: "state", Kfake: "empty", Ours: "stable"},
			{API: "ConsumerGroupDescribe", Field: "groupEpoch", Kfake: "2", Ours: "1"},
			{API: "ConsumerGroupDescribe", Field: "memberEpochs", Kfake: "", Ours: "member-a=1"},
			{API: "ConsumerGroupDescribe", Field: "memberEpochs", Kfake: "member-a=-2", Ours: "member-a=1"},
		},
	},
	{
		ID: "K9", Class: kfakeBug,
		Why: "kfake accepts a join (epoch 0) without RebalanceTimeoutMs (-1) or with a null or empty SubscribedTopicNames; Kafka answers INVALID_REQUEST",
		Diffs: []pattern{
			{API: "ConsumerGroupHeartbeat", Field: "error", Kfake: "NONE", Ours: "INVALID_REQUEST (RebalanceTimeoutMs must be provided in first request.)"},
			{API: "ConsumerGroupHeartbeat", Field: "error", Kfake: "NONE", Ours: "INVALID_REQUEST (SubscribedTopicNames must be set in first request.)"},
			{API: "ConsumerGroupDescribe", Field: "state", Kfake: "stable", Ours: "error GROUP_ID_NOT_FOUND"},
			{API: "ConsumerGroupDescribe", Field: "groupEpoch", Kfake: "1", Ours: "0"},
			{API: "ConsumerGroupDescribe", Field: "assignmentEpoch", Kfake: "1", Ours: "0"},
			{API: "ConsumerGroupDescribe", Field: "memberEpochs", Kfake: "member-a=1", Ours: ""},
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
		ID: "K5", Class: deliberate,
		Why: "kfake computes the new target assignment in the leave or fence itself; Kafka bumps the group epoch and computes the target on the next heartbeat (the group is ASSIGNING meanwhile)",
		Diffs: []pattern{
			{API: "ConsumerGroupDescribe", Field: "state", Ours: "assigning"},
			{API: "ConsumerGroupDescribe", Field: "assignmentEpoch"},
		},
	},
}

// classify returns the ids of the expected rows the diffs match, sorted
// and distinct, and the diffs no row matches. A difference in an answer is
// explained by the first row that matches it. A difference in the group's
// state seen after a request whose answer differed too is first matched
// against the rows that explained the answers of that step (it is most
// likely their consequence), then against every row.
func classify(diffs []diff) (ids []string, unknown []diff) {
	type at struct {
		group string
		step  int
	}
	roots := map[at][]int{}
	add := func(i int) {
		if !slices.Contains(ids, expectedDiffs[i].ID) {
			ids = append(ids, expectedDiffs[i].ID)
		}
	}
	for _, d := range diffs {
		if d.State {
			continue
		}
		i := slices.IndexFunc(expectedDiffs, func(e expected) bool { return e.matches(d) })
		if i < 0 {
			unknown = append(unknown, d)
			continue
		}
		add(i)
		roots[at{d.Group, d.Step}] = append(roots[at{d.Group, d.Step}], i)
	}
	for _, d := range diffs {
		if !d.State {
			continue
		}
		rows := roots[at{d.Group, d.Step}]
		i := -1
		for _, r := range rows {
			if expectedDiffs[r].matches(d) {
				i = r
				break
			}
		}
		if i < 0 {
			i = slices.IndexFunc(expectedDiffs, func(e expected) bool { return e.matches(d) })
		}
		if i < 0 {
			unknown = append(unknown, d)
			continue
		}
		add(i)
	}
	slices.Sort(ids)
	return ids, unknown
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
