package assign

import (
	"errors"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// This file and its server_* siblings hold the server-side (KIP-848)
// assignors, the ones the next-gen group coordinator runs itself
// (group-coordinator/.../assignor/ in Kafka).
//
// A server-side assignor reads the same Group as the client-side ones, with
// two differences of meaning:
//
//   - Member.Owned carries the member's previous TARGET assignment, the one
//     the coordinator computed last time (KIP-848's TargetAssignmentBuilder
//     passes that, not what the member really owns: reconciling the member
//     towards the target is the coordinator's job, not the assignor's). The
//     result is the new target.
//   - Member.Generation is not used.
//
// A topic that a member subscribes to but that is not in Group.Topics, or
// that has no partitions, is ignored for that member (Kafka throws
// PartitionAssignorException for a topic missing from the metadata; this
// model treats it as "not yet known").
//
// A previous target is exclusive in a real coordinator (Kafka keeps it as an
// inverted partition → member map). ValidateGroup does not require that, so
// these assignors resolve overlaps themselves: a partition listed by several
// members' previous targets counts as previously targeted only to the first
// of them, in member ID order, that subscribes to its topic and keeps it.

// UniformOptions configures UniformWith.
type UniformOptions struct {
	// BeforeKafka18688 reproduces the homogeneous builder as it was before
	// KAFKA-18688 (fixed by apache/kafka PR #19677, merged in May 2025;
	// Kafka 4.0 still has the old behaviour): the P mod M members that may hold one partition above
	// ⌊P/M⌋ are the first P mod M members in iteration order (here: by
	// member ID), whatever they held before. An already balanced group
	// whose larger members are not the first ones then loses partitions
	// from a later member to an earlier one on every recomputation of the
	// target, although nothing changed. It affects homogeneous groups only.
	BeforeKafka18688 bool

	// RackAware makes the homogeneous builder rack-aware, after the design
	// of apache/kafka PR #20000 (KAFKA-19909, not in a Kafka release):
	// balance first, then rack awareness, then stickiness. It is off by
	// default, as in released Kafka, whose UniformAssignor ignores racks.
	// The heterogeneous builder ignores racks either way.
	//
	// Racks come from Member.Rack and Group.ReplicaRacks. For member i and
	// partition p, p is aligned to i when i has a rack and a replica of p is
	// on it, misaligned when i has a rack, p's racks are known and none is
	// i's, and neutral otherwise (i has no rack, or p's racks are unknown:
	// no entry in ReplicaRacks, or an empty list). Rack awareness
	// applies only when some member's rack holds a replica of some
	// partition and not every partition has its replicas on the same set of
	// racks (KIP-881's rule, over all partitions of the subscribed topics).
	// When it does not apply, the result is the one without RackAware, bit
	// for bit. When it does, with P partitions and M members:
	//
	//  1. Quotas: every member's size is the one it gets without RackAware
	//     (⌊P/M⌋, and ⌊P/M⌋+1 for the same P mod M members, chosen as
	//     documented on Uniform; with BeforeKafka18688, the first P mod M
	//     members).
	//  2. Keep: each member, in member ID order, keeps the partitions of its
	//     previous target that are aligned to it, in (topic, partition)
	//     order, up to its quota, then the neutral ones, up to its quota.
	//     Misaligned ones, excess and unsubscribed topics are released.
	//  3. Match: as many unassigned partitions as possible (a maximum
	//     flow, not a greedy pass) go to members with quota left that they
	//     are aligned to; released misaligned partitions are the last
	//     candidates, partitions go in (topic, partition) order and, within
	//     a rack, to members in member ID order.
	//  4. Give back: each misaligned partition still unassigned returns to
	//     the member that released it, if it has quota left.
	//  5. Fill: the rest, in (topic, partition) order, to members in member
	//     ID order up to their quotas.
	//
	// Guarantees (TestServerPropertiesUniformRackAware checks each): every
	// partition of the subscribed topics goes to exactly one member; every
	// member's size is the one it gets without RackAware; feeding a result
	// back as the previous target changes nothing; when no two previous
	// targets overlap (as in a real coordinator), at least as many
	// partitions are aligned to their member as without RackAware; and
	// when moreover rack awareness applies:
	//
	//   - every member of size q keeps min(q, a) of the a partitions of its
	//     previous target aligned to it, and min(q, a+n) of those aligned
	//     or neutral (n the neutral ones);
	//   - step 3 is maximum: given what step 2 kept, no placement of the
	//     other partitions within the same sizes aligns more of them;
	//   - a partition of a member's previous target goes to another member
	//     it is not aligned to only if the new partitions of its old
	//     member (those not in its previous target) are all aligned to it
	//     (step 3 used the room; otherwise step 4 gave the partition back).
	//
	// Stickiness is third: a misaligned partition leaves its member
	// whenever step 3 can align it elsewhere or needs its member's room.
	// The cost is O(P·r + M + the previous targets' sizes), r replicas per
	// partition, plus Dinic's maximum flow on a graph with a node per
	// distinct set of member racks of a partition and per member rack
	// (few, in practice).
	RackAware bool
}

// Uniform returns the server-side uniform assignor of KIP-848, protocol name
// "uniform", Kafka's default server-side assignor (UniformAssignor), with
// KAFKA-18688's fix; UniformWith(UniformOptions{}) is the same.
//
// It picks one of two builders, as Kafka does by the group's subscription
// type:
//
// Homogeneous (every member subscribes to the same live topics, those that
// exist with at least one partition, or every member to none; Kafka's
// UniformHomogeneousAssignmentBuilder). With P
// partitions over the subscribed topics and M members, every member's quota
// is ⌊P/M⌋ and P mod M of them get one more:
//
//  1. Keep: each member, in member ID order, keeps the partitions of its
//     previous target, in (topic, partition) order, up to ⌊P/M⌋. A member that
//     previously held more takes one of the P mod M extra slots, while any
//     are left, and keeps one more. Partitions of topics it no longer
//     subscribes to, and its excess, are released.
//  2. Fill: the unassigned partitions, in (topic, partition) order, go in
//     contiguous runs to the members in member ID order, each up to ⌊P/M⌋,
//     or ⌊P/M⌋+1 while extra slots are left.
//
// Guarantees: every partition of the subscribed topics is assigned to
// exactly one member; sizes differ by at most one (⌊P/M⌋ or ⌈P/M⌉, exactly
// P mod M members the larger); when previous targets do not overlap, every
// member keeps min(⌊P/M⌋, its previous target's subscribed partitions) of
// them, and the extra slots go first to members that already held more, so
// a group whose previous target is complete, exclusive and balanced keeps it
// unchanged, and feeding a result back as the previous target changes
// nothing. Balance comes before stickiness.
//
// Heterogeneous (otherwise; Kafka's UniformHeterogeneousAssignmentBuilder as
// reworked by KAFKA-17710): see the guarantees of uniformHeterogeneous,
// summarised here. A member's load is its number of partitions over all
// topics.
//
//  1. Revoke only the partitions of topics a member no longer subscribes
//     to; every other previously targeted partition is kept for now.
//  2. Assign the unassigned partitions topic by topic (topics ordered by
//     partitions per subscriber, descending, then subscriber count,
//     ascending, then name), each to a least-loaded subscriber of its topic.
//  3. Balance: for every topic with at least two subscribers, move the
//     topic's partitions from its most-loaded subscribers to its
//     least-loaded ones while their loads differ by more than one; repeat
//     over all topics until a full pass moves nothing, at most 16 passes
//     (Kafka's MAX_ITERATION_COUNT).
//
// Cost of the heterogeneous builder, with M members, P partitions and n_t
// subscribers of topic t: O(M + P + the previous targets' sizes + the
// lengths of the distinct subscriptions; members sharing one subscription
// slice are resolved once), plus O(n_t + p_t) for each topic t, p_t its
// partitions, that step 2 or a pass of step 3 works on (only O(n_t) when
// the loads of t's subscribers are already within one of each other, and
// O(n_t log n_t) more in the rare case that they spread over more than
// 4·n_t+64 levels). So O(M + P + Σ_t n_t) per pass, and at most 17 such
// walks (step 2 and 16 passes).
//
// Guarantees: every partition of every subscribed topic is assigned, to a
// subscriber; a previously targeted partition is only ever taken from a
// member to improve balance, or because it unsubscribed (or because an
// earlier member listed it too). What balance means here: when the
// balancing phase converges, for every topic, a subscriber whose load is
// two or more above another subscriber's holds none of the topic's
// partitions (spec.CheckBalance). So when the subscribers of each topic
// all have the same subscription (in particular when any two subscriptions
// are identical or disjoint) the loads of each topic's subscribers differ
// by at most one. With overlapping, non-identical subscriptions the result
// is only almost balanced: each topic's subscribers may be balanced among
// themselves while the group is not (Kafka's javadoc example: members 1, 2,
// 3 with 9, 10 and 11 partitions, where member 1 and 2 share the first
// topic and 2 and 3 the second), and if the 16 passes run out, a topic may
// be left unbalanced; only then does feeding the result back as the previous
// target move anything. Stickiness is not minimal movement: a giver gives
// up its highest-numbered partition of the topic (as Kafka's does), which
// may be one of its previous target while it keeps one it was given in this
// very computation, so a member can lose a previous partition of a topic
// and gain another of the same topic in one result (see
// TestServerUniformHeterogeneousNotMoveMinimal). Recomputing an unchanged
// group's target: a converged result is a fixed point, so nothing moves
// again; after a run that ran out of passes, the next recomputations keep
// balancing, several of them on large groups with overlapping
// subscriptions (no general bound on their number), and no partition was
// ever seen to move back to a member it left (checked by TestGuarantees and
// TestServerUniformChainRecomputations, not proved).
//
// Both builders are deterministic (the same Group gives the same
// Assignment; ties go by member ID, never map order), make no
// co-partitioning promise, are not rack-aware by default (they ignore
// Member.Rack; UniformOptions.RackAware makes the homogeneous builder
// rack-aware, as KAFKA-19909 proposes), and return an error only when
// ValidateGroup does.
func Uniform() Assignor { return UniformWith(UniformOptions{}) }

// UniformWith returns the uniform assignor with the given options; see
// Uniform and UniformOptions.
func UniformWith(o UniformOptions) Assignor { return uniformAssignor{opts: o} }

type uniformAssignor struct{ opts UniformOptions }

func (uniformAssignor) Name() string { return "uniform" }

// Balance is spec.CheckBalance (BalancedAssignor): as balanced as the
// subscriptions allow, so that no single move could improve it.
func (uniformAssignor) Balance(v spec.View) []spec.Violation { return spec.CheckBalance(v) }

// KeepsClaims is true: the uniform assignor keeps as many of the previous
// targets as balance allows. Before KAFKA-18688 (UniformOptions) it claimed
// so but did not: StableWhenBalanced catches that.
func (uniformAssignor) KeepsClaims() bool { return true }

func (u uniformAssignor) Assign(g Group) (spec.Assignment, error) {
	if err := ValidateGroup(g); err != nil {
		return nil, err
	}
	return u.assignValid(g)
}

// assignValid is Assign on a group ValidateGroup accepted (AssignValid).
func (u uniformAssignor) assignValid(g Group) (spec.Assignment, error) {
	if topics, ok := serverHomogeneous(g); ok {
		if u.opts.RackAware {
			if a, ok, err := uniformHomogeneousRacks(g, topics, u.opts.BeforeKafka18688); ok {
				return a, err
			}
		}
		return uniformHomogeneous(g, topics, u.opts.BeforeKafka18688)
	}
	a, _, err := uniformHeterogeneous(g)
	return a, err
}

// errServerUnassigned reports a broken internal invariant of a server-side
// builder (Kafka's "Partitions were left unassigned"). It cannot happen for a
// group that ValidateGroup accepts; it is an error rather than a panic so
// that an assignor never panics.
var errServerUnassigned = errors.New("assign: internal error: partitions were left unassigned")

// serverLive reports whether topic exists in topics with at least one
// partition: the topics the server-side assignors consider.
func serverLive(topics spec.Topics, topic string) bool { return topics[topic] > 0 }

// serverSubscription returns the topics of m's subscription that are live
// in g (see serverLive), in order.
func serverSubscription(g Group, m Member) []string {
	var out []string
	for _, t := range m.Topics {
		if serverLive(g.Topics, t) {
			out = append(out, t)
		}
	}
	return out
}

// serverSameSubscription reports whether the sorted subscriptions a and b
// name the same live topics of topics, without allocating.
func serverSameSubscription(topics spec.Topics, a, b []string) bool {
	if len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) {
		return true // one shared subscription slice
	}
	if slices.Equal(a, b) {
		return true // the common case, without a map lookup
	}
	i, j := 0, 0
	for {
		for i < len(a) && !serverLive(topics, a[i]) {
			i++
		}
		for j < len(b) && !serverLive(topics, b[j]) {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if a[i] != b[j] {
			return false
		}
		i++
		j++
	}
}

// serverHomogeneous reports whether every member of g subscribes to the same
// live topics (Kafka's SubscriptionType.HOMOGENEOUS; a group without members
// or where nobody subscribes to anything live is homogeneous), and returns
// those topics.
func serverHomogeneous(g Group) ([]string, bool) {
	if len(g.Members) == 0 {
		return nil, true
	}
	first := g.Members[0].Topics
	for _, m := range g.Members[1:] {
		if !serverSameSubscription(g.Topics, first, m.Topics) {
			return nil, false
		}
	}
	return serverSubscription(g, g.Members[0]), true
}

// uniformHomogeneous is the homogeneous builder documented on Uniform:
// topics are the common live subscription, sorted. With before set, the
// extra slots go to the first P mod M members instead (UniformOptions).
//
// It numbers the partitions of topics densely (topics in order, then
// partitions), so that dense order is (topic, partition) order, and keeps
// the owner of each in one array: 0 while unassigned, i+1 for member i.
func uniformHomogeneous(g Group, topics []string, before bool) (spec.Assignment, error) {
	if len(g.Members) == 0 || len(topics) == 0 {
		return emptyAssignment(g), nil
	}
	base := make([]int, len(topics)+1)
	for t, name := range topics {
		base[t+1] = base[t] + int(g.Topics[name])
	}
	total := base[len(topics)]
	if fresh(g) {
		return uniformFresh(g, topics, base, before), nil
	}
	owner := make([]int32, total)
	sizes := make([]int, len(g.Members))
	extras := uniformKeep(g, newTopicIndex(topics), base, owner, sizes, before)
	// unchanged[i], for collectDense: member i's set is exactly its
	// Owned set. Here, that it kept all of it (uniformKeep visits each
	// partition of it in the subscription once, and a valid group's Owned
	// is a set of existing partitions, so the kept ones are then exactly
	// its Owned); after the fill, that it got nothing more.
	unchanged := make([]bool, len(g.Members))
	for i, m := range g.Members {
		unchanged[i] = sizes[i] > 0 && sizes[i] == len(m.Owned)
	}

	// Fill, in (topic, partition) order, which is dense order.
	d := 0
	for i, target := range uniformTargets(sizes, total, extras, before) {
		for sizes[i] < target {
			for d < total && owner[d] != 0 {
				d++
			}
			if d == total {
				return nil, errServerUnassigned
			}
			owner[d] = int32(i + 1)
			sizes[i]++
		}
	}
	for i, m := range g.Members {
		unchanged[i] = unchanged[i] && sizes[i] == len(m.Owned)
	}
	return collectDense(g, topics, base, owner, sizes, unchanged)
}

// uniformKeep is the Keep step of uniformHomogeneous on owner (dense
// indexes, 0 while unassigned) and sizes (zero): each member, in member ID
// order, keeps the partitions of its previous target that no earlier member
// kept, in (topic, partition) order, up to ⌊P/M⌋, and up to ⌊P/M⌋+1 while
// some of the P mod M larger slots are left (KAFKA-18688: a member that held
// more keeps one extra); with before, up to the first P mod M members'
// ⌊P/M⌋+1 and the others' ⌊P/M⌋. It returns the larger slots left.
func uniformKeep(g Group, topicIx *topicIndex, base []int, owner []int32, sizes []int, before bool) int {
	total, members := base[len(base)-1], len(g.Members)
	minQuota, extras := total/members, total%members
	for i, m := range g.Members {
		limit := minQuota // before KAFKA-18688: the first P mod M get one more
		if before && i < total%members {
			limit++
		}
		ownedDense(m, topicIx, base, func(d int) {
			if owner[d] != 0 {
				return // kept by an earlier member
			}
			switch {
			case before:
				if sizes[i] >= limit {
					return
				}
			case sizes[i] < minQuota:
			case sizes[i] == minQuota && extras > 0:
				extras-- // a member that held more keeps one extra
			default:
				return
			}
			owner[d] = int32(i + 1)
			sizes[i]++
		})
	}
	return extras
}

// uniformTargets returns each member's final size, of total partitions
// over len(sizes) members, after the Keep step left it sizes and extras of
// the total mod members larger slots: ⌊P/M⌋, or ⌊P/M⌋+1 for a member that
// kept that many and, in member ID order, for members that kept at most
// ⌊P/M⌋ while larger slots remain; with before, ⌊P/M⌋+1 for the first
// P mod M members.
func uniformTargets(sizes []int, total, extras int, before bool) []int {
	members := len(sizes)
	minQuota := total / members
	targets := make([]int, members)
	for i, n := range sizes {
		switch {
		case before:
			targets[i] = minQuota
			if i < total%members {
				targets[i]++
			}
		case n > minQuota:
			targets[i] = n
		case extras > 0:
			targets[i] = minQuota + 1
			extras--
		default:
			targets[i] = minQuota
		}
	}
	return targets
}

// fresh reports whether no member of g owns anything: a first assignment.
func fresh(g Group) bool {
	for _, m := range g.Members {
		if len(m.Owned) > 0 {
			return false
		}
	}
	return true
}

// uniformFresh is uniformHomogeneous for a group in which nobody owns
// anything: nothing is kept, and the fill gives each member, in member ID
// order, the next ⌊P/M⌋ or ⌊P/M⌋+1 partitions in (topic, partition) order,
// so each member's set is one run of the dense order, written directly.
func uniformFresh(g Group, topics []string, base []int, before bool) spec.Assignment {
	total, members := base[len(topics)], len(g.Members)
	minQuota, extras := total/members, total%members
	backing := make([]spec.Resource, total)
	out := make(spec.Assignment, members)
	t, d := 0, 0
	for i, m := range g.Members {
		size := minQuota
		switch {
		case before:
			if i < total%members {
				size++
			}
		case extras > 0:
			size++
			extras--
		}
		if size == 0 {
			out[m.ID] = nil
			continue
		}
		set := backing[d : d+size : d+size]
		for rest := set; len(rest) > 0; {
			for d >= base[t+1] {
				t++
			}
			run := rest[:min(len(rest), base[t+1]-d)]
			name, p := topics[t], int32(d-base[t])
			for k := range run {
				run[k] = spec.Resource{Topic: name, Partition: p + int32(k)}
			}
			d += len(run)
			rest = rest[len(run):]
		}
		out[m.ID] = spec.Set(set)
	}
	return out
}

// collectDense turns the dense owner table of uniformHomogeneous (owner
// i+1 per partition, sizes[i] partitions for member i) into an Assignment
// naming every member of g, each set capped, nil for a member without
// partitions, and errServerUnassigned if a partition was left without an
// owner.
//
// With unchanged nil, the sets are slices of one backing array, as
// serverHetero.collect builds them. Otherwise a member with unchanged[i]
// (its set is exactly its Owned set) gets its Owned set itself (sets are
// immutable), and every other member a set of its own: a next-gen
// coordinator keeps each member's target until it changes, and sets cut
// from one array per round would keep that round's array alive for as
// long as any of them stays a target. In a rebalance that moves little
// nearly every member is unchanged, and copying their sets into a new
// array each round cost more than the rest of the assignment at a
// thousand members over a hundred thousand partitions (docs/costs.md,
// Scale).
func collectDense(g Group, topics []string, base []int, owner []int32, sizes []int, unchanged []bool) (spec.Assignment, error) {
	for _, o := range owner {
		if o == 0 {
			return nil, errServerUnassigned
		}
	}
	if unchanged == nil {
		backing := make([]spec.Resource, len(owner))
		next := make([]int, len(g.Members))
		off := 0
		for i := range g.Members {
			next[i] = off
			off += sizes[i]
		}
		eachRun(topics, base, owner, func(i int, name string, p, q int) {
			dst := backing[next[i] : next[i]+q-p]
			for k := range dst {
				dst[k] = spec.Resource{Topic: name, Partition: int32(p + k)}
			}
			next[i] += q - p
		})
		return splitBacking(g.Members, backing, sizes), nil
	}
	sets := make([]spec.Set, len(g.Members))
	for i, m := range g.Members {
		switch {
		case unchanged[i]:
			sets[i] = slices.Clip(m.Owned)
		case sizes[i] > 0:
			sets[i] = make(spec.Set, 0, sizes[i])
		}
	}
	eachRun(topics, base, owner, func(i int, name string, p, q int) {
		if !unchanged[i] {
			for k := p; k < q; k++ {
				sets[i] = append(sets[i], spec.Resource{Topic: name, Partition: int32(k)})
			}
		}
	})
	out := make(spec.Assignment, len(g.Members))
	for i, m := range g.Members {
		out[m.ID] = sets[i]
	}
	return out, nil
}

// eachRun calls f for every run of consecutive partitions of one topic
// that owner gives one member, in dense order: member i (owner i+1) gets
// partitions p to q-1 of topic name.
func eachRun(topics []string, base []int, owner []int32, f func(i int, name string, p, q int)) {
	for t, name := range topics {
		row := owner[base[t]:base[t+1]]
		for p := 0; p < len(row); {
			i := row[p] - 1
			q := p + 1
			for q < len(row) && row[q] == i+1 {
				q++
			}
			f(int(i), name, p, q)
			p = q
		}
	}
}

// splitBacking cuts backing into one set per member, in member order:
// member i gets the next sizes[i] resources (already sorted), and nil when
// sizes[i] is 0. The sets share backing, each capped at its own length.
func splitBacking(members []Member, backing []spec.Resource, sizes []int) spec.Assignment {
	out := make(spec.Assignment, len(members))
	off := 0
	for i, m := range members {
		if sizes[i] > 0 {
			out[m.ID] = spec.Set(backing[off : off+sizes[i] : off+sizes[i]])
		} else {
			out[m.ID] = nil
		}
		off += sizes[i]
	}
	return out
}
