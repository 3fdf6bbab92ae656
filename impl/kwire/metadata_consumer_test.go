package kwire

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kmsg"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// genSubscriptionTopics draws topics in any order, with repeats.
func genSubscriptionTopics(t *rapid.T) []string {
	return rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "c", "orphan"}), 0, 5).Draw(t, "topics")
}

// carriedConsumerSubscription is what a consumer subscription at x.Version
// keeps of s and x.
func carriedConsumerSubscription(s classic.Subscription, x ConsumerExtras) (classic.Subscription, ConsumerExtras) {
	s.Topics = nilIfEmpty(slices.Compact(slices.Sorted(slices.Values(s.Topics))))
	s.Leader = ""
	if x.Version < 1 {
		s.Owned = nil
	}
	if x.Version < 2 {
		s.Generation = spec.NoGeneration
	}
	if x.Version < 3 {
		x.Rack = nil
	}
	return s, x
}

func TestConsumerSubscriptionRoundTrip(t *testing.T) {
	forEachVersion(t, maxConsumerProtocol, func(t *rapid.T, v int16) {
		s := classic.Subscription{Topics: genSubscriptionTopics(t), Owned: genSet(t, "owned"),
			Generation: spec.Generation(rapid.Int32().Draw(t, "gen")), Leader: genMemberID(t, "leader")}
		x := ConsumerExtras{Version: v, Rack: genOptString(t, "rack"), UserData: genBytes(t, "userdata")}
		md, err := EncodeConsumerSubscription(s, x)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		gotS, gotX, err := DecodeConsumerSubscription(md)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		wantS, wantX := carriedConsumerSubscription(s, x)
		same(t, "consumer subscription", v, wantS, gotS)
		same(t, "consumer subscription extras", v, wantX, gotX)
	})
}

func TestConsumerAssignmentRoundTrip(t *testing.T) {
	forEachVersion(t, maxConsumerProtocol, func(t *rapid.T, v int16) {
		a := classic.Assignment{Assigned: genSet(t, "assigned"), Revoked: genSet(t, "revoked"), Delay: 5, Leader: "l", Error: 3}
		x := ConsumerExtras{Version: v, Rack: genOptString(t, "rack"), UserData: genBytes(t, "userdata")}
		md, err := EncodeConsumerAssignment(a, x)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		gotA, gotX, err := DecodeConsumerAssignment(md)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "consumer assignment", v, classic.Assignment{Assigned: a.Assigned}, gotA)
		same(t, "consumer assignment extras", v, ConsumerExtras{Version: v, UserData: x.UserData}, gotX)
	})
}

// TestConsumerMetadataFields pins the fields by version against
// kmsg's own values, including what Kafka's Java client sends.
func TestConsumerMetadataFields(t *testing.T) {
	m := kmsg.NewConsumerMemberMetadata()
	m.Version = 3
	m.Topics = []string{"b", "a", "b"}
	m.OwnedPartitions = []kmsg.ConsumerMemberMetadataOwnedPartition{{Topic: "b", Partitions: []int32{1, 0}}, {Topic: "a", Partitions: []int32{4}}}
	m.Generation = 7
	m.Rack = ptr("rack-1")
	m.UserData = []byte{}
	s, x, err := DecodeConsumerSubscription(classic.Metadata(m.AppendTo(nil)))
	if err != nil {
		t.Fatal(err)
	}
	want := classic.Subscription{Topics: []string{"a", "b"}, Owned: spec.NewSet(spec.TP("a", 4), spec.TP("b", 0), spec.TP("b", 1)), Generation: 7}
	if d := cmp.Diff(want, s); d != "" {
		t.Errorf("subscription (-want +got):\n%s", d)
	}
	if d := cmp.Diff(ConsumerExtras{Version: 3, Rack: ptr("rack-1"), UserData: []byte{}}, x); d != "" {
		t.Errorf("extras (-want +got):\n%s", d)
	}
	// Version 0 bytes: no owned partitions, no generation.
	m.Version = 0
	s, _, err = DecodeConsumerSubscription(classic.Metadata(m.AppendTo(nil)))
	if err != nil || s.Owned != nil || s.Generation != spec.NoGeneration {
		t.Errorf("v0: %v %+v", err, s)
	}
	// A future version is read as v3, what follows ignored, as Kafka does.
	m.Version = 4
	future := append(m.AppendTo(nil), 0xff, 0xfe)
	s, x, err = DecodeConsumerSubscription(classic.Metadata(future))
	if err != nil || x.Version != 4 || s.Generation != 7 || deref(x.Rack) != "rack-1" {
		t.Errorf("v4: %v %+v %+v", err, s, x)
	}
	// The assignment: topics as listed, the user data kept.
	a := kmsg.NewConsumerMemberAssignment()
	a.Version = 1
	a.Topics = []kmsg.ConsumerMemberAssignmentTopic{{Topic: "a", Partitions: []int32{2, 0}}}
	a.UserData = []byte("u")
	got, gx, err := DecodeConsumerAssignment(classic.Metadata(a.AppendTo(nil)))
	if err != nil || !got.Assigned.Equal(spec.NewSet(spec.TP("a", 0), spec.TP("a", 2))) || string(gx.UserData) != "u" || gx.Version != 1 {
		t.Errorf("assignment: %v %+v %+v", err, got, gx)
	}
}

func TestConsumerMetadataBadInput(t *testing.T) {
	good, err := EncodeConsumerSubscription(classic.Subscription{Topics: []string{"a"}, Owned: spec.NewSet(spec.TP("a", 0)), Generation: 2},
		ConsumerExtras{Version: 3, Rack: ptr("r")})
	if err != nil {
		t.Fatal(err)
	}
	goodA, err := EncodeConsumerAssignment(classic.Assignment{Assigned: spec.NewSet(spec.TP("a", 0))}, ConsumerExtras{Version: 0})
	if err != nil {
		t.Fatal(err)
	}
	negative := func(v int16, rest string) classic.Metadata {
		return classic.Metadata(binary.BigEndian.AppendUint16(nil, uint16(v))) + classic.Metadata(rest)
	}
	owned := kmsg.NewConsumerMemberMetadata()
	owned.Version = 1
	owned.OwnedPartitions = []kmsg.ConsumerMemberMetadataOwnedPartition{{Topic: "a", Partitions: []int32{-1}}}
	emptyTopic := kmsg.NewConsumerMemberMetadata()
	emptyTopic.Topics = []string{""}
	badA := kmsg.NewConsumerMemberAssignment()
	badA.Topics = []kmsg.ConsumerMemberAssignmentTopic{{Topic: "a", Partitions: []int32{-2}}}
	for _, tc := range []struct {
		name string
		md   classic.Metadata
		want string
	}{
		{"empty", "", "too short"},
		{"one byte", "\x00", "too short"},
		{"version only", "\x00\x00", "version 0: truncated"},
		{"truncated", good[:len(good)-1], "truncated"},
		{"truncated topics", good[:5], "truncated"},
		{"trailing", good + "x", "1 trailing bytes"},
		{"negative version", negative(-1, string(good[2:])), "negative"},
		{"garbage", "\x00\x00\xff\xff\xff\x7f", "truncated"},
		{"negative owned partition", classic.Metadata(owned.AppendTo(nil)), "not a topic-partition"},
		{"empty topic", classic.Metadata(emptyTopic.AppendTo(nil)), "empty topic name"},
	} {
		_, _, err := DecodeConsumerSubscription(tc.md)
		if msg := mustFail(t, tc.name, err); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "consumer subscription") {
			t.Errorf("%s: error %q does not say %q", tc.name, msg, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		md   classic.Metadata
		want string
	}{
		{"empty", "", "too short"},
		{"truncated", goodA[:len(goodA)-2], "truncated"},
		{"trailing", goodA + "\x00", "trailing"},
		{"negative version", negative(-3, string(goodA[2:])), "negative"},
		{"negative partition", classic.Metadata(badA.AppendTo(nil)), "not a topic-partition"},
	} {
		_, _, err := DecodeConsumerAssignment(tc.md)
		if msg := mustFail(t, tc.name, err); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "consumer assignment") {
			t.Errorf("%s: error %q does not say %q", tc.name, msg, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"version 4", func() error {
			_, err := EncodeConsumerSubscription(classic.Subscription{}, ConsumerExtras{Version: 4})
			return err
		}(), "version 4"},
		{"version -1", func() error {
			_, err := EncodeConsumerAssignment(classic.Assignment{}, ConsumerExtras{Version: -1})
			return err
		}(), "version -1"},
		{"connector owned", func() error {
			_, err := EncodeConsumerSubscription(classic.Subscription{Owned: spec.NewSet(spec.Connector("c"))}, ConsumerExtras{Version: 1})
			return err
		}(), "not a topic-partition"},
		{"connector assigned", func() error {
			_, err := EncodeConsumerAssignment(classic.Assignment{Assigned: spec.NewSet(spec.Connector("c"))}, ConsumerExtras{})
			return err
		}(), "not a topic-partition"},
		{"unsorted set", func() error {
			_, err := EncodeConsumerAssignment(classic.Assignment{Assigned: spec.Set{spec.TP("b", 0), spec.TP("a", 0)}}, ConsumerExtras{})
			return err
		}(), "not sorted"},
		{"empty topic", func() error {
			_, err := EncodeConsumerSubscription(classic.Subscription{Topics: []string{""}}, ConsumerExtras{})
			return err
		}(), "empty topic name"},
		{"nil metadata", func() error { _, _, err := ConsumerSubscriptionFromKafka(nil); return err }(), "nil"},
		{"nil assignment", func() error { _, _, err := ConsumerAssignmentFromKafka(nil); return err }(), "nil"},
	} {
		if msg := mustFail(t, tc.name, tc.err); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q does not say %q", tc.name, msg, tc.want)
		}
	}
}
