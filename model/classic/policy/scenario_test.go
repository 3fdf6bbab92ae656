package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// The seed design's worked examples at the leader level. The seed names the
// resources T-1..T-4; here they are the four partitions of topic "T",
// T-0..T-3 (seed T-k is T-(k-1)), so that the universe is exactly those
// four and every member subscribes to "T". The starting point: A owns
// {T-0 T-3}, B {T-1}, C {T-2}, with A leading.

var seedTopics = spec.Topics{"T": 4}

var tT = []string{"T"}

const testMaxDelay classic.Millis = 10000

// seedGroup returns the seed's group after one settling round (which gives
// the leader its memory and changes nothing).
func seedGroup(t *testing.T, p classic.Protocol) *group {
	t.Helper()
	g := newGroup(t, p, seedTopics)
	g.leader = "A"
	g.join("A", tT, "{T-0 T-3}").join("B", tT, "{T-1}").join("C", tT, "{T-2}")
	g.now = 1000
	g.round()
	g.want("settling round assigned", g.assigned(), "A:{T-0 T-3} B:{T-1} C:{T-2}")
	g.want("settling round revoked", g.revoked(), "")
	return g
}

// stableFour returns the seed group once D has joined and got T-3.
func stableFour(t *testing.T, p classic.Protocol) *group {
	t.Helper()
	g := seedGroup(t, p)
	g.join("D", tT, "{}")
	g.round()
	g.now++
	g.round()
	g.want("stable assigned", g.assigned(), "A:{T-0} B:{T-1} C:{T-2} D:{T-3}")
	return g
}

func cooperativeDesigns() []classic.Protocol {
	return []classic.Protocol{
		Cooperative(),
		Deferred(DeferredConfig{MaxDelay: testMaxDelay}),
		Deferred(DeferredConfig{MaxDelay: testMaxDelay, LeaderFailover: DelayIfDeparted}),
		Incremental(IncrementalConfig{MaxDelay: testMaxDelay}),
	}
}

func protoName(p classic.Protocol) string {
	if c, ok := p.(connectPolicy); ok {
		if c.maxDelay == 0 {
			return fmt.Sprintf("%s/%s/no-delay", c.name, c.failover)
		}
		return fmt.Sprintf("%s/%s", c.name, c.failover)
	}
	return p.Name()
}

// TestSeedJoin: D joins. Every cooperative design revokes T-3 from A and
// gives D nothing in the first round; in the follow-up (A no longer reports
// T-3) D gets T-3.
func TestSeedJoin(t *testing.T) {
	for _, p := range cooperativeDesigns() {
		t.Run(protoName(p), func(t *testing.T) {
			g := seedGroup(t, p)
			g.join("D", tT, "{}")
			g.round()
			g.want("round 1 assigned", g.assigned(), "A:{T-0} B:{T-1} C:{T-2} D:{}")
			g.want("round 1 revoked", g.revoked(), "A:{T-3}")
			g.want("round 1 delay", fmt.Sprint(g.delay()), "0")
			g.now++
			g.round()
			g.want("round 2 assigned", g.assigned(), "A:{T-0} B:{T-1} C:{T-2} D:{T-3}")
			g.want("round 2 revoked", g.revoked(), "")
			g.want("round 2 delay", fmt.Sprint(g.delay()), "0")
			g.now++
			g.round()
			g.want("round 3 (nothing changes) assigned", g.assigned(), "A:{T-0} B:{T-1} C:{T-2} D:{T-3}")
			g.want("round 3 revoked", g.revoked(), "")
		})
	}
}

// TestSeedEagerJoin: the eager baseline moves everything through range.
func TestSeedEagerJoin(t *testing.T) {
	g := newGroup(t, Eager(assign.Range()), seedTopics)
	g.leader = "A"
	g.join("A", tT, "{T-0 T-3}").join("B", tT, "{T-1}").join("C", tT, "{T-2}").join("D", tT, "{}")
	g.round()
	// Range: one partition each, in member order; claims are ignored.
	g.want("assigned", g.assigned(), "A:{T-0} B:{T-1} C:{T-2} D:{T-3}")
	g.want("revoked", g.revoked(), "")
	g.leave("D").leave("C")
	g.round()
	g.want("after two leave", g.assigned(), "A:{T-0 T-1} B:{T-2 T-3}")
	if g.mem.Generation != 0 || g.mem.Assignment != nil {
		t.Errorf("eager keeps no memory, got %+v", g.mem)
	}
}

// TestSeedLeave: D leaves. Cooperative reassigns T-3 at once; the deferred
// designs hold it back for MaxDelay (a rebalance inside the delay keeps
// holding it and passes on the remaining time), then hand it out.
func TestSeedLeave(t *testing.T) {
	for _, p := range cooperativeDesigns() {
		t.Run(protoName(p), func(t *testing.T) {
			g := stableFour(t, p)
			g.leave("D")
			g.now = 5000
			g.round()
			if p.Name() == "cooperative" {
				if !strings.Contains(g.assigned(), "T-3") || g.revoked() != "" || g.delay() != 0 {
					t.Fatalf("cooperative: want T-3 reassigned at once, got %s revoked %s delay %d", g.assigned(), g.revoked(), g.delay())
				}
				return
			}
			g.want("held assigned", g.assigned(), "A:{T-0} B:{T-1} C:{T-2}")
			g.want("held delay", fmt.Sprint(g.delay()), fmt.Sprint(testMaxDelay))
			g.want("held memory", fmt.Sprintf("scheduled-at=%d lost=%s", g.mem.ScheduledAt, g.mem.Lost), "scheduled-at=15000 lost={T-3}")
			g.want("held: the round starts holding", g.last.Held.String(), "{T-3}")
			// A rebalance inside the delay (say, a metadata refresh).
			g.now = 9000
			g.round()
			g.want("inside assigned", g.assigned(), "A:{T-0} B:{T-1} C:{T-2}")
			g.want("inside delay", fmt.Sprint(g.delay()), "6000")
			g.want("inside: T-3 waits for the pending delay", g.last.Held.String(), "{}")
			// The delay expires: no candidate, so T-3 goes least loaded
			// (A, B, C hold one each; ties by id).
			g.now = 15000
			g.round()
			g.want("expired assigned", g.assigned(), "A:{T-0 T-3} B:{T-1} C:{T-2}")
			g.want("expired delay", fmt.Sprint(g.delay()), "0")
			g.want("expired memory", fmt.Sprintf("scheduled-at=%d lost=%s", g.mem.ScheduledAt, g.mem.Lost), "scheduled-at=0 lost={}")
			g.want("expired held", g.last.Held.String(), "{}")
		})
	}
}

// TestSeedBounce: D leaves and comes back inside the delay as D' (a new
// member id, owning nothing). The deferred designs give D' the held T-3
// when the delay expires, and nobody else's resource moves. Cooperative
// handed T-3 to someone at once and must move it again.
func TestSeedBounce(t *testing.T) {
	for _, p := range cooperativeDesigns() {
		t.Run(protoName(p), func(t *testing.T) {
			g := stableFour(t, p)
			g.leave("D")
			g.now = 5000
			g.round()
			g.now = 8000
			g.join("D'", tT, "{}")
			g.round()
			if p.Name() == "cooperative" {
				if g.revoked() == "" {
					t.Fatalf("cooperative: want a revocation for D', got assigned %s", g.assigned())
				}
				g.now++
				g.round()
				if a := g.last.Assignments["D'"].Assigned; a.Len() != 1 {
					t.Fatalf("cooperative: D' got %s, want one resource", a)
				}
				return
			}
			g.want("D' joins: assigned", g.assigned(), "A:{T-0} B:{T-1} C:{T-2} D':{}")
			g.want("D' joins: revoked", g.revoked(), "")
			g.want("D' joins: delay", fmt.Sprint(g.delay()), "7000")
			g.want("D' joins: candidates", fmt.Sprint(g.mem.Candidates), "[D']")
			g.now = 15000
			g.round()
			g.want("expired: assigned", g.assigned(), "A:{T-0} B:{T-1} C:{T-2} D':{T-3}")
			g.want("expired: revoked", g.revoked(), "")
			g.want("expired: delay", fmt.Sprint(g.delay()), "0")
		})
	}
}

// TestLeaderFailover: the leader process changes and the new one has no
// history. Kafka's rule (ReassignImmediately) hands out whatever nobody
// reports at once; the seed's heuristic (DelayIfDeparted) holds it back for
// a full MaxDelay when the old leader is gone, and only then.
func TestLeaderFailover(t *testing.T) {
	type step struct {
		now      classic.Millis
		assigned string
		delay    classic.Millis
	}
	tests := []struct {
		name     string
		failover LeaderFailover
		// change is applied to the stable group of four (A leading).
		change func(g *group)
		steps  []step
	}{
		{
			name:     "old leader A crashes, Kafka's rule",
			failover: ReassignImmediately,
			change:   func(g *group) { g.leave("A").newLeader("B") },
			steps:    []step{{5000, "B:{T-0 T-1} C:{T-2} D:{T-3}", 0}},
		},
		{
			name:     "old leader A crashes, departure inferred",
			failover: DelayIfDeparted,
			change:   func(g *group) { g.leave("A").newLeader("B") },
			steps: []step{
				{5000, "B:{T-1} C:{T-2} D:{T-3}", testMaxDelay},
				{15000, "B:{T-0 T-1} C:{T-2} D:{T-3}", 0},
			},
		},
		{
			name:     "old leader A crashes and comes back as A' inside the delay",
			failover: DelayIfDeparted,
			change:   func(g *group) { g.leave("A").newLeader("B") },
			steps: []step{
				{5000, "B:{T-1} C:{T-2} D:{T-3}", testMaxDelay},
				{7000, "A':{} B:{T-1} C:{T-2} D:{T-3}", 8000},
				{15000, "A':{T-0} B:{T-1} C:{T-2} D:{T-3}", 0},
			},
		},
		{
			name:     "D leaves while leadership moves to B, A stays: Kafka's rule",
			failover: ReassignImmediately,
			change:   func(g *group) { g.leave("D").newLeader("B") },
			steps:    []step{{5000, "A:{T-0 T-3} B:{T-1} C:{T-2}", 0}},
		},
		{
			name:     "D leaves while leadership moves to B, A stays: no departure inferred",
			failover: DelayIfDeparted,
			change:   func(g *group) { g.leave("D").newLeader("B") },
			steps:    []step{{5000, "A:{T-0 T-3} B:{T-1} C:{T-2}", 0}},
		},
		{
			name:     "stale memory (the leader's last round never completed), Kafka's rule",
			failover: ReassignImmediately,
			change:   func(g *group) { g.leave("D"); g.mem.Generation-- },
			steps:    []step{{5000, "A:{T-0 T-3} B:{T-1} C:{T-2}", 0}},
		},
		{
			name:     "stale memory, heuristic: the leader is present, so no departure",
			failover: DelayIfDeparted,
			change:   func(g *group) { g.leave("D"); g.mem.Generation-- },
			steps:    []step{{5000, "A:{T-0 T-3} B:{T-1} C:{T-2}", 0}},
		},
		{
			// Connect's step 2 (LeaderMemory.Revocation) with the heuristic:
			// B still claims T-1, which the memory says was revoked, so the
			// previous assignment is what the members claim, and D's T-3 is
			// not lost.
			name:     "a revocation that did not take effect, heuristic, memory of the last generation",
			failover: DelayIfDeparted,
			change: func(g *group) {
				g.leave("D")
				g.mem.Assignment["B"] = nil
				g.mem.Revocation = set(g.t, "{T-1}")
			},
			steps: []step{{5000, "A:{T-0 T-3} B:{T-1} C:{T-2}", 0}},
		},
		{
			// The heuristic's reconstruction is not replaced by the claims:
			// the old leader A has gone, so T-0 is held back although B
			// claims something the stale memory revoked.
			name:     "a revocation in a stale memory, heuristic, old leader A gone",
			failover: DelayIfDeparted,
			change: func(g *group) {
				g.leave("A")
				g.leader = "B"
				g.mem.Generation--
				g.mem.Revocation = set(g.t, "{T-1}")
			},
			steps: []step{{5000, "B:{T-1} C:{T-2} D:{T-3}", testMaxDelay}},
		},
		{
			name:     "memory of the last completed generation: the delay applies under both rules",
			failover: ReassignImmediately,
			change:   func(g *group) { g.leave("D") },
			steps: []step{
				{5000, "A:{T-0} B:{T-1} C:{T-2}", testMaxDelay},
				{15000, "A:{T-0 T-3} B:{T-1} C:{T-2}", 0},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := stableFour(t, Deferred(DeferredConfig{MaxDelay: testMaxDelay, LeaderFailover: tc.failover}))
			tc.change(g)
			for i, s := range tc.steps {
				if i == 1 && strings.Contains(tc.name, "A'") {
					g.join("A'", tT, "{}")
				}
				g.now = s.now
				g.round()
				g.want(fmt.Sprintf("step %d assigned", i), g.assigned(), s.assigned)
				g.want(fmt.Sprintf("step %d revoked", i), g.revoked(), "")
				g.want(fmt.Sprintf("step %d delay", i), fmt.Sprint(g.delay()), fmt.Sprint(s.delay))
			}
		})
	}
}

// TestIncrementalSteps: A owns eight partitions and B, C, D join. Connect's
// rule wants six moves (A keeps two). Incremental revokes at most
// MaxMovesPerRound per round, schedules the next step StepDelay later while
// moves remain, hands the revoked ones out in the follow-up, and takes
// ⌈6/MaxMovesPerRound⌉ revoking rounds.
func TestIncrementalSteps(t *testing.T) {
	const step classic.Millis = 2000
	tests := []struct {
		maxMoves      int
		wantRevoking  int
		wantFirstRevs string
	}{
		{1, 6, "A:{T-7}"},
		{2, 3, "A:{T-6 T-7}"},
		{4, 2, "A:{T-4 T-5 T-6 T-7}"},
		{6, 1, "A:{T-2 T-3 T-4 T-5 T-6 T-7}"},
		{10, 1, "A:{T-2 T-3 T-4 T-5 T-6 T-7}"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("max-moves=%d", tc.maxMoves), func(t *testing.T) {
			g := newGroup(t, Incremental(IncrementalConfig{MaxDelay: testMaxDelay, MaxMovesPerRound: tc.maxMoves, StepDelay: step}), spec.Topics{"T": 8})
			g.leader = "A"
			g.join("A", tT, "{T-0 T-1 T-2 T-3 T-4 T-5 T-6 T-7}")
			g.now = 1000
			g.round()
			g.join("B", tT, "{}").join("C", tT, "{}").join("D", tT, "{}")
			revoking := 0
			var lastRevokeAt classic.Millis = -1
			for i := 0; ; i++ {
				if i > 40 {
					t.Fatalf("no convergence after 40 rounds: %s", g.assigned())
				}
				g.round()
				n := 0
				for _, a := range g.last.Assignments {
					n += a.Revoked.Len()
				}
				if n > 0 {
					revoking++
					if revoking == 1 {
						g.want("first step revoked", g.revoked(), tc.wantFirstRevs)
					}
					if n > tc.maxMoves {
						t.Errorf("round %d revokes %d, more than %d", g.gen, n, tc.maxMoves)
					}
					if lastRevokeAt >= 0 && g.now-lastRevokeAt < step {
						t.Errorf("revoking rounds at %d and %d, less than the step delay apart", lastRevokeAt, g.now)
					}
					lastRevokeAt = g.now
					more := revoking < tc.wantRevoking
					if want := map[bool]classic.Millis{true: step, false: 0}[more]; g.delay() != want {
						t.Errorf("revoking round %d: delay %d, want %d", revoking, g.delay(), want)
					}
					g.now++
					continue
				}
				if g.delay() > 0 {
					g.now += g.delay()
					continue
				}
				break
			}
			if revoking != tc.wantRevoking {
				t.Errorf("%d revoking rounds, want %d", revoking, tc.wantRevoking)
			}
			g.want("A keeps", g.last.Assignments["A"].Assigned.String(), "{T-0 T-1}")
			for id, a := range g.last.Assignments {
				if a.Assigned.Len() != 2 {
					t.Errorf("%s ends with %s, want two: %s", id, a.Assigned, g.assigned())
				}
			}
		})
	}
}

// TestIncrementalStepHoldsAgainstSpuriousRebalance: a rebalance that comes
// in between two steps neither revokes nor moves the step. With delays
// disabled, step 6 itself keeps the pending step (step 5 reports no
// delay); the rounds are the same.
func TestIncrementalStepHoldsAgainstSpuriousRebalance(t *testing.T) {
	for _, maxDelay := range []classic.Millis{testMaxDelay, -1} {
		t.Run(fmt.Sprintf("max-delay=%d", maxDelay), func(t *testing.T) {
			g := newGroup(t, Incremental(IncrementalConfig{MaxDelay: maxDelay, StepDelay: 3000}), spec.Topics{"T": 4})
			g.leader = "A"
			g.join("A", tT, "{T-0 T-1 T-2 T-3}")
			g.now = 1000
			g.round()
			g.join("B", tT, "{}")
			g.round()
			g.want("step 1", g.revoked()+fmt.Sprintf(" delay=%d", g.delay()), "A:{T-3} delay=3000")
			g.now = 1001
			g.round()
			g.want("follow-up", g.assigned()+fmt.Sprintf(" delay=%d", g.delay()), "A:{T-0 T-1 T-2} B:{T-3} delay=2999")
			g.now = 2500
			g.round()
			g.want("spurious", g.revoked()+fmt.Sprintf(" delay=%d", g.delay()), " delay=1500")
			g.now = 4000
			g.round()
			g.want("step 2", g.revoked()+fmt.Sprintf(" delay=%d", g.delay()), "A:{T-2} delay=0")
			g.now++
			g.round()
			g.want("done", g.assigned(), "A:{T-0 T-1} B:{T-2 T-3}")
		})
	}
}

// TestBackoff: the successive-revoking-rounds back-off (KAFKA-12495). When
// the previous round revoked for balance and this one would too, the
// revocation is skipped for min(40ⁿ ms, MaxDelay).
func TestBackoff(t *testing.T) {
	tests := []struct {
		maxDelay classic.Millis
		n        int // SuccessiveRevokingRounds in the memory
		want     classic.Millis
	}{
		{0, 0, 40},
		{0, 1, 1600},
		{0, 2, 64000},
		{0, 3, 300000},
		{0, 9, 300000},
		{50000, 2, 50000},
		{1601, 1, 1600}, // 40 ≤ 1601/40: one more step, which stays below MaxDelay
		{-1, 2, 0},      // delays disabled: revoke at once
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("max=%d/n=%d", tc.maxDelay, tc.n), func(t *testing.T) {
			g := newGroup(t, Deferred(DeferredConfig{MaxDelay: tc.maxDelay}), spec.Topics{"T": 4})
			g.leader = "A"
			g.join("A", tT, "{T-0 T-1 T-2 T-3}")
			g.now = 1000
			g.round()
			g.mem.Revoked, g.mem.SuccessiveRevokingRounds = true, tc.n
			g.join("B", tT, "{}")
			g.round()
			g.want("delay", fmt.Sprint(g.delay()), fmt.Sprint(tc.want))
			wantRevoked := ""
			if tc.want == 0 {
				wantRevoked = "A:{T-2 T-3}"
			}
			g.want("revoked", g.revoked(), wantRevoked)
			g.want("counter", fmt.Sprint(g.mem.SuccessiveRevokingRounds), fmt.Sprint(tc.n+1))
			if tc.want > 0 {
				g.want("scheduled-at", fmt.Sprint(g.mem.ScheduledAt), fmt.Sprint(g.now+tc.want))
			}
		})
	}
}

// TestBackoffSequence drives the back-off the way it arises: every
// follow-up round brings one more member, so each revocation is followed by
// a round that wants to revoke again. The skipped rounds' delays are 40 ms,
// 1.6 s and 64 s; after each, the revocation goes ahead.
func TestBackoffSequence(t *testing.T) {
	g := newGroup(t, Deferred(DeferredConfig{}), spec.Topics{"T": 12})
	g.leader = "A"
	g.join("A", tT, "{T-0 T-1 T-2 T-3 T-4 T-5 T-6 T-7 T-8 T-9 T-10 T-11}")
	g.now = 1000
	g.round()
	var delays []classic.Millis
	for _, joiner := range []spec.MemberID{"B", "C", "D", "E"} {
		g.join(joiner, tT, "{}")
		g.round()
		if g.revoked() != "" {
			// Revoked at once: the previous round did not revoke.
			g.now++
			continue
		}
		delays = append(delays, g.delay())
		if g.delay() == 0 {
			t.Fatalf("%s joined: neither revoked nor delayed: %s", joiner, g.assigned())
		}
		g.now += g.delay()
		g.round()
		if g.revoked() == "" {
			t.Fatalf("after the back-off: no revocation, %s", g.assigned())
		}
		g.now++
	}
	g.round()
	g.want("back-off delays", fmt.Sprint(delays), "[40 1600 64000]")
	for id, a := range g.last.Assignments {
		if n := a.Assigned.Len(); n < 2 || n > 3 {
			t.Errorf("%s ends with %d partitions: %s", id, n, g.assigned())
		}
	}
}

// TestDeferredClaims: claims the leader revokes in step 4 and hands out in
// the follow-up.
func TestDeferredClaims(t *testing.T) {
	tests := []struct {
		name     string
		topics   spec.Topics
		members  [][3]string // id, topics (comma separated), owned
		revoked  string
		assigned string
		followUp string
	}{
		{
			name:     "claimed twice: revoked from both",
			topics:   spec.Topics{"T": 2},
			members:  [][3]string{{"A", "T", "{T-0 T-1}"}, {"B", "T", "{T-0}"}},
			revoked:  "A:{T-0} B:{T-0}",
			assigned: "A:{T-1} B:{}",
			followUp: "A:{T-1} B:{T-0}",
		},
		{
			name:     "deleted topic and partition out of range",
			topics:   spec.Topics{"T": 2},
			members:  [][3]string{{"A", "T,U", "{T-0 T-5 U-0}"}, {"B", "T", "{T-1}"}},
			revoked:  "A:{T-5 U-0}",
			assigned: "A:{T-0} B:{T-1}",
			followUp: "A:{T-0} B:{T-1}",
		},
		{
			name:     "topic no longer subscribed by its owner",
			topics:   spec.Topics{"T": 2, "U": 1},
			members:  [][3]string{{"A", "T", "{T-0 U-0}"}, {"B", "T,U", "{T-1}"}},
			revoked:  "A:{U-0}",
			assigned: "A:{T-0} B:{T-1}",
			followUp: "A:{T-0} B:{T-1 U-0}",
		},
		{
			name:     "a Connect connector resource is not a partition",
			topics:   spec.Topics{"T": 1},
			members:  [][3]string{{"A", "T", "{T/connector T-0}"}},
			revoked:  "A:{T/connector}",
			assigned: "A:{T-0}",
			followUp: "A:{T-0}",
		},
	}
	for _, tc := range tests {
		for _, p := range []classic.Protocol{Deferred(DeferredConfig{}), Incremental(IncrementalConfig{}), Cooperative()} {
			t.Run(tc.name+"/"+p.Name(), func(t *testing.T) {
				g := newGroup(t, p, tc.topics)
				g.leader = "A"
				for _, m := range tc.members {
					g.join(spec.MemberID(m[0]), strings.Split(m[1], ","), m[2])
				}
				g.round()
				if p.Name() != "cooperative" || !strings.Contains(tc.name, "twice") {
					// The cooperative assignor resolves double claims by
					// generation instead (A and B claim T-0 at the same
					// generation: both lose it, and it is handed out in the
					// follow-up, possibly elsewhere).
					g.want("revoked", g.revoked(), tc.revoked)
					g.want("assigned", g.assigned(), tc.assigned)
				}
				g.round()
				g.want("follow-up", g.assigned(), tc.followUp)
				g.want("follow-up revoked", g.revoked(), "")
			})
		}
	}
}

// TestHeterogeneousBalance: with different subscriptions, moves are planned
// only where a subscriber can take them, and nothing is revoked when no
// move helps (Connect's ⌊N/W⌋ targets would revoke from A for ever in the
// second case).
func TestHeterogeneousBalance(t *testing.T) {
	for _, p := range []classic.Protocol{Deferred(DeferredConfig{}), Incremental(IncrementalConfig{MaxMovesPerRound: 10})} {
		t.Run("movable/"+p.Name(), func(t *testing.T) {
			g := newGroup(t, p, spec.Topics{"x": 4, "y": 4})
			g.leader = "A"
			g.join("A", []string{"x", "y"}, "{x-0 x-1 x-2 x-3 y-0 y-1 y-2 y-3}").join("B", []string{"y"}, "{}")
			g.round()
			g.want("revoked", g.revoked(), "A:{y-0 y-1 y-2 y-3}")
			g.round()
			g.want("follow-up", g.assigned(), "A:{x-0 x-1 x-2 x-3} B:{y-0 y-1 y-2 y-3}")
			g.round()
			g.want("stable", g.revoked(), "")
		})
		t.Run("unmovable/"+p.Name(), func(t *testing.T) {
			g := newGroup(t, p, spec.Topics{"x": 4, "y": 1})
			g.leader = "A"
			g.join("A", []string{"x"}, "{x-0 x-1 x-2 x-3}").join("B", []string{"y"}, "{y-0}")
			for range 3 {
				g.round()
				g.want("revoked", g.revoked(), "")
				g.want("delay", fmt.Sprint(g.delay()), "0")
			}
		})
	}
}

// TestDelaysDisabled: a negative MaxDelay is Connect's 0: lost resources
// are reassigned at once.
func TestDelaysDisabled(t *testing.T) {
	g := stableFour(t, Deferred(DeferredConfig{MaxDelay: -1}))
	g.leave("D")
	g.round()
	g.want("assigned", g.assigned(), "A:{T-0 T-3} B:{T-1} C:{T-2}")
	g.want("delay", fmt.Sprint(g.delay()), "0")
}

// TestFaultsWired: the fault switches reach the policies and the laws
// catch them.
func TestFaultsWired(t *testing.T) {
	for _, p := range cooperativeDesigns() {
		t.Run("no-withholding/"+protoName(p), func(t *testing.T) {
			g := seedGroup(t, p)
			g.join("D", tT, "{}")
			g.faults = classic.CooperativeNoWithholding
			g.checkLaws = false
			in := g.input()
			res := g.round()
			vs := checkResult(in, res, true)
			if len(vs) == 0 || !strings.Contains(strings.Join(vs, "\n"), string(spec.CooperativeHandoff)) {
				t.Fatalf("want a CooperativeHandoff violation, got %v (assigned %s revoked %s)", vs, g.assigned(), g.revoked())
			}
		})
	}
	t.Run("same-generation-claims-kept/cooperative", func(t *testing.T) {
		for _, faults := range []classic.Faults{0, classic.SameGenerationClaimsKept} {
			g := newGroup(t, Cooperative(), spec.Topics{"T": 2})
			g.leader = "A"
			g.gen = 3
			g.join("A", tT, "{T-0 T-1}").join("B", tT, "{T-0}")
			g.faults = faults
			g.round()
			keeps := g.last.Assignments["A"].Assigned.Contains(spec.TP("T", 0))
			if keeps != (faults != 0) {
				t.Errorf("faults %s: A keeps T-0 = %v (assigned %s)", faults, keeps, g.assigned())
			}
		}
	})
}

// TestInputErrors: malformed input is an error for every policy, never a
// panic.
func TestInputErrors(t *testing.T) {
	ok := func() classic.LeaderInput {
		return classic.LeaderInput{
			Now: 10, Generation: 2, Leader: "A", LastCompletedGeneration: 1,
			Topics: spec.Topics{"T": 2},
			Members: []classic.Joined{
				{ID: "A", Subscription: classic.Subscription{Topics: tT, Owned: spec.NewSet(spec.TP("T", 0)), Generation: 1}},
				{ID: "B", Subscription: classic.Subscription{Topics: tT, Generation: spec.NoGeneration}},
			},
		}
	}
	tests := []struct {
		name   string
		break_ func(in *classic.LeaderInput)
		want   string
	}{
		{"no members", func(in *classic.LeaderInput) { in.Members = nil }, "no members"},
		{"members not sorted", func(in *classic.LeaderInput) { in.Members[0], in.Members[1] = in.Members[1], in.Members[0] }, "not sorted"},
		{"member twice", func(in *classic.LeaderInput) { in.Members[1].ID = "A" }, "twice"},
		{"empty member id", func(in *classic.LeaderInput) { in.Members[0].ID = ""; in.Leader = "" }, "empty member ID"},
		{"leader not a member", func(in *classic.LeaderInput) { in.Leader = "Z" }, "leader"},
		{"owned not a set", func(in *classic.LeaderInput) {
			in.Members[0].Subscription.Owned = spec.Set{spec.TP("T", 1), spec.TP("T", 0)}
		}, "not sorted"},
		{"owned resource invalid", func(in *classic.LeaderInput) {
			in.Members[0].Subscription.Owned = spec.Set{spec.TP("", 0)}
		}, "empty topic"},
		{"subscription not sorted", func(in *classic.LeaderInput) { in.Members[0].Subscription.Topics = []string{"T", "A"} }, "not sorted"},
		{"negative partition count", func(in *classic.LeaderInput) { in.Topics = spec.Topics{"T": -1} }, "negative"},
		{"generation below -1", func(in *classic.LeaderInput) { in.Members[0].Subscription.Generation = -5 }, "generation"},
		{"shared instance id", func(in *classic.LeaderInput) {
			in.Members[0].InstanceID, in.Members[1].InstanceID = "i", "i"
		}, "instance"},
	}
	protocols := []classic.Protocol{Eager(assign.Range()), Cooperative(), Deferred(DeferredConfig{}), Incremental(IncrementalConfig{})}
	for _, tc := range tests {
		for _, p := range protocols {
			t.Run(tc.name+"/"+p.Name(), func(t *testing.T) {
				in := ok()
				if _, err := p.Assign(in); err != nil {
					t.Fatalf("valid input rejected: %v", err)
				}
				tc.break_(&in)
				_, err := p.Assign(in)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got error %v, want one mentioning %q", err, tc.want)
				}
			})
		}
	}
	for _, p := range protocols[2:] {
		in := ok()
		in.Now = -1
		if _, err := p.Assign(in); err == nil || !strings.Contains(err.Error(), "negative time") {
			t.Errorf("%s: negative Now: got %v", p.Name(), err)
		}
	}
	if _, err := Eager(nil).Assign(ok()); err == nil {
		t.Errorf("eager without an assignor: no error")
	}
	if _, err := Deferred(DeferredConfig{LeaderFailover: 7}).Assign(ok()); err == nil || !strings.Contains(err.Error(), "failover") {
		t.Errorf("unknown failover rule: got %v", err)
	}
}

func TestDefault(t *testing.T) {
	for _, name := range Names() {
		p, err := Default(name)
		if err != nil {
			t.Fatalf("Default(%q): %v", name, err)
		}
		if p.Name() != name || p.Cooperative() != (name != "eager") {
			t.Errorf("Default(%q) = %s cooperative=%v", name, p.Name(), p.Cooperative())
		}
	}
	if p, _ := Default("deferred"); p.(connectPolicy).maxDelay != DefaultMaxDelay || p.(connectPolicy).failover != ReassignImmediately {
		t.Errorf("deferred defaults: %+v", p)
	}
	if p, _ := Default("incremental"); p.(connectPolicy).maxMoves != 1 || p.(connectPolicy).stepDelay != 1000 {
		t.Errorf("incremental defaults: %+v", p)
	}
	if p, _ := Default("eager"); p.(balancedEager).a.Name() != "range" {
		t.Errorf("eager default assignor: %s", p.(balancedEager).a.Name())
	}
	_, err := Default("sticky")
	if err == nil || !strings.Contains(err.Error(), "eager, cooperative, deferred, incremental") {
		t.Errorf("Default(sticky): %v", err)
	}
	if s := DelayIfDeparted.String() + " " + ReassignImmediately.String(); s != "delay-if-departed reassign-immediately" {
		t.Errorf("LeaderFailover names: %s", s)
	}
}

// TestCandidatesGetLostBack: a member owning two resources bounces; when
// the delay expires the lost resources go round-robin to the candidates
// (here only D'), not least loaded (which would give the second to A).
func TestCandidatesGetLostBack(t *testing.T) {
	for _, p := range cooperativeDesigns()[1:] {
		t.Run(protoName(p), func(t *testing.T) {
			g := newGroup(t, p, spec.Topics{"T": 5})
			g.leader = "A"
			g.join("A", tT, "{T-0}").join("B", tT, "{T-1}").join("C", tT, "{T-2}").join("D", tT, "{T-3 T-4}")
			g.now = 1000
			g.round()
			g.want("settled", g.assigned()+g.revoked(), "A:{T-0} B:{T-1} C:{T-2} D:{T-3 T-4}")
			g.leave("D")
			g.now = 2000
			g.round()
			g.want("held", g.assigned(), "A:{T-0} B:{T-1} C:{T-2}")
			g.join("D'", tT, "{}")
			g.now = 3000
			g.round()
			g.want("D' waits", g.assigned(), "A:{T-0} B:{T-1} C:{T-2} D':{}")
			g.now = 2000 + testMaxDelay
			g.round()
			g.want("D' gets both back", g.assigned(), "A:{T-0} B:{T-1} C:{T-2} D':{T-3 T-4}")
			g.want("nothing revoked", g.revoked(), "")
		})
	}
}

// TestRevocationNotTakenEffect: Connect's step 2 (performTaskAssignment's
// previousRevocation). A member still claims a resource the leader revoked
// from it in the previous round (it missed that assignment), so the
// leader's memory is not what the group holds: the previous assignment
// becomes what the members claim, nothing counts as lost, and a departed
// member's resource is assigned at once instead of being held back. A
// claim outside the memory that the previous round did not revoke does
// not trigger it (Connect tests the revoked set, not the memory).
func TestRevocationNotTakenEffect(t *testing.T) {
	g := stableFour(t, Deferred(DeferredConfig{MaxDelay: testMaxDelay}))
	// The leader revoked T-0 from A (not in its memory)...
	g.mem.Assignment["A"] = nil
	g.mem.Revocation = set(t, "{T-0}")
	// ...but A still claims it, and D has gone.
	g.leave("D")
	g.now = 5000
	g.round()
	g.want("assigned", g.assigned(), "A:{T-0 T-3} B:{T-1} C:{T-2}")
	g.want("delay", fmt.Sprint(g.delay()), "0")
	g.want("memory's revocation", g.mem.Revocation.String(), "{}")

	// The same claims without the revocation: the memory stands, so D's
	// T-3 is lost and held back (A's T-0 is neither lost nor new).
	g = stableFour(t, Deferred(DeferredConfig{MaxDelay: testMaxDelay}))
	g.mem.Assignment["A"] = nil
	g.leave("D")
	g.now = 5000
	g.round()
	g.want("no revocation: assigned", g.assigned(), "A:{T-0} B:{T-1} C:{T-2}")
	g.want("no revocation: delay", fmt.Sprint(g.delay()), fmt.Sprint(testMaxDelay))

	// Control: with the memory intact, T-3 is held back.
	g = stableFour(t, Deferred(DeferredConfig{MaxDelay: testMaxDelay}))
	g.leave("D")
	g.now = 5000
	g.round()
	g.want("control assigned", g.assigned(), "A:{T-0} B:{T-1} C:{T-2}")
	g.want("control delay", fmt.Sprint(g.delay()), fmt.Sprint(testMaxDelay))
}

// TestBackoffWindowQuirk pins down a Connect behaviour Deferred keeps: a
// round inside the back-off window keeps waiting but clears the revocation
// flag ("Delayed rebalance is active"), so a second round inside the same
// window revokes at once. Incremental keeps the flag and waits.
func TestBackoffWindowQuirk(t *testing.T) {
	for _, tc := range []struct {
		p    classic.Protocol
		want string
	}{
		{Deferred(DeferredConfig{}), "A:{T-2 T-3}"},
		{Incremental(IncrementalConfig{MaxMovesPerRound: 2, StepDelay: 40}), ""},
	} {
		t.Run(tc.p.Name(), func(t *testing.T) {
			g := newGroup(t, tc.p, spec.Topics{"T": 4})
			g.leader = "A"
			g.join("A", tT, "{T-0 T-1 T-2 T-3}")
			g.now = 1000
			g.round()
			g.mem.Revoked = true
			g.join("B", tT, "{}")
			g.round()
			g.want("skipped", g.revoked()+fmt.Sprintf(" delay=%d", g.delay()), " delay=40")
			g.now += 10
			g.round()
			g.want("inside the window", g.revoked()+fmt.Sprintf(" delay=%d", g.delay()), " delay=30")
			g.now += 10
			g.round()
			g.want("again inside the window", g.revoked(), tc.want)
		})
	}
}

// TestUndeliveredAssignment: the follow-up round gives T-3 to D, and then
// an assignment goes undelivered while every member stays in the group:
// D's own (D rejoins owning nothing), or the leader's (the round never
// completed, and every member rejoins with what it had before). Connect
// since KAFKA-9848 hands T-3 out at once; with
// classic.UndeliveredAssignmentHeld it is held back for the scheduled
// delay, as if its owner had departed.
func TestUndeliveredAssignment(t *testing.T) {
	for _, leaderMissed := range []bool{false, true} {
		for _, faults := range []classic.Faults{0, classic.UndeliveredAssignmentHeld} {
			t.Run(fmt.Sprintf("leader-missed=%v/faults=%s", leaderMissed, faults), func(t *testing.T) {
				g := seedGroup(t, Deferred(DeferredConfig{MaxDelay: testMaxDelay}))
				g.join("D", tT, "{}")
				g.round()
				before := map[spec.MemberID]member{}
				for id, m := range g.m {
					before[id] = *m
				}
				g.now++
				g.round()
				g.want("follow-up assigned", g.assigned(), "A:{T-0} B:{T-1} C:{T-2} D:{T-3}")
				if leaderMissed {
					g.gen--
					for id, m := range before {
						*g.m[id] = m
					}
				} else {
					*g.m["D"] = before["D"]
				}
				g.faults = faults
				g.now++
				g.round()
				if faults == 0 {
					g.want("assigned", g.assigned(), "A:{T-0} B:{T-1} C:{T-2} D:{T-3}")
					g.want("delay", fmt.Sprint(g.delay()), "0")
					g.want("held", g.last.Held.String(), "{}")
				} else {
					g.want("assigned", g.assigned(), "A:{T-0} B:{T-1} C:{T-2} D:{}")
					g.want("delay", fmt.Sprint(g.delay()), fmt.Sprint(testMaxDelay))
					g.want("held", g.last.Held.String(), "{T-3}")
				}
			})
		}
	}
}

// TestConnectPlacement: one round of Deferred and Incremental from the
// members' claims, with no memory: what is revoked, what each member holds,
// and the follow-up. The rows pin down placement's settling (moves of
// resources given in this round, from the most loaded member to the least
// loaded other subscriber, ties by id), the homogeneity test and Connect's
// revocation order.
func TestConnectPlacement(t *testing.T) {
	tests := []struct {
		name     string
		topics   spec.Topics
		members  [][3]string // id, topics (comma separated), owned
		revoked  string
		assigned string
		followUp string
	}{
		{
			// Least loaded gives x-2 x-3 y-0 y-1 to A (B holds two); settling
			// moves x-3 to B, and then the loads are equal.
			name:     "settling stops once the loads are within one",
			topics:   spec.Topics{"x": 4, "y": 2},
			members:  [][3]string{{"A", "x,y", "{}"}, {"B", "x", "{x-0 x-1}"}},
			assigned: "A:{x-2 y-0 y-1} B:{x-0 x-1 x-3}",
			followUp: "A:{x-2 y-0 y-1} B:{x-0 x-1 x-3}",
		},
		{
			// C, last by id, holds the most: settling starts from the most
			// loaded member, not from the first by id.
			name:     "settling orders the members by load",
			topics:   spec.Topics{"x": 4, "y": 2, "z": 5},
			members:  [][3]string{{"A", "x,y", "{}"}, {"B", "x", "{x-0 x-1}"}, {"C", "z", "{z-0 z-1 z-2 z-3 z-4}"}},
			assigned: "A:{x-2 y-0 y-1} B:{x-0 x-1 x-3} C:{z-0 z-1 z-2 z-3 z-4}",
			followUp: "A:{x-2 y-0 y-1} B:{x-0 x-1 x-3} C:{z-0 z-1 z-2 z-3 z-4}",
		},
		{
			// B and C tie as the least loaded subscribers of x: x-3 goes to
			// B, the first by id.
			name:     "settling breaks ties by id",
			topics:   spec.Topics{"x": 6, "y": 2},
			members:  [][3]string{{"A", "x,y", "{}"}, {"B", "x", "{x-0 x-1}"}, {"C", "x", "{x-4 x-5}"}},
			assigned: "A:{x-2 y-0 y-1} B:{x-0 x-1 x-3} C:{x-4 x-5}",
			followUp: "A:{x-2 y-0 y-1} B:{x-0 x-1 x-3} C:{x-4 x-5}",
		},
		{
			// Only A subscribes to b: the kind is not homogeneous although
			// everyone subscribes to a, the first topic. The planned move
			// takes a-0, which B can take, not b-0 (Connect's rule, last in
			// resource order first).
			name:     "one topic not subscribed by everyone makes the kind heterogeneous",
			topics:   spec.Topics{"a": 1, "b": 1},
			members:  [][3]string{{"A", "a,b", "{a-0 b-0}"}, {"B", "a", "{}"}},
			revoked:  "A:{a-0}",
			assigned: "A:{b-0} B:{}",
			followUp: "A:{b-0} B:{a-0}",
		},
		{
			// Only B and C may take y-0 and A may not: heterogeneous. The
			// moves are planned from the most loaded member, C, not from A,
			// the first by id, and stop once nobody holds two more than a
			// subscriber that could take from it.
			name:     "moves are planned from the most loaded member",
			topics:   spec.Topics{"x": 8, "y": 1},
			members:  [][3]string{{"A", "x", "{x-0 x-1 x-2}"}, {"B", "x,y", "{}"}, {"C", "x,y", "{x-3 x-4 x-5 x-6 x-7}"}},
			revoked:  "C:{x-6 x-7}",
			assigned: "A:{x-0 x-1 x-2} B:{y-0} C:{x-3 x-4 x-5}",
			followUp: "A:{x-0 x-1 x-2} B:{x-6 x-7 y-0} C:{x-3 x-4 x-5}",
		},
		{
			// c-0 is claimed twice: revoked from both, handed out in the
			// follow-up. The planned move of c-1 from B to A would end with
			// the same Σ load² after the follow-up as no move: it is not
			// made (nor its first move alone, the same move).
			name:     "a move that does not lower the imbalance is not made",
			topics:   spec.Topics{"a": 1, "c": 2},
			members:  [][3]string{{"A", "c", "{c-0}"}, {"B", "a,c", "{c-0 c-1}"}},
			revoked:  "A:{c-0} B:{c-0}",
			assigned: "A:{} B:{a-0 c-1}",
			followUp: "A:{c-0} B:{a-0 c-1}",
		},
		{
			// A must give up two tasks: d-1 first (last in resource order),
			// then c-0, the first resource, as connector c's turn.
			name:     "connectors take turns down to A's first task",
			topics:   spec.Topics{}.AddConnector("c", 1).AddConnector("d", 2),
			members:  [][3]string{{"A", "c,d", "{c/connector c-0 d/connector d-0 d-1}"}, {"B", "c,d", "{}"}, {"C", "c,d", "{}"}},
			revoked:  "A:{c-0 d/connector d-1}",
			assigned: "A:{c/connector d-0} B:{} C:{}",
			followUp: "A:{c/connector d-0} B:{c-0 d/connector} C:{d-1}",
		},
	}
	for _, tc := range tests {
		for _, p := range []classic.Protocol{Deferred(DeferredConfig{}), Incremental(IncrementalConfig{MaxMovesPerRound: 10})} {
			t.Run(tc.name+"/"+p.Name(), func(t *testing.T) {
				g := newGroup(t, p, tc.topics)
				g.leader = "A"
				for _, m := range tc.members {
					g.join(spec.MemberID(m[0]), strings.Split(m[1], ","), m[2])
				}
				g.round()
				g.want("revoked", g.revoked(), tc.revoked)
				g.want("assigned", g.assigned(), tc.assigned)
				g.now += g.delay() + 1
				g.round()
				g.want("follow-up", g.assigned(), tc.followUp)
				g.want("follow-up revoked", g.revoked(), "")
			})
		}
	}
}

// TestLostToFirstCandidate: C leaves owning two partitions, D and E join
// empty inside the delay, and the delay expires. Round-robin gives one to
// each candidate. With classic.LostToFirstCandidate (Connect before
// KAFKA-10413) D gets both, and placement does not settle them away; the
// same round's balance takes one back at once, unless
// classic.NoConsecutiveRevocation forbids revoking right after a delay.
func TestLostToFirstCandidate(t *testing.T) {
	for _, tc := range []struct {
		faults classic.Faults
		want   string
	}{
		{0, "A:{T-0 T-1} B:{T-2 T-3} D:{T-4} E:{T-5}"},
		{classic.NoConsecutiveRevocation, "A:{T-0 T-1} B:{T-2 T-3} D:{T-4} E:{T-5}"},
		{classic.LostToFirstCandidate, "A:{T-0 T-1} B:{T-2 T-3} D:{T-4} E:{T-5}"},
		{classic.LostToFirstCandidate | classic.NoConsecutiveRevocation, "A:{T-0 T-1} B:{T-2 T-3} D:{T-4 T-5} E:{}"},
	} {
		t.Run(tc.faults.String(), func(t *testing.T) {
			g := newGroup(t, Deferred(DeferredConfig{MaxDelay: testMaxDelay}), spec.Topics{"T": 6})
			g.leader = "A"
			g.join("A", tT, "{T-0 T-1}").join("B", tT, "{T-2 T-3}").join("C", tT, "{T-4 T-5}")
			g.now = 1000
			g.round()
			g.leave("C")
			g.now = 2000
			g.round()
			g.join("D", tT, "{}").join("E", tT, "{}")
			g.now = 3000
			g.round()
			g.want("candidates", fmt.Sprint(g.mem.Candidates), "[D E]")
			g.faults = tc.faults
			g.checkLaws = tc.faults == 0
			g.now = 2000 + testMaxDelay
			g.round()
			g.want("expired: assigned", g.assigned(), tc.want)
			g.want("expired: revoked", g.revoked(), "")
		})
	}
}

// TestNoConsecutiveRevocation: with classic.NoConsecutiveRevocation
// (Connect's canRevoke before KAFKA-12495) Deferred does not revoke for
// balance right after a revoking round or a round that sent a delay, and
// revokes as usual otherwise. A delay of 0 (delays disabled, the lost
// resources held under classic.DisabledDelayHoldsLost) is no delay.
func TestNoConsecutiveRevocation(t *testing.T) {
	const ncr = classic.NoConsecutiveRevocation
	for _, tc := range []struct {
		name     string
		maxDelay classic.Millis
		faults   classic.Faults
		// before is applied to the settled group of A{T-0 T-1},
		// B{T-2 T-3}, C{T-4}; then D and E join.
		before  func(g *group)
		revoked string
	}{
		{"no revocation or delay before", testMaxDelay, ncr, func(*group) {}, "A:{T-1} B:{T-3}"},
		{"a revoking round before", testMaxDelay, ncr, func(g *group) { g.mem.Revoked = true }, ""},
		{"a revoking round before, without the fault", testMaxDelay, 0, func(g *group) { g.mem.Revoked = true }, ""},
		{"a held delay of 0 before", -1, ncr | classic.DisabledDelayHoldsLost, func(g *group) {
			g.leave("C")
			g.now += 1000
			g.round()
			g.want("held", g.assigned()+fmt.Sprintf(" delay=%d", g.delay()), "A:{T-0 T-1} B:{T-2 T-3} delay=0")
		}, "B:{T-3}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGroup(t, Deferred(DeferredConfig{MaxDelay: tc.maxDelay}), spec.Topics{"T": 5})
			g.leader = "A"
			g.join("A", tT, "{T-0 T-1}").join("B", tT, "{T-2 T-3}").join("C", tT, "{T-4}")
			g.now = 1000
			g.round()
			g.want("settled", g.revoked(), "")
			g.faults = tc.faults
			g.checkLaws = tc.faults == 0
			tc.before(g)
			g.join("D", tT, "{}").join("E", tT, "{}")
			g.now += 1000
			g.round()
			g.want("revoked", g.revoked(), tc.revoked)
		})
	}
}

// TestFailoverAtGenerationZero: a leader with no memory and no completed
// generation (LastCompletedGeneration 0) is still a leader without
// history: under DelayIfDeparted, A's claim assigned by the departed
// leader X makes the leader hold back T-1, which nobody reports.
func TestFailoverAtGenerationZero(t *testing.T) {
	for _, tc := range []struct {
		failover LeaderFailover
		assigned string
		delay    classic.Millis
	}{
		{ReassignImmediately, "A:{T-0} B:{T-1}", 0},
		{DelayIfDeparted, "A:{T-0} B:{}", testMaxDelay},
	} {
		t.Run(tc.failover.String(), func(t *testing.T) {
			g := newGroup(t, Deferred(DeferredConfig{MaxDelay: testMaxDelay, LeaderFailover: tc.failover}), spec.Topics{"T": 2})
			g.leader = "X"
			g.join("A", tT, "{T-0}").join("B", tT, "{}")
			g.leader = "A"
			g.round()
			g.want("assigned", g.assigned(), tc.assigned)
			g.want("delay", fmt.Sprint(g.delay()), fmt.Sprint(tc.delay))
		})
	}
}

// TestRoundRobinSkipsIneligible: when the delay expires, the lost
// resources go round-robin to the candidates D, E, F, G, skipping D, which
// does not subscribe to x; after a skip the next turn starts after the
// candidate that took the resource.
func TestRoundRobinSkipsIneligible(t *testing.T) {
	g := newGroup(t, Deferred(DeferredConfig{MaxDelay: testMaxDelay}), spec.Topics{"x": 4, "y": 1})
	g.leader = "A"
	g.join("A", []string{"x", "y"}, "{x-3 y-0}").join("C", []string{"x"}, "{x-0 x-1 x-2}")
	g.now = 1000
	g.round()
	g.leave("C")
	g.now = 2000
	g.round()
	g.join("D", []string{"y"}, "{}").join("E", []string{"x"}, "{}").join("F", []string{"x"}, "{}").join("G", []string{"x"}, "{}")
	g.now = 3000
	g.round()
	g.want("candidates", fmt.Sprint(g.mem.Candidates), "[D E F G]")
	g.now = 2000 + testMaxDelay
	g.round()
	g.want("expired: assigned", g.assigned(), "A:{x-3} D:{} E:{x-0} F:{x-1} G:{x-2}")
	// Balance moves y-0 to D, the only other member that may take it.
	g.want("expired: revoked", g.revoked(), "A:{y-0}")
}

// TestDelayAtTimeZero: a departure seen at Now 0 (no delay pending) holds
// the lost resource for the full MaxDelay.
func TestDelayAtTimeZero(t *testing.T) {
	g := newGroup(t, Deferred(DeferredConfig{MaxDelay: testMaxDelay}), spec.Topics{"T": 2})
	g.leader = "A"
	g.join("A", tT, "{T-0}").join("B", tT, "{T-1}")
	g.round()
	g.leave("B")
	g.round()
	g.want("assigned", g.assigned(), "A:{T-0}")
	g.want("delay", fmt.Sprint(g.delay()), fmt.Sprint(testMaxDelay))
	g.want("scheduled-at", fmt.Sprint(g.mem.ScheduledAt), fmt.Sprint(testMaxDelay))
}

// TestIncrementalTruncate: A and B own five partitions each, C and D
// join; Connect's rule takes two from each. A step takes one resource at a
// time from the member that then holds the most, ties to the first by id,
// and counts SuccessiveRevokingRounds up.
func TestIncrementalTruncate(t *testing.T) {
	for _, tc := range []struct {
		maxMoves int
		revoked  string
	}{
		{1, "A:{T-4}"},
		{2, "A:{T-4} B:{T-9}"},
		{3, "A:{T-3 T-4} B:{T-9}"},
	} {
		t.Run(fmt.Sprintf("max-moves=%d", tc.maxMoves), func(t *testing.T) {
			g := newGroup(t, Incremental(IncrementalConfig{MaxDelay: testMaxDelay, MaxMovesPerRound: tc.maxMoves}), spec.Topics{"T": 10})
			g.leader = "A"
			g.join("A", tT, "{T-0 T-1 T-2 T-3 T-4}").join("B", tT, "{T-5 T-6 T-7 T-8 T-9}")
			g.now = 1000
			g.round()
			g.join("C", tT, "{}").join("D", tT, "{}")
			g.round()
			g.want("first step revoked", g.revoked(), tc.revoked)
			g.want("successive", fmt.Sprint(g.mem.SuccessiveRevokingRounds), "1")
			g.now++
			g.round()
			g.now += g.delay()
			g.round()
			g.want("second step successive", fmt.Sprint(g.mem.SuccessiveRevokingRounds), "2")
		})
	}
}
