package franzgo

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	"github.com/rebalance-ref/rebalance/spec"
)

// ourBalancers are the balancers the tests run, by name; each call makes
// fresh values.
func ourBalancers() []struct {
	name string
	make func() *KgoBalancer
} {
	return []struct {
		name string
		make func() *KgoBalancer
	}{
		{"range", func() *KgoBalancer { return Balancer(assign.Range(), false) }},
		{"roundrobin", func() *KgoBalancer { return Balancer(assign.RoundRobin(), false) }},
		{"sticky", func() *KgoBalancer { return Balancer(assign.Sticky(), false) }},
		{"cooperative-sticky", func() *KgoBalancer { return Balancer(assign.CooperativeSticky(), true) }},
		{"eager", func() *KgoBalancer { return ProtocolBalancer(policy.Eager(assign.Range())) }},
		{"cooperative", func() *KgoBalancer { return ProtocolBalancer(policy.Cooperative()) }},
		{"deferred", func() *KgoBalancer {
			return ProtocolBalancer(policy.Deferred(policy.DeferredConfig{MaxDelay: 1500}))
		}},
		{"incremental", func() *KgoBalancer {
			return ProtocolBalancer(policy.Incremental(policy.IncrementalConfig{MaxDelay: 1500, MaxMovesPerRound: 2, StepDelay: 300}))
		}},
	}
}

// simMember is a kgo member as the balancer sees it: its balancer value
// and what kgo would pass to JoinGroupMetadata.
type simMember struct {
	id    string
	bal   *KgoBalancer
	owned map[string][]int32
	gen   int32
	// last is the last assignment parsed.
	last  map[string][]int32
	delay classic.Millis
}

// simRound runs one classic round the way kgo does: every member's
// JoinGroupMetadata, the leader's MemberBalancer, SetBalanceInfo and
// BalanceOrError, and every member's ParseSyncAssignment (and what kgo
// itself would parse, kgo.ParseConsumerSyncAssignment, must agree). It
// returns the leader's error.
func simRound(t *testing.T, ms []*simMember, leader int, gen int32, topics map[string]int32, subs []string) error {
	t.Helper()
	var join []kmsg.JoinGroupResponseMember
	for _, m := range ms {
		owned := m.owned
		if !m.bal.IsCooperative() {
			owned = nil // an eager kgo member revoked everything
		}
		join = append(join, kmsg.JoinGroupResponseMember{MemberID: m.id, ProtocolMetadata: m.bal.JoinGroupMetadata(slices.Clone(subs), owned, m.gen)})
	}
	lb := ms[leader].bal
	mb, ts, err := lb.MemberBalancer(join)
	if err != nil {
		return err
	}
	for _, s := range subs {
		if _, ok := ts[s]; !ok {
			t.Fatalf("MemberBalancer topics %v lack %q", ts, s)
		}
	}
	mb.(kgo.GroupMemberBalancerInfo).SetBalanceInfo(kgo.BalanceInfo{Generation: gen, LeaderID: ms[leader].id})
	into, err := mb.(kgo.GroupMemberBalancerOrError).BalanceOrError(topics)
	if err != nil {
		return err
	}
	plan := map[string][]byte{}
	for _, sa := range into.IntoSyncAssignment() {
		plan[sa.MemberID] = sa.MemberAssignment
	}
	if len(plan) != len(ms) {
		t.Fatalf("plan for %d members, want %d", len(plan), len(ms))
	}
	for _, m := range ms {
		got, err := m.bal.ParseSyncAssignment(plan[m.id])
		if err != nil {
			t.Fatalf("member %s: %v", m.id, err)
		}
		kg, err := kgo.ParseConsumerSyncAssignment(plan[m.id])
		if err != nil {
			t.Fatalf("member %s: kgo cannot parse: %v", m.id, err)
		}
		if a, b := mustSet(t, got), mustSet(t, kg); !a.Equal(b) {
			t.Fatalf("member %s: we parse %s, kgo parses %s", m.id, a, b)
		}
		m.owned, m.last, m.gen = got, got, gen
		var a classic.Assignment
		if _, ours, err := decodeAssignmentData(userData(t, plan[m.id]), &a); err != nil || !ours {
			t.Fatalf("member %s: user data: ours %v, %v", m.id, ours, err)
		}
		m.delay = a.Delay
		if a.Leader != spec.MemberID(ms[leader].id) {
			t.Fatalf("member %s: leader %q, want %q", m.id, a.Leader, ms[leader].id)
		}
	}
	return nil
}

func userData(t *testing.T, b []byte) []byte {
	t.Helper()
	var m kmsg.ConsumerMemberAssignment
	if err := m.ReadFrom(b); err != nil {
		t.Fatal(err)
	}
	return m.UserData
}

func mustSet(t *testing.T, m map[string][]int32) spec.Set {
	t.Helper()
	s, err := toSet(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// covered reports whether the members' last assignments give every
// partition of topic exactly once.
func covered(t *testing.T, ms []*simMember, topic string, n int32) bool {
	t.Helper()
	all := spec.Assignment{}
	for _, m := range ms {
		all[spec.MemberID(m.id)] = mustSet(t, m.last)
	}
	return all.All().Equal(spec.Range(topic, 0, n-1)) && all.All().Len() == sumLen(all)
}

func sumLen(a spec.Assignment) int {
	n := 0
	for _, s := range a {
		n += s.Len()
	}
	return n
}

// TestBalancersInMemory runs each of our balancers through kgo's calls,
// without a client: three members converge on twelve partitions; then one
// (not the leader) leaves and the other two converge again. Deferred and
// incremental must hold the leaver's partitions back with a delay, and
// give them out once the leader's clock passes it.
func TestBalancersInMemory(t *testing.T) {
	const topic, parts = "t", 12
	topics := map[string]int32{topic: parts}
	for _, c := range ourBalancers() {
		t.Run(c.name, func(t *testing.T) {
			var clock classic.Millis = 1_000_000
			var ms []*simMember
			for _, id := range []string{"m-a", "m-b", "m-c"} {
				b := c.make()
				b.now = func() classic.Millis { return clock }
				ms = append(ms, &simMember{id: id, bal: b, gen: -1})
			}
			gen := int32(0)
			settle := func(ms []*simMember) {
				t.Helper()
				for range 6 {
					gen++
					if err := simRound(t, ms, 0, gen, topics, []string{topic}); err != nil {
						t.Fatal(err)
					}
					if covered(t, ms, topic, parts) {
						return
					}
					clock += 2000 // past any delay
				}
				t.Fatalf("not covered after 6 rounds: %v", ms)
			}
			settle(ms)
			if mem := ms[0].bal.Memory(); mem.Generation != spec.Generation(gen) && (c.name == "deferred" || c.name == "incremental") {
				t.Fatalf("leader memory of generation %d, want %d", mem.Generation, gen)
			}
			// m-c leaves; the leader m-a stays.
			ms = ms[:2]
			gen++
			if err := simRound(t, ms, 0, gen, topics, []string{topic}); err != nil {
				t.Fatal(err)
			}
			delayed := c.name == "deferred" || c.name == "incremental"
			if delayed {
				if covered(t, ms, topic, parts) || ms[0].delay <= 0 || ms[0].bal.heldRounds == 0 {
					t.Fatalf("%s: the leaver's partitions were not held back (delay %d, held rounds %d)", c.name, ms[0].delay, ms[0].bal.heldRounds)
				}
				// Before the delay runs out they stay held back.
				gen++
				if err := simRound(t, ms, 0, gen, topics, []string{topic}); err != nil {
					t.Fatal(err)
				}
				if covered(t, ms, topic, parts) {
					t.Fatalf("%s: held-back partitions given out before the delay ran out", c.name)
				}
				clock += 1500
			}
			settle(ms)
		})
	}
}

// badProtocol is a classic.Protocol that fails in a chosen way.
type badProtocol struct{ how string }

func (badProtocol) Name() string      { return "bad" }
func (badProtocol) Cooperative() bool { return true }
func (p badProtocol) Assign(in classic.LeaderInput) (classic.LeaderResult, error) {
	switch p.how {
	case "error":
		return classic.LeaderResult{}, errors.New("cannot assign")
	case "panic":
		panic("protocol exploded")
	}
	// "twice": every partition to every member.
	out := classic.LeaderResult{Assignments: map[spec.MemberID]classic.Assignment{}}
	for _, j := range in.Members {
		out.Assignments[j.ID] = classic.Assignment{Assigned: in.Topics.Resources(slices.Collect(maps.Keys(in.Topics))...)}
	}
	return out, nil
}

// TestBalancerErrors: kgo gets a protocol's error, panic or illegal
// round as BalanceOrError's error; an undecodable subscription is
// MemberBalancer's error; an assignment carrying an Error is refused.
func TestBalancerErrors(t *testing.T) {
	topics := map[string]int32{"t": 3}
	for _, how := range []string{"error", "panic", "twice"} {
		ms := []*simMember{{id: "a", bal: ProtocolBalancer(badProtocol{how}), gen: -1}, {id: "b", bal: ProtocolBalancer(badProtocol{how}), gen: -1}}
		err := simRound(t, ms, 0, 1, topics, []string{"t"})
		want := map[string]string{"error": "cannot assign", "panic": "protocol exploded", "twice": "AssignedOnce"}[how]
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one mentioning %q", how, err, want)
		}
	}
	// An assignor error through Balancer.
	ms := []*simMember{{id: "a", bal: Balancer(assign.Assignor(failingAssignor{}), false), gen: -1}}
	if err := simRound(t, ms, 0, 1, topics, []string{"t"}); err == nil || !strings.Contains(err.Error(), "assignor says no") {
		t.Errorf("assignor error: %v", err)
	}
	// A moving partition under a cooperative assignor that does not
	// withhold fails CooperativeHandoff.
	ms = []*simMember{
		{id: "a", bal: Balancer(assign.Range(), true), gen: 1, owned: map[string][]int32{"t": {0, 1, 2}}},
		{id: "b", bal: Balancer(assign.Range(), true), gen: -1},
	}
	if err := simRound(t, ms, 0, 2, topics, []string{"t"}); err == nil || !strings.Contains(err.Error(), "CooperativeHandoff") {
		t.Errorf("range as cooperative: %v, want a CooperativeHandoff error", err)
	}
	// Undecodable metadata.
	b := Balancer(assign.Range(), false)
	if _, _, err := b.MemberBalancer([]kmsg.JoinGroupResponseMember{{MemberID: "x", ProtocolMetadata: []byte{0, 9, 1}}}); err == nil || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("undecodable metadata: %v", err)
	}
	// An assignment with an error code.
	md, err := encodeForTest(classic.Assignment{Leader: "a", Error: spec.UnknownServerError})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.ParseSyncAssignment(md); err == nil {
		t.Error("assignment with an error code parsed")
	}
	if got, err := b.ParseSyncAssignment(nil); err != nil || len(got) != 0 {
		t.Errorf("empty assignment: %v, %v", got, err)
	}
}

func encodeForTest(a classic.Assignment) ([]byte, error) {
	plan, err := buildPlan(badProtocol{"x"}, classic.LeaderInput{Generation: 1, Leader: "a", Members: []classic.Joined{{ID: "a"}}}, classic.LeaderResult{Assignments: map[spec.MemberID]classic.Assignment{"a": a}})
	if err != nil {
		return nil, err
	}
	return plan[0].MemberAssignment, nil
}

type failingAssignor struct{}

func (failingAssignor) Name() string { return "failing" }
func (failingAssignor) Assign(assign.Group) (spec.Assignment, error) {
	return nil, errors.New("assignor says no")
}
