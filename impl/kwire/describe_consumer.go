package kwire

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// ConsumerGroupDescribe (API key 69, v0–v1) over a plain description of a
// next-gen group (ConsumerGroupDescription), which DescribeConsumerGroup
// fills from a *nextgen.Coordinator. GroupFound and
// AuthorizedOperationsNotRequested are in describe.go.

// ConsumerGroupDescribe is a ConsumerGroupDescribeRequest: the group ids
// and whether the client asks for its authorized operations.
type ConsumerGroupDescribe struct {
	Groups                      []string
	IncludeAuthorizedOperations bool
}

// ConsumerGroupDescribeRequestFromKafka maps a
// ConsumerGroupDescribeRequest (v0–v1). Errors: UNSUPPORTED_VERSION.
func ConsumerGroupDescribeRequestFromKafka(r *kmsg.ConsumerGroupDescribeRequest) (ConsumerGroupDescribe, error) {
	if r == nil {
		return ConsumerGroupDescribe{}, errors.New("kwire: ConsumerGroupDescribeRequestFromKafka: nil request")
	}
	if err := requestVersion("ConsumerGroupDescribe", r); err != nil {
		return ConsumerGroupDescribe{}, err
	}
	return ConsumerGroupDescribe{Groups: cloneNonEmpty(r.Groups), IncludeAuthorizedOperations: r.IncludeAuthorizedOperations}, nil
}

// ConsumerGroupDescribeRequestToKafka maps d onto a
// ConsumerGroupDescribeRequest at version (0–1).
func ConsumerGroupDescribeRequestToKafka(version int16, d ConsumerGroupDescribe) (*kmsg.ConsumerGroupDescribeRequest, error) {
	if err := kmsgVersion("ConsumerGroupDescribeRequest", version, maxConsumerGroupDescribe); err != nil {
		return nil, err
	}
	r := kmsg.NewPtrConsumerGroupDescribeRequest()
	r.Version = version
	r.Groups = cloneNonEmpty(d.Groups)
	r.IncludeAuthorizedOperations = d.IncludeAuthorizedOperations
	return r, nil
}

// ConsumerGroupDescription is what ConsumerGroupDescribe reports of one
// next-gen group, as plain data (DescribeConsumerGroup fills it from a
// coordinator).
type ConsumerGroupDescription struct {
	Group string
	// Error is a group-level error other than "not found"; the entry then
	// carries nothing else. NONE otherwise.
	Error spec.ErrorCode
	// Found: whether the group exists as a consumer group; the fields
	// below describe it only then.
	Found GroupFound
	// State is Kafka's name of the state: "Empty", "Assigning",
	// "Reconciling" or "Stable".
	State           string
	GroupEpoch      spec.Epoch
	AssignmentEpoch spec.Epoch
	AssignorName    string
	Members         []ConsumerGroupMember
}

// ConsumerGroupMember is one member of a ConsumerGroupDescription.
type ConsumerGroupMember struct {
	MemberID spec.MemberID
	// InstanceID and RackID: "" when the member has none (null on the
	// wire).
	InstanceID, RackID string
	MemberEpoch        spec.Epoch
	// ClientID and ClientHost: as the transport knew them, "" if unknown.
	ClientID, ClientHost string
	SubscribedTopicNames []string
	// Assignment is what the member is assigned now; TargetAssignment
	// its slice of the target assignment.
	Assignment, TargetAssignment spec.Set
}

// notConsumerMessage is Kafka's message for a group of the other family
// (GroupMetadataManager.consumerGroup).
func notConsumerMessage(group string) string {
	return fmt.Sprintf("Group %s is not a consumer group", group)
}

// ConsumerGroupDescribeResponseToKafka maps groups onto a
// ConsumerGroupDescribeResponse at version (0–1), in order:
//
//   - a Found group: GroupState, GroupEpoch, AssignmentEpoch,
//     AssignorName, and members in order with MemberId, InstanceId and
//     RackId ("" → null), MemberEpoch, ClientId, ClientHost,
//     SubscribedTopicNames, SubscribedTopicRegex null (the core has
//     none), Assignment and TargetAssignment as TopicPartitions[{TopicId,
//     TopicName, Partitions}] in topic-name order, and from v1 MemberType
//     1 (a consumer-protocol member: the next-gen core has no classic
//     members). A topic that ids does not resolve is left out, as Kafka leaves
//     out topics missing from its metadata image;
//   - NotFound / OtherFamily: GROUP_ID_NOT_FOUND with Kafka's message
//     ("Group X not found." / "Group X is not a consumer group");
//   - an entry with Error set: that ErrorCode and nothing else.
//
// AuthorizedOperations is AuthorizedOperationsNotRequested; ThrottleTimeMs
// 0. Errors: a version kmsg does not know, a nil ids, a GroupFound value
// out of range.
func ConsumerGroupDescribeResponseToKafka(version int16, groups []ConsumerGroupDescription, ids TopicIDs) (*kmsg.ConsumerGroupDescribeResponse, error) {
	if err := kmsgVersion("ConsumerGroupDescribeResponse", version, maxConsumerGroupDescribe); err != nil {
		return nil, err
	}
	if ids == nil {
		return nil, errors.New("kwire: ConsumerGroupDescribeResponseToKafka: nil TopicIDs")
	}
	r := kmsg.NewPtrConsumerGroupDescribeResponse()
	r.Version = version
	for _, g := range groups {
		kg := kmsg.NewConsumerGroupDescribeResponseGroup()
		kg.Group = g.Group
		kg.AuthorizedOperations = AuthorizedOperationsNotRequested
		switch {
		case g.Error != spec.None:
			kg.ErrorCode = int16(g.Error)
		case g.Found == NotFound:
			kg.ErrorCode = int16(spec.GroupIDNotFound)
			kg.ErrorMessage = nullable(fmt.Sprintf("Group %s not found.", g.Group))
		case g.Found == OtherFamily:
			kg.ErrorCode = int16(spec.GroupIDNotFound)
			kg.ErrorMessage = nullable(notConsumerMessage(g.Group))
		case g.Found == Found:
			kg.State = g.State
			kg.Epoch = int32(g.GroupEpoch)
			kg.AssignmentEpoch = int32(g.AssignmentEpoch)
			kg.AssignorName = g.AssignorName
			for _, m := range g.Members {
				km := kmsg.NewConsumerGroupDescribeResponseGroupMember()
				km.MemberID = string(m.MemberID)
				km.InstanceID = nullable(m.InstanceID)
				km.RackID = nullable(m.RackID)
				km.MemberEpoch = int32(m.MemberEpoch)
				km.ClientID = m.ClientID
				km.ClientHost = m.ClientHost
				km.SubscribedTopics = cloneNonEmpty(m.SubscribedTopicNames)
				km.Assignment = describeAssignment(m.Assignment, ids)
				km.TargetAssignment = describeAssignment(m.TargetAssignment, ids)
				if version >= 1 {
					km.MemberType = 1
				}
				kg.Members = append(kg.Members, km)
			}
		default:
			return nil, fmt.Errorf("kwire: ConsumerGroupDescribeResponse: group %q: GroupFound %d out of range", g.Group, g.Found)
		}
		r.Groups = append(r.Groups, kg)
	}
	return r, nil
}

// describeAssignment writes s as a ConsumerGroupDescribe Assignment,
// leaving out topics that ids does not resolve.
func describeAssignment(s spec.Set, ids TopicIDs) kmsg.Assignment {
	a := kmsg.NewAssignment()
	topics, parts := byTopic(s)
	for i, name := range topics {
		id, ok := resolveID(ids, name)
		if !ok {
			continue
		}
		tp := kmsg.NewAssignmentTopicPartition()
		tp.TopicID = id
		tp.Topic = name
		tp.Partitions = parts[i]
		a.TopicPartitions = append(a.TopicPartitions, tp)
	}
	return a
}

// ConsumerGroupDescribeResponseFromKafka maps a
// ConsumerGroupDescribeResponse (v0–v1), the inverse of
// ConsumerGroupDescribeResponseToKafka: GROUP_ID_NOT_FOUND is NotFound, or
// OtherFamily with Kafka's "is not a consumer group" message; other
// errors are Error. Assigned topics are named by TopicName, or by
// resolving TopicId through ids when the name is empty. MemberType and
// SubscribedTopicRegex are not read (the core has neither classic members
// nor regexes). Errors: a topic with neither a name nor a resolvable id, a
// negative partition.
func ConsumerGroupDescribeResponseFromKafka(r *kmsg.ConsumerGroupDescribeResponse, ids TopicIDs) ([]ConsumerGroupDescription, error) {
	if r == nil {
		return nil, errors.New("kwire: ConsumerGroupDescribeResponseFromKafka: nil response")
	}
	if err := kmsgVersion("ConsumerGroupDescribeResponse", r.Version, maxConsumerGroupDescribe); err != nil {
		return nil, err
	}
	var out []ConsumerGroupDescription
	for _, kg := range r.Groups {
		g := ConsumerGroupDescription{Group: kg.Group}
		switch code := spec.ErrorCode(kg.ErrorCode); {
		case code == spec.GroupIDNotFound:
			g.Found = NotFound
			if deref(kg.ErrorMessage) == notConsumerMessage(kg.Group) {
				g.Found = OtherFamily
			}
		case code != spec.None:
			g.Error = code
		default:
			g.State = kg.State
			g.GroupEpoch = spec.Epoch(kg.Epoch)
			g.AssignmentEpoch = spec.Epoch(kg.AssignmentEpoch)
			g.AssignorName = kg.AssignorName
			for _, km := range kg.Members {
				m := ConsumerGroupMember{
					MemberID: spec.MemberID(km.MemberID), InstanceID: deref(km.InstanceID), RackID: deref(km.RackID),
					MemberEpoch: spec.Epoch(km.MemberEpoch), ClientID: km.ClientID, ClientHost: km.ClientHost,
					SubscribedTopicNames: cloneNonEmpty(km.SubscribedTopics),
				}
				var err error
				if m.Assignment, err = describedSet(kg.Group, km.MemberID, "Assignment", km.Assignment, ids); err != nil {
					return nil, err
				}
				if m.TargetAssignment, err = describedSet(kg.Group, km.MemberID, "TargetAssignment", km.TargetAssignment, ids); err != nil {
					return nil, err
				}
				g.Members = append(g.Members, m)
			}
		}
		out = append(out, g)
	}
	return out, nil
}

// describedSet reads a ConsumerGroupDescribe Assignment.
func describedSet(group, member, field string, a kmsg.Assignment, ids TopicIDs) (spec.Set, error) {
	var rs []spec.Resource
	for _, tp := range a.TopicPartitions {
		name := tp.Topic
		if name == "" {
			n, ok := resolveName(ids, tp.TopicID)
			if !ok {
				return nil, fmt.Errorf("kwire: ConsumerGroupDescribeResponse: group %q member %q: %s: topic id %x has no name", group, member, field, tp.TopicID)
			}
			name = n
		}
		for _, p := range tp.Partitions {
			if p < 0 {
				return nil, fmt.Errorf("kwire: ConsumerGroupDescribeResponse: group %q member %q: %s: partition %d of %q is negative", group, member, field, p, name)
			}
			rs = append(rs, spec.TP(name, p))
		}
	}
	return spec.NewSet(rs...), nil
}

// consumerStates maps the next-gen core's states to Kafka's names
// (ConsumerGroup.ConsumerGroupState.toString).
var consumerStates = map[nextgen.GroupState]string{
	nextgen.GroupEmpty:       "Empty",
	nextgen.GroupAssigning:   "Assigning",
	nextgen.GroupReconciling: "Reconciling",
	nextgen.GroupStable:      "Stable",
}

// DescribeConsumerGroup describes c's group, named group, for
// ConsumerGroupDescribe, as Kafka's ConsumerGroup.asDescribedGroup does:
// the state's Kafka name, the group epoch, the target assignment epoch,
// PreferredAssignor as the assignor name, and every recorded member
// (static members parked at epoch -2 included), sorted by id, with its
// instance id, rack, epoch, subscription, assigned partitions (without
// those pending revocation, as Kafka's assignedPartitions) and target.
// The coordinator does not record client ids and hosts: clients supplies
// them per member (a member missing from it gets ""). A nil c, or one
// whose group does not exist yet, is NotFound.
func DescribeConsumerGroup(c *nextgen.Coordinator, group string, clients map[spec.MemberID]Client) ConsumerGroupDescription {
	if c == nil || !c.Exists() {
		return ConsumerGroupDescription{Group: group, Found: NotFound}
	}
	state, ok := consumerStates[c.State()]
	if !ok {
		state = c.State().String()
	}
	d := ConsumerGroupDescription{
		Group: group, Found: Found, State: state,
		GroupEpoch: c.GroupEpoch(), AssignmentEpoch: c.TargetEpoch(), AssignorName: c.PreferredAssignor(),
	}
	for _, id := range c.Members() {
		m, ok := c.Member(id)
		if !ok {
			continue
		}
		cl := clients[id]
		d.Members = append(d.Members, ConsumerGroupMember{
			MemberID: id, InstanceID: m.InstanceID, RackID: m.Rack, MemberEpoch: m.Epoch,
			ClientID: cl.ID, ClientHost: cl.Host,
			SubscribedTopicNames: cloneNonEmpty(m.Subscription),
			Assignment:           m.Assigned, TargetAssignment: m.Target,
		})
	}
	return d
}
