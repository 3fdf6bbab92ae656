package assign

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// The Components benchmarks measure the sticky assignors on heterogeneous
// groups, the case sticky_components.go splits:
//
//	go test ./model/assign/ -run XXX -bench 'Components' -benchtime 3x -count 3
//
// The grid's heterogeneous cells (bench_test.go: 5 buckets of disjoint
// subscriptions) split into homogeneous components; BenchmarkSticky and
// BenchmarkCooperativeStickyGrid time them.
// BenchmarkStickyComponentsOverlapping is a heterogeneous group that does
// not split (every member subscribes to a seeded random subset of the
// topics, and the subsets overlap into one component), so it runs the
// min-cost flow on the whole group (about 10 ms per assignment; the
// unit-by-unit flow it replaced took about 0.7 s).

// benchComponentsAssignors are the two sticky assignors.
var benchComponentsAssignors = []Assignor{Sticky(), CooperativeSticky()}

// benchComponents runs as on g (full), and on the incremental group built
// from as's own result on g.
func benchComponents(b *testing.B, name string, g Group) {
	for _, as := range benchComponentsAssignors {
		for _, incremental := range []bool{false, true} {
			mode := "full"
			if incremental {
				mode = "incremental"
			}
			b.Run(fmt.Sprintf("%s/assignor=%s/mode=%s", name, as.Name(), mode), func(b *testing.B) {
				benchAssign(b, as, g, incremental)
			})
		}
	}
}

// overlappingShape is a heterogeneous group in the spirit of Kafka's
// AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithNonEqualSubscription:
// members subscribe to overlapping subsets of the topics, so the group is one
// component that mixes subscriptions.
type overlappingShape struct {
	members, topics, partitions, perMember int
	seed                                   uint64
}

func (s overlappingShape) String() string {
	return fmt.Sprintf("overlapping/members=%d/partitions=%d/topics=%d/subscription=%d",
		s.members, s.topics*s.partitions, s.topics, s.perMember)
}

// group builds the FULL group: member i subscribes to perMember topics drawn
// from a generator seeded with s.seed, nobody owns anything.
func (s overlappingShape) group() Group {
	rng := rand.New(rand.NewPCG(s.seed, 0x5eed))
	universe, names := spec.NumberedTopics("topic-%04d", s.topics, int32(s.partitions))
	g := Group{Topics: universe, Members: make([]Member, s.members)}
	for i := range g.Members {
		perm := rng.Perm(s.topics)[:s.perMember]
		subs := make([]string, len(perm))
		for k, t := range perm {
			subs[k] = names[t]
		}
		slices.Sort(subs)
		g.Members[i] = Member{ID: benchMemberID(i), Topics: subs, Generation: spec.NoGeneration}
	}
	return g
}

// benchOverlapping is the overlapping group of the benchmark.
var benchOverlapping = overlappingShape{members: 800, topics: 80, partitions: 40, perMember: 10, seed: 7}

// BenchmarkStickyComponentsOverlapping is a heterogeneous group that is one
// component (benchOverlapping), full and incremental: the flow's real cost.
func BenchmarkStickyComponentsOverlapping(b *testing.B) {
	g := benchOverlapping.group()
	if s := splitComponents(resolveClaims(g, claimFaults{})); s.worthSplitting() || len(s.comps) != 1 {
		b.Fatalf("%s splits into %d components", benchOverlapping, len(s.comps))
	}
	benchComponents(b, benchOverlapping.String(), g)
}
