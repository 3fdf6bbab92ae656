package assign

import (
	"fmt"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// stickyExample is one scenario from Kafka's AbstractStickyAssignorTest
// (clients/src/test/.../internals/AbstractStickyAssignorTest.java), with
// the sticky result and the cooperative-sticky result (the same minus the
// partitions Kafka records in partitionsTransferringOwnership).
type stickyExample struct {
	name    string
	topics  spec.Topics
	members func(t *testing.T) []Member
	sticky  map[string]string
	coop    map[string]string // nil: same as sticky
}

func stickyExamples() []stickyExample {
	const gen = 1
	return []stickyExample{
		{
			name:    "testOneConsumerNoTopic",
			topics:  spec.Topics{},
			members: func(t *testing.T) []Member { return []Member{mem(t, "consumer", -1, "", "{}")} },
			sticky:  map[string]string{"consumer": "{}"},
		},
		{
			name:    "testOneConsumerNonexistentTopic",
			topics:  spec.Topics{"topic": 0},
			members: func(t *testing.T) []Member { return []Member{mem(t, "consumer", -1, "topic", "{}")} },
			sticky:  map[string]string{"consumer": "{}"},
		},
		{
			// Kafka's version claims partitions of a topic missing from the
			// metadata; here the topic exists but is not subscribed, since
			// ValidateGroup rejects claims on missing topics.
			name:   "testOnlyAssignsPartitionsFromSubscribedTopics",
			topics: spec.Topics{"topic": 2, "other": 2},
			members: func(t *testing.T) []Member {
				return []Member{mem(t, "consumer", gen, "topic", "{topic-0 topic-1 other-0 other-1}")}
			},
			sticky: map[string]string{"consumer": "{topic-0 topic-1}"},
		},
		{
			name:   "testTwoConsumersOneTopicTwoPartitions",
			topics: spec.Topics{"topic": 2},
			members: func(t *testing.T) []Member {
				return []Member{mem(t, "consumer1", -1, "topic", "{}"), mem(t, "consumer2", -1, "topic", "{}")}
			},
			sticky: map[string]string{"consumer1": "{topic-0}", "consumer2": "{topic-1}"},
		},
		{
			name:   "testMultipleConsumersMixedTopicSubscriptions",
			topics: spec.Topics{"topic1": 3, "topic2": 2},
			members: func(t *testing.T) []Member {
				return []Member{
					mem(t, "consumer1", -1, "topic1", "{}"),
					mem(t, "consumer2", -1, "topic1 topic2", "{}"),
					mem(t, "consumer3", -1, "topic1", "{}"),
				}
			},
			sticky: map[string]string{"consumer1": "{topic1-0 topic1-2}", "consumer2": "{topic2-0 topic2-1}", "consumer3": "{topic1-1}"},
		},
		{
			name:   "testTwoConsumersTwoTopicsSixPartitions",
			topics: spec.Topics{"topic1": 3, "topic2": 3},
			members: func(t *testing.T) []Member {
				return []Member{mem(t, "consumer1", -1, "topic1 topic2", "{}"), mem(t, "consumer2", -1, "topic1 topic2", "{}")}
			},
			sticky: map[string]string{"consumer1": "{topic1-0 topic1-2 topic2-1}", "consumer2": "{topic1-1 topic2-0 topic2-2}"},
		},
		{
			name:   "testConsumerOwningMinQuotaExpectedMaxQuota",
			topics: spec.Topics{"topic1": 2, "topic2": 3},
			members: func(t *testing.T) []Member {
				return []Member{
					mem(t, "consumer1", gen, "topic1 topic2", "{topic1-0 topic2-1}"),
					mem(t, "consumer2", gen, "topic1 topic2", "{topic1-1 topic2-2}"),
				}
			},
			sticky: map[string]string{"consumer1": "{topic1-0 topic2-0 topic2-1}", "consumer2": "{topic1-1 topic2-2}"},
		},
		{
			// Kafka's result depends on HashMap order (consumer2 keeps two);
			// here the tie for the one maxQuota slot goes to the lower ID.
			name:   "testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers",
			topics: spec.Topics{"topic1": 2, "topic2": 2},
			members: func(t *testing.T) []Member {
				return []Member{
					mem(t, "consumer1", gen, "topic1 topic2", "{topic1-0 topic2-0}"),
					mem(t, "consumer2", gen, "topic1 topic2", "{topic1-1 topic2-1}"),
					mem(t, "consumer3", gen, "topic1 topic2", "{}"),
				}
			},
			sticky: map[string]string{"consumer1": "{topic1-0 topic2-0}", "consumer2": "{topic1-1}", "consumer3": "{topic2-1}"},
			coop:   map[string]string{"consumer1": "{topic1-0 topic2-0}", "consumer2": "{topic1-1}", "consumer3": "{}"},
		},
		{
			name:   "testAllConsumersAreUnderMinQuota",
			topics: spec.Topics{"topic1": 2, "topic2": 3},
			members: func(t *testing.T) []Member {
				return []Member{
					mem(t, "consumer1", gen, "topic1 topic2", "{topic1-0}"),
					mem(t, "consumer2", gen, "topic1 topic2", "{topic1-1}"),
					mem(t, "consumer3", gen, "topic1 topic2", "{}"),
				}
			},
			sticky: map[string]string{"consumer1": "{topic1-0 topic2-1}", "consumer2": "{topic1-1 topic2-2}", "consumer3": "{topic2-0}"},
		},
		{
			name:   "testAddRemoveConsumerOneTopic (consumer2 joins)",
			topics: spec.Topics{"topic": 3},
			members: func(t *testing.T) []Member {
				return []Member{mem(t, "consumer1", gen, "topic", "{topic-0 topic-1 topic-2}"), mem(t, "consumer2", gen, "topic", "{}")}
			},
			sticky: map[string]string{"consumer1": "{topic-0 topic-1}", "consumer2": "{topic-2}"},
			coop:   map[string]string{"consumer1": "{topic-0 topic-1}", "consumer2": "{}"},
		},
		{
			// Kafka 3.8's expectation (KAFKA-16277): consumer1 keeps
			// topic1-0 and topic2-1, its first two owned partitions by
			// partition number, then topic, not topic1-0 and topic1-2.
			name:   "testAddRemoveTwoConsumersTwoTopics (two join)",
			topics: spec.Topics{"topic1": 3, "topic2": 4},
			members: func(t *testing.T) []Member {
				return []Member{
					mem(t, "consumer1", gen, "topic1 topic2", "{topic1-0 topic1-2 topic2-1 topic2-3}"),
					mem(t, "consumer2", gen, "topic1 topic2", "{topic1-1 topic2-0 topic2-2}"),
					mem(t, "consumer3", gen, "topic1 topic2", "{}"),
					mem(t, "consumer4", gen, "topic1 topic2", "{}"),
				}
			},
			sticky: map[string]string{
				"consumer1": "{topic1-0 topic2-1}", "consumer2": "{topic1-1 topic2-0}",
				"consumer3": "{topic1-2 topic2-3}", "consumer4": "{topic2-2}",
			},
			coop: map[string]string{
				"consumer1": "{topic1-0 topic2-1}", "consumer2": "{topic1-1 topic2-0}",
				"consumer3": "{}", "consumer4": "{}",
			},
		},
		{
			name:   "testOwnedPartitionsAreInvalidatedForConsumerWithStaleGeneration",
			topics: spec.Topics{"topic": 3, "topic2": 3},
			members: func(t *testing.T) []Member {
				return []Member{
					mem(t, "consumer1", 10, "topic topic2", "{topic-0 topic-2 topic2-1}"),
					mem(t, "consumer2", 9, "topic topic2", "{topic-0 topic-2 topic2-1}"),
				}
			},
			sticky: map[string]string{"consumer1": "{topic-0 topic-2 topic2-1}", "consumer2": "{topic-1 topic2-0 topic2-2}"},
		},
		{
			name:   "testOwnedPartitionsAreInvalidatedForConsumerWithNoGeneration",
			topics: spec.Topics{"topic": 3, "topic2": 3},
			members: func(t *testing.T) []Member {
				return []Member{
					mem(t, "consumer1", 10, "topic topic2", "{topic-0 topic-2 topic2-1}"),
					mem(t, "consumer2", spec.NoGeneration, "topic topic2", "{topic-0 topic-2 topic2-1}"),
				}
			},
			sticky: map[string]string{"consumer1": "{topic-0 topic-2 topic2-1}", "consumer2": "{topic-1 topic2-0 topic2-2}"},
		},
		{
			name:   "testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration",
			topics: spec.Topics{"topic": 3},
			members: func(t *testing.T) []Member {
				return []Member{
					mem(t, "consumer1", gen, "topic", "{topic-0 topic-1}"),
					mem(t, "consumer2", gen, "topic", "{topic-0 topic-2}"),
					mem(t, "consumer3", gen, "topic", "{}"),
				}
			},
			sticky: map[string]string{"consumer1": "{topic-1}", "consumer2": "{topic-2}", "consumer3": "{topic-0}"},
			coop:   map[string]string{"consumer1": "{topic-1}", "consumer2": "{topic-2}", "consumer3": "{}"},
		},
		{
			name:   "testEnsurePartitionsAssignedToHighestGeneration",
			topics: spec.Topics{"topic": 3, "topic2": 3, "topic3": 3},
			members: func(t *testing.T) []Member {
				all := "topic topic2 topic3"
				return []Member{
					mem(t, "consumer1", 10, all, "{topic-0 topic2-0 topic3-0}"),
					mem(t, "consumer2", 9, all, "{topic-1 topic2-1 topic3-1}"),
					mem(t, "consumer3", 8, all, "{topic2-1 topic3-0 topic3-2}"),
				}
			},
			sticky: map[string]string{
				"consumer1": "{topic-0 topic2-0 topic3-0}",
				"consumer2": "{topic-1 topic2-1 topic3-1}",
				"consumer3": "{topic-2 topic2-2 topic3-2}",
			},
		},
		{
			name:   "testNoReassignmentOnCurrentMembers",
			topics: spec.Topics{"topic": 3, "topic1": 3, "topic2": 3, "topic3": 3},
			members: func(t *testing.T) []Member {
				all := "topic topic1 topic2 topic3"
				return []Member{
					mem(t, "consumer1", spec.NoGeneration, all, "{}"),
					mem(t, "consumer2", 9, all, "{topic-0 topic2-0 topic1-0}"),
					mem(t, "consumer3", 8, all, "{topic3-2 topic2-2 topic1-1}"),
					mem(t, "consumer4", 7, all, "{topic3-1 topic-1 topic-2}"),
				}
			},
			sticky: map[string]string{
				"consumer1": "{topic1-2 topic2-1 topic3-0}",
				"consumer2": "{topic-0 topic1-0 topic2-0}",
				"consumer3": "{topic1-1 topic2-2 topic3-2}",
				"consumer4": "{topic-1 topic-2 topic3-1}",
			},
		},
		{
			name:   "testOwnedPartitionsAreInvalidatedForConsumerWithMultipleGeneration",
			topics: spec.Topics{"topic": 3, "topic2": 3},
			members: func(t *testing.T) []Member {
				return []Member{
					mem(t, "consumer1", 10, "topic topic2", "{topic-0 topic2-1 topic-1}"),
					mem(t, "consumer2", 8, "topic topic2", "{topic-0 topic2-1 topic2-2}"),
				}
			},
			sticky: map[string]string{"consumer1": "{topic-0 topic-1 topic2-1}", "consumer2": "{topic-2 topic2-0 topic2-2}"},
		},
		{
			name:   "testAllConsumersReachExpectedQuotaAndAreConsideredFilled",
			topics: spec.Topics{"topic": 4},
			members: func(t *testing.T) []Member {
				return []Member{
					mem(t, "consumer1", gen, "topic", "{topic-0 topic-1}"),
					mem(t, "consumer2", gen, "topic", "{topic-2}"),
					mem(t, "consumer3", gen, "topic", "{}"),
				}
			},
			sticky: map[string]string{"consumer1": "{topic-0 topic-1}", "consumer2": "{topic-2}", "consumer3": "{topic-3}"},
		},
		{
			// The unique balanced assignment moves topic2-0 to consumer1 and
			// topic4-0 to consumer2; cooperative-sticky withholds both.
			name:   "testMoveExistingAssignments",
			topics: spec.Topics{"topic1": 1, "topic2": 1, "topic3": 1, "topic4": 1, "topic5": 1, "topic6": 1},
			members: func(t *testing.T) []Member {
				return []Member{
					mem(t, "consumer1", gen, "topic1 topic2", "{topic1-0}"),
					mem(t, "consumer2", gen, "topic1 topic2 topic3 topic4", "{topic2-0 topic3-0}"),
					mem(t, "consumer3", gen, "topic2 topic3 topic4 topic5 topic6", "{topic4-0 topic5-0 topic6-0}"),
				}
			},
			sticky: map[string]string{"consumer1": "{topic1-0 topic2-0}", "consumer2": "{topic3-0 topic4-0}", "consumer3": "{topic5-0 topic6-0}"},
			coop:   map[string]string{"consumer1": "{topic1-0}", "consumer2": "{topic3-0}", "consumer3": "{topic5-0 topic6-0}"},
		},
	}
}

func TestStickyKafkaExamples(t *testing.T) {
	for _, ex := range stickyExamples() {
		t.Run(ex.name, func(t *testing.T) {
			g := Group{Topics: ex.topics, Members: ex.members(t)}
			s := mustAssign(t, Sticky(), g)
			assertAssignment(t, s, parseAssignment(t, ex.sticky))
			v := ViewOf(g, s)
			if vs := append(spec.CheckCoverage(v), spec.CheckBalance(v)...); len(vs) > 0 {
				t.Errorf("sticky result breaks %v", vs)
			}
			if moves := twoWayMoves(g, s); len(moves) > 0 {
				t.Errorf("sticky result has movement cycles: %v", moves)
			}
			wantCoop := ex.coop
			if wantCoop == nil {
				wantCoop = ex.sticky
			}
			c := mustAssign(t, CooperativeSticky(), g)
			assertAssignment(t, c, parseAssignment(t, wantCoop))
			if vs := spec.CheckRound(RoundOf(g, c, true)); len(vs) > 0 {
				t.Errorf("cooperative round breaks %v", vs)
			}
		})
	}
}

// TestStickyThreeGenerations is Kafka's
// testSubscriptionNotEqualAndAssignSamePartitionWith3Generation: topic-2 is
// claimed by three members at three generations, in every order; the
// highest generation keeps it and every member ends with one or two.
func TestStickyThreeGenerations(t *testing.T) {
	perms := [][3]spec.Generation{{1, 2, 3}, {1, 3, 2}, {2, 1, 3}, {2, 3, 1}, {3, 1, 2}, {3, 2, 1}}
	for _, p := range perms {
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			g := Group{
				Topics: spec.Topics{"topic": 6, "topic1": 1},
				Members: []Member{
					mem(t, "consumer1", p[0], "topic", "{topic-0 topic-2}"),
					mem(t, "consumer2", p[1], "topic", "{topic-1 topic-2 topic-3}"),
					mem(t, "consumer3", p[2], "topic", "{topic-2 topic-4 topic-5}"),
					mem(t, "consumer4", 2, "topic1", "{topic1-0}"),
				},
			}
			winner := spec.MemberID(fmt.Sprintf("consumer%d", slices.Index(p[:], 3)+1))
			for _, as := range []Assignor{Sticky(), CooperativeSticky()} {
				a := mustAssign(t, as, g)
				if vs := spec.CheckRound(RoundOf(g, a, as.Name() == "cooperative-sticky")); len(vs) > 0 {
					t.Errorf("%s: %v", as.Name(), vs)
				}
				if !a[winner].Contains(spec.TP("topic", 2)) {
					t.Errorf("%s: topic-2 not kept by the highest generation %s: %s", as.Name(), winner, a)
				}
				if as.Name() == "sticky" {
					for m, s := range a {
						if s.Len() < 1 || s.Len() > 2 {
							t.Errorf("sticky: %s has %d partitions, want 1 or 2: %s", m, s.Len(), a)
						}
					}
				}
			}
		})
	}
}

// TestStickyStickinessAfterLeave is Kafka's testStickiness: four members
// share three partitions; when one leaves, the others keep theirs and the
// one without gets the free partition.
func TestStickyStickinessAfterLeave(t *testing.T) {
	g := Group{Topics: spec.Topics{"topic1": 3}}
	for _, id := range []string{"consumer1", "consumer2", "consumer3", "consumer4"} {
		g.Members = append(g.Members, mem(t, id, spec.NoGeneration, "topic1", "{}"))
	}
	first := mustAssign(t, Sticky(), g)
	for m, s := range first {
		if s.Len() > 1 {
			t.Fatalf("%s got %s, want at most one partition", m, s)
		}
	}
	next := nextRound(g, first, 1)
	next.Members = next.Members[1:] // consumer1, the leader, leaves
	for _, as := range []Assignor{Sticky(), CooperativeSticky()} {
		second := mustAssign(t, as, next)
		for _, m := range next.Members {
			if second[m.ID].Len() != 1 || !first[m.ID].Minus(second[m.ID]).IsEmpty() {
				t.Errorf("%s: %s had %s and now has %s", as.Name(), m.ID, first[m.ID], second[m.ID])
			}
		}
	}
}

// TestStickyPoorRoundRobinScenario is Kafka's
// testPoorRoundRobinAssignmentScenario: where round-robin leaves consumer3
// empty, sticky gives everyone two.
func TestStickyPoorRoundRobinScenario(t *testing.T) {
	g := Group{
		Topics: spec.Topics{"topic1": 2, "topic2": 1, "topic3": 2, "topic4": 1, "topic5": 2},
		Members: []Member{
			mem(t, "consumer1", -1, "topic1 topic2 topic3 topic4 topic5", "{}"),
			mem(t, "consumer2", -1, "topic1 topic3 topic5", "{}"),
			mem(t, "consumer3", -1, "topic1 topic3 topic5", "{}"),
			mem(t, "consumer4", -1, "topic1 topic2 topic3 topic4 topic5", "{}"),
		},
	}
	a := mustAssign(t, Sticky(), g)
	for m, s := range a {
		if s.Len() != 2 {
			t.Errorf("%s has %s, want two partitions", m, s)
		}
	}
	if vs := spec.CheckRound(RoundOf(g, a, false)); len(vs) > 0 {
		t.Error(vs)
	}
}

// TestStickyNoTwoCycles runs two of Kafka's heterogeneous scenarios on the
// general path and checks balance, coverage and the absence of movement
// cycles (Kafka's PartitionMovements.isSticky):
// testReassignmentAfterOneConsumerLeaves (19 topics of 1..19 partitions,
// consumer i subscribes to topics 1..i, then consumer10 leaves), and a
// fixed-pattern version of
// testLargeAssignmentWithMultipleConsumersLeavingAndRandomSubscription (40
// consumers over 20 topics, then every fourth consumer leaves).
func TestStickyNoTwoCycles(t *testing.T) {
	name := func(p string, i int) string { return fmt.Sprintf("%s%02d", p, i) }
	check := func(t *testing.T, g Group, a spec.Assignment) {
		t.Helper()
		v := ViewOf(g, a)
		if vs := append(spec.CheckCoverage(v), spec.CheckBalance(v)...); len(vs) > 0 {
			t.Errorf("breaks %v", vs)
		}
		if moves := twoWayMoves(g, a); len(moves) > 0 {
			t.Errorf("movement cycles: %v", moves)
		}
	}

	t.Run("testReassignmentAfterOneConsumerLeaves", func(t *testing.T) {
		g := Group{Topics: spec.Topics{}}
		for i := 1; i < 20; i++ {
			g.Topics[name("t", i)] = int32(i)
		}
		for i := 1; i < 20; i++ {
			var topics []string
			for j := 1; j <= i; j++ {
				topics = append(topics, name("t", j))
			}
			g.Members = append(g.Members, Member{ID: spec.MemberID(name("c", i)), Topics: topics, Generation: spec.NoGeneration})
		}
		first := mustAssign(t, Sticky(), g)
		check(t, g, first)
		next := nextRound(g, first, 1)
		next.Members = slices.DeleteFunc(next.Members, func(m Member) bool { return m.ID == "c10" })
		check(t, next, mustAssign(t, Sticky(), next))
	})

	t.Run("consumers leave, mixed subscriptions", func(t *testing.T) {
		g := Group{Topics: spec.Topics{}}
		for j := range 20 {
			g.Topics[name("t", j)] = int32(j%10 + 1)
		}
		for i := range 40 {
			var topics []string
			for j := range 20 {
				if (i*7+j*3)%5 < 2 {
					topics = append(topics, name("t", j))
				}
			}
			g.Members = append(g.Members, Member{ID: spec.MemberID(name("c", i)), Topics: topics, Generation: spec.NoGeneration})
		}
		first := mustAssign(t, Sticky(), g)
		check(t, g, first)
		next := nextRound(g, first, 1)
		leaving := map[spec.MemberID]bool{}
		for i := 0; i < 40; i += 4 {
			leaving[spec.MemberID(name("c", i))] = true
		}
		next.Members = slices.DeleteFunc(next.Members, func(m Member) bool { return leaving[m.ID] })
		second := mustAssign(t, Sticky(), next)
		check(t, next, second)
		// In this scenario the departed members' partitions are enough to
		// rebalance: everything the remaining members held stays theirs.
		kept, held := keptClaims(next, second), 0
		for _, m := range next.Members {
			held += m.Owned.Len()
		}
		if kept != held {
			t.Errorf("kept %d of %d held partitions", kept, held)
		}
	})
}

func TestResolveClaims(t *testing.T) {
	g := Group{
		Topics: spec.Topics{"t": 6},
		Members: []Member{
			mem(t, "a", 3, "t", "{t-0 t-1 t-2 t-5}"),
			mem(t, "b", 3, "t", "{t-1 t-3}"),
			mem(t, "c", 2, "t", "{t-2 t-3 t-4}"),
			mem(t, "d", spec.NoGeneration, "", "{t-4 t-5}"),
		},
	}
	c := ResolveClaims(g)
	wantWon := parseAssignment(t, map[string]string{
		"a": "{t-0 t-2 t-5}", // t-2 beats c's stale claim, t-5 beats d's NoGeneration
		"b": "{t-3}",         // t-1 is tied with a at generation 3
		"c": "{t-4}",         // beats d, who no longer subscribes anyway
		"d": "{}",
	})
	assertAssignment(t, c.Won, wantWon)
	if got, w := c.Contested.String(), "{t-1 t-2 t-3 t-4 t-5}"; got != w {
		t.Errorf("Contested = %s, want %s", got, w)
	}
	if got, w := c.Tied.String(), "{t-1}"; got != w {
		t.Errorf("Tied = %s, want %s", got, w)
	}
	if _, ok := c.Won["d"]; !ok {
		t.Errorf("Won has no entry for d")
	}
}

// TestStickyPathsAgree checks, on homogeneous groups, that the constrained
// fast path and the general min-cost flow reach the same optimum: the same
// sum of squared loads and the same number of kept claims.
func TestStickyPathsAgree(t *testing.T) {
	checkPathsAgree := func(t tb, g Group) {
		claims := resolveClaims(g, claimFaults{})
		fast := stickyTarget(g, claims, false)
		flow := stickyTarget(g, claims, true)
		if sumSquares(g, fast) != sumSquares(g, flow) || keptClaims(g, fast) != keptClaims(g, flow) {
			t.Fatalf("paths disagree on %s\nfast %s (Σl²=%d kept=%d)\nflow %s (Σl²=%d kept=%d)",
				groupString(g), fast, sumSquares(g, fast), keptClaims(g, fast), flow, sumSquares(g, flow), keptClaims(g, flow))
		}
		if v := spec.CheckRound(RoundOf(g, flow, false)); len(v) > 0 {
			t.Fatalf("flow path result invalid: %v", v)
		}
	}
	for _, ex := range stickyExamples() {
		checkPathsAgree(t, Group{Topics: ex.topics, Members: ex.members(t)})
	}
}

// TestStickyLongChain needs a chain of three moves to balance: only d can
// shed, only through c and b, to a. Kafka's pairwise balance
// (spec.CheckBalance) already holds at loads 1/2/2/3, after single moves;
// sticky reaches the optimum 2/2/2/2 and gives up six kept claims for it (two
// chains of three moves).
func TestStickyLongChain(t *testing.T) {
	g := Group{
		Topics: spec.Topics{"a": 2, "b": 2, "c": 4},
		Members: []Member{
			mem(t, "a", 1, "a", "{}"),
			mem(t, "b", 1, "a b", "{a-0 a-1}"),
			mem(t, "c", 1, "b c", "{b-0 b-1}"),
			mem(t, "d", 1, "c", "{c-0 c-1 c-2 c-3}"),
		},
	}
	kafkaBalanced := parseAssignment(t, map[string]string{"a": "{a-1}", "b": "{a-0 b-1}", "c": "{b-0 c-3}", "d": "{c-0 c-1 c-2}"})
	if vs := spec.CheckBalance(ViewOf(g, kafkaBalanced)); len(vs) > 0 {
		t.Fatalf("the 1/2/2/3 assignment should pass spec.CheckBalance: %v", vs)
	}
	a := mustAssign(t, Sticky(), g)
	for m, n := range Loads(a) {
		if n != 2 {
			t.Errorf("%s has %d partitions, want 2: %s", m, n, a)
		}
	}
	if kept := keptClaims(g, a); kept != 2 {
		t.Errorf("kept %d claims, want 2 (d's c-0 c-1): %s", kept, a)
	}
	if moves := twoWayMoves(g, a); len(moves) > 0 {
		t.Errorf("movement cycles: %v", moves)
	}
}
