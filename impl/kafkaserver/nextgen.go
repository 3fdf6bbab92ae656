package kafkaserver

import (
	"context"
	"fmt"
	"maps"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/impl/kwire"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file answers the KIP-848 requests: ConsumerGroupHeartbeat and
// ConsumerGroupDescribe.

// consumerHeartbeat is consumerGroupHeartbeat: an empty group id is
// INVALID_REQUEST (as validate.Request says, before any group is looked
// up); a group that does not exist is created (an empty classic group is
// taken over, keeping its offsets); a non-empty classic group answers
// GROUP_ID_NOT_FOUND ("Group X is not a consumer group."). Before the
// heartbeat reaches the coordinator, the group's metadata image is brought
// up to date with every topic its members asked for.
func (s *Server) consumerHeartbeat(ctx context.Context, client Client, r *kmsg.ConsumerGroupHeartbeatRequest) (kmsg.Response, error) {
	v := r.GetVersion()
	answer := func(resp nextgen.HeartbeatResponse) (kmsg.Response, error) {
		return kwire.ConsumerGroupHeartbeatResponseToKafka(v, resp, s.topics)
	}
	reject := func(code spec.ErrorCode, msg string) (kmsg.Response, error) {
		return answer(nextgen.HeartbeatResponse{Error: code, ErrorMessage: msg, MemberID: spec.MemberID(r.MemberID), MemberEpoch: spec.Epoch(r.MemberEpoch)})
	}
	req, err := kwire.ConsumerGroupHeartbeatRequestFromKafka(r, s.topics)
	if err != nil {
		if code, ok := requestCode(err); ok {
			return reject(code, err.(*kwire.RequestError).Message)
		}
		return nil, err
	}
	if blankGroup(req.GroupID) {
		return reject(spec.InvalidRequest, "GroupId can't be empty.")
	}
	g, err := s.lookupOrCreate(req.GroupID)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	n, code, err := s.asNextGen(ctx, g)
	if err == nil && code == spec.None {
		err = s.refreshImage(ctx, g, req.SubscribedTopicNames)
		if req.MemberID != "" {
			g.clients[req.MemberID] = client
		}
	}
	g.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if code != spec.None {
		return reject(code, fmt.Sprintf("Group %s is not a consumer group.", req.GroupID))
	}
	resp, err := n.Heartbeat(ctx, req)
	if err != nil {
		return nil, err
	}
	return answer(resp)
}

// refreshImage brings a consumer group's metadata image up to date: the
// partition counts of every topic its members have asked for, as the
// TopicSource says now. The coordinator gets a MetadataUpdate only when
// the image changes (a topic was created, grew or was deleted, or a new
// subscribed topic exists). g.mu must be held.
func (s *Server) refreshImage(ctx context.Context, g *group, names []string) error {
	added := false
	for _, name := range names {
		if name != "" && !g.subscribed[name] {
			g.subscribed[name] = true
			added = true
		}
	}
	ver := s.topics.current()
	if !added && ver == g.imageVersion {
		return nil
	}
	image := spec.Topics{}
	for name := range g.subscribed {
		if ti := s.topics.name(name); ti.exists {
			image[name] = ti.partitions
		}
	}
	g.imageVersion = ver
	if maps.Equal(image, g.image) {
		return nil
	}
	g.image = image
	return g.nextgen.UpdateMetadata(ctx, maps.Clone(image))
}

// consumerGroupDescribe is consumerGroupDescribe: each group described by
// its coordinator (kwire.DescribeConsumerGroup), a classic group as the
// other family, an unknown one as not found; an empty group id is
// INVALID_GROUP_ID.
func (s *Server) consumerGroupDescribe(ctx context.Context, r *kmsg.ConsumerGroupDescribeRequest) (kmsg.Response, error) {
	v := r.GetVersion()
	d, err := kwire.ConsumerGroupDescribeRequestFromKafka(r)
	if err != nil {
		return nil, err
	}
	var out []kwire.ConsumerGroupDescription
	for _, id := range d.Groups {
		desc := kwire.ConsumerGroupDescription{Group: id, Found: kwire.NotFound}
		if blankGroup(id) {
			desc.Error = spec.InvalidGroupID
			out = append(out, desc)
			continue
		}
		g, err := s.lookup(id)
		if err != nil {
			return nil, err
		}
		if g != nil {
			g.mu.Lock()
			switch {
			case g.nextgen != nil:
				clients := maps.Clone(g.clients)
				err = g.nextgen.Inspect(ctx, func(c *nextgen.Coordinator) {
					desc = kwire.DescribeConsumerGroup(c, id, clients)
				})
			case g.classic != nil:
				desc.Found = kwire.OtherFamily
			}
			g.mu.Unlock()
			if err != nil {
				return nil, err
			}
		}
		out = append(out, desc)
	}
	return kwire.ConsumerGroupDescribeResponseToKafka(v, out, s.topics)
}
