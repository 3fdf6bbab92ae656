package assign

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// The flow of assignGeneral before the primal-dual rewrite: successive
// shortest paths from the zero flow, one unit per augmentation, each found
// by a Bellman-Ford-style search (O(P·V·E)). The oracle (oldStickyTarget)
// and TestStickyFlowOracleCost use it.

// oldAssignGeneral is assignGeneral with the old unit-by-unit flow.
func oldAssignGeneral(g Group, eff [][]string, won []spec.Set, racks rackDecision) spec.Assignment {
	f := oldStickyFlow(g, eff, won)
	return f.materialize(g, racks)
}

// oldStickyFlow returns the flow network of g with the old optimal flow.
func oldStickyFlow(g Group, eff [][]string, won []spec.Set) *stickyFlow {
	f := newStickyFlow(g, eff, won)
	s := &oldFlowSearch{
		distT: make([]int64, len(f.topics)),
		distM: make([]int64, len(g.Members)),
		predT: make([]int, len(f.topics)),
		predM: make([]int, len(g.Members)),
	}
	for range f.total {
		oldAugment(f, s)
	}
	return f
}

// oldFlowSearch is the scratch space of oldAugment.
type oldFlowSearch struct {
	distT, distM []int64
	predT, predM []int
}

// oldUnreached is the distance of a node the search has not reached.
const oldUnreached = int64(1<<63 - 1)

// oldAugment finds a cheapest path source → topic → member (→ topic →
// member)* → sink in the residual graph with Bellman-Ford and pushes one
// unit along it. predT[t] is -1 when t is entered from the source, else the
// arc whose flow the path takes back; predM[i] is the arc that gives i a
// partition.
func oldAugment(f *stickyFlow, s *oldFlowSearch) {
	for t := range f.topics {
		s.distT[t], s.predT[t] = oldUnreached, -1
		if f.used[t] < f.supply[t] {
			s.distT[t] = 0
		}
	}
	for i := range s.distM {
		s.distM[i], s.predM[i] = oldUnreached, -1
	}
	nodes := len(f.topics) + len(s.distM) + 2
	for pass := 0; ; pass++ {
		if pass > nodes {
			panic("assign: sticky flow has a negative cycle")
		}
		changed := false
		for _, arcs := range f.byTopic {
			for _, a := range arcs {
				arc := &f.arcs[a]
				if d := s.distT[arc.topic]; d != oldUnreached && d+arc.fwdCost() < s.distM[arc.member] {
					s.distM[arc.member], s.predM[arc.member] = d+arc.fwdCost(), a
					changed = true
				}
			}
		}
		for _, arcs := range f.byTopic {
			for _, a := range arcs {
				arc := &f.arcs[a]
				if arc.flow == 0 {
					continue
				}
				if d := s.distM[arc.member]; d != oldUnreached && d+arc.bwdCost() < s.distT[arc.topic] {
					s.distT[arc.topic], s.predT[arc.topic] = d+arc.bwdCost(), a
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	best, bestDist := -1, oldUnreached
	for i, d := range s.distM {
		if d == oldUnreached {
			continue
		}
		if c := d + f.k*int64(2*f.load[i]+1); c < bestDist {
			best, bestDist = i, c
		}
	}
	if best < 0 {
		panic("assign: sticky flow found no member for a subscribed partition")
	}
	f.load[best]++
	i := best
	for steps := 0; ; steps++ {
		if steps > len(f.arcs) {
			panic("assign: sticky flow predecessor chain loops")
		}
		in := &f.arcs[s.predM[i]]
		in.flow++
		t := in.topic
		if s.predT[t] < 0 {
			f.used[t]++
			return
		}
		out := &f.arcs[s.predT[t]]
		out.flow--
		i = out.member
	}
}

// TestStickyFlowOracleCost: on random flow inputs, the primal-dual flow
// (solve) is a feasible flow of value P with the old unit-by-unit flow's
// cost K·Σ load² − kept, hence optimal, and the same sorted load vector.
// The inputs come from genGroup (larger limits), genBucketedGroup and
// genFlowGroup (many claims, stale generations, members with no topics,
// topics with no partitions), with claims resolved as the oracle does, and
// the flow run on the whole group, homogeneous or not.
func TestStickyFlowOracleCost(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var g Group
		switch rapid.IntRange(0, 2).Draw(t, "shape") {
		case 0:
			g = genGroup(t, limits{maxMembers: 8, maxTopics: 6, maxPartitions: 20})
		case 1:
			g = genBucketedGroup(t)
		default:
			g = genFlowGroup(t)
		}
		eff, won := oldFlowInputs(g, oldResolveClaims(g, rapid.Bool().Draw(t, "keep-same-generation")))
		f := newStickyFlow(g, eff, won)
		f.solve()
		o := oldStickyFlow(g, eff, won)
		if d := flowDiff(f, o); d != "" {
			t.Fatalf("%s\ngroup: %s\nloads %v, oracle %v", d, groupString(g), f.load, o.load)
		}
	})
}

// flowDiff checks that f is a feasible flow of value P (per topic, the
// arcs' flows add up to its partitions; per member, to its load) and that
// it has o's cost and sorted load vector: "" if so, else what differs.
func flowDiff(f, o *stickyFlow) string {
	perTopic := make([]int, len(f.topics))
	perMember := make([]int, len(f.load))
	for _, arc := range f.arcs {
		if arc.flow < 0 {
			return fmt.Sprintf("arc %d→%d has flow %d", arc.topic, arc.member, arc.flow)
		}
		perTopic[arc.topic] += arc.flow
		perMember[arc.member] += arc.flow
	}
	if !slices.Equal(perTopic, f.supply) || !slices.Equal(perTopic, f.used) {
		return fmt.Sprintf("topic flows %v, used %v, partitions %v", perTopic, f.used, f.supply)
	}
	if !slices.Equal(perMember, f.load) {
		return fmt.Sprintf("member flows %v, loads %v", perMember, f.load)
	}
	if c, oc := flowCost(f), flowCost(o); c != oc {
		return fmt.Sprintf("cost %d, oracle %d", c, oc)
	}
	l, ol := slices.Sorted(slices.Values(f.load)), slices.Sorted(slices.Values(o.load))
	if !slices.Equal(l, ol) {
		return fmt.Sprintf("sorted loads %v, oracle %v", l, ol)
	}
	return ""
}

// flowCost is the flow's cost, K·Σ load² − kept.
func flowCost(f *stickyFlow) int64 {
	var c int64
	for _, l := range f.load {
		c += f.k * int64(l) * int64(l)
	}
	for _, arc := range f.arcs {
		c -= int64(min(arc.flow, arc.claims.Len()))
	}
	return c
}

// oldFlowInputs returns the flow's inputs for the valid group g whose
// claims resolve to claims, as oldStickyTarget computes them: each member's
// effective subscription and the claims it wins of it.
func oldFlowInputs(g Group, claims oldClaimTable) ([][]string, []spec.Set) {
	eff := make([][]string, len(g.Members))
	won := make([]spec.Set, len(g.Members))
	for i, m := range g.Members {
		for _, t := range m.Topics {
			if g.Topics[t] > 0 {
				eff[i] = append(eff[i], t)
			}
		}
		won[i] = claims.won(g, i).Filter(func(r spec.Resource) bool {
			_, ok := slices.BinarySearch(eff[i], r.Topic)
			return ok
		})
	}
	return eff, won
}

// genFlowGroup draws a group for the flow with many claims: up to 6 topics
// of 0 to 12 partitions, up to 10 members subscribing to random subsets
// (possibly none) at generations -1 to 3, most partitions owned, some by
// two members.
func genFlowGroup(t *rapid.T) Group {
	names, universe := drawUniverse(t, 6, 12)
	g := Group{Topics: universe}
	n := rapid.IntRange(1, 10).Draw(t, "members")
	g.Members = make([]Member, n)
	for i := range g.Members {
		var subs []string
		if rapid.IntRange(0, 5).Draw(t, "no-topics") > 0 {
			for _, name := range names {
				if rapid.Bool().Draw(t, "subscribe") {
					subs = append(subs, name)
				}
			}
		}
		g.Members[i] = Member{
			ID:         spec.MemberID(fmt.Sprintf("m%d", i)),
			Topics:     subs,
			Generation: spec.Generation(rapid.IntRange(-1, 3).Draw(t, "generation")),
		}
	}
	unowned := rapid.IntRange(0, 4).Draw(t, "unowned-in-5")
	drawOwned(t, &g, names, func() int {
		if rapid.IntRange(0, 4).Draw(t, "owned") >= unowned {
			return rapid.IntRange(0, n-1).Draw(t, "owner")
		}
		return -1
	}, 6)
	return g
}
