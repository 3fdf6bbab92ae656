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

// kindRound is one kind's share of a round.
type kindRound struct {
	k assign.ConnectKind
	// hom reports that every member subscribes to every topic with a
	// configured resource of this kind.
	hom bool
	// next is the assignment after steps 4 and 5, this kind only.
	next spec.Assignment
	// toAssign is created plus the lost resources to reassign.
	toAssign spec.Set
	// pending are resources revoked in step 4 that the follow-up hands out.
	pending spec.Set
	// configured is the universe, this kind only.
	configured spec.Set
	// base is the round's result without load-balancing revocations.
	base spec.Assignment
	// plan is what is taken from each member for balance (nil: nothing).
	plan proposal
}

// kindRounds splits the round after step 5 by kind and places toAssign.
func (lr *leaderRound) kindRounds(toAssign spec.Set) []*kindRound {
	var out []*kindRound
	for _, k := range assign.ConnectKinds {
		of := func(x spec.Resource) bool { return assign.KindOf(x) == k }
		ks := &kindRound{
			k:          k,
			hom:        lr.homogeneous(k),
			next:       make(spec.Assignment, len(lr.ids)),
			toAssign:   toAssign.Filter(of),
			pending:    lr.pending.Filter(of),
			configured: lr.configured.Filter(of),
		}
		for _, m := range lr.ids {
			ks.next[m] = lr.next[m].Filter(of)
		}
		ks.base = lr.place(ks.next, ks.toAssign, nil, lr.settleable)
		out = append(out, ks)
	}
	return out
}

// homogeneous reports whether every member may take every configured
// resource of kind k.
func (lr *leaderRound) homogeneous(k assign.ConnectKind) bool {
	var topics []string
	for _, x := range lr.configured {
		if assign.KindOf(x) == k && (len(topics) == 0 || topics[len(topics)-1] != x.Topic) {
			topics = append(topics, x.Topic)
		}
	}
	for _, t := range topics {
		for _, m := range lr.ids {
			if _, ok := slices.BinarySearch(lr.subs[m], t); !ok {
				return false
			}
		}
	}
	return true
}

// fresh reports whether x, held by m, was given to m in this round (m did
// not claim it). Nobody claims a fresh resource, so it may move freely.
func (lr *leaderRound) fresh(m spec.MemberID, x spec.Resource) bool {
	return !lr.owned[m].Contains(x)
}

// settleable reports whether placement may move x, held by m, for free:
// m was given x in this round, and not as a lost resource pinned to the
// first candidate (classic.LostToFirstCandidate).
func (lr *leaderRound) settleable(m spec.MemberID, x spec.Resource) bool {
	return lr.fresh(m, x) && !lr.pinned.Contains(x)
}

// place hands out add least loaded over cur (never to the member from
// names for a resource), then settles.
func (lr *leaderRound) place(cur spec.Assignment, add spec.Set, from map[spec.Resource]spec.MemberID, movable func(spec.MemberID, spec.Resource) bool) spec.Assignment {
	a := assign.LeastLoaded(cur, lr.eligibleFor(from), add)
	return lr.settle(a, movable, from)
}

// eligibleFor is lr.eligible, except that a resource never goes back to
// the member from names for it.
func (lr *leaderRound) eligibleFor(from map[spec.Resource]spec.MemberID) func(spec.MemberID, spec.Resource) bool {
	return func(m spec.MemberID, x spec.Resource) bool {
		if f, ok := from[x]; ok && f == m {
			return false
		}
		return lr.eligible(m, x)
	}
}

// settle moves movable resources of one kind, one at a time, from the most
// loaded member holding one (ties by id; its last such resource first) to
// the least loaded other member that may take it (ties by id), while that
// member holds at least two fewer. Every move lowers Σ load² by at least
// two, so it ends. a is not modified.
func (lr *leaderRound) settle(a spec.Assignment, movable func(spec.MemberID, spec.Resource) bool, from map[spec.Resource]spec.MemberID) spec.Assignment {
	out := maps.Clone(a)
	count := make(map[spec.MemberID]int, len(out))
	for m, s := range out {
		count[m] = s.Len()
	}
	eligible := lr.eligibleFor(from)
	order := slices.Clone(lr.ids)
	for {
		slices.SortStableFunc(order, func(x, y spec.MemberID) int { return count[y] - count[x] })
		low := count[order[len(order)-1]]
		moved := false
		for _, m := range order {
			if count[m] < low+2 {
				break
			}
			for i := len(out[m]) - 1; i >= 0 && !moved; i-- {
				x := out[m][i]
				if !movable(m, x) {
					continue
				}
				e, ok := lr.leastLoaded(count, m, x, eligible)
				if !ok || count[e]+2 > count[m] {
					continue
				}
				out[m], out[e] = out[m].Remove(x), out[e].Add(x)
				count[m]--
				count[e]++
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

// leastLoaded returns the member other than m with the smallest count that
// may take x (ties by id).
func (lr *leaderRound) leastLoaded(count map[spec.MemberID]int, m spec.MemberID, x spec.Resource, eligible func(spec.MemberID, spec.Resource) bool) (spec.MemberID, bool) {
	var best spec.MemberID
	found := false
	for _, e := range lr.ids {
		if e != m && eligible(e, x) && (!found || count[e] < count[best]) {
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
func (ks *kindRound) on() spec.Assignment {
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
	if ks.configured.IsEmpty() {
		return nil
	}
	targets := assign.ConnectBalanceTargets(ks.next, ks.configured)
	out := proposal{}
	for _, m := range lr.ids {
		if excess := ks.next[m].Len() - targets[m].Of(ks.k); excess > 0 {
			var fresh, old []spec.Resource
			for i := ks.next[m].Len() - 1; i >= 0; i-- {
				if x := ks.next[m][i]; lr.fresh(m, x) {
					fresh = append(fresh, x)
				} else {
					old = append(old, x)
				}
			}
			if !lr.in.Faults.Has(classic.RevocationIgnoresConnectors) {
				var gap func(string) int
				if lr.p.incremental {
					gap = lr.connectorGap(ks, m)
				}
				fresh = spreadByConnector(fresh, lr.in.Topics, gap)
				old = spreadByConnector(old, lr.in.Topics, gap)
			}
			out[m] = append(fresh, old...)[:excess]
		}
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

// connectorGap returns, for member m of ks, how many more tasks of a
// connector m runs than the member of the round running fewest of them,
// counting what this round hands out (ks.base: a revocation of the
// previous round lands in its follow-up).
func (lr *leaderRound) connectorGap(ks *kindRound, m spec.MemberID) func(string) int {
	return func(c string) int {
		count := func(o spec.MemberID) int {
			n := 0
			for _, x := range ks.base[o] {
				if x.Topic == c && !x.IsConnector() {
					n++
				}
			}
			return n
		}
		low := count(m)
		for _, o := range lr.ids {
			low = min(low, count(o))
		}
		return count(m) - low
	}
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
// placed assignment: repeatedly, from the most loaded member (ties by id)
// that has one, take its last owned resource that a member subscribed to
// its topic and holding at least two fewer could take, and count it as
// moved to the least loaded such member (ties by id), until no such move
// is left. It returns the moves in the order they were planned; each one
// lowers Σ load² given the ones before it.
func (lr *leaderRound) movePlan(ks *kindRound) []move {
	count := map[spec.MemberID]int{}
	avail := map[spec.MemberID][]spec.Resource{}
	for _, m := range lr.ids {
		count[m] = ks.base[m].Len()
		for i := ks.base[m].Len() - 1; i >= 0; i-- {
			if x := ks.base[m][i]; !lr.fresh(m, x) {
				avail[m] = append(avail[m], x)
			}
		}
	}
	var moves []move
	order := slices.Clone(lr.ids)
	for {
		slices.SortStableFunc(order, func(a, b spec.MemberID) int { return count[b] - count[a] })
		moved := false
		for _, m := range order {
			for i, x := range avail[m] {
				e, ok := lr.leastLoaded(count, m, x, lr.eligible)
				if !ok || count[e]+2 > count[m] {
					continue
				}
				moves = append(moves, move{from: m, x: x})
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

// thisRound applies plan to ks as the round would: taken resources leave
// their member; those it owned are revoked (handed out in the follow-up,
// with the pending ones), those it was given in this round are handed out
// now to another member, and with handOver the revoked ones are too (the
// CooperativeNoWithholding fault). It returns the round's assignment, what
// the follow-up hands out, and the member each resource handed out now was
// taken from.
func (lr *leaderRound) thisRound(ks *kindRound, plan proposal, handOver bool) (now spec.Assignment, later spec.Set, from map[spec.Resource]spec.MemberID) {
	later = ks.pending
	from = map[spec.Resource]spec.MemberID{}
	cur := maps.Clone(ks.on())
	var add spec.Set
	if ks.hom {
		add = ks.toAssign
	}
	for _, m := range slices.Sorted(maps.Keys(plan)) {
		taken := spec.NewSet(plan[m]...)
		cur[m] = cur[m].Minus(taken)
		for _, x := range taken {
			if !lr.fresh(m, x) {
				later = later.Add(x)
				if !handOver {
					continue
				}
			}
			from[x] = m
			add = add.Add(x)
		}
	}
	return lr.place(cur, add, from, lr.settleable), later, from
}

// imbalance returns Σ load² after the round with plan and its quiet
// follow-up.
func (lr *leaderRound) imbalance(ks *kindRound, plan proposal) int {
	now, later, _ := lr.thisRound(ks, plan, false)
	follow := lr.place(now, later, nil, func(_ spec.MemberID, x spec.Resource) bool { return later.Contains(x) })
	return assign.ConnectImbalance(follow).Of(ks.k)
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
func (lr *leaderRound) finish(ks *kindRound) spec.Assignment {
	if ks.plan.isEmpty() {
		return ks.base
	}
	now, _, _ := lr.thisRound(ks, ks.plan, lr.in.Faults.Has(classic.CooperativeNoWithholding))
	for m, xs := range ks.plan {
		for _, x := range xs {
			if !lr.fresh(m, x) {
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
