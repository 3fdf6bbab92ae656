package policy

// This file freezes the Designs II and III leader (connectPolicy's Assign
// and everything it calls in this package and in model/assign) as it was
// before the index-based rewrite, as the reference that
// TestConnectEquivalence compares the current one with, bit for bit.

import (
	"container/heap"
	"fmt"
	"maps"
	"slices"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// refPolicy is connectPolicy with the frozen Assign.
type refPolicy struct{ p connectPolicy }

func (rp refPolicy) Assign(in classic.LeaderInput) (classic.LeaderResult, error) {
	p := rp.p
	r, err := refNewRound(in)
	if err != nil {
		return classic.LeaderResult{}, err
	}
	if in.Now < 0 {
		return classic.LeaderResult{}, fmt.Errorf("policy: %s: negative time %d", p.name, in.Now)
	}
	if p.failover != ReassignImmediately && p.failover != DelayIfDeparted {
		return classic.LeaderResult{}, fmt.Errorf("policy: %s: unknown leader failover rule %d", p.name, p.failover)
	}
	lr := &refLeaderRound{refRound: r, p: p, now: in.Now, configured: r.universe()}
	return lr.run(), nil
}

// round is a validated LeaderInput, decoded for the policies.
type refRound struct {
	in  classic.LeaderInput
	ids []spec.MemberID // sorted
	// subs maps each member to its sorted subscription.
	subs map[spec.MemberID][]string
	// owned maps each member to what it claims, as reported (possibly
	// resources that do not exist).
	owned spec.Assignment
	// group is the assignor input: the members with their claims pruned to
	// resources that exist.
	group assign.Group
}

// newRound validates in (see the package documentation) and decodes it.
func refNewRound(in classic.LeaderInput) (refRound, error) {
	if len(in.Members) == 0 {
		return refRound{}, fmt.Errorf("policy: the round has no members")
	}
	r := refRound{
		in:    in,
		ids:   make([]spec.MemberID, len(in.Members)),
		subs:  make(map[spec.MemberID][]string, len(in.Members)),
		owned: make(spec.Assignment, len(in.Members)),
		group: assign.Group{Topics: in.Topics, Members: make([]assign.Member, len(in.Members))},
	}
	for i, j := range in.Members {
		if err := j.Subscription.Owned.Validate(); err != nil {
			return refRound{}, fmt.Errorf("policy: member %q: owned: %v", j.ID, err)
		}
		r.ids[i] = j.ID
		r.subs[j.ID] = j.Subscription.Topics
		r.owned[j.ID] = j.Subscription.Owned
		r.group.Members[i] = assign.Member{
			ID:         j.ID,
			InstanceID: j.InstanceID,
			Topics:     slices.Clone(j.Subscription.Topics),
			Owned:      j.Subscription.Owned,
			Generation: j.Subscription.Generation,
		}
	}
	r.group = assign.PruneOwned(r.group)
	if err := assign.ValidateGroup(r.group); err != nil {
		return refRound{}, fmt.Errorf("policy: %w", err)
	}
	if _, ok := slices.BinarySearch(r.ids, in.Leader); !ok {
		return refRound{}, fmt.Errorf("policy: leader %q is not a member of the round", in.Leader)
	}
	return r, nil
}

// eligible reports whether member m may be given resource x: m subscribes
// to x's topic.
func (r refRound) eligible(m spec.MemberID, x spec.Resource) bool {
	_, ok := slices.BinarySearch(r.subs[m], x.Topic)
	return ok
}

// isMember reports whether m takes part in the round.
func (r refRound) isMember(m spec.MemberID) bool {
	_, ok := slices.BinarySearch(r.ids, m)
	return ok
}

// universe returns every resource of every topic some member subscribes to
// that exists in the leader's metadata (Connect's "configured" set).
func (r refRound) universe() spec.Set {
	var topics []string
	for _, m := range r.ids {
		topics = append(topics, r.subs[m]...)
	}
	return r.in.Topics.Resources(topics...)
}

// result builds the LeaderResult: every member gets assigned[m] and
// revoked[m], the same delay, and the round's leader.
func (r refRound) result(assigned, revoked spec.Assignment, delay classic.Millis, mem classic.LeaderMemory) classic.LeaderResult {
	out := classic.LeaderResult{Assignments: make(map[spec.MemberID]classic.Assignment, len(r.ids)), Memory: mem}
	for _, m := range r.ids {
		out.Assignments[m] = classic.Assignment{
			Assigned: assigned[m],
			Revoked:  revoked[m],
			Delay:    delay,
			Leader:   r.in.Leader,
		}
	}
	return out
}

// schedule is the part of the leader's memory that survives a generation
// mismatch (as the fields of Connect's assignor do).
type refSchedule struct {
	scheduledAt classic.Millis `canon:"instant"`
	candidates  []spec.MemberID
	revokedPrev bool
	successive  int
}

// leaderRound is one Assign in progress.
type refLeaderRound struct {
	refRound
	p          connectPolicy
	now        classic.Millis `canon:"instant"`
	configured spec.Set
	// next is the assignment being built; revoked what each member gives
	// up.
	next, revoked spec.Assignment
	// pending are resources revoked in step 4 that exist: nobody holds them
	// after this round, and the follow-up hands them out.
	pending spec.Set
	// pinned are the lost resources step 5 gave to the first candidate
	// under classic.LostToFirstCandidate: Connect before KAFKA-10413 gave
	// them to that worker outright, so placement does not settle them
	// away (a load-balancing revocation still may).
	pinned spec.Set
}

func (lr *refLeaderRound) run() classic.LeaderResult {
	in, ids := lr.in, lr.ids

	// Step 1-3: the derived sets.
	active := refUnionOf(lr.owned)
	claims := map[spec.Resource]int{}
	for _, m := range ids {
		for _, x := range lr.owned[m] {
			claims[x]++
		}
	}
	var dups []spec.Resource
	for x, n := range claims {
		if n > 1 {
			dups = append(dups, x)
		}
	}
	duplicated := spec.NewSet(dups...)

	mem := in.Memory
	sched := refSchedule{
		scheduledAt: mem.ScheduledAt,
		candidates:  slices.Clone(mem.Candidates),
		revokedPrev: mem.Revoked,
		successive:  mem.SuccessiveRevokingRounds,
	}
	prevMembers := mem.Members
	var previous spec.Set
	matched := len(mem.Members) > 0 && (mem.Generation == in.LastCompletedGeneration || in.Faults.Has(classic.UndeliveredAssignmentHeld))
	switch {
	case matched:
		// Before KAFKA-9848 Connect trusted its memory whatever
		// generation it was of (matched includes that fault).
		previous = refUnionOf(mem.Assignment).Union(mem.Lost)
	case lr.p.failover == DelayIfDeparted:
		previous = active
		if departed := lr.departedLeaders(); len(departed) > 0 {
			previous = previous.Union(lr.configured)
			prevMembers = refUnionIDs(prevMembers, departed)
		}
	}
	// Step 2, as Connect's performTaskAssignment does it with
	// previousRevocation: a member still claims something the previous
	// round revoked, so that revocation did not take effect, and the
	// previous assignment is what the members claim. Connect keeps the
	// revoked set whatever the generation; without a matched memory and
	// with ReassignImmediately the previous assignment is empty, and taking
	// the claims instead changes no derived set, so the test is skipped
	// only for DelayIfDeparted's reconstruction.
	if (matched || lr.p.failover == ReassignImmediately) && !mem.Revocation.Intersect(active).IsEmpty() {
		previous = active
	}
	deleted := previous.Union(active).Minus(lr.configured)
	lost := previous.Minus(active).Minus(deleted)
	created := lr.configured.Minus(previous).Minus(active)

	// Step 4: revoke deleted, duplicated and unsubscribed claims.
	lr.next = make(spec.Assignment, len(ids))
	lr.revoked = make(spec.Assignment, len(ids))
	var pending []spec.Resource
	for _, m := range ids {
		drop := lr.owned[m].Filter(func(x spec.Resource) bool {
			return deleted.Contains(x) || duplicated.Contains(x) || !lr.eligible(m, x)
		})
		lr.revoked[m] = drop
		lr.next[m] = lr.owned[m].Minus(drop)
		pending = append(pending, drop.Filter(lr.configured.Contains)...)
	}
	lr.pending = spec.NewSet(pending...)

	// Step 5: lost resources.
	delay, toAssign, held, started := lr.handleLost(lost, prevMembers, &sched)
	toAssign = toAssign.Union(created)

	// Steps 6 and 7, kind by kind: load-balancing revocations, and
	// handing out created and lost resources least loaded.
	kinds := lr.kindRounds(toAssign)
	if delay == 0 {
		if lr.p.incremental {
			delay = lr.incrementalBalance(kinds, &sched)
		} else {
			delay = lr.deferredBalance(kinds, &sched)
		}
	} else if !lr.p.incremental {
		// Connect: "Delayed rebalance is active"; Incremental keeps the
		// flag so that its step schedule holds until it expires.
		sched.revokedPrev = false
	}
	final := spec.Assignment{}
	for _, ks := range kinds {
		for m, s := range lr.finish(ks) {
			final[m] = final[m].Union(s)
		}
	}

	// Step 8.
	out := classic.LeaderMemory{
		Generation:               in.Generation,
		Assignment:               final,
		Members:                  slices.Clone(ids),
		ScheduledAt:              sched.scheduledAt,
		Lost:                     held,
		Candidates:               sched.candidates,
		SuccessiveRevokingRounds: sched.successive,
		Revoked:                  sched.revokedPrev,
		Revocation:               refUnionOf(lr.revoked),
	}
	res := lr.result(final, lr.revoked, delay, out)
	if started {
		res.Held = held
	}
	return res
}

// departedLeaders returns the leaders members report their claims were
// assigned by that are not members of this round, sorted.
func (lr *refLeaderRound) departedLeaders() []spec.MemberID {
	var out []spec.MemberID
	for _, j := range lr.in.Members {
		if l := j.Subscription.Leader; l != "" && !lr.isMember(l) && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// handleLost is step 5 (Connect's handleLostAssignments). It may give lost
// resources to candidates in lr.next, and returns the delay, the lost
// resources to hand out least loaded, the ones held back, and whether this
// round starts the delay that holds them (no delay was pending: work that
// waits for a pending delay, a departed member's or a pacing one, the
// revocation back-off or Design III's step, is held but not started).
func (lr *refLeaderRound) handleLost(lost spec.Set, prevMembers []spec.MemberID, s *refSchedule) (delay classic.Millis, reassign, held spec.Set, started bool) {
	reset := func() {
		s.candidates, s.scheduledAt = nil, 0
	}
	switch {
	case lost.IsEmpty() && !s.revokedPrev:
		reset()
		return 0, nil, nil, false
	case s.scheduledAt <= 0 && lr.containsAll(prevMembers) && (lost.IsEmpty() || !lr.in.Faults.Has(classic.UndeliveredAssignmentHeld)):
		// No member departed: the lost resources were assignments some
		// member never received.
		return 0, lost, nil, false
	case lr.p.maxDelay == 0 && !lr.in.Faults.Has(classic.DisabledDelayHoldsLost):
		// Delays disabled: reassign at once (KAFKA-15693). Before that
		// fix the lost resources fell through to the delay below, held
		// for a delay of 0 that schedules nothing.
		return 0, lost, nil, false
	case s.scheduledAt > 0 && lr.now >= s.scheduledAt:
		// The delay expired: round-robin over the candidates.
		var cands []spec.MemberID
		for _, c := range s.candidates {
			if lr.isMember(c) {
				cands = append(cands, c)
			}
		}
		switch {
		case len(cands) == 0:
			reassign = lost
		case lr.in.Faults.Has(classic.LostToFirstCandidate):
			// Connect before KAFKA-10413: findFirst picked one
			// candidate for every lost resource.
			reassign = lr.roundRobin(cands[:1], lost)
			lr.pinned = lost.Minus(reassign)
		default:
			reassign = lr.roundRobin(cands, lost)
		}
		reset()
		s.revokedPrev = false
		return 0, reassign, nil, false
	}
	for _, m := range lr.ids {
		if lr.next[m].IsEmpty() {
			s.candidates = refUnionIDs(s.candidates, []spec.MemberID{m})
		}
	}
	if lr.now < s.scheduledAt {
		delay = min(s.scheduledAt-lr.now, lr.p.maxDelay)
	} else {
		delay = lr.p.maxDelay
		started = true
	}
	s.scheduledAt = lr.now + delay
	return delay, nil, lost, started
}

// roundRobin gives the lost resources to the candidates in turn, connectors
// first and then the rest, each pass starting again at the first candidate
// (Connect's iterator), skipping candidates that do not subscribe to a
// resource's topic. It returns what no candidate could take.
func (lr *refLeaderRound) roundRobin(cands []spec.MemberID, lost spec.Set) spec.Set {
	var rest []spec.Resource
	add := map[spec.MemberID][]spec.Resource{}
	for _, k := range assign.ConnectKinds {
		cursor := 0
		for _, x := range lost {
			if assign.KindOf(x) != k {
				continue
			}
			placed := false
			for i := range cands {
				c := cands[(cursor+i)%len(cands)]
				if lr.eligible(c, x) {
					add[c] = append(add[c], x)
					cursor = (cursor + i + 1) % len(cands)
					placed = true
					break
				}
			}
			if !placed {
				rest = append(rest, x)
			}
		}
	}
	for c, xs := range add {
		lr.next[c] = lr.next[c].Union(spec.NewSet(xs...))
	}
	return spec.NewSet(rest...)
}

// containsAll reports whether every member of ms is in this round.
func (lr *refLeaderRound) containsAll(ms []spec.MemberID) bool {
	for _, m := range ms {
		if !lr.isMember(m) {
			return false
		}
	}
	return true
}

// backoff is Connect's consecutiveRevokingRebalancesBackoff,
// ExponentialBackoff(1, mult, maxDelay, 0).backoff(n): min(multⁿ,
// maxDelay) with Connect's mult = 40, and 0 when delays are disabled.
func refBackoff(n int, mult, maxDelay classic.Millis) classic.Millis {
	if maxDelay <= 0 {
		return 0
	}
	d := classic.Millis(1)
	for range n {
		if d > maxDelay/mult {
			return maxDelay
		}
		d *= mult
	}
	return d
}

// unionOf returns the union of the sets of a (spec.Assignment.All without
// its repeated merging).
func refUnionOf(a spec.Assignment) spec.Set {
	var all []spec.Resource
	for _, s := range a {
		all = append(all, s...)
	}
	return spec.NewSet(all...)
}

// unionIDs returns the sorted union of two member lists.
func refUnionIDs(a, b []spec.MemberID) []spec.MemberID {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

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
type refKindRound struct {
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
	plan refProposal
}

// kindRounds splits the round after step 5 by kind and places toAssign.
func (lr *refLeaderRound) kindRounds(toAssign spec.Set) []*refKindRound {
	var out []*refKindRound
	for _, k := range assign.ConnectKinds {
		of := func(x spec.Resource) bool { return assign.KindOf(x) == k }
		ks := &refKindRound{
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
func (lr *refLeaderRound) homogeneous(k assign.ConnectKind) bool {
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
func (lr *refLeaderRound) fresh(m spec.MemberID, x spec.Resource) bool {
	return !lr.owned[m].Contains(x)
}

// settleable reports whether placement may move x, held by m, for free:
// m was given x in this round, and not as a lost resource pinned to the
// first candidate (classic.LostToFirstCandidate).
func (lr *refLeaderRound) settleable(m spec.MemberID, x spec.Resource) bool {
	return lr.fresh(m, x) && !lr.pinned.Contains(x)
}

// place hands out add least loaded over cur (never to the member from
// names for a resource), then settles.
func (lr *refLeaderRound) place(cur spec.Assignment, add spec.Set, from map[spec.Resource]spec.MemberID, movable func(spec.MemberID, spec.Resource) bool) spec.Assignment {
	a := refLeastLoaded(cur, lr.eligibleFor(from), add)
	return lr.settle(a, movable, from)
}

// eligibleFor is lr.eligible, except that a resource never goes back to
// the member from names for it.
func (lr *refLeaderRound) eligibleFor(from map[spec.Resource]spec.MemberID) func(spec.MemberID, spec.Resource) bool {
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
func (lr *refLeaderRound) settle(a spec.Assignment, movable func(spec.MemberID, spec.Resource) bool, from map[spec.Resource]spec.MemberID) spec.Assignment {
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
func (lr *refLeaderRound) leastLoaded(count map[spec.MemberID]int, m spec.MemberID, x spec.Resource, eligible func(spec.MemberID, spec.Resource) bool) (spec.MemberID, bool) {
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
type refProposal map[spec.MemberID][]spec.Resource

func (p refProposal) isEmpty() bool { return p.size() == 0 }

func (p refProposal) size() int {
	n := 0
	for _, xs := range p {
		n += len(xs)
	}
	return n
}

// on is the assignment ks's revocations are planned on: the one before
// placement under Connect's rule, the placed one otherwise.
func (ks *refKindRound) on() spec.Assignment {
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
func (lr *refLeaderRound) connectRule(ks *refKindRound) refProposal {
	if ks.configured.IsEmpty() {
		return nil
	}
	targets := refConnectBalanceTargets(ks.next, ks.configured)
	out := refProposal{}
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
				fresh = refSpreadByConnector(fresh, lr.in.Topics, gap)
				old = refSpreadByConnector(old, lr.in.Topics, gap)
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
func refSpreadByConnector(xs []spec.Resource, topics spec.Topics, gap func(connector string) int) []spec.Resource {
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
func (lr *refLeaderRound) connectorGap(ks *refKindRound, m spec.MemberID) func(string) int {
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
type refMove struct {
	from spec.MemberID
	x    spec.Resource
}

// proposalOf returns the proposal that takes the resources of moves.
func refProposalOf(moves []refMove) refProposal {
	if len(moves) == 0 {
		return nil
	}
	out := refProposal{}
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
func (lr *refLeaderRound) movePlan(ks *refKindRound) []refMove {
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
	var moves []refMove
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
				moves = append(moves, refMove{from: m, x: x})
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
func (lr *refLeaderRound) thisRound(ks *refKindRound, plan refProposal, handOver bool) (now spec.Assignment, later spec.Set, from map[spec.Resource]spec.MemberID) {
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
func (lr *refLeaderRound) imbalance(ks *refKindRound, plan refProposal) int {
	now, later, _ := lr.thisRound(ks, plan, false)
	follow := lr.place(now, later, nil, func(_ spec.MemberID, x spec.Resource) bool { return later.Contains(x) })
	return refConnectImbalance(follow).Of(ks.k)
}

// verified returns plan if it lowers the imbalance after the follow-up
// compared with revoking nothing, else fallback if that does, else nil.
func (lr *refLeaderRound) verified(ks *refKindRound, plan, fallback refProposal) refProposal {
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
func (lr *refLeaderRound) finish(ks *refKindRound) spec.Assignment {
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
func (lr *refLeaderRound) delayedPrev() bool {
	return lr.p.maxDelay > 0 && lr.in.Memory.ScheduledAt > 0
}

// deferredBalance is Design II's step 6, run when no delay is pending. It
// sets each kind's plan and returns the delay.
func (lr *refLeaderRound) deferredBalance(kinds []*refKindRound, s *refSchedule) classic.Millis {
	revoke := false
	for _, ks := range kinds {
		if ks.hom {
			ks.plan = lr.connectRule(ks)
		} else {
			moves := lr.movePlan(ks)
			ks.plan = lr.verified(ks, refProposalOf(moves), refProposalOf(moves[:min(1, len(moves))]))
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
		if d := refBackoff(s.successive, lr.p.backoff, lr.p.maxDelay); d != 0 {
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

// incrementalBalance is Design III's step 6, run when no delay is pending.
// It sets each kind's plan and returns the delay.
func (lr *refLeaderRound) incrementalBalance(kinds []*refKindRound, s *refSchedule) classic.Millis {
	full := make([]refProposal, len(kinds))
	moves := make([][]refMove, len(kinds))
	wanted := false
	for i, ks := range kinds {
		if ks.hom {
			full[i] = lr.connectRule(ks)
		} else {
			moves[i] = lr.movePlan(ks)
			full[i] = refProposalOf(moves[i])
		}
		wanted = wanted || !full[i].isEmpty()
	}
	stop := func() {
		s.revokedPrev, s.successive, s.scheduledAt = false, 0, 0
	}
	switch {
	case !wanted:
		stop()
		return 0
	case s.scheduledAt > lr.now:
		// A step is pending (only reachable with delays disabled; otherwise
		// step 5 reports the pending delay). Like step 5 with MaxDelay, a
		// remembered deadline never waits longer than one step.
		d := min(s.scheduledAt-lr.now, lr.p.stepDelay)
		s.scheduledAt = lr.now + d
		return d
	case s.revokedPrev && s.scheduledAt == 0:
		// The previous round revoked and scheduled nothing: wait a step.
		s.scheduledAt = lr.now + lr.p.stepDelay
		return lr.p.stepDelay
	}
	budget, remain, revoke := lr.p.maxMoves, false, false
	for i, ks := range kinds {
		if ks.hom {
			// Connect's rule, cut to the budget: every revocation from a
			// member above its target helps.
			ks.plan = lr.truncate(ks, full[i], budget)
		} else {
			// The first moves of the plan, checked like Deferred's.
			n := min(budget, len(moves[i]))
			ks.plan = lr.verified(ks, refProposalOf(moves[i][:n]), refProposalOf(moves[i][:min(1, n)]))
		}
		budget -= ks.plan.size()
		remain = remain || full[i].size() > ks.plan.size()
		revoke = revoke || !ks.plan.isEmpty()
	}
	if !revoke {
		stop()
		return 0
	}
	s.revokedPrev = true
	s.successive++
	if remain {
		s.scheduledAt = lr.now + lr.p.stepDelay
		return lr.p.stepDelay
	}
	s.scheduledAt = 0
	return 0
}

// truncate takes at most budget resources from plan, one at a time from the
// member that holds the most after the resources already taken (ties by
// id), each member's in plan order.
func (lr *refLeaderRound) truncate(ks *refKindRound, plan refProposal, budget int) refProposal {
	count := map[spec.MemberID]int{}
	for _, m := range lr.ids {
		count[m] = ks.on()[m].Len()
	}
	pos := map[spec.MemberID]int{}
	take := refProposal{}
	for range budget {
		var best spec.MemberID
		found := false
		for _, m := range lr.ids {
			if pos[m] < len(plan[m]) && (!found || count[m] > count[best]) {
				best, found = m, true
			}
		}
		if !found {
			break
		}
		take[best] = append(take[best], plan[best][pos[best]])
		pos[best]++
		count[best]--
	}
	return take
}

// The model/assign helpers, frozen likewise.

func refLeastLoaded(current spec.Assignment, eligible func(member spec.MemberID, r spec.Resource) bool, toAssign spec.Set) spec.Assignment {
	members := current.Members()
	out := make(spec.Assignment, len(members))
	held := map[spec.Resource]bool{}
	for _, m := range members {
		out[m] = current[m]
		for _, r := range current[m] {
			held[r] = true
		}
	}
	if len(members) == 0 || len(toAssign) == 0 {
		return out
	}
	items := spec.NewSet(toAssign...) // tolerate an unsorted argument
	added := make([][]spec.Resource, len(members))
	for _, k := range assign.ConnectKinds {
		h := make(refConnectHeap, len(members))
		for i, m := range members {
			h[i] = refConnectEntry{count: assign.ConnectLoadOf(current[m]).Of(k), index: i}
		}
		heap.Init(&h)
		var skipped []refConnectEntry
		for _, r := range items {
			if assign.KindOf(r) != k || held[r] {
				continue
			}
			skipped = skipped[:0]
			for h.Len() > 0 {
				e := heap.Pop(&h).(refConnectEntry)
				if eligible == nil || eligible(members[e.index], r) {
					added[e.index] = append(added[e.index], r)
					held[r] = true
					e.count++
					heap.Push(&h, e)
					break
				}
				skipped = append(skipped, e)
			}
			for _, e := range skipped {
				heap.Push(&h, e)
			}
		}
	}
	for i, m := range members {
		if len(added[i]) > 0 {
			out[m] = current[m].Union(spec.NewSet(added[i]...))
		}
	}
	return out
}

// refConnectEntry is one member in LeastLoaded's heap: its count of the kind being
// assigned and its index in the sorted member list (so ties go to the
// smaller member id).
type refConnectEntry struct {
	count int
	index int
}

type refConnectHeap []refConnectEntry

func (h refConnectHeap) Len() int { return len(h) }
func (h refConnectHeap) Less(i, j int) bool {
	if h[i].count != h[j].count {
		return h[i].count < h[j].count
	}
	return h[i].index < h[j].index
}
func (h refConnectHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *refConnectHeap) Push(x any)   { *h = append(*h, x.(refConnectEntry)) }
func (h *refConnectHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func refConnectBalanceTargets(current spec.Assignment, configured spec.Set) map[spec.MemberID]assign.ConnectLoad {
	members := current.Members()
	out := make(map[spec.MemberID]assign.ConnectLoad, len(members))
	if len(members) == 0 {
		return out
	}
	total := assign.ConnectLoadOf(configured)
	loads := make([]assign.ConnectLoad, len(members))
	for i, m := range members {
		loads[i] = assign.ConnectLoadOf(current[m])
	}
	targets := make([]assign.ConnectLoad, len(members))
	for _, k := range assign.ConnectKinds {
		n, w := total.Of(k), len(members)
		low, extras := n/w, n%w
		extra := make([]bool, w)
		for i := range members {
			if extras > 0 && loads[i].Of(k) > low {
				extra[i] = true
				extras--
			}
		}
		for i := range members {
			if extras > 0 && !extra[i] {
				extra[i] = true
				extras--
			}
		}
		for i := range members {
			t := low
			if extra[i] {
				t++
			}
			if k == assign.ConnectorKind {
				targets[i].Connectors += t
			} else {
				targets[i].Tasks += t
			}
		}
	}
	for i, m := range members {
		out[m] = targets[i]
	}
	return out
}

func refConnectImbalance(a spec.Assignment) assign.ConnectLoad {
	var out assign.ConnectLoad
	for _, m := range a.Members() {
		l := assign.ConnectLoadOf(a[m])
		out.Connectors += l.Connectors * l.Connectors
		out.Tasks += l.Tasks * l.Tasks
	}
	return out
}
