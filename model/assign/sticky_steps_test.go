package assign

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// stickyStep is one rebalance of a multi-step scenario of Kafka's
// AbstractStickyAssignorTest (clients/src/test/.../internals/
// AbstractStickyAssignorTest.java, Kafka 3.8 and later). Every member
// subscribes to all of the scenario's topics. In the first step members own
// nothing and have no generation (Kafka's subscription(topics, i)); in
// later ones each member present before owns what the previous step
// finally gave it, at generation 1, and a new member owns nothing at
// generation 1 (buildSubscriptionV2Above(topics, owned, generationId, i)).
type stickyStep struct {
	what    string
	members []string
	// want is the assignment Kafka asserts, member → set; nil when Kafka
	// only checks counts.
	want map[string]string
	// perTopic, when not 0, is how many partitions of each topic every
	// member gets (Kafka's per-topic count assertions).
	perTopic int
	// moving, when not nil, is Kafka's partitionsTransferringOwnership:
	// the partitions the sticky result moves away from a member that owns
	// them, which cooperative-sticky withholds for a round.
	moving []string
}

type stickyScenario struct {
	name   string
	topics spec.Topics
	steps  []stickyStep
}

func stickyScenarios() []stickyScenario {
	return []stickyScenario{
		{
			// AbstractStickyAssignorTest.testAddRemoveConsumerOneTopic.
			name:   "testAddRemoveConsumerOneTopic",
			topics: spec.Topics{"topic": 3},
			steps: []stickyStep{
				{what: "one consumer", members: []string{"consumer1"},
					want:   map[string]string{"consumer1": "{topic-0 topic-1 topic-2}"},
					moving: []string{}},
				{what: "consumer2 joins", members: []string{"consumer1", "consumer2"},
					want:   map[string]string{"consumer1": "{topic-0 topic-1}", "consumer2": "{topic-2}"},
					moving: []string{"topic-2"}},
				{what: "consumer1 leaves", members: []string{"consumer2"},
					want:   map[string]string{"consumer2": "{topic-0 topic-1 topic-2}"},
					moving: []string{}},
			},
		},
		{
			// AbstractStickyAssignorTest.testAddRemoveTwoConsumersTwoTopics.
			// In the second step each of consumer1 and consumer2 keeps its
			// first two owned partitions by partition number, then topic
			// (topic1-0, topic2-1 and topic2-0, topic1-1; before KAFKA-16277
			// consumer1 kept topic1-0 and topic1-2). In the third, the
			// round-robin fill gives consumer3 (two owned, below minQuota 3)
			// topic1-0 and then, at minQuota with the one maxQuota slot,
			// topic2-1; a least-loaded fill would give consumer4 topic1-0
			// and consumer3 topic1-1.
			name:   "testAddRemoveTwoConsumersTwoTopics",
			topics: spec.Topics{"topic1": 3, "topic2": 4},
			steps: []stickyStep{
				{what: "two consumers", members: []string{"consumer1", "consumer2"},
					want: map[string]string{
						"consumer1": "{topic1-0 topic1-2 topic2-1 topic2-3}",
						"consumer2": "{topic1-1 topic2-0 topic2-2}",
					},
					moving: []string{}},
				{what: "two more join", members: []string{"consumer1", "consumer2", "consumer3", "consumer4"},
					want: map[string]string{
						"consumer1": "{topic1-0 topic2-1}",
						"consumer2": "{topic1-1 topic2-0}",
						"consumer3": "{topic1-2 topic2-3}",
						"consumer4": "{topic2-2}",
					},
					moving: []string{"topic1-2", "topic2-2", "topic2-3"}},
				{what: "the first two leave", members: []string{"consumer3", "consumer4"},
					want: map[string]string{
						"consumer3": "{topic1-0 topic1-2 topic2-1 topic2-3}",
						"consumer4": "{topic1-1 topic2-0 topic2-2}",
					},
					moving: []string{}},
			},
		},
		{
			// AbstractStickyAssignorTest.testTopicBalanceAfterReassignment
			// (KAFKA-16277): two topics of 12 partitions; after every step
			// each member holds as many partitions of one topic as of the
			// other. Kafka asserts only the counts; the exact assignment of
			// the second step follows from its rule (consumer1 keeps its
			// first 12 owned partitions by partition number, then topic)
			// and is stated too. Kafka's order before 3.8 kept all of
			// topic1 there, 12 and 0 of each topic.
			name:   "testTopicBalanceAfterReassignment",
			topics: spec.Topics{"topic1": 12, "topic2": 12},
			steps: []stickyStep{
				{what: "one consumer", members: []string{"consumer1"}, perTopic: 12, moving: []string{}},
				{what: "consumer2 joins", members: []string{"consumer1", "consumer2"}, perTopic: 6,
					want: map[string]string{
						"consumer1": "{topic1-0 topic1-1 topic1-2 topic1-3 topic1-4 topic1-5 topic2-0 topic2-1 topic2-2 topic2-3 topic2-4 topic2-5}",
						"consumer2": "{topic1-6 topic1-7 topic1-8 topic1-9 topic1-10 topic1-11 topic2-6 topic2-7 topic2-8 topic2-9 topic2-10 topic2-11}",
					}},
				{what: "two more join", members: []string{"consumer1", "consumer2", "consumer3", "consumer4"}, perTopic: 3},
				{what: "the first two leave", members: []string{"consumer3", "consumer4"}, perTopic: 6, moving: []string{}},
			},
		},
	}
}

// stepGroup builds the group of step k of sc, given what the previous step
// finally assigned (nil for the first step).
func stepGroup(t *testing.T, sc stickyScenario, k int, prev spec.Assignment) Group {
	t.Helper()
	topics := strings.Join(sc.topics.Names(), " ")
	g := Group{Topics: sc.topics}
	for _, id := range sc.steps[k].members {
		m := mem(t, id, 1, topics, "{}")
		if k == 0 {
			m.Generation = spec.NoGeneration
		}
		m.Owned = prev[m.ID]
		g.Members = append(g.Members, m)
	}
	return g
}

// TestStickyKafkaScenarios replays Kafka's multi-step sticky scenarios with
// both sticky assignors. Each step checks the sticky result against Kafka's
// assertions (exact sets and per-topic counts), coverage and balance; the
// cooperative-sticky first round against the sticky result minus Kafka's
// partitionsTransferringOwnership, and its follow-up (the first round fed
// back, as CooperativeStickyAssignorTest.verifyValidityAndBalance does)
// against the sticky result. The next step starts from that result.
func TestStickyKafkaScenarios(t *testing.T) {
	for _, sc := range stickyScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			var prev spec.Assignment
			for k, step := range sc.steps {
				g := stepGroup(t, sc, k, prev)
				what := fmt.Sprintf("step %d (%s)", k+1, step.what)
				s := mustAssign(t, Sticky(), g)
				if step.want != nil {
					if want := parseAssignment(t, step.want); !s.Equal(want) {
						t.Fatalf("%s: sticky gives %s, Kafka asserts %s", what, s, want)
					}
				}
				v := ViewOf(g, s)
				if vs := append(spec.CheckCoverage(v), spec.CheckBalance(v)...); len(vs) > 0 {
					t.Fatalf("%s: sticky result breaks %v", what, vs)
				}
				if step.perTopic > 0 {
					for _, m := range g.Members {
						for _, topic := range sc.topics.Names() {
							n := s[m.ID].Filter(func(r spec.Resource) bool { return r.Topic == topic }).Len()
							if n != step.perTopic {
								t.Fatalf("%s: %s holds %d partitions of %s, Kafka asserts %d: %s", what, m.ID, n, topic, step.perTopic, s)
							}
						}
					}
				}
				var moved []string
				for _, m := range g.Members {
					for _, r := range s[m.ID] {
						if owned(g, r) && !m.Owned.Contains(r) {
							moved = append(moved, r.String())
						}
					}
				}
				slices.Sort(moved)
				if step.moving != nil && !slices.Equal(moved, step.moving) {
					t.Fatalf("%s: sticky moves %v, Kafka's partitionsTransferringOwnership is %v", what, moved, step.moving)
				}

				c := mustAssign(t, CooperativeSticky(), g)
				for _, m := range g.Members {
					want := s[m.ID].Filter(func(r spec.Resource) bool { return !slices.Contains(moved, r.String()) })
					if !c[m.ID].Equal(want) {
						t.Fatalf("%s: cooperative-sticky gives %s %s, want the sticky result without the moving partitions, %s", what, m.ID, c[m.ID], want)
					}
				}
				if vs := spec.CheckRound(RoundOf(g, c, true)); len(vs) > 0 {
					t.Fatalf("%s: cooperative round breaks %v", what, vs)
				}
				follow := nextRound(g, c, 1)
				if f := mustAssign(t, CooperativeSticky(), follow); !f.Equal(s) {
					t.Fatalf("%s: cooperative-sticky's follow-up gives %s, want the sticky result %s", what, f, s)
				}
				prev = s
			}
		})
	}
}

// owned reports whether some member of g owns r.
func owned(g Group, r spec.Resource) bool {
	for _, m := range g.Members {
		if m.Owned.Contains(r) {
			return true
		}
	}
	return false
}
