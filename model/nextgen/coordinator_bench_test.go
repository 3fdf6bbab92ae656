package nextgen

import (
	"fmt"
	"sync"
	"testing"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// The benchmarks run a large group through the coordinator's public API
// (Step) with well-behaved clients: each heartbeats its epoch and what it
// was last given, and gives up revoked partitions at once.
const (
	benchMembers    = 1000
	benchTopics     = 10
	benchPartitions = 10000
)

// benchGroup is a coordinator with its clients' view of the group.
type benchGroup struct {
	c      *Coordinator
	now    Millis
	ids    []spec.MemberID
	topics []string
	epoch  map[spec.MemberID]spec.Epoch
	owned  map[spec.MemberID]spec.Set
}

// heartbeat sends id's heartbeat (a full join at epoch 0) and takes the
// response as a client would.
func (g *benchGroup) heartbeat(tb testing.TB, id spec.MemberID) {
	r := HeartbeatRequest{GroupID: "g", MemberID: id, MemberEpoch: g.epoch[id], RebalanceTimeoutMs: -1,
		TopicPartitions: g.owned[id], OwnedSent: true}
	if r.MemberEpoch == 0 {
		r.RebalanceTimeoutMs = 30000
		r.SubscribedTopicNames, r.SubscriptionSent = g.topics, true
	}
	g.now++
	out := g.c.Step(node.Input{Now: g.now, Event: Receive{From: string(id), Msg: r}})
	resp := out.Messages[0].Msg.(HeartbeatResponse)
	if resp.Error != spec.None {
		tb.Fatalf("%s: %s", id, resp)
	}
	g.epoch[id] = resp.MemberEpoch
	if resp.AssignmentSent {
		g.owned[id] = resp.Assignment
	}
}

// settle heartbeats every member in turn until the group is STABLE.
func (g *benchGroup) settle(tb testing.TB) {
	for g.c.State() != GroupStable {
		for _, id := range g.ids {
			g.heartbeat(tb, id)
		}
	}
}

// clone returns an independent copy of g.
func (g *benchGroup) clone() *benchGroup {
	n := *g
	n.c = g.c.Clone()
	n.epoch = make(map[spec.MemberID]spec.Epoch, len(g.epoch))
	n.owned = make(map[spec.MemberID]spec.Set, len(g.owned))
	for id, e := range g.epoch {
		n.epoch[id] = e
	}
	for id, s := range g.owned {
		n.owned[id] = s
	}
	return &n
}

var (
	stableOnce  sync.Once
	stableGroup *benchGroup
)

// stableLargeGroup returns a copy of a STABLE group of benchMembers
// members over benchTopics topics of benchPartitions partitions, built
// once (all members join, then heartbeat until stable).
func stableLargeGroup(tb testing.TB) *benchGroup {
	stableOnce.Do(func() {
		topics, names := spec.NumberedTopics("topic-%02d", benchTopics, benchPartitions)
		c, err := NewCoordinator(CoordinatorConfig{GroupID: "g", Topics: topics})
		if err != nil {
			tb.Fatal(err)
		}
		g := &benchGroup{c: c, topics: names, epoch: map[spec.MemberID]spec.Epoch{}, owned: map[spec.MemberID]spec.Set{}}
		for i := range benchMembers {
			id := spec.MemberID(fmt.Sprintf("member-%04d", i))
			g.ids = append(g.ids, id)
			g.heartbeat(tb, id)
		}
		g.settle(tb)
		stableGroup = g
	})
	if stableGroup == nil {
		tb.Fatal("building the stable group failed")
	}
	return stableGroup.clone()
}

// BenchmarkHeartbeatStable is one keep-alive heartbeat of a member of a
// STABLE group of 1,000 members over 100,000 partitions: nothing changes,
// so it should cost nothing per partition the group or the member has.
//
//	go test -run '^$' -bench HeartbeatStable -benchmem ./model/nextgen/
func BenchmarkHeartbeatStable(b *testing.B) {
	g := stableLargeGroup(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		g.heartbeat(b, g.ids[i%len(g.ids)])
		i++
	}
	if g.c.State() != GroupStable {
		b.Fatalf("group %s after keep-alives", g.c.State())
	}
}

// BenchmarkRebalanceAfterLeave is one rebalance of that group: a member
// leaves, and the others heartbeat until the group is STABLE again (a new
// target, then about one heartbeat per member to move to its epoch, and a
// few more for the members that take over the leaver's partitions).
//
//	go test -run '^$' -bench RebalanceAfterLeave -benchmem ./model/nextgen/
func BenchmarkRebalanceAfterLeave(b *testing.B) {
	base := stableLargeGroup(b)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		g := base.clone()
		b.StartTimer()
		leaver := g.ids[0]
		g.ids = g.ids[1:]
		out := g.c.Step(node.Input{Now: g.now + 1, Event: Receive{From: string(leaver),
			Msg: HeartbeatRequest{GroupID: "g", MemberID: leaver, MemberEpoch: spec.LeaveEpoch, RebalanceTimeoutMs: -1}}})
		if resp := out.Messages[0].Msg.(HeartbeatResponse); resp.Error != spec.None {
			b.Fatalf("leave: %s", resp)
		}
		g.settle(b)
	}
}
