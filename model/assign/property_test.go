package assign

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestPropertiesAllAssignors checks, for every assignor on random valid
// groups: the input is not modified, the result is deterministic, names
// every member and nobody else, and passes spec.CheckRound (nothing twice,
// only subscribed, only existing, only known members).
func TestPropertiesAllAssignors(t *testing.T) {
	for _, as := range allAssignors() {
		t.Run(as.Name(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := genGroup(t, defaultLimits)
				before := cloneGroup(g)
				a := mustAssign(t, as, g)
				if d := sameGroup(before, g); d != "" {
					t.Fatalf("Assign modified its input:\n%s", d)
				}
				if b := mustAssign(t, as, cloneGroup(g)); !a.Equal(b) {
					t.Fatalf("not deterministic:\n%s\n%s", a, b)
				}
				if len(a) != len(g.Members) {
					t.Fatalf("%d members in the result, want %d: %s", len(a), len(g.Members), a)
				}
				for _, m := range g.Members {
					if _, ok := a[m.ID]; !ok {
						t.Fatalf("member %s missing from the result %s", m.ID, a)
					}
				}
				if vs := spec.CheckRound(RoundOf(g, a, false)); len(vs) > 0 {
					t.Fatalf("invalid round: %v\nassigned: %s", vs, a)
				}
			})
		})
	}
}

// TestPropertiesComplete: range, roundrobin and sticky assign every
// partition of every subscribed, existing topic.
func TestPropertiesComplete(t *testing.T) {
	for _, as := range []Assignor{Range(), RoundRobin(), Sticky()} {
		t.Run(as.Name(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := genGroup(t, defaultLimits)
				a := mustAssign(t, as, g)
				if vs := spec.CheckCoverage(ViewOf(g, a)); len(vs) > 0 {
					t.Fatalf("incomplete: %v\nassigned: %s", vs, a)
				}
			})
		})
	}
}

// TestPropertiesRange: per topic, the subscribers in Kafka's member order
// get contiguous, consecutive ranges whose sizes differ by at most one, the
// larger ones first.
func TestPropertiesRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genGroup(t, defaultLimits)
		a := mustAssign(t, Range(), g)
		for _, topic := range subscribedTopics(g) {
			next, prevSize := int32(0), -1
			sizes := map[int]bool{}
			for _, i := range kafkaOrder(g.Members) {
				m := g.Members[i]
				if !inSubscription(m, topic) {
					continue
				}
				var got []int32
				for _, r := range a[m.ID] {
					if r.Topic == topic {
						got = append(got, r.Partition)
					}
				}
				for k, p := range got {
					if p != next+int32(k) {
						t.Fatalf("topic %s: %s got %v, want a range starting at %d\n%s", topic, m.ID, got, next, a)
					}
				}
				next += int32(len(got))
				if prevSize >= 0 && len(got) > prevSize {
					t.Fatalf("topic %s: %s got more (%d) than an earlier member (%d)\n%s", topic, m.ID, len(got), prevSize, a)
				}
				prevSize = len(got)
				sizes[len(got)] = true
			}
			if len(sizes) > 2 {
				t.Fatalf("topic %s: subscriber counts %v differ by more than one\n%s", topic, sizes, a)
			}
		}
	})
}

// effectiveSubscription is m's subscription restricted to topics of g with
// partitions.
func effectiveSubscription(g Group, m Member) []string {
	return slices.DeleteFunc(slices.Clone(m.Topics), func(t string) bool { return g.Topics[t] == 0 })
}

// homogeneous reports whether all members of g have the same effective
// subscription.
func homogeneous(g Group) bool {
	for _, m := range g.Members {
		if !slices.Equal(effectiveSubscription(g, m), effectiveSubscription(g, g.Members[0])) {
			return false
		}
	}
	return true
}

// TestPropertiesRoundRobinHomogeneous: with identical subscriptions,
// round-robin counts differ by at most one.
func TestPropertiesRoundRobinHomogeneous(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genGroup(t, defaultLimits)
		a := mustAssign(t, RoundRobin(), g)
		if !homogeneous(g) {
			return
		}
		loads := Loads(a)
		lo, hi := len(g.Members)*100, 0
		for _, n := range loads {
			lo, hi = min(lo, n), max(hi, n)
		}
		if hi-lo > 1 {
			t.Fatalf("homogeneous group unbalanced: %v\n%s", loads, a)
		}
	})
}

// TestPropertiesSticky: balance (spec.CheckBalance; with identical
// subscriptions, floor or ceil of P/M each), no movement cycles, and the
// result is a fixed point when fed back at a newer generation.
func TestPropertiesSticky(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genGroup(t, defaultLimits)
		a := mustAssign(t, Sticky(), g)
		if vs := spec.CheckBalance(ViewOf(g, a)); len(vs) > 0 {
			t.Fatalf("unbalanced: %v\nassigned: %s", vs, a)
		}
		if homogeneous(g) {
			total := g.Topics.Resources(effectiveSubscription(g, g.Members[0])...).Len()
			lo, hi := total/len(g.Members), (total+len(g.Members)-1)/len(g.Members)
			for m, n := range Loads(a) {
				if n < lo || n > hi {
					t.Fatalf("%s has %d, want %d..%d\n%s", m, n, lo, hi, a)
				}
			}
		}
		if moves := twoWayMoves(g, a); len(moves) > 0 {
			t.Fatalf("movement cycles: %v\nassigned: %s", moves, a)
		}
		again := nextRound(g, a, maxGeneration(g)+1)
		if b := mustAssign(t, Sticky(), again); !a.Equal(b) {
			t.Fatalf("not a fixed point:\nfirst  %s\nsecond %s", a, b)
		}
	})
}

// TestPropertiesStickyNothingMoves: in a balanced homogeneous group with no
// stale or double claims and no change, sticky and cooperative-sticky give
// every member exactly what it owns.
func TestPropertiesStickyNothingMoves(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genBalancedHomogeneous(t)
		for _, as := range []Assignor{Sticky(), CooperativeSticky()} {
			a := mustAssign(t, as, g)
			for _, m := range g.Members {
				if !a[m.ID].Equal(m.Owned) {
					t.Fatalf("%s: %s owned %s and got %s", as.Name(), m.ID, m.Owned, a[m.ID])
				}
			}
		}
	})
}

// TestPropertiesStickyOptimal compares sticky against every complete
// assignment of small groups: it reaches the smallest sum of squared loads
// (the most balanced load vector) and, among those, the most kept claims.
// The flow path is also checked against the fast path on homogeneous groups.
func TestPropertiesStickyOptimal(t *testing.T) {
	for _, l := range []limits{{maxMembers: 3, maxTopics: 3, maxPartitions: 3}, {maxMembers: 4, maxTopics: 2, maxPartitions: 3}} {
		rapid.Check(t, func(t *rapid.T) {
			g := genGroup(t, l)
			a := mustAssign(t, Sticky(), g)
			bestSq, bestKept := bruteForce(g)
			if sq, kept := sumSquares(g, a), keptClaims(g, a); sq != bestSq || kept != bestKept {
				t.Fatalf("sticky Σl²=%d kept=%d, optimum Σl²=%d kept=%d\ngroup: %s\nassigned: %s", sq, kept, bestSq, bestKept, groupString(g), a)
			}
			if flow := stickyTarget(g, resolveClaims(g, claimFaults{}), true); sumSquares(g, flow) != bestSq || keptClaims(g, flow) != bestKept {
				t.Fatalf("flow path not optimal: %s", flow)
			}
		})
	}
}

// bruteForce enumerates every complete assignment of g's subscribed
// partitions to subscribers and returns the smallest Σ load² and, for it,
// the most claims kept by their winners.
func bruteForce(g Group) (int, int) {
	won := ResolveClaims(g).Won
	type part struct {
		eligible []int
		winner   int
	}
	var parts []part
	for _, r := range g.Topics.Resources(subscribedTopics(g)...) {
		p := part{winner: -1}
		for i, m := range g.Members {
			if inSubscription(m, r.Topic) {
				p.eligible = append(p.eligible, i)
			}
			if won[m.ID].Contains(r) {
				p.winner = i
			}
		}
		parts = append(parts, p)
	}
	loads := make([]int, len(g.Members))
	bestSq, bestKept := -1, -1
	var walk func(k, kept int)
	walk = func(k, kept int) {
		if k == len(parts) {
			sq := 0
			for _, l := range loads {
				sq += l * l
			}
			if bestSq < 0 || sq < bestSq || (sq == bestSq && kept > bestKept) {
				bestSq, bestKept = sq, kept
			}
			return
		}
		for _, i := range parts[k].eligible {
			loads[i]++
			add := 0
			if parts[k].winner == i {
				add = 1
			}
			walk(k+1, kept+add)
			loads[i]--
		}
	}
	walk(0, 0)
	return bestSq, bestKept
}

// TestPropertiesCooperative: every round passes spec.CheckRound with
// Cooperative set, gives a subset of sticky's target, never hands out a
// tied claim, and iterating rounds (results fed back at generation+1)
// stops revoking within Kafka's bound of four rounds (this implementation
// guarantees two) at a complete, balanced assignment.
func TestPropertiesCooperative(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genGroup(t, defaultLimits)
		a := mustAssign(t, CooperativeSticky(), g)
		if vs := spec.CheckRound(RoundOf(g, a, true)); len(vs) > 0 {
			t.Fatalf("cooperative round: %v\nassigned: %s", vs, a)
		}
		target := mustAssign(t, Sticky(), g)
		for _, m := range g.Members {
			if extra := a[m.ID].Minus(target[m.ID]); !extra.IsEmpty() {
				t.Fatalf("%s got %s beyond sticky's target %s", m.ID, extra, target[m.ID])
			}
		}
		if tied := assignedTied(g, a); !tied.IsEmpty() {
			t.Fatalf("tied claims handed out: %s", tied)
		}
		rounds, last, final := converge(t, CooperativeSticky(), g)
		if rounds > 4 {
			t.Fatalf("%d rounds, Kafka's bound is 4", rounds)
		}
		if rounds > 2 {
			t.Fatalf("%d rounds, this implementation promises 2", rounds)
		}
		v := ViewOf(last, final)
		if vs := append(spec.CheckCoverage(v), spec.CheckBalance(v)...); len(vs) > 0 {
			t.Fatalf("after %d rounds: %v\nfinal: %s", rounds, vs, final)
		}
	})
}

// TestPropertiesStickyPathsAgree: on random homogeneous groups the fast
// path and the flow reach the same optimum.
func TestPropertiesStickyPathsAgree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genGroup(t, defaultLimits)
		if !homogeneous(g) {
			return
		}
		claims := resolveClaims(g, claimFaults{})
		fast, flow := stickyTarget(g, claims, false), stickyTarget(g, claims, true)
		if sumSquares(g, fast) != sumSquares(g, flow) || keptClaims(g, fast) != keptClaims(g, flow) {
			t.Fatalf("paths disagree\nfast %s\nflow %s", fast, flow)
		}
	})
}
