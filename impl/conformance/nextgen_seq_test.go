package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// ngSequences are the hand-written KIP-848 sequences; exact marks those
// whose assignments are deterministic on both sides (every member asks for
// the range assignor, or there is one member), compared exactly; want lists
// the expected differences each shows.
var ngSequences = []struct {
	name  string
	exact bool
	setup func(r *ngRun)
	run   func(r *ngRun)
	want  []string
}{
	{"JoinOne", true, func(r *ngRun) { r.member("a", "", "", "orders", "payments") }, func(r *ngRun) {
		r.hb("a", hbJoin)
		r.hb("a", hbFull)
		r.hb("a", hbKeepAlive)
	}, nil},
	{"JoinTwoRange", true, func(r *ngRun) {
		r.member("a", "", "range", "orders", "payments")
		r.member("b", "", "range", "orders", "payments")
	}, func(r *ngRun) {
		r.hb("a", hbJoin)
		r.hb("a", hbFull)
		r.hb("b", hbJoin)      // b's partitions are still a's
		r.hb("a", hbFull)      // a must revoke
		r.hb("a", hbFull)      // a reports the revocation done
		r.hb("b", hbFull)      // b gets its partitions
		r.hb("a", hbKeepAlive) // stable
		r.hb("b", hbKeepAlive)
	}, nil},
	{"JoinTwoUniform", false, func(r *ngRun) {
		r.member("a", "", "", "orders", "payments")
		r.member("b", "", "", "orders", "payments")
	}, func(r *ngRun) {
		r.hb("a", hbJoin)
		r.hb("b", hbJoin)
		r.hb("a", hbFull)
		r.hb("a", hbFull)
		r.hb("b", hbFull)
		r.hb("a", hbFull)
		r.hb("b", hbFull)
	}, nil},
	{"StaleAndFutureEpoch", true, func(r *ngRun) {
		r.member("a", "", "range", "orders")
		r.member("b", "", "range", "orders")
		r.member("c", "", "range", "orders")
	}, func(r *ngRun) {
		r.hb("a", hbJoin) // epoch 1
		r.hb("b", hbJoin) // epoch 2
		r.hb("a", hbFull) // a revokes
		r.hb("a", hbFull) // a at epoch 2
		r.hb("b", hbFull)
		r.hb("a", hbStale)  // epoch 1 with owned ⊆ assigned: Kafka accepts the previous epoch
		r.hb("c", hbJoin)   // epoch 3
		r.hb("b", hbFull)   // b revokes at epoch 2
		r.hb("b", hbFull)   // b at 3
		r.hb("b", hbStale)  // epoch 2 (previous), owned ⊆ assigned: accepted
		r.hb("b", hbOlder)  // epoch 1: FENCED_MEMBER_EPOCH
		r.hb("a", hbFuture) // FENCED_MEMBER_EPOCH
		r.hb("a", hbFull)   // still a member
	}, []string{"K4"}},
	{"Leave", false, func(r *ngRun) {
		r.member("a", "", "", "orders")
		r.member("b", "", "", "orders")
	}, func(r *ngRun) {
		r.hb("a", hbJoin)
		r.hb("b", hbJoin)
		r.hb("a", hbFull)
		r.hb("b", hbLeave) // -1
		r.hb("a", hbFull)  // a gets everything back
		r.hb("b", hbFull)  // UNKNOWN_MEMBER_ID
		r.hb("a", hbLeave) // the group is empty
	}, []string{"K4", "K5"}},
	{"StaticLeave", true, func(r *ngRun) {
		r.member("a", "instance-a", "range", "orders")
		r.member("b", "", "range", "orders")
	}, func(r *ngRun) {
		r.hb("a", hbJoin)
		r.hb("a", hbFull)
		r.hb("b", hbJoin)
		r.hb("a", hbFull)
		r.hb("a", hbFull)
		r.hb("b", hbFull)
		r.hb("a", hbStaticLeave) // -2: a's partitions stay reserved
		r.hb("b", hbFull)
		r.hb("a", hbJoin) // a comes back under its instance id
		r.hb("a", hbFull)
	}, []string{"K4", "K6"}},
	{"RevokeAgainBeforeTheNextEpoch", true, func(r *ngRun) {
		r.member("a", "", "range", "payments")
		r.member("b", "", "range", "payments")
		r.member("c", "", "range", "payments")
	}, func(r *ngRun) {
		r.hb("a", hbJoin)      // a owns payments 0-2 at epoch 1
		r.hb("b", hbJoin)      // epoch 2: a must give up payments-2
		r.hb("a", hbKeepAlive) // a is told: keep 0-1
		r.hb("c", hbJoin)      // epoch 3: a must give up payments-1 too
		r.hb("a", hbFull)      // a reports payments-2 gone: Kafka moves a to epoch 2, still revoking
	}, []string{"K15"}},
	{"PreviousEpochAfterRevocationStarts", true, func(r *ngRun) {
		r.member("a", "", "range", "payments")
		r.member("b", "", "range", "payments")
		r.member("c", "", "range", "payments")
	}, func(r *ngRun) {
		r.hb("a", hbJoin)      // epoch 1
		r.hb("b", hbJoin)      // epoch 2
		r.hb("a", hbKeepAlive) // a revokes payments-2
		r.hb("a", hbFull)      // a at epoch 2, previous 1
		r.hb("c", hbJoin)      // epoch 3
		r.hb("a", hbKeepAlive) // a revokes payments-1 at epoch 2: Kafka's previous epoch is now 2
		r.hb("a", hbStale)     // epoch 1: Kafka fences it
	}, []string{"K16"}},
	{"StaticMemberParkedKeepsItsTarget", true, func(r *ngRun) {
		r.member("a", "", "range", "orders")
		r.member("c", "instance-c", "range", "orders")
	}, func(r *ngRun) {
		r.hb("c", hbJoin)        // c owns orders 0-5
		r.hb("c", hbStaticLeave) // -2: c's partitions stay reserved
		r.hb("a", hbJoin)        // Kafka's target: c 0-2 (static first), a 3-5
		r.hb("a", hbKeepAlive)
		r.hb("c", hbJoin) // c is back: Kafka gives it 0-2, kfake its old 0-5
	}, []string{"K4", "K6", "K17"}},
	{"StaticMemberRejoinsToLess", true, func(r *ngRun) {
		r.member("a", "", "range", "payments")
		r.member("c", "instance-c", "range", "payments")
	}, func(r *ngRun) {
		r.hb("c", hbJoin)        // c owns payments 0-2
		r.hb("a", hbJoin)        // target: c 0-1 (static first), a 2
		r.hb("c", hbStaticLeave) // -2 before c heard of it
		r.hb("c", hbJoin)        // c is back owning nothing: Kafka moves it to epoch 2 at once
	}, []string{"K4", "K18"}},
	{"ResubscribeWhileRevoking", true, func(r *ngRun) {
		r.member("a", "", "range", "orders", "payments")
		r.member("b", "", "range", "orders", "payments")
	}, func(r *ngRun) {
		r.hb("a", hbJoin)      // a owns everything
		r.hb("b", hbJoin)      // a must give up orders 3-5 and payments 2
		r.hb("a", hbKeepAlive) // a is told: keep orders 0-2, payments 0-1
		r.members["a"].subs = []string{"orders"}
		// a drops payments from its subscription while it still owns
		// what it must revoke.
		r.hbWith("a", hbFull, func(q *kmsg.ConsumerGroupHeartbeatRequest) {
			q.Topics = r.topicsOf(spec.NewSet(append(spec.Range("orders", 0, 5), spec.Range("payments", 0, 2)...)...))
		})
	}, []string{"K19"}},
	{"StaticMemberRejoinsWhileActive", true, func(r *ngRun) { r.member("c", "instance-c", "", "orders") }, func(r *ngRun) {
		r.hb("c", hbJoin)
		r.hb("c", hbJoin) // the same member id at epoch 0 again, without a -2 first
	}, []string{"K20"}},
	{"UnknownMember", true, func(r *ngRun) { r.member("a", "", "", "orders") }, func(r *ngRun) {
		r.hb("a", hbJoin)
		r.hb("a", hbUnknown) // UNKNOWN_MEMBER_ID
	}, []string{"K4"}},
	{"GroupThatDoesNotExist", true, func(r *ngRun) { r.member("a", "", "", "orders") }, func(r *ngRun) {
		r.hb("a", hbUnknown) // epoch 1
	}, []string{"K13"}},
	// Probes of requests a well-behaved client does not send.
	{"JoinWithoutMemberID", true, func(r *ngRun) { r.member("a", "", "", "orders") }, func(r *ngRun) {
		r.hbWith("a", hbJoin, func(q *kmsg.ConsumerGroupHeartbeatRequest) { q.MemberID = "" })
	}, []string{"K7"}},
	{"DynamicMemberStaticLeave", true, func(r *ngRun) { r.member("a", "", "", "orders") }, func(r *ngRun) {
		r.hb("a", hbJoin)
		r.hb("a", hbStaticLeave) // -2 without an instance id
	}, []string{"K8"}},
	{"StaticLeaveWithoutInstanceID", true, func(r *ngRun) { r.member("a", "instance-a", "", "orders") }, func(r *ngRun) {
		r.hb("a", hbJoin)
		r.hbWith("a", hbStaticLeave, func(q *kmsg.ConsumerGroupHeartbeatRequest) { q.InstanceID = nil }) // what kgo sends
	}, []string{"K8"}},
	{"JoinWithoutRebalanceTimeout", true, func(r *ngRun) { r.member("a", "", "", "orders") }, func(r *ngRun) {
		r.hbWith("a", hbJoin, func(q *kmsg.ConsumerGroupHeartbeatRequest) { q.RebalanceTimeoutMillis = -1 })
	}, []string{"K9"}},
	{"JoinWithoutSubscription", true, func(r *ngRun) { r.member("a", "", "", "orders") }, func(r *ngRun) {
		r.hbWith("a", hbJoin, func(q *kmsg.ConsumerGroupHeartbeatRequest) { q.SubscribedTopicNames = nil })
		r.hbWith("a", hbJoin, func(q *kmsg.ConsumerGroupHeartbeatRequest) { q.SubscribedTopicNames = []string{} })
	}, []string{"K9"}},
}

// TestNextGenHarnessCatchesABrokenCoordinator shows the comparison can
// fail: with the SkipEpochCheck fault our core accepts a stale epoch.
func TestNextGenHarnessCatchesABrokenCoordinator(t *testing.T) {
	f := newFake(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := newNGRun(ctx, t, f, "nextgen-broken", nextgen.SkipEpochCheck)
	r.member("a", "", "", "orders")
	r.hb("a", hbJoin)
	r.hb("a", hbFull)
	r.hb("a", hbFuture)
	_, unknown := classify(r.diffs)
	if len(unknown) == 0 || unknown[0].Kfake != "FENCED_MEMBER_EPOCH" || unknown[0].Ours != "NONE" {
		t.Fatalf("want a new difference FENCED_MEMBER_EPOCH against NONE first, got %v", r.diffs)
	}
}

func TestNextGenSequences(t *testing.T) {
	f := newFake(t)
	st := newTally()
	for _, sq := range ngSequences {
		t.Run(sq.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			r := newNGRun(ctx, t, f, "nextgen-"+sq.name, 0)
			r.deterministic = sq.exact
			sq.setup(r)
			sq.run(r)
			want := sq.want
			if want == nil {
				want = []string{}
			}
			st.add(t, r.diffs, want, r.requests, r.describes)
		})
	}
	st.report(t)
}
