package kwire

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// OffsetFetch (API key 9, v0–v10): the offsets a group has committed.
// Topics are named as in offsets.go (TopicRef).

// OffsetFetch is an OffsetFetchRequest: up to v7 one group (GroupId,
// Topics at top level), from v8 a batch of groups.
type OffsetFetch struct {
	Groups []OffsetFetchGroup
	// RequireStable (v7+; KIP-447) asks the server to answer
	// UNSTABLE_OFFSET_COMMIT for partitions with pending transactional
	// offsets; false below v7.
	RequireStable bool
}

// OffsetFetchGroup is one group of an OffsetFetch.
type OffsetFetchGroup struct {
	Group string
	// MemberID is MemberId (v9+, nullable; a next-gen member names
	// itself), nil below v9 and for a fetch from outside the group.
	MemberID *spec.MemberID
	// MemberEpoch is MemberEpoch (v9+), -1 below.
	MemberEpoch spec.Epoch
	// Topics is the topics asked for. nil means every topic the group has
	// offsets for (null on the wire, v2+); below v2 the list cannot be
	// null and is never nil.
	Topics []OffsetFetchTopic
}

// OffsetFetchTopic is one topic of an OffsetFetchGroup.
type OffsetFetchTopic struct {
	Topic      TopicRef
	Partitions []int32
}

// OffsetFetchRequestFromKafka maps an OffsetFetchRequest (v0–v10): below
// v8 the top-level GroupId and Topics become one OffsetFetchGroup; from v8
// Groups[] map one to one (MemberId and MemberEpoch from v9, topic ids
// from v10 resolved through ids, unresolved ids kept with Name ""). A null
// topic list is nil, a sent empty one non-nil. Errors:
// UNSUPPORTED_VERSION.
func OffsetFetchRequestFromKafka(r *kmsg.OffsetFetchRequest, ids TopicIDs) (OffsetFetch, error) {
	if r == nil {
		return OffsetFetch{}, errors.New("kwire: OffsetFetchRequestFromKafka: nil request")
	}
	if err := requestVersion("OffsetFetch", r); err != nil {
		return OffsetFetch{}, err
	}
	v := r.Version
	if v >= 10 && ids == nil {
		return OffsetFetch{}, errors.New("kwire: OffsetFetchRequestFromKafka: v10 needs TopicIDs")
	}
	f := OffsetFetch{RequireStable: v >= 7 && r.RequireStable}
	if v < 8 {
		g := OffsetFetchGroup{Group: r.Group, MemberEpoch: -1}
		if r.Topics != nil || v < 2 {
			g.Topics = []OffsetFetchTopic{}
		}
		for _, t := range r.Topics {
			g.Topics = append(g.Topics, OffsetFetchTopic{Topic: TopicRef{Name: t.Topic}, Partitions: cloneInt32s(t.Partitions)})
		}
		f.Groups = []OffsetFetchGroup{g}
		return f, nil
	}
	for _, kg := range r.Groups {
		g := OffsetFetchGroup{Group: kg.Group, MemberEpoch: -1}
		if v >= 9 {
			if kg.MemberID != nil {
				id := spec.MemberID(*kg.MemberID)
				g.MemberID = &id
			}
			g.MemberEpoch = spec.Epoch(kg.MemberEpoch)
		}
		if kg.Topics != nil {
			g.Topics = []OffsetFetchTopic{}
		}
		for _, t := range kg.Topics {
			g.Topics = append(g.Topics, OffsetFetchTopic{Topic: refFromWire(v, t.Topic, t.TopicID, ids), Partitions: cloneInt32s(t.Partitions)})
		}
		f.Groups = append(f.Groups, g)
	}
	return f, nil
}

// OffsetFetchRequestToKafka maps f onto an OffsetFetchRequest at version
// (0–10). Below v8 f must hold exactly one group, and its member id and
// epoch are dropped; below v9 likewise; RequireStable is dropped below
// v7. A nil topic list is written as null from v2 and as an empty list
// below (which cannot say "all"). Errors: a version kmsg does not know, a
// group count other than one below v8, a topic that cannot be named at
// version.
func OffsetFetchRequestToKafka(version int16, f OffsetFetch, ids TopicIDs) (*kmsg.OffsetFetchRequest, error) {
	if err := kmsgVersion("OffsetFetchRequest", version, maxOffsetFetch); err != nil {
		return nil, err
	}
	r := kmsg.NewPtrOffsetFetchRequest()
	r.Version = version
	if version >= 7 {
		r.RequireStable = f.RequireStable
	}
	if version < 8 {
		if len(f.Groups) != 1 {
			return nil, fmt.Errorf("kwire: OffsetFetchRequest v%d carries one group, not %d", version, len(f.Groups))
		}
		g := f.Groups[0]
		r.Group = g.Group
		if g.Topics != nil || version < 2 {
			r.Topics = []kmsg.OffsetFetchRequestTopic{}
		}
		for _, t := range g.Topics {
			kt := kmsg.NewOffsetFetchRequestTopic()
			var err error
			if kt.Topic, _, err = refToWire("OffsetFetchRequest", version, t.Topic, ids); err != nil {
				return nil, err
			}
			kt.Partitions = cloneInt32s(t.Partitions)
			r.Topics = append(r.Topics, kt)
		}
		return r, nil
	}
	for _, g := range f.Groups {
		kg := kmsg.NewOffsetFetchRequestGroup()
		kg.Group = g.Group
		if version >= 9 {
			if g.MemberID != nil {
				kg.MemberID = idPtr(*g.MemberID)
			}
			kg.MemberEpoch = int32(g.MemberEpoch)
		}
		if g.Topics != nil {
			kg.Topics = []kmsg.OffsetFetchRequestGroupTopic{}
		}
		for _, t := range g.Topics {
			kt := kmsg.NewOffsetFetchRequestGroupTopic()
			var err error
			if kt.Topic, kt.TopicID, err = refToWire("OffsetFetchRequest", version, t.Topic, ids); err != nil {
				return nil, err
			}
			kt.Partitions = cloneInt32s(t.Partitions)
			kg.Topics = append(kg.Topics, kt)
		}
		r.Groups = append(r.Groups, kg)
	}
	return r, nil
}

// NextGen returns the fencing question g asks a consumer group: group,
// member id (nil when not sent) and member epoch. Seq is 0. A classic
// group does not fence fetches (Kafka's ClassicGroup.validateOffsetFetch
// only rejects a dead group).
func (g OffsetFetchGroup) NextGen() nextgen.OffsetFetchRequest {
	req := nextgen.OffsetFetchRequest{GroupID: g.Group, MemberEpoch: g.MemberEpoch}
	if g.MemberID != nil {
		id := *g.MemberID
		req.MemberID = &id
	}
	return req
}

// Fail returns the answer to g, received at OffsetFetch version, when the
// whole group fails with code (the fencing answer, NOT_COORDINATOR, ...),
// as Kafka builds it: from v2 the group-level error and no partitions;
// below v2, which has no group-level error, every requested partition
// with offset -1, leader epoch -1, metadata "" and the error.
func (g OffsetFetchGroup) Fail(version int16, code spec.ErrorCode) OffsetFetchGroupResult {
	res := OffsetFetchGroupResult{Group: g.Group, Error: code}
	if version >= 2 {
		return res
	}
	for _, t := range g.Topics {
		rt := OffsetFetchTopicResult{Topic: t.Topic}
		for _, p := range t.Partitions {
			empty := ""
			rt.Partitions = append(rt.Partitions, OffsetFetchPartition{Partition: p, Offset: -1, LeaderEpoch: -1, Metadata: &empty, Error: code})
		}
		res.Topics = append(res.Topics, rt)
	}
	return res
}

// OffsetFetchGroupResult is the answer for one group of an OffsetFetch.
type OffsetFetchGroupResult struct {
	// Group is GroupId (v8+); not on the wire below v8.
	Group string
	// Error is the group-level error: the top-level ErrorCode at v2–v7,
	// the group's ErrorCode from v8. Below v2 there is none; see
	// OffsetFetchResponseToKafka.
	Error  spec.ErrorCode
	Topics []OffsetFetchTopicResult
}

// OffsetFetchTopicResult is one topic of an OffsetFetchGroupResult.
type OffsetFetchTopicResult struct {
	Topic      TopicRef
	Partitions []OffsetFetchPartition
}

// OffsetFetchPartition is one partition's committed offset: Offset -1
// when none is committed; LeaderEpoch (v5+) -1 when unknown; Metadata
// nullable; Error the partition-level error (UNKNOWN_TOPIC_ID for a v10
// topic id that names no topic, UNSTABLE_OFFSET_COMMIT, ...).
type OffsetFetchPartition struct {
	Partition   int32
	Offset      int64
	LeaderEpoch int32
	Metadata    *string
	Error       spec.ErrorCode
}

// OffsetFetchResponseToKafka maps groups onto an OffsetFetchResponse at
// version (0–10):
//
//   - below v8 exactly one group, written at top level: Topics[{Name,
//     Partitions[{PartitionIndex, CommittedOffset, CommittedLeaderEpoch
//     (v5+), Metadata, ErrorCode}]}], the group's Error as the top-level
//     ErrorCode (v2–v7); below v2, which has no top-level error, a
//     non-NONE group Error replaces NONE on every partition (Kafka's own
//     v0–v1 answer to a group error);
//   - from v8 Groups[{GroupId, Topics (by name, by id from v10),
//     ErrorCode}].
//
// ThrottleTimeMs (v3+) is 0. Errors: a version kmsg does not know, a group
// count other than one below v8, a topic that cannot be named at version.
func OffsetFetchResponseToKafka(version int16, groups []OffsetFetchGroupResult, ids TopicIDs) (*kmsg.OffsetFetchResponse, error) {
	if err := kmsgVersion("OffsetFetchResponse", version, maxOffsetFetch); err != nil {
		return nil, err
	}
	r := kmsg.NewPtrOffsetFetchResponse()
	r.Version = version
	if version < 8 {
		if len(groups) != 1 {
			return nil, fmt.Errorf("kwire: OffsetFetchResponse v%d answers one group, not %d", version, len(groups))
		}
		g := groups[0]
		if version >= 2 {
			r.ErrorCode = int16(g.Error)
		}
		for _, t := range g.Topics {
			kt := kmsg.NewOffsetFetchResponseTopic()
			var err error
			if kt.Topic, _, err = refToWire("OffsetFetchResponse", version, t.Topic, ids); err != nil {
				return nil, err
			}
			for _, p := range t.Partitions {
				kp := kmsg.NewOffsetFetchResponseTopicPartition()
				kp.Partition = p.Partition
				kp.Offset = p.Offset
				if version >= 5 {
					kp.LeaderEpoch = p.LeaderEpoch
				}
				kp.Metadata = clonePtr(p.Metadata)
				kp.ErrorCode = int16(p.Error)
				if version < 2 && p.Error == spec.None {
					kp.ErrorCode = int16(g.Error)
				}
				kt.Partitions = append(kt.Partitions, kp)
			}
			r.Topics = append(r.Topics, kt)
		}
		return r, nil
	}
	for _, g := range groups {
		kg := kmsg.NewOffsetFetchResponseGroup()
		kg.Group = g.Group
		kg.ErrorCode = int16(g.Error)
		for _, t := range g.Topics {
			kt := kmsg.NewOffsetFetchResponseGroupTopic()
			var err error
			if kt.Topic, kt.TopicID, err = refToWire("OffsetFetchResponse", version, t.Topic, ids); err != nil {
				return nil, err
			}
			for _, p := range t.Partitions {
				kp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
				kp.Partition = p.Partition
				kp.Offset = p.Offset
				kp.LeaderEpoch = p.LeaderEpoch
				kp.Metadata = clonePtr(p.Metadata)
				kp.ErrorCode = int16(p.Error)
				kt.Partitions = append(kt.Partitions, kp)
			}
			kg.Topics = append(kg.Topics, kt)
		}
		r.Groups = append(r.Groups, kg)
	}
	return r, nil
}

// OffsetFetchResponseFromKafka maps an OffsetFetchResponse (v0–v10), the
// inverse of OffsetFetchResponseToKafka: below v8 one group with Group ""
// (the response does not name it) and, below v2, Error NONE (the
// partitions carry the errors); from v10 topic ids resolved through ids,
// Name "" when they do not resolve.
func OffsetFetchResponseFromKafka(r *kmsg.OffsetFetchResponse, ids TopicIDs) ([]OffsetFetchGroupResult, error) {
	if r == nil {
		return nil, errors.New("kwire: OffsetFetchResponseFromKafka: nil response")
	}
	if err := kmsgVersion("OffsetFetchResponse", r.Version, maxOffsetFetch); err != nil {
		return nil, err
	}
	v := r.Version
	if v < 8 {
		g := OffsetFetchGroupResult{}
		if v >= 2 {
			g.Error = spec.ErrorCode(r.ErrorCode)
		}
		for _, t := range r.Topics {
			rt := OffsetFetchTopicResult{Topic: TopicRef{Name: t.Topic}}
			for _, p := range t.Partitions {
				rp := OffsetFetchPartition{Partition: p.Partition, Offset: p.Offset, LeaderEpoch: -1, Metadata: clonePtr(p.Metadata), Error: spec.ErrorCode(p.ErrorCode)}
				if v >= 5 {
					rp.LeaderEpoch = p.LeaderEpoch
				}
				rt.Partitions = append(rt.Partitions, rp)
			}
			g.Topics = append(g.Topics, rt)
		}
		return []OffsetFetchGroupResult{g}, nil
	}
	var out []OffsetFetchGroupResult
	for _, kg := range r.Groups {
		g := OffsetFetchGroupResult{Group: kg.Group, Error: spec.ErrorCode(kg.ErrorCode)}
		for _, t := range kg.Topics {
			rt := OffsetFetchTopicResult{Topic: refFromWire(v, t.Topic, t.TopicID, ids)}
			for _, p := range t.Partitions {
				rt.Partitions = append(rt.Partitions, OffsetFetchPartition{Partition: p.Partition, Offset: p.Offset, LeaderEpoch: p.LeaderEpoch,
					Metadata: clonePtr(p.Metadata), Error: spec.ErrorCode(p.ErrorCode)})
			}
			g.Topics = append(g.Topics, rt)
		}
		out = append(out, g)
	}
	return out, nil
}
