package kwire

import (
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// The consumer embedded protocol (protocol type "consumer"): what a
// Kafka consumer puts in JoinGroup's protocol metadata
// (ConsumerProtocolSubscription, kmsg.ConsumerMemberMetadata) and what
// the leader puts in SyncGroup's assignments (ConsumerProtocolAssignment,
// kmsg.ConsumerMemberAssignment), over classic.Subscription and
// classic.Assignment. A classic.Metadata holds the bytes as a string.

// maxConsumerProtocol is the highest consumer embedded-protocol version
// Kafka defines (3: RackId); a higher one is read as this one, trailing
// bytes ignored, as Kafka's ConsumerProtocol does.
const maxConsumerProtocol int16 = 3

// ConsumerExtras is what a consumer subscription or assignment carries
// that the cores do not read: the embedded-protocol version, the rack
// (subscription v3+, nullable; KIP-881), and the assignor's opaque
// UserData (nullable).
type ConsumerExtras struct {
	Version  int16
	Rack     *string
	UserData []byte
}

// ConsumerSubscriptionToKafka maps s and x onto a ConsumerMemberMetadata
// at x.Version (0–3): Topics as s has them (sorted); OwnedPartitions
// (v1+) grouped by topic in set order; GenerationId (v2+); RackId (v3+)
// from x.Rack; UserData from x.UserData. Dropped: Owned below v1, the
// generation below v2, the rack below v3, and always s.Leader (the
// consumer protocol has no field for it). Errors: a version outside 0–3,
// an invalid owned set.
func ConsumerSubscriptionToKafka(s classic.Subscription, x ConsumerExtras) (*kmsg.ConsumerMemberMetadata, error) {
	if x.Version < 0 || x.Version > maxConsumerProtocol {
		return nil, fmt.Errorf("kwire: consumer subscription: version %d is not 0 to %d", x.Version, maxConsumerProtocol)
	}
	if err := s.Owned.Validate(); err != nil {
		return nil, fmt.Errorf("kwire: consumer subscription: owned: %w", err)
	}
	if slices.Contains(s.Topics, "") {
		return nil, errors.New("kwire: consumer subscription: empty topic name")
	}
	if i := slices.IndexFunc(s.Owned, spec.Resource.IsConnector); i >= 0 {
		return nil, fmt.Errorf("kwire: consumer subscription: owned %s is not a topic-partition", s.Owned[i])
	}
	m := new(kmsg.ConsumerMemberMetadata)
	m.Default()
	m.Version = x.Version
	m.Topics = slices.Clone(s.Topics)
	m.UserData = slices.Clone(x.UserData)
	if x.Version >= 1 {
		topics, parts := byTopic(s.Owned)
		for i, t := range topics {
			op := kmsg.NewConsumerMemberMetadataOwnedPartition()
			op.Topic = t
			op.Partitions = parts[i]
			m.OwnedPartitions = append(m.OwnedPartitions, op)
		}
	}
	if x.Version >= 2 {
		m.Generation = int32(s.Generation)
	}
	if x.Version >= 3 {
		m.Rack = clonePtr(x.Rack)
	}
	return m, nil
}

// ConsumerSubscriptionFromKafka maps a ConsumerMemberMetadata onto the
// core: Topics sorted and without duplicates; Owned from OwnedPartitions
// (v1+, empty below); Generation from GenerationId (v2+, NoGeneration
// below); Leader "" (not carried). The version, rack (v3+) and user data
// go to the extras. A version above 3 is read as 3. Errors: a negative
// version, an empty topic name, a negative owned partition.
func ConsumerSubscriptionFromKafka(m *kmsg.ConsumerMemberMetadata) (classic.Subscription, ConsumerExtras, error) {
	if m == nil {
		return classic.Subscription{}, ConsumerExtras{}, errors.New("kwire: consumer subscription: nil metadata")
	}
	if m.Version < 0 {
		return classic.Subscription{}, ConsumerExtras{}, fmt.Errorf("kwire: consumer subscription: version %d is negative", m.Version)
	}
	s := classic.Subscription{Generation: spec.NoGeneration}
	for _, t := range m.Topics {
		if t == "" {
			return classic.Subscription{}, ConsumerExtras{}, errors.New("kwire: consumer subscription: empty topic name")
		}
	}
	if len(m.Topics) > 0 {
		s.Topics = slices.Compact(slices.Sorted(slices.Values(m.Topics)))
	}
	x := ConsumerExtras{Version: m.Version, UserData: slices.Clone(m.UserData)}
	if m.Version >= 1 {
		var rs []spec.Resource
		for _, op := range m.OwnedPartitions {
			for _, p := range op.Partitions {
				r := spec.TP(op.Topic, p)
				if op.Topic == "" || p < 0 {
					return classic.Subscription{}, ConsumerExtras{}, fmt.Errorf("kwire: consumer subscription: owned partition %q %d is not a topic-partition", op.Topic, p)
				}
				rs = append(rs, r)
			}
		}
		s.Owned = spec.NewSet(rs...)
	}
	if m.Version >= 2 {
		s.Generation = spec.Generation(m.Generation)
	}
	if m.Version >= 3 {
		x.Rack = clonePtr(m.Rack)
	}
	return s, x, nil
}

// EncodeConsumerSubscription returns the bytes of
// ConsumerSubscriptionToKafka(s, x) (kmsg's AppendTo) as Metadata.
func EncodeConsumerSubscription(s classic.Subscription, x ConsumerExtras) (classic.Metadata, error) {
	m, err := ConsumerSubscriptionToKafka(s, x)
	if err != nil {
		return "", err
	}
	return classic.Metadata(m.AppendTo(nil)), nil
}

// DecodeConsumerSubscription reads md with kmsg's ReadFrom and maps it
// with ConsumerSubscriptionFromKafka. Errors name what is wrong:
// truncated bytes, a negative version, trailing bytes after a version
// this package knows (0–3), bad content.
func DecodeConsumerSubscription(md classic.Metadata) (classic.Subscription, ConsumerExtras, error) {
	m := new(kmsg.ConsumerMemberMetadata)
	m.Default()
	if err := readEmbedded("consumer subscription", md, m.ReadFrom, func() int { return len(m.AppendTo(nil)) }, &m.Version, maxConsumerProtocol); err != nil {
		return classic.Subscription{}, ConsumerExtras{}, err
	}
	return ConsumerSubscriptionFromKafka(m)
}

// ConsumerAssignmentToKafka maps a onto a ConsumerMemberAssignment at
// x.Version (0–3): Topics[{Topic, Partitions}] from a.Assigned grouped by
// topic in set order, UserData from x.UserData (x.Rack is not carried).
// a's Revoked, Delay, Leader and Error have no field in the consumer
// protocol and are dropped (a consumer derives what it revokes from the
// difference with what it owns). Errors: a version outside 0–3, an
// invalid set, a Connect resource (partition -1).
func ConsumerAssignmentToKafka(a classic.Assignment, x ConsumerExtras) (*kmsg.ConsumerMemberAssignment, error) {
	if x.Version < 0 || x.Version > maxConsumerProtocol {
		return nil, fmt.Errorf("kwire: consumer assignment: version %d is not 0 to %d", x.Version, maxConsumerProtocol)
	}
	if err := a.Assigned.Validate(); err != nil {
		return nil, fmt.Errorf("kwire: consumer assignment: %w", err)
	}
	m := new(kmsg.ConsumerMemberAssignment)
	m.Default()
	m.Version = x.Version
	if i := slices.IndexFunc(a.Assigned, spec.Resource.IsConnector); i >= 0 {
		return nil, fmt.Errorf("kwire: consumer assignment: %s is not a topic-partition", a.Assigned[i])
	}
	topics, parts := byTopic(a.Assigned)
	for i, t := range topics {
		at := kmsg.NewConsumerMemberAssignmentTopic()
		at.Topic = t
		at.Partitions = parts[i]
		m.Topics = append(m.Topics, at)
	}
	m.UserData = slices.Clone(x.UserData)
	return m, nil
}

// ConsumerAssignmentFromKafka maps a ConsumerMemberAssignment onto the
// core: Assigned is every listed topic-partition; Revoked, Delay, Leader
// and Error are zero (not carried). The version and user data go to the
// extras. Errors: a negative version, an empty topic name, a negative
// partition.
func ConsumerAssignmentFromKafka(m *kmsg.ConsumerMemberAssignment) (classic.Assignment, ConsumerExtras, error) {
	if m == nil {
		return classic.Assignment{}, ConsumerExtras{}, errors.New("kwire: consumer assignment: nil assignment")
	}
	if m.Version < 0 {
		return classic.Assignment{}, ConsumerExtras{}, fmt.Errorf("kwire: consumer assignment: version %d is negative", m.Version)
	}
	var rs []spec.Resource
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			if t.Topic == "" || p < 0 {
				return classic.Assignment{}, ConsumerExtras{}, fmt.Errorf("kwire: consumer assignment: %q %d is not a topic-partition", t.Topic, p)
			}
			rs = append(rs, spec.TP(t.Topic, p))
		}
	}
	return classic.Assignment{Assigned: spec.NewSet(rs...)}, ConsumerExtras{Version: m.Version, UserData: slices.Clone(m.UserData)}, nil
}

// EncodeConsumerAssignment returns the bytes of
// ConsumerAssignmentToKafka(a, x) as Metadata.
func EncodeConsumerAssignment(a classic.Assignment, x ConsumerExtras) (classic.Metadata, error) {
	m, err := ConsumerAssignmentToKafka(a, x)
	if err != nil {
		return "", err
	}
	return classic.Metadata(m.AppendTo(nil)), nil
}

// DecodeConsumerAssignment reads md with kmsg's ReadFrom and maps it with
// ConsumerAssignmentFromKafka. Errors as for DecodeConsumerSubscription.
// An empty md (a member the leader gave nothing, or a SyncGroup error) is
// not an assignment and is an error too; callers that accept it check for
// it first.
func DecodeConsumerAssignment(md classic.Metadata) (classic.Assignment, ConsumerExtras, error) {
	m := new(kmsg.ConsumerMemberAssignment)
	m.Default()
	if err := readEmbedded("consumer assignment", md, m.ReadFrom, func() int { return len(m.AppendTo(nil)) }, &m.Version, maxConsumerProtocol); err != nil {
		return classic.Assignment{}, ConsumerExtras{}, err
	}
	return ConsumerAssignmentFromKafka(m)
}

// readEmbedded decodes embedded-protocol bytes with kmsg's read and
// checks what kmsg does not: a negative version, and bytes left over
// after a version up to known (kmsg stops reading at the last field it
// knows; Kafka's decoders read a newer version as the newest they know
// and ignore what follows, so trailing bytes are allowed only there).
// encodedLen re-encodes what was read.
func readEmbedded(what string, md classic.Metadata, read func([]byte) error, encodedLen func() int, version *int16, known int16) error {
	b := []byte(md)
	if len(b) < 2 {
		return fmt.Errorf("kwire: %s: %d bytes, too short for the version", what, len(b))
	}
	if err := read(b); err != nil {
		return fmt.Errorf("kwire: %s: version %d: truncated or malformed: %w", what, *version, err)
	}
	if *version < 0 {
		return fmt.Errorf("kwire: %s: version %d is negative", what, *version)
	}
	if *version <= known {
		if n := encodedLen(); n != len(b) {
			return fmt.Errorf("kwire: %s: version %d: %d trailing bytes after the last field", what, *version, len(b)-n)
		}
	}
	return nil
}
