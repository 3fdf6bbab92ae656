package impl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// The driver tests run inside testing/synctest bubbles: SystemClock is the
// bubble's fake clock, so session and rebalance timeouts of many seconds
// pass at once when every goroutine is blocked, and no test sleeps for
// real.

// membershipLog records Observer calls as "+id@ms" / "-id@ms" relative to
// origin.
type membershipLog struct {
	mu     sync.Mutex
	origin time.Time
	events []string
}

func (l *membershipLog) Membership(group string, member spec.MemberID, joined bool, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	sign := "-"
	if joined {
		sign = "+"
	}
	l.events = append(l.events, fmt.Sprintf("%s%s@%d", sign, member, at.Sub(l.origin).Milliseconds()))
}

func (l *membershipLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.events, " ")
}

func join(client string, id spec.MemberID) classic.JoinGroupRequest {
	return classic.JoinGroupRequest{
		MemberID: id, ClientID: client, ProtocolType: "consumer",
		Protocols:      []classic.ProtocolMetadata{{Name: "range", Metadata: "md-" + classic.Metadata(client)}},
		SessionTimeout: 10000, RebalanceTimeout: 30000, RequireKnownMemberID: true,
	}
}

// TestClassicGroupRebalance drives three callers through a rebalance:
// joins are parked until the barrier falls, the follower's SyncGroup until
// the leader's, and a member that stops heartbeating is removed by its
// session timeout on the fake clock; the Observer sees every change.
func TestClassicGroupRebalance(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		obs := &membershipLog{origin: time.Now()}
		g, err := NewClassicGroup(ClassicConfig{Coordinator: classic.CoordinatorConfig{GroupID: "g"}, Observer: obs})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()

		// KIP-394: the first JoinGroup gets an id, the second joins.
		r, err := g.Request(ctx, join("a", ""))
		if err != nil {
			t.Fatal(err)
		}
		a := r.(classic.JoinGroupResponse)
		if a.Error != spec.MemberIDRequired || a.MemberID != "a-1" {
			t.Fatalf("first join: %s", a)
		}
		r, _ = g.Request(ctx, join("a", "a-1"))
		if jr := r.(classic.JoinGroupResponse); jr.Error != spec.None || jr.Generation != 1 || jr.Leader != "a-1" {
			t.Fatalf("a's join: %s", jr)
		}
		if r, _ := g.Request(ctx, classic.SyncGroupRequest{MemberID: "a-1", Generation: 1, Assignments: []classic.MemberAssignment{{MemberID: "a-1", Assignment: "all"}}}); r.(classic.SyncGroupResponse).Assignment != "all" {
			t.Fatalf("a's sync: %s", r)
		}

		// b joins: its JoinGroup is parked until a rejoins.
		r, _ = g.Request(ctx, join("b", ""))
		bID := r.(classic.JoinGroupResponse).MemberID
		bJoin, err := g.Start(ctx, join("b", bID))
		if err != nil {
			t.Fatal(err)
		}
		if bJoin.Answered() {
			t.Fatal("b's JoinGroup was answered before the barrier fell")
		}
		if r, _ := g.Request(ctx, classic.HeartbeatRequest{MemberID: "a-1", Generation: 1}); r.(classic.HeartbeatResponse).Error != spec.RebalanceInProgress {
			t.Fatalf("a's heartbeat during the rebalance: %s", r)
		}
		aJoin, err := g.Request(ctx, join("a", "a-1"))
		if err != nil {
			t.Fatal(err)
		}
		bResp, err := bJoin.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if aJoin.(classic.JoinGroupResponse).Generation != 2 || bResp.(classic.JoinGroupResponse).Generation != 2 {
			t.Fatalf("joins: %s / %s", aJoin, bResp)
		}
		// b's SyncGroup waits for the leader's.
		bSync, _ := g.Start(ctx, classic.SyncGroupRequest{MemberID: bID, Generation: 2})
		if bSync.Answered() {
			t.Fatal("the follower's SyncGroup was answered before the leader's")
		}
		g.Request(ctx, classic.SyncGroupRequest{MemberID: "a-1", Generation: 2, Assignments: []classic.MemberAssignment{{MemberID: "a-1", Assignment: "half-a"}, {MemberID: bID, Assignment: "half-b"}}})
		if r, _ := bSync.Wait(ctx); r.(classic.SyncGroupResponse).Assignment != "half-b" {
			t.Fatalf("b's sync: %s", r)
		}

		// b keeps heartbeating; a goes silent and is removed after its
		// 10 s session, on the fake clock.
		for range 12 {
			time.Sleep(time.Second)
			g.Request(ctx, classic.HeartbeatRequest{MemberID: bID, Generation: 2})
		}
		d, _ := g.Describe(ctx)
		if len(d.Members) != 1 || d.Members[0].ID != bID || d.State != classic.GroupPreparingRebalance {
			t.Fatalf("after a's session expired: %+v", d)
		}
		if got, want := obs.String(), "+a-1@0 +b-2@0 -a-1@10000"; got != want {
			t.Fatalf("observed %q, want %q", got, want)
		}
	})
}

// TestClassicGroupCommit: a commit is fenced and stored in one step, and
// only accepted commits are stored.
func TestClassicGroupCommit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		g, _ := NewClassicGroup(ClassicConfig{Coordinator: classic.CoordinatorConfig{GroupID: "g"}})
		defer g.Close()
		g.Request(ctx, join("a", ""))
		g.Request(ctx, join("a", "a-1"))
		g.Request(ctx, classic.SyncGroupRequest{MemberID: "a-1", Generation: 1})
		ok := Offsets{spec.TP("t", 0): {Offset: 42, LeaderEpoch: -1}}
		stale := Offsets{spec.TP("t", 0): {Offset: 7, LeaderEpoch: -1}}
		if code, err := g.Commit(ctx, classic.OffsetCommitRequest{MemberID: "a-1", Generation: 1}, ok); code != spec.None || err != nil {
			t.Fatalf("commit: %s %v", code, err)
		}
		if code, _ := g.Commit(ctx, classic.OffsetCommitRequest{MemberID: "a-1", Generation: 0}, stale); code != spec.IllegalGeneration {
			t.Fatalf("stale commit: %s", code)
		}
		if code, _ := g.Commit(ctx, classic.OffsetCommitRequest{MemberID: "z-9", Generation: 1}, stale); code != spec.UnknownMemberID {
			t.Fatalf("unknown member's commit: %s", code)
		}
		got, _ := g.Offsets(ctx, nil)
		if len(got) != 1 || got[spec.TP("t", 0)].Offset != 42 {
			t.Fatalf("offsets %v", got)
		}
		if _, err := g.Request(ctx, classic.OffsetCommitRequest{}); err == nil {
			t.Fatal("Request took an OffsetCommitRequest")
		}
		if _, err := g.Request(ctx, classic.HeartbeatResponse{}); err == nil {
			t.Fatal("Request took a response")
		}
	})
}

// TestCallerGivesUp: a caller whose context ends stops waiting, the driver
// forgets it, and the late answer does not reach anyone; Close ends every
// call in flight.
func TestCallerGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, _ := NewClassicGroup(ClassicConfig{Coordinator: classic.CoordinatorConfig{GroupID: "g"}})
		ctx := t.Context()
		g.Request(ctx, join("a", ""))
		g.Request(ctx, join("a", "a-1"))
		g.Request(ctx, classic.SyncGroupRequest{MemberID: "a-1", Generation: 1})
		g.Request(ctx, join("b", ""))
		short, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if _, err := g.Request(short, join("b", "b-2")); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("parked join: %v", err)
		}
		waiting := 0
		g.loop.do(ctx, func() { waiting = len(g.loop.waiting) })
		if waiting != 0 {
			t.Fatalf("%d calls still waiting after the caller gave up", waiting)
		}
		p, _ := g.Start(ctx, join("c", ""))
		p2, _ := g.Start(ctx, join("c", "c-3"))
		_ = p
		g.Close()
		if _, err := p2.Wait(ctx); !errors.Is(err, ErrClosed) {
			t.Fatalf("call in flight after Close: %v", err)
		}
		if _, err := g.Request(ctx, join("d", "")); !errors.Is(err, ErrClosed) {
			t.Fatalf("call after Close: %v", err)
		}
	})
}

// TestNextGenGroup: heartbeats are answered at once, a silent member is
// fenced by its session timeout on the fake clock, metadata updates reach
// the coordinator (and one the coordinator would refuse is an error),
// commits and fetches are fenced by member epoch and only accepted commits
// are stored, and the Observer sees joins and leaves when they happen.
func TestNextGenGroup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		obs := &membershipLog{origin: time.Now()}
		g, err := NewNextGenGroup(NextGenConfig{Coordinator: nextgen.CoordinatorConfig{GroupID: "g", Topics: spec.Topics{"t": 2}, SessionTimeout: 6000, HeartbeatInterval: 1000}, Observer: obs})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		hb := func(id string, epoch spec.Epoch, owned spec.Set, subs ...string) nextgen.HeartbeatResponse {
			r := nextgen.HeartbeatRequest{GroupID: "g", MemberID: spec.MemberID(id), MemberEpoch: epoch, RebalanceTimeoutMs: -1, TopicPartitions: owned, OwnedSent: true}
			if epoch == 0 {
				r.RebalanceTimeoutMs = 30000
				r.SubscribedTopicNames, r.SubscriptionSent = subs, true
			}
			resp, err := g.Heartbeat(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			return resp
		}
		a := hb("A", 0, nil, "t")
		if a.MemberEpoch != 1 || a.Assignment.String() != "{t-0 t-1}" {
			t.Fatalf("A's join: %s", a)
		}
		if err := g.UpdateMetadata(ctx, spec.Topics{"t": 3}); err != nil {
			t.Fatal(err)
		}
		for _, bad := range []spec.Topics{{"": 1}, {"t": -1}} {
			if err := g.UpdateMetadata(ctx, bad); err == nil {
				t.Fatalf("UpdateMetadata(%v) took a metadata image the coordinator refuses", bad)
			}
		}
		a = hb("A", 1, spec.Range("t", 0, 1))
		if a.MemberEpoch != 2 || a.Assignment.String() != "{t-0 t-1 t-2}" {
			t.Fatalf("A after the metadata update: %s", a)
		}
		resp, err := g.Commit(ctx, nextgen.OffsetCommitRequest{GroupID: "g", MemberID: "A", MemberEpoch: 3, Version: 9}, Offsets{spec.TP("t", 0): {Offset: 9}})
		if err != nil || resp.Error != spec.StaleMemberEpoch {
			t.Fatalf("commit at a newer epoch: %s %v", resp, err)
		}
		// KIP-1251: at epoch 1, t-0 and t-1 (assigned at 1) are stored,
		// t-2 (assigned at 2) is refused.
		resp, err = g.Commit(ctx, nextgen.OffsetCommitRequest{GroupID: "g", MemberID: "A", MemberEpoch: 1, Version: 9}, Offsets{spec.TP("t", 0): {Offset: 7}, spec.TP("t", 1): {Offset: 7}, spec.TP("t", 2): {Offset: 7}})
		if err != nil || resp.Error != spec.None || !resp.StalePartitions.Equal(spec.NewSet(spec.TP("t", 2))) {
			t.Fatalf("commit at the previous epoch: %s %v", resp, err)
		}
		resp, _ = g.Commit(ctx, nextgen.OffsetCommitRequest{GroupID: "g", MemberID: "A", MemberEpoch: 2, Version: 9}, Offsets{spec.TP("t", 0): {Offset: 5}})
		if resp.Error != spec.None {
			t.Fatalf("commit: %s", resp)
		}
		id := spec.MemberID("A")
		fr, offs, _ := g.Fetch(ctx, nextgen.OffsetFetchRequest{GroupID: "g", MemberID: &id, MemberEpoch: 2}, nil)
		if fr.Error != spec.None || len(offs) != 2 || offs[spec.TP("t", 0)].Offset != 5 || offs[spec.TP("t", 1)].Offset != 7 {
			t.Fatalf("fetch: %s %v", fr, offs)
		}
		// B joins at 1 s and leaves at 2 s.
		time.Sleep(time.Second)
		if b := hb("B", 0, nil, "t"); b.Error != spec.None {
			t.Fatalf("B's join: %s", b)
		}
		time.Sleep(time.Second)
		if b, err := g.Heartbeat(ctx, nextgen.HeartbeatRequest{GroupID: "g", MemberID: "B", MemberEpoch: -1}); err != nil || b.Error != spec.None {
			t.Fatalf("B's leave: %s %v", b, err)
		}
		// A goes silent: fenced after its 6 s session.
		time.Sleep(5 * time.Second)
		var members []spec.MemberID
		g.Inspect(ctx, func(c *nextgen.Coordinator) { members = c.Members() })
		if len(members) != 0 {
			t.Fatalf("members after the session expired: %v", members)
		}
		if got, want := obs.String(), "+A@0 +B@1000 -B@2000 -A@6000"; got != want {
			t.Fatalf("observed %q, want %q", got, want)
		}
		// A topic without partitions is a metadata image the coordinator
		// takes.
		if err := g.UpdateMetadata(ctx, spec.Topics{"t": 0}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTimerSet checks the timer set against a plain map: re-arming moves a
// deadline, cancelling removes it, due returns exactly the timers at or
// before now in deadline order, and the heap is compacted: exactly when it
// holds more than 2*armed+64 entries, not before (compacting costs
// O(armed), so compacting on every re-arm would make each heartbeat cost
// O(members)).
func TestTimerSet(t *testing.T) {
	t.Run("compaction", func(t *testing.T) {
		s := newTimerSet[int]()
		queue := 0 // the expected heap size
		check := func(op string) {
			t.Helper()
			if queue > 2*len(s.armed)+64 {
				queue = len(s.armed)
			}
			if len(s.queue) != queue {
				t.Fatalf("%s: heap of %d for %d armed timers, want %d", op, len(s.queue), len(s.armed), queue)
			}
		}
		for i := range 100 {
			s.arm(i, 1000)
			queue++
			check(fmt.Sprintf("arm %d", i))
		}
		// 199 moves leave 134 entries for 100 armed timers: cancelling
		// reaches the threshold exactly (134 = 2*35+64) before it passes it.
		for k := 1; k <= 199; k++ {
			s.arm(k%3, int64(1000+k)) // moved: one more stale entry
			queue++
			check(fmt.Sprintf("re-arm %d", k%3))
			s.arm(k%3, int64(1000+k)) // the same deadline: nothing pushed
			check(fmt.Sprintf("re-arm %d again", k%3))
		}
		for i := range 100 {
			s.cancel(i)
			check(fmt.Sprintf("cancel %d", i))
		}
		for i := range 10 {
			s.arm(i, int64(i))
			queue++
			check(fmt.Sprintf("arm %d", i))
		}
		for i := 9; i >= 0; i-- {
			s.cancel(i)
			check(fmt.Sprintf("cancel %d", i))
		}
	})

	s := newTimerSet[string]()
	model := map[string]int64{}
	for i := range 1000 {
		name := fmt.Sprintf("t%d", i%37)
		switch i % 5 {
		case 0, 1, 2:
			at := int64((i * 7919) % 1000)
			s.arm(name, at)
			model[name] = at
		case 3:
			s.cancel(name)
			delete(model, name)
		case 4:
			now := int64(i % 1000)
			got := s.due(now)
			var want []string
			for n, at := range model {
				if at <= now {
					want = append(want, n)
				}
			}
			if !slices.IsSortedFunc(got, func(a, b string) int { return int(model[a] - model[b]) }) {
				t.Fatalf("step %d: due(%d) = %v, not in deadline order", i, now, got)
			}
			for _, n := range want {
				delete(model, n)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: due(%d) = %v, want %v", i, now, got, want)
			}
		}
		if len(s.armed) != len(model) {
			t.Fatalf("step %d: %d armed, want %d", i, len(s.armed), len(model))
		}
		if len(s.queue) > 2*len(s.armed)+65 {
			t.Fatalf("step %d: heap of %d for %d armed timers", i, len(s.queue), len(s.armed))
		}
	}
}
