package assign

import "github.com/rebalance-ref/rebalance/spec"

// Range returns Kafka's range assignor, protocol name "range"
// (clients/.../consumer/RangeAssignor.java without rack awareness, and the
// server-side group-coordinator RangeAssignor).
//
// For each topic of the universe, independently, the n members that
// subscribe to it are ordered as both Kafka implementations order them:
// static members (non-empty InstanceID) first, by instance ID, then dynamic
// members, by member ID. With P partitions, the i-th of them gets the
// contiguous range starting at i*(P/n) + min(i, P mod n), of length P/n plus
// one for the first P mod n members.
//
// Guarantees: every partition of every subscribed, existing topic is
// assigned, to a subscriber; per topic, subscribers' counts differ by at most
// one; members that subscribe to the same topics get the same partition
// numbers of every topic of equal size (co-partitioning). Across topics the
// assignment can be unbalanced (the first members get every topic's extra
// partition). Range ignores Owned, Generation and Rack: it is not sticky,
// except that static instance IDs keep a member's place across restarts.
func Range() Assignor { return rangeAssignor{} }

type rangeAssignor struct{}

func (rangeAssignor) Name() string { return "range" }

func (rangeAssignor) Assign(g Group) (spec.Assignment, error) {
	if err := ValidateGroup(g); err != nil {
		return nil, err
	}
	order := kafkaOrder(g.Members)
	subs := newSubscriptionTable(g)
	got := make([][]spec.Resource, len(g.Members))
	var subscribers []int
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
			start := k*quota + min(k, extra)
			length := quota
			if k < extra {
				length++
			}
			// Topics come in sorted order, so appending keeps each set
			// sorted (a Union per topic was quadratic in the topics).
			for q := start; q < start+length; q++ {
				got[i] = append(got[i], spec.TP(t, q))
			}
		}
	}
	out := make(spec.Assignment, len(g.Members))
	for i, m := range g.Members {
		out[m.ID] = spec.Set(got[i])
	}
	return out, nil
}

// subscriptionTable answers "does member i subscribe to topic t" for one
// topic at a time, computing the answer once per distinct subscription
// slice (members decoded together often share one).
type subscriptionTable struct {
	g Group
	// sub[i] is the index of member i's subscription among the distinct
	// ones; first[k] is a member with subscription k.
	sub, first []int
	// in[k] tells whether subscription k holds the loaded topic.
	in []bool
}

// newSubscriptionTable groups the members of g by subscription slice.
func newSubscriptionTable(g Group) *subscriptionTable {
	s := &subscriptionTable{g: g, sub: make([]int, len(g.Members))}
	type key struct {
		p *string
		n int
	}
	index := map[key]int{}
	for i, m := range g.Members {
		k := key{n: len(m.Topics)}
		if len(m.Topics) > 0 {
			k.p = &m.Topics[0]
		}
		j, ok := index[k]
		if !ok {
			j = len(s.first)
			index[k] = j
			s.first = append(s.first, i)
		}
		s.sub[i] = j
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
