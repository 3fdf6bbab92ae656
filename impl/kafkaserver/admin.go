package kafkaserver

import (
	"context"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/impl/kwire"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file answers the administrative group APIs: DescribeGroups,
// ListGroups and DeleteGroups.

// describeGroups is describeGroups: a classic group described by its
// coordinator, a consumer group as the other family, an unknown one as
// not found (kwire says how each version shows them); an empty group id is
// INVALID_GROUP_ID.
func (s *Server) describeGroups(ctx context.Context, r *kmsg.DescribeGroupsRequest) (kmsg.Response, error) {
	v := r.GetVersion()
	d, err := kwire.DescribeGroupsRequestFromKafka(r)
	if err != nil {
		return nil, err
	}
	var out []kwire.DescribedGroup
	for _, id := range d.Groups {
		dg := kwire.DescribedGroup{Group: id, Found: kwire.NotFound}
		if blankGroup(id) {
			dg.Error = spec.InvalidGroupID
			out = append(out, dg)
			continue
		}
		g, err := s.lookup(id)
		if err != nil {
			return nil, err
		}
		if g != nil {
			g.mu.Lock()
			cg, ng := g.classic, g.nextgen
			g.mu.Unlock()
			switch {
			case cg != nil:
				if dg.Description, err = cg.Describe(ctx); err != nil {
					return nil, err
				}
				dg.Found = kwire.Found
			case ng != nil:
				dg.Found = kwire.OtherFamily
			}
		}
		out = append(out, dg)
	}
	return kwire.DescribeGroupsResponseToKafka(v, out)
}

// groupListing is one group as ListGroups shows it.
type groupListing struct {
	id, protocolType, state, typ string
}

// listing describes g for ListGroups; ok=false for a group id with no
// driver (never created).
func listing(ctx context.Context, g *group) (groupListing, bool, error) {
	g.mu.Lock()
	cg, ng := g.classic, g.nextgen
	g.mu.Unlock()
	switch {
	case cg != nil:
		d, err := cg.Describe(ctx)
		return groupListing{id: g.id, protocolType: d.ProtocolType, state: d.State.String(), typ: "classic"}, true, err
	case ng != nil:
		var st nextgen.GroupState
		err := ng.Inspect(ctx, func(c *nextgen.Coordinator) { st = c.State() })
		return groupListing{id: g.id, protocolType: "consumer", state: consumerStateName(st), typ: "consumer"}, true, err
	}
	return groupListing{}, false, nil
}

// consumerStateName is Kafka's ConsumerGroupState.toString.
func consumerStateName(st nextgen.GroupState) string {
	switch st {
	case nextgen.GroupEmpty:
		return "Empty"
	case nextgen.GroupAssigning:
		return "Assigning"
	case nextgen.GroupReconciling:
		return "Reconciling"
	case nextgen.GroupStable:
		return "Stable"
	}
	return "Dead"
}

// listGroups is listGroups: every group, filtered by state (v4+) and type
// (v5+), case-insensitively as Kafka does.
func (s *Server) listGroups(ctx context.Context, r *kmsg.ListGroupsRequest) (kmsg.Response, error) {
	resp := r.ResponseKind().(*kmsg.ListGroupsResponse)
	match := func(filter []string, value string) bool {
		return len(filter) == 0 || slices.ContainsFunc(filter, func(f string) bool { return strings.EqualFold(f, value) })
	}
	for _, id := range s.Groups() {
		g, err := s.lookup(id)
		if err != nil {
			return nil, err
		}
		if g == nil {
			continue
		}
		l, ok, err := listing(ctx, g)
		if err != nil {
			return nil, err
		}
		if !ok || (r.Version >= 4 && !match(r.StatesFilter, l.state)) || (r.Version >= 5 && !match(r.TypesFilter, l.typ)) {
			continue
		}
		lg := kmsg.NewListGroupsResponseGroup()
		lg.Group, lg.ProtocolType, lg.GroupState, lg.GroupType = l.id, l.protocolType, l.state, l.typ
		resp.Groups = append(resp.Groups, lg)
	}
	return resp, nil
}

// NonEmptyGroup is Kafka's NON_EMPTY_GROUP (68), for DeleteGroups.
const NonEmptyGroup spec.ErrorCode = 68

// deleteGroups is deleteGroups: an empty group (no members, no pending
// ids) is deleted with its offsets; a group with members answers
// NON_EMPTY_GROUP, an unknown one GROUP_ID_NOT_FOUND, an empty id
// INVALID_GROUP_ID.
func (s *Server) deleteGroups(ctx context.Context, r *kmsg.DeleteGroupsRequest) (kmsg.Response, error) {
	resp := r.ResponseKind().(*kmsg.DeleteGroupsResponse)
	for _, id := range r.Groups {
		rg := kmsg.NewDeleteGroupsResponseGroup()
		rg.Group = id
		code, err := s.deleteGroup(ctx, id)
		if err != nil {
			return nil, err
		}
		rg.ErrorCode = int16(code)
		resp.Groups = append(resp.Groups, rg)
	}
	return resp, nil
}

func (s *Server) deleteGroup(ctx context.Context, id string) (spec.ErrorCode, error) {
	if blankGroup(id) {
		return spec.InvalidGroupID, nil
	}
	g, err := s.lookup(id)
	if err != nil {
		return 0, err
	}
	if g == nil {
		return spec.GroupIDNotFound, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	empty := true
	switch {
	case g.classic != nil:
		empty, err = classicEmpty(ctx, g.classic)
	case g.nextgen != nil:
		empty, err = nextgenEmpty(ctx, g.nextgen)
	}
	if err != nil {
		return 0, err
	}
	if !empty {
		return NonEmptyGroup, nil
	}
	g.close()
	g.classic, g.nextgen = nil, nil
	s.mu.Lock()
	if s.groups[id] == g {
		delete(s.groups, id)
	}
	s.mu.Unlock()
	return spec.None, nil
}
