package assign

import "github.com/rebalance-ref/rebalance/spec"

// ServerRange returns the server-side (KIP-848) range assignor, Kafka's
// group-coordinator RangeAssignor, protocol name "range". Its name is the
// same as the client-side Range's because Kafka uses "range" for both; the
// two live in different namespaces there (group.consumer.assignors on the
// broker, partition.assignment.strategy on the client), so a caller that
// registers assignors by name must keep server-side and client-side ones
// apart. As for every server-side assignor, Member.Owned is read as the
// previous target (see Uniform) and Generation is unused; this snapshot of
// Kafka's RangeAssignor ignores the previous target altogether.
//
// Members are ordered with static members (non-empty InstanceID) first, by
// instance ID, then dynamic members, by member ID. For each live topic
// (existing, with partitions) with n subscribers and P partitions, the
// subscribers in that order get contiguous ranges, the first P mod n of them
// ⌊P/n⌋+1 partitions and the others ⌊P/n⌋. Subscriptions to topics that do
// not exist are ignored (Kafka throws PartitionAssignorException instead).
//
// Guarantees: every partition of every subscribed live topic is assigned to
// exactly one of its subscribers; balance is per topic: each topic's
// subscribers' counts differ by at most one, the larger counts first, and
// across topics the group can be unbalanced (the first members get every
// topic's extra partition), whatever the subscriptions. Co-partitioning: two
// topics with the same number of partitions and the same subscribers are
// split identically, every subscriber getting the same partition numbers of
// both (with identical subscriptions: of every two topics of equal size, as
// joins need). Determinism: the result depends only on subscriptions,
// instance IDs, member IDs and partition counts. It is not sticky, so static
// members keep their ranges across restarts only as long as the membership,
// subscriptions and topics do not change (and then nothing moves, so nothing
// moves back and forth). It is not rack-aware: it ignores Member.Rack
// (Kafka's rack-aware server-side range is not modelled). Without replica
// racks its result is the same as the client-side Range's.
func ServerRange() Assignor { return serverRangeAssignor{} }

type serverRangeAssignor struct{}

func (serverRangeAssignor) Name() string { return "range" }

func (r serverRangeAssignor) Assign(g Group) (spec.Assignment, error) {
	if err := ValidateGroup(g); err != nil {
		return nil, err
	}
	return r.assignValid(g)
}

// assignValid is Assign on a group ValidateGroup accepted (AssignValid).
func (serverRangeAssignor) assignValid(g Group) (spec.Assignment, error) {
	// Kafka walks members in order and, for each, its topics, handing out
	// the next range of each topic; per topic that is the same as walking
	// the topic's subscribers in member order.
	type cursor struct {
		subscribers, next, quota, extra int32
	}
	order := kafkaOrder(g.Members)
	// live[i] lists the live topics of member i's subscription, in order,
	// as indexes into names; members sharing a subscription slice share it.
	var names []string
	index := map[string]int{}
	live := make([][]int, len(g.Members))
	type key struct {
		p *string
		n int
	}
	seen := map[key][]int{}
	for i, m := range g.Members {
		var k key
		if len(m.Topics) > 0 {
			k = key{&m.Topics[0], len(m.Topics)}
			if l, ok := seen[k]; ok {
				live[i] = l
				continue
			}
		}
		var l []int
		for _, t := range m.Topics {
			if !serverLive(g.Topics, t) {
				continue
			}
			j, ok := index[t]
			if !ok {
				j = len(names)
				index[t] = j
				names = append(names, t)
			}
			l = append(l, j)
		}
		live[i] = l
		if k.p != nil {
			seen[k] = l
		}
	}
	cursors := make([]cursor, len(names))
	for _, i := range order {
		for _, j := range live[i] {
			cursors[j].subscribers++
		}
	}
	for j := range cursors {
		c := &cursors[j]
		p := g.Topics[names[j]]
		c.quota, c.extra = p/c.subscribers, p%c.subscribers
	}
	out := make(spec.Assignment, len(g.Members))
	for _, i := range order {
		var set spec.Set
		for _, j := range live[i] { // sorted topics, so set stays sorted
			c := &cursors[j]
			n := c.quota
			if c.extra > 0 {
				n++
				c.extra--
			}
			for q := c.next; q < c.next+n; q++ {
				set = append(set, spec.TP(names[j], q))
			}
			c.next += n
		}
		out[g.Members[i].ID] = set
	}
	return out, nil
}
