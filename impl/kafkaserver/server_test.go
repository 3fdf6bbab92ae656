package kafkaserver

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// The server tests drive Server.Handle in-process with hand-built kmsg
// requests: the routing, family and error rules of the server itself,
// apart from any transport.

// tableTopics is a TopicSource whose topics a test can change.
type tableTopics struct {
	mu sync.Mutex
	n  map[string]int32
}

func (t *tableTopics) id(name string) [16]byte { return [16]byte{7, byte(len(name)), name[0]} }

func (t *tableTopics) TopicByName(name string) ([16]byte, int32, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, ok := t.n[name]
	if !ok {
		return [16]byte{}, 0, false
	}
	return t.id(name), n, true
}

func (t *tableTopics) TopicByID(id [16]byte) (string, int32, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for name, n := range t.n {
		if t.id(name) == id {
			return name, n, true
		}
	}
	return "", 0, false
}

func (t *tableTopics) set(name string, n int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n[name] = n
}

// handle answers one request or fails the test.
func handle[R kmsg.Response](t *testing.T, s *Server, req kmsg.Request) R {
	t.Helper()
	resp, err := s.Handle(context.Background(), Client{ID: "test"}, req)
	if err != nil {
		t.Fatalf("%s: %v", kmsg.NameForKey(req.Key()), err)
	}
	return resp.(R)
}

func joinReq(group, member, typ string) *kmsg.JoinGroupRequest {
	r := kmsg.NewPtrJoinGroupRequest()
	r.Version, r.Group, r.MemberID, r.ProtocolType, r.SessionTimeoutMillis, r.RebalanceTimeoutMillis = 3, group, member, typ, 10000, 10000
	r.Protocols = []kmsg.JoinGroupRequestProtocol{{Name: "range", Metadata: []byte{0}}}
	return r
}

func consumerJoin(group, member string, topics ...string) *kmsg.ConsumerGroupHeartbeatRequest {
	r := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	r.Group, r.MemberID, r.RebalanceTimeoutMillis = group, member, 10000
	r.SubscribedTopicNames, r.Topics = topics, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	return r
}

func commitReq(version int16, group, member string, gen int32, offset int64) *kmsg.OffsetCommitRequest {
	r := kmsg.NewPtrOffsetCommitRequest()
	r.Version, r.Group, r.MemberID, r.Generation = version, group, member, gen
	r.Topics = []kmsg.OffsetCommitRequestTopic{{Topic: "t", Partitions: []kmsg.OffsetCommitRequestTopicPartition{{Partition: 0, Offset: offset, LeaderEpoch: -1}}}}
	return r
}

func fetchReq(group string) *kmsg.OffsetFetchRequest {
	r := kmsg.NewPtrOffsetFetchRequest()
	r.Version, r.Group = 7, group
	r.Topics = []kmsg.OffsetFetchRequestTopic{{Topic: "t", Partitions: []int32{0}}}
	return r
}

func newTestServer(t *testing.T, topics *tableTopics) *Server {
	t.Helper()
	s, err := NewServer(Config{Topics: topics})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestServerRouting: the server's own rules, before any coordinator:
// blank group ids, groups that do not exist, the other family's groups,
// what needs no coordinator (transactional commits, listing, deleting).
func TestServerRouting(t *testing.T) {
	topics := &tableTopics{n: map[string]int32{"t": 2}}
	s := newTestServer(t, topics)
	code := func(c int16) spec.ErrorCode { return spec.ErrorCode(c) }
	hb := kmsg.NewPtrHeartbeatRequest()
	hb.Group, hb.MemberID = "nowhere", "x"
	sync := kmsg.NewPtrSyncGroupRequest()
	sync.Group, sync.MemberID = "nowhere", "x"
	leave := kmsg.NewPtrLeaveGroupRequest()
	leave.Version, leave.Group = 3, "nowhere"
	leave.Members = []kmsg.LeaveGroupRequestMember{{MemberID: "x"}}
	regex := consumerJoin("c", "m", "t")
	regex.Version, regex.SubscribedTopicRegex = 1, kmsg.StringPtr("t.*")
	describe := kmsg.NewPtrDescribeGroupsRequest()
	describe.Version, describe.Groups = 5, []string{""}
	cdescribe := kmsg.NewPtrConsumerGroupDescribeRequest()
	cdescribe.Groups = []string{""}
	del := kmsg.NewPtrDeleteGroupsRequest()
	del.Groups = []string{"", "nowhere"}
	txn := kmsg.NewPtrTxnOffsetCommitRequest()
	txn.Group = "g"
	txn.Topics = []kmsg.TxnOffsetCommitRequestTopic{{Topic: "t", Partitions: []kmsg.TxnOffsetCommitRequestTopicPartition{{Partition: 1}}}}

	for _, tc := range []struct {
		name string
		got  func() spec.ErrorCode
		want spec.ErrorCode
	}{
		{"JoinGroup with a blank group id", func() spec.ErrorCode {
			return code(handle[*kmsg.JoinGroupResponse](t, s, joinReq(" ", "", "consumer")).ErrorCode)
		}, spec.InvalidGroupID},
		{"JoinGroup with a member id for an unknown group", func() spec.ErrorCode {
			return code(handle[*kmsg.JoinGroupResponse](t, s, joinReq("nowhere", "x-1", "consumer")).ErrorCode)
		}, spec.UnknownMemberID},
		{"Heartbeat for an unknown group", func() spec.ErrorCode { return code(handle[*kmsg.HeartbeatResponse](t, s, hb).ErrorCode) }, spec.UnknownMemberID},
		{"SyncGroup for an unknown group", func() spec.ErrorCode { return code(handle[*kmsg.SyncGroupResponse](t, s, sync).ErrorCode) }, spec.UnknownMemberID},
		{"LeaveGroup for an unknown group", func() spec.ErrorCode { return code(handle[*kmsg.LeaveGroupResponse](t, s, leave).ErrorCode) }, spec.UnknownMemberID},
		{"ConsumerGroupHeartbeat with a blank group id", func() spec.ErrorCode {
			return code(handle[*kmsg.ConsumerGroupHeartbeatResponse](t, s, consumerJoin("", "m", "t")).ErrorCode)
		}, spec.InvalidRequest},
		{"ConsumerGroupHeartbeat with a regex", func() spec.ErrorCode {
			return code(handle[*kmsg.ConsumerGroupHeartbeatResponse](t, s, regex).ErrorCode)
		}, spec.InvalidRequest},
		{"OffsetCommit with a blank group id", func() spec.ErrorCode {
			return code(handle[*kmsg.OffsetCommitResponse](t, s, commitReq(8, "", "", -1, 1)).Topics[0].Partitions[0].ErrorCode)
		}, spec.InvalidGroupID},
		{"OffsetCommit v9 with a generation to an unknown group", func() spec.ErrorCode {
			return code(handle[*kmsg.OffsetCommitResponse](t, s, commitReq(9, "nowhere", "x", 3, 1)).Topics[0].Partitions[0].ErrorCode)
		}, spec.GroupIDNotFound},
		{"OffsetCommit v8 with a generation to an unknown group", func() spec.ErrorCode {
			return code(handle[*kmsg.OffsetCommitResponse](t, s, commitReq(8, "nowhere", "x", 3, 1)).Topics[0].Partitions[0].ErrorCode)
		}, spec.IllegalGeneration},
		{"OffsetFetch with a blank group id", func() spec.ErrorCode {
			return code(handle[*kmsg.OffsetFetchResponse](t, s, fetchReq("")).ErrorCode)
		}, spec.InvalidGroupID},
		{"DescribeGroups of a blank group id", func() spec.ErrorCode {
			return code(handle[*kmsg.DescribeGroupsResponse](t, s, describe).Groups[0].ErrorCode)
		}, spec.InvalidGroupID},
		{"ConsumerGroupDescribe of a blank group id", func() spec.ErrorCode {
			return code(handle[*kmsg.ConsumerGroupDescribeResponse](t, s, cdescribe).Groups[0].ErrorCode)
		}, spec.InvalidGroupID},
		{"DeleteGroups of a blank group id", func() spec.ErrorCode {
			return code(handle[*kmsg.DeleteGroupsResponse](t, s, del).Groups[0].ErrorCode)
		}, spec.InvalidGroupID},
		{"DeleteGroups of an unknown group", func() spec.ErrorCode {
			return code(handle[*kmsg.DeleteGroupsResponse](t, s, del).Groups[1].ErrorCode)
		}, spec.GroupIDNotFound},
		{"TxnOffsetCommit", func() spec.ErrorCode {
			return code(handle[*kmsg.TxnOffsetCommitResponse](t, s, txn).Topics[0].Partitions[0].ErrorCode)
		}, spec.UnsupportedVersion},
	} {
		if got := tc.got(); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
	if groups := s.Groups(); len(groups) != 0 {
		t.Fatalf("refused requests created groups: %v", groups)
	}
	if _, err := s.Handle(context.Background(), Client{}, kmsg.NewPtrFetchRequest()); !errors.Is(err, ErrNotHandled) {
		t.Errorf("a Fetch request: %v, want ErrNotHandled", err)
	}
	if _, err := s.Serve(context.Background(), Client{}, nil); err == nil {
		t.Error("a nil request was served")
	}
	s.Close()
	if _, err := s.Handle(context.Background(), Client{}, joinReq("g", "", "consumer")); err == nil {
		t.Error("a closed server answered")
	}
}

// TestNewServerRefuses: a server needs a TopicSource and configurations
// its coordinators accept.
func TestNewServerRefuses(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{Topics: &tableTopics{}, NextGen: nextgen.CoordinatorConfig{SessionTimeout: 1000, HeartbeatInterval: 2000}},
		{Topics: &tableTopics{}, MemberIDPrefix: "a-b"},
	} {
		if _, err := NewServer(cfg); err == nil {
			t.Errorf("NewServer(%+v) accepted", cfg)
		}
	}
}

// TestFamilyChanges: an empty group of one family is taken over by the
// other with its offsets, as Kafka does; a group with members is not.
func TestFamilyChanges(t *testing.T) {
	topics := &tableTopics{n: map[string]int32{"t": 2}}
	s := newTestServer(t, topics)
	fetched := func(group string) int64 {
		t.Helper()
		r := handle[*kmsg.OffsetFetchResponse](t, s, fetchReq(group))
		if r.ErrorCode != 0 || len(r.Topics) != 1 {
			t.Fatalf("fetch from %s: %+v", group, r)
		}
		return r.Topics[0].Partitions[0].Offset
	}
	// A commit from outside group management creates a simple classic
	// group.
	if c := handle[*kmsg.OffsetCommitResponse](t, s, commitReq(8, "g", "", -1, 5)).Topics[0].Partitions[0].ErrorCode; c != 0 {
		t.Fatalf("simple commit: %s", spec.ErrorCode(c))
	}
	if s.Classic("g") == nil || fetched("g") != 5 {
		t.Fatal("no simple group with the offset")
	}
	// A consumer member takes the empty classic group over.
	if r := handle[*kmsg.ConsumerGroupHeartbeatResponse](t, s, consumerJoin("g", "m", "t")); r.ErrorCode != 0 || r.MemberEpoch != 1 {
		t.Fatalf("join: %+v", r)
	}
	if s.Classic("g") != nil || s.NextGen("g") == nil || fetched("g") != 5 {
		t.Fatal("the consumer group did not take over the classic one with its offsets")
	}
	// While it has a member, a classic JoinGroup is refused and the
	// listing shows it filtered by state and type.
	if c := handle[*kmsg.JoinGroupResponse](t, s, joinReq("g", "", "consumer")).ErrorCode; spec.ErrorCode(c) != spec.InconsistentGroupProtocol {
		t.Fatalf("classic join to a consumer group with a member: %s", spec.ErrorCode(c))
	}
	list := kmsg.NewPtrListGroupsRequest()
	list.Version = 5
	for _, tc := range []struct {
		states, types []string
		want          int
	}{{nil, nil, 1}, {[]string{"STABLE"}, nil, 1}, {[]string{"Empty"}, nil, 0}, {nil, []string{"Consumer"}, 1}, {nil, []string{"classic"}, 0}} {
		list.StatesFilter, list.TypesFilter = tc.states, tc.types
		if r := handle[*kmsg.ListGroupsResponse](t, s, list); len(r.Groups) != tc.want || (tc.want == 1 && (r.Groups[0].GroupType != "consumer" || r.Groups[0].GroupState != "Stable")) {
			t.Errorf("ListGroups states=%v types=%v: %+v", tc.states, tc.types, r.Groups)
		}
	}
	// The member leaves; a classic join takes the empty group back.
	leave := consumerJoin("g", "m")
	leave.MemberEpoch, leave.SubscribedTopicNames, leave.Topics, leave.RebalanceTimeoutMillis = -1, nil, nil, -1
	if r := handle[*kmsg.ConsumerGroupHeartbeatResponse](t, s, leave); r.ErrorCode != 0 {
		t.Fatalf("leave: %+v", r)
	}
	if r := handle[*kmsg.JoinGroupResponse](t, s, joinReq("g", "", "consumer")); r.ErrorCode != 0 {
		t.Fatalf("classic join to the empty consumer group: %s", spec.ErrorCode(r.ErrorCode))
	}
	if s.NextGen("g") != nil || s.Classic("g") == nil || fetched("g") != 5 {
		t.Fatal("the classic group did not take over the consumer one with its offsets")
	}
}

// TestTopicsChanged: a consumer group's coordinator sees a topic grow once
// the server is told topics changed, and not before (the server caches
// what the TopicSource said).
func TestTopicsChanged(t *testing.T) {
	topics := &tableTopics{n: map[string]int32{"t": 2}}
	s := newTestServer(t, topics)
	r := handle[*kmsg.ConsumerGroupHeartbeatResponse](t, s, consumerJoin("g", "m", "t"))
	if r.ErrorCode != 0 || r.Assignment == nil || len(r.Assignment.Topics[0].Partitions) != 2 {
		t.Fatalf("join: %+v", r)
	}
	owned := func() *kmsg.ConsumerGroupHeartbeatRequest {
		h := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		h.Group, h.MemberID, h.MemberEpoch, h.RebalanceTimeoutMillis = "g", "m", r.MemberEpoch, -1
		for _, at := range r.Assignment.Topics {
			h.Topics = append(h.Topics, kmsg.ConsumerGroupHeartbeatRequestTopic{TopicID: at.TopicID, Partitions: at.Partitions})
		}
		return h
	}
	topics.set("t", 4)
	if r2 := handle[*kmsg.ConsumerGroupHeartbeatResponse](t, s, owned()); r2.MemberEpoch != r.MemberEpoch {
		t.Fatalf("the group moved before the server was told: %+v", r2)
	}
	s.TopicsChanged()
	r2 := handle[*kmsg.ConsumerGroupHeartbeatResponse](t, s, owned())
	if r2.ErrorCode != 0 || r2.MemberEpoch <= r.MemberEpoch || r2.Assignment == nil || len(r2.Assignment.Topics[0].Partitions) != 4 {
		t.Fatalf("after TopicsChanged: %+v", r2)
	}
}
