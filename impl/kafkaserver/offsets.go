package kafkaserver

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/impl"
	"github.com/rebalance-ref/rebalance/impl/kwire"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file answers the offset APIs the group coordinator owns:
// OffsetCommit and OffsetFetch (Kafka's OffsetMetadataManager), fenced by
// the group's coordinator and stored with the group's driver.

// offsetCommit is commitOffset: the commit is fenced by the group's
// coordinator (classic: generation, member id, instance id; next-gen:
// member epoch) and stored in the same step of its driver. A group that
// does not exist takes a commit from outside group management (generation
// -1: a "simple" group is created, as Kafka does) and otherwise answers
// GROUP_ID_NOT_FOUND (v9+) or ILLEGAL_GENERATION (older versions).
func (s *Server) offsetCommit(ctx context.Context, r *kmsg.OffsetCommitRequest) (kmsg.Response, error) {
	v := r.GetVersion()
	c, err := kwire.OffsetCommitRequestFromKafka(r, s.topics)
	if err != nil {
		if code, ok := requestCode(err); ok {
			return kwire.OffsetCommitResponseToKafka(v, answerAll(r, code), s.topics)
		}
		return nil, err
	}
	respond := func(code spec.ErrorCode, stale spec.Set) (kmsg.Response, error) {
		return kwire.OffsetCommitResponseToKafka(v, c.Answer(v, code, stale), s.topics)
	}
	if blankGroup(c.Group) {
		return respond(spec.InvalidGroupID, nil)
	}
	offsets := impl.Offsets{}
	for _, t := range c.Topics {
		if t.Topic.Name == "" {
			continue // an unknown topic id: answered UNKNOWN_TOPIC_ID
		}
		for _, p := range t.Partitions {
			offsets[spec.TP(t.Topic.Name, p.Partition)] = impl.Offset{Offset: p.Offset, LeaderEpoch: p.LeaderEpoch, Metadata: p.Metadata}
		}
	}
	var g *group
	if c.GenerationOrEpoch < 0 {
		g, err = s.lookupOrCreate(c.Group)
	} else {
		g, err = s.lookup(c.Group)
	}
	if err != nil {
		return nil, err
	}
	if g == nil {
		if v >= 9 {
			return respond(spec.GroupIDNotFound, nil)
		}
		return respond(spec.IllegalGeneration, nil)
	}
	g.mu.Lock()
	cg, ng := g.classic, g.nextgen
	if cg == nil && ng == nil {
		// A simple group: created by this commit.
		cg, _, err = s.asClassic(ctx, g, true)
	}
	g.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if ng != nil {
		resp, err := ng.Commit(ctx, c.NextGen(v), offsets)
		if err != nil {
			return nil, err
		}
		return respond(resp.Error, resp.StalePartitions)
	}
	code, err := cg.Commit(ctx, c.Classic(), offsets)
	if err != nil {
		return nil, err
	}
	return respond(code, nil)
}

// answerAll answers every partition of a commit that could not be read.
func answerAll(r *kmsg.OffsetCommitRequest, code spec.ErrorCode) kwire.OffsetCommitResult {
	var res kwire.OffsetCommitResult
	for _, t := range r.Topics {
		rt := kwire.OffsetCommitTopicResult{Topic: kwire.TopicRef{Name: t.Topic, ID: t.TopicID}}
		for _, p := range t.Partitions {
			rt.Partitions = append(rt.Partitions, kwire.PartitionError{Partition: p.Partition, Error: code})
		}
		res.Topics = append(res.Topics, rt)
	}
	return res
}

// offsetFetch is fetchOffsets for each group of the request: a consumer
// group fences the fetch by member epoch (v9+ names the member), a
// classic group answers anyone, an unknown group has no offsets. A
// partition without a committed offset answers -1.
func (s *Server) offsetFetch(ctx context.Context, r *kmsg.OffsetFetchRequest) (kmsg.Response, error) {
	v := r.GetVersion()
	f, err := kwire.OffsetFetchRequestFromKafka(r, s.topics)
	if err != nil {
		return nil, err
	}
	var out []kwire.OffsetFetchGroupResult
	for _, fg := range f.Groups {
		res, err := s.fetchGroup(ctx, fg)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return kwire.OffsetFetchResponseToKafka(v, out, s.topics)
}

func (s *Server) fetchGroup(ctx context.Context, fg kwire.OffsetFetchGroup) (kwire.OffsetFetchGroupResult, error) {
	res := kwire.OffsetFetchGroupResult{Group: fg.Group}
	if blankGroup(fg.Group) {
		res.Error = spec.InvalidGroupID
		return res, nil
	}
	var which []spec.Resource
	if fg.Topics != nil {
		which = []spec.Resource{}
		for _, t := range fg.Topics {
			for _, p := range t.Partitions {
				which = append(which, spec.TP(t.Topic.Name, p))
			}
		}
	}
	g, err := s.lookup(fg.Group)
	if err != nil {
		return res, err
	}
	var offsets impl.Offsets
	if g != nil {
		g.mu.Lock()
		cg, ng := g.classic, g.nextgen
		g.mu.Unlock()
		switch {
		case ng != nil:
			resp, o, err := ng.Fetch(ctx, nextgen.OffsetFetchRequest{GroupID: fg.Group, MemberID: fg.MemberID, MemberEpoch: fg.MemberEpoch}, which)
			if err != nil {
				return res, err
			}
			if resp.Error != spec.None {
				res.Error = resp.Error
				return res, nil
			}
			offsets = o
		case cg != nil:
			if offsets, err = cg.Offsets(ctx, which); err != nil {
				return res, err
			}
		}
	}
	partition := func(p int32, o impl.Offset, ok bool) kwire.OffsetFetchPartition {
		if !ok {
			return kwire.OffsetFetchPartition{Partition: p, Offset: -1, LeaderEpoch: -1}
		}
		return kwire.OffsetFetchPartition{Partition: p, Offset: o.Offset, LeaderEpoch: o.LeaderEpoch, Metadata: o.Metadata}
	}
	if fg.Topics != nil {
		for _, t := range fg.Topics {
			rt := kwire.OffsetFetchTopicResult{Topic: t.Topic}
			for _, p := range t.Partitions {
				part := partition(p, impl.Offset{}, false)
				if t.Topic.Name == "" {
					part.Error = kwire.UnknownTopicID
				} else if o, ok := offsets[spec.TP(t.Topic.Name, p)]; ok {
					part = partition(p, o, true)
				}
				rt.Partitions = append(rt.Partitions, part)
			}
			res.Topics = append(res.Topics, rt)
		}
		return res, nil
	}
	// Every committed offset, by topic.
	rs := make([]spec.Resource, 0, len(offsets))
	for r := range offsets {
		rs = append(rs, r)
	}
	slices.SortFunc(rs, spec.Resource.Compare)
	for _, r := range rs {
		if n := len(res.Topics); n == 0 || res.Topics[n-1].Topic.Name != r.Topic {
			ref := kwire.TopicRef{Name: r.Topic}
			if id, ok := s.topics.TopicID(r.Topic); ok {
				ref.ID = id
			}
			res.Topics = append(res.Topics, kwire.OffsetFetchTopicResult{Topic: ref})
		}
		last := &res.Topics[len(res.Topics)-1]
		last.Partitions = append(last.Partitions, partition(r.Partition, offsets[r], true))
	}
	return res, nil
}

// txnOffsetCommit refuses transactional commits: their offsets become
// visible only when the transaction commits, which the transaction
// coordinator (kfake's) decides, and this server cannot see. Every
// partition answers UNSUPPORTED_VERSION, so a transactional client fails
// loudly instead of losing its offsets.
func txnOffsetCommit(r *kmsg.TxnOffsetCommitRequest) kmsg.Response {
	resp := r.ResponseKind().(*kmsg.TxnOffsetCommitResponse)
	for _, t := range r.Topics {
		rt := kmsg.NewTxnOffsetCommitResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewTxnOffsetCommitResponseTopicPartition()
			rp.Partition = p.Partition
			rp.ErrorCode = int16(spec.UnsupportedVersion)
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}
