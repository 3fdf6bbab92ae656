package franzgo

import (
	"fmt"
	"slices"
	"sort"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// BalancerAssignor is a kgo.GroupBalancer run as an assign.Assignor; see
// Assignor.
type BalancerAssignor struct {
	b kgo.GroupBalancer
}

var _ assign.Assignor = (*BalancerAssignor)(nil)

// Assignor returns b as an assign.Assignor. Name is b.ProtocolName();
// Cooperative is b.IsCooperative(). Assign validates the group
// (assign.ValidateGroup's error for an invalid one), encodes each member
// with b.JoinGroupMetadata (its topics, owned partitions and generation)
// into a JoinGroup response member carrying its InstanceID, sorts the
// members as kgo does, and runs b.MemberBalancer and then BalanceOrError
// when the member balancer implements kgo.GroupMemberBalancerOrError, else
// Balance, over the partition counts of the subscribed topics the universe
// has. It decodes every member's bytes of the plan with
// b.ParseSyncAssignment into an assignment that names every member of the
// group, those the plan leaves out with an empty set. It returns an error,
// and no assignment, when b is nil, when a step returns one, when the plan
// is nil, names a member that is not in the group or a member twice, or
// lists a negative partition or one partition twice for a member, and when
// b panics (the error names the balancer). It does not judge the plan
// otherwise (partitions that do not exist, given twice or to a member not
// subscribed are returned as given). Racks are ignored (see the package
// documentation).
//
// Not deterministic when b is not: franz-go's sticky balancers
// (StickyBalancer, CooperativeStickyBalancer) number the topics in Go map
// order (kgo/internal/sticky/sticky.go, newBalancer), and with
// heterogeneous subscriptions the same group gets one of several plans at
// random, against assign's determinism contract.
func Assignor(b kgo.GroupBalancer) *BalancerAssignor { return &BalancerAssignor{b: b} }

// Range is Assignor(kgo.RangeBalancer()).
func Range() *BalancerAssignor { return Assignor(kgo.RangeBalancer()) }

// RoundRobin is Assignor(kgo.RoundRobinBalancer()).
func RoundRobin() *BalancerAssignor { return Assignor(kgo.RoundRobinBalancer()) }

// Sticky is Assignor(kgo.StickyBalancer()).
func Sticky() *BalancerAssignor { return Assignor(kgo.StickyBalancer()) }

// CooperativeSticky is Assignor(kgo.CooperativeStickyBalancer()).
func CooperativeSticky() *BalancerAssignor { return Assignor(kgo.CooperativeStickyBalancer()) }

// Name returns the balancer's protocol name, "" for a nil balancer or one
// whose ProtocolName panics.
func (a *BalancerAssignor) Name() string {
	name, _ := protocolName(a.b)
	return name
}

// Cooperative reports b.IsCooperative(): whether kgo members using the
// balancer keep what they own across a rebalance (false for a nil balancer
// or one that panics).
func (a *BalancerAssignor) Cooperative() (coop bool) {
	if a.b == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			coop = false
		}
	}()
	return a.b.IsCooperative()
}

// Balancer returns the wrapped kgo balancer.
func (a *BalancerAssignor) Balancer() kgo.GroupBalancer { return a.b }

// protocolName is b.ProtocolName(), recovering a panic.
func protocolName(b kgo.GroupBalancer) (name string, ok bool) {
	if b == nil {
		return "", false
	}
	defer func() {
		if recover() != nil {
			name, ok = "", false
		}
	}()
	return b.ProtocolName(), true
}

// label names b in errors.
func label(b kgo.GroupBalancer) string {
	if name, ok := protocolName(b); ok {
		return fmt.Sprintf("%q (%T)", name, b)
	}
	return fmt.Sprintf("%T", b)
}

// Assign runs the balancer on g; see Assignor.
func (a *BalancerAssignor) Assign(g assign.Group) (out spec.Assignment, err error) {
	if err := assign.ValidateGroup(g); err != nil {
		return nil, err
	}
	if a.b == nil {
		return nil, fmt.Errorf("franzgo: nil kgo.GroupBalancer")
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("franzgo: balancer %s panicked: %v", label(a.b), r)
		}
	}()
	members := JoinMembers(a.b, g)
	mb, topics, err := a.b.MemberBalancer(members)
	if err != nil {
		return nil, fmt.Errorf("franzgo: balancer %s: MemberBalancer: %w", label(a.b), err)
	}
	if mb == nil {
		return nil, fmt.Errorf("franzgo: balancer %s: MemberBalancer returned a nil member balancer", label(a.b))
	}
	counts := make(map[string]int32, len(topics))
	for t := range topics {
		if n, ok := g.Topics[t]; ok {
			counts[t] = n
		}
	}
	var into kgo.IntoSyncAssignment
	if mbe, ok := mb.(kgo.GroupMemberBalancerOrError); ok {
		if into, err = mbe.BalanceOrError(counts); err != nil {
			return nil, fmt.Errorf("franzgo: balancer %s: %w", label(a.b), err)
		}
	} else {
		into = mb.Balance(counts)
	}
	if into == nil {
		return nil, fmt.Errorf("franzgo: balancer %s returned a nil plan", label(a.b))
	}
	out = make(spec.Assignment, len(g.Members))
	for _, m := range g.Members {
		out[m.ID] = nil
	}
	seen := map[spec.MemberID]bool{}
	for _, sa := range into.IntoSyncAssignment() {
		id := spec.MemberID(sa.MemberID)
		if _, ok := out[id]; !ok {
			return nil, fmt.Errorf("franzgo: balancer %s assigned to %q, which is not a member of the group", label(a.b), sa.MemberID)
		}
		if seen[id] {
			return nil, fmt.Errorf("franzgo: balancer %s: the plan lists member %q twice", label(a.b), sa.MemberID)
		}
		seen[id] = true
		if len(sa.MemberAssignment) == 0 {
			continue
		}
		parts, err := a.b.ParseSyncAssignment(sa.MemberAssignment)
		if err != nil {
			return nil, fmt.Errorf("franzgo: balancer %s: member %q: ParseSyncAssignment: %w", label(a.b), sa.MemberID, err)
		}
		set, err := toSet(parts)
		if err != nil {
			return nil, fmt.Errorf("franzgo: balancer %s: member %q: %w", label(a.b), sa.MemberID, err)
		}
		out[id] = set
	}
	return out, nil
}

// JoinMembers encodes g's members as the members of a JoinGroup response
// for balancer b (b.JoinGroupMetadata of each member's topics, owned
// partitions and generation; MemberID; InstanceID when set), sorted as kgo
// sorts them before balancing: members with an instance ID first, by
// instance ID, then the others by member ID. g is not validated; owned
// Connect connector resources are passed as partition -1.
func JoinMembers(b kgo.GroupBalancer, g assign.Group) []kmsg.JoinGroupResponseMember {
	out := make([]kmsg.JoinGroupResponseMember, 0, len(g.Members))
	for _, m := range g.Members {
		jm := kmsg.NewJoinGroupResponseMember()
		jm.MemberID = string(m.ID)
		if m.InstanceID != "" {
			jm.InstanceID = kmsg.StringPtr(m.InstanceID)
		}
		jm.ProtocolMetadata = b.JoinGroupMetadata(slices.Clone(m.Topics), fromSet(m.Owned), int32(m.Generation))
		out = append(out, jm)
	}
	sort.SliceStable(out, func(i, j int) bool { return joinLess(&out[i], &out[j]) })
	return out
}

// joinLess is kgo's joinMemberLess (group_balancer.go).
func joinLess(l, r *kmsg.JoinGroupResponseMember) bool {
	if l.InstanceID != nil {
		if r.InstanceID == nil {
			return true
		}
		return *l.InstanceID < *r.InstanceID
	}
	if r.InstanceID != nil {
		return false
	}
	return l.MemberID < r.MemberID
}

// fromSet is s as kgo's topic → sorted partitions map.
func fromSet(s spec.Set) map[string][]int32 {
	out := map[string][]int32{}
	for _, r := range s {
		out[r.Topic] = append(out[r.Topic], r.Partition)
	}
	for _, ps := range out {
		slices.Sort(ps)
	}
	return out
}

// toSet is kgo's topic → partitions map as a set; a negative partition, an
// empty topic name or a partition listed twice is an error.
func toSet(parts map[string][]int32) (spec.Set, error) {
	var rs []spec.Resource
	for t, ps := range parts {
		for _, p := range ps {
			if t == "" || p < 0 {
				return nil, fmt.Errorf("%q %d is not a topic-partition", t, p)
			}
			rs = append(rs, spec.TP(t, p))
		}
	}
	s := spec.NewSet(rs...)
	if s.Len() != len(rs) {
		return nil, fmt.Errorf("a partition is listed twice in %v", parts)
	}
	return s, nil
}
