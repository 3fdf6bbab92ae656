package kwire

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// OffsetCommit (API key 8, v0–v10) here, OffsetFetch (key 9, v0–v10) in
// offsetfetch.go. The cores only decide whether a member may commit or
// fetch now (the fencing half: classic.OffsetCommitRequest,
// nextgen.OffsetCommitRequest and nextgen.OffsetFetchRequest); the
// offsets are the server's to store. The plain types here are what the
// server stores and answers, with topics named as the wire names them: by
// name up to v9, by id from v10.

var (
	maxOffsetCommit = new(kmsg.OffsetCommitRequest).MaxVersion() // 10
	maxOffsetFetch  = new(kmsg.OffsetFetchRequest).MaxVersion()  // 10
)

// TopicRef names a topic on the offset APIs. Up to v9 the wire carries
// the name and ID is zero. From v10 it carries the id: ID is as sent and
// Name is what TopicIDs resolved it to, "" when it names no topic (those
// partitions are answered UNKNOWN_TOPIC_ID, never dropped). Kafka topic
// names are never empty, so Name == "" means unresolved.
type TopicRef struct {
	Name string
	ID   [16]byte
}

// refFromWire reads a topic reference at version.
func refFromWire(version int16, name string, id [16]byte, ids TopicIDs) TopicRef {
	if version < 10 {
		return TopicRef{Name: name}
	}
	n, _ := resolveName(ids, id)
	return TopicRef{Name: n, ID: id}
}

// refToWire writes a topic reference at version: below v10 the name
// (resolved from the id when only the id is known), from v10 the id
// (resolved from the name when only the name is known; the zero id when
// neither is known, which Kafka answers UNKNOWN_TOPIC_ID).
func refToWire(api string, version int16, ref TopicRef, ids TopicIDs) (string, [16]byte, error) {
	if version < 10 {
		if ref.Name == "" && ref.ID != [16]byte{} {
			if n, ok := resolveName(ids, ref.ID); ok {
				return n, [16]byte{}, nil
			}
			return "", [16]byte{}, fmt.Errorf("kwire: %s v%d names topics, and topic id %x has no name", api, version, ref.ID)
		}
		return ref.Name, [16]byte{}, nil
	}
	if ref.ID != [16]byte{} || ref.Name == "" {
		return "", ref.ID, nil
	}
	id, ok := resolveID(ids, ref.Name)
	if !ok {
		return "", [16]byte{}, fmt.Errorf("kwire: %s v%d names topics by id, and topic %q has none", api, version, ref.Name)
	}
	return "", id, nil
}

// OffsetCommit is an OffsetCommitRequest as the server stores it.
type OffsetCommit struct {
	Group string
	// MemberID is MemberId (v1+), "" at v0.
	MemberID spec.MemberID
	// InstanceID is GroupInstanceId (v7+, nullable), nil below v7.
	InstanceID *string
	// GenerationOrEpoch is GenerationIdOrMemberEpoch (v1+): the classic
	// generation, or the next-gen member epoch; -1 (Kafka's default) at
	// v0.
	GenerationOrEpoch int32
	// RetentionMillis is RetentionTimeMs (v2–v4 only), -1 elsewhere.
	RetentionMillis int64
	Topics          []OffsetCommitTopic
}

// OffsetCommitTopic is one topic of an OffsetCommit.
type OffsetCommitTopic struct {
	Topic      TopicRef
	Partitions []OffsetCommitPartition
}

// OffsetCommitPartition is one partition of an OffsetCommit.
type OffsetCommitPartition struct {
	Partition int32
	Offset    int64
	// Timestamp is CommitTimestamp (v1 only), -1 elsewhere.
	Timestamp int64
	// LeaderEpoch is CommittedLeaderEpoch (v6+), -1 below.
	LeaderEpoch int32
	// Metadata is CommittedMetadata (nullable).
	Metadata *string
}

// OffsetCommitRequestFromKafka maps an OffsetCommitRequest (v0–v10) as
// the comments on OffsetCommit say; topics and partitions keep request
// order. From v10 topics are resolved through ids (a nil ids is the
// caller's bug); an id that does not resolve is kept with Name "".
// Errors: UNSUPPORTED_VERSION.
func OffsetCommitRequestFromKafka(r *kmsg.OffsetCommitRequest, ids TopicIDs) (OffsetCommit, error) {
	if r == nil {
		return OffsetCommit{}, errors.New("kwire: OffsetCommitRequestFromKafka: nil request")
	}
	if err := requestVersion("OffsetCommit", r); err != nil {
		return OffsetCommit{}, err
	}
	v := r.Version
	if v >= 10 && ids == nil {
		return OffsetCommit{}, errors.New("kwire: OffsetCommitRequestFromKafka: v10 needs TopicIDs")
	}
	c := OffsetCommit{Group: r.Group, GenerationOrEpoch: -1, RetentionMillis: -1}
	if v >= 1 {
		c.MemberID = spec.MemberID(r.MemberID)
		c.GenerationOrEpoch = r.Generation
	}
	if v >= 2 && v <= 4 {
		c.RetentionMillis = r.RetentionTimeMillis
	}
	if v >= 7 {
		c.InstanceID = clonePtr(r.InstanceID)
	}
	for _, t := range r.Topics {
		ct := OffsetCommitTopic{Topic: refFromWire(v, t.Topic, t.TopicID, ids)}
		for _, p := range t.Partitions {
			cp := OffsetCommitPartition{Partition: p.Partition, Offset: p.Offset, Timestamp: -1, LeaderEpoch: -1, Metadata: clonePtr(p.Metadata)}
			if v == 1 {
				cp.Timestamp = p.Timestamp
			}
			if v >= 6 {
				cp.LeaderEpoch = p.LeaderEpoch
			}
			ct.Partitions = append(ct.Partitions, cp)
		}
		c.Topics = append(c.Topics, ct)
	}
	return c, nil
}

// OffsetCommitRequestToKafka maps c onto an OffsetCommitRequest at
// version (0–10), writing the fields version carries (see OffsetCommit)
// and dropping the others. Topics go by name up to v9 and by id from v10,
// resolved through ids where the TopicRef lacks the one needed. Errors: a
// version kmsg does not know, a topic that cannot be named at version.
func OffsetCommitRequestToKafka(version int16, c OffsetCommit, ids TopicIDs) (*kmsg.OffsetCommitRequest, error) {
	if err := kmsgVersion("OffsetCommitRequest", version, maxOffsetCommit); err != nil {
		return nil, err
	}
	r := kmsg.NewPtrOffsetCommitRequest()
	r.Version = version
	r.Group = c.Group
	if version >= 1 {
		r.Generation = c.GenerationOrEpoch
		r.MemberID = string(c.MemberID)
	}
	if version >= 2 && version <= 4 {
		r.RetentionTimeMillis = c.RetentionMillis
	}
	if version >= 7 {
		r.InstanceID = clonePtr(c.InstanceID)
	}
	for _, t := range c.Topics {
		kt := kmsg.NewOffsetCommitRequestTopic()
		var err error
		if kt.Topic, kt.TopicID, err = refToWire("OffsetCommitRequest", version, t.Topic, ids); err != nil {
			return nil, err
		}
		for _, p := range t.Partitions {
			kp := kmsg.NewOffsetCommitRequestTopicPartition()
			kp.Partition = p.Partition
			kp.Offset = p.Offset
			if version == 1 {
				kp.Timestamp = p.Timestamp
			}
			if version >= 6 {
				kp.LeaderEpoch = p.LeaderEpoch
			}
			kp.Metadata = clonePtr(p.Metadata)
			kt.Partitions = append(kt.Partitions, kp)
		}
		r.Topics = append(r.Topics, kt)
	}
	return r, nil
}

// Classic returns the fencing question c asks a classic group: member id,
// instance id (null as "") and GenerationIdOrMemberEpoch as the
// generation. Seq is 0.
func (c OffsetCommit) Classic() classic.OffsetCommitRequest {
	return classic.OffsetCommitRequest{MemberID: c.MemberID, InstanceID: deref(c.InstanceID), Generation: spec.Generation(c.GenerationOrEpoch)}
}

// NextGen returns the fencing question c, received at OffsetCommit
// version, asks a consumer group: group, member id, instance id,
// GenerationIdOrMemberEpoch as the member epoch, the version (the core
// answers UNSUPPORTED_VERSION to members below v9) and the partitions of
// the topics that resolved (judged one by one under KIP-1251). Seq is 0.
func (c OffsetCommit) NextGen(version int16) nextgen.OffsetCommitRequest {
	return nextgen.OffsetCommitRequest{GroupID: c.Group, MemberID: c.MemberID, InstanceID: clonePtr(c.InstanceID),
		MemberEpoch: spec.Epoch(c.GenerationOrEpoch), Version: version, Partitions: c.partitions()}
}

// partitions returns the partitions of c's topics that resolved to a
// name, as a set.
func (c OffsetCommit) partitions() spec.Set {
	var rs []spec.Resource
	for _, t := range c.Topics {
		if t.Topic.Name == "" {
			continue
		}
		for _, p := range t.Partitions {
			rs = append(rs, spec.TP(t.Topic.Name, p.Partition))
		}
	}
	return spec.NewSet(rs...)
}

// Answer returns the response to c, received at OffsetCommit version,
// when the fencing answer is code (NONE when the commit is accepted and
// stored) and stale are the partitions refused one by one (next-gen,
// KIP-1251): every partition gets code, or STALE_MEMBER_EPOCH when it is
// in stale and code is NONE, except, from v10, the partitions of a topic
// whose id did not resolve, which get UNKNOWN_TOPIC_ID whatever code is
// (Kafka resolves topic ids before the group coordinator sees the
// commit).
func (c OffsetCommit) Answer(version int16, code spec.ErrorCode, stale spec.Set) OffsetCommitResult {
	var res OffsetCommitResult
	for _, t := range c.Topics {
		e := code
		if version >= 10 && t.Topic.Name == "" {
			e = UnknownTopicID
		}
		rt := OffsetCommitTopicResult{Topic: t.Topic}
		for _, p := range t.Partitions {
			pe := e
			if e == spec.None && stale.Contains(spec.TP(t.Topic.Name, p.Partition)) {
				pe = spec.StaleMemberEpoch
			}
			rt.Partitions = append(rt.Partitions, PartitionError{Partition: p.Partition, Error: pe})
		}
		res.Topics = append(res.Topics, rt)
	}
	return res
}

// OffsetCommitResult is an OffsetCommitResponse: an error code for each
// partition of the request. The response has no group-level error: Kafka
// answers a fenced commit with the error on every partition.
type OffsetCommitResult struct {
	Topics []OffsetCommitTopicResult
}

// OffsetCommitTopicResult is one topic of an OffsetCommitResult.
type OffsetCommitTopicResult struct {
	Topic      TopicRef
	Partitions []PartitionError
}

// PartitionError is one partition's error code.
type PartitionError struct {
	Partition int32
	Error     spec.ErrorCode
}

// OffsetCommitResponseToKafka maps res onto an OffsetCommitResponse at
// version (0–10): Topics[{Name (v0–v9) or TopicId (v10+), Partitions[
// {PartitionIndex, ErrorCode}]}] in res's order. ThrottleTimeMs (v3+) is
// 0. Errors: a version kmsg does not know, a topic that cannot be named at
// version.
func OffsetCommitResponseToKafka(version int16, res OffsetCommitResult, ids TopicIDs) (*kmsg.OffsetCommitResponse, error) {
	if err := kmsgVersion("OffsetCommitResponse", version, maxOffsetCommit); err != nil {
		return nil, err
	}
	r := kmsg.NewPtrOffsetCommitResponse()
	r.Version = version
	for _, t := range res.Topics {
		kt := kmsg.NewOffsetCommitResponseTopic()
		var err error
		if kt.Topic, kt.TopicID, err = refToWire("OffsetCommitResponse", version, t.Topic, ids); err != nil {
			return nil, err
		}
		for _, p := range t.Partitions {
			kp := kmsg.NewOffsetCommitResponseTopicPartition()
			kp.Partition = p.Partition
			kp.ErrorCode = int16(p.Error)
			kt.Partitions = append(kt.Partitions, kp)
		}
		r.Topics = append(r.Topics, kt)
	}
	return r, nil
}

// OffsetCommitResponseFromKafka maps an OffsetCommitResponse (v0–v10),
// the inverse of OffsetCommitResponseToKafka (from v10 topic ids resolved
// through ids, Name "" when they do not resolve).
func OffsetCommitResponseFromKafka(r *kmsg.OffsetCommitResponse, ids TopicIDs) (OffsetCommitResult, error) {
	if r == nil {
		return OffsetCommitResult{}, errors.New("kwire: OffsetCommitResponseFromKafka: nil response")
	}
	if err := kmsgVersion("OffsetCommitResponse", r.Version, maxOffsetCommit); err != nil {
		return OffsetCommitResult{}, err
	}
	var res OffsetCommitResult
	for _, t := range r.Topics {
		rt := OffsetCommitTopicResult{Topic: refFromWire(r.Version, t.Topic, t.TopicID, ids)}
		for _, p := range t.Partitions {
			rt.Partitions = append(rt.Partitions, PartitionError{Partition: p.Partition, Error: spec.ErrorCode(p.ErrorCode)})
		}
		res.Topics = append(res.Topics, rt)
	}
	return res, nil
}

// idPtr returns a pointer to the member id as a string.
func idPtr(id spec.MemberID) *string {
	s := string(id)
	return &s
}

// cloneInt32s returns a copy of s, nil for an empty s.
func cloneInt32s(s []int32) []int32 {
	if len(s) == 0 {
		return nil
	}
	return append([]int32(nil), s...)
}
