package impl

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// The heartbeat benchmarks measure one group's driver in-process: how many
// heartbeats per second its loop steps, with 1,000 members in a stable
// group, each heartbeat a request from a caller goroutine through the
// loop's mailbox, a Step of the pure coordinator (which re-arms the
// member's session timer) and the answer back. Run them on one core and
// on two:
//
//	go test ./impl -run '^$' -bench Heartbeats -cpu 1,2 -count 6

const benchMembers = 1000

// stableClassic forms a stable classic group of n members: the first
// member's join completes a one-member generation, the others' joins are
// parked until the first rejoins, then every member syncs.
func stableClassic(tb testing.TB, n int) (*ClassicGroup, []spec.MemberID, spec.Generation) {
	ctx := context.Background()
	g, err := NewClassicGroup(ClassicConfig{Coordinator: classic.CoordinatorConfig{GroupID: "g"}})
	if err != nil {
		tb.Fatal(err)
	}
	join := func(client string, id spec.MemberID) classic.JoinGroupRequest {
		return classic.JoinGroupRequest{MemberID: id, ClientID: client, ProtocolType: "consumer",
			Protocols: []classic.ProtocolMetadata{{Name: "range"}}, SessionTimeout: 60000, RebalanceTimeout: 60000}
	}
	first, err := g.Request(ctx, join("m", ""))
	if err != nil {
		tb.Fatal(err)
	}
	leader := first.(classic.JoinGroupResponse).MemberID
	var parked []*Pending[classic.Message]
	for i := 1; i < n; i++ {
		p, err := g.Start(ctx, join("m", ""))
		if err != nil {
			tb.Fatal(err)
		}
		parked = append(parked, p)
	}
	r, err := g.Request(ctx, join("m", leader))
	if err != nil {
		tb.Fatal(err)
	}
	gen := r.(classic.JoinGroupResponse).Generation
	ids := []spec.MemberID{leader}
	var asg []classic.MemberAssignment
	for _, p := range parked {
		r, err := p.Wait(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, r.(classic.JoinGroupResponse).MemberID)
	}
	for _, id := range ids {
		asg = append(asg, classic.MemberAssignment{MemberID: id, Assignment: "a"})
	}
	var syncs []*Pending[classic.Message]
	for _, id := range ids[1:] {
		p, err := g.Start(ctx, classic.SyncGroupRequest{MemberID: id, Generation: gen})
		if err != nil {
			tb.Fatal(err)
		}
		syncs = append(syncs, p)
	}
	if _, err := g.Request(ctx, classic.SyncGroupRequest{MemberID: leader, Generation: gen, Assignments: asg}); err != nil {
		tb.Fatal(err)
	}
	for _, p := range syncs {
		if _, err := p.Wait(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	d, _ := g.Describe(ctx)
	if d.State != classic.GroupStable || len(d.Members) != n {
		tb.Fatalf("group %s with %d members", d.State, len(d.Members))
	}
	return g, ids, gen
}

// stableNextGen forms a consumer group of n members over one topic of 2n
// partitions and heartbeats until every member is reconciled.
func stableNextGen(tb testing.TB, n int) (*NextGenGroup, []spec.MemberID, []spec.Epoch) {
	ctx := context.Background()
	g, err := NewNextGenGroup(NextGenConfig{Coordinator: nextgen.CoordinatorConfig{GroupID: "g", Topics: spec.Topics{"t": int32(2 * n)}, SessionTimeout: 60000, HeartbeatInterval: 5000}})
	if err != nil {
		tb.Fatal(err)
	}
	ids := make([]spec.MemberID, n)
	epochs := make([]spec.Epoch, n)
	owned := make([]spec.Set, n)
	for i := range n {
		ids[i] = spec.MemberID(fmt.Sprintf("m%04d", i))
		r, err := g.Heartbeat(ctx, nextgen.HeartbeatRequest{GroupID: "g", MemberID: ids[i], RebalanceTimeoutMs: 60000,
			SubscribedTopicNames: []string{"t"}, SubscriptionSent: true, OwnedSent: true})
		if err != nil || r.Error != spec.None {
			tb.Fatalf("join: %v %s", err, r)
		}
		epochs[i], owned[i] = r.MemberEpoch, r.Assignment
	}
	for round := 0; ; round++ {
		var st nextgen.GroupState
		g.Inspect(ctx, func(c *nextgen.Coordinator) { st = c.State() })
		if st == nextgen.GroupStable {
			return g, ids, epochs
		}
		if round > 20 {
			tb.Fatalf("the group is still %s after %d rounds", st, round)
		}
		for i := range n {
			r, err := g.Heartbeat(ctx, nextgen.HeartbeatRequest{GroupID: "g", MemberID: ids[i], MemberEpoch: epochs[i], RebalanceTimeoutMs: -1,
				TopicPartitions: owned[i], OwnedSent: true})
			if err != nil || r.Error != spec.None {
				tb.Fatalf("heartbeat: %v %s", err, r)
			}
			epochs[i] = r.MemberEpoch
			if r.AssignmentSent {
				owned[i] = r.Assignment
			}
		}
	}
}

// The stable groups are formed once per test binary: the benchmark
// function runs several times while the testing package sizes b.N, and
// forming 1,000 members is setup, not what is measured.
var (
	benchClassic struct {
		sync.Once
		g   *ClassicGroup
		ids []spec.MemberID
		gen spec.Generation
	}
	benchNextGen struct {
		sync.Once
		g      *NextGenGroup
		ids    []spec.MemberID
		epochs []spec.Epoch
	}
)

// reportRate reports heartbeats per second of wall time.
func reportRate(b *testing.B, start time.Time) {
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "heartbeats/s")
}

// BenchmarkHeartbeats is the steady state of a stable group of 1,000
// members: every caller goroutine heartbeats members in turn, each with
// its current generation (classic Heartbeat) or epoch and no other field
// (a next-gen keep-alive, as kgo sends when nothing changed).
func BenchmarkHeartbeats(b *testing.B) {
	b.Run(fmt.Sprintf("classic/members=%d", benchMembers), func(b *testing.B) {
		benchClassic.Do(func() { benchClassic.g, benchClassic.ids, benchClassic.gen = stableClassic(b, benchMembers) })
		g, ids, gen := benchClassic.g, benchClassic.ids, benchClassic.gen
		var next atomic.Uint64
		b.ReportAllocs()
		b.ResetTimer()
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			for pb.Next() {
				id := ids[next.Add(1)%uint64(len(ids))]
				r, err := g.Request(ctx, classic.HeartbeatRequest{MemberID: id, Generation: gen})
				if err != nil || r.(classic.HeartbeatResponse).Error != spec.None {
					b.Fatalf("heartbeat: %v %v", err, r)
				}
			}
		})
		reportRate(b, start)
	})
	b.Run(fmt.Sprintf("nextgen/members=%d", benchMembers), func(b *testing.B) {
		benchNextGen.Do(func() { benchNextGen.g, benchNextGen.ids, benchNextGen.epochs = stableNextGen(b, benchMembers) })
		g, ids, epochs := benchNextGen.g, benchNextGen.ids, benchNextGen.epochs
		var next atomic.Uint64
		b.ReportAllocs()
		b.ResetTimer()
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			for pb.Next() {
				i := next.Add(1) % uint64(len(ids))
				r, err := g.Heartbeat(ctx, nextgen.HeartbeatRequest{GroupID: "g", MemberID: ids[i], MemberEpoch: epochs[i], RebalanceTimeoutMs: -1})
				if err != nil || r.Error != spec.None {
					b.Fatalf("heartbeat: %v %s", err, r)
				}
			}
		})
		reportRate(b, start)
	})
}
