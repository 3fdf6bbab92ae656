package kwire

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/spec"
)

// DecodeRequest decodes the body of a request of one of the group APIs
// this package maps, given the API key and version of its header: kmsg's
// RequestForKey, SetVersion and ReadFrom, then the matching FromKafka. The
// result is one of:
//
//	JoinGroup (key 11), SyncGroup (14), Heartbeat (12), LeaveGroup (13),
//	nextgen.HeartbeatRequest (ConsumerGroupHeartbeat, 68),
//	OffsetCommit (8), OffsetFetch (9), DescribeGroups (15),
//	ConsumerGroupDescribe (69).
//
// from is the sender (JoinGroup records it); ids resolves topic ids
// (ConsumerGroupHeartbeat, and OffsetCommit and OffsetFetch from v10; it
// must not be nil). Errors are *RequestError: UNSUPPORTED_VERSION for an
// API key this package does not map or a version kmsg does not know,
// INVALID_REQUEST for bytes kmsg cannot read or content the cores cannot
// take. It never panics.
func DecodeRequest(key, version int16, body []byte, from Client, ids TopicIDs) (any, error) {
	if ids == nil {
		return nil, errors.New("kwire: DecodeRequest: nil TopicIDs")
	}
	req := kmsg.RequestForKey(key)
	if req == nil || !mapped(key) {
		return nil, &RequestError{Code: spec.UnsupportedVersion, Message: fmt.Sprintf("API key %d (%s) is not a group API this server maps", key, kmsg.NameForKey(key))}
	}
	req.SetVersion(version)
	name := kmsg.NameForKey(key)
	if err := requestVersion(name, req); err != nil {
		return nil, err
	}
	if err := req.ReadFrom(body); err != nil {
		return nil, invalidRequest("%s v%d: cannot read the request body: %v", name, version, err)
	}
	switch r := req.(type) {
	case *kmsg.JoinGroupRequest:
		return JoinGroupRequestFromKafka(r, from)
	case *kmsg.SyncGroupRequest:
		return SyncGroupRequestFromKafka(r)
	case *kmsg.HeartbeatRequest:
		return HeartbeatRequestFromKafka(r)
	case *kmsg.LeaveGroupRequest:
		return LeaveGroupRequestFromKafka(r)
	case *kmsg.ConsumerGroupHeartbeatRequest:
		return ConsumerGroupHeartbeatRequestFromKafka(r, ids)
	case *kmsg.OffsetCommitRequest:
		return OffsetCommitRequestFromKafka(r, ids)
	case *kmsg.OffsetFetchRequest:
		return OffsetFetchRequestFromKafka(r, ids)
	case *kmsg.DescribeGroupsRequest:
		return DescribeGroupsRequestFromKafka(r)
	case *kmsg.ConsumerGroupDescribeRequest:
		return ConsumerGroupDescribeRequestFromKafka(r)
	}
	return nil, fmt.Errorf("kwire: DecodeRequest: key %d has no mapping", key)
}

// mappedKeys is the API keys DecodeRequest maps.
var mappedKeys = []int16{8, 9, 11, 12, 13, 14, 15, 68, 69}

func mapped(key int16) bool {
	for _, k := range mappedKeys {
		if k == key {
			return true
		}
	}
	return false
}
