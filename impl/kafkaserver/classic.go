package kafkaserver

import (
	"context"
	"errors"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/impl"
	"github.com/rebalance-ref/rebalance/impl/kwire"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file answers the classic protocol's requests: JoinGroup, SyncGroup,
// Heartbeat and LeaveGroup (Kafka's GroupMetadataManager.classicGroup*).

// requestCode returns the error code of a translation failure that Kafka
// answers with a response (a *kwire.RequestError), or false for any other
// error (the transport closes the connection).
func requestCode(err error) (spec.ErrorCode, bool) {
	var re *kwire.RequestError
	if errors.As(err, &re) {
		return re.Code, true
	}
	return 0, false
}

// blankGroup reports whether a group id is empty once trimmed (Kafka's
// INVALID_GROUP_ID).
func blankGroup(id string) bool { return strings.TrimSpace(id) == "" }

// joinGroup is classicGroupJoin: an empty group id is INVALID_GROUP_ID; a
// member id for a group that does not exist is UNKNOWN_MEMBER_ID (Kafka's
// GroupIdNotFound path); a JoinGroup with no member id creates the group
// (or takes over an empty consumer group); a non-empty consumer group
// answers INCONSISTENT_GROUP_PROTOCOL. The rest is the coordinator's.
func (s *Server) joinGroup(ctx context.Context, client Client, r *kmsg.JoinGroupRequest) (*Reply, error) {
	v := r.GetVersion()
	answer := func(resp classic.JoinGroupResponse) (kmsg.Response, error) {
		return kwire.JoinGroupResponseToKafka(v, resp)
	}
	reject := func(code spec.ErrorCode) (*Reply, error) {
		return now(answer(classic.JoinGroupResponse{Error: code, MemberID: spec.MemberID(r.MemberID)}))
	}
	j, err := kwire.JoinGroupRequestFromKafka(r, client)
	if err != nil {
		if code, ok := requestCode(err); ok {
			return reject(code)
		}
		return nil, err
	}
	if blankGroup(j.Group) {
		return reject(spec.InvalidGroupID)
	}
	var g *group
	if j.Request.MemberID == "" {
		g, err = s.lookupOrCreate(j.Group)
	} else {
		g, err = s.lookup(j.Group)
	}
	if err != nil {
		return nil, err
	}
	if g == nil {
		return reject(spec.UnknownMemberID)
	}
	g.mu.Lock()
	c, code, err := s.asClassic(ctx, g, j.Request.MemberID == "")
	g.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if code != spec.None {
		return reject(code)
	}
	return pending(ctx, c, j.Request, func(m classic.Message) (kmsg.Response, error) {
		return answer(m.(classic.JoinGroupResponse))
	})
}

// pending starts req on the classic group c and returns its reply, now or
// once the coordinator answers, translated by answer.
func pending(ctx context.Context, c *impl.ClassicGroup, req classic.Message, answer func(classic.Message) (kmsg.Response, error)) (*Reply, error) {
	p, err := c.Start(ctx, req)
	if err != nil {
		return nil, err
	}
	return &Reply{ready: p.Answered(), wait: func(ctx context.Context) (kmsg.Response, error) {
		m, err := p.Wait(ctx)
		if err != nil {
			return nil, err
		}
		return answer(m)
	}}, nil
}

// classicOf returns the classic group a SyncGroup, Heartbeat or
// LeaveGroup is for, or the code Kafka answers when there is none
// (UNKNOWN_MEMBER_ID: its member cannot be a member of it).
func (s *Server) classicOf(ctx context.Context, id string) (*impl.ClassicGroup, spec.ErrorCode, error) {
	g, err := s.lookup(id)
	if err != nil {
		return nil, 0, err
	}
	if g == nil {
		return nil, spec.UnknownMemberID, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return s.asClassic(ctx, g, false)
}

// syncGroup is classicGroupSync: a group that does not exist (or is a
// consumer group) answers UNKNOWN_MEMBER_ID; the rest is the
// coordinator's. A follower's SyncGroup is parked until the leader's.
func (s *Server) syncGroup(ctx context.Context, r *kmsg.SyncGroupRequest) (*Reply, error) {
	v := r.GetVersion()
	answer := func(resp classic.SyncGroupResponse) (kmsg.Response, error) {
		return kwire.SyncGroupResponseToKafka(v, resp)
	}
	sg, err := kwire.SyncGroupRequestFromKafka(r)
	if err != nil {
		if code, ok := requestCode(err); ok {
			return now(answer(classic.SyncGroupResponse{Error: code}))
		}
		return nil, err
	}
	c, code, err := s.classicOf(ctx, sg.Group)
	if err != nil {
		return nil, err
	}
	if code != spec.None {
		return now(answer(classic.SyncGroupResponse{Error: code}))
	}
	return pending(ctx, c, sg.Request, func(m classic.Message) (kmsg.Response, error) {
		return answer(m.(classic.SyncGroupResponse))
	})
}

// heartbeat is classicGroupHeartbeat.
func (s *Server) heartbeat(ctx context.Context, r *kmsg.HeartbeatRequest) (kmsg.Response, error) {
	v := r.GetVersion()
	h, err := kwire.HeartbeatRequestFromKafka(r)
	if err != nil {
		if code, ok := requestCode(err); ok {
			return kwire.HeartbeatResponseToKafka(v, classic.HeartbeatResponse{Error: code})
		}
		return nil, err
	}
	c, code, err := s.classicOf(ctx, h.Group)
	if err != nil {
		return nil, err
	}
	if code != spec.None {
		return kwire.HeartbeatResponseToKafka(v, classic.HeartbeatResponse{Error: code})
	}
	m, err := c.Request(ctx, h.Request)
	if err != nil {
		return nil, err
	}
	return kwire.HeartbeatResponseToKafka(v, m.(classic.HeartbeatResponse))
}

// leaveGroup is classicGroupLeave. The core takes one member per request,
// so a batched LeaveGroup (v3+) is stepped member by member, in order,
// within the one request; the group moves on after each (Kafka removes
// them all, then moves on once: the same end state).
func (s *Server) leaveGroup(ctx context.Context, r *kmsg.LeaveGroupRequest) (kmsg.Response, error) {
	v := r.GetVersion()
	lg, err := kwire.LeaveGroupRequestFromKafka(r)
	if err != nil {
		if code, ok := requestCode(err); ok {
			return kwire.LeaveGroupErrorToKafka(v, code)
		}
		return nil, err
	}
	c, code, err := s.classicOf(ctx, lg.Group)
	if err != nil {
		return nil, err
	}
	if code != spec.None {
		return kwire.LeaveGroupErrorToKafka(v, code)
	}
	results := make([]classic.LeaveGroupResponse, 0, len(lg.Members))
	for _, m := range lg.Members {
		resp, err := c.Request(ctx, m)
		if err != nil {
			return nil, err
		}
		results = append(results, resp.(classic.LeaveGroupResponse))
	}
	return kwire.LeaveGroupResponseToKafka(v, lg.Members, results)
}
