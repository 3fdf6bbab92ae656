package assign

import (
	"github.com/rebalance-ref/rebalance/spec"
)

// The sticky assignors split a group whose effective subscriptions are not
// all equal into connected components and solve each one on its own.
//
// Two members are connected when their effective subscriptions (topics with
// at least one partition) share a topic, and a topic belongs to the
// component of its subscribers; a member with an empty effective
// subscription is a component of its own that gets nothing. A component
// whose members all have the same effective subscription goes through the
// constrained builder (assignHomogeneous), any other through the min-cost
// flow (assignGeneral), each on a sub-group of the component's members and
// topics; the results are merged.
//
// Exactness. Sticky's optimum is the minimum of K·Σ load² − kept (K = P+1,
// kept the number of won claims a member keeps; see assignGeneral). A
// partition can only go to a subscriber of its topic, so to a member of its
// topic's component, and a member can only keep a won claim of a topic it
// subscribes to, so of its own component. Components share no topic and no
// member, so both Σ load² and kept are sums over the components of terms
// that depend only on that component's part of the assignment, and any
// combination of per-component assignments is a valid assignment of the
// group. Minimising each component's cost therefore minimises the sum, and
// the merge of per-component optima is a global optimum. The optimum's
// sorted load vector is unique (every load vector of least Σ load² is the
// lexicographically smallest one sorted in decreasing order, and there is
// only one such sorted vector), and so is the number of kept claims at the
// optimum (the optimal cost is unique and, with Σ load² fixed, fixes kept),
// so the merge has the same sorted load vector, Σ load² and kept claims as
// the flow over the whole group; only ties between equally optimal
// assignments may be broken differently. The same holds for any further
// preference a solver applies among its optima (rack alignment, say) as
// long as it adds up over members and partitions, as every such term of a
// component depends on that component alone.
//
// Claims are resolved once, over the whole group (resolveClaims), because a
// partition's claimants need not subscribe to its topic: a claim by a member
// outside the component (at a newer generation, or tying at the highest
// one) still takes the partition from the component's claimants, although
// that member cannot keep it. Each sub-problem gets a claimIndex over its
// own dense numbering whose cells are the global ones, member indexes
// renumbered within the component and every claimant outside it renumbered
// to len(component members), an index no member of the sub-group has. So
// winner and changesOwner answer, for every member of the component, exactly
// what they answer globally: the sub-problem keeps the same won claims, and
// the cooperative assignor withholds (changesOwner) exactly the same
// resources, per component, as withhold over the merged result would.
//
// Cost: a union-find over the topics along each effective subscription (by
// size, with path halving: near-linear), then
// per component its sub-group (members, topics, owned claims restricted to
// its topics, replica racks of its topics) and a copy of its claim cells, so
// O(size of the group) besides the solvers: O(P_c + M_c log M_c) for a
// homogeneous component, O(F_c·(E_c log V_c + R_c·E_c)) for a flow
// component (F_c phases of R_c rounds, see assignGeneral). A group whose
// subscriptions overlap into one component that mixes subscriptions gains
// nothing from the split: it costs the flow on the whole group. Components
// are numbered by their first member, members and topics kept in group
// order, so nothing depends on map order.

// stickyComponent is one connected component of a heterogeneous group.
type stickyComponent struct {
	// members are indexes into Group.Members, ascending.
	members []int
	// topics are indexes into the claim index's names, ascending.
	topics []int
	// homogeneous reports that every member's effective subscription is
	// the component's topics.
	homogeneous bool
}

// stickySplit is the decomposition of a group into components.
type stickySplit struct {
	comps []stickyComponent
	// compOf is each member's component, -1 for a member with an empty
	// effective subscription; local is its index within the component.
	compOf, local []int
	// topicComp is each topic's component.
	topicComp []int
}

// splitComponents computes the components of the valid group whose claims
// (and sticky index) are claims.
func splitComponents(claims *claimIndex) *stickySplit {
	nt, nm := len(claims.names), len(claims.eff)
	parent, size := make([]int32, nt), make([]int32, nt)
	for t := range parent {
		parent[t], size[t] = int32(t), 1
	}
	find := func(t int32) int32 {
		for parent[t] != t {
			parent[t] = parent[parent[t]]
			t = parent[t]
		}
		return t
	}
	// first[i] is the topic index of member i's first effective topic.
	// joined holds the effective subscription slices already joined (by
	// their first element and length): members sharing one slice, as
	// members of one subscription usually do, are joined once.
	type sliceID struct {
		first *string
		n     int
	}
	first := make([]int32, nm)
	joined := map[sliceID]int32{}
	for i, eff := range claims.eff {
		first[i] = -1
		if len(eff) == 0 {
			continue
		}
		id := sliceID{&eff[0], len(eff)}
		if f, ok := joined[id]; ok {
			first[i] = f
			continue
		}
		at := claims.cursor()
		for k, name := range eff {
			t, _ := at.find(name)
			if k == 0 {
				first[i] = int32(t)
				continue
			}
			if a, b := find(first[i]), find(int32(t)); a != b {
				if size[a] < size[b] {
					a, b = b, a
				}
				parent[b], size[a] = a, size[a]+size[b]
			}
		}
		joined[id] = first[i]
	}
	s := &stickySplit{compOf: make([]int, nm), local: make([]int, nm), topicComp: make([]int, nt)}
	rootComp := make([]int, nt)
	for t := range rootComp {
		rootComp[t] = -1
	}
	for i := range nm {
		s.compOf[i] = -1
		if first[i] < 0 {
			continue
		}
		r := find(first[i])
		if rootComp[r] < 0 {
			rootComp[r] = len(s.comps)
			s.comps = append(s.comps, stickyComponent{homogeneous: true})
		}
		c := &s.comps[rootComp[r]]
		s.compOf[i], s.local[i] = rootComp[r], len(c.members)
		c.members = append(c.members, i)
	}
	// Every topic of the index has a subscriber, hence a component.
	for t := range nt {
		c := rootComp[find(int32(t))]
		s.topicComp[t] = c
		s.comps[c].topics = append(s.comps[c].topics, t)
	}
	for k := range s.comps {
		c := &s.comps[k]
		for _, i := range c.members {
			// A member's effective subscription is a subset of its
			// component's topics: equal when it has as many.
			if len(claims.eff[i]) != len(c.topics) {
				c.homogeneous = false
				break
			}
		}
	}
	return s
}

// worthSplitting reports whether solving the components one by one differs
// from solving the whole group: there are two components with topics or
// more, or one component whose members share one subscription next to
// members with nothing to subscribe to. A group that is one component
// mixing subscriptions (with or without such members) goes to the flow
// whole, exactly as before the split.
func (s *stickySplit) worthSplitting() bool {
	return len(s.comps) > 1 || (len(s.comps) == 1 && s.comps[0].homogeneous)
}

// assignComponents solves every component of the split of g on its own
// and merges the results; with cooperative, each component's result is
// already withheld (changesOwner), as cooperativeTarget's is. Whether the
// assignors are rack-aware is decided once, on the whole group, as Kafka
// decides it (claimIndex.decideRacks), and every component follows that
// decision: a component whose partitions all have the same replica racks
// would be rack-blind on its own, but not within a rack-aware group.
func assignComponents(g Group, claims *claimIndex, s *stickySplit, cooperative bool) spec.Assignment {
	claims.decideRacks(g)
	out := make(spec.Assignment, len(g.Members))
	for i, m := range g.Members {
		if s.compOf[i] < 0 {
			out[m.ID] = nil
		}
	}
	for k := range s.comps {
		c := &s.comps[k]
		sub, subClaims := s.subProblem(g, claims, k)
		var a spec.Assignment
		switch {
		case c.homogeneous:
			a = assignHomogeneous(sub, subClaims).collect(sub, subClaims, cooperative)
		case cooperative:
			a = withhold(sub, subClaims, assignGeneral(sub, subClaims.eff, wonSets(sub, subClaims), subClaims.racks))
		default:
			a = assignGeneral(sub, subClaims.eff, wonSets(sub, subClaims), subClaims.racks)
		}
		for _, m := range sub.Members {
			out[m.ID] = a[m.ID]
		}
	}
	return out
}

// subProblem returns the sub-group of component k of g and its claim
// index. The sub-group holds the component's members, every field carried,
// each one's Owned restricted to the component's topics (the slice itself
// when nothing is left out), the component's topics as the universe, and
// their replica racks. The claim index is the global resolution over the
// component's dense numbering, claimants outside the component renumbered
// to len(sub.Members) (see the Exactness paragraph above).
func (s *stickySplit) subProblem(g Group, claims *claimIndex, k int) (Group, *claimIndex) {
	c := &s.comps[k]
	n := len(c.members)
	names := make([]string, len(c.topics))
	base := make([]int, len(c.topics)+1)
	sub := Group{Members: make([]Member, n), Topics: make(spec.Topics, len(c.topics))}
	for lt, t := range c.topics {
		names[lt] = claims.names[t]
		size := claims.base[t+1] - claims.base[t]
		base[lt+1] = base[lt] + size
		sub.Topics[names[lt]] = int32(size)
		if racks, ok := g.ReplicaRacks[names[lt]]; ok {
			if sub.ReplicaRacks == nil {
				sub.ReplicaRacks = map[string][][]string{}
			}
			sub.ReplicaRacks[names[lt]] = racks
		}
	}
	ix := &stickyIndex{
		eff:         make([][]string, n),
		homogeneous: c.homogeneous,
		names:       names,
		base:        base,
		topics:      newTopicIndex(names),
	}
	for li, i := range c.members {
		m := g.Members[i]
		m.Owned = s.restrictOwned(claims, m.Owned, k)
		sub.Members[li] = m
		ix.eff[li] = claims.eff[i]
	}
	subClaims := &claimIndex{stickyIndex: ix, keepTied: claims.keepTied, racks: claims.racks}
	if claims.cells == nil {
		return sub, subClaims
	}
	cells := make([]claimCell, base[len(c.topics)])
	claimed := false
	renumber := func(i int) int32 {
		if s.compOf[i] == k {
			return int32(s.local[i] + 2)
		}
		return int32(n + 2)
	}
	for lt, t := range c.topics {
		for d, cell := range claims.cells[claims.base[t]:claims.base[t+1]] {
			switch {
			case cell.w > 0:
				cell.w = renumber(int(cell.w) - 2)
			case cell.w < 0:
				cell.w = -renumber(int(-cell.w) - 2)
			default:
				continue
			}
			cells[base[lt]+d] = cell
			claimed = true
		}
	}
	if claimed {
		subClaims.cells = cells
	}
	return sub, subClaims
}

// restrictOwned returns the resources of owned whose topics belong to
// component k: owned itself when they all do.
func (s *stickySplit) restrictOwned(claims *claimIndex, owned spec.Set, k int) spec.Set {
	in := func(at *topicCursor, topic string) bool {
		t, ok := at.find(topic)
		return ok && s.topicComp[t] == k
	}
	keep := func() func(spec.Resource) bool {
		at := claims.cursor()
		first, topic, inTopic := true, "", false
		return func(r spec.Resource) bool {
			if first || r.Topic != topic {
				first, topic, inTopic = false, r.Topic, in(&at, r.Topic)
			}
			return inTopic
		}
	}
	all := keep()
	for _, r := range owned {
		if !all(r) {
			return owned.Filter(keep())
		}
	}
	return owned
}
