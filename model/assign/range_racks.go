package assign

import (
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// This file is the rack-aware half of the client-side Range (KIP-881;
// Kafka's RangeAssignor.assignPartitions since 3.5). Range takes it only
// when racks are known on both sides and matter for some topic; otherwise
// it is the plain range assignment, unchanged.

// rangeTopic is Kafka's TopicAssignmentState: one subscribed topic with
// partitions, while rack-aware range fills it.
type rangeTopic struct {
	name string
	// consumers are the topic's subscribers, as indexes into Group.Members,
	// in Kafka's member order (kafkaOrder); racks[k] is consumers[k]'s rack,
	// "" when it has none.
	consumers []int
	racks     []string
	// replicaRacks[p] is the set of racks of partition p's replicas, nil
	// for every partition when no subscriber of the topic has a rack
	// (Kafka builds an empty map then).
	replicaRacks [][]string
	// needsRacks is Kafka's needsRackAwareAssignment.
	needsRacks bool
	// assigned[p] reports that partition p has an owner; left counts the
	// partitions without one.
	assigned []bool
	left     int
	// count is the number of partitions each consumer (by position in
	// consumers) got; quota is ⌊P/n⌋, and extra the consumers that may
	// still get ⌊P/n⌋+1.
	count        []int
	quota, extra int
}

// rangeRackTopics returns the rack-aware states of the subscribed topics of
// the valid group g with partitions, and whether some topic needs
// rack-aware assignment (if none does, Range is the plain assignment).
func rangeRackTopics(g Group, order []int) ([]*rangeTopic, bool) {
	var out []*rangeTopic
	use := false
	for _, t := range subscribedTopics(g) {
		p := int(g.Topics[t])
		if p == 0 {
			continue
		}
		rt := &rangeTopic{name: t, assigned: make([]bool, p), left: p}
		consumerRacks := map[string]bool{}
		for _, i := range order {
			if inSubscription(g.Members[i], t) {
				rt.consumers = append(rt.consumers, i)
				rt.racks = append(rt.racks, g.Members[i].Rack)
				if r := g.Members[i].Rack; r != "" {
					consumerRacks[r] = true
				}
			}
		}
		n := len(rt.consumers)
		rt.count = make([]int, n)
		rt.quota, rt.extra = p/n, p%n
		partitionRacks := map[string]bool{}
		if len(consumerRacks) > 0 {
			rt.replicaRacks = make([][]string, p)
			known := g.ReplicaRacks[t]
			for q := range p {
				var set []string
				if known != nil {
					set = slices.Clone(known[q])
					slices.Sort(set)
					set = slices.Compact(set)
				}
				rt.replicaRacks[q] = set
				for _, r := range set {
					partitionRacks[r] = true
				}
			}
		}
		fewest := int(^uint(0) >> 1)
		for _, set := range rt.replicaRacks {
			fewest = min(fewest, len(set))
		}
		rt.needsRacks = useRackAware(consumerRacks, partitionRacks, fewest)
		use = use || rt.needsRacks
		out = append(out, rt)
	}
	return out, use
}

// racksMatch reports whether consumer k (by position) may take partition
// p in the rack-matching phase: it has no rack, or a replica of p is on
// its rack.
func (rt *rangeTopic) racksMatch(k, p int) bool {
	if rt.racks[k] == "" {
		return true
	}
	if rt.replicaRacks == nil {
		return false
	}
	_, ok := slices.BinarySearch(rt.replicaRacks[p], rt.racks[k])
	return ok
}

// maxAssignable is how many more partitions consumer k may take.
func (rt *rangeTopic) maxAssignable(k int) int {
	limit := rt.quota
	if rt.extra > 0 {
		limit++
	}
	return max(0, limit-rt.count[k])
}

// give records that consumer k took the partitions ps (Kafka's
// onAssigned) and adds them to got.
func (rt *rangeTopic) give(k int, ps []int, got [][]spec.Resource) {
	i := rt.consumers[k]
	for _, p := range ps {
		rt.assigned[p] = true
		got[i] = append(got[i], spec.TP(rt.name, int32(p)))
	}
	rt.left -= len(ps)
	rt.count[k] += len(ps)
	if rt.count[k] > rt.quota {
		rt.extra--
	}
}

// assignRanges is Kafka's assignRanges: each consumer in order takes the
// lowest unassigned partitions it may (mayAssign), up to maxAssignable.
func (rt *rangeTopic) assignRanges(mayAssign func(k, p int) bool, got [][]spec.Resource) {
	var ps []int
	for k := range rt.consumers {
		if rt.left == 0 {
			return
		}
		ps = ps[:0]
		limit := rt.maxAssignable(k)
		for p := 0; p < len(rt.assigned) && len(ps) < limit; p++ {
			if !rt.assigned[p] && (mayAssign == nil || mayAssign(k, p)) {
				ps = append(ps, p)
			}
		}
		if len(ps) > 0 {
			rt.give(k, ps, got)
		}
	}
}

// assignCoPartitioned is Kafka's assignCoPartitionedWithRackMatching for
// topics with the same consumers and the same number of partitions n (as
// Kafka counts it: 0 for topics whose consumers have no racks): partition p
// of every one of them goes to the first remaining consumer that matches the
// racks of partition p of all of them and may take one more of each.
func assignCoPartitioned(topics []*rangeTopic, n int, got [][]spec.Resource) {
	remaining := make([]int, len(topics[0].consumers))
	for k := range remaining {
		remaining[k] = k
	}
	for p := 0; p < n; p++ {
		at := slices.IndexFunc(remaining, func(k int) bool {
			for _, rt := range topics {
				if !rt.racksMatch(k, p) || rt.maxAssignable(k) <= 0 {
					return false
				}
			}
			return true
		})
		if at < 0 {
			continue
		}
		k := remaining[at]
		for _, rt := range topics {
			rt.give(k, []int{p}, got)
		}
		full := true
		for _, rt := range topics {
			if rt.maxAssignable(k) > 0 {
				full = false
			}
		}
		if full {
			remaining = slices.Delete(remaining, at, at+1)
			if len(remaining) == 0 {
				return
			}
		}
	}
}

// sameConsumers reports whether a and b have the same consumers with the
// same racks (Kafka groups states by that LinkedHashMap).
func sameConsumers(a, b *rangeTopic) bool {
	return slices.Equal(a.consumers, b.consumers) && slices.Equal(a.racks, b.racks)
}

// rackPartitions is the partition count Kafka groups co-partitioned topics
// by: the size of its partition → racks map, which is empty when no
// consumer of the topic has a rack.
func (rt *rangeTopic) rackPartitions() int { return len(rt.replicaRacks) }

// assignRangeWithRacks is Kafka's rack-aware assignPartitions on topics, at
// least one of which needs racks: rack matching first (co-partitioned
// groups of topics together, other topics that need racks alone), then
// plain ranges for what is left. Every topic is in exactly one group, and
// groups share no state, so the order of the groups does not matter.
func assignRangeWithRacks(topics []*rangeTopic, got [][]spec.Resource) {
	done := make([]bool, len(topics))
	for a, rt := range topics {
		if done[a] {
			continue
		}
		group := []*rangeTopic{rt}
		for b := a + 1; b < len(topics); b++ {
			if !done[b] && sameConsumers(rt, topics[b]) && rt.rackPartitions() == topics[b].rackPartitions() {
				group = append(group, topics[b])
				done[b] = true
			}
		}
		switch {
		case len(group) > 1:
			assignCoPartitioned(group, rt.rackPartitions(), got)
		case rt.needsRacks:
			rt.assignRanges(rt.racksMatch, got)
		}
	}
	for _, rt := range topics {
		rt.assignRanges(nil, got)
	}
}
