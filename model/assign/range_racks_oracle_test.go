package assign

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// This file keeps the first, straightforward implementation of the
// rack-aware Range (KIP-881) as an oracle: the optimised range_racks.go
// must give exactly (reflect.DeepEqual) its results. The old code is copied
// unchanged but for the names (old...).

// oldRangeAssign is Range().Assign with the old rack-aware path; groups for
// which it does not apply get the plain range assignment.
func oldRangeAssign(g Group) (spec.Assignment, error) {
	if err := ValidateGroup(g); err != nil {
		return nil, err
	}
	order := kafkaOrder(g.Members)
	if len(g.ReplicaRacks) > 0 && hasRack(g.Members) {
		if topics, use := oldRangeRackTopics(g, order); use {
			got := make([][]spec.Resource, len(g.Members))
			oldAssignRangeWithRacks(topics, got)
			out := make(spec.Assignment, len(g.Members))
			for i, m := range g.Members {
				out[m.ID] = spec.NewSet(got[i]...)
			}
			return out, nil
		}
	}
	plain := g
	plain.ReplicaRacks = nil
	return Range().Assign(plain)
}

// oldRangeTopic is Kafka's TopicAssignmentState: one subscribed topic with
// partitions, while rack-aware range fills it.
type oldRangeTopic struct {
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

// oldRangeRackTopics returns the rack-aware states of the subscribed topics of
// the valid group g with partitions, and whether some topic needs
// rack-aware assignment (if none does, Range is the plain assignment).
func oldRangeRackTopics(g Group, order []int) ([]*oldRangeTopic, bool) {
	var out []*oldRangeTopic
	use := false
	for _, t := range subscribedTopics(g) {
		p := int(g.Topics[t])
		if p == 0 {
			continue
		}
		rt := &oldRangeTopic{name: t, assigned: make([]bool, p), left: p}
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
func (rt *oldRangeTopic) racksMatch(k, p int) bool {
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
func (rt *oldRangeTopic) maxAssignable(k int) int {
	limit := rt.quota
	if rt.extra > 0 {
		limit++
	}
	return max(0, limit-rt.count[k])
}

// give records that consumer k took the partitions ps (Kafka's
// onAssigned) and adds them to got.
func (rt *oldRangeTopic) give(k int, ps []int, got [][]spec.Resource) {
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
func (rt *oldRangeTopic) assignRanges(mayAssign func(k, p int) bool, got [][]spec.Resource) {
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

// oldAssignCoPartitioned is Kafka's assignCoPartitionedWithRackMatching for
// topics with the same consumers and the same number of partitions n (as
// Kafka counts it: 0 for topics whose consumers have no racks): partition p
// of every one of them goes to the first remaining consumer that matches the
// racks of partition p of all of them and may take one more of each.
func oldAssignCoPartitioned(topics []*oldRangeTopic, n int, got [][]spec.Resource) {
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

// oldSameConsumers reports whether a and b have the same consumers with the
// same racks (Kafka groups states by that LinkedHashMap).
func oldSameConsumers(a, b *oldRangeTopic) bool {
	return slices.Equal(a.consumers, b.consumers) && slices.Equal(a.racks, b.racks)
}

// rackPartitions is the partition count Kafka groups co-partitioned topics
// by: the size of its partition → racks map, which is empty when no
// consumer of the topic has a rack.
func (rt *oldRangeTopic) rackPartitions() int { return len(rt.replicaRacks) }

// oldAssignRangeWithRacks is Kafka's rack-aware assignPartitions on topics, at
// least one of which needs racks: rack matching first (co-partitioned
// groups of topics together, other topics that need racks alone), then
// plain ranges for what is left. Every topic is in exactly one group, and
// groups share no state, so the order of the groups does not matter.
func oldAssignRangeWithRacks(topics []*oldRangeTopic, got [][]spec.Resource) {
	done := make([]bool, len(topics))
	for a, rt := range topics {
		if done[a] {
			continue
		}
		group := []*oldRangeTopic{rt}
		for b := a + 1; b < len(topics); b++ {
			if !done[b] && oldSameConsumers(rt, topics[b]) && rt.rackPartitions() == topics[b].rackPartitions() {
				group = append(group, topics[b])
				done[b] = true
			}
		}
		switch {
		case len(group) > 1:
			oldAssignCoPartitioned(group, rt.rackPartitions(), got)
		case rt.needsRacks:
			rt.assignRanges(rt.racksMatch, got)
		}
	}
	for _, rt := range topics {
		rt.assignRanges(nil, got)
	}
}

// genRangeRackGroup draws a valid group for the rack-aware Range: 1-10
// members (some static, some sharing one subscription slice), 1-6 topics
// whose partition counts often coincide, homogeneous subscriptions, a few
// shared subscription profiles (so that topics often have the same
// subscribers) or random ones; member racks from a pool of 0-4 racks (some
// members without); replica racks of 1-3 racks per partition (duplicates
// and a rack no member is on included), unknown for some topics, sometimes
// on every rack, sometimes the same for partition p of every topic.
func genRangeRackGroup(t *rapid.T) Group {
	names := []string{"a", "b", "c", "d", "e", "f"}[:rapid.IntRange(1, 6).Draw(t, "topics")]
	counts := []int32{int32(rapid.IntRange(0, 9).Draw(t, "count-0")), int32(rapid.IntRange(0, 9).Draw(t, "count-1"))}
	g := Group{Topics: spec.Topics{}}
	for _, n := range names {
		if rapid.IntRange(0, 3).Draw(t, "own-count") == 0 {
			g.Topics[n] = int32(rapid.IntRange(0, 9).Draw(t, "partitions"))
		} else {
			g.Topics[n] = rapid.SampledFrom(counts).Draw(t, "shared-count")
		}
	}
	subscription := func() []string {
		var subs []string
		for _, name := range names {
			if rapid.IntRange(0, 3).Draw(t, "subscribe") > 0 {
				subs = append(subs, name)
			}
		}
		if rapid.IntRange(0, 9).Draw(t, "ghost") == 0 {
			subs = append(subs, "zz-missing")
		}
		return subs
	}
	profiles := [][]string{subscription()}
	kind := rapid.IntRange(0, 2).Draw(t, "subscriptions") // homogeneous, profiles, random
	if kind == 1 {
		for range rapid.IntRange(0, 2).Draw(t, "more-profiles") {
			profiles = append(profiles, subscription())
		}
	}
	pool := []string{"r0", "r1", "r2", "r3"}[:rapid.IntRange(0, 4).Draw(t, "racks")]
	n := rapid.IntRange(1, 10).Draw(t, "members")
	instances := rapid.Permutation([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}).Draw(t, "instances")
	g.Members = make([]Member, n)
	for i := range g.Members {
		m := Member{ID: spec.MemberID(fmt.Sprintf("m%d", i))}
		switch kind {
		case 2:
			m.Topics = subscription()
		default:
			m.Topics = rapid.SampledFrom(profiles).Draw(t, "profile")
			if rapid.Bool().Draw(t, "own-slice") {
				m.Topics = slices.Clone(m.Topics)
			}
		}
		if rapid.IntRange(0, 2).Draw(t, "static") == 0 {
			m.InstanceID = fmt.Sprintf("i%d", instances[i])
		}
		if len(pool) > 0 && rapid.IntRange(0, 4).Draw(t, "has-rack") > 0 {
			m.Rack = rapid.SampledFrom(pool).Draw(t, "rack")
		}
		g.Members[i] = m
	}
	if rapid.IntRange(0, 7).Draw(t, "no-replica-racks") == 0 {
		return g
	}
	replicas := append(slices.Clone(pool), "rx") // rx: no member is on it
	if len(pool) == 0 {
		replicas = append(replicas, "r0")
	}
	layout := rapid.IntRange(0, 5).Draw(t, "layout") // 0: everywhere, 1: same per index, else random
	shared := map[int32][][]string{}
	g.ReplicaRacks = map[string][][]string{}
	for _, name := range names {
		if rapid.IntRange(0, 6).Draw(t, "topic-racks-unknown") == 0 {
			continue
		}
		p := g.Topics[name]
		if layout == 1 && shared[p] != nil {
			g.ReplicaRacks[name] = shared[p] // the same slice, as Kafka's metadata may share
			continue
		}
		parts := make([][]string, p)
		for q := range parts {
			if layout == 0 {
				parts[q] = slices.Clone(replicas)
				continue
			}
			for range rapid.IntRange(1, 3).Draw(t, "replicas") {
				parts[q] = append(parts[q], rapid.SampledFrom(replicas).Draw(t, "replica-rack"))
			}
		}
		shared[p] = parts
		g.ReplicaRacks[name] = parts
	}
	if err := ValidateGroup(g); err != nil {
		t.Fatalf("generator made an invalid group: %v\n%s", err, rackGroupString(g))
	}
	return g
}

// TestRangeRacksMatchOldImplementation: Range gives exactly (reflect.DeepEqual,
// same error) what the first implementation of its rack-aware path gave,
// on random groups with racks.
func TestRangeRacksMatchOldImplementation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genRangeRackGroup(t)
		want, wantErr := oldRangeAssign(cloneGroup(g))
		got, err := Range().Assign(g)
		if !reflect.DeepEqual(err, wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("Range: %v (err %v)\nold:   %v (err %v)\ngroup: %s", got, err, want, wantErr, rackGroupString(g))
		}
	})
}

// TestRangeRacksListsMatchOldImplementation: with rack sets as sorted lists
// (the representation for more than maskRacks racks), the rack-aware path
// still gives exactly what the first implementation gave.
func TestRangeRacksListsMatchOldImplementation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genRangeRackGroup(t)
		want, err := oldRangeAssign(cloneGroup(g))
		if err != nil {
			t.Fatal(err)
		}
		got, use := rangeWithRacks(g, kafkaOrder(g.Members), false)
		_, oldUse := oldRangeRackTopics(g, kafkaOrder(g.Members))
		if use != oldUse {
			t.Fatalf("rack-aware %v, old %v\ngroup: %s", use, oldUse, rackGroupString(g))
		}
		if !use {
			return
		}
		out := spec.Assignment{}
		for i, m := range g.Members {
			out[m.ID] = got[i]
		}
		if !reflect.DeepEqual(out, want) {
			t.Fatalf("lists: %v\nold:   %v\ngroup: %s", out, want, rackGroupString(g))
		}
	})
}

// TestRangeManyRacksMatchOldImplementation: with more than maskRacks racks
// (Range starts with masks, meets a rack numbered maskRacks and starts again
// with lists), Range gives what the first implementation gave.
func TestRangeManyRacksMatchOldImplementation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genRangeRackGroup(t)
		// Partition 0 of every topic with replica racks gets maskRacks+6
		// more racks, no member's.
		for _, parts := range g.ReplicaRacks {
			if len(parts) > 0 {
				for k := range maskRacks + 6 {
					parts[0] = append(parts[0], fmt.Sprintf("x%02d", k))
				}
			}
		}
		want, wantErr := oldRangeAssign(cloneGroup(g))
		got, err := Range().Assign(g)
		if !reflect.DeepEqual(err, wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("Range: %v (err %v)\nold:   %v (err %v)\ngroup: %s", got, err, want, wantErr, rackGroupString(g))
		}
	})
}
