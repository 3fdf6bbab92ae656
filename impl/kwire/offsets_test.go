package kwire

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kmsg"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// genRef draws a topic reference that version v can carry: below v10 a
// name (one without an id too) or a known id; from v10 a known or ghost
// id, or a known name.
func genRef(t *rapid.T, v int16) TopicRef {
	if v < 10 {
		return rapid.SampledFrom([]TopicRef{{Name: "a"}, {Name: "orphan"}, {ID: idB}, {Name: "c", ID: idC}}).Draw(t, "ref")
	}
	return rapid.SampledFrom([]TopicRef{{ID: idA}, {ID: ghostID}, {Name: "b"}, {Name: "c", ID: idC}}).Draw(t, "ref")
}

// carriedRef is what version v keeps of a reference genRef drew.
func carriedRef(v int16, ref TopicRef) TopicRef {
	if v < 10 {
		if ref.Name == "" {
			ref.Name, _ = testIDs.TopicName(ref.ID)
		}
		return TopicRef{Name: ref.Name}
	}
	if ref.ID == [16]byte{} {
		ref.ID, _ = testIDs.TopicID(ref.Name)
	}
	name, _ := testIDs.TopicName(ref.ID)
	return TopicRef{Name: name, ID: ref.ID}
}

func genOffsetCommit(t *rapid.T, v int16) OffsetCommit {
	c := OffsetCommit{Group: genString(t, "group"), MemberID: genMemberID(t, "member"), InstanceID: genOptString(t, "instance"),
		GenerationOrEpoch: rapid.Int32().Draw(t, "gen"), RetentionMillis: rapid.Int64().Draw(t, "retention")}
	for range rapid.IntRange(0, 3).Draw(t, "topics") {
		ct := OffsetCommitTopic{Topic: genRef(t, v)}
		for range rapid.IntRange(0, 3).Draw(t, "partitions") {
			ct.Partitions = append(ct.Partitions, OffsetCommitPartition{Partition: rapid.Int32().Draw(t, "p"), Offset: rapid.Int64().Draw(t, "o"),
				Timestamp: rapid.Int64().Draw(t, "ts"), LeaderEpoch: rapid.Int32().Draw(t, "le"), Metadata: genOptString(t, "md")})
		}
		c.Topics = append(c.Topics, ct)
	}
	return c
}

// carriedOffsetCommit is what an OffsetCommitRequest at v keeps of c.
func carriedOffsetCommit(v int16, c OffsetCommit) OffsetCommit {
	if v < 1 {
		c.MemberID, c.GenerationOrEpoch = "", -1
	}
	if v < 2 || v > 4 {
		c.RetentionMillis = -1
	}
	if v < 7 {
		c.InstanceID = nil
	}
	var ts []OffsetCommitTopic
	for _, t := range c.Topics {
		t.Topic = carriedRef(v, t.Topic)
		var ps []OffsetCommitPartition
		for _, p := range t.Partitions {
			if v != 1 {
				p.Timestamp = -1
			}
			if v < 6 {
				p.LeaderEpoch = -1
			}
			ps = append(ps, p)
		}
		t.Partitions = ps
		ts = append(ts, t)
	}
	c.Topics = ts
	return c
}

func TestOffsetCommitRoundTrip(t *testing.T) {
	forEachVersion(t, maxOffsetCommit, func(t *rapid.T, v int16) {
		c := genOffsetCommit(t, v)
		k, err := OffsetCommitRequestToKafka(v, c, testIDs)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := OffsetCommitRequestFromKafka(throughBytes(t, v, k, new(kmsg.OffsetCommitRequest)), testIDs)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		want := carriedOffsetCommit(v, c)
		same(t, "OffsetCommitRequest", v, want, got)

		res := got.Answer(v, genCode(t, "fence"), nil)
		kr, err := OffsetCommitResponseToKafka(v, res, testIDs)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		gotr, err := OffsetCommitResponseFromKafka(throughBytes(t, v, kr, new(kmsg.OffsetCommitResponse)), testIDs)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "OffsetCommitResponse", v, res, gotr)
	})
}

func genFetchGroup(t *rapid.T, v int16) OffsetFetchGroup {
	g := OffsetFetchGroup{Group: genString(t, "group"), MemberEpoch: spec.Epoch(rapid.Int32().Draw(t, "epoch"))}
	if rapid.Bool().Draw(t, "member") {
		g.MemberID = ptr(genMemberID(t, "id"))
	}
	if !rapid.Bool().Draw(t, "all") {
		g.Topics = []OffsetFetchTopic{}
		for range rapid.IntRange(0, 3).Draw(t, "topics") {
			g.Topics = append(g.Topics, OffsetFetchTopic{Topic: genRef(t, v), Partitions: rapid.SliceOfN(rapid.Int32(), 0, 3).Draw(t, "ps")})
		}
	}
	return g
}

// carriedOffsetFetch is what an OffsetFetchRequest at v keeps of f.
func carriedOffsetFetch(v int16, f OffsetFetch) OffsetFetch {
	if v < 7 {
		f.RequireStable = false
	}
	var gs []OffsetFetchGroup
	for _, g := range f.Groups {
		if v < 9 {
			g.MemberID, g.MemberEpoch = nil, -1
		}
		if g.Topics == nil && v < 2 {
			g.Topics = []OffsetFetchTopic{}
		}
		if g.Topics != nil {
			ts := []OffsetFetchTopic{}
			for _, t := range g.Topics {
				ts = append(ts, OffsetFetchTopic{Topic: carriedRef(v, t.Topic), Partitions: nilIfEmpty(t.Partitions)})
			}
			g.Topics = ts
		}
		gs = append(gs, g)
	}
	f.Groups = gs
	return f
}

func TestOffsetFetchRequestRoundTrip(t *testing.T) {
	forEachVersion(t, maxOffsetFetch, func(t *rapid.T, v int16) {
		n := 1
		if v >= 8 {
			n = rapid.IntRange(0, 3).Draw(t, "groups")
		}
		f := OffsetFetch{RequireStable: rapid.Bool().Draw(t, "stable")}
		for range n {
			f.Groups = append(f.Groups, genFetchGroup(t, v))
		}
		k, err := OffsetFetchRequestToKafka(v, f, testIDs)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := OffsetFetchRequestFromKafka(throughBytes(t, v, k, new(kmsg.OffsetFetchRequest)), testIDs)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "OffsetFetchRequest", v, carriedOffsetFetch(v, f), got)
	})
}

// carriedOffsetFetchResponse is what an OffsetFetchResponse at v keeps.
func carriedOffsetFetchResponse(v int16, groups []OffsetFetchGroupResult) []OffsetFetchGroupResult {
	var out []OffsetFetchGroupResult
	for _, g := range groups {
		var ts []OffsetFetchTopicResult
		for _, t := range g.Topics {
			t.Topic = carriedRef(v, t.Topic)
			var ps []OffsetFetchPartition
			for _, p := range t.Partitions {
				if v < 5 {
					p.LeaderEpoch = -1
				}
				if v < 2 && p.Error == spec.None {
					p.Error = g.Error
				}
				ps = append(ps, p)
			}
			t.Partitions = ps
			ts = append(ts, t)
		}
		g.Topics = ts
		if v < 8 {
			g.Group = ""
		}
		if v < 2 {
			g.Error = spec.None
		}
		out = append(out, g)
	}
	return out
}

func TestOffsetFetchResponseRoundTrip(t *testing.T) {
	forEachVersion(t, maxOffsetFetch, func(t *rapid.T, v int16) {
		n := 1
		if v >= 8 {
			n = rapid.IntRange(0, 3).Draw(t, "groups")
		}
		var groups []OffsetFetchGroupResult
		for range n {
			g := OffsetFetchGroupResult{Group: genString(t, "group"), Error: genCode(t, "error")}
			for range rapid.IntRange(0, 3).Draw(t, "topics") {
				rt := OffsetFetchTopicResult{Topic: genRef(t, v)}
				for range rapid.IntRange(0, 3).Draw(t, "partitions") {
					rt.Partitions = append(rt.Partitions, OffsetFetchPartition{Partition: rapid.Int32().Draw(t, "p"), Offset: rapid.Int64().Draw(t, "o"),
						LeaderEpoch: rapid.Int32().Draw(t, "le"), Metadata: genOptString(t, "md"), Error: genCode(t, "perror")})
				}
				g.Topics = append(g.Topics, rt)
			}
			groups = append(groups, g)
		}
		k, err := OffsetFetchResponseToKafka(v, groups, testIDs)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := OffsetFetchResponseFromKafka(throughBytes(t, v, k, new(kmsg.OffsetFetchResponse)), testIDs)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "OffsetFetchResponse", v, carriedOffsetFetchResponse(v, groups), got)
	})
}

// TestOffsetFencing: the offset requests map onto the cores' fencing
// questions.
func TestOffsetFencing(t *testing.T) {
	c := OffsetCommit{Group: "g", MemberID: "m", InstanceID: ptr("i"), GenerationOrEpoch: 4}
	if got, want := c.Classic(), (classic.OffsetCommitRequest{MemberID: "m", InstanceID: "i", Generation: 4}); got != want {
		t.Errorf("classic: got %+v want %+v", got, want)
	}
	if d := cmp.Diff(nextgen.OffsetCommitRequest{GroupID: "g", MemberID: "m", InstanceID: ptr("i"), MemberEpoch: 4, Version: 9}, c.NextGen(9)); d != "" {
		t.Errorf("next-gen (-want +got):\n%s", d)
	}
	// OffsetCommit v0 (no member, no generation) is a commit from outside
	// group management for the classic core.
	r := kmsg.NewPtrOffsetCommitRequest()
	r.Version = 0
	r.Group = "g"
	v0, err := OffsetCommitRequestFromKafka(throughBytes(t, 0, r, new(kmsg.OffsetCommitRequest)), testIDs)
	if err != nil {
		t.Fatal(err)
	}
	if got := v0.Classic(); got.Generation != -1 || got.MemberID != "" || got.InstanceID != "" {
		t.Errorf("v0 classic: %+v", got)
	}
	g := OffsetFetchGroup{Group: "g", MemberID: ptr(spec.MemberID("m")), MemberEpoch: 3}
	got := g.NextGen()
	if got.GroupID != "g" || got.MemberID == nil || *got.MemberID != "m" || got.MemberEpoch != 3 || got.MemberID == g.MemberID {
		t.Errorf("fetch: %+v (the member id must be a copy)", got)
	}
	if outside := (OffsetFetchGroup{Group: "g", MemberEpoch: -1}).NextGen(); outside.MemberID != nil {
		t.Errorf("fetch from outside the group names a member: %+v", outside)
	}
}

// TestOffsetUnknownTopicID: a v10 topic id that names no topic is kept
// and answered UNKNOWN_TOPIC_ID, whatever the fencing said.
func TestOffsetUnknownTopicID(t *testing.T) {
	r := kmsg.NewPtrOffsetCommitRequest()
	r.Version = 10
	r.Topics = []kmsg.OffsetCommitRequestTopic{
		{TopicID: idA, Partitions: []kmsg.OffsetCommitRequestTopicPartition{{Partition: 0, Offset: 5, LeaderEpoch: -1}}},
		{TopicID: ghostID, Partitions: []kmsg.OffsetCommitRequestTopicPartition{{Partition: 1, Offset: 6, LeaderEpoch: -1}, {Partition: 2, Offset: 7, LeaderEpoch: -1}}},
	}
	c, err := OffsetCommitRequestFromKafka(throughBytes(t, 10, r, new(kmsg.OffsetCommitRequest)), testIDs)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Topics) != 2 || c.Topics[1].Topic != (TopicRef{ID: ghostID}) || len(c.Topics[1].Partitions) != 2 {
		t.Fatalf("unknown id dropped or renamed: %+v", c.Topics)
	}
	for _, fence := range []spec.ErrorCode{spec.None, spec.StaleMemberEpoch} {
		res := c.Answer(10, fence, nil)
		want := OffsetCommitResult{Topics: []OffsetCommitTopicResult{
			{Topic: TopicRef{Name: "a", ID: idA}, Partitions: []PartitionError{{0, fence}}},
			{Topic: TopicRef{ID: ghostID}, Partitions: []PartitionError{{1, UnknownTopicID}, {2, UnknownTopicID}}},
		}}
		if d := cmp.Diff(want, res); d != "" {
			t.Errorf("fence %s (-want +got):\n%s", fence, d)
		}
		k, err := OffsetCommitResponseToKafka(10, res, testIDs)
		if err != nil {
			t.Fatal(err)
		}
		if k.Topics[1].TopicID != ghostID || k.Topics[1].Partitions[0].ErrorCode != 100 {
			t.Errorf("wire: %+v", k.Topics[1])
		}
	}
	// Below v10 an empty name is a name (Kafka's problem, not ours): no
	// UNKNOWN_TOPIC_ID.
	below := OffsetCommit{Topics: []OffsetCommitTopic{{Topic: TopicRef{}, Partitions: []OffsetCommitPartition{{Partition: 0}}}}}
	if e := below.Answer(9, spec.None, nil).Topics[0].Partitions[0].Error; e != spec.None {
		t.Errorf("v9 empty name: %s", e)
	}
	// KIP-1251: the next-gen question names the partitions of resolved
	// topics only, and a partition refused one by one is answered
	// STALE_MEMBER_EPOCH, the others as the request.
	if got, want := c.NextGen(10).Partitions, spec.NewSet(spec.TP("a", 0)); !got.Equal(want) {
		t.Errorf("NextGen partitions %s, want %s", got, want)
	}
	for _, tc := range []struct {
		fence spec.ErrorCode
		want  spec.ErrorCode
	}{{spec.None, spec.StaleMemberEpoch}, {spec.UnknownMemberID, spec.UnknownMemberID}} {
		res := c.Answer(10, tc.fence, spec.NewSet(spec.TP("a", 0)))
		if e := res.Topics[0].Partitions[0].Error; e != tc.want {
			t.Errorf("a-0 refused one by one, request answered %s: got %s, want %s", tc.fence, e, tc.want)
		}
		if e := res.Topics[1].Partitions[0].Error; e != UnknownTopicID {
			t.Errorf("the unknown topic id: got %s", e)
		}
	}

	f := kmsg.NewPtrOffsetFetchRequest()
	f.Version = 10
	f.Groups = []kmsg.OffsetFetchRequestGroup{{Group: "g", MemberEpoch: -1, Topics: []kmsg.OffsetFetchRequestGroupTopic{{TopicID: ghostID, Partitions: []int32{0}}}}}
	got, err := OffsetFetchRequestFromKafka(throughBytes(t, 10, f, new(kmsg.OffsetFetchRequest)), testIDs)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]OffsetFetchTopic{{Topic: TopicRef{ID: ghostID}, Partitions: []int32{0}}}, got.Groups[0].Topics); d != "" {
		t.Errorf("fetch (-want +got):\n%s", d)
	}
}

// TestOffsetFetchShapes pins null versus empty topic lists and the
// group-level error by version.
func TestOffsetFetchShapes(t *testing.T) {
	for _, tc := range []struct {
		v        int16
		topics   []OffsetFetchTopic
		wireNull bool
	}{
		{1, nil, false}, // v0–v1 cannot say "all"
		{2, nil, true},
		{2, []OffsetFetchTopic{}, false},
		{8, nil, true},
		{10, []OffsetFetchTopic{}, false},
	} {
		k, err := OffsetFetchRequestToKafka(tc.v, OffsetFetch{Groups: []OffsetFetchGroup{{Group: "g", Topics: tc.topics}}}, testIDs)
		if err != nil {
			t.Fatal(err)
		}
		null := k.Topics == nil
		if tc.v >= 8 {
			null = k.Groups[0].Topics == nil
		}
		if null != tc.wireNull {
			t.Errorf("v%d topics %#v: wire null=%t", tc.v, tc.topics, null)
		}
	}
	// A kmsg value built by hand (not read from bytes) with no topics at
	// v0–v1 still means "none", not "all".
	for v := int16(0); v <= 2; v++ {
		r := kmsg.NewPtrOffsetFetchRequest()
		r.Version = v
		f, err := OffsetFetchRequestFromKafka(r, testIDs)
		if err != nil {
			t.Fatal(err)
		}
		if all := f.Groups[0].Topics == nil; all != (v >= 2) {
			t.Errorf("v%d: nil topics read as all=%t", v, all)
		}
	}
	g := OffsetFetchGroup{Group: "g", Topics: []OffsetFetchTopic{{Topic: TopicRef{Name: "a"}, Partitions: []int32{0, 1}}}}
	for _, tc := range []struct {
		v    int16
		want OffsetFetchGroupResult
	}{
		{0, OffsetFetchGroupResult{Group: "g", Error: spec.NotCoordinator, Topics: []OffsetFetchTopicResult{{Topic: TopicRef{Name: "a"}, Partitions: []OffsetFetchPartition{
			{Partition: 0, Offset: -1, LeaderEpoch: -1, Metadata: ptr(""), Error: spec.NotCoordinator},
			{Partition: 1, Offset: -1, LeaderEpoch: -1, Metadata: ptr(""), Error: spec.NotCoordinator}}}}}},
		{2, OffsetFetchGroupResult{Group: "g", Error: spec.NotCoordinator}},
		{9, OffsetFetchGroupResult{Group: "g", Error: spec.NotCoordinator}},
	} {
		res := g.Fail(tc.v, spec.NotCoordinator)
		if d := cmp.Diff(tc.want, res); d != "" {
			t.Errorf("Fail v%d (-want +got):\n%s", tc.v, d)
		}
		k, err := OffsetFetchResponseToKafka(tc.v, []OffsetFetchGroupResult{res}, testIDs)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.v < 2:
			if k.ErrorCode != 0 || k.Topics[0].Partitions[1].ErrorCode != int16(spec.NotCoordinator) {
				t.Errorf("v%d: %+v", tc.v, k)
			}
		case tc.v < 8:
			if k.ErrorCode != int16(spec.NotCoordinator) || len(k.Topics) != 0 {
				t.Errorf("v%d: %+v", tc.v, k)
			}
		default:
			if k.Groups[0].ErrorCode != int16(spec.NotCoordinator) || k.Groups[0].Group != "g" {
				t.Errorf("v%d: %+v", tc.v, k)
			}
		}
	}
}

func TestOffsetsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil commit", func() error { _, err := OffsetCommitRequestFromKafka(nil, testIDs); return err }(), "nil request"},
		{"nil commit response", func() error { _, err := OffsetCommitResponseFromKafka(nil, testIDs); return err }(), "nil response"},
		{"nil fetch", func() error { _, err := OffsetFetchRequestFromKafka(nil, testIDs); return err }(), "nil request"},
		{"nil fetch response", func() error { _, err := OffsetFetchResponseFromKafka(nil, testIDs); return err }(), "nil response"},
		{"commit v10 nil ids", func() error {
			r := kmsg.NewPtrOffsetCommitRequest()
			r.Version = 10
			_, err := OffsetCommitRequestFromKafka(r, nil)
			return err
		}(), "needs TopicIDs"},
		{"fetch v10 nil ids", func() error {
			r := kmsg.NewPtrOffsetFetchRequest()
			r.Version = 10
			_, err := OffsetFetchRequestFromKafka(r, nil)
			return err
		}(), "needs TopicIDs"},
		{"commit v11", func() error {
			r := kmsg.NewPtrOffsetCommitRequest()
			r.Version = 11
			_, err := OffsetCommitRequestFromKafka(r, testIDs)
			return err
		}(), "UNSUPPORTED_VERSION"},
		{"commit v10 topic without id", func() error {
			_, err := OffsetCommitRequestToKafka(10, OffsetCommit{Topics: []OffsetCommitTopic{{Topic: TopicRef{Name: "orphan"}}}}, testIDs)
			return err
		}(), `topic "orphan" has none`},
		{"commit v9 id without name", func() error {
			_, err := OffsetCommitRequestToKafka(9, OffsetCommit{Topics: []OffsetCommitTopic{{Topic: TopicRef{ID: ghostID}}}}, testIDs)
			return err
		}(), "has no name"},
		{"fetch v7 two groups", func() error {
			_, err := OffsetFetchRequestToKafka(7, OffsetFetch{Groups: make([]OffsetFetchGroup, 2)}, testIDs)
			return err
		}(), "one group, not 2"},
		{"fetch response v3 no group", func() error { _, err := OffsetFetchResponseToKafka(3, nil, testIDs); return err }(), "one group, not 0"},
		{"fetch response v10 topic without id", func() error {
			_, err := OffsetFetchResponseToKafka(10, []OffsetFetchGroupResult{{Topics: []OffsetFetchTopicResult{{Topic: TopicRef{Name: "orphan"}}}}}, testIDs)
			return err
		}(), `topic "orphan" has none`},
		{"commit response to v11", func() error { _, err := OffsetCommitResponseToKafka(11, OffsetCommitResult{}, testIDs); return err }(), "version 11"},
	} {
		if msg := mustFail(t, tc.name, tc.err); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q does not say %q", tc.name, msg, tc.want)
		}
	}
}

// TestOffsetCommitFieldsByVersion reads a request kmsg wrote with every
// field set, at v0, the first version of each field and the last: what
// each version carries, read from kmsg's bytes rather than from
// OffsetCommitRequestToKafka.
func TestOffsetCommitFieldsByVersion(t *testing.T) {
	for _, tc := range []struct {
		v                    int16
		member               spec.MemberID
		gen                  int32
		retention, timestamp int64
		leaderEpoch          int32
		instance             *string
		topic                TopicRef
	}{
		{0, "", -1, -1, -1, -1, nil, TopicRef{Name: "a"}},
		{1, "m", 5, -1, 77, -1, nil, TopicRef{Name: "a"}},
		{2, "m", 5, 99, -1, -1, nil, TopicRef{Name: "a"}},
		{4, "m", 5, 99, -1, -1, nil, TopicRef{Name: "a"}},
		{5, "m", 5, -1, -1, -1, nil, TopicRef{Name: "a"}},
		{6, "m", 5, -1, -1, 3, nil, TopicRef{Name: "a"}},
		{7, "m", 5, -1, -1, 3, ptr("i"), TopicRef{Name: "a"}},
		{9, "m", 5, -1, -1, 3, ptr("i"), TopicRef{Name: "a"}},
		{10, "m", 5, -1, -1, 3, ptr("i"), TopicRef{Name: "a", ID: idA}},
	} {
		r := kmsg.NewPtrOffsetCommitRequest()
		r.Version, r.Group, r.Generation, r.MemberID, r.InstanceID, r.RetentionTimeMillis = tc.v, "g", 5, "m", ptr("i"), 99
		r.Topics = []kmsg.OffsetCommitRequestTopic{{Topic: "a", TopicID: idA, Partitions: []kmsg.OffsetCommitRequestTopicPartition{
			{Partition: 2, Offset: 42, Timestamp: 77, LeaderEpoch: 3, Metadata: ptr("")}}}}
		got, err := OffsetCommitRequestFromKafka(throughBytes(t, tc.v, r, new(kmsg.OffsetCommitRequest)), testIDs)
		if err != nil {
			t.Fatal(err)
		}
		want := OffsetCommit{Group: "g", MemberID: tc.member, InstanceID: tc.instance, GenerationOrEpoch: tc.gen, RetentionMillis: tc.retention,
			Topics: []OffsetCommitTopic{{Topic: tc.topic, Partitions: []OffsetCommitPartition{
				{Partition: 2, Offset: 42, Timestamp: tc.timestamp, LeaderEpoch: tc.leaderEpoch, Metadata: ptr("")}}}}}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("v%d (-want +got):\n%s", tc.v, d)
		}
	}
}
