package franzgo

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// groups are hand-written assignor inputs. Instance IDs, where set, sort
// like the member IDs, so kgo's member order is the group's.
func groups() map[string]assign.Group {
	all := func(ids ...string) []assign.Member {
		var out []assign.Member
		for _, id := range ids {
			out = append(out, assign.Member{ID: spec.MemberID(id), Topics: []string{"a"}, Generation: spec.NoGeneration})
		}
		return out
	}
	return map[string]assign.Group{
		"fresh": {Topics: spec.Topics{"a": 7}, Members: all("A", "B", "C")},
		"one-member": {Topics: spec.Topics{"a": 3, "b": 2}, Members: []assign.Member{
			{ID: "A", Topics: []string{"a", "b", "zz-unknown"}, Generation: spec.NoGeneration},
		}},
		"heterogeneous": {Topics: spec.Topics{"a": 3, "b": 4, "c": 2, "d": 5}, Members: []assign.Member{
			{ID: "A", Topics: []string{"a", "b"}, Generation: spec.NoGeneration},
			{ID: "B", Topics: []string{"b", "c", "x-unknown"}, Generation: spec.NoGeneration},
			{ID: "C", Topics: []string{"a", "c"}, Generation: spec.NoGeneration},
		}},
		"owned": {Topics: spec.Topics{"a": 6, "b": 3}, Members: []assign.Member{
			{ID: "A", InstanceID: "i-A", Topics: []string{"a", "b"}, Owned: spec.NewSet(append(spec.Range("a", 0, 5), spec.Range("b", 0, 2)...)...), Generation: 3},
			{ID: "B", InstanceID: "i-B", Topics: []string{"a", "b"}, Generation: 3},
			{ID: "C", InstanceID: "i-C", Topics: []string{"a", "b"}, Generation: spec.NoGeneration},
		}},
		"conflicting-claims": {Topics: spec.Topics{"a": 4}, Members: []assign.Member{
			{ID: "A", Topics: []string{"a"}, Owned: spec.NewSet(spec.TP("a", 0), spec.TP("a", 1)), Generation: 5},
			{ID: "B", Topics: []string{"a"}, Owned: spec.NewSet(spec.TP("a", 1), spec.TP("a", 2)), Generation: 4},
			{ID: "C", Topics: []string{"a"}, Owned: spec.NewSet(spec.TP("a", 3)), Generation: 5},
		}},
	}
}

// direct runs b on g the way franz-go's own benchmark comparison does,
// without this package: JoinGroupMetadata in the group's order,
// MemberBalancer, BalanceOrError, and the plan's member map.
func direct(t *testing.T, b kgo.GroupBalancer, g assign.Group) spec.Assignment {
	t.Helper()
	var members []kmsg.JoinGroupResponseMember
	for _, m := range g.Members {
		owned := map[string][]int32{}
		for _, r := range m.Owned {
			owned[r.Topic] = append(owned[r.Topic], r.Partition)
		}
		jm := kmsg.JoinGroupResponseMember{MemberID: string(m.ID), ProtocolMetadata: b.JoinGroupMetadata(append([]string(nil), m.Topics...), owned, int32(m.Generation))}
		if m.InstanceID != "" {
			jm.InstanceID = kmsg.StringPtr(m.InstanceID)
		}
		members = append(members, jm)
	}
	mb, _, err := b.MemberBalancer(members)
	if err != nil {
		t.Fatal(err)
	}
	into, err := mb.(kgo.GroupMemberBalancerOrError).BalanceOrError(map[string]int32(g.Topics))
	if err != nil {
		t.Fatal(err)
	}
	out := spec.Assignment{}
	for _, m := range g.Members {
		out[m.ID] = nil
	}
	for id, topics := range into.(*kgo.BalancePlan).AsMemberIDMap() {
		var rs []spec.Resource
		for tp, ps := range topics {
			for _, p := range ps {
				rs = append(rs, spec.TP(tp, p))
			}
		}
		out[spec.MemberID(id)] = spec.NewSet(rs...)
	}
	return out
}

func TestAssignorMatchesFranzGo(t *testing.T) {
	cases := []struct {
		a    *BalancerAssignor
		name string
		coop bool
	}{
		{Range(), "range", false},
		{RoundRobin(), "roundrobin", false},
		{Sticky(), "sticky", false},
		{CooperativeSticky(), "cooperative-sticky", true},
	}
	for _, c := range cases {
		if c.a.Name() != c.name || c.a.Cooperative() != c.coop {
			t.Errorf("%T: Name %q Cooperative %v, want %q %v", c.a.Balancer(), c.a.Name(), c.a.Cooperative(), c.name, c.coop)
		}
		for gname, g := range groups() {
			got, err := c.a.Assign(g)
			if err != nil {
				t.Errorf("%s on %s: %v", c.name, gname, err)
				continue
			}
			round := spec.Round{Topics: g.Topics, Subscriptions: map[spec.MemberID][]string{}, Claims: map[spec.MemberID]spec.Set{}, Assigned: got}
			want := 0
			subscribed := map[string]bool{}
			for _, m := range g.Members {
				round.Subscriptions[m.ID] = m.Topics
				round.Claims[m.ID] = m.Owned
				if _, ok := got[m.ID]; !ok {
					t.Errorf("%s on %s: member %s missing from %s", c.name, gname, m.ID, got)
				}
				for _, tp := range m.Topics {
					if n, ok := g.Topics[tp]; ok && !subscribed[tp] {
						subscribed[tp] = true
						want += int(n)
					}
				}
			}
			if v := spec.CheckRound(round); len(v) > 0 {
				t.Errorf("%s on %s: %v\n%s", c.name, gname, v, got)
			}
			// Complete: every subscribed partition is assigned (the
			// cooperative one may withhold what moves).
			if n := got.All().Len(); n != want && !c.coop {
				t.Errorf("%s on %s: %d partitions assigned, want %d: %s", c.name, gname, n, want, got)
			}
			// franz-go's sticky balancers number topics in map order
			// (internal/sticky newBalancer), so with heterogeneous
			// subscriptions they give one of a few plans at random: the
			// adapter's must be one of those franz-go gives directly.
			var seen []spec.Assignment
			matched := false
			for range 300 {
				d := direct(t, c.a.Balancer(), g)
				if d.Equal(got) {
					matched = true
					break
				}
				if !slices.ContainsFunc(seen, d.Equal) {
					seen = append(seen, d)
				}
			}
			if !matched {
				t.Errorf("%s on %s: adapter gives\n%s\nfranz-go directly gives one of\n%v", c.name, gname, got, seen)
			}
		}
	}
}

func TestAssignorInvalidGroup(t *testing.T) {
	bad := map[string]assign.Group{
		"unsorted":     {Topics: spec.Topics{"a": 2}, Members: []assign.Member{{ID: "B", Topics: []string{"a"}}, {ID: "A", Topics: []string{"a"}}}},
		"owned-absent": {Topics: spec.Topics{"a": 2}, Members: []assign.Member{{ID: "A", Topics: []string{"a"}, Owned: spec.NewSet(spec.TP("a", 5))}}},
		"negative":     {Topics: spec.Topics{"a": -1}, Members: []assign.Member{{ID: "A", Topics: []string{"a"}}}},
	}
	for name, g := range bad {
		for _, a := range []*BalancerAssignor{Range(), CooperativeSticky()} {
			got, err := a.Assign(g)
			if !errors.Is(err, assign.ErrInvalidGroup) || got != nil {
				t.Errorf("%s on %s: got %v, %v; want ErrInvalidGroup and no assignment", a.Name(), name, got, err)
			}
		}
	}
}

// panicky is a kgo.GroupBalancer that panics at step where.
type panicky struct {
	kgo.GroupBalancer
	where string
}

func (p panicky) MemberBalancer(members []kmsg.JoinGroupResponseMember) (kgo.GroupMemberBalancer, map[string]struct{}, error) {
	if p.where == "member" {
		panic("boom in MemberBalancer")
	}
	mb, topics, err := p.GroupBalancer.MemberBalancer(members)
	return panickyMember{mb}, topics, err
}

func (p panicky) JoinGroupMetadata(topics []string, owned map[string][]int32, gen int32) []byte {
	if p.where == "join" {
		panic("boom in JoinGroupMetadata")
	}
	return p.GroupBalancer.JoinGroupMetadata(topics, owned, gen)
}

type panickyMember struct{ kgo.GroupMemberBalancer }

func (panickyMember) Balance(map[string]int32) kgo.IntoSyncAssignment { panic("boom in Balance") }

// failing is a kgo.GroupBalancer whose balance fails.
type failing struct{ kgo.GroupBalancer }

func (f failing) MemberBalancer(members []kmsg.JoinGroupResponseMember) (kgo.GroupMemberBalancer, map[string]struct{}, error) {
	_, topics, err := f.GroupBalancer.MemberBalancer(members)
	return failingMember{}, topics, err
}

type failingMember struct{}

func (failingMember) Balance(map[string]int32) kgo.IntoSyncAssignment { return nil }
func (failingMember) BalanceOrError(map[string]int32) (kgo.IntoSyncAssignment, error) {
	return nil, errors.New("no can do")
}

func TestAssignorPanicsAndErrors(t *testing.T) {
	g := groups()["fresh"]
	for _, where := range []string{"join", "member", "balance"} {
		a := Assignor(panicky{GroupBalancer: kgo.RangeBalancer(), where: where})
		got, err := a.Assign(g)
		if err == nil || got != nil {
			t.Fatalf("panic in %s: got %v, %v; want an error", where, got, err)
		}
		if !strings.Contains(err.Error(), `"range"`) || !strings.Contains(err.Error(), "boom") {
			t.Errorf("panic in %s: error %q does not name the balancer and the panic", where, err)
		}
	}
	got, err := Assignor(failing{kgo.RangeBalancer()}).Assign(g)
	if err == nil || got != nil || !strings.Contains(err.Error(), "no can do") {
		t.Errorf("failing balancer: got %v, %v; want its error", got, err)
	}
	if _, err := Assignor(nil).Assign(g); err == nil {
		t.Error("nil balancer: no error")
	}
}

// TestJoinMembersOrder: members with an instance ID come first, by
// instance ID, as kgo sorts them before balancing; each carries its
// instance ID and its metadata decodes to its subscription.
func TestJoinMembersOrder(t *testing.T) {
	g := assign.Group{Topics: spec.Topics{"a": 2}, Members: []assign.Member{
		{ID: "A", Topics: []string{"a"}, Generation: spec.NoGeneration},
		{ID: "B", InstanceID: "z", Topics: []string{"a"}, Owned: spec.NewSet(spec.TP("a", 1)), Generation: 4},
		{ID: "C", InstanceID: "y", Topics: []string{"a"}, Generation: 2},
	}}
	ms := JoinMembers(kgo.CooperativeStickyBalancer(), g)
	var order []string
	for _, m := range ms {
		inst := ""
		if m.InstanceID != nil {
			inst = *m.InstanceID
		}
		order = append(order, m.MemberID+"/"+inst)
	}
	if got, want := strings.Join(order, " "), "C/y B/z A/"; got != want {
		t.Fatalf("order %q, want %q", got, want)
	}
	var meta kmsg.ConsumerMemberMetadata
	if err := meta.ReadFrom(ms[1].ProtocolMetadata); err != nil {
		t.Fatal(err)
	}
	if meta.Generation != 4 || len(meta.OwnedPartitions) != 1 || meta.OwnedPartitions[0].Topic != "a" || !slices.Equal(meta.OwnedPartitions[0].Partitions, []int32{1}) {
		t.Errorf("B's metadata: generation %d, owned %+v", meta.Generation, meta.OwnedPartitions)
	}
}
