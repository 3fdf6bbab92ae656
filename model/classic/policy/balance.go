package policy

import (
	"maps"
	"slices"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file is steps 6 and 7 of the Designs II and III leader: where new
// and lost resources go, and what is revoked for balance. Connect balances
// connectors and tasks separately, so everything here works on one kind at
// a time (a kindRound), and the kinds' results are merged at the end.
//
// Placement. New resources (created, lost ones to reassign) go out least
// loaded (assign.LeastLoaded). With heterogeneous subscriptions that greedy
// order can leave a resource given in this very round on a member holding
// two or more than another subscriber of its topic; such resources are
// unclaimed, so settle moves them over at once, for free, until no such
// move is left. When every member may take everything, least loaded never
// leaves one, and settling changes nothing.
//
// Revocations. When every member may take every resource of the kind
// (homogeneous), Connect's rule applies on the assignment before placement:
// each member is cut to its assign.ConnectBalanceTargets target. Otherwise
// moves are planned on the placed assignment, from the most loaded member,
// of resources it owned, to a subscriber holding at least two fewer, and a
// plan is used only if simulating this round and its quiet follow-up with
// it lowers Σ load² below the same simulation without it (Deferred; see its
// documentation), else its first move alone, else nothing.

// kindRound is one kind's share of a round. Assignments are by member
// position, of indices of lr.u (see index.go), of this kind only.
type kindRound struct {
	k assign.ConnectKind
	// hom reports that every member subscribes to every topic with a
	// configured resource of this kind.
	hom bool
	// next is the assignment after steps 4 and 5, this kind only.
	next [][]int32
	// toAssign is created plus the lost resources to reassign.
	toAssign []int32
	// pending are resources revoked in step 4 that the follow-up hands out.
	pending []int32
	// configured is the number of configured resources of this kind.
	configured int
	// base is the round's result without load-balancing revocations.
	base [][]int32
	// plan is what is taken from each member for balance (nil: nothing).
	plan proposal
	// tasks caches, for connectorGap, how many tasks of each connector
	// every member holds in base.
	tasks map[string][]int
}

// kindRounds splits the round after step 5 by kind and places toAssign.
func (lr *leaderRound) kindRounds(toAssign []int32) []*kindRound {
	// The kinds, their pointers and their next rows are allocated once
	// for all kinds: a leader runs this at every round.
	n := len(lr.ids)
	all := make([]kindRound, len(assign.ConnectKinds))
	out := make([]*kindRound, len(all))
	rows := make([][]int32, len(all)*n)
	for i, k := range assign.ConnectKinds {
		ks := &all[i]
		*ks = kindRound{
			k:          k,
			hom:        lr.homogeneous(k),
			next:       rows[i*n : (i+1)*n : (i+1)*n],
			toAssign:   lr.ofKind(toAssign, k),
			pending:    lr.ofKind(lr.pending, k),
			configured: lr.u.count(k),
		}
		for p := range lr.ids {
			ks.next[p] = lr.ofKind(lr.next[p], k)
		}
		ks.base = lr.place(ks.next, ks.toAssign, nil, lr.settleable, true)
		out[i] = ks
	}
	return out
}

// ofKind returns the indices of xs of kind k: xs itself when every
// resource is a task.
func (lr *leaderRound) ofKind(xs []int32, k assign.ConnectKind) []int32 {
	if !lr.u.connectors {
		if k == assign.TaskKind {
			return xs
		}
		return nil
	}
	var out []int32
	for _, i := range xs {
		if lr.u.isConnector(i) == (k == assign.ConnectorKind) {
			out = append(out, i)
		}
	}
	return out
}

// homogeneous reports whether every member may take every configured
// resource of kind k.
func (lr *leaderRound) homogeneous(k assign.ConnectKind) bool {
	for t, sp := range lr.u.topics {
		if (k == assign.ConnectorKind && sp.lo != spec.ConnectorTask) || (k == assign.TaskKind && !sp.hasTasks) {
			continue
		}
		for p := range lr.ids {
			if !lr.subscribed[p][t] {
				return false
			}
		}
	}
	return true
}

// fresh reports whether i, held by member p, was given to p in this round
// (p did not claim it). Nobody claims a fresh resource, so it may move
// freely.
func (lr *leaderRound) fresh(p int, i int32) bool {
	switch c := lr.claimer[i]; {
	case c == 0:
		return true
	case c > 0:
		return c != int32(p)+1
	}
	return !lr.owned[lr.ids[p]].Contains(lr.u.resource(i))
}

// settleable reports whether placement may move i, held by p, for free:
// p was given i in this round, and not as a lost resource pinned to the
// first candidate (classic.LostToFirstCandidate).
func (lr *leaderRound) settleable(p int, i int32) bool {
	return lr.fresh(p, i) && (lr.pinned == nil || !lr.pinned[i])
}

// place hands out add (sorted, of the kind of cur) least loaded over cur
// (never to the member from names for a resource), then settles (see
// settle for fresh).
func (lr *leaderRound) place(cur [][]int32, add []int32, from map[int32]int, movable func(int, int32) bool, fresh bool) [][]int32 {
	return lr.settle(lr.leastLoaded(cur, add, from), movable, from, fresh)
}

// eligibleFor is eligibleIdx, except that a resource never goes back to
// the member from names for it.
func (lr *leaderRound) eligibleFor(from map[int32]int, p int, i int32) bool {
	if len(from) > 0 {
		if f, ok := from[i]; ok && f == p {
			return false
		}
	}
	return lr.eligibleIdx(p, i)
}

// leastLoaded is assign.LeastLoaded on one kind by index (so a member's
// count of the kind is its length): every resource of add that nobody in
// cur holds goes, in order, to the member with the fewest (counting what
// it was given so far; ties to the lower position, that is member id)
// among those eligibleFor it. cur is not modified; the result shares the
// lists of members given nothing.
func (lr *leaderRound) leastLoaded(cur [][]int32, add []int32, from map[int32]int) [][]int32 {
	out := slices.Clone(cur)
	if len(cur) == 0 || len(add) == 0 {
		return out
	}
	// Skip what someone holds (in this policy nobody does: placement only
	// hands out unclaimed resources nobody was given).
	if lr.mark == nil {
		lr.mark = make([]uint8, lr.u.size)
	}
	for _, i := range add {
		lr.mark[i] = 1
	}
	for _, xs := range cur {
		for _, i := range xs {
			if lr.mark[i] == 1 {
				lr.mark[i] = 2
			}
		}
	}
	items := make([]int32, 0, len(add))
	for _, i := range add {
		if lr.mark[i] == 1 {
			items = append(items, i)
		}
		lr.mark[i] = 0
	}
	h := make(loadHeap, len(cur))
	for p, xs := range cur {
		h[p] = loadEntry{count: len(xs), p: p}
	}
	h.init()
	added := make([][]int32, len(cur))
	var skipped []loadEntry
	for _, i := range items {
		skipped = skipped[:0]
		for len(h) > 0 {
			e := h.pop()
			if lr.eligibleFor(from, e.p, i) {
				added[e.p] = append(added[e.p], i)
				e.count++
				h.push(e)
				break
			}
			skipped = append(skipped, e)
		}
		for _, e := range skipped {
			h.push(e)
		}
	}
	for p, xs := range added {
		out[p] = mergeIdx(cur[p], xs)
	}
	return out
}

// loadEntry is one member in leastLoaded's heap: its count and position.
type loadEntry struct{ count, p int }

// loadHeap is a binary min-heap of loadEntry by (count, position). The
// keys are distinct, so the order of pops does not depend on the heap's
// shape: it is container/heap's (assign.LeastLoaded's) without the boxing.
type loadHeap []loadEntry

func (h loadHeap) less(i, j int) bool {
	if h[i].count != h[j].count {
		return h[i].count < h[j].count
	}
	return h[i].p < h[j].p
}

func (h loadHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h loadHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		j := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			j = r
		}
		if !h.less(j, i) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

func (h *loadHeap) push(e loadEntry) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s.less(i, parent) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func (h *loadHeap) pop() loadEntry {
	s := *h
	e := s[0]
	s[0] = s[len(s)-1]
	*h = s[:len(s)-1]
	h.down(0)
	return e
}

// settle moves movable resources of one kind, one at a time, from the most
// loaded member holding one (ties by id; its last such resource first) to
// the least loaded other member that may take it (ties by id), while that
// member holds at least two fewer. Every move lowers Σ load² by at least
// two, so it ends. a is not modified.
//
// "Ties by id" is the first time round; after that the members are
// re-sorted stably, so members that come to equal loads keep the order
// of the previous pass.
//
// fresh says that movable holds only for resources fresh to their holder
// (leaderRound.fresh): then a member whose list is still its kept claims
// (leaderRound.kept, every one claimed by it alone) holds nothing movable
// and is not scanned until it is given something. Every pass would
// otherwise scan every loaded member's resources, the whole group's.
func (lr *leaderRound) settle(a [][]int32, movable func(int, int32) bool, from map[int32]int, fresh bool) [][]int32 {
	out := slices.Clone(a)
	count := make([]int, len(out))
	for p, xs := range out {
		count[p] = len(xs)
	}
	order := make([]int, len(out))
	for p := range order {
		order[p] = p
	}
	// stuck[m]: out[m] holds nothing movable.
	stuck := make([]bool, len(out))
	if fresh && lr.kept != nil {
		for m, xs := range out {
			stuck[m] = sameIdx(xs, lr.kept[m])
		}
	}
	for {
		slices.SortStableFunc(order, func(x, y int) int { return count[y] - count[x] })
		low := count[order[len(order)-1]]
		moved := false
		for _, m := range order {
			if count[m] < low+2 {
				break
			}
			if stuck[m] {
				continue
			}
			for i := len(out[m]) - 1; i >= 0 && !moved; i-- {
				x := out[m][i]
				if !movable(m, x) {
					continue
				}
				e, ok := lr.lightest(count, m, x, from)
				if !ok || count[e]+2 > count[m] {
					continue
				}
				out[m], out[e] = minusIdx(out[m], []int32{x}), mergeIdx(out[e], []int32{x})
				count[m]--
				count[e]++
				stuck[e] = false
				moved = true
			}
			if moved {
				break
			}
		}
		if !moved {
			return out
		}
	}
}

// lightest returns the member other than m with the smallest count that
// may take x (eligibleFor from; ties by id).
func (lr *leaderRound) lightest(count []int, m int, x int32, from map[int32]int) (int, bool) {
	best, found := 0, false
	for e := range count {
		if e != m && (!found || count[e] < count[best]) && lr.eligibleFor(from, e, x) {
			best, found = e, true
		}
	}
	return best, found
}

// proposal maps members to the resources to take from them for balance, in
// the order they are to be taken.
type proposal map[spec.MemberID][]spec.Resource

func (p proposal) isEmpty() bool { return p.size() == 0 }

func (p proposal) size() int {
	n := 0
	for _, xs := range p {
		n += len(xs)
	}
	return n
}

// on is the assignment ks's revocations are planned on: the one before
// placement under Connect's rule, the placed one otherwise.
func (ks *kindRound) on() [][]int32 {
	if ks.hom {
		return ks.next
	}
	return ks.base
}

// connectRule is Connect's load-balancing revocation for a homogeneous
// kind: every member is cut to its assign.ConnectBalanceTargets target,
// giving up first what it was given in this round (lost resources handed
// to it as a candidate: they cost nothing to move), then what it owned,
// each from the last in resource order down with the connectors taking
// turns (spreadByConnector).
func (lr *leaderRound) connectRule(ks *kindRound) proposal {
	if ks.configured == 0 {
		return nil
	}
	// assign.ConnectBalanceTargets of one kind: ⌊N/W⌋ each, and the N mod
	// W extra slots first to members above ⌊N/W⌋, then to the others,
	// in member id order.
	w := len(lr.ids)
	low, extras := ks.configured/w, ks.configured%w
	target := make([]int, w)
	for p := range target {
		target[p] = low
	}
	for p, xs := range ks.next {
		if extras > 0 && len(xs) > low {
			target[p]++
			extras--
		}
	}
	for p := range ks.next {
		if extras > 0 && target[p] == low {
			target[p]++
			extras--
		}
	}
	// Without connector tasks to spread (no connector configured, or
	// Kafka trunk's rule), spreadByConnector keeps the order, so only the
	// first excess resources of fresh-then-old need be looked at.
	spread := lr.u.connectors && !lr.in.Faults.Has(classic.RevocationIgnoresConnectors)
	out := proposal{}
	for p, m := range lr.ids {
		xs := ks.next[p]
		excess := len(xs) - target[p]
		if excess <= 0 {
			continue
		}
		if !spread {
			take := make([]spec.Resource, 0, excess)
			for _, fresh := range []bool{true, false} {
				for i := len(xs) - 1; i >= 0 && len(take) < excess; i-- {
					if lr.fresh(p, xs[i]) == fresh {
						take = append(take, lr.u.resource(xs[i]))
					}
				}
			}
			out[m] = take
			continue
		}
		var fresh, old []spec.Resource
		for i := len(xs) - 1; i >= 0; i-- {
			if x := xs[i]; lr.fresh(p, x) {
				fresh = append(fresh, lr.u.resource(x))
			} else {
				old = append(old, lr.u.resource(x))
			}
		}
		var gap func(string) int
		if lr.p.incremental {
			gap = lr.connectorGap(ks, p)
		}
		fresh = spreadByConnector(fresh, lr.in.Topics, gap)
		old = spreadByConnector(old, lr.in.Topics, gap)
		out[m] = append(fresh, old...)[:excess]
	}
	return out
}

// spreadByConnector reorders the revocation candidates xs (in the order
// they would be revoked) so that the tasks of different connectors take
// turns, as the fix proposed for KAFKA-17049 does (apache/kafka PR #16486,
// commit c18ba01295bc, IncrementalCooperativeAssignor
// loadBalancingRevocations: the worker's allocation is grouped by
// connector and the groups give up one resource each in turn). The tasks
// of each connector of topics form one group; every other resource (a
// connector instance, a partition of a plain topic) is a group of its own,
// as a connector is in Kafka's grouping. Groups take turns in the order of
// their first candidates in xs, each giving up its candidates in xs order.
// So a member that must give up n tasks gives up about n/k of each of the k
// connectors it runs, and a worker that joins gets tasks of every
// connector, not all of one. With no connector tasks in xs the order is
// xs's own. xs is not modified.
//
// Kafka's groups take turns in hash-map order and give up tasks in the
// worker's allocation order; ours are the reverse resource order that the
// rest of the rule uses. Kafka's trunk never merged the fix (the PR was
// closed); classic.RevocationIgnoresConnectors restores trunk's rule.
//
// With a gap (Design III), each turn goes instead to the group whose
// connector has the largest gap(connector) less twice what the turns took
// from it so far (ties to the earlier group), and resources that are not
// a connector's tasks come last, in xs order. Design III revokes a few
// resources per round and plans again in the next round, where fixed
// turns would start again from the same connector and take all its tasks
// over the rounds; the gap, how many more tasks of the connector the
// member runs than the member running fewest of it, points each step at
// the connector that is spread worst.
func spreadByConnector(xs []spec.Resource, topics spec.Topics, gap func(connector string) int) []spec.Resource {
	var groups [][]spec.Resource
	index := map[string]int{}
	tasks := false
	for _, x := range xs {
		if x.IsConnector() || !topics.IsConnector(x.Topic) {
			groups = append(groups, []spec.Resource{x})
			continue
		}
		tasks = true
		i, ok := index[x.Topic]
		if !ok {
			i = len(groups)
			index[x.Topic] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], x)
	}
	if !tasks || (gap == nil && len(groups) == len(xs)) {
		// No connector's tasks: every turn, with or without a gap, takes
		// the next resource in xs order (and the loop below, quadratic
		// in len(xs), would only say so slowly).
		return xs
	}
	out := make([]spec.Resource, 0, len(xs))
	taken := map[string]int{}
	for len(out) < len(xs) {
		if gap != nil {
			best, bestGap := -1, 0
			for i, g := range groups {
				if len(g) == 0 {
					continue
				}
				d := taken[g[0].Topic]
				if topics.IsConnector(g[0].Topic) && !g[0].IsConnector() {
					// Each task taken lowers this member's count and raises
					// the fewest's: the gap shrinks by two.
					d = gap(g[0].Topic) - 2*d
				} else {
					d = -len(xs) // not a connector's task: after every task
				}
				if best < 0 || d > bestGap {
					best, bestGap = i, d
				}
			}
			taken[groups[best][0].Topic]++
			out = append(out, groups[best][0])
			groups[best] = groups[best][1:]
			continue
		}
		for i, g := range groups {
			if len(g) > 0 {
				out = append(out, g[0])
				groups[i] = g[1:]
			}
		}
	}
	return out
}

// connectorGap returns, for member p of ks, how many more tasks of a
// connector p runs than the member of the round running fewest of them,
// counting what this round hands out (ks.base: a revocation of the
// previous round lands in its follow-up).
func (lr *leaderRound) connectorGap(ks *kindRound, p int) func(string) int {
	return func(c string) int {
		count := lr.connectorTasks(ks, c)
		return count[p] - slices.Min(count)
	}
}

// connectorTasks returns how many tasks of connector c each member holds
// in ks.base: the indices in c's task range, found by binary search.
func (lr *leaderRound) connectorTasks(ks *kindRound, c string) []int {
	if n, ok := ks.tasks[c]; ok {
		return n
	}
	count := make([]int, len(lr.ids))
	if t, ok := lr.u.position(c); ok {
		sp := lr.u.topics[t]
		from, to := sp.start, sp.start+sp.n
		if sp.lo == spec.ConnectorTask {
			from++
		}
		for p, xs := range ks.base {
			i, _ := slices.BinarySearch(xs, from)
			j, _ := slices.BinarySearch(xs, to)
			count[p] = j - i
		}
	}
	if ks.tasks == nil {
		ks.tasks = map[string][]int{}
	}
	ks.tasks[c] = count
	return count
}

// move is one planned load-balancing move: x taken from member from.
type move struct {
	from spec.MemberID
	x    spec.Resource
}

// proposalOf returns the proposal that takes the resources of moves.
func proposalOf(moves []move) proposal {
	if len(moves) == 0 {
		return nil
	}
	out := proposal{}
	for _, mv := range moves {
		out[mv.from] = append(out[mv.from], mv.x)
	}
	return out
}

// movePlan plans load-balancing moves for a heterogeneous kind on the
// placed assignment: repeatedly, from the most loaded member (ties by id,
// then stably as settle) that has one, take its last owned resource that a
// member subscribed to its topic and holding at least two fewer could take,
// and count it as moved to the least loaded such member (ties by id), until
// no such move is left. It returns the moves in the order they were
// planned; each one lowers Σ load² given the ones before it.
func (lr *leaderRound) movePlan(ks *kindRound) []move {
	count := make([]int, len(lr.ids))
	avail := make([][]int32, len(lr.ids))
	for p, xs := range ks.base {
		count[p] = len(xs)
		for i := len(xs) - 1; i >= 0; i-- {
			if x := xs[i]; !lr.fresh(p, x) {
				avail[p] = append(avail[p], x)
			}
		}
	}
	var moves []move
	order := make([]int, len(lr.ids))
	for p := range order {
		order[p] = p
	}
	for {
		slices.SortStableFunc(order, func(a, b int) int { return count[b] - count[a] })
		moved := false
		for _, m := range order {
			for i, x := range avail[m] {
				e, ok := lr.lightest(count, m, x, nil)
				if !ok || count[e]+2 > count[m] {
					continue
				}
				moves = append(moves, move{from: lr.ids[m], x: lr.u.resource(x)})
				avail[m] = slices.Delete(slices.Clone(avail[m]), i, i+1)
				count[m]--
				count[e]++
				moved = true
				break
			}
			if moved {
				break
			}
		}
		if !moved {
			return moves
		}
	}
}

// position returns m's position in the round's sorted IDs.
func (lr *leaderRound) position(m spec.MemberID) int {
	p, _ := slices.BinarySearch(lr.ids, m)
	return p
}

// thisRound applies plan to ks as the round would: taken resources leave
// their member; those it owned are revoked (handed out in the follow-up,
// with the pending ones), those it was given in this round are handed out
// now to another member, and with handOver the revoked ones are too (the
// CooperativeNoWithholding fault). It returns the round's assignment, what
// the follow-up hands out (sorted), and the member each resource handed
// out now was taken from.
func (lr *leaderRound) thisRound(ks *kindRound, plan proposal, handOver bool) (now [][]int32, later []int32, from map[int32]int) {
	from = map[int32]int{}
	cur := slices.Clone(ks.on())
	var add []int32
	if ks.hom {
		add = ks.toAssign
	}
	var revoked, handed []int32
	for _, m := range slices.Sorted(maps.Keys(plan)) {
		p := lr.position(m)
		taken := sortedIdx(lr.u.indices(spec.Set(plan[m])))
		cur[p] = minusIdx(cur[p], taken)
		for _, x := range taken {
			if !lr.fresh(p, x) {
				revoked = append(revoked, x)
				if !handOver {
					continue
				}
			}
			from[x] = p
			handed = append(handed, x)
		}
	}
	later = mergeIdx(ks.pending, sortedIdx(revoked))
	add = mergeIdx(add, sortedIdx(handed))
	return lr.place(cur, add, from, lr.settleable, true), later, from
}

// imbalance returns Σ load² after the round with plan and its quiet
// follow-up.
func (lr *leaderRound) imbalance(ks *kindRound, plan proposal) int {
	now, later, _ := lr.thisRound(ks, plan, false)
	follow := lr.place(now, later, nil, func(_ int, x int32) bool { return containsIdx(later, x) }, false)
	sum := 0
	for _, xs := range follow {
		sum += len(xs) * len(xs)
	}
	return sum
}

// verified returns plan if it lowers the imbalance after the follow-up
// compared with revoking nothing, else fallback if that does, else nil.
func (lr *leaderRound) verified(ks *kindRound, plan, fallback proposal) proposal {
	if plan.isEmpty() {
		return nil
	}
	base := lr.imbalance(ks, nil)
	if lr.imbalance(ks, plan) < base {
		return plan
	}
	if !fallback.isEmpty() && lr.imbalance(ks, fallback) < base {
		return fallback
	}
	return nil
}

// finish returns ks's result: its base, or the round with its plan applied,
// recording the revocations in lr.revoked.
func (lr *leaderRound) finish(ks *kindRound) [][]int32 {
	if ks.plan.isEmpty() {
		return ks.base
	}
	now, _, _ := lr.thisRound(ks, ks.plan, lr.in.Faults.Has(classic.CooperativeNoWithholding))
	for m, xs := range ks.plan {
		p := lr.position(m)
		for _, x := range xs {
			if i, ok := lr.u.index(x); ok && !lr.fresh(p, i) {
				lr.revoked[m] = lr.revoked[m].Add(x)
			}
		}
	}
	return now
}

// delayedPrev reports whether the previous round sent a delay: the memory
// holds a scheduled rebalance (every round that sends a positive delay
// records one, and every other round clears it, when delays are enabled).
func (lr *leaderRound) delayedPrev() bool {
	return lr.p.maxDelay > 0 && lr.in.Memory.ScheduledAt > 0
}

// deferredBalance is Design II's step 6, run when no delay is pending. It
// sets each kind's plan and returns the delay.
func (lr *leaderRound) deferredBalance(kinds []*kindRound, s *schedule) classic.Millis {
	revoke := false
	for _, ks := range kinds {
		if ks.hom {
			ks.plan = lr.connectRule(ks)
		} else {
			moves := lr.movePlan(ks)
			ks.plan = lr.verified(ks, proposalOf(moves), proposalOf(moves[:min(1, len(moves))]))
		}
		revoke = revoke || !ks.plan.isEmpty()
	}
	switch {
	case revoke && (s.revokedPrev || lr.delayedPrev()) && lr.in.Faults.Has(classic.NoConsecutiveRevocation):
		// Connect before KAFKA-12495: canRevoke is false right after a
		// revoking round and right after a round with a delay
		// ("canRevoke = delay == 0 && canRevoke"); this round revokes
		// nothing, nor takes back what it gave a candidate, and the next
		// may.
		for _, ks := range kinds {
			ks.plan = nil
		}
		s.revokedPrev = false
		return 0
	case s.revokedPrev && revoke:
		s.successive++
		if d := backoff(s.successive, lr.p.backoff, lr.p.maxDelay); d != 0 {
			s.scheduledAt = lr.now + d
			for _, ks := range kinds {
				ks.plan = nil
			}
			return d
		}
	case revoke:
		s.revokedPrev = true
	case s.revokedPrev:
		s.revokedPrev, s.successive = false, 0
	}
	return 0
}
