package assign

import (
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// Range returns Kafka's range assignor, protocol name "range"
// (clients/.../consumer/RangeAssignor.java, with KIP-881's rack awareness;
// without racks it is also the server-side group-coordinator
// RangeAssignor).
//
// For each topic of the universe, independently, the n members that
// subscribe to it are ordered as both Kafka implementations order them:
// static members (non-empty InstanceID) first, by instance ID, then dynamic
// members, by member ID. With P partitions, the i-th of them gets the
// contiguous range starting at i*(P/n) + min(i, P mod n), of length P/n plus
// one for the first P mod n members.
//
// Racks (KIP-881). When some member has a Rack and Group.ReplicaRacks is
// set, a topic needs rack-aware assignment if one of its subscribers' racks
// holds a replica of it and its partitions are not all on the same set of
// racks (Kafka's useRackAwareAssignment). If no topic needs it, the result
// is the plain one above, unchanged. Otherwise, as Kafka does: topics with
// the same subscribers (and racks) and the same number of partitions are
// taken together, partition p of all of them going to the first
// subscriber, in the order above, whose rack holds a replica of p of every
// one of them (a member without a rack matches anything) and that is under
// its quota for each; a topic that needs racks and is not co-partitioned
// that way gives each subscriber in order the lowest partitions on its rack,
// up to its quota; then every topic hands out what is left as plain ranges
// of the lowest free partitions, each subscriber up to its quota. The quota
// is ⌊P/n⌋, or ⌊P/n⌋+1 while fewer than P mod n subscribers have taken
// that many. Rack alignment is best effort: balance and co-partitioning
// come first.
//
// Guarantees (with or without racks unless said):
//
//   - Completeness: every partition of every subscribed, existing topic is
//     assigned to exactly one of its subscribers.
//   - Balance is per topic: each topic's subscribers' counts differ by at
//     most one (⌊P/n⌋ or ⌊P/n⌋+1, exactly P mod n the larger); without
//     racks the larger counts come first in the order above, and each
//     subscriber's partitions are one contiguous range. Across topics
//     the assignment can be unbalanced (the first members get every topic's
//     extra partition), with identical subscriptions too; with
//     heterogeneous subscriptions "balanced" means only this per-topic
//     property.
//   - Co-partitioning: two topics with the same number of partitions and
//     the same subscribers are split identically, every subscriber getting
//     the same partition numbers of both (so with identical subscriptions,
//     every member gets the same partition numbers of every topic of equal
//     size, which is what joins need).
//   - Determinism: the result is a function of the member IDs, instance
//     IDs, subscriptions and partition counts only, plus, when racks are
//     used, member racks and replica racks.
//   - Stickiness: none. Range ignores Owned and Generation, so a member
//     keeps its partitions only while the membership, subscriptions and
//     partition counts do not change (static instance IDs keep a member's
//     place across restarts); then nothing moves, so nothing moves back
//     and forth.
//   - Racks: rack-aware as described above. Without a member rack, or
//     without replica racks, or when each topic's partitions all have
//     replicas on the same racks, the result is exactly the plain one; racks never break
//     completeness, per-topic balance or co-partitioning.
func Range() Assignor { return rangeAssignor{} }

type rangeAssignor struct{}

func (rangeAssignor) Name() string { return "range" }

// Balance is spec.CheckTopicBalance: range spreads each topic over its
// subscribers, not the members' totals (BalancedAssignor).
func (rangeAssignor) Balance(v spec.View) []spec.Violation { return spec.CheckTopicBalance(v) }

func (r rangeAssignor) Assign(g Group) (spec.Assignment, error) {
	if err := ValidateGroup(g); err != nil {
		return nil, err
	}
	return r.assignValid(g)
}

// assignValid is Assign on a group ValidateGroup accepted (AssignValid).
func (rangeAssignor) assignValid(g Group) (spec.Assignment, error) {
	order := kafkaOrder(g.Members)
	if len(g.ReplicaRacks) > 0 && hasRack(g.Members) {
		if got, use := rangeWithRacks(g, order, true); use {
			out := make(spec.Assignment, len(g.Members))
			for i, m := range g.Members {
				out[m.ID] = got[i]
			}
			return out, nil
		}
	}
	subs := newSubscriptionTable(g)
	got := make([][]spec.Resource, len(g.Members))
	var subscribers []int
	// ranges calls share once per subscriber of each topic, in topic order
	// then Kafka's member order: member i gets partitions [start,
	// start+length) of topic t.
	ranges := func(share func(t string, i int, start, length int32)) {
		for _, t := range subscribedTopics(g) {
			subs.load(t)
			subscribers = subscribers[:0]
			for _, i := range order {
				if subs.has(i) {
					subscribers = append(subscribers, i)
				}
			}
			p, n := g.Topics[t], int32(len(subscribers))
			quota, extra := p/n, p%n
			for k, i := range subscribers {
				k := int32(k)
				length := quota
				if k < extra {
					length++
				}
				share(t, i, k*quota+min(k, extra), length)
			}
		}
	}
	// Sized first, then filled: a large group's sets are allocated once.
	size := make([]int32, len(g.Members))
	ranges(func(_ string, i int, _, length int32) { size[i] += length })
	for i, n := range size {
		if n > 0 {
			got[i] = make([]spec.Resource, 0, n)
		}
	}
	ranges(func(t string, i int, start, length int32) {
		// Topics come in sorted order, so appending keeps each set sorted
		// (a Union per topic was quadratic in the topics).
		for q := start; q < start+length; q++ {
			got[i] = append(got[i], spec.TP(t, q))
		}
	})
	out := make(spec.Assignment, len(g.Members))
	for i, m := range g.Members {
		out[m.ID] = spec.Set(got[i])
	}
	return out, nil
}

// hasRack reports whether some member has a rack.
func hasRack(members []Member) bool {
	for _, m := range members {
		if m.Rack != "" {
			return true
		}
	}
	return false
}

// subscriptionTable answers "does member i subscribe to topic t" for one
// topic at a time, computing the answer once per distinct subscription:
// once per slice (members decoded together often share one), and once for
// a run of members whose slices differ but hold the same topics (each
// member of a classic group decodes its own metadata, and most subscribe
// alike).
type subscriptionTable struct {
	g Group
	// sub[i] is the index of member i's subscription among the distinct
	// ones; first[k] is a member with subscription k.
	sub, first []int
	// in[k] tells whether subscription k holds the loaded topic.
	in []bool
}

// newSubscriptionTable groups the members of g by subscription: by slice,
// and a slice new to it with the previous member's group when it holds
// the same topics.
func newSubscriptionTable(g Group) *subscriptionTable {
	s := &subscriptionTable{g: g, sub: make([]int, len(g.Members))}
	type key struct {
		p *string
		n int
	}
	index := map[key]int{}
	prev := -1
	for i, m := range g.Members {
		k := key{n: len(m.Topics)}
		if len(m.Topics) > 0 {
			k.p = &m.Topics[0]
		}
		j, ok := index[k]
		if !ok {
			if prev >= 0 && slices.Equal(g.Members[s.first[prev]].Topics, m.Topics) {
				j = prev
			} else {
				j = len(s.first)
				s.first = append(s.first, i)
			}
			index[k] = j
		}
		s.sub[i] = j
		prev = j
	}
	s.in = make([]bool, len(s.first))
	return s
}

// load makes has answer for topic t.
func (s *subscriptionTable) load(t string) {
	for k, i := range s.first {
		s.in[k] = inSubscription(s.g.Members[i], t)
	}
}

// has reports whether member i subscribes to the loaded topic.
func (s *subscriptionTable) has(i int) bool { return s.in[s.sub[i]] }
