package kwire

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kmsg"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// carriedHeartbeatRequest is what a ConsumerGroupHeartbeatRequest keeps
// of req (every version carries the same fields): no Seq; the list of a
// field not sent is nil and that of a field sent empty non-nil; owned
// partitions of topics without an id are dropped.
func carriedHeartbeatRequest(req nextgen.HeartbeatRequest) nextgen.HeartbeatRequest {
	req.Seq = 0
	if !req.SubscriptionSent {
		req.SubscribedTopicNames = nil
	} else if req.SubscribedTopicNames == nil {
		req.SubscribedTopicNames = []string{}
	}
	if !req.OwnedSent {
		req.TopicPartitions = nil
	} else {
		req.TopicPartitions = withIDs(req.TopicPartitions)
	}
	return req
}

func genHeartbeatRequest(t *rapid.T) nextgen.HeartbeatRequest {
	req := nextgen.HeartbeatRequest{
		Seq: rapid.Uint64().Draw(t, "seq"), GroupID: genString(t, "group"), MemberID: genMemberID(t, "member"),
		MemberEpoch: spec.Epoch(rapid.Int32().Draw(t, "epoch")), InstanceID: genOptString(t, "instance"), RackID: genOptString(t, "rack"),
		RebalanceTimeoutMs: rapid.Int32().Draw(t, "rebalance"), ServerAssignor: genOptString(t, "assignor"),
		SubscriptionSent: rapid.Bool().Draw(t, "subscription-sent"), OwnedSent: rapid.Bool().Draw(t, "owned-sent"),
	}
	if rapid.Bool().Draw(t, "names") {
		req.SubscribedTopicNames = rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "orphan", ""}), 0, 4).Draw(t, "subscribed")
	}
	req.TopicPartitions = genSet(t, "owned")
	return req
}

func TestConsumerGroupHeartbeatRequestRoundTrip(t *testing.T) {
	forEachVersion(t, maxConsumerGroupHeartbeat, func(t *rapid.T, v int16) {
		req := genHeartbeatRequest(t)
		k, err := ConsumerGroupHeartbeatRequestToKafka(v, req, testIDs)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := ConsumerGroupHeartbeatRequestFromKafka(throughBytes(t, v, k, new(kmsg.ConsumerGroupHeartbeatRequest)), testIDs)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "ConsumerGroupHeartbeatRequest", v, carriedHeartbeatRequest(req), got)
	})
}

func carriedHeartbeatResponse(resp nextgen.HeartbeatResponse) nextgen.HeartbeatResponse {
	resp.Seq = 0
	if !resp.AssignmentSent {
		resp.Assignment = nil
	} else {
		resp.Assignment = withIDs(resp.Assignment)
	}
	return resp
}

func TestConsumerGroupHeartbeatResponseRoundTrip(t *testing.T) {
	forEachVersion(t, maxConsumerGroupHeartbeat, func(t *rapid.T, v int16) {
		resp := nextgen.HeartbeatResponse{
			Seq: rapid.Uint64().Draw(t, "seq"), Error: genCode(t, "error"), ErrorMessage: genString(t, "message"),
			MemberID: genMemberID(t, "member"), MemberEpoch: spec.Epoch(rapid.Int32().Draw(t, "epoch")),
			HeartbeatIntervalMs: rapid.Int32().Draw(t, "interval"), Assignment: genSet(t, "assignment"),
			AssignmentSent: rapid.Bool().Draw(t, "sent"),
		}
		k, err := ConsumerGroupHeartbeatResponseToKafka(v, resp, testIDs)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := ConsumerGroupHeartbeatResponseFromKafka(throughBytes(t, v, k, new(kmsg.ConsumerGroupHeartbeatResponse)), testIDs)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "ConsumerGroupHeartbeatResponse", v, carriedHeartbeatResponse(resp), got)
	})
}

// TestConsumerGroupHeartbeatNullable pins null versus empty on every
// nullable field of the request, in both directions, and the by-id
// mapping of topics.
func TestConsumerGroupHeartbeatNullable(t *testing.T) {
	empty := ""
	for _, tc := range []struct {
		name string
		kmsg func(r *kmsg.ConsumerGroupHeartbeatRequest)
		want nextgen.HeartbeatRequest
	}{
		{"all null", func(r *kmsg.ConsumerGroupHeartbeatRequest) {},
			nextgen.HeartbeatRequest{RebalanceTimeoutMs: -1}},
		{"all sent empty", func(r *kmsg.ConsumerGroupHeartbeatRequest) {
			r.InstanceID, r.RackID, r.ServerAssignor = &empty, &empty, &empty
			r.SubscribedTopicNames = []string{}
			r.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
		}, nextgen.HeartbeatRequest{RebalanceTimeoutMs: -1, InstanceID: ptr(""), RackID: ptr(""), ServerAssignor: ptr(""),
			SubscribedTopicNames: []string{}, SubscriptionSent: true, OwnedSent: true}},
		{"values", func(r *kmsg.ConsumerGroupHeartbeatRequest) {
			r.Group, r.MemberID, r.MemberEpoch, r.RebalanceTimeoutMillis = "g", "m", 7, 30000
			r.InstanceID, r.RackID, r.ServerAssignor = ptr("i"), ptr("r1"), ptr("range")
			r.SubscribedTopicNames = []string{"b", "a"}
			r.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{
				{TopicID: idB, Partitions: []int32{2, 0}},
				{TopicID: ghostID, Partitions: []int32{1}}, // unknown id: dropped
				{TopicID: idA, Partitions: []int32{3, -1}}, // negative partition: dropped
			}
		}, nextgen.HeartbeatRequest{GroupID: "g", MemberID: "m", MemberEpoch: 7, RebalanceTimeoutMs: 30000,
			InstanceID: ptr("i"), RackID: ptr("r1"), ServerAssignor: ptr("range"),
			SubscribedTopicNames: []string{"b", "a"}, SubscriptionSent: true, OwnedSent: true,
			TopicPartitions: spec.NewSet(spec.TP("a", 3), spec.TP("b", 0), spec.TP("b", 2))}},
		{"only unknown topics owned: sent, and empty", func(r *kmsg.ConsumerGroupHeartbeatRequest) {
			r.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{{TopicID: ghostID, Partitions: []int32{0}}}
		}, nextgen.HeartbeatRequest{RebalanceTimeoutMs: -1, OwnedSent: true}},
	} {
		for v := int16(0); v <= maxConsumerGroupHeartbeat; v++ {
			r := kmsg.NewPtrConsumerGroupHeartbeatRequest()
			r.Version = v
			tc.kmsg(r)
			got, err := ConsumerGroupHeartbeatRequestFromKafka(throughBytes(t, v, r, new(kmsg.ConsumerGroupHeartbeatRequest)), testIDs)
			if err != nil {
				t.Fatalf("%s v%d: %v", tc.name, v, err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s v%d (-want +got):\n%s", tc.name, v, d)
			}
			back, err := ConsumerGroupHeartbeatRequestToKafka(v, got, testIDs)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []struct {
				what      string
				wire, got bool
			}{
				{"InstanceID", r.InstanceID == nil, back.InstanceID == nil},
				{"RackID", r.RackID == nil, back.RackID == nil},
				{"ServerAssignor", r.ServerAssignor == nil, back.ServerAssignor == nil},
				{"SubscribedTopicNames", r.SubscribedTopicNames == nil, back.SubscribedTopicNames == nil},
				{"Topics", r.Topics == nil, back.Topics == nil},
			} {
				if f.wire != f.got {
					t.Errorf("%s v%d: %s null=%t came back null=%t", tc.name, v, f.what, f.wire, f.got)
				}
			}
		}
	}
}

func TestConsumerGroupHeartbeatResponseMapping(t *testing.T) {
	k, err := ConsumerGroupHeartbeatResponseToKafka(1, nextgen.HeartbeatResponse{Error: spec.FencedMemberEpoch, ErrorMessage: "fenced"}, testIDs)
	if err != nil {
		t.Fatal(err)
	}
	if k.MemberID != nil || k.Assignment != nil || deref(k.ErrorMessage) != "fenced" || k.ErrorCode != int16(spec.FencedMemberEpoch) {
		t.Errorf("error response: %+v", k)
	}
	k, err = ConsumerGroupHeartbeatResponseToKafka(0, nextgen.HeartbeatResponse{MemberID: "m", MemberEpoch: 3, HeartbeatIntervalMs: 5000,
		AssignmentSent: true, Assignment: spec.NewSet(spec.TP("b", 1), spec.TP("orphan", 0), spec.TP("a", 2), spec.TP("a", 0))}, testIDs)
	if err != nil {
		t.Fatal(err)
	}
	want := []kmsg.ConsumerGroupHeartbeatResponseAssignmentTopic{{TopicID: idA, Partitions: []int32{0, 2}}, {TopicID: idB, Partitions: []int32{1}}}
	if k.ErrorMessage != nil || deref(k.MemberID) != "m" || k.Assignment == nil || !cmp.Equal(want, k.Assignment.Topics, cmp.AllowUnexported(kmsg.Tags{})) {
		t.Errorf("assignment response: %+v %+v", k, k.Assignment)
	}
	k, err = ConsumerGroupHeartbeatResponseToKafka(0, nextgen.HeartbeatResponse{MemberID: "m", AssignmentSent: true}, testIDs)
	if err != nil || k.Assignment == nil || len(k.Assignment.Topics) != 0 {
		t.Errorf("empty assignment must be sent empty, not null: %v %+v", err, k.Assignment)
	}
}

func TestConsumerGroupHeartbeatBadInput(t *testing.T) {
	t.Run("regex is reported, not dropped", func(t *testing.T) {
		for _, regex := range []string{"foo.*", ""} {
			r := kmsg.NewPtrConsumerGroupHeartbeatRequest()
			r.Version = 1
			r.SubscribedTopicRegex = ptr(regex)
			_, err := ConsumerGroupHeartbeatRequestFromKafka(throughBytes(t, 1, r, new(kmsg.ConsumerGroupHeartbeatRequest)), testIDs)
			var re *RequestError
			if !errors.As(err, &re) || re.Code != spec.InvalidRequest || re.Message != RegexNotSupported {
				t.Fatalf("regex %q: got %v", regex, err)
			}
		}
	})
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil request", func() error { _, err := ConsumerGroupHeartbeatRequestFromKafka(nil, testIDs); return err }(), "nil request"},
		{"nil ids", func() error {
			_, err := ConsumerGroupHeartbeatRequestFromKafka(kmsg.NewPtrConsumerGroupHeartbeatRequest(), nil)
			return err
		}(), "nil TopicIDs"},
		{"nil response", func() error { _, err := ConsumerGroupHeartbeatResponseFromKafka(nil, testIDs); return err }(), "nil response"},
		{"nil ids to kafka", func() error {
			_, err := ConsumerGroupHeartbeatRequestToKafka(0, nextgen.HeartbeatRequest{}, nil)
			return err
		}(), "nil TopicIDs"},
		{"v2", func() error {
			r := kmsg.NewPtrConsumerGroupHeartbeatRequest()
			r.Version = 2
			_, err := ConsumerGroupHeartbeatRequestFromKafka(r, testIDs)
			return err
		}(), "UNSUPPORTED_VERSION"},
		{"response to v2", func() error {
			_, err := ConsumerGroupHeartbeatResponseToKafka(2, nextgen.HeartbeatResponse{}, testIDs)
			return err
		}(), "version 2"},
	} {
		if msg := mustFail(t, tc.name, tc.err); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q does not say %q", tc.name, msg, tc.want)
		}
	}
}

// TestTopicIDMap: the table rejects what cannot be a topic id table.
func TestTopicIDMap(t *testing.T) {
	if _, ok := testIDs.TopicName(ghostID); ok {
		t.Fatal("ghost id resolves")
	}
	if n, ok := testIDs.TopicName(idB); !ok || n != "b" {
		t.Fatalf("idB: %q %t", n, ok)
	}
	var zero TopicIDMap
	if _, ok := zero.TopicID("a"); ok {
		t.Fatal("the zero map resolves")
	}
	for _, tc := range []struct {
		m    map[string][16]byte
		want string
	}{
		{map[string][16]byte{"": idA}, "empty topic name"},
		{map[string][16]byte{"a": {}}, "zero id"},
		{map[string][16]byte{"a": idA, "b": idA}, "share the id"},
	} {
		_, err := NewTopicIDMap(tc.m)
		if msg := mustFail(t, tc.want, err); !strings.Contains(msg, tc.want) {
			t.Errorf("error %q does not say %q", msg, tc.want)
		}
	}
}

// liar is a TopicIDs that claims every topic with the zero id or an
// empty name: this package treats those as not resolving.
type liar struct{}

func (liar) TopicID(string) ([16]byte, bool)   { return [16]byte{}, true }
func (liar) TopicName([16]byte) (string, bool) { return "", true }

func TestLyingTopicIDs(t *testing.T) {
	k, err := ConsumerGroupHeartbeatResponseToKafka(0, nextgen.HeartbeatResponse{AssignmentSent: true, Assignment: spec.NewSet(spec.TP("a", 0))}, liar{})
	if err != nil || len(k.Assignment.Topics) != 0 {
		t.Fatalf("zero id written: %v %+v", err, k.Assignment)
	}
	r := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	r.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{{TopicID: idA, Partitions: []int32{0}}}
	got, err := ConsumerGroupHeartbeatRequestFromKafka(r, liar{})
	if err != nil || !got.TopicPartitions.IsEmpty() {
		t.Fatalf("empty name read: %v %v", err, got.TopicPartitions)
	}
}
