package kwire

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kmsg"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

func TestDescribeRequestsRoundTrip(t *testing.T) {
	forEachVersion(t, maxDescribeGroups, func(t *rapid.T, v int16) {
		d := DescribeGroups{Groups: rapid.SliceOfN(rapid.StringMatching(`[a-z]{0,3}`), 0, 3).Draw(t, "groups"), IncludeAuthorizedOperations: rapid.Bool().Draw(t, "ops")}
		k, err := DescribeGroupsRequestToKafka(v, d)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := DescribeGroupsRequestFromKafka(throughBytes(t, v, k, new(kmsg.DescribeGroupsRequest)))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		want := DescribeGroups{Groups: nilIfEmpty(d.Groups), IncludeAuthorizedOperations: v >= 3 && d.IncludeAuthorizedOperations}
		same(t, "DescribeGroupsRequest", v, want, got)
	})
	forEachVersion(t, maxConsumerGroupDescribe, func(t *rapid.T, v int16) {
		d := ConsumerGroupDescribe{Groups: rapid.SliceOfN(rapid.StringMatching(`[a-z]{0,3}`), 0, 3).Draw(t, "groups"), IncludeAuthorizedOperations: rapid.Bool().Draw(t, "ops")}
		k, err := ConsumerGroupDescribeRequestToKafka(v, d)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := ConsumerGroupDescribeRequestFromKafka(throughBytes(t, v, k, new(kmsg.ConsumerGroupDescribeRequest)))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		d.Groups = nilIfEmpty(d.Groups)
		same(t, "ConsumerGroupDescribeRequest", v, d, got)
	})
}

func genDescribedGroup(t *rapid.T) DescribedGroup {
	g := DescribedGroup{Group: genString(t, "group"), Found: GroupFound(rapid.IntRange(0, 2).Draw(t, "found"))}
	if rapid.IntRange(0, 5).Draw(t, "error") == 0 {
		g.Error = genCode(t, "code")
	}
	d := classic.GroupDescription{
		State: classic.GroupState(rapid.IntRange(0, 3).Draw(t, "state")), Generation: spec.Generation(rapid.Int32().Draw(t, "gen")),
		ProtocolType: genString(t, "type"), Protocol: genString(t, "protocol"), Leader: genMemberID(t, "leader"),
		Pending: []spec.MemberID{"p-1"},
	}
	for range rapid.IntRange(0, 3).Draw(t, "members") {
		d.Members = append(d.Members, classic.MemberDescription{
			ID: genMemberID(t, "id"), InstanceID: genString(t, "instance"), ClientID: genString(t, "client"), ClientHost: genString(t, "host"),
			SessionTimeout: 10, RebalanceTimeout: 20, Protocols: []classic.ProtocolMetadata{{Name: "x"}},
			Metadata: genMetadata(t, "md"), Assignment: genMetadata(t, "a"), AwaitingJoin: true, AwaitingSync: true,
		})
	}
	g.Description = d
	return g
}

// carriedDescribedGroup is what a DescribeGroupsResponse at v keeps of g.
func carriedDescribedGroup(v int16, g DescribedGroup) DescribedGroup {
	out := DescribedGroup{Group: g.Group}
	switch {
	case g.Error == spec.GroupIDNotFound:
		out.Found = NotFound
	case g.Error != spec.None:
		out.Error = g.Error
	case g.Found == OtherFamily && v >= 6:
		out.Found = OtherFamily
	case g.Found != Found:
		out.Found = NotFound
	default:
		d := g.Description
		stable := d.State == classic.GroupStable
		out.Description = classic.GroupDescription{State: d.State, ProtocolType: d.ProtocolType}
		if stable {
			out.Description.Protocol = d.Protocol
		}
		for _, m := range d.Members {
			md := classic.MemberDescription{ID: m.ID, ClientID: m.ClientID, ClientHost: m.ClientHost, Assignment: m.Assignment}
			if v >= 4 {
				md.InstanceID = m.InstanceID
			}
			if stable {
				md.Metadata = m.Metadata
			}
			out.Description.Members = append(out.Description.Members, md)
		}
	}
	return out
}

func TestDescribeGroupsResponseRoundTrip(t *testing.T) {
	forEachVersion(t, maxDescribeGroups, func(t *rapid.T, v int16) {
		var groups, want []DescribedGroup
		for range rapid.IntRange(0, 3).Draw(t, "groups") {
			g := genDescribedGroup(t)
			groups = append(groups, g)
			want = append(want, carriedDescribedGroup(v, g))
		}
		k, err := DescribeGroupsResponseToKafka(v, groups)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := DescribeGroupsResponseFromKafka(throughBytes(t, v, k, new(kmsg.DescribeGroupsResponse)))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "DescribeGroupsResponse", v, want, got)
	})
}

// TestDescribeGroupsKafkaAnswers pins what Kafka answers: the dead group
// for an unknown id (NONE below v6, GROUP_ID_NOT_FOUND with a message
// from v6), the same for a consumer group, no protocol or metadata
// outside Stable, and AuthorizedOperations not computed.
func TestDescribeGroupsKafkaAnswers(t *testing.T) {
	desc := classic.GroupDescription{State: classic.GroupCompletingRebalance, ProtocolType: "consumer", Protocol: "range",
		Members: []classic.MemberDescription{{ID: "m-1", InstanceID: "i", ClientID: "c", ClientHost: "/h", Metadata: "md", Assignment: "as"}}}
	groups := []DescribedGroup{{Group: "nope", Found: NotFound}, {Group: "cg", Found: OtherFamily}, {Group: "g", Description: desc}}
	for _, tc := range []struct {
		v             int16
		code          int16
		msgs          [2]*string
		instance      *string
		authorizedOps bool
	}{
		{0, 0, [2]*string{nil, nil}, nil, false},
		{3, 0, [2]*string{nil, nil}, nil, true},
		{5, 0, [2]*string{nil, nil}, ptr("i"), true},
		{6, int16(spec.GroupIDNotFound), [2]*string{ptr("Group nope not found."), ptr("Group cg is not a classic group.")}, ptr("i"), true},
	} {
		k, err := DescribeGroupsResponseToKafka(tc.v, groups)
		if err != nil {
			t.Fatal(err)
		}
		k = throughBytes(t, tc.v, k, new(kmsg.DescribeGroupsResponse))
		for i := range 2 {
			g := k.Groups[i]
			if g.State != "Dead" || g.ErrorCode != tc.code || !cmp.Equal(g.ErrorMessage, tc.msgs[i]) || len(g.Members) != 0 {
				t.Errorf("v%d %s: state %q code %d message %v", tc.v, g.Group, g.State, g.ErrorCode, deref(g.ErrorMessage))
			}
		}
		g := k.Groups[2]
		if g.State != "CompletingRebalance" || g.Protocol != "" || g.ProtocolType != "consumer" || string(g.Members[0].ProtocolMetadata) != "" ||
			string(g.Members[0].MemberAssignment) != "as" || !cmp.Equal(g.Members[0].InstanceID, tc.instance) {
			t.Errorf("v%d: non-stable group %+v", tc.v, g)
		}
		if tc.authorizedOps && g.AuthorizedOperations != AuthorizedOperationsNotRequested {
			t.Errorf("v%d: authorized operations %d", tc.v, g.AuthorizedOperations)
		}
	}
	desc.State = classic.GroupStable
	k, err := DescribeGroupsResponseToKafka(5, []DescribedGroup{{Group: "g", Description: desc}})
	if err != nil {
		t.Fatal(err)
	}
	if g := k.Groups[0]; g.State != "Stable" || g.Protocol != "range" || string(g.Members[0].ProtocolMetadata) != "md" {
		t.Errorf("stable group: %+v", g)
	}
}

func genConsumerGroup(t *rapid.T) ConsumerGroupDescription {
	g := ConsumerGroupDescription{Group: genString(t, "group"), Found: GroupFound(rapid.IntRange(0, 2).Draw(t, "found")),
		State:      rapid.SampledFrom([]string{"Empty", "Assigning", "Reconciling", "Stable"}).Draw(t, "state"),
		GroupEpoch: spec.Epoch(rapid.Int32().Draw(t, "epoch")), AssignmentEpoch: spec.Epoch(rapid.Int32().Draw(t, "aepoch")),
		AssignorName: genString(t, "assignor")}
	if rapid.IntRange(0, 5).Draw(t, "error") == 0 {
		g.Error = genCode(t, "code")
	}
	for range rapid.IntRange(0, 3).Draw(t, "members") {
		g.Members = append(g.Members, ConsumerGroupMember{
			MemberID: genMemberID(t, "id"), InstanceID: genString(t, "instance"), RackID: genString(t, "rack"),
			MemberEpoch: spec.Epoch(rapid.Int32().Draw(t, "mepoch")), ClientID: genString(t, "client"), ClientHost: genString(t, "host"),
			SubscribedTopicNames: rapid.SliceOfN(rapid.SampledFrom([]string{"a", "orphan", "b"}), 0, 3).Draw(t, "subs"),
			Assignment:           genSet(t, "assigned"), TargetAssignment: genSet(t, "target"),
		})
	}
	return g
}

// carriedConsumerGroup is what a ConsumerGroupDescribeResponse keeps of
// g (every version carries the same; v1's MemberType is not read back).
func carriedConsumerGroup(g ConsumerGroupDescription) ConsumerGroupDescription {
	out := ConsumerGroupDescription{Group: g.Group}
	switch {
	case g.Error == spec.GroupIDNotFound:
		out.Found = NotFound
	case g.Error != spec.None:
		out.Error = g.Error
	case g.Found != Found:
		out.Found = g.Found
	default:
		out = g
		var ms []ConsumerGroupMember
		for _, m := range g.Members {
			m.SubscribedTopicNames = nilIfEmpty(m.SubscribedTopicNames)
			m.Assignment, m.TargetAssignment = withIDs(m.Assignment), withIDs(m.TargetAssignment)
			ms = append(ms, m)
		}
		out.Members = ms
	}
	return out
}

func TestConsumerGroupDescribeResponseRoundTrip(t *testing.T) {
	forEachVersion(t, maxConsumerGroupDescribe, func(t *rapid.T, v int16) {
		var groups, want []ConsumerGroupDescription
		for range rapid.IntRange(0, 3).Draw(t, "groups") {
			g := genConsumerGroup(t)
			groups = append(groups, g)
			want = append(want, carriedConsumerGroup(g))
		}
		k, err := ConsumerGroupDescribeResponseToKafka(v, groups, testIDs)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := ConsumerGroupDescribeResponseFromKafka(throughBytes(t, v, k, new(kmsg.ConsumerGroupDescribeResponse)), testIDs)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "ConsumerGroupDescribeResponse", v, want, got)
	})
}

func TestConsumerGroupDescribeMapping(t *testing.T) {
	g := ConsumerGroupDescription{Group: "g", State: "Stable", GroupEpoch: 3, AssignmentEpoch: 3, AssignorName: "uniform",
		Members: []ConsumerGroupMember{{MemberID: "m", MemberEpoch: 3, SubscribedTopicNames: []string{"a"},
			Assignment: spec.NewSet(spec.TP("a", 1), spec.TP("orphan", 0)), TargetAssignment: spec.NewSet(spec.TP("a", 1))}}}
	for v := int16(0); v <= maxConsumerGroupDescribe; v++ {
		k, err := ConsumerGroupDescribeResponseToKafka(v, []ConsumerGroupDescription{g, {Group: "x", Found: NotFound}, {Group: "y", Found: OtherFamily}}, testIDs)
		if err != nil {
			t.Fatal(err)
		}
		k = throughBytes(t, v, k, new(kmsg.ConsumerGroupDescribeResponse))
		m := k.Groups[0].Members[0]
		wantType := int8(-1)
		if v >= 1 {
			wantType = 1
		}
		if m.InstanceID != nil || m.RackID != nil || m.SubscribedTopicRegex != nil || m.MemberType != wantType ||
			!cmp.Equal(m.Assignment.TopicPartitions, []kmsg.AssignmentTopicPartition{{TopicID: idA, Topic: "a", Partitions: []int32{1}}}, cmp.AllowUnexported(kmsg.Tags{})) {
			t.Errorf("v%d member: %+v", v, m)
		}
		if k.Groups[0].AuthorizedOperations != AuthorizedOperationsNotRequested {
			t.Errorf("v%d: authorized operations %d", v, k.Groups[0].AuthorizedOperations)
		}
		for i, msg := range []string{"Group x not found.", "Group y is not a consumer group"} {
			kg := k.Groups[i+1]
			if kg.ErrorCode != int16(spec.GroupIDNotFound) || deref(kg.ErrorMessage) != msg {
				t.Errorf("v%d %s: %d %v", v, kg.Group, kg.ErrorCode, deref(kg.ErrorMessage))
			}
		}
	}
}

// TestDescribeConsumerGroup fills a description from a real coordinator.
func TestDescribeConsumerGroup(t *testing.T) {
	if d := DescribeConsumerGroup(nil, "g", nil); d.Found != NotFound || d.Group != "g" {
		t.Fatalf("nil coordinator: %+v", d)
	}
	c, err := nextgen.NewCoordinator(nextgen.CoordinatorConfig{GroupID: "g", Topics: spec.Topics{"a": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if d := DescribeConsumerGroup(c, "g", nil); d.Found != NotFound {
		t.Fatalf("group not created yet: %+v", d)
	}
	join := nextgen.HeartbeatRequest{GroupID: "g", MemberID: "m-1", MemberEpoch: 0, RackID: ptr("r1"), RebalanceTimeoutMs: 30000,
		SubscribedTopicNames: []string{"a"}, SubscriptionSent: true, ServerAssignor: ptr("range"), OwnedSent: true}
	out := c.Step(node.Input{Now: 0, Event: nextgen.Receive{From: "A", Msg: join}})
	if len(out.Messages) != 1 {
		t.Fatalf("join: %s", out)
	}
	d := DescribeConsumerGroup(c, "g", map[spec.MemberID]Client{"m-1": {ID: "cid", Host: "/1.2.3.4"}})
	want := ConsumerGroupDescription{Group: "g", Found: Found, State: "Stable", GroupEpoch: 1, AssignmentEpoch: 1, AssignorName: "range",
		Members: []ConsumerGroupMember{{MemberID: "m-1", RackID: "r1", MemberEpoch: 1, ClientID: "cid", ClientHost: "/1.2.3.4",
			SubscribedTopicNames: []string{"a"}, Assignment: spec.Range("a", 0, 1), TargetAssignment: spec.Range("a", 0, 1)}}}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	// A static second member: the first must give up a partition, so the
	// group reconciles, and the first member's assignment still holds
	// what it has not revoked yet while its target is smaller.
	join2 := nextgen.HeartbeatRequest{GroupID: "g", MemberID: "m-2", MemberEpoch: 0, InstanceID: ptr("i2"), RebalanceTimeoutMs: 30000,
		SubscribedTopicNames: []string{"a"}, SubscriptionSent: true, OwnedSent: true}
	c.Step(node.Input{Now: 10, Event: nextgen.Receive{From: "B", Msg: join2}})
	d = DescribeConsumerGroup(c, "g", nil)
	if d.State != "Reconciling" || d.GroupEpoch != 2 || d.AssignmentEpoch != 2 || len(d.Members) != 2 {
		t.Fatalf("after the second join: %+v", d)
	}
	m1, m2 := d.Members[0], d.Members[1]
	if m1.MemberID != "m-1" || m1.ClientID != "" || m1.Assignment.Len()+m2.Assignment.Len() > 2 || m1.TargetAssignment.Len() != 1 ||
		m2.MemberID != "m-2" || m2.InstanceID != "i2" || m2.TargetAssignment.Len() != 1 {
		t.Fatalf("members: %+v", d.Members)
	}
	if _, err := ConsumerGroupDescribeResponseToKafka(0, []ConsumerGroupDescription{d}, testIDs); err != nil {
		t.Fatal(err)
	}
}

func TestDescribeBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil request", func() error { _, err := DescribeGroupsRequestFromKafka(nil); return err }(), "nil request"},
		{"nil response", func() error { _, err := DescribeGroupsResponseFromKafka(nil); return err }(), "nil response"},
		{"nil cg request", func() error { _, err := ConsumerGroupDescribeRequestFromKafka(nil); return err }(), "nil request"},
		{"nil cg response", func() error { _, err := ConsumerGroupDescribeResponseFromKafka(nil, testIDs); return err }(), "nil response"},
		{"v7", func() error {
			r := kmsg.NewPtrDescribeGroupsRequest()
			r.Version = 7
			_, err := DescribeGroupsRequestFromKafka(r)
			return err
		}(), "UNSUPPORTED_VERSION"},
		{"bad state", func() error {
			_, err := DescribeGroupsResponseToKafka(0, []DescribedGroup{{Description: classic.GroupDescription{State: 9}}})
			return err
		}(), "unknown state"},
		{"bad found", func() error { _, err := DescribeGroupsResponseToKafka(0, []DescribedGroup{{Found: 7}}); return err }(), "out of range"},
		{"bad cg found", func() error {
			_, err := ConsumerGroupDescribeResponseToKafka(0, []ConsumerGroupDescription{{Found: 7}}, testIDs)
			return err
		}(), "out of range"},
		{"cg nil ids", func() error { _, err := ConsumerGroupDescribeResponseToKafka(0, nil, nil); return err }(), "nil TopicIDs"},
		{"state not classic", func() error {
			r := kmsg.NewPtrDescribeGroupsResponse()
			r.Groups = []kmsg.DescribeGroupsResponseGroup{{Group: "g", State: "Assigning"}}
			_, err := DescribeGroupsResponseFromKafka(r)
			return err
		}(), `state "Assigning"`},
		{"cg topic without name", func() error {
			r := kmsg.NewPtrConsumerGroupDescribeResponse()
			r.Groups = []kmsg.ConsumerGroupDescribeResponseGroup{{Group: "g", Members: []kmsg.ConsumerGroupDescribeResponseGroupMember{
				{MemberID: "m", Assignment: kmsg.Assignment{TopicPartitions: []kmsg.AssignmentTopicPartition{{TopicID: ghostID, Partitions: []int32{0}}}}}}}}
			_, err := ConsumerGroupDescribeResponseFromKafka(r, testIDs)
			return err
		}(), "has no name"},
		{"cg negative partition", func() error {
			r := kmsg.NewPtrConsumerGroupDescribeResponse()
			r.Groups = []kmsg.ConsumerGroupDescribeResponseGroup{{Group: "g", Members: []kmsg.ConsumerGroupDescribeResponseGroupMember{
				{MemberID: "m", TargetAssignment: kmsg.Assignment{TopicPartitions: []kmsg.AssignmentTopicPartition{{Topic: "a", Partitions: []int32{-3}}}}}}}}
			_, err := ConsumerGroupDescribeResponseFromKafka(r, testIDs)
			return err
		}(), "partition -3"},
	} {
		if msg := mustFail(t, tc.name, tc.err); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q does not say %q", tc.name, msg, tc.want)
		}
	}
}
