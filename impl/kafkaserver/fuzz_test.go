package kafkaserver

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/impl"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// frozenClock never moves and never fires: the fuzz target's server sees
// every request at the same instant, so a request that changes nothing
// leaves every group's printed state (timers included) as it was.
type frozenClock struct{ at time.Time }

func (c frozenClock) Now() time.Time { return c.at }

func (frozenClock) AfterFunc(time.Duration, func()) impl.Timer { return stopped{} }

type stopped struct{}

func (stopped) Stop() bool { return true }

// mapTopics is a TopicSource over a fixed table.
type mapTopics map[string]int32

func (m mapTopics) TopicByName(name string) ([16]byte, int32, bool) {
	n, ok := m[name]
	return [16]byte{1, byte(len(name))}, n, ok
}

func (m mapTopics) TopicByID(id [16]byte) (string, int32, bool) {
	for name, n := range m {
		if id == [16]byte{1, byte(len(name))} {
			return name, n, true
		}
	}
	return "", 0, false
}

// fuzzServer is a server with a stable classic group "g" (member
// "c-f_1", generation 1) and a consumer group "n" (member "n1" at epoch
// 1), at a frozen instant.
func fuzzServer(t testing.TB) *Server {
	s, err := NewServer(Config{Topics: mapTopics{"t": 4}, Clock: frozenClock{time.Unix(1e9, 0)}, MemberIDPrefix: "f_"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	join := kmsg.NewPtrJoinGroupRequest()
	join.Version, join.Group, join.ProtocolType, join.SessionTimeoutMillis, join.RebalanceTimeoutMillis = 9, "g", "consumer", 10000, 10000
	join.Protocols = []kmsg.JoinGroupRequestProtocol{{Name: "range", Metadata: []byte{0, 0}}}
	resp, err := s.Handle(ctx, Client{ID: "c"}, join)
	if err != nil {
		t.Fatal(err)
	}
	join.MemberID = resp.(*kmsg.JoinGroupResponse).MemberID
	if _, err := s.Handle(ctx, Client{ID: "c"}, join); err != nil {
		t.Fatal(err)
	}
	sync := kmsg.NewPtrSyncGroupRequest()
	sync.Version, sync.Group, sync.MemberID, sync.Generation = 5, "g", join.MemberID, 1
	sync.GroupAssignment = []kmsg.SyncGroupRequestGroupAssignment{{MemberID: join.MemberID, MemberAssignment: []byte{0, 1}}}
	if _, err := s.Handle(ctx, Client{ID: "c"}, sync); err != nil {
		t.Fatal(err)
	}
	hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	hb.Group, hb.MemberID, hb.RebalanceTimeoutMillis = "n", "n1", 10000
	hb.SubscribedTopicNames, hb.Topics = []string{"t"}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	if _, err := s.Handle(ctx, Client{ID: "n"}, hb); err != nil {
		t.Fatal(err)
	}
	return s
}

// states prints every group's coordinator state and checks its
// invariants.
func states(t *testing.T, s *Server) map[string]string {
	out := map[string]string{}
	for _, id := range s.Groups() {
		if c := s.Classic(id); c != nil {
			c.Inspect(context.Background(), func(c *classic.Coordinator) {
				if err := c.CheckInvariants(); err != nil {
					t.Fatal(err)
				}
				out[id] = c.String()
			})
		}
		if n := s.NextGen(id); n != nil {
			n.Inspect(context.Background(), func(c *nextgen.Coordinator) {
				if err := c.CheckInvariants(); err != nil {
					t.Fatal(err)
				}
				out[id] = c.String()
			})
		}
	}
	return out
}

// rejected reports whether resp refuses everything it answers (every
// error code set), so that its request must have changed nothing; and
// readOnly keys never change anything.
func rejected(resp kmsg.Response) bool {
	all := func(codes ...int16) bool {
		for _, c := range codes {
			if c == 0 {
				return false
			}
		}
		return true
	}
	switch r := resp.(type) {
	case *kmsg.JoinGroupResponse:
		return r.ErrorCode != 0 && r.ErrorCode != int16(spec.MemberIDRequired)
	case *kmsg.SyncGroupResponse:
		return r.ErrorCode != 0
	case *kmsg.HeartbeatResponse:
		return r.ErrorCode != 0
	case *kmsg.ConsumerGroupHeartbeatResponse:
		return r.ErrorCode != 0
	case *kmsg.LeaveGroupResponse:
		codes := []int16{r.ErrorCode}
		if r.ErrorCode == 0 {
			codes = codes[:0]
			for _, m := range r.Members {
				codes = append(codes, m.ErrorCode)
			}
		}
		return len(codes) > 0 && all(codes...)
	case *kmsg.OffsetCommitResponse:
		var codes []int16
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				codes = append(codes, p.ErrorCode)
			}
		}
		return len(codes) > 0 && all(codes...)
	case *kmsg.DescribeGroupsResponse, *kmsg.ConsumerGroupDescribeResponse, *kmsg.ListGroupsResponse, *kmsg.OffsetFetchResponse, *kmsg.TxnOffsetCommitResponse:
		return true
	}
	return false
}

// FuzzServe is the request decoder path of a served connection, end to
// end: a frame of any bytes is parsed as the Front parses it (header,
// kmsg body), and if it is readable and a group API, the server answers it.
// It must never panic; every coordinator keeps its invariants; and a
// request that is refused (every error code set) or only reads changes no
// group's state: bad input never touches another member.
//
//	go test ./impl/kafkaserver -run '^$' -fuzz FuzzServe -fuzztime 60s
func FuzzServe(f *testing.F) {
	add := func(r kmsg.Request, version int16) {
		r.SetVersion(version)
		f.Add(frameOf(r.Key(), version, r.AppendTo(nil)))
	}
	join := kmsg.NewPtrJoinGroupRequest()
	join.Group, join.MemberID, join.ProtocolType, join.SessionTimeoutMillis = "g", "c-f_1", "connect", 10000
	join.Protocols = []kmsg.JoinGroupRequestProtocol{{Name: "range"}}
	for _, v := range []int16{0, 5, 9} {
		add(join, v)
	}
	hb := kmsg.NewPtrHeartbeatRequest()
	hb.Group, hb.MemberID, hb.Generation = "g", "c-f_1", 0
	add(hb, 4)
	sync := kmsg.NewPtrSyncGroupRequest()
	sync.Group, sync.MemberID, sync.Generation = "g", "x", 1
	add(sync, 5)
	leave := kmsg.NewPtrLeaveGroupRequest()
	leave.Group, leave.Members = "g", []kmsg.LeaveGroupRequestMember{{MemberID: "x"}}
	add(leave, 5)
	chb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	chb.Group, chb.MemberID, chb.MemberEpoch = "n", "n1", 7
	add(chb, 1)
	commit := kmsg.NewPtrOffsetCommitRequest()
	commit.Group, commit.MemberID, commit.Generation = "g", "c-f_1", 9
	commit.Topics = []kmsg.OffsetCommitRequestTopic{{Topic: "t", Partitions: []kmsg.OffsetCommitRequestTopicPartition{{Partition: 0, Offset: 1}}}}
	add(commit, 8)
	add(kmsg.NewPtrDescribeGroupsRequest(), 6)
	f.Add(frameOf(9999, 0, nil))
	f.Add([]byte{0, 0, 0, 2, 0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) < 4 {
			return
		}
		size := int(binary.BigEndian.Uint32(raw))
		if size != len(raw)-4 {
			return // readFrame would wait for more, or read a shorter frame
		}
		r, err := parse(frame{raw: raw, body: raw[4:]})
		if err != nil || r.req == nil {
			return // the connection is closed; nothing reached a group
		}
		s := fuzzServer(t)
		defer s.Close()
		if !s.Handles(r.key) {
			return
		}
		before := states(t, s)
		ctx, cancel := context.WithCancel(context.Background())
		reply, err := s.Serve(ctx, Client{ID: r.clientID}, r.req)
		if err != nil {
			cancel()
			return // unanswerable: the connection is closed
		}
		if !reply.Ready() {
			cancel() // parked: accepted, the answer comes later
			reply.Wait(ctx)
			states(t, s)
			return
		}
		resp, err := reply.Wait(ctx)
		cancel()
		if err != nil {
			t.Fatalf("a ready reply failed: %v", err)
		}
		after := states(t, s)
		if rejected(resp) {
			for id, was := range before {
				if after[id] != was {
					t.Fatalf("%s was refused but changed group %s:\nbefore:\n%s\nafter:\n%s", kmsg.NameForKey(r.key), id, was, after[id])
				}
			}
		}
	})
}
