package kwire

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// seed is one request body with the key and version of its header.
type seed struct {
	key, version int16
	body         []byte
}

// requestSeeds returns real kmsg encodings of every request this package
// maps, at v0, a middle version and the highest, with the nullable
// fields both null and set; and a few that must be refused (a key kmsg
// does not know, a key this package does not map, a version too high).
func requestSeeds(t fatalf) []seed {
	t.Helper()
	var out []seed
	add := func(r kmsg.Request, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("seed: %v", err)
		}
		out = append(out, seed{r.Key(), r.GetVersion(), r.AppendTo(nil)})
	}
	join := JoinGroup{Group: "g", Reason: ptr("r"), Request: classic.JoinGroupRequest{MemberID: "m-1", InstanceID: "i", ProtocolType: "consumer",
		SessionTimeout: 10000, RebalanceTimeout: 30000, Protocols: []classic.ProtocolMetadata{{Name: "range", Metadata: "\x00\x01md"}, {Name: "sticky"}}}}
	sync := SyncGroup{Group: "g", Request: classic.SyncGroupRequest{MemberID: "m-1", InstanceID: "i", Generation: 3,
		ProtocolType: ptr("consumer"), ProtocolName: ptr("range"), Assignments: []classic.MemberAssignment{{MemberID: "m-1", Assignment: "a"}}}}
	hb := Heartbeat{Group: "g", Request: classic.HeartbeatRequest{MemberID: "m-1", InstanceID: "i", Generation: 3}}
	leave := LeaveGroup{Group: "g", Members: []classic.LeaveGroupRequest{{MemberID: "m-1", InstanceID: "i"}}}
	leave2 := LeaveGroup{Group: "g", Members: []classic.LeaveGroupRequest{{MemberID: "m-1"}, {InstanceID: "i"}}, Reasons: []*string{ptr("bye"), nil}}
	cgh := nextgen.HeartbeatRequest{GroupID: "g", MemberID: "m", MemberEpoch: 3, InstanceID: ptr("i"), RackID: ptr(""), RebalanceTimeoutMs: 30000,
		SubscribedTopicNames: []string{"a", "b"}, SubscriptionSent: true, ServerAssignor: ptr("uniform"),
		TopicPartitions: spec.NewSet(spec.TP("a", 0), spec.TP("b", 3)), OwnedSent: true}
	commit := OffsetCommit{Group: "g", MemberID: "m", InstanceID: ptr("i"), GenerationOrEpoch: 3, RetentionMillis: 1000,
		Topics: []OffsetCommitTopic{{Topic: TopicRef{Name: "a"}, Partitions: []OffsetCommitPartition{{Partition: 0, Offset: 10, Timestamp: 5, LeaderEpoch: 2, Metadata: ptr("md")}}},
			{Topic: TopicRef{ID: ghostID}, Partitions: []OffsetCommitPartition{{Partition: 1, Offset: 1, Timestamp: -1, LeaderEpoch: -1}}}}}
	fetch := OffsetFetch{RequireStable: true, Groups: []OffsetFetchGroup{{Group: "g", MemberID: ptr(spec.MemberID("m")), MemberEpoch: 3,
		Topics: []OffsetFetchTopic{{Topic: TopicRef{Name: "a"}, Partitions: []int32{0, 1}}}}}}
	fetchAll := OffsetFetch{Groups: []OffsetFetchGroup{{Group: "g", MemberEpoch: -1}, {Group: "h", MemberEpoch: -1, Topics: []OffsetFetchTopic{}}}}
	for _, v := range []int16{0, 3, 5, 8, 9} {
		add(JoinGroupRequestToKafka(v, join))
	}
	for _, v := range []int16{0, 3, 5} {
		add(SyncGroupRequestToKafka(v, sync))
	}
	for _, v := range []int16{0, 3, 4} {
		add(HeartbeatRequestToKafka(v, hb))
	}
	for _, v := range []int16{0, 3, 5} {
		add(LeaveGroupRequestToKafka(v, leave))
	}
	add(LeaveGroupRequestToKafka(5, leave2))
	for _, v := range []int16{0, 1} {
		add(ConsumerGroupHeartbeatRequestToKafka(v, cgh, testIDs))
		add(ConsumerGroupHeartbeatRequestToKafka(v, nextgen.HeartbeatRequest{GroupID: "g", MemberID: "m", MemberEpoch: -1, RebalanceTimeoutMs: -1}, testIDs))
	}
	regex := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	regex.Version, regex.SubscribedTopicRegex = 1, ptr("a.*")
	add(regex, nil)
	for _, v := range []int16{0, 1, 2, 6, 7, 9} {
		add(OffsetCommitRequestToKafka(v, OffsetCommit{Group: "g", MemberID: commit.MemberID, InstanceID: commit.InstanceID, GenerationOrEpoch: 3,
			RetentionMillis: 1000, Topics: commit.Topics[:1]}, testIDs))
	}
	add(OffsetCommitRequestToKafka(10, commit, testIDs))
	for _, v := range []int16{0, 2, 7} {
		add(OffsetFetchRequestToKafka(v, OffsetFetch{RequireStable: true, Groups: fetch.Groups}, testIDs))
	}
	for _, v := range []int16{8, 9, 10} {
		add(OffsetFetchRequestToKafka(v, fetch, testIDs))
		add(OffsetFetchRequestToKafka(v, fetchAll, testIDs))
	}
	for _, v := range []int16{0, 3, 6} {
		add(DescribeGroupsRequestToKafka(v, DescribeGroups{Groups: []string{"g", "h"}, IncludeAuthorizedOperations: true}))
	}
	for _, v := range []int16{0, 1} {
		add(ConsumerGroupDescribeRequestToKafka(v, ConsumerGroupDescribe{Groups: []string{"g"}}))
	}
	out = append(out,
		seed{1000, 0, []byte{0, 1, 'g'}}, // no such key
		seed{0, 3, []byte{0}},            // Produce: not a group API
		seed{11, 10, out[0].body},        // JoinGroup v10 does not exist
		seed{11, -1, out[0].body},
	)
	return out
}

// reencode maps a DecodeRequest result back to kmsg at version, encodes
// it and decodes it again.
func reencode(t *testing.T, key, version int16, x any) any {
	t.Helper()
	var r kmsg.Request
	var err error
	switch x := x.(type) {
	case JoinGroup:
		r, err = JoinGroupRequestToKafka(version, x)
	case SyncGroup:
		r, err = SyncGroupRequestToKafka(version, x)
	case Heartbeat:
		r, err = HeartbeatRequestToKafka(version, x)
	case LeaveGroup:
		r, err = LeaveGroupRequestToKafka(version, x)
	case nextgen.HeartbeatRequest:
		r, err = ConsumerGroupHeartbeatRequestToKafka(version, x, testIDs)
	case OffsetCommit:
		r, err = OffsetCommitRequestToKafka(version, x, testIDs)
	case OffsetFetch:
		r, err = OffsetFetchRequestToKafka(version, x, testIDs)
	case DescribeGroups:
		r, err = DescribeGroupsRequestToKafka(version, x)
	case ConsumerGroupDescribe:
		r, err = ConsumerGroupDescribeRequestToKafka(version, x)
	default:
		t.Fatalf("DecodeRequest returned a %T", x)
	}
	if err != nil {
		t.Fatalf("key %d v%d: decoded %#v, but it does not map back: %v", key, version, x, err)
	}
	again, err := DecodeRequest(key, version, r.AppendTo(nil), testClient, testIDs)
	if err != nil {
		t.Fatalf("key %d v%d: decoded %#v, but its encoding does not decode: %v", key, version, x, err)
	}
	return again
}

// FuzzRequestDecode feeds arbitrary bytes, API keys and versions through
// the request decoder path (kmsg.RequestForKey, ReadFrom, FromKafka). It
// must never panic, fail only with a *RequestError, and whatever it
// decodes must map back to kmsg and decode to the same value.
func FuzzRequestDecode(f *testing.F) {
	for _, s := range requestSeeds(f) {
		f.Add(s.key, s.version, s.body)
	}
	f.Fuzz(func(t *testing.T, key, version int16, body []byte) {
		x, err := DecodeRequest(key, version, body, testClient, testIDs)
		if err != nil {
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("key %d v%d: error is not a *RequestError: %v", key, version, err)
			}
			if re.Code != spec.InvalidRequest && re.Code != spec.UnsupportedVersion {
				t.Fatalf("key %d v%d: unexpected code %s", key, version, re.Code)
			}
			return
		}
		if d := cmp.Diff(x, reencode(t, key, version, x)); d != "" {
			t.Fatalf("key %d v%d: decode∘encode∘decode differs from decode (-first +second):\n%s", key, version, d)
		}
	})
}

// TestDecodeRequest: every seed decodes to what its ToKafka was given
// (as the version carries it), and the refusals carry their codes.
func TestDecodeRequest(t *testing.T) {
	seeds := requestSeeds(t)
	for _, s := range seeds {
		t.Run(fmt.Sprintf("key%d-v%d", s.key, s.version), func(t *testing.T) {
			x, err := DecodeRequest(s.key, s.version, s.body, testClient, testIDs)
			if err != nil {
				var re *RequestError
				if !errors.As(err, &re) {
					t.Fatalf("not a *RequestError: %v", err)
				}
				return
			}
			if d := cmp.Diff(x, reencode(t, s.key, s.version, x)); d != "" {
				t.Fatalf("(-first +second):\n%s", d)
			}
		})
	}
	for _, tc := range []struct {
		name         string
		key, version int16
		body         []byte
		code         spec.ErrorCode
	}{
		{"unknown key", 1000, 0, nil, spec.UnsupportedVersion},
		{"negative key", -1, 0, nil, spec.UnsupportedVersion},
		{"not a group API", 0, 3, nil, spec.UnsupportedVersion},
		{"version too high", 11, 10, seeds[0].body, spec.UnsupportedVersion},
		{"empty body", 12, 0, nil, spec.InvalidRequest},
		{"truncated", 11, 5, seeds[2].body[:len(seeds[2].body)-3], spec.InvalidRequest},
		{"regex", 68, 1, func() []byte {
			r := kmsg.NewPtrConsumerGroupHeartbeatRequest()
			r.Version, r.SubscribedTopicRegex = 1, ptr("x")
			return r.AppendTo(nil)
		}(), spec.InvalidRequest},
	} {
		_, err := DecodeRequest(tc.key, tc.version, tc.body, testClient, testIDs)
		var re *RequestError
		if !errors.As(err, &re) || re.Code != tc.code {
			t.Errorf("%s: got %v, want code %s", tc.name, err, tc.code)
		}
	}
	if _, err := DecodeRequest(12, 0, seeds[0].body, testClient, nil); err == nil {
		t.Error("nil TopicIDs accepted")
	}
	// What the seeds decode to, for the two richest: as ToKafka was given
	// them, restricted to the version.
	x, err := DecodeRequest(11, 9, seeds[4].body, testClient, testIDs)
	if err != nil {
		t.Fatal(err)
	}
	if j := x.(JoinGroup); j.Request.InstanceID != "i" || !j.Request.RequireKnownMemberID || j.Request.ClientHost != testClient.Host || deref(j.Reason) != "r" {
		t.Errorf("JoinGroup v9: %+v", j)
	}
}
