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
	out := emptyAssignment(g)
	order := kafkaOrder(g.Members)
	for _, t := range subscribedTopics(g) {
		var subs []int
		for _, i := range order {
			if inSubscription(g.Members[i], t) {
				subs = append(subs, i)
			}
		}
		p, n := g.Topics[t], int32(len(subs))
		quota, extra := p/n, p%n
		for k, i := range subs {
			k := int32(k)
			start := k*quota + min(k, extra)
			length := quota
			if k < extra {
				length++
			}
			if length == 0 {
				continue
			}
			id := g.Members[i].ID
			out[id] = out[id].Union(spec.Range(t, start, start+length-1))
		}
	}
	return out, nil
}
