package assign

import (
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestCooperativeNoWithholdingIsDetected shows that spec.CheckRound with
// Cooperative set catches the NoWithholding fault on Kafka's
// testAddRemoveConsumerOneTopic: consumer1 owns all three partitions and
// consumer2 joins.
func TestCooperativeNoWithholdingIsDetected(t *testing.T) {
	g := Group{
		Topics: spec.Topics{"topic": 3},
		Members: []Member{
			mem(t, "consumer1", 1, "topic", "{topic-0 topic-1 topic-2}"),
			mem(t, "consumer2", 1, "topic", "{}"),
		},
	}

	good := mustAssign(t, CooperativeSticky(), g)
	assertAssignment(t, good, parseAssignment(t, map[string]string{"consumer1": "{topic-0 topic-1}", "consumer2": "{}"}))
	if vs := spec.CheckRound(RoundOf(g, good, true)); len(vs) > 0 {
		t.Errorf("correct assignor flagged: %v", vs)
	}

	bad := mustAssign(t, CooperativeStickyWith(CooperativeOptions{NoWithholding: true}), g)
	assertAssignment(t, bad, parseAssignment(t, map[string]string{"consumer1": "{topic-0 topic-1}", "consumer2": "{topic-2}"}))
	vs := spec.CheckRound(RoundOf(g, bad, true))
	if len(vs) != 1 || vs[0].Law != spec.CooperativeHandoff || vs[0].Resource != spec.TP("topic", 2) {
		t.Fatalf("NoWithholding not detected as one CooperativeHandoff on topic-2: %v", vs)
	}
	if got := vs[0].Members; len(got) != 2 || got[0] != "consumer1" || got[1] != "consumer2" {
		t.Errorf("violation members = %v, want [consumer1 consumer2]", got)
	}
	// The eager check alone does not see it: the fault is specific to the
	// cooperative hand-off.
	if vs := spec.CheckRound(RoundOf(g, bad, false)); len(vs) > 0 {
		t.Errorf("non-cooperative round check flags %v", vs)
	}
}

// assignedTied returns the resources claimed by several members at the same
// highest generation that a gives to somebody.
func assignedTied(g Group, a spec.Assignment) spec.Set {
	return ResolveClaims(g).Tied.Intersect(a.All())
}

// TestCooperativeKeepSameGenerationClaims shows the KeepSameGenerationClaims
// fault on Kafka's
// testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration:
// topic-0 is claimed by consumer1 and consumer2 at the same generation. The
// correct assignor takes it from both and withholds it for a round; the
// faulty one lets consumer1 keep it. spec.CheckRound does not see this (no
// partition is added to a non-claimant); the tied-claim check does, and the
// closed world's ExclusiveOwnership law catches the zombie that results.
func TestCooperativeKeepSameGenerationClaims(t *testing.T) {
	g := Group{
		Topics: spec.Topics{"topic": 3},
		Members: []Member{
			mem(t, "consumer1", 1, "topic", "{topic-0 topic-1}"),
			mem(t, "consumer2", 1, "topic", "{topic-0 topic-2}"),
			mem(t, "consumer3", 1, "topic", "{}"),
		},
	}
	good := mustAssign(t, CooperativeSticky(), g)
	assertAssignment(t, good, parseAssignment(t, map[string]string{"consumer1": "{topic-1}", "consumer2": "{topic-2}", "consumer3": "{}"}))
	if tied := assignedTied(g, good); !tied.IsEmpty() {
		t.Errorf("correct assignor hands out tied claims %s", tied)
	}

	faulty := CooperativeStickyWith(CooperativeOptions{KeepSameGenerationClaims: true})
	bad := mustAssign(t, faulty, g)
	// consumer1 keeps topic-0 (its quota is one, so topic-1 moves to
	// consumer3 and is withheld).
	assertAssignment(t, bad, parseAssignment(t, map[string]string{"consumer1": "{topic-0}", "consumer2": "{topic-2}", "consumer3": "{}"}))
	if tied := assignedTied(g, bad); !tied.Equal(spec.Set{spec.TP("topic", 0)}) {
		t.Errorf("tied claims handed out = %s, want {topic-0}", tied)
	}
}

// TestCooperativeDropStaleClaims shows the DropStaleClaims fault
// (KAFKA-14639) on the group of Kafka's
// testEnsurePartitionsAssignedToHighestGeneration, reduced: consumer1
// claims topic-0 at generation 2, consumer2 claims topic-1 and topic-2 at
// the stale generation 1, and consumer3 is new. Nobody else claims
// consumer2's partitions, so the correct assignor lets it keep one and
// withholds the other; the faulty one counts both as unowned and hands
// topic-2 to consumer3 in the round consumer2 still owns it, which
// spec.CheckRound reports as CooperativeHandoff.
func TestCooperativeDropStaleClaims(t *testing.T) {
	g := Group{
		Topics: spec.Topics{"topic": 3},
		Members: []Member{
			mem(t, "consumer1", 2, "topic", "{topic-0}"),
			mem(t, "consumer2", 1, "topic", "{topic-1 topic-2}"),
			mem(t, "consumer3", spec.NoGeneration, "topic", "{}"),
		},
	}
	good := mustAssign(t, CooperativeSticky(), g)
	assertAssignment(t, good, parseAssignment(t, map[string]string{"consumer1": "{topic-0}", "consumer2": "{topic-1}", "consumer3": "{}"}))
	if vs := spec.CheckRound(RoundOf(g, good, true)); len(vs) > 0 {
		t.Errorf("correct assignor flagged: %v", vs)
	}

	bad := mustAssign(t, CooperativeStickyWith(CooperativeOptions{DropStaleClaims: true}), g)
	assertAssignment(t, bad, parseAssignment(t, map[string]string{"consumer1": "{topic-0}", "consumer2": "{topic-1}", "consumer3": "{topic-2}"}))
	vs := spec.CheckRound(RoundOf(g, bad, true))
	if len(vs) != 1 || vs[0].Law != spec.CooperativeHandoff || vs[0].Resource != spec.TP("topic", 2) {
		t.Fatalf("DropStaleClaims not detected as one CooperativeHandoff on topic-2: %v", vs)
	}

	// With every claimant at one generation the fault changes nothing.
	g.Members[1].Generation = 2
	if same := mustAssign(t, CooperativeStickyWith(CooperativeOptions{DropStaleClaims: true}), g); !same.Equal(mustAssign(t, CooperativeSticky(), g)) {
		t.Errorf("DropStaleClaims with one generation: %s, want the correct %s", same, mustAssign(t, CooperativeSticky(), g))
	}
}

// TestCooperativeStaleClaimantWaits: consumer1 claims both partitions at a
// stale generation, consumer2 at the current one. consumer2 wins both;
// balance gives topic-1 to consumer1, but consumer2 still holds it, so it is
// withheld for a round even though consumer1 claims it.
func TestCooperativeStaleClaimantWaits(t *testing.T) {
	g := Group{
		Topics: spec.Topics{"topic": 2},
		Members: []Member{
			mem(t, "consumer1", 1, "topic", "{topic-0 topic-1}"),
			mem(t, "consumer2", 2, "topic", "{topic-0 topic-1}"),
		},
	}
	assertAssignment(t, mustAssign(t, Sticky(), g), parseAssignment(t, map[string]string{"consumer1": "{topic-1}", "consumer2": "{topic-0}"}))
	assertAssignment(t, mustAssign(t, CooperativeSticky(), g), parseAssignment(t, map[string]string{"consumer1": "{}", "consumer2": "{topic-0}"}))
	rounds, _, final := converge(t, CooperativeSticky(), g)
	if rounds != 2 {
		t.Errorf("%d rounds, want 2", rounds)
	}
	assertAssignment(t, final, parseAssignment(t, map[string]string{"consumer1": "{topic-1}", "consumer2": "{topic-0}"}))
}

// TestCooperativeConvergesOnKafkaExamples iterates every sticky example to
// convergence, as CooperativeStickyAssignorTest.verifyValidityAndBalance
// does, and checks the bound and the final state.
func TestCooperativeConvergesOnKafkaExamples(t *testing.T) {
	for _, ex := range stickyExamples() {
		t.Run(ex.name, func(t *testing.T) {
			g := Group{Topics: ex.topics, Members: ex.members(t)}
			rounds, last, final := converge(t, CooperativeSticky(), g)
			if rounds > 2 {
				t.Errorf("%d rounds, want at most 2", rounds)
			}
			v := ViewOf(last, final)
			if vs := append(spec.CheckCoverage(v), spec.CheckBalance(v)...); len(vs) > 0 {
				t.Errorf("final assignment breaks %v", vs)
			}
			// The final assignment is what sticky would have given in the
			// first round, up to ties.
			s := mustAssign(t, Sticky(), g)
			if sumSquares(g, s) != sumSquares(last, final) {
				t.Errorf("final loads differ from sticky's: %s vs %s", final, s)
			}
		})
	}
}
