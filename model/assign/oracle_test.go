package assign

// This file keeps the assignors' implementations as they were before the
// performance work of issue 6 (dense indexes instead of maps of resources),
// verbatim but for the old- prefix, as the oracle of TestOracle*: the new
// code must return exactly what these return, for every input. One
// deliberate change since: issue 14 gave oldAssignHomogeneous Kafka's order
// of the kept claims (by partition, then topic) and Kafka's round-robin
// fill, as the constrained builder now has them.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/spec"
)

// oldClaim is the resolution of one claimed resource.
type oldClaim struct {
	// claimants are indexes into Group.Members, ascending.
	claimants []int
	// winner is the index of the member that wins the oldClaim, -1 if tied.
	winner int
}

// oldClaimTable holds the resolution of every claimed resource of a group.
type oldClaimTable map[spec.Resource]*oldClaim

// oldResolveClaims builds the oldClaim table of g. With keepTied (a deliberate
// fault, CooperativeOptions.KeepSameGenerationClaims), a tie at the highest
// generation goes to the tied claimant with the lowest member ID instead of
// to nobody.
func oldResolveClaims(g Group, keepTied bool) oldClaimTable {
	t := oldClaimTable{}
	for i, m := range g.Members {
		for _, r := range m.Owned {
			c := t[r]
			if c == nil {
				c = &oldClaim{}
				t[r] = c
			}
			c.claimants = append(c.claimants, i)
		}
	}
	for _, c := range t {
		c.winner = -1
		top, n := spec.NoGeneration-1, 0
		for _, i := range c.claimants {
			switch gen := g.Members[i].Generation; {
			case gen > top:
				top, n, c.winner = gen, 1, i
			case gen == top:
				n++
			}
		}
		if n > 1 {
			c.winner = -1
			if keepTied {
				for _, i := range c.claimants {
					if g.Members[i].Generation == top {
						c.winner = i
						break
					}
				}
			}
		}
	}
	return t
}

// won returns the claimed resources member i of g wins, sorted.
func (t oldClaimTable) won(g Group, i int) spec.Set {
	var out spec.Set
	for _, r := range g.Members[i].Owned {
		if t[r].winner == i {
			out = append(out, r)
		}
	}
	return out
}

// changesOwner reports whether giving r to member i of the group changes r's
// owner in this round: some other member claims r, and i is not the member
// that wins r's claims. This covers r owned by another member, r claimed by
// i at a stale generation while another member holds it at a newer one, and
// r tied between several claimants (i among them or not).
func (t oldClaimTable) changesOwner(r spec.Resource, i int) bool {
	c := t[r]
	if c == nil || c.winner == i {
		return false
	}
	return len(c.claimants) > 1 || c.claimants[0] != i
}

// oldWithhold returns a copy of a without every resource whose owner the
// assignment changes (changesOwner): KIP-429's cooperative rule, as Kafka's
// CooperativeStickyAssignor.adjustAssignment applies it. The resources stay
// unassigned for this round; their claimants revoke them, and the follow-up
// rebalance hands them out.
func oldWithhold(g Group, t oldClaimTable, a spec.Assignment) spec.Assignment {
	out := make(spec.Assignment, len(a))
	for i, m := range g.Members {
		out[m.ID] = a[m.ID].Filter(func(r spec.Resource) bool { return !t.changesOwner(r, i) })
	}
	return out
}

// oldStickyTarget computes the sticky assignment of the valid group g whose
// claims resolve to claims. forceGeneral skips the homogeneous fast path
// (tests use it to check that both paths reach the same optimum).
func oldStickyTarget(g Group, claims oldClaimTable, forceGeneral bool) spec.Assignment {
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
		return oldAssignHomogeneous(g, eff[0], won)
	}
	return oldAssignGeneral(g, eff, won, racksUndecided)
}

// oldAssignHomogeneous is the constrained builder for a group whose members
// all subscribe to topics (their effective subscription). won[i] holds the
// claims member i won, restricted to topics.
func oldAssignHomogeneous(g Group, topics []string, won []spec.Set) spec.Assignment {
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

	// Keep: each member its won claims up to its quota, by partition, then
	// topic (Kafka's ConstrainedAssignmentBuilder.assignOwnedPartitions).
	kept := make([]spec.Set, n)
	taken := make(map[spec.Resource]bool)
	for i := range n {
		byPartition := slices.Clone(won[i])
		slices.SortStableFunc(byPartition, func(a, b spec.Resource) int {
			if a.Partition != b.Partition {
				return int(a.Partition - b.Partition)
			}
			return strings.Compare(a.Topic, b.Topic)
		})
		k := min(len(byPartition), quota[i])
		kept[i] = spec.NewSet(byPartition[:k]...)
		for _, r := range byPartition[:k] {
			taken[r] = true
		}
	}

	// Fill: each free resource, in order, round-robin over the members
	// below minQuota (member order, one each per pass, leaving at
	// minQuota); then one each to the members at minQuota with room, those
	// there before the fill first, then in the order they got there
	// (Kafka's ConstrainedAssignmentBuilder.assignRoundRobin).
	load := make([]int, n)
	var under, waiting []int
	for i := range n {
		load[i] = kept[i].Len()
		switch {
		case load[i] < minQuota:
			under = append(under, i)
		case load[i] < quota[i]:
			waiting = append(waiting, i)
		}
	}
	added := make([][]spec.Resource, n)
	pos := 0
	for _, r := range all {
		if taken[r] {
			continue
		}
		if len(under) == 0 {
			if len(waiting) == 0 {
				panic("assign: sticky homogeneous fill ran out of members")
			}
			i := waiting[0]
			waiting = waiting[1:]
			added[i] = append(added[i], r)
			load[i]++
			continue
		}
		if pos >= len(under) {
			pos = 0
		}
		i := under[pos]
		added[i] = append(added[i], r)
		load[i]++
		if load[i] < minQuota {
			pos++
			continue
		}
		under = slices.Delete(under, pos, pos+1)
		if load[i] < quota[i] {
			waiting = append(waiting, i)
		}
	}
	if len(under) != 0 || len(waiting) != 0 {
		panic("assign: sticky homogeneous fill left a member under quota")
	}

	out := make(spec.Assignment, n)
	for i, m := range g.Members {
		out[m.ID] = kept[i].Union(spec.Set(added[i]))
	}
	return out
}

// oldValidateGroup returns an error wrapping ErrInvalidGroup when g is not a
// well-formed assignor input, and nil otherwise. It never panics. It rejects,
// reporting the first problem in a fixed order (universe, then members in
// order, then each member's fields):
//
//   - a topic of the universe with an empty name or a negative partition count;
//   - a member with an empty ID, members not sorted by ID, or two members with
//     the same ID;
//   - two members with the same non-empty InstanceID (the coordinator would
//     have fenced one of them);
//   - a subscription with an empty topic name, or one that is not sorted or
//     lists a topic twice;
//   - an Owned set that is not a valid spec.Set (unsorted, duplicates, an
//     invalid Resource);
//   - an owned resource of a topic that is not in the universe, or whose
//     partition is out of range (this includes a Connect connector resource,
//     partition -1, which is never a topic-partition);
//   - a generation below spec.NoGeneration.
//
// A subscription may name topics that are not in the universe (metadata not
// yet known, or a deleted topic); assignors ignore them. A member may own
// resources of topics it no longer subscribes to; assignors take them away.
// Callers whose members may still oldClaim partitions of deleted topics can
// drop those claims first with PruneOwned.
//
// Every assignor in this package calls oldValidateGroup first and returns its
// error unchanged.
func oldValidateGroup(g Group) error {
	for _, t := range g.Topics.Names() {
		if t == "" {
			return fmt.Errorf("%w: the universe has a topic with an empty name", ErrInvalidGroup)
		}
		if n := g.Topics[t]; n < 0 {
			return fmt.Errorf("%w: topic %q has a negative partition count %d", ErrInvalidGroup, t, n)
		}
	}
	instances := map[string]spec.MemberID{}
	for i, m := range g.Members {
		if m.ID == "" {
			return fmt.Errorf("%w: member %d has an empty member ID", ErrInvalidGroup, i)
		}
		if i > 0 {
			prev := g.Members[i-1].ID
			if prev == m.ID {
				return fmt.Errorf("%w: member ID %q appears twice", ErrInvalidGroup, m.ID)
			}
			if prev > m.ID {
				return fmt.Errorf("%w: members not sorted by ID: %q listed after %q", ErrInvalidGroup, m.ID, prev)
			}
		}
		if m.InstanceID != "" {
			if other, dup := instances[m.InstanceID]; dup {
				return fmt.Errorf("%w: members %q and %q share instance ID %q", ErrInvalidGroup, other, m.ID, m.InstanceID)
			}
			instances[m.InstanceID] = m.ID
		}
		for j, t := range m.Topics {
			if t == "" {
				return fmt.Errorf("%w: member %q subscribes to a topic with an empty name", ErrInvalidGroup, m.ID)
			}
			if j > 0 {
				prev := m.Topics[j-1]
				if prev == t {
					return fmt.Errorf("%w: member %q lists topic %q twice in its subscription", ErrInvalidGroup, m.ID, t)
				}
				if prev > t {
					return fmt.Errorf("%w: member %q subscription not sorted: %q listed after %q", ErrInvalidGroup, m.ID, t, prev)
				}
			}
		}
		if err := m.Owned.Validate(); err != nil {
			return fmt.Errorf("%w: member %q owned set: %v", ErrInvalidGroup, m.ID, err)
		}
		for _, r := range m.Owned {
			n, ok := g.Topics[r.Topic]
			if !ok {
				return fmt.Errorf("%w: member %q owns %s of topic %q, which does not exist", ErrInvalidGroup, m.ID, r, r.Topic)
			}
			if r.Partition < 0 || r.Partition >= n {
				return fmt.Errorf("%w: member %q owns %s, out of range for topic %q with %d partitions", ErrInvalidGroup, m.ID, r, r.Topic, n)
			}
		}
		if m.Generation < spec.NoGeneration {
			return fmt.Errorf("%w: member %q has generation %d, below %d", ErrInvalidGroup, m.ID, m.Generation, spec.NoGeneration)
		}
	}
	return nil
}

// oldServerHomogeneous reports whether every member of g subscribes to the same
// live topics (Kafka's SubscriptionType.HOMOGENEOUS; a group without members
// or where nobody subscribes to anything live is homogeneous), and returns
// those topics.
func oldServerHomogeneous(g Group) ([]string, bool) {
	if len(g.Members) == 0 {
		return nil, true
	}
	first := g.Members[0].Topics
	for _, m := range g.Members[1:] {
		if !oldServerSameSubscription(g.Topics, first, m.Topics) {
			return nil, false
		}
	}
	return oldServerSubscription(g, g.Members[0]), true
}

// oldServerOwners is a target being built: for each considered topic, the index
// (into Group.Members) of the member each partition goes to, -1 while it is
// unassigned.
type oldServerOwners map[string][]int32

// oldNewServerOwners returns an empty table for the given topics of g.
func oldNewServerOwners(g Group, topics []string) oldServerOwners {
	total := 0
	for _, t := range topics {
		total += int(g.Topics[t])
	}
	backing := make([]int32, total)
	for i := range backing {
		backing[i] = -1
	}
	o := make(oldServerOwners, len(topics))
	for _, t := range topics {
		n := int(g.Topics[t])
		o[t] = backing[:n:n]
		backing = backing[n:]
	}
	return o
}

// collect turns the table into an Assignment naming every member of g;
// topics must be sorted. It allocates one backing array for all sets and
// caps each member's slice, so appending to one set never touches another.
func (o oldServerOwners) collect(g Group, topics []string) (spec.Assignment, error) {
	sizes := make([]int, len(g.Members))
	total := 0
	for _, t := range topics {
		for _, i := range o[t] {
			if i < 0 {
				return nil, errServerUnassigned
			}
			sizes[i]++
			total++
		}
	}
	backing := make([]spec.Resource, total)
	next := make([]int, len(g.Members))
	off := 0
	for i := range g.Members {
		next[i] = off
		off += sizes[i]
	}
	for _, t := range topics {
		for p, i := range o[t] {
			backing[next[i]] = spec.Resource{Topic: t, Partition: int32(p)}
			next[i]++
		}
	}
	out := make(spec.Assignment, len(g.Members))
	off = 0
	for i, m := range g.Members {
		if sizes[i] > 0 {
			out[m.ID] = spec.Set(backing[off : off+sizes[i] : off+sizes[i]])
		} else {
			out[m.ID] = nil
		}
		off += sizes[i]
	}
	return out, nil
}

// oldUniformHomogeneous is the homogeneous builder documented on Uniform:
// topics are the common live subscription, sorted. With before set, the
// extra slots go to the first P mod M members instead (UniformOptions).
func oldUniformHomogeneous(g Group, topics []string, before bool) (spec.Assignment, error) {
	if len(g.Members) == 0 || len(topics) == 0 {
		return emptyAssignment(g), nil
	}
	owners := oldNewServerOwners(g, topics)
	total := 0
	for _, t := range topics {
		total += int(g.Topics[t])
	}
	members := len(g.Members)
	minQuota, extras := total/members, total%members
	sizes := make([]int, members)

	// quota is the size member i may reach before KAFKA-18688: the first
	// total mod members members get one more.
	quota := func(i int) int {
		if i < total%members {
			return minQuota + 1
		}
		return minQuota
	}

	// Keep.
	for i, m := range g.Members {
		for _, r := range m.Owned {
			row, ok := owners[r.Topic]
			if !ok || row[r.Partition] >= 0 {
				continue // unsubscribed, or kept by an earlier member
			}
			switch {
			case before:
				if sizes[i] >= quota(i) {
					continue
				}
			case sizes[i] < minQuota:
			case sizes[i] == minQuota && extras > 0:
				extras-- // a member that held more keeps one extra
			default:
				continue
			}
			row[r.Partition] = int32(i)
			sizes[i]++
		}
	}

	// Fill, in (topic, partition) order: ti and p walk the table.
	ti, p := 0, 0
	var row []int32
	if len(topics) > 0 {
		row = owners[topics[0]]
	}
	for i := range g.Members {
		target := minQuota
		switch {
		case before:
			target = quota(i)
		case sizes[i] <= minQuota && extras > 0:
			target = minQuota + 1
			extras--
		}
		for sizes[i] < target {
			for p < len(row) && row[p] >= 0 {
				p++
			}
			if p == len(row) {
				if ti++; ti == len(topics) {
					return nil, errServerUnassigned
				}
				row, p = owners[topics[ti]], 0
				continue
			}
			row[p] = int32(i)
			sizes[i]++
		}
	}
	return owners.collect(g, topics)
}

// summary turns the table into the exported Claims.
func (t oldClaimTable) summary(g Group) Claims {
	c := Claims{Won: make(spec.Assignment, len(g.Members))}
	for i, m := range g.Members {
		c.Won[m.ID] = t.won(g, i)
	}
	for _, r := range slices.SortedFunc(maps.Keys(t), spec.Resource.Compare) {
		if len(t[r].claimants) > 1 {
			c.Contested = append(c.Contested, r)
			if t[r].winner < 0 {
				c.Tied = append(c.Tied, r)
			}
		}
	}
	return c
}

// oldServerSubscription returns the topics of m's subscription that are live
// in g (see serverLive), in order.
func oldServerSubscription(g Group, m Member) []string {
	var out []string
	for _, t := range m.Topics {
		if serverLive(g.Topics, t) {
			out = append(out, t)
		}
	}
	return out
}

// oldServerSameSubscription reports whether the sorted subscriptions a and b
// name the same live topics of topics, without allocating.
func oldServerSameSubscription(topics spec.Topics, a, b []string) bool {
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

// oldSticky is Sticky().Assign before issue 6.
func oldSticky(g Group) (spec.Assignment, error) {
	if err := oldValidateGroup(g); err != nil {
		return nil, err
	}
	return oldStickyTarget(g, oldResolveClaims(g, false), false), nil
}

// oldCooperative is CooperativeStickyWith(opts).Assign before issue 6.
func oldCooperative(g Group, opts CooperativeOptions) (spec.Assignment, error) {
	if err := oldValidateGroup(g); err != nil {
		return nil, err
	}
	claims := oldResolveClaims(g, opts.KeepSameGenerationClaims)
	target := oldStickyTarget(g, claims, false)
	if opts.NoWithholding {
		return target, nil
	}
	return oldWithhold(g, claims, target), nil
}

// oldUniform is UniformWith(opts).Assign before issue 6.
func oldUniform(g Group, opts UniformOptions) (spec.Assignment, error) {
	if err := oldValidateGroup(g); err != nil {
		return nil, err
	}
	if topics, ok := oldServerHomogeneous(g); ok {
		return oldUniformHomogeneous(g, topics, opts.BeforeKafka18688)
	}
	a, _, err := oldUniformHeterogeneous(g)
	return a, err
}

// oldServerMaxBalancePasses bounds the balancing phase of the heterogeneous
// builder: the number of full passes over the topics (Kafka's
// UniformHeterogeneousAssignmentBuilder.MAX_ITERATION_COUNT). When every
// topic's subscribers share one subscription the phase converges in one pass
// and needs a second to notice; overlapping subscriptions can need more, and
// Kafka assumes each pass roughly halves the imbalance.
const oldServerMaxBalancePasses = 16

// oldUniformHeterogeneous is the heterogeneous builder documented on Uniform
// (Kafka's UniformHeterogeneousAssignmentBuilder after KAFKA-17710). It may
// run on any valid group, homogeneous or not. It also reports whether the
// balancing phase converged (a full pass over the topics moved nothing)
// rather than stopping at oldServerMaxBalancePasses; a converged result fed back
// as the previous target comes back unchanged.
//
// Members are numbered by their position in g.Members (member ID order), and
// every tie is broken by that number, so the result is deterministic.
//
// Guarantees, for the live topics (existing, with partitions) of the
// members' subscriptions: every partition is assigned to exactly one
// subscriber of its topic; a member loses a previously targeted partition
// only because it unsubscribed from its topic or to balance a topic (or
// because an earlier member listed it too); at convergence, for every topic
// with two or more subscribers, either their loads are within one of each
// other or the more loaded ones hold none of the topic's partitions; so the
// subscribers of a topic who all have the same subscription end within one
// of each other (the most loaded of them would otherwise give up a
// partition of some topic of that subscription).
func oldUniformHeterogeneous(g Group) (spec.Assignment, bool, error) {
	h := oldNewServerHetero(g)
	if len(h.topics) == 0 {
		return emptyAssignment(g), true, nil
	}
	h.keepSubscribed()
	h.assignUnassigned()
	converged := h.balance()
	a, err := h.owners.collect(g, h.topics)
	return a, converged, err
}

// oldServerHetero is the state of one run of the heterogeneous builder.
type oldServerHetero struct {
	g Group
	// topics are the live topics someone subscribes to, sorted by name.
	topics []string
	// subscribers lists, per topic, the indexes of its subscribers,
	// ascending.
	subscribers map[string][]int
	owners      oldServerOwners
	// loads is each member's number of partitions in the target being
	// built, over all topics.
	loads []int
	// ladder is reused across topics.
	ladder oldServerLadder
}

func oldNewServerHetero(g Group) *oldServerHetero {
	h := &oldServerHetero{g: g, subscribers: map[string][]int{}, loads: make([]int, len(g.Members))}
	for i, m := range g.Members {
		for _, t := range m.Topics {
			if serverLive(g.Topics, t) {
				h.subscribers[t] = append(h.subscribers[t], i)
			}
		}
	}
	for t := range h.subscribers {
		h.topics = append(h.topics, t)
	}
	slices.Sort(h.topics)
	h.owners = oldNewServerOwners(g, h.topics)
	h.ladder.loads = h.loads
	return h
}

// keepSubscribed is step 1: every member keeps its previously targeted
// partitions of the topics it still subscribes to.
func (h *oldServerHetero) keepSubscribed() {
	for i, m := range h.g.Members {
		for _, r := range m.Owned {
			row, ok := h.owners[r.Topic]
			if !ok || row[r.Partition] >= 0 || !inSubscription(m, r.Topic) {
				continue
			}
			row[r.Partition] = int32(i)
			h.loads[i]++
		}
	}
}

// compareTopics orders topics as Kafka's topicComparator does: partitions
// per subscriber, descending (compared exactly, by cross-multiplying), then
// subscriber count, ascending, then name.
func (h *oldServerHetero) compareTopics(a, b string) int {
	pa, pb := int64(h.g.Topics[a]), int64(h.g.Topics[b])
	na, nb := int64(len(h.subscribers[a])), int64(len(h.subscribers[b]))
	switch {
	case pa*nb > pb*na:
		return -1
	case pa*nb < pb*na:
		return 1
	case na != nb:
		if na < nb {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// assignUnassigned is step 2: topic by topic in compareTopics order, every
// unassigned partition, ascending, goes to the next least-loaded subscriber.
func (h *oldServerHetero) assignUnassigned() {
	var pending []string
	for _, t := range h.topics {
		if slices.Contains(h.owners[t], -1) {
			pending = append(pending, t)
		}
	}
	slices.SortFunc(pending, h.compareTopics)
	for _, t := range pending {
		h.ladder.reset(h.subscribers[t])
		for p, o := range h.owners[t] {
			if o < 0 {
				m := h.ladder.nextLeast()
				h.owners[t][p] = int32(m)
				h.loads[m]++
			}
		}
	}
}

// balance is step 3: passes over the topics with two or more subscribers,
// in compareTopics order, balancing each, until a full pass (counted from
// the last topic that moved anything, or from the first topic) moves
// nothing, at most oldServerMaxBalancePasses passes. It reports whether it
// converged.
func (h *oldServerHetero) balance() bool {
	var topics []string
	for _, t := range h.topics {
		if len(h.subscribers[t]) >= 2 {
			topics = append(topics, t)
		}
	}
	if len(topics) == 0 {
		return true
	}
	slices.SortFunc(topics, h.compareTopics)
	last := -1
	for range oldServerMaxBalancePasses {
		for k, t := range topics {
			if k == last {
				return true
			}
			if h.balanceTopic(t) > 0 || last < 0 {
				last = k
			}
		}
	}
	return false
}

// balanceTopic moves partitions of topic t from its most-loaded subscribers
// to its least-loaded ones while their loads differ by more than one, and
// returns the number moved. A giver gives up its highest-numbered partition
// of t that it held when the call began; a subscriber holding none of t is
// skipped as a giver.
func (h *oldServerHetero) balanceTopic(t string) int {
	l := &h.ladder
	if l.reset(h.subscribers[t]) <= 1 {
		return 0
	}
	row := h.owners[t]
	held := map[int][]int32{}
	for p, o := range row {
		held[int(o)] = append(held[int(o)], int32(p))
	}
	moved := 0
	for !l.balanced() {
		giver := l.nextMost()
		for giver >= 0 && len(held[giver]) == 0 {
			l.excludeMost()
			giver = l.nextMost()
		}
		if giver < 0 {
			break
		}
		ps := held[giver]
		p := ps[len(ps)-1]
		held[giver] = ps[:len(ps)-1]
		taker := l.nextLeast()
		if l.balanced() {
			break
		}
		row[p] = int32(taker)
		h.loads[giver]--
		h.loads[taker]++
		moved++
	}
	return moved
}

// oldServerLadder hands out, for one topic's subscribers, the next
// least-loaded member to give a partition to and the next most-loaded one
// to take a partition from, with the round-robin-within-a-level behaviour
// of Kafka's MemberAssignmentBalancer, so that results match Kafka's.
//
// order holds the subscribers sorted by (load, index) when reset was
// called. The least-loaded range is order[:lowEnd]: members that were all
// at lowLevel when the range last grew; lowNext walks it, and when it runs
// off the end every member of the range has received one more, so lowLevel
// rises by one and the range grows over the members now at that level. The
// most-loaded range order[highStart:highEnd] mirrors it from the top, walked
// downwards by highNext; excludeMost drops a member with nothing left to
// give by swapping it past highEnd. loads is shared with the builder and
// read live.
type oldServerLadder struct {
	loads []int
	order []int

	lowEnd, lowLevel, lowNext               int
	highStart, highEnd, highLevel, highNext int
}

// reset starts over on members (not empty) and returns the spread between
// the largest and smallest load among them.
func (l *oldServerLadder) reset(members []int) int {
	l.order = append(l.order[:0], members...)
	slices.SortFunc(l.order, func(a, b int) int {
		if c := l.loads[a] - l.loads[b]; c != 0 {
			return c
		}
		return a - b
	})
	n := len(l.order)
	lo, hi := l.loads[l.order[0]], l.loads[l.order[n-1]]
	l.lowEnd, l.lowLevel, l.lowNext = 0, lo-1, 0
	l.highStart, l.highEnd, l.highLevel, l.highNext = n, n, hi+1, n-1
	return hi - lo
}

// nextLeast returns the member to give the next partition to and assumes
// the caller gives it one.
func (l *oldServerLadder) nextLeast() int {
	if l.lowNext >= l.lowEnd {
		l.lowLevel++
		for l.lowEnd < len(l.order) && l.loads[l.order[l.lowEnd]] == l.lowLevel {
			l.lowEnd++
		}
		l.lowNext = 0
	}
	m := l.order[l.lowNext]
	l.lowNext++
	return m
}

// nextMost returns the member to take the next partition from, or -1 when
// every member was excluded, and assumes the caller takes one from it.
func (l *oldServerLadder) nextMost() int {
	if l.highNext < l.highStart {
		if l.highEnd <= l.highStart && l.highStart > 0 {
			// Every member of the range was excluded: restart the range
			// at the next member down, whatever its load.
			l.highLevel = l.loads[l.order[l.highStart-1]]
		} else {
			l.highLevel--
		}
		for l.highStart > 0 && l.loads[l.order[l.highStart-1]] == l.highLevel {
			l.highStart--
		}
		l.highNext = l.highEnd - 1
	}
	if l.highNext < 0 {
		return -1
	}
	m := l.order[l.highNext]
	l.highNext--
	return m
}

// excludeMost drops the member nextMost last returned from the most-loaded
// range.
func (l *oldServerLadder) excludeMost() {
	i := l.highNext + 1
	l.order[i], l.order[l.highEnd-1] = l.order[l.highEnd-1], l.order[i]
	l.highEnd--
}

// balanced reports whether the levels of the two ranges are within one.
func (l *oldServerLadder) balanced() bool { return l.highLevel-l.lowLevel <= 1 }

// oldRange is Range().Assign before issue 6.
func oldRange(g Group) (spec.Assignment, error) {
	if err := oldValidateGroup(g); err != nil {
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

// oldServerRange is ServerRange().Assign before issue 6.
func oldServerRange(g Group) (spec.Assignment, error) {
	if err := oldValidateGroup(g); err != nil {
		return nil, err
	}
	// Kafka walks members in order and, for each, its topics, handing out
	// the next range of each topic; per topic that is the same as walking
	// the topic's subscribers in member order.
	type cursor struct {
		subscribers, next, quota, extra int32
	}
	order := kafkaOrder(g.Members)
	cursors := map[string]*cursor{}
	for _, i := range order {
		for _, t := range g.Members[i].Topics {
			if !serverLive(g.Topics, t) {
				continue
			}
			c := cursors[t]
			if c == nil {
				c = &cursor{}
				cursors[t] = c
			}
			c.subscribers++
		}
	}
	for t, c := range cursors {
		p := g.Topics[t]
		c.quota, c.extra = p/c.subscribers, p%c.subscribers
	}
	out := emptyAssignment(g)
	for _, i := range order {
		m := g.Members[i]
		var set spec.Set
		for _, t := range m.Topics { // sorted, so set stays sorted
			c := cursors[t]
			if c == nil {
				continue
			}
			n := c.quota
			if c.extra > 0 {
				n++
				c.extra--
			}
			if n > 0 {
				set = append(set, spec.Range(t, c.next, c.next+n-1)...)
				c.next += n
			}
		}
		out[m.ID] = set
	}
	return out, nil
}
