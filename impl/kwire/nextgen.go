package kwire

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// ConsumerGroupHeartbeat (API key 68, KIP-848) over model/nextgen's
// HeartbeatRequest and HeartbeatResponse. Topic-partitions travel by
// topic id; the core names topics, so every mapping takes a TopicIDs.

var maxConsumerGroupHeartbeat = new(kmsg.ConsumerGroupHeartbeatRequest).MaxVersion() // 1

// RegexNotSupported is the message of the INVALID_REQUEST that
// ConsumerGroupHeartbeatRequestFromKafka returns for a request with a
// SubscribedTopicRegex: the next-gen core has no regular-expression
// subscriptions.
const RegexNotSupported = "SubscribedTopicRegex is not supported by this coordinator"

// ConsumerGroupHeartbeatRequestFromKafka maps a
// ConsumerGroupHeartbeatRequest (v0–v1) onto the core:
//
//   - GroupId, MemberId, MemberEpoch, RebalanceTimeoutMs copied;
//   - InstanceId, RackId, ServerAssignor (nullable) → the core's
//     pointers, nil for null ("not sent") and a pointer to "" for an
//     empty string;
//   - SubscribedTopicNames (nullable): null → SubscriptionSent false and a
//     nil list; otherwise SubscriptionSent true and the names in request
//     order (a non-nil empty list when sent empty);
//   - TopicPartitions (nullable, by topic id): null → OwnedSent false;
//     otherwise OwnedSent true and the partitions as a set. A topic id
//     that ids does not resolve is dropped with its partitions: the core has
//     no name for it, and a member cannot own partitions of a topic that
//     does not exist (Kafka's CurrentAssignmentBuilder compares the owned
//     list with the member's assignment, so such entries have no effect
//     there either). Negative partition numbers are dropped for the same
//     reason (no assignment holds them).
//   - SubscribedTopicRegex (v1+): the core has no regex subscriptions, so
//     a non-null regex is an INVALID_REQUEST with RegexNotSupported as the
//     message, never dropped.
//
// Seq is 0. Errors: UNSUPPORTED_VERSION, the INVALID_REQUEST above; a nil
// ids is the caller's bug (plain error).
func ConsumerGroupHeartbeatRequestFromKafka(r *kmsg.ConsumerGroupHeartbeatRequest, ids TopicIDs) (nextgen.HeartbeatRequest, error) {
	if r == nil {
		return nextgen.HeartbeatRequest{}, errors.New("kwire: ConsumerGroupHeartbeatRequestFromKafka: nil request")
	}
	if ids == nil {
		return nextgen.HeartbeatRequest{}, errors.New("kwire: ConsumerGroupHeartbeatRequestFromKafka: nil TopicIDs")
	}
	if err := requestVersion("ConsumerGroupHeartbeat", r); err != nil {
		return nextgen.HeartbeatRequest{}, err
	}
	if r.Version >= 1 && r.SubscribedTopicRegex != nil {
		return nextgen.HeartbeatRequest{}, invalidRequest("%s", RegexNotSupported)
	}
	req := nextgen.HeartbeatRequest{
		GroupID:            r.Group,
		MemberID:           spec.MemberID(r.MemberID),
		MemberEpoch:        spec.Epoch(r.MemberEpoch),
		InstanceID:         clonePtr(r.InstanceID),
		RackID:             clonePtr(r.RackID),
		RebalanceTimeoutMs: r.RebalanceTimeoutMillis,
		ServerAssignor:     clonePtr(r.ServerAssignor),
	}
	if r.SubscribedTopicNames != nil {
		req.SubscriptionSent = true
		req.SubscribedTopicNames = append([]string{}, r.SubscribedTopicNames...)
	}
	if r.Topics != nil {
		req.OwnedSent = true
		var rs []spec.Resource
		for _, t := range r.Topics {
			name, ok := resolveName(ids, t.TopicID)
			if !ok {
				continue
			}
			for _, p := range t.Partitions {
				if p >= 0 {
					rs = append(rs, spec.TP(name, p))
				}
			}
		}
		req.TopicPartitions = spec.NewSet(rs...)
	}
	return req, nil
}

// ConsumerGroupHeartbeatRequestToKafka maps req onto a
// ConsumerGroupHeartbeatRequest at version (0–1), the inverse of
// ConsumerGroupHeartbeatRequestFromKafka: SubscriptionSent and OwnedSent
// decide null versus a (possibly empty) list; owned partitions whose
// topic has no id in ids are dropped (a topic without an id does not
// exist for the broker). SubscribedTopicRegex is always null (the core
// has none). Seq is ignored. Errors: a version kmsg does not know, a nil
// ids.
func ConsumerGroupHeartbeatRequestToKafka(version int16, req nextgen.HeartbeatRequest, ids TopicIDs) (*kmsg.ConsumerGroupHeartbeatRequest, error) {
	if err := kmsgVersion("ConsumerGroupHeartbeatRequest", version, maxConsumerGroupHeartbeat); err != nil {
		return nil, err
	}
	if ids == nil {
		return nil, errors.New("kwire: ConsumerGroupHeartbeatRequestToKafka: nil TopicIDs")
	}
	r := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	r.Version = version
	r.Group = req.GroupID
	r.MemberID = string(req.MemberID)
	r.MemberEpoch = int32(req.MemberEpoch)
	r.InstanceID = clonePtr(req.InstanceID)
	r.RackID = clonePtr(req.RackID)
	r.RebalanceTimeoutMillis = req.RebalanceTimeoutMs
	r.ServerAssignor = clonePtr(req.ServerAssignor)
	if req.SubscriptionSent {
		r.SubscribedTopicNames = append([]string{}, req.SubscribedTopicNames...)
	}
	if req.OwnedSent {
		r.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
		topics, parts := byTopic(req.TopicPartitions)
		for i, name := range topics {
			id, ok := resolveID(ids, name)
			if !ok {
				continue
			}
			t := kmsg.NewConsumerGroupHeartbeatRequestTopic()
			t.TopicID = id
			t.Partitions = parts[i]
			r.Topics = append(r.Topics, t)
		}
	}
	return r, nil
}

// ConsumerGroupHeartbeatResponseToKafka maps resp onto a
// ConsumerGroupHeartbeatResponse at version (0–1):
//
//   - ErrorCode, MemberEpoch, HeartbeatIntervalMs copied;
//   - ErrorMessage (nullable): "" → null;
//   - MemberId (nullable; Kafka sends it on every accepted heartbeat and
//     null on errors): "" → null;
//   - Assignment (nullable): null when AssignmentSent is false, otherwise
//     the partitions grouped by topic id, topics in name order and
//     partitions ascending. A topic that ids does not resolve is dropped: there
//     is nothing to hand out of a topic that does not exist.
//
// ThrottleTimeMs is 0; Seq is ignored. Errors: a version kmsg does not
// know, a nil ids.
func ConsumerGroupHeartbeatResponseToKafka(version int16, resp nextgen.HeartbeatResponse, ids TopicIDs) (*kmsg.ConsumerGroupHeartbeatResponse, error) {
	if err := kmsgVersion("ConsumerGroupHeartbeatResponse", version, maxConsumerGroupHeartbeat); err != nil {
		return nil, err
	}
	if ids == nil {
		return nil, errors.New("kwire: ConsumerGroupHeartbeatResponseToKafka: nil TopicIDs")
	}
	r := kmsg.NewPtrConsumerGroupHeartbeatResponse()
	r.Version = version
	r.ErrorCode = int16(resp.Error)
	r.ErrorMessage = nullable(resp.ErrorMessage)
	r.MemberID = nullable(string(resp.MemberID))
	r.MemberEpoch = int32(resp.MemberEpoch)
	r.HeartbeatIntervalMillis = resp.HeartbeatIntervalMs
	if resp.AssignmentSent {
		a := kmsg.NewConsumerGroupHeartbeatResponseAssignment()
		topics, parts := byTopic(resp.Assignment)
		for i, name := range topics {
			id, ok := resolveID(ids, name)
			if !ok {
				continue
			}
			t := kmsg.NewConsumerGroupHeartbeatResponseAssignmentTopic()
			t.TopicID = id
			t.Partitions = parts[i]
			a.Topics = append(a.Topics, t)
		}
		r.Assignment = &a
	}
	return r, nil
}

// ConsumerGroupHeartbeatResponseFromKafka maps a
// ConsumerGroupHeartbeatResponse (v0–v1) onto the core, the inverse of
// ConsumerGroupHeartbeatResponseToKafka: null strings as "", a null
// assignment as AssignmentSent false; assigned topic ids that ids does
// not resolve, and negative partitions, are dropped (as on the request
// side). Seq is 0.
func ConsumerGroupHeartbeatResponseFromKafka(r *kmsg.ConsumerGroupHeartbeatResponse, ids TopicIDs) (nextgen.HeartbeatResponse, error) {
	if r == nil {
		return nextgen.HeartbeatResponse{}, errors.New("kwire: ConsumerGroupHeartbeatResponseFromKafka: nil response")
	}
	if ids == nil {
		return nextgen.HeartbeatResponse{}, errors.New("kwire: ConsumerGroupHeartbeatResponseFromKafka: nil TopicIDs")
	}
	if err := kmsgVersion("ConsumerGroupHeartbeatResponse", r.Version, maxConsumerGroupHeartbeat); err != nil {
		return nextgen.HeartbeatResponse{}, err
	}
	resp := nextgen.HeartbeatResponse{
		Error:               spec.ErrorCode(r.ErrorCode),
		ErrorMessage:        deref(r.ErrorMessage),
		MemberID:            spec.MemberID(deref(r.MemberID)),
		MemberEpoch:         spec.Epoch(r.MemberEpoch),
		HeartbeatIntervalMs: r.HeartbeatIntervalMillis,
	}
	if r.Assignment != nil {
		resp.AssignmentSent = true
		var rs []spec.Resource
		for _, t := range r.Assignment.Topics {
			name, ok := resolveName(ids, t.TopicID)
			if !ok {
				continue
			}
			for _, p := range t.Partitions {
				if p >= 0 {
					rs = append(rs, spec.TP(name, p))
				}
			}
		}
		resp.Assignment = spec.NewSet(rs...)
	}
	return resp, nil
}
