package assign

import (
	"container/heap"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// Sticky returns Kafka's sticky assignor, protocol name "sticky"
// (clients/.../consumer/StickyAssignor.java over AbstractStickyAssignor): the
// eager-protocol sticky assignor. It puts balance first and stickiness
// second, and its result is the exact optimum of both:
//
//  1. Claims are resolved by generation (ResolveClaims): a sole claimant
//     wins even at a stale generation, the highest generation wins among
//     several claimants, and a tie at the highest generation is won by
//     nobody. A member can keep only won claims of existing topics it still
//     subscribes to.
//  2. Balance: the number of resources per member is as even as the
//     subscriptions allow. The load vector minimises the sum of squares of
//     the loads, which is the same as being lexicographically smallest when
//     sorted in decreasing order. It implies Kafka's balance (spec.CheckBalance:
//     whenever two members' counts differ by more than one, the more loaded
//     owns nothing the less loaded subscribes to). With identical effective
//     subscriptions, counts are floor(P/M) or ceil(P/M), with exactly P mod M
//     members at ceil(P/M).
//  3. Stickiness: among the most balanced assignments, the result keeps the
//     largest possible number of won claims. No member both gives up and
//     receives partitions of the same topic, so no partition moves A→B while
//     another moves B→A (Kafka's PartitionMovements.isSticky 2-cycles).
//
// Every partition of an existing topic that some member subscribes to is
// assigned, to a subscriber. The result is a fixed point: feeding it back as
// every member's Owned, at one common generation, returns it unchanged.
// Ties are broken by member ID and by resource order, never by map order.
//
// Algorithm. When all members have the same effective subscription (topics
// of the universe with at least one partition) it is Kafka's constrained
// builder: minQuota = floor(P/M), maxQuota = ceil(P/M), and the P mod M
// maxQuota slots go to the members that own the most, ties to the lower
// member ID, so that a balanced group does not churn. Each member keeps its
// won claims up to its quota (lowest resources first), and the rest go, in
// resource order, each to the least-loaded member under quota, ties to the
// lower member ID. That is O(P log M) plus the size of the claims.
//
// Otherwise the loads per (topic, member) are computed by a min-cost flow
// whose cost is (P+1)·Σ load² minus the number of kept claims, solved by
// successive shortest paths. Each step moves one partition along a chain
// from a more loaded towards a less loaded eligible member until no chain
// improves the cost. This is O(P·V·E) with V = topics+members and E = the
// total subscription size, which is correct but slow for very large groups.
// Then each member keeps that many of its won claims of the topic, and the
// freed partitions of the topic go, in order, to the members that still need
// some, fewest held first.
//
// Sticky ignores Rack.
func Sticky() Assignor { return stickyAssignor{} }

type stickyAssignor struct{}

func (stickyAssignor) Name() string { return "sticky" }

func (stickyAssignor) Assign(g Group) (spec.Assignment, error) {
	if err := ValidateGroup(g); err != nil {
		return nil, err
	}
	return stickyTarget(g, resolveClaims(g, false), false), nil
}

// stickyTarget computes the sticky assignment of the valid group g whose
// claims resolve to claims. forceGeneral skips the homogeneous fast path
// (tests use it to check that both paths reach the same optimum).
func stickyTarget(g Group, claims claimTable, forceGeneral bool) spec.Assignment {
	if len(g.Members) == 0 {
		return spec.Assignment{}
	}
	eff := make([][]string, len(g.Members))
	won := make([]spec.Set, len(g.Members))
	homogeneous := true
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
		homogeneous = homogeneous && slices.Equal(eff[i], eff[0])
	}
	if homogeneous && !forceGeneral {
		return assignHomogeneous(g, eff[0], won)
	}
	return assignGeneral(g, eff, won)
}

// assignHomogeneous is the constrained builder for a group whose members
// all subscribe to topics (their effective subscription). won[i] holds the
// claims member i won, restricted to topics.
func assignHomogeneous(g Group, topics []string, won []spec.Set) spec.Assignment {
	all := g.Topics.Resources(topics...)
	total, n := len(all), len(g.Members)
	minQuota, extra := total/n, total%n

	// The maxQuota slots go to the members that own the most.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return won[j].Len() - won[i].Len() })
	quota := make([]int, n)
	for k, i := range order {
		quota[i] = minQuota
		if k < extra {
			quota[i]++
		}
	}

	kept := make([]spec.Set, n)
	taken := make(map[spec.Resource]bool)
	for i := range n {
		k := min(won[i].Len(), quota[i])
		kept[i] = won[i][:k:k]
		for _, r := range kept[i] {
			taken[r] = true
		}
	}

	// Fill: each free resource, in order, to the least-loaded member under
	// quota (ties to the lower index, which is the lower member ID).
	h := &loadHeap{}
	for i := range n {
		if kept[i].Len() < quota[i] {
			h.items = append(h.items, loadItem{load: kept[i].Len(), member: i})
		}
	}
	heap.Init(h)
	added := make([][]spec.Resource, n)
	for _, r := range all {
		if taken[r] {
			continue
		}
		it := heap.Pop(h).(loadItem)
		added[it.member] = append(added[it.member], r)
		if it.load+1 < quota[it.member] {
			heap.Push(h, loadItem{load: it.load + 1, member: it.member})
		}
	}
	if h.Len() != 0 {
		panic("assign: sticky homogeneous fill left a member under quota")
	}

	out := make(spec.Assignment, n)
	for i, m := range g.Members {
		out[m.ID] = kept[i].Union(spec.Set(added[i]))
	}
	return out
}

// loadItem is a member and its current load in loadHeap.
type loadItem struct{ load, member int }

// loadHeap is a min-heap of members by (load, index).
type loadHeap struct{ items []loadItem }

func (h *loadHeap) Len() int { return len(h.items) }
func (h *loadHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if a.load != b.load {
		return a.load < b.load
	}
	return a.member < b.member
}
func (h *loadHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *loadHeap) Push(x any)    { h.items = append(h.items, x.(loadItem)) }
func (h *loadHeap) Pop() any {
	it := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return it
}
