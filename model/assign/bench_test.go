package assign

import (
	"fmt"
	"os"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// The assignor benchmarks follow Kafka's JMH grid
// (jmh-benchmarks/.../assignor/ClientSideAssignorBenchmark.java and
// ServerSideAssignorBenchmark.java): members × partitions per member ×
// topics, homogeneous or heterogeneous subscriptions, a full assignment
// (nobody owns anything) or an incremental one (one member joins a group
// that owns a balanced assignment), without racks or with three. The rack
// dimension runs only for the rack-aware assignors (client-side Range,
// Sticky and CooperativeSticky, KIP-881); the others ignore Member.Rack, as
// Kafka's do, so their cells with racks would time the same code.
//
// A plain `go test -bench .` runs a small representative subset. The whole
// grid runs with REBALANCE_BENCH_GRID=full in the environment:
//
//	REBALANCE_BENCH_GRID=full go test ./model/assign/ -run XXX -bench . -benchtime 3x
//
// Sub-benchmarks are named
// members=M/partitions=P/topics=T/subs=homogeneous|heterogeneous[/racks=3]/mode=full|incremental,
// with P the total number of partitions.

// benchGridEnv is the environment variable that selects the full grid.
const benchGridEnv = "REBALANCE_BENCH_GRID"

// fullGrid reports whether the full grid was asked for.
func fullGrid() bool { return os.Getenv(benchGridEnv) == "full" }

// benchShape is one cell of the grid.
type benchShape struct {
	members, perMember, topics int
	hetero, incremental        bool
	// racks puts the members on benchRacks racks and gives each partition
	// replicas on two of them (see group).
	racks bool
}

// benchRacks is the number of racks of a cell with racks, as in Kafka's
// benchmarks.
const benchRacks = 3

// partitionsPerTopic is Kafka's members×ratio/topics, at least one.
func (s benchShape) partitionsPerTopic() int {
	return max(1, s.members*s.perMember/s.topics)
}

// buckets is the number of subscription buckets of a heterogeneous group:
// members and topics are split into up to 5 buckets (Kafka's benchmarks use
// the same bound), member i in bucket i mod B, topic t in bucket t mod B.
func (s benchShape) buckets() int {
	if !s.hetero {
		return 1
	}
	return min(5, s.members, s.topics)
}

func (s benchShape) String() string {
	subs, mode := "homogeneous", "full"
	if s.hetero {
		subs = "heterogeneous"
	}
	if s.incremental {
		mode = "incremental"
	}
	racks := ""
	if s.racks {
		racks = fmt.Sprintf("/racks=%d", benchRacks)
	}
	return fmt.Sprintf("members=%d/partitions=%d/topics=%d/subs=%s%s/mode=%s",
		s.members, s.partitionsPerTopic()*s.topics, s.topics, subs, racks, mode)
}

// benchMemberID names member i so that IDs sort by i.
func benchMemberID(i int) spec.MemberID { return spec.MemberID(fmt.Sprintf("member-%06d", i)) }

// group builds the FULL group of the shape: s.members members, nobody
// owning anything, at no generation. Members of one bucket share one
// subscription slice, as Kafka's benchmarks share one topic set.
//
// With racks, member i is on rack i mod 3, as in Kafka's benchmarks, and
// partition p of every topic has replicas on racks p mod 3 and p+1 mod 3.
// Kafka's benchmarks give every partition three replicas, one per rack: then
// every partition is on every member's rack, KIP-881 turns rack-aware
// assignment off, and the cell would time only that decision. With two
// replicas a third of the members are off-rack for each partition, so the
// rack-aware path does real work.
func (s benchShape) group() Group {
	g := Group{Topics: spec.Topics{}}
	if s.racks {
		g.ReplicaRacks = map[string][][]string{}
	}
	b := s.buckets()
	subs := make([][]string, b)
	for t := range s.topics {
		name := fmt.Sprintf("topic-%04d", t)
		g.Topics[name] = int32(s.partitionsPerTopic())
		subs[t%b] = append(subs[t%b], name)
		if s.racks {
			g.ReplicaRacks[name] = benchReplicaRacks(s.partitionsPerTopic())
		}
	}
	g.Members = make([]Member, s.members)
	for i := range g.Members {
		g.Members[i] = Member{ID: benchMemberID(i), Topics: subs[i%b], Generation: spec.NoGeneration}
		if s.racks {
			g.Members[i].Rack = benchRack(i)
		}
	}
	return g
}

// benchRack names rack i mod benchRacks.
func benchRack(i int) string { return fmt.Sprintf("rack-%d", i%benchRacks) }

// benchReplicaRacks gives partition p of a topic with n partitions replicas
// on racks p and p+1 (mod benchRacks). Topics share the pattern.
func benchReplicaRacks(n int) [][]string {
	out := make([][]string, n)
	for p := range out {
		out[p] = []string{benchRack(p), benchRack(p + 1)}
	}
	return out
}

// incremental turns the full group g into the incremental one: every member
// owns what prev assigned it, at generation 1, and one new member (sorting
// last, subscribed as member 0, on the next rack when g has racks) joins
// owning nothing.
func incrementalGroup(g Group, prev spec.Assignment) Group {
	out := Group{Topics: g.Topics, Members: make([]Member, 0, len(g.Members)+1)}
	for _, m := range g.Members {
		m.Owned, m.Generation = prev[m.ID], 1
		out.Members = append(out.Members, m)
	}
	joiner := Member{ID: benchMemberID(len(g.Members)), Topics: g.Members[0].Topics, Generation: spec.NoGeneration}
	if g.ReplicaRacks != nil {
		joiner.Rack = benchRack(len(g.Members))
	}
	out.Members = append(out.Members, joiner)
	out.ReplicaRacks = g.ReplicaRacks
	return out
}

// rackCells says which cells of the grid a benchmark runs.
type rackCells int

const (
	noRackCells   rackCells = iota // only cells without racks
	allRackCells                   // every cell without racks and with
	rackCellsOnly                  // only cells with racks
)

// benchGrid returns the cells to run: the whole grid under
// REBALANCE_BENCH_GRID=full, otherwise a small representative subset; racks
// says which of the rack cells.
func benchGrid(racks rackCells) []benchShape {
	var sizes [][3]int
	if fullGrid() {
		for _, m := range []int{100, 500, 1000, 5000, 10000} {
			for _, p := range []int{5, 10, 50} {
				for _, t := range []int{10, 100, 1000} {
					sizes = append(sizes, [3]int{m, p, t})
				}
			}
		}
	} else {
		sizes = [][3]int{{100, 10, 10}, {1000, 10, 100}}
	}
	var out []benchShape
	seen := map[string]bool{}
	rackValues := map[rackCells][]bool{noRackCells: {false}, allRackCells: {false, true}, rackCellsOnly: {true}}[racks]
	for _, sz := range sizes {
		for _, hetero := range []bool{false, true} {
			for _, racks := range rackValues {
				for _, inc := range []bool{false, true} {
					s := benchShape{members: sz[0], perMember: sz[1], topics: sz[2], hetero: hetero, incremental: inc, racks: racks}
					// With fewer partitions than topics every topic gets one
					// partition, and cells of different ratios coincide.
					if !seen[s.String()] {
						seen[s.String()] = true
						out = append(out, s)
					}
				}
			}
		}
	}
	return out
}

// benchAssignor runs the grid's cells racks for one assignor.
func benchAssignor(b *testing.B, as Assignor, racks rackCells) {
	for _, s := range benchGrid(racks) {
		b.Run(s.String(), func(b *testing.B) { benchAssign(b, as, s.group(), s.incremental) })
	}
}

// benchAssign times as on the FULL group g or, with incremental, on the
// incremental group built from as's own result on g.
func benchAssign(b *testing.B, as Assignor, g Group, incremental bool) {
	if incremental {
		prev, err := as.Assign(g)
		if err != nil {
			b.Fatal(err)
		}
		g = incrementalGroup(g, prev)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := as.Assign(g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRange is the client-side range assignor over the grid.
func BenchmarkRange(b *testing.B) { benchAssignor(b, Range(), allRackCells) }

// BenchmarkRoundRobin is the round-robin assignor over the grid.
func BenchmarkRoundRobin(b *testing.B) { benchAssignor(b, RoundRobin(), noRackCells) }

// BenchmarkSticky is the eager sticky assignor over the grid.
func BenchmarkSticky(b *testing.B) { benchAssignor(b, Sticky(), allRackCells) }

// BenchmarkCooperativeStickyGrid is the cooperative sticky assignor over the
// grid; BenchmarkCooperativeSticky holds the pairs with franz-go.
func BenchmarkCooperativeStickyGrid(b *testing.B) {
	benchAssignor(b, CooperativeSticky(), allRackCells)
}

// BenchmarkUniform is the server-side uniform assignor over the grid (its
// homogeneous builder for subs=homogeneous, the heterogeneous one
// otherwise).
func BenchmarkUniform(b *testing.B) { benchAssignor(b, Uniform(), noRackCells) }

// BenchmarkUniformRackAware is the uniform assignor with
// UniformOptions.RackAware over the grid's cells with racks (its cells
// without racks are BenchmarkUniform's).
func BenchmarkUniformRackAware(b *testing.B) {
	benchAssignor(b, UniformWith(UniformOptions{RackAware: true}), rackCellsOnly)
}

// BenchmarkServerRange is the server-side range assignor over the grid.
func BenchmarkServerRange(b *testing.B) { benchAssignor(b, ServerRange(), noRackCells) }

// BenchmarkConnectLeastLoaded is Connect's least-loaded round-robin over the
// grid, each topic standing for a connector and its partitions for the
// connector's tasks; a heterogeneous cell lets a member run only the
// connectors and tasks of its bucket. Full: LeastLoaded of everything over
// empty members. Incremental: a worker joins a balanced group, and the
// leader computes the load-balancing revocations (ConnectRevocations) and
// hands the revoked resources out again with LeastLoaded.
func BenchmarkConnectLeastLoaded(b *testing.B) {
	for _, s := range benchGrid(noRackCells) {
		b.Run(s.String(), func(b *testing.B) {
			g := s.group()
			bucket := map[spec.MemberID]int{}
			topicBucket := map[string]int{}
			for i, m := range g.Members {
				bucket[m.ID] = i % s.buckets()
			}
			for i, t := range g.Topics.Names() {
				topicBucket[t] = i % s.buckets()
			}
			var eligible func(spec.MemberID, spec.Resource) bool
			if s.hetero {
				eligible = func(m spec.MemberID, r spec.Resource) bool { return bucket[m] == topicBucket[r.Topic] }
			}
			if s.hetero && float64(s.partitionsPerTopic()*s.topics)*float64(s.members) > 2e6 {
				b.Skip("heterogeneous LeastLoaded is O(resources × members × log members) here: beyond the benchmark budget")
			}
			var configured []spec.Resource
			for _, t := range g.Topics.Names() {
				configured = append(configured, spec.Connector(t))
				configured = append(configured, g.Topics.Resources(t)...)
			}
			all := spec.NewSet(configured...)
			current := emptyAssignment(g)
			if !s.incremental {
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					LeastLoaded(current, eligible, all)
				}
				return
			}
			current = LeastLoaded(current, eligible, all)
			joiner := benchMemberID(s.members)
			current[joiner] = nil
			bucket[joiner] = 0
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				revoked := ConnectRevocations(current, all)
				kept := make(spec.Assignment, len(current))
				var freed []spec.Resource
				for m, set := range current {
					kept[m] = set.Minus(revoked[m])
					freed = append(freed, revoked[m]...)
				}
				LeastLoaded(kept, eligible, spec.NewSet(freed...))
			}
		})
	}
}

// BenchmarkOracle runs the implementations from before issue 6's
// performance work (oracle_test.go) on the inputs of the targets, for the
// before/after table of docs/performance.md: the uniform homogeneous
// builder at 10,000 members × 50 partitions each, and the cooperative
// sticky assignor on the franz-go pairs' groups.
func BenchmarkOracle(b *testing.B) {
	b.Run("uniform/members=10000/partitions=500000/topics=100/subs=homogeneous/mode=full", func(b *testing.B) {
		g := srvBenchGroup(10_000, 50, 100)
		b.ReportAllocs()
		clock := startThreadClock()
		for b.Loop() {
			if _, err := oldUniform(g, UniformOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		clock.report(b)
	})
	for _, s := range coopShapes() {
		b.Run("cooperative-sticky/"+s.String(), func(b *testing.B) {
			g := s.group()
			if s.incremental {
				prev, err := oldSticky(g)
				if err != nil {
					b.Fatal(err)
				}
				g = incrementalGroup(g, prev)
			}
			b.ReportAllocs()
			b.ResetTimer()
			clock := startThreadClock()
			for b.Loop() {
				if _, err := oldCooperative(g, CooperativeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			clock.report(b)
		})
	}
}
