package kwire

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// The classic group APIs: JoinGroup (key 11), SyncGroup (14), Heartbeat
// (12) and LeaveGroup (13), over the message types of model/classic.
//
// The core requests do not name the group (a classic.Coordinator runs one
// group and the driver routes by group id), so each request's FromKafka
// returns a small wrapper: the group id next to the core request. The
// core's Seq is the driver's correlation id: every FromKafka leaves it 0
// and every ToKafka ignores it.

// Highest versions kmsg knows of the classic group APIs.
var (
	maxJoinGroup  = new(kmsg.JoinGroupRequest).MaxVersion()  // 9
	maxSyncGroup  = new(kmsg.SyncGroupRequest).MaxVersion()  // 5
	maxHeartbeat  = new(kmsg.HeartbeatRequest).MaxVersion()  // 4
	maxLeaveGroup = new(kmsg.LeaveGroupRequest).MaxVersion() // 5
)

// JoinGroup is a JoinGroupRequest as the classic core takes it, with what
// the core request lacks: the group id and the KIP-800 join reason
// (JoinGroup v8+ Reason, nullable; Kafka only logs it).
type JoinGroup struct {
	Group   string
	Request classic.JoinGroupRequest
	Reason  *string
}

// JoinGroupRequestFromKafka maps a JoinGroupRequest (v0–v9) onto the core.
//
//   - GroupId → Group; MemberId, ProtocolType, SessionTimeoutMs copied;
//   - RebalanceTimeoutMs (v1+) copied; at v0, which has none, 0 (the core
//     then uses the session timeout, as Kafka did for v0);
//   - GroupInstanceId (v5+, nullable) → InstanceID, "" for null;
//   - Protocols[].Name and .Metadata → Protocols in request order, the
//     metadata bytes as classic.Metadata unread;
//   - Reason (v8+) → Reason;
//   - RequireKnownMemberID = version >= 4 (KIP-394);
//   - ClientID and ClientHost come from from (the request header's client
//     id and the connection's address).
//
// Errors: UNSUPPORTED_VERSION for a version kmsg does not know.
func JoinGroupRequestFromKafka(r *kmsg.JoinGroupRequest, from Client) (JoinGroup, error) {
	if r == nil {
		return JoinGroup{}, errors.New("kwire: JoinGroupRequestFromKafka: nil request")
	}
	if err := requestVersion("JoinGroup", r); err != nil {
		return JoinGroup{}, err
	}
	v := r.Version
	req := classic.JoinGroupRequest{
		MemberID:             spec.MemberID(r.MemberID),
		ClientID:             from.ID,
		ClientHost:           from.Host,
		ProtocolType:         r.ProtocolType,
		SessionTimeout:       classic.Millis(r.SessionTimeoutMillis),
		RequireKnownMemberID: v >= 4,
	}
	if v >= 1 {
		req.RebalanceTimeout = classic.Millis(r.RebalanceTimeoutMillis)
	}
	if v >= 5 {
		req.InstanceID = deref(r.InstanceID)
	}
	for _, p := range r.Protocols {
		req.Protocols = append(req.Protocols, classic.ProtocolMetadata{Name: p.Name, Metadata: classic.Metadata(p.Metadata)})
	}
	j := JoinGroup{Group: r.Group, Request: req}
	if v >= 8 {
		j.Reason = clonePtr(r.Reason)
	}
	return j, nil
}

// JoinGroupRequestToKafka maps j onto a JoinGroupRequest at version
// (0–9). It writes what version carries and drops the rest: the
// rebalance timeout below v1, the instance id below v5, the reason below
// v8. ClientID and ClientHost belong to the request header and the
// connection, not the body, and RequireKnownMemberID follows from the
// version, so neither is written; Seq is ignored. Errors: a version kmsg
// does not know, a timeout outside int32.
func JoinGroupRequestToKafka(version int16, j JoinGroup) (*kmsg.JoinGroupRequest, error) {
	if err := kmsgVersion("JoinGroupRequest", version, maxJoinGroup); err != nil {
		return nil, err
	}
	r := kmsg.NewPtrJoinGroupRequest()
	r.Version = version
	r.Group = j.Group
	r.MemberID = string(j.Request.MemberID)
	r.ProtocolType = j.Request.ProtocolType
	var err error
	if r.SessionTimeoutMillis, err = int32Millis("JoinGroupRequest", "SessionTimeout", int64(j.Request.SessionTimeout)); err != nil {
		return nil, err
	}
	if version >= 1 {
		if r.RebalanceTimeoutMillis, err = int32Millis("JoinGroupRequest", "RebalanceTimeout", int64(j.Request.RebalanceTimeout)); err != nil {
			return nil, err
		}
	}
	if version >= 5 {
		r.InstanceID = nullable(j.Request.InstanceID)
	}
	if version >= 8 {
		r.Reason = clonePtr(j.Reason)
	}
	for _, p := range j.Request.Protocols {
		kp := kmsg.NewJoinGroupRequestProtocol()
		kp.Name = p.Name
		kp.Metadata = []byte(p.Metadata)
		r.Protocols = append(r.Protocols, kp)
	}
	return r, nil
}

// JoinGroupResponseToKafka maps resp onto a JoinGroupResponse at version
// (0–9):
//
//   - ErrorCode, GenerationId, Leader, MemberId copied (MEMBER_ID_REQUIRED
//     carries the id the member must join with in MemberId);
//   - ProtocolType (v7+, nullable): "" → null; not carried below v7;
//   - ProtocolName: nullable from v7, "" → null there (Kafka answers null
//     on errors); below v7 a plain string;
//   - SkipAssignment (v9+); dropped below v9;
//   - Members[] in order: MemberId, GroupInstanceId (v5+, "" → null),
//     Metadata bytes.
//
// ThrottleTimeMs is 0. Seq is ignored. Errors: a version kmsg does not
// know.
func JoinGroupResponseToKafka(version int16, resp classic.JoinGroupResponse) (*kmsg.JoinGroupResponse, error) {
	if err := kmsgVersion("JoinGroupResponse", version, maxJoinGroup); err != nil {
		return nil, err
	}
	r := kmsg.NewPtrJoinGroupResponse()
	r.Version = version
	r.ErrorCode = int16(resp.Error)
	r.Generation = int32(resp.Generation)
	if version >= 7 {
		r.ProtocolType = nullable(resp.ProtocolType)
		r.Protocol = nullable(resp.ProtocolName)
	} else {
		name := resp.ProtocolName
		r.Protocol = &name
	}
	r.LeaderID = string(resp.Leader)
	r.MemberID = string(resp.MemberID)
	if version >= 9 {
		r.SkipAssignment = resp.SkipAssignment
	}
	for _, m := range resp.Members {
		km := kmsg.NewJoinGroupResponseMember()
		km.MemberID = string(m.MemberID)
		if version >= 5 {
			km.InstanceID = nullable(m.InstanceID)
		}
		km.ProtocolMetadata = []byte(m.Metadata)
		r.Members = append(r.Members, km)
	}
	return r, nil
}

// JoinGroupResponseFromKafka maps a JoinGroupResponse (v0–v9) onto the
// core, the inverse of JoinGroupResponseToKafka: null ProtocolType and
// ProtocolName become "", a null member instance id "". Seq is 0.
func JoinGroupResponseFromKafka(r *kmsg.JoinGroupResponse) (classic.JoinGroupResponse, error) {
	if r == nil {
		return classic.JoinGroupResponse{}, errors.New("kwire: JoinGroupResponseFromKafka: nil response")
	}
	if err := kmsgVersion("JoinGroupResponse", r.Version, maxJoinGroup); err != nil {
		return classic.JoinGroupResponse{}, err
	}
	resp := classic.JoinGroupResponse{
		Error:          spec.ErrorCode(r.ErrorCode),
		Generation:     spec.Generation(r.Generation),
		ProtocolName:   deref(r.Protocol),
		Leader:         spec.MemberID(r.LeaderID),
		MemberID:       spec.MemberID(r.MemberID),
		SkipAssignment: r.Version >= 9 && r.SkipAssignment,
	}
	if r.Version >= 7 {
		resp.ProtocolType = deref(r.ProtocolType)
	}
	for _, m := range r.Members {
		jm := classic.JoinedMember{MemberID: spec.MemberID(m.MemberID), Metadata: classic.Metadata(m.ProtocolMetadata)}
		if r.Version >= 5 {
			jm.InstanceID = deref(m.InstanceID)
		}
		resp.Members = append(resp.Members, jm)
	}
	return resp, nil
}

// SyncGroup is a SyncGroupRequest as the classic core takes it, with the
// group id the core request lacks.
type SyncGroup struct {
	Group   string
	Request classic.SyncGroupRequest
}

// SyncGroupRequestFromKafka maps a SyncGroupRequest (v0–v5) onto the
// core: GroupId → Group; GenerationId, MemberId copied; GroupInstanceId
// (v3+, nullable) → InstanceID, "" for null; ProtocolType and
// ProtocolName (v5+, nullable) → the core's pointers, nil for null and
// below v5; Assignments[] in request order (Kafka keeps the last of two
// entries for one member, and so does the core), the bytes as
// classic.Metadata unread. Errors: UNSUPPORTED_VERSION.
func SyncGroupRequestFromKafka(r *kmsg.SyncGroupRequest) (SyncGroup, error) {
	if r == nil {
		return SyncGroup{}, errors.New("kwire: SyncGroupRequestFromKafka: nil request")
	}
	if err := requestVersion("SyncGroup", r); err != nil {
		return SyncGroup{}, err
	}
	req := classic.SyncGroupRequest{MemberID: spec.MemberID(r.MemberID), Generation: spec.Generation(r.Generation)}
	if r.Version >= 3 {
		req.InstanceID = deref(r.InstanceID)
	}
	if r.Version >= 5 {
		req.ProtocolType = clonePtr(r.ProtocolType)
		req.ProtocolName = clonePtr(r.Protocol)
	}
	for _, a := range r.GroupAssignment {
		req.Assignments = append(req.Assignments, classic.MemberAssignment{MemberID: spec.MemberID(a.MemberID), Assignment: classic.Metadata(a.MemberAssignment)})
	}
	return SyncGroup{Group: r.Group, Request: req}, nil
}

// SyncGroupRequestToKafka maps s onto a SyncGroupRequest at version
// (0–5), dropping the instance id below v3 and the protocol type and
// name below v5. Seq is ignored.
func SyncGroupRequestToKafka(version int16, s SyncGroup) (*kmsg.SyncGroupRequest, error) {
	if err := kmsgVersion("SyncGroupRequest", version, maxSyncGroup); err != nil {
		return nil, err
	}
	r := kmsg.NewPtrSyncGroupRequest()
	r.Version = version
	r.Group = s.Group
	r.Generation = int32(s.Request.Generation)
	r.MemberID = string(s.Request.MemberID)
	if version >= 3 {
		r.InstanceID = nullable(s.Request.InstanceID)
	}
	if version >= 5 {
		r.ProtocolType = clonePtr(s.Request.ProtocolType)
		r.Protocol = clonePtr(s.Request.ProtocolName)
	}
	for _, a := range s.Request.Assignments {
		ka := kmsg.NewSyncGroupRequestGroupAssignment()
		ka.MemberID = string(a.MemberID)
		ka.MemberAssignment = []byte(a.Assignment)
		r.GroupAssignment = append(r.GroupAssignment, ka)
	}
	return r, nil
}

// SyncGroupResponseToKafka maps resp onto a SyncGroupResponse at version
// (0–5): ErrorCode and the Assignment bytes; ProtocolType and
// ProtocolName from v5 ("" → null, as Kafka answers on errors), dropped
// below. ThrottleTimeMs is 0; Seq is ignored.
func SyncGroupResponseToKafka(version int16, resp classic.SyncGroupResponse) (*kmsg.SyncGroupResponse, error) {
	if err := kmsgVersion("SyncGroupResponse", version, maxSyncGroup); err != nil {
		return nil, err
	}
	r := kmsg.NewPtrSyncGroupResponse()
	r.Version = version
	r.ErrorCode = int16(resp.Error)
	if version >= 5 {
		r.ProtocolType = nullable(resp.ProtocolType)
		r.Protocol = nullable(resp.ProtocolName)
	}
	r.MemberAssignment = []byte(resp.Assignment)
	return r, nil
}

// SyncGroupResponseFromKafka maps a SyncGroupResponse (v0–v5) onto the
// core, nulls as "". Seq is 0.
func SyncGroupResponseFromKafka(r *kmsg.SyncGroupResponse) (classic.SyncGroupResponse, error) {
	if r == nil {
		return classic.SyncGroupResponse{}, errors.New("kwire: SyncGroupResponseFromKafka: nil response")
	}
	if err := kmsgVersion("SyncGroupResponse", r.Version, maxSyncGroup); err != nil {
		return classic.SyncGroupResponse{}, err
	}
	resp := classic.SyncGroupResponse{Error: spec.ErrorCode(r.ErrorCode), Assignment: classic.Metadata(r.MemberAssignment)}
	if r.Version >= 5 {
		resp.ProtocolType = deref(r.ProtocolType)
		resp.ProtocolName = deref(r.Protocol)
	}
	return resp, nil
}

// Heartbeat is a HeartbeatRequest as the classic core takes it, with the
// group id the core request lacks.
type Heartbeat struct {
	Group   string
	Request classic.HeartbeatRequest
}

// HeartbeatRequestFromKafka maps a HeartbeatRequest (v0–v4) onto the
// core: GroupId → Group; GenerationId, MemberId copied; GroupInstanceId
// (v3+, nullable) → InstanceID, "" for null. Errors: UNSUPPORTED_VERSION.
func HeartbeatRequestFromKafka(r *kmsg.HeartbeatRequest) (Heartbeat, error) {
	if r == nil {
		return Heartbeat{}, errors.New("kwire: HeartbeatRequestFromKafka: nil request")
	}
	if err := requestVersion("Heartbeat", r); err != nil {
		return Heartbeat{}, err
	}
	req := classic.HeartbeatRequest{MemberID: spec.MemberID(r.MemberID), Generation: spec.Generation(r.Generation)}
	if r.Version >= 3 {
		req.InstanceID = deref(r.InstanceID)
	}
	return Heartbeat{Group: r.Group, Request: req}, nil
}

// HeartbeatRequestToKafka maps h onto a HeartbeatRequest at version
// (0–4), dropping the instance id below v3. Seq is ignored.
func HeartbeatRequestToKafka(version int16, h Heartbeat) (*kmsg.HeartbeatRequest, error) {
	if err := kmsgVersion("HeartbeatRequest", version, maxHeartbeat); err != nil {
		return nil, err
	}
	r := kmsg.NewPtrHeartbeatRequest()
	r.Version = version
	r.Group = h.Group
	r.Generation = int32(h.Request.Generation)
	r.MemberID = string(h.Request.MemberID)
	if version >= 3 {
		r.InstanceID = nullable(h.Request.InstanceID)
	}
	return r, nil
}

// HeartbeatResponseToKafka maps resp onto a HeartbeatResponse at version
// (0–4): the ErrorCode. ThrottleTimeMs is 0; Seq is ignored.
func HeartbeatResponseToKafka(version int16, resp classic.HeartbeatResponse) (*kmsg.HeartbeatResponse, error) {
	if err := kmsgVersion("HeartbeatResponse", version, maxHeartbeat); err != nil {
		return nil, err
	}
	r := kmsg.NewPtrHeartbeatResponse()
	r.Version = version
	r.ErrorCode = int16(resp.Error)
	return r, nil
}

// HeartbeatResponseFromKafka maps a HeartbeatResponse (v0–v4) onto the
// core. Seq is 0.
func HeartbeatResponseFromKafka(r *kmsg.HeartbeatResponse) (classic.HeartbeatResponse, error) {
	if r == nil {
		return classic.HeartbeatResponse{}, errors.New("kwire: HeartbeatResponseFromKafka: nil response")
	}
	if err := kmsgVersion("HeartbeatResponse", r.Version, maxHeartbeat); err != nil {
		return classic.HeartbeatResponse{}, err
	}
	return classic.HeartbeatResponse{Error: spec.ErrorCode(r.ErrorCode)}, nil
}

// LeaveGroup is a LeaveGroupRequest as the classic core takes it: the
// core leaves one member per request, so a batched request (v3+) becomes
// one classic.LeaveGroupRequest per member, in request order. Reasons is
// the KIP-800 reason of each member (v5+, nullable; Kafka only logs it):
// nil, or exactly one entry per member.
type LeaveGroup struct {
	Group   string
	Members []classic.LeaveGroupRequest
	Reasons []*string
}

// LeaveGroupRequestFromKafka maps a LeaveGroupRequest (v0–v5) onto the
// core: v0–v2 carry one MemberId (one member, no instance id); v3+ carry
// Members[{MemberId, GroupInstanceId (nullable → ""), Reason (v5)}], one
// core request each (none for an empty list; Kafka answers those with an
// empty member list). Reasons is nil below v5. Errors:
// UNSUPPORTED_VERSION.
func LeaveGroupRequestFromKafka(r *kmsg.LeaveGroupRequest) (LeaveGroup, error) {
	if r == nil {
		return LeaveGroup{}, errors.New("kwire: LeaveGroupRequestFromKafka: nil request")
	}
	if err := requestVersion("LeaveGroup", r); err != nil {
		return LeaveGroup{}, err
	}
	lg := LeaveGroup{Group: r.Group}
	if r.Version < 3 {
		lg.Members = []classic.LeaveGroupRequest{{MemberID: spec.MemberID(r.MemberID)}}
		return lg, nil
	}
	for _, m := range r.Members {
		lg.Members = append(lg.Members, classic.LeaveGroupRequest{MemberID: spec.MemberID(m.MemberID), InstanceID: deref(m.InstanceID)})
		if r.Version >= 5 {
			lg.Reasons = append(lg.Reasons, clonePtr(m.Reason))
		}
	}
	return lg, nil
}

// LeaveGroupRequestToKafka maps lg onto a LeaveGroupRequest at version
// (0–5). Below v3 the request carries exactly one member id: lg must have
// exactly one member, whose instance id is dropped. Reasons are written
// from v5 and dropped below. Errors: a version kmsg does not know, a
// member count other than one below v3, Reasons not matching Members.
func LeaveGroupRequestToKafka(version int16, lg LeaveGroup) (*kmsg.LeaveGroupRequest, error) {
	if err := kmsgVersion("LeaveGroupRequest", version, maxLeaveGroup); err != nil {
		return nil, err
	}
	if lg.Reasons != nil && len(lg.Reasons) != len(lg.Members) {
		return nil, fmt.Errorf("kwire: LeaveGroupRequest: %d reasons for %d members", len(lg.Reasons), len(lg.Members))
	}
	r := kmsg.NewPtrLeaveGroupRequest()
	r.Version = version
	r.Group = lg.Group
	if version < 3 {
		if len(lg.Members) != 1 {
			return nil, fmt.Errorf("kwire: LeaveGroupRequest v%d carries one member, not %d", version, len(lg.Members))
		}
		r.MemberID = string(lg.Members[0].MemberID)
		return r, nil
	}
	for i, m := range lg.Members {
		km := kmsg.NewLeaveGroupRequestMember()
		km.MemberID = string(m.MemberID)
		km.InstanceID = nullable(m.InstanceID)
		if version >= 5 && lg.Reasons != nil {
			km.Reason = clonePtr(lg.Reasons[i])
		}
		r.Members = append(r.Members, km)
	}
	return r, nil
}

// LeaveGroupResponseToKafka builds the LeaveGroupResponse at version
// (0–5) for the members of one request (as LeaveGroupRequestFromKafka
// returned them) and the core's result for each, in the same order.
// v0–v2: exactly one member, its result's error at top level. v3+: one
// entry per member {MemberId, GroupInstanceId ("" → null), ErrorCode} and
// the top-level error NONE (see LeaveGroupErrorToKafka for a group-level
// error). ThrottleTimeMs is 0; Seq is ignored. Errors: a version kmsg does
// not know, mismatched lengths, a member count other than one below v3.
func LeaveGroupResponseToKafka(version int16, members []classic.LeaveGroupRequest, results []classic.LeaveGroupResponse) (*kmsg.LeaveGroupResponse, error) {
	if err := kmsgVersion("LeaveGroupResponse", version, maxLeaveGroup); err != nil {
		return nil, err
	}
	if len(members) != len(results) {
		return nil, fmt.Errorf("kwire: LeaveGroupResponse: %d results for %d members", len(results), len(members))
	}
	r := kmsg.NewPtrLeaveGroupResponse()
	r.Version = version
	if version < 3 {
		if len(members) != 1 {
			return nil, fmt.Errorf("kwire: LeaveGroupResponse v%d answers one member, not %d", version, len(members))
		}
		r.ErrorCode = int16(results[0].Error)
		return r, nil
	}
	for i, m := range members {
		km := kmsg.NewLeaveGroupResponseMember()
		km.MemberID = string(m.MemberID)
		km.InstanceID = nullable(m.InstanceID)
		km.ErrorCode = int16(results[i].Error)
		r.Members = append(r.Members, km)
	}
	return r, nil
}

// LeaveGroupErrorToKafka builds a LeaveGroupResponse at version (0–5)
// that answers the whole request with a group-level error (for example
// NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE): the top-level ErrorCode,
// no member entries.
func LeaveGroupErrorToKafka(version int16, code spec.ErrorCode) (*kmsg.LeaveGroupResponse, error) {
	if err := kmsgVersion("LeaveGroupResponse", version, maxLeaveGroup); err != nil {
		return nil, err
	}
	r := kmsg.NewPtrLeaveGroupResponse()
	r.Version = version
	r.ErrorCode = int16(code)
	return r, nil
}

// LeaveGroupResult is a decoded LeaveGroupResponse: the top-level error,
// and the members answered with their results, in the same order. Below
// v3 the response names no member: Members is nil and Results holds the
// top-level error once.
type LeaveGroupResult struct {
	Error   spec.ErrorCode
	Members []classic.LeaveGroupRequest
	Results []classic.LeaveGroupResponse
}

// LeaveGroupResponseFromKafka maps a LeaveGroupResponse (v0–v5), the
// inverse of LeaveGroupResponseToKafka (null instance ids as "").
func LeaveGroupResponseFromKafka(r *kmsg.LeaveGroupResponse) (LeaveGroupResult, error) {
	if r == nil {
		return LeaveGroupResult{}, errors.New("kwire: LeaveGroupResponseFromKafka: nil response")
	}
	if err := kmsgVersion("LeaveGroupResponse", r.Version, maxLeaveGroup); err != nil {
		return LeaveGroupResult{}, err
	}
	res := LeaveGroupResult{Error: spec.ErrorCode(r.ErrorCode)}
	if r.Version < 3 {
		res.Results = []classic.LeaveGroupResponse{{Error: res.Error}}
		return res, nil
	}
	for _, m := range r.Members {
		res.Members = append(res.Members, classic.LeaveGroupRequest{MemberID: spec.MemberID(m.MemberID), InstanceID: deref(m.InstanceID)})
		res.Results = append(res.Results, classic.LeaveGroupResponse{Error: spec.ErrorCode(m.ErrorCode)})
	}
	return res, nil
}
