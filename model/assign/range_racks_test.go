package assign

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// kafkaRacks is Kafka's AbstractPartitionAssignorTest.ALL_RACKS prefix.
var kafkaRacks = []string{"a", "b", "c", "d", "e", "f", "g"}

// rackTopic is one topic of a rack example: name and partitions, in the
// order Kafka's test lays out replicas.
type rackTopic struct {
	name string
	n    int32
}

// kafkaRackGroup builds the group of Kafka's verifyRackAssignment: brokers
// i = 0.. on brokerRacks[i] ("" for none), partition p of the k-th topic
// replicated on brokers (p + j + offset) mod len(brokerRacks) for j <
// replication, where offset counts the partitions of the earlier topics;
// consumers "consumer<i>" with racks consumerRacks[i] ("" for none) and
// subscriptions subs[i].
func kafkaRackGroup(topics []rackTopic, replication int, brokerRacks, consumerRacks []string, subs [][]string) Group {
	g := Group{Topics: spec.Topics{}, ReplicaRacks: map[string][][]string{}}
	offset := 0
	for _, t := range topics {
		g.Topics[t.name] = t.n
		parts := make([][]string, t.n)
		for p := range int(t.n) {
			for j := range replication {
				if r := brokerRacks[(p+j+offset)%len(brokerRacks)]; r != "" {
					parts[p] = append(parts[p], r)
				}
			}
		}
		g.ReplicaRacks[t.name] = parts
		offset += int(t.n)
	}
	for i, r := range consumerRacks {
		topics := slices.Clone(subs[i])
		slices.Sort(topics)
		g.Members = append(g.Members, Member{ID: spec.MemberID(fmt.Sprintf("consumer%d", i)), Topics: topics, Rack: r})
	}
	return g
}

// rackMismatches counts the partitions given to a member with a rack that
// has no replica on that rack (Kafka's numPartitionsWithRackMismatch).
func rackMismatches(g Group, a spec.Assignment) int {
	n := 0
	for _, m := range g.Members {
		if m.Rack == "" {
			continue
		}
		for _, r := range a[m.ID] {
			if !slices.Contains(g.ReplicaRacks[r.Topic][r.Partition], m.Rack) {
				n++
			}
		}
	}
	return n
}

func racksN(n int) []string { return kafkaRacks[:n] }

func noRacks(n int) []string { return make([]string, n) }

// TestRangeRackAwareKafkaExamples: Kafka's RangeAssignorTest rack-aware
// cases (without the test-only preferRackAwareLogic switch), with their
// expected assignments and numbers of rack mismatches (-1: not checked).
func TestRangeRackAwareKafkaExamples(t *testing.T) {
	uneven := []rackTopic{{"t1", 6}, {"t2", 7}, {"t3", 2}}
	five := []rackTopic{{"t1", 5}, {"t2", 5}, {"t3", 5}}
	all3 := []string{"t1", "t2", "t3"}
	same3 := [][]string{all3, all3, all3}
	notT2 := [][]string{all3, all3, {"t1", "t3"}}
	coTopics := []rackTopic{{"t1", 6}, {"t2", 6}, {"t3", 2}, {"t4", 2}}
	pairs := [][]string{{"t1", "t2"}, {"t1", "t2"}, {"t3", "t4"}, {"t3", "t4"}}
	all4 := []string{"t1", "t2", "t3", "t4"}
	same4 := [][]string{all4, all4, all4, all4}
	coRacks := []string{"a", "b", "b", "a"}

	type example struct {
		name          string
		topics        []rackTopic
		replication   int
		brokers       []string
		consumers     []string
		subs          [][]string
		want          []string
		mismatches    int
		nonRackResult bool // the result must equal Range without racks
	}
	var tests []example
	nonRack := func(name string, topics []rackTopic, subs [][]string, want []string) {
		for k, c := range []struct {
			replication        int
			brokers, consumers []string
			mismatches         int
		}{
			{3, noRacks(3), racksN(3), -1},
			{3, racksN(3), noRacks(3), -1},
			{3, racksN(3), racksN(3), 0},
			{4, racksN(4), racksN(3), 0},
			{3, racksN(3), []string{"d", "e", "f"}, -1},
			{3, racksN(3), []string{"", "e", "f"}, -1},
		} {
			tests = append(tests, example{fmt.Sprintf("%s/non-rack-%d", name, k), topics, c.replication, c.brokers, c.consumers, subs, want, c.mismatches, true})
		}
	}
	nonRack("uniform subscription", uneven, same3, []string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"})
	tests = append(tests,
		example{"uniform subscription/rf1", uneven, 1, racksN(3), racksN(3), same3,
			[]string{"t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0", "t1-2, t1-5, t2-2, t2-5, t3-1"}, 0, false},
		example{"uniform subscription/rf2", uneven, 2, racksN(3), racksN(3), same3,
			[]string{"t1-0, t1-2, t2-0, t2-2, t2-3, t3-1", "t1-1, t1-3, t2-1, t2-4, t3-0", "t1-4, t1-5, t2-5, t2-6"}, 1, false},
		example{"uniform subscription/rack without partitions", uneven, 3, racksN(2), racksN(3), same3,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"}, 4, true},
	)
	nonRack("non-equal subscription", uneven, notT2, []string{"t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0", "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1", "t1-4, t1-5"})
	tests = append(tests,
		example{"non-equal subscription/rf1", uneven, 1, racksN(3), racksN(3), notT2,
			[]string{"t1-0, t1-3, t2-0, t2-2, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t2-5, t3-0", "t1-2, t1-5, t3-1"}, 2, false},
		example{"non-equal subscription/rf2", uneven, 2, racksN(3), racksN(3), notT2,
			[]string{"t1-0, t1-2, t2-0, t2-2, t2-3, t2-5, t3-1", "t1-1, t1-3, t2-1, t2-4, t2-6, t3-0", "t1-4, t1-5"}, 0, false},
		example{"non-equal subscription/rack without partitions", uneven, 3, racksN(2), racksN(3), notT2,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0", "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1", "t1-4, t1-5"}, 2, true},
	)
	fiveNonRack := []string{"t1-0, t1-1, t2-0, t2-1, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t2-4, t3-4"}
	nonRack("uniform partitions", five, same3, fiveNonRack)
	tests = append(tests,
		example{"uniform partitions/rf1", five, 1, racksN(3), racksN(3), same3, fiveNonRack, 10, true},
		example{"uniform partitions/rf2", five, 2, racksN(3), racksN(3), same3, fiveNonRack, 5, true},
		example{"uniform partitions/rf3 on two racks", five, 3, racksN(2), racksN(3), same3, fiveNonRack, 3, true},
	)
	nonRack("uniform partitions, non-equal subscription", five, notT2, []string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1", "t1-2, t1-3, t2-3, t2-4, t3-2, t3-3", "t1-4, t3-4"})
	tests = append(tests,
		example{"uniform partitions, non-equal subscription/rf1", five, 1, racksN(3), racksN(3), notT2,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-4, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t3-4"}, 9, false},
		example{"uniform partitions, non-equal subscription/rf2", five, 2, racksN(3), racksN(3), notT2,
			[]string{"t1-2, t2-0, t2-1, t2-3, t3-2", "t1-0, t1-3, t2-2, t2-4, t3-0, t3-3", "t1-1, t1-4, t3-1, t3-4"}, 0, false},
		example{"uniform partitions, non-equal subscription/rack without partitions", five, 3, racksN(2), racksN(3), notT2,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1", "t1-2, t1-3, t2-3, t2-4, t3-2, t3-3", "t1-4, t3-4"}, 2, true},
	)
	pairsNonRack := []string{"t1-0, t1-1, t1-2, t2-0, t2-1, t2-2", "t1-3, t1-4, t1-5, t2-3, t2-4, t2-5", "t3-0, t4-0", "t3-1, t4-1"}
	same4NonRack := []string{"t1-0, t1-1, t2-0, t2-1, t3-0, t4-0", "t1-2, t1-3, t2-2, t2-3, t3-1, t4-1", "t1-4, t2-4", "t1-5, t2-5"}
	tests = append(tests,
		example{"co-partitioning/pairs rf3", coTopics, 3, racksN(2), coRacks, pairs, pairsNonRack, -1, true},
		example{"co-partitioning/pairs rf2", coTopics, 2, racksN(2), coRacks, pairs, pairsNonRack, 0, true},
		example{"co-partitioning/pairs rf1", coTopics, 1, racksN(2), coRacks, pairs,
			[]string{"t1-0, t1-2, t1-4, t2-0, t2-2, t2-4", "t1-1, t1-3, t1-5, t2-1, t2-3, t2-5", "t3-1, t4-1", "t3-0, t4-0"}, 0, false},
		example{"co-partitioning/all rf3", coTopics, 3, racksN(2), coRacks, same4, same4NonRack, -1, true},
		example{"co-partitioning/all rf2", coTopics, 2, racksN(2), coRacks, same4, same4NonRack, 0, true},
		example{"co-partitioning/all rf1", coTopics, 1, racksN(2), coRacks, same4,
			[]string{"t1-0, t1-2, t2-0, t2-2, t3-0, t4-0", "t1-1, t1-3, t2-1, t2-3, t3-1, t4-1", "t1-5, t2-5", "t1-4, t2-4"}, 0, false},
		example{"co-partitioning/all rf1 on three racks", coTopics, 1, racksN(3), coRacks, same4,
			[]string{"t1-0, t1-3, t2-0, t2-3, t3-0, t4-0", "t1-1, t1-4, t2-1, t2-4, t3-1, t4-1", "t1-2, t2-2", "t1-5, t2-5"}, 6, false},
	)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := kafkaRackGroup(tc.topics, tc.replication, tc.brokers, tc.consumers, tc.subs)
			got := mustAssign(t, Range(), g)
			want := spec.Assignment{}
			for i, w := range tc.want {
				want[spec.MemberID(fmt.Sprintf("consumer%d", i))] = mustSet(t, "{"+strings.ReplaceAll(w, ",", "")+"}")
			}
			assertAssignment(t, got, want)
			if tc.mismatches >= 0 {
				if n := rackMismatches(g, got); n != tc.mismatches {
					t.Errorf("%d partitions with a rack mismatch, want %d", n, tc.mismatches)
				}
			}
			if tc.nonRackResult {
				plain := cloneGroup(g)
				plain.ReplicaRacks = nil
				assertAssignment(t, got, mustAssign(t, Range(), plain))
			}
		})
	}
}

// genRackGroup draws one of genGroup's groups with member racks (some
// none) and replica racks for some topics (some partitions on no known
// rack), from a few rack names so that they often match.
func genRackGroup(t *rapid.T) Group {
	g := genGroup(t, limits{maxMembers: 8, maxTopics: 4, maxPartitions: 8})
	racks := []string{"a", "b", "c"}[:rapid.IntRange(1, 3).Draw(t, "racks")]
	pick := func(label string) string {
		if rapid.IntRange(0, 4).Draw(t, label+"-none") == 0 {
			return ""
		}
		return rapid.SampledFrom(racks).Draw(t, label)
	}
	for i := range g.Members {
		g.Members[i].Rack = pick("member-rack")
	}
	g.ReplicaRacks = map[string][][]string{}
	for _, name := range g.Topics.Names() {
		if rapid.IntRange(0, 4).Draw(t, "racks-unknown") == 0 {
			continue
		}
		parts := make([][]string, g.Topics[name])
		for p := range parts {
			for range rapid.IntRange(0, 3).Draw(t, "replicas") {
				if r := pick("replica-rack"); r != "" {
					parts[p] = append(parts[p], r)
				}
			}
		}
		g.ReplicaRacks[name] = parts
	}
	if err := ValidateGroup(g); err != nil {
		t.Fatalf("generator: %v\n%s", err, groupString(g))
	}
	return g
}

// TestPropertiesRangeRacks: with racks, Range still assigns every partition
// of every subscribed topic to exactly one subscriber, gives each
// subscriber of a topic ⌊P/n⌋ or ⌊P/n⌋+1 of it (exactly P mod n the
// larger), co-partitions topics with the same partition count and
// subscribers, is deterministic and leaves its input alone. Without member
// racks, or without replica racks, or when every partition has a replica
// on every rack, the result is exactly (reflect.DeepEqual) the rackless
// one.
func TestPropertiesRangeRacks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genRackGroup(t)
		before := cloneGroup(g)
		a := mustAssign(t, Range(), g)
		if d := sameGroup(before, g); d != "" {
			t.Fatalf("input modified:\n%s", d)
		}
		if b := mustAssign(t, Range(), cloneGroup(g)); !a.Equal(b) {
			t.Fatalf("not deterministic:\n%s\n%s", a, b)
		}
		if vs := append(spec.CheckRound(RoundOf(g, a, false)), spec.CheckCoverage(ViewOf(g, a))...); len(vs) > 0 {
			t.Fatalf("%v\ngroup: %s\nassigned: %s", vs, groupString(g), a)
		}
		for _, topic := range subscribedTopics(g) {
			var counts []int
			for _, m := range g.Members {
				if inSubscription(m, topic) {
					counts = append(counts, len(a[m.ID].Filter(func(r spec.Resource) bool { return r.Topic == topic })))
				}
			}
			p, n := int(g.Topics[topic]), len(counts)
			larger := 0
			for _, c := range counts {
				switch c {
				case p / n:
				case p/n + 1:
					larger++
				default:
					t.Fatalf("topic %s: a subscriber got %d, want %d or %d\ngroup: %s\nassigned: %s", topic, c, p/n, p/n+1, groupString(g), a)
				}
			}
			if larger != p%n {
				t.Fatalf("topic %s: %d subscribers got %d, want %d\nassigned: %s", topic, larger, p/n+1, p%n, a)
			}
		}
		checkCoPartitioned(t, g, a)

		plain := cloneGroup(g)
		plain.ReplicaRacks = nil
		want := mustAssign(t, Range(), plain)
		noMemberRacks := cloneGroup(g)
		for i := range noMemberRacks.Members {
			noMemberRacks.Members[i].Rack = ""
		}
		if got := mustAssign(t, Range(), noMemberRacks); !reflect.DeepEqual(got, want) {
			t.Fatalf("without member racks: %s, want the rackless %s", got, want)
		}
		everywhere := cloneGroup(g)
		for name, parts := range everywhere.ReplicaRacks {
			for p := range parts {
				everywhere.ReplicaRacks[name][p] = []string{"a", "b", "c"}
			}
		}
		if got := mustAssign(t, Range(), everywhere); !reflect.DeepEqual(got, want) {
			t.Fatalf("replicas on every rack: %s, want the rackless %s", got, want)
		}
	})
}
