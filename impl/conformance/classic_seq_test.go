package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/rebalance-ref/rebalance/model/classic"
)

// classicSequences are the hand-written sequences for the main paths of
// the classic protocol; want lists the expected differences each shows
// (expectedDiffs), none for most.
var classicSequences = []struct {
	name string
	run  func(r *classicRun)
	want []string
}{
	{"JoinOne", func(r *classicRun) {
		r.join("a") // MEMBER_ID_REQUIRED
		r.join("a") // generation 1, a leads
		r.sync("a")
		r.heartbeat("a", 0)
	}, nil},
	{"JoinTwo", func(r *classicRun) {
		r.joinAll("a")
		r.sync("a")
		r.join("b")         // MEMBER_ID_REQUIRED
		r.join("b")         // parked: a must rejoin
		r.heartbeat("a", 0) // REBALANCE_IN_PROGRESS
		r.join("a")         // the barrier falls: generation 2
		r.sync("b")         // parked until the leader's
		r.sync("a")         // the leader's assignment answers both
		r.heartbeat("a", 0)
		r.heartbeat("b", 0)
	}, nil},
	{"StableRejoinFollower", func(r *classicRun) {
		r.joinAll("a")
		r.sync("a")
		r.join("b")
		r.join("b")
		r.join("a")
		r.sync("a")
		r.sync("b")
		r.join("b") // a follower with the same metadata: answered at once
		r.heartbeat("b", 0)
	}, nil},
	{"Leave", func(r *classicRun) {
		r.joinAll("a")
		r.sync("a")
		r.join("b")
		r.join("b")
		r.join("a")
		r.sync("a")
		r.sync("b")
		r.leave("b")
		r.heartbeat("a", 0) // REBALANCE_IN_PROGRESS
		r.join("a")
		r.sync("a")
		r.heartbeat("b", 0) // UNKNOWN_MEMBER_ID
		r.leave("a")        // the group is empty
		r.leave("a")        // UNKNOWN_MEMBER_ID
	}, nil},
	{"UnknownMemberAndIllegalGeneration", func(r *classicRun) {
		r.joinAll("a")
		r.sync("a")
		r.heartbeatAs("a", "nobody")
		r.heartbeat("a", 1)  // ILLEGAL_GENERATION
		r.heartbeat("a", -1) // ILLEGAL_GENERATION
		r.heartbeat("a", 0)
	}, nil},
	{"SyncDuringRebalance", func(r *classicRun) {
		r.joinAll("a")
		r.sync("a")
		r.join("b")
		r.join("b")         // PreparingRebalance
		r.sync("a")         // REBALANCE_IN_PROGRESS
		r.heartbeat("a", 0) // REBALANCE_IN_PROGRESS
		r.join("a")
		r.sync("a")
		r.sync("b")
	}, nil},
	// Static membership (KIP-345).
	{"StaticJoinAndRestartFollower", func(r *classicRun) {
		r.static("a", "instance-a")
		r.static("b", "instance-b")
		r.join("a") // a static member joins at once, without MEMBER_ID_REQUIRED
		r.sync("a")
		r.join("b")
		r.join("a")
		r.sync("a")
		r.sync("b")
		r.restart("b")      // b comes back under a new member id: no rebalance
		r.sync("b")         // and gets its assignment back
		r.heartbeatOld("b") // b's old member id is fenced
		r.heartbeat("b", 0)
		r.heartbeat("a", 0)
	}, nil},
	{"StaticRestartLeader", func(r *classicRun) {
		r.static("a", "instance-a")
		r.static("b", "instance-b")
		r.join("a")
		r.sync("a")
		r.join("b")
		r.join("a")
		r.sync("a")
		r.sync("b")
		r.restart("a") // the leader: SkipAssignment (KIP-814)
		r.sync("a")
		r.heartbeatOld("a")
		r.heartbeat("b", 0)
	}, nil},
	{"StaticLeave", func(r *classicRun) {
		r.static("a", "instance-a")
		r.static("b", "instance-b")
		r.join("a")
		r.sync("a")
		r.join("b")
		r.join("a")
		r.sync("a")
		r.sync("b")
		r.leave("b") // by instance id
		r.heartbeat("a", 0)
		r.join("a")
		r.sync("a")
	}, nil},
	// Probes of corners where the two may differ.
	{"PendingMemberHoldsTheBarrier", func(r *classicRun) {
		r.join("a") // MEMBER_ID_REQUIRED: a's id is pending
		r.join("b") // MEMBER_ID_REQUIRED: b's id is pending
		r.join("a") // Kafka waits for b's pending id (hasAllMembersJoined)
	}, []string{"K1"}},
	{"LeaderOmitsAMember", func(r *classicRun) {
		r.joinAll("a")
		r.sync("a")
		r.join("b")
		r.join("b")
		r.join("a")
		r.sync("b")
		r.syncOmit("a", "b") // the leader leaves b out
		r.heartbeat("b", 0)
	}, nil},
	{"LeaderAssignsEmptyBytes", func(r *classicRun) {
		r.joinAll("a")
		r.sync("a")
		r.join("b")
		r.join("b")
		r.join("a")
		r.sync("b")
		r.syncEmpty("a", "b") // b's assignment is zero bytes
		r.heartbeat("b", 0)
	}, []string{"K3"}},
	{"LeaveWhileJoinParked", func(r *classicRun) {
		r.joinAll("a")
		r.sync("a")
		r.joinAll("b") // b's JoinGroup is parked until a rejoins
		r.leave("b")   // Kafka answers the parked JoinGroup UNKNOWN_MEMBER_ID
		r.join("a")
		r.sync("a")
	}, []string{"K10"}},
	{"GroupThatDoesNotExist", func(r *classicRun) {
		r.heartbeatAs("a", "nobody")
		r.sync("a")
		r.leave("a")
	}, []string{"K11", "K12"}},
	{"RejoinWhileSyncParked", func(r *classicRun) {
		r.joinAll("a")
		r.sync("a")
		r.joinAll("b")
		r.join("a")             // generation 2, a leads
		r.sync("b")             // parked until a's
		r.members["b"].meta = 2 // b's subscription changes
		r.join("b")             // Kafka answers b's SyncGroup REBALANCE_IN_PROGRESS
		r.join("a")             // every member rejoined: the barrier falls (not in kfake)
	}, []string{"K14"}},
	{"EmptyGroupTakesAnotherProtocolType", func(r *classicRun) {
		r.joinAll("a")
		r.sync("a")
		r.leave("a") // the group is empty
		r.joinOther("b", "connect")
	}, []string{"K2"}},
}

// TestClassicHarnessCatchesABrokenCoordinator shows the comparison can
// fail: with the SkipGenerationCheck fault our core accepts a heartbeat of
// a wrong generation, and the harness reports the difference.
func TestClassicHarnessCatchesABrokenCoordinator(t *testing.T) {
	f := newFake(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := newClassicRunFaults(ctx, t, f, "classic-broken", classic.SkipGenerationCheck, "a")
	r.joinAll("a")
	r.sync("a")
	r.heartbeat("a", 1)
	r.finish()
	_, unknown := classify(r.diffs)
	if len(unknown) != 1 || unknown[0].API != "Heartbeat" || unknown[0].Kfake != "ILLEGAL_GENERATION" || unknown[0].Ours != "NONE" {
		t.Fatalf("want one new Heartbeat difference (ILLEGAL_GENERATION against NONE), got %v", r.diffs)
	}
}

func TestClassicSequences(t *testing.T) {
	f := newFake(t)
	st := newTally()
	for _, sq := range classicSequences {
		t.Run(sq.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			r := newClassicRun(ctx, t, f, "classic-"+sq.name, "a", "b", "c")
			sq.run(r)
			r.finish()
			if r.stopped != "" {
				t.Errorf("a hand-written sequence must not stop: %s", r.stopped)
			}
			want := sq.want
			if want == nil {
				want = []string{}
			}
			st.add(t, r.diffs, want, r.requests, r.describes)
		})
	}
	st.report(t)
}
