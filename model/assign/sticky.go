package assign

import (
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
// every member's Owned, at one common generation, returns it unchanged, so
// over successive rebalances of an unchanged group nothing moves after the
// first, and nothing moves back and forth. Determinism: ties are broken by
// member ID and by resource order, never by map order, so the same Group
// gives the same Assignment. Sticky makes no co-partitioning promise.
//
// Algorithm. When all members have the same effective subscription (topics
// of the universe with at least one partition) it is Kafka's constrained
// builder: minQuota = floor(P/M), maxQuota = ceil(P/M), and the P mod M
// maxQuota slots go to the members that own the most, ties to the lower
// member ID, so that a balanced group does not churn. Each member keeps its
// won claims up to its quota in Kafka's order, lowest partition number
// first and, within a number, topics in order (topic1-0, topic2-0,
// topic1-1, ...), so a member that gives some up keeps a spread of topics
// (KAFKA-16277). The rest go, in resource order, round-robin as Kafka's
// builder hands them out: one each, in member-ID order, to the members
// below minQuota, pass after pass, until none is; then one each to the
// members that get maxQuota, those at minQuota before the fill first (by
// member ID), then the others in the order they reached minQuota.
// Partitions are numbered densely (no maps of resources), so this is
// O(P + M log M) plus the size of the claims (and a sort of each member's
// won claims that span several topics).
//
// Otherwise the group is split into connected components: two members are
// connected when their effective subscriptions share a topic, and topics go
// with their subscribers. Claims are resolved once, over the whole group, and
// each component is solved on its own with exactly the won claims it has
// globally: a component whose members all have the same effective
// subscription by the constrained builder above, any other by the flow
// below; the results are merged. The cost K·Σ load² − kept is a sum over
// components, which share no topic and no member, so the merge of
// per-component optima is an optimum of the group, with the same (unique)
// sorted load vector, Σ load² and number of kept claims; only ties between
// equally optimal assignments can differ from the flow over the whole group
// (sticky_components.go argues this in full). The split is O(size of the
// group), so Kafka's heterogeneous benchmark groups, whose buckets subscribe
// to disjoint topic sets, cost about what homogeneous groups of the same
// size do.
//
// The flow computes the loads per (topic, member) as a min-cost flow whose
// cost is (P+1)·Σ load² minus the number of kept claims, solved exactly by
// the primal-dual method: each phase finds the cheapest chains (a partition
// moving from a more loaded towards a less loaded eligible member) with
// Dijkstra on potential-reduced costs, then pushes as many partitions as
// the cheapest chains carry at once, a blocking flow in Dinic's way. This is
// O(F·(E log V + R·E)) for F phases of R rounds each, V = topics+members
// and E = the total subscription size of the component. F is at most P, but
// in practice a few per load level (4 to 19 on overlapping groups of up to
// 10,000 members, R about 1), so a heterogeneous group whose subscriptions
// overlap into one component that mixes subscriptions costs a few dozen
// passes over its subscriptions. Then each member keeps that many of its
// won claims of the topic, and the freed partitions of the topic go, in
// order, to the members that still need some, fewest held first.
//
// Racks (KIP-881, Kafka 3.5's rack-aware AbstractStickyAssignor). Sticky is
// rack-aware under the rule Range uses (useRackAware), applied once to the
// whole group (claimIndex.decideRacks): some member has a Rack, Group.ReplicaRacks is set, some
// member's rack holds a replica of some subscribed partition, and not every
// subscribed partition has replicas on every rack that holds one. Otherwise
// Member.Rack and Group.ReplicaRacks change nothing, bit for bit. A
// partition is rack-aligned on a member whose rack holds one of its
// replicas. When racks apply, the priorities are:
//
//  1. Balance, unchanged: the load vector is exactly the one without racks
//     (racks never cost balance).
//  2. Rack alignment, as far as balance permits.
//  3. Stickiness: a won claim that is not rack-aligned (its racks mismatch,
//     or its winner has no rack) may move to improve alignment; a
//     rack-aligned won claim is kept within quota.
//
// With identical effective subscriptions (the constrained builder) this is
// exact: every member keeps its rack-aligned won claims, in Kafka's order
// (by partition number, then topic), up to its quota (maxQuota first to the
// members with at least maxQuota of them, most won claims first, ties to
// the lower member ID); then an optimal fill
// places the largest possible number of the other partitions rack-aligned,
// with the members' quotas (which P mod M get maxQuota) part of the
// optimisation, and among those placements gives back the largest number
// of the remaining won claims to their winners; what is left goes back to
// its winner if it has room, then by the plain fill. So the result never has
// fewer rack-aligned partitions than the rack-blind one, no exchange of two
// partitions between members aligns more, and the fixed point and
// CooperativeSticky's two-round bound still hold (the sets of assignments
// each step optimises over shrink from round to round). Kafka's builder is
// greedy; it keeps a rackless member's claims before aligning, which this
// one does not (that is what makes "never fewer aligned" hold); where
// Kafka's tests have a unique best alignment, the results agree.
//
// With different subscriptions (the flow) rack alignment is best effort, as
// in Kafka: the flow fixes, without racks, how many partitions of each topic
// each member gets; within those counts a member keeps its rack-aligned won
// claims first and gives up the others first, and freed partitions go to
// members on their racks first. The balance, the number of kept claims and
// the fixed point are those without racks; the number of rack-aligned
// partitions is not guaranteed to reach the rack-blind one's (a greedy
// within fixed counts; no counterexample has been seen on random groups).
func Sticky() Assignor { return stickyAssignor{} }

type stickyAssignor struct{}

func (stickyAssignor) Name() string { return "sticky" }

// Balance is spec.CheckBalance (BalancedAssignor).
func (stickyAssignor) Balance(v spec.View) []spec.Violation { return spec.CheckBalance(v) }

func (s stickyAssignor) Assign(g Group) (spec.Assignment, error) {
	if err := ValidateGroup(g); err != nil {
		return nil, err
	}
	return s.assignValid(g)
}

// assignValid is Assign on a group ValidateGroup accepted (AssignValid).
func (stickyAssignor) assignValid(g Group) (spec.Assignment, error) {
	return stickyTarget(g, resolveClaims(g, claimFaults{}), false), nil
}

// stickyIndex is what the sticky assignors precompute about a valid group:
// each member's effective subscription (the topics of its subscription that
// exist with at least one partition), whether they are all the same, and
// a dense numbering of the partitions of the topics in some effective
// subscription: topics in sorted order, each topic's partitions in order,
// so that dense order is spec.Resource order.
type stickyIndex struct {
	// eff is each member's effective subscription; members that share a
	// subscription slice, or follow a member with an equal subscription,
	// share one eff slice (read only).
	eff [][]string
	// homogeneous reports that every eff is the same.
	homogeneous bool
	// names are the topics of the index, sorted; base[t] is the dense
	// number of partition 0 of names[t], base[len(names)] the total.
	names []string
	base  []int
	// topics indexes names.
	topics *topicIndex
}

// newStickyIndex builds the index of the valid group g.
func newStickyIndex(g Group) *stickyIndex {
	ix := &stickyIndex{eff: make([][]string, len(g.Members)), homogeneous: true}
	inIndex := map[string]bool{}
	type seen struct {
		n   int
		eff []string
	}
	cache := map[*string]seen{}
	for i, m := range g.Members {
		if i > 0 && sameStrings(m.Topics, g.Members[i-1].Topics) {
			// The same subscription as the member before, in a slice of
			// its own (a classic leader decodes each member's): members
			// of one group mostly subscribe alike. homogeneous stays as
			// it was.
			ix.eff[i] = ix.eff[i-1]
			continue
		}
		if len(m.Topics) > 0 {
			if c, ok := cache[&m.Topics[0]]; ok && c.n == len(m.Topics) {
				ix.eff[i] = c.eff
				ix.homogeneous = ix.homogeneous && sameStrings(ix.eff[i], ix.eff[0])
				continue
			}
		}
		var eff []string
		for _, t := range m.Topics {
			if g.Topics[t] > 0 {
				eff = append(eff, t)
				if !inIndex[t] {
					inIndex[t] = true
					ix.names = append(ix.names, t)
				}
			}
		}
		ix.eff[i] = eff
		if len(m.Topics) > 0 {
			cache[&m.Topics[0]] = seen{n: len(m.Topics), eff: eff}
		}
		ix.homogeneous = ix.homogeneous && sameStrings(ix.eff[i], ix.eff[0])
	}
	slices.Sort(ix.names)
	ix.topics = newTopicIndex(ix.names)
	ix.base = make([]int, len(ix.names)+1)
	for t, name := range ix.names {
		ix.base[t+1] = ix.base[t] + int(g.Topics[name])
	}
	return ix
}

// sameStrings reports whether a and b hold the same strings, without
// comparing them when they are one slice.
func sameStrings(a, b []string) bool {
	if len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) {
		return true
	}
	return slices.Equal(a, b)
}

// total is the number of partitions of the index.
func (ix *stickyIndex) total() int { return ix.base[len(ix.names)] }

// cursor returns a topicCursor over the index's topics, for looking up
// the runs of one sorted set.
func (ix *stickyIndex) cursor() topicCursor { return ix.topics.cursor() }

// topicBase returns the dense number of partition 0 of topic, -1 if the
// topic is not in the index; at is the cursor of the set being walked.
func (ix *stickyIndex) topicBase(at *topicCursor, topic string) int {
	t, ok := at.find(topic)
	if !ok {
		return -1
	}
	return ix.base[t]
}

// stickyTarget computes the sticky assignment of the valid group g whose
// claims resolve to claims. A heterogeneous group is solved per connected
// component when that splits it (sticky_components.go). forceGeneral skips
// both the homogeneous fast path and the split, and runs the flow on the
// whole group (tests use it to check that the paths reach the same optimum).
func stickyTarget(g Group, claims *claimIndex, forceGeneral bool) spec.Assignment {
	if len(g.Members) == 0 {
		return spec.Assignment{}
	}
	if claims.homogeneous && !forceGeneral {
		return assignHomogeneous(g, claims).collect(g, claims, false)
	}
	if !forceGeneral {
		if s := splitComponents(claims); s.worthSplitting() {
			return assignComponents(g, claims, s, false)
		}
	}
	return assignGeneral(g, claims.eff, wonSets(g, claims), claims.racks)
}

// cooperativeTarget is stickyTarget (without forceGeneral) followed by
// withhold, without building the target's sets on the homogeneous path;
// split into components, each component's result is withheld on its own,
// against the globally resolved claims.
func cooperativeTarget(g Group, claims *claimIndex) spec.Assignment {
	if len(g.Members) == 0 {
		return spec.Assignment{}
	}
	if claims.homogeneous {
		return assignHomogeneous(g, claims).collect(g, claims, true)
	}
	if s := splitComponents(claims); s.worthSplitting() {
		return assignComponents(g, claims, s, true)
	}
	return withhold(g, claims, assignGeneral(g, claims.eff, wonSets(g, claims), claims.racks))
}

// wonSets returns, for each member, the claims it wins of topics of its
// effective subscription, sorted (nil when none).
func wonSets(g Group, claims *claimIndex) []spec.Set {
	won := make([]spec.Set, len(g.Members))
	for i, m := range g.Members {
		var (
			topic string
			base  int
			in    bool
			at    = claims.cursor()
		)
		won[i] = m.Owned.Filter(func(r spec.Resource) bool {
			if !spec.SameTopic(r.Topic, topic) {
				topic, base = r.Topic, claims.topicBase(&at, r.Topic)
				_, in = slices.BinarySearch(claims.eff[i], r.Topic)
			}
			return in && base >= 0 && claims.winner(base+int(r.Partition)) == i
		})
	}
	return won
}

// homogeneousPlan is the result of assignHomogeneous: the member index
// each dense partition goes to, and the number of claims each member won
// (collect needs it to tell a nil set from an empty one).
type homogeneousPlan struct {
	owner []int32 // per dense partition, the member index
	won   []int   // per member, the number of claims it won
}

// assignHomogeneous is the constrained builder for a group whose members
// all have the same effective subscription, claims.names. When the sticky
// assignors are rack-aware for g (racksFor) it is assignHomogeneousRacks;
// otherwise:
//
// The maxQuota slots go to the members that win the most claims (ties to
// the lower member ID); each member keeps its won claims up to its quota,
// in Kafka's order (wonDense: by partition number, then topic); then the
// free partitions, in order, go round-robin to the members under quota
// (fillRoundRobin).
//
// This is Kafka's AbstractStickyAssignor.ConstrainedAssignmentBuilder
// (assignOwnedPartitions, then assignRoundRobin) with its one free choice
// fixed: Kafka walks the consumers in HashMap order and gives the maxQuota
// slots to the first ones owning at least maxQuota, here the ones owning
// the most (ties to the lower member ID). The rest of the order is Kafka's:
// the members that reach minQuota during the round-robin take the leftover
// maxQuota slots in the order they reach it, which is fewest missing first
// (most won claims), ties by member ID, as byWon orders them.
func assignHomogeneous(g Group, claims *claimIndex) homogeneousPlan {
	total, n := claims.total(), len(g.Members)
	minQuota, extra := total/n, total%n
	w := wonDense(g, claims)
	won := w.won
	if rk := racksFor(g, claims); rk != nil {
		return assignHomogeneousRacks(g, claims, rk, w)
	}
	owner := make([]int32, total)
	for d := range owner {
		owner[d] = -1
	}

	// The maxQuota slots go to the members that own the most.
	order := byWon(won, claims.cells != nil)
	quota := make([]int, n)
	for k, i := range order {
		quota[i] = minQuota
		if k < extra {
			quota[i]++
		}
	}

	// Keep, then fill.
	kept := make([]int, n)
	for i := range n {
		k := min(won[i], quota[i])
		if w.at != nil {
			if k < won[i] {
				w.order(i) // which k it keeps depends on the order
			}
			for _, key := range w.at[i][:k] {
				owner[int32(key)] = int32(i)
			}
		}
		kept[i] = k
	}
	fillRoundRobin(owner, kept, quota, minQuota)
	return homogeneousPlan{owner: owner, won: won}
}

// denseWins are the claims each member of a group wins: won[i] of them
// for member i, and, when some member claims a partition of the index
// (at is nil otherwise), at[i], member i's won partitions as keys
// partition<<32 | dense, one array shared by all the members. Each
// member's keys are in the order it listed its partitions (by topic,
// then partition) until order puts them in the order the constrained
// builder keeps them.
type denseWins struct {
	won   []int
	at    [][]int64
	mixed []bool // at[i] holds claims of more than one topic
}

// wonDense returns the claims each member of g wins. A member's keys are
// put in the order the constrained builder keeps them only by
// denseWins.order, when that order can matter: a member that keeps all it
// won (nearly every member of a rebalance that moves little) keeps them
// in any order.
func wonDense(g Group, claims *claimIndex) denseWins {
	w := denseWins{won: make([]int, len(g.Members))}
	if claims.cells == nil {
		return w
	}
	w.at = make([][]int64, len(g.Members))
	w.mixed = make([]bool, len(g.Members))
	// One array holds every member's won partitions, each member's a slice
	// of it with its capacity clipped: a member wins at most what it owns,
	// so the array never grows, and a leader of many members makes one
	// allocation where it made one or more per member.
	owned := 0
	for _, m := range g.Members {
		owned += len(m.Owned)
	}
	all := make([]int64, 0, owned)
	for i, m := range g.Members {
		var (
			topic   string
			base    int
			at      = claims.cursor()
			wonBase = -1 // base of the topic of the last won claim
		)
		start := len(all)
		for k, r := range m.Owned {
			if k == 0 || !spec.SameTopic(r.Topic, topic) {
				topic, base = r.Topic, claims.topicBase(&at, r.Topic)
			}
			if base >= 0 && claims.winner(base+int(r.Partition)) == i {
				all = append(all, int64(r.Partition)<<32|int64(base+int(r.Partition)))
				w.mixed[i] = w.mixed[i] || (wonBase >= 0 && wonBase != base)
				wonBase = base
			}
		}
		w.at[i] = all[start:len(all):len(all)]
		w.won[i] = len(w.at[i])
	}
	return w
}

// order puts member i's won claims in the order the constrained builder
// keeps them: by partition number, then by topic (topic1-0, topic2-0,
// topic1-1, ...). That is Kafka's order since 3.8 (KAFKA-16277):
// AbstractStickyAssignor.ConstrainedAssignmentBuilder.assignOwnedPartitions
// sorts each consumer's owned partitions by partition, then topic, and
// keeps the first minQuota or maxQuota of them, so a member that owned all
// of two topics and must give half up keeps half of each topic rather than
// all of the first (AbstractStickyAssignorTest.testTopicBalanceAfterReassignment).
// Before 3.8 Kafka kept them in the order the consumer listed them. A
// member's owned partitions are sorted by topic, then partition: within
// one topic that is already the order; across topics the keys sort as
// (partition, dense), which is (partition, topic) as dense numbers follow
// topic order.
func (w *denseWins) order(i int) {
	if w.mixed[i] {
		slices.Sort(w.at[i])
	}
}

// byWon returns the member indexes ordered by decreasing won count, ties
// by index (the identity when sorted is false: nobody claims anything).
func byWon(won []int, sorted bool) []int {
	order := make([]int, len(won))
	for i := range order {
		order[i] = i
	}
	if sorted {
		slices.SortStableFunc(order, func(i, j int) int { return won[j] - won[i] })
	}
	return order
}

// fillRoundRobin gives the dense partitions without an owner, in order, to
// the members under their quota (minQuota or minQuota+1) the way Kafka's
// AbstractStickyAssignor.ConstrainedAssignmentBuilder.assignRoundRobin
// does, and updates load:
//
//  1. Round-robin over the members below minQuota, in member order: one
//     partition each per pass, pass after pass; a member leaves the round
//     when it reaches minQuota and, if its quota is minQuota+1, joins the
//     end of the waiting list.
//  2. When no member is below minQuota, one partition each to the waiting
//     list in order: the members that were at minQuota under a quota of
//     minQuota+1 before the fill (in member order), then those that joined
//     in step 1, in the order they joined.
//
// The free partitions must exactly fill the quotas. It is not a
// least-loaded fill: a member below minQuota takes one partition per pass
// whatever it already holds, so one that kept more takes the earlier
// partitions of a pass. Each step places one partition, so it is O(P + M).
func fillRoundRobin(owner []int32, load, quota []int, minQuota int) {
	n := len(load)
	under := make([]int32, 0, n)
	waiting := make([]int32, 0, n)
	for i := range n {
		switch {
		case load[i] < minQuota:
			under = append(under, int32(i))
		case load[i] < quota[i]:
			waiting = append(waiting, int32(i))
		}
	}
	d := 0
	give := func(i int32) {
		for d < len(owner) && owner[d] >= 0 {
			d++
		}
		if d == len(owner) {
			panic("assign: sticky homogeneous fill ran out of partitions")
		}
		owner[d] = i
		d++
		load[i]++
	}
	for len(under) > 0 {
		next := under[:0]
		for _, i := range under {
			give(i)
			switch {
			case load[i] < minQuota:
				next = append(next, i)
			case load[i] < quota[i]:
				waiting = append(waiting, i)
			}
		}
		under = next
	}
	for _, i := range waiting {
		give(i)
	}
	for ; d < len(owner); d++ {
		if owner[d] < 0 {
			panic("assign: sticky homogeneous fill left a member under quota")
		}
	}
}

// collect turns the plan into an Assignment naming every member of g, each
// set capped. With cooperative, it leaves out every partition whose owner
// the plan changes (withhold), and a member left with nothing gets a nil
// set. Otherwise a member left with nothing gets a nil set if it won no
// claims and an empty, non-nil one if it did, exactly as the sticky
// assignor has always returned them.
//
// A member whose set is exactly what it claims gets its Owned set itself
// (sets are immutable), the others slices of one backing array. That is
// nearly every member of a rebalance that moves little: a leader of a
// thousand members over a hundred thousand partitions otherwise copies
// every claim into a new array each round, and the copies cost more than
// the plan (docs/costs.md, Scale). A member's set is its claims when every
// partition of it is a claim the member won and it has as many as it
// claims: a won claim is one of its Owned partitions (claimIndex), all
// distinct, so the two sets are equal, and both are sorted (Owned as a
// valid group's, the plan in dense order, topics sorted).
func (p homogeneousPlan) collect(g Group, claims *claimIndex, cooperative bool) spec.Assignment {
	n := len(g.Members)
	sizes := make([]int, n)
	shared := make([]bool, n)
	if claims.cells == nil {
		// Nobody claims anything: every partition is kept, none shared.
		for _, i := range p.owner {
			sizes[i]++
		}
	} else {
		won := make([]int, n) // partitions of member i's set that it won
		for d, i := range p.owner {
			w := claims.winner(d)
			if cooperative && w != claimUnclaimed && w != int(i) {
				continue // withheld: the plan changes its owner
			}
			sizes[i]++
			if w == int(i) {
				won[i]++
			}
		}
		for i, m := range g.Members {
			shared[i] = sizes[i] > 0 && won[i] == sizes[i] && sizes[i] == len(m.Owned)
		}
	}
	next := make([]int, n)
	off := 0
	for i := range n {
		next[i] = off
		if !shared[i] {
			off += sizes[i]
		}
	}
	backing := make([]spec.Resource, off)
	for t, name := range claims.names {
		base := claims.base[t]
		for q, i := range p.owner[base:claims.base[t+1]] {
			if shared[i] || (cooperative && claims.changesOwner(base+q, int(i))) {
				continue
			}
			backing[next[i]] = spec.Resource{Topic: name, Partition: int32(q)}
			next[i]++
		}
	}
	out := make(spec.Assignment, n)
	off = 0
	for i, m := range g.Members {
		switch {
		case shared[i]:
			out[m.ID] = slices.Clip(m.Owned)
		case sizes[i] > 0:
			out[m.ID] = spec.Set(backing[off : off+sizes[i] : off+sizes[i]])
			off += sizes[i]
		case !cooperative && p.won[i] > 0:
			out[m.ID] = spec.Set{}
		default:
			out[m.ID] = nil
		}
	}
	return out
}
