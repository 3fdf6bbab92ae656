package kwire

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// DescribeGroups (API key 15, v0–v6) over classic.GroupDescription; the
// next-gen ConsumerGroupDescribe is in describe_consumer.go. GroupFound
// and AuthorizedOperationsNotRequested serve both.

var (
	maxDescribeGroups        = new(kmsg.DescribeGroupsRequest).MaxVersion()        // 6
	maxConsumerGroupDescribe = new(kmsg.ConsumerGroupDescribeRequest).MaxVersion() // 1
)

// AuthorizedOperationsNotRequested is Kafka's Integer.MIN_VALUE default of
// AuthorizedOperations: what the describe responses carry when the client
// did not ask for the operations or, as here, the server computes none.
const AuthorizedOperationsNotRequested int32 = -2147483648

// deadState is the state Kafka reports for a group DescribeGroups cannot
// describe (ClassicGroupState.DEAD).
const deadState = "Dead"

// GroupFound says what a coordinator has under a group id.
type GroupFound uint8

// The answers to "which group is this id?".
const (
	// Found is a group of the family the describe API is for.
	Found GroupFound = iota
	// NotFound is no group with this id.
	NotFound
	// OtherFamily is a group of the other family (a consumer group asked
	// for with DescribeGroups, a classic group with
	// ConsumerGroupDescribe).
	OtherFamily
)

// DescribeGroups is a DescribeGroupsRequest: the group ids, and whether
// the client asks for its authorized operations (v3+; this package's
// responses never compute them).
type DescribeGroups struct {
	Groups                      []string
	IncludeAuthorizedOperations bool
}

// DescribeGroupsRequestFromKafka maps a DescribeGroupsRequest (v0–v6):
// Groups in order; IncludeAuthorizedOperations from v3. Errors:
// UNSUPPORTED_VERSION.
func DescribeGroupsRequestFromKafka(r *kmsg.DescribeGroupsRequest) (DescribeGroups, error) {
	if r == nil {
		return DescribeGroups{}, errors.New("kwire: DescribeGroupsRequestFromKafka: nil request")
	}
	if err := requestVersion("DescribeGroups", r); err != nil {
		return DescribeGroups{}, err
	}
	return DescribeGroups{Groups: cloneNonEmpty(r.Groups), IncludeAuthorizedOperations: r.Version >= 3 && r.IncludeAuthorizedOperations}, nil
}

// DescribeGroupsRequestToKafka maps d onto a DescribeGroupsRequest at
// version (0–6), dropping IncludeAuthorizedOperations below v3.
func DescribeGroupsRequestToKafka(version int16, d DescribeGroups) (*kmsg.DescribeGroupsRequest, error) {
	if err := kmsgVersion("DescribeGroupsRequest", version, maxDescribeGroups); err != nil {
		return nil, err
	}
	r := kmsg.NewPtrDescribeGroupsRequest()
	r.Version = version
	r.Groups = cloneNonEmpty(d.Groups)
	if version >= 3 {
		r.IncludeAuthorizedOperations = d.IncludeAuthorizedOperations
	}
	return r, nil
}

// DescribedGroup is one group of a DescribeGroups answer.
type DescribedGroup struct {
	Group string
	// Error is a group-level error other than "not found"
	// (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, ...): the entry then
	// carries nothing else. NONE otherwise.
	Error spec.ErrorCode
	// Found says whether the coordinator has the group as a classic group
	// (then Description describes it), has no such group, or has it as a
	// consumer group.
	Found       GroupFound
	Description classic.GroupDescription
}

// notClassicMessage is Kafka's GroupIdNotFoundException message for a
// group of the other family (GroupMetadataManager.classicGroup).
func notClassicMessage(group string) string {
	return fmt.Sprintf("Group %s is not a classic group.", group)
}

// DescribeGroupsResponseToKafka maps groups onto a DescribeGroupsResponse
// at version (0–6), in order, as Kafka's GroupMetadataManager.describeGroups
// builds it:
//
//   - a Found group: ErrorCode NONE, GroupState (Kafka's name: Empty,
//     PreparingRebalance, CompletingRebalance, Stable), ProtocolType;
//     members in Description order with MemberId, GroupInstanceId (v4+,
//     "" → null), ClientId, ClientHost and MemberAssignment. Only a Stable
//     group shows its ProtocolData (the selected protocol) and each
//     member's MemberMetadata; in any other state both are empty (Kafka's
//     describeNoMetadata), whatever the description holds;
//   - a NotFound or OtherFamily group: GroupState "Dead", ErrorCode NONE
//     below v6; from v6 (KIP-1043) GROUP_ID_NOT_FOUND with ErrorMessage
//     "Group X not found." or "Group X is not a classic group.";
//   - an entry with Error set: that ErrorCode and nothing else.
//
// AuthorizedOperations (v3+) is always AuthorizedOperationsNotRequested.
// The description's generation, leader, timeouts, protocol lists,
// pending ids and awaiting flags have no field on the wire. ThrottleTimeMs
// is 0. Errors: a version kmsg does not know, a state or GroupFound value
// out of range.
func DescribeGroupsResponseToKafka(version int16, groups []DescribedGroup) (*kmsg.DescribeGroupsResponse, error) {
	if err := kmsgVersion("DescribeGroupsResponse", version, maxDescribeGroups); err != nil {
		return nil, err
	}
	r := kmsg.NewPtrDescribeGroupsResponse()
	r.Version = version
	for _, g := range groups {
		kg := kmsg.NewDescribeGroupsResponseGroup()
		kg.Group = g.Group
		kg.AuthorizedOperations = AuthorizedOperationsNotRequested
		switch {
		case g.Error != spec.None:
			kg.ErrorCode = int16(g.Error)
		case g.Found == NotFound || g.Found == OtherFamily:
			kg.State = deadState
			if version >= 6 {
				kg.ErrorCode = int16(spec.GroupIDNotFound)
				msg := fmt.Sprintf("Group %s not found.", g.Group)
				if g.Found == OtherFamily {
					msg = notClassicMessage(g.Group)
				}
				kg.ErrorMessage = &msg
			}
		case g.Found == Found:
			d := g.Description
			if d.State > classic.GroupStable {
				return nil, fmt.Errorf("kwire: DescribeGroupsResponse: group %q: unknown state %s", g.Group, d.State)
			}
			stable := d.State == classic.GroupStable
			kg.State = d.State.String()
			kg.ProtocolType = d.ProtocolType
			if stable {
				kg.Protocol = d.Protocol
			}
			for _, m := range d.Members {
				km := kmsg.NewDescribeGroupsResponseGroupMember()
				km.MemberID = string(m.ID)
				if version >= 4 {
					km.InstanceID = nullable(m.InstanceID)
				}
				km.ClientID = m.ClientID
				km.ClientHost = m.ClientHost
				km.ProtocolMetadata = []byte{}
				if stable {
					km.ProtocolMetadata = []byte(m.Metadata)
				}
				km.MemberAssignment = []byte(m.Assignment)
				kg.Members = append(kg.Members, km)
			}
		default:
			return nil, fmt.Errorf("kwire: DescribeGroupsResponse: group %q: GroupFound %d out of range", g.Group, g.Found)
		}
		r.Groups = append(r.Groups, kg)
	}
	return r, nil
}

// classicStates maps Kafka's classic state names to the core's.
var classicStates = map[string]classic.GroupState{
	classic.GroupEmpty.String():               classic.GroupEmpty,
	classic.GroupPreparingRebalance.String():  classic.GroupPreparingRebalance,
	classic.GroupCompletingRebalance.String(): classic.GroupCompletingRebalance,
	classic.GroupStable.String():              classic.GroupStable,
}

// DescribeGroupsResponseFromKafka maps a DescribeGroupsResponse (v0–v6),
// the inverse of DescribeGroupsResponseToKafka as far as the wire allows:
// state "Dead" with NONE, or GROUP_ID_NOT_FOUND, is NotFound, except that
// from v6 Kafka's message "Group X is not a classic group." makes it
// OtherFamily (below v6 the two cannot be told apart); any other error
// code is Error. Found groups get State, ProtocolType, Protocol and the
// members' ids, instance ids (v4+), client ids and hosts, metadata and
// assignments; nothing else of the description is on the wire. Errors: a
// state that is not one of Kafka's classic states.
func DescribeGroupsResponseFromKafka(r *kmsg.DescribeGroupsResponse) ([]DescribedGroup, error) {
	if r == nil {
		return nil, errors.New("kwire: DescribeGroupsResponseFromKafka: nil response")
	}
	if err := kmsgVersion("DescribeGroupsResponse", r.Version, maxDescribeGroups); err != nil {
		return nil, err
	}
	var out []DescribedGroup
	for _, kg := range r.Groups {
		g := DescribedGroup{Group: kg.Group}
		code := spec.ErrorCode(kg.ErrorCode)
		switch {
		case code == spec.GroupIDNotFound || code == spec.None && kg.State == deadState:
			g.Found = NotFound
			if r.Version >= 6 && deref(kg.ErrorMessage) == notClassicMessage(kg.Group) {
				g.Found = OtherFamily
			}
		case code != spec.None:
			g.Error = code
		default:
			st, ok := classicStates[kg.State]
			if !ok {
				return nil, fmt.Errorf("kwire: DescribeGroupsResponse: group %q: state %q is not a classic group state", kg.Group, kg.State)
			}
			d := classic.GroupDescription{State: st, ProtocolType: kg.ProtocolType, Protocol: kg.Protocol}
			for _, km := range kg.Members {
				md := classic.MemberDescription{ID: spec.MemberID(km.MemberID), ClientID: km.ClientID, ClientHost: km.ClientHost,
					Metadata: classic.Metadata(km.ProtocolMetadata), Assignment: classic.Metadata(km.MemberAssignment)}
				if r.Version >= 4 {
					md.InstanceID = deref(km.InstanceID)
				}
				d.Members = append(d.Members, md)
			}
			g.Description = d
		}
		out = append(out, g)
	}
	return out, nil
}

// cloneNonEmpty returns a copy of s, nil for an empty s.
func cloneNonEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return append([]string(nil), s...)
}
