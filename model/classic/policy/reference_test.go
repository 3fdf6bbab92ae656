package policy

// This file freezes the Designs II and III leader (connectPolicy's Assign)
// as it was before the index-based rewrite, as the reference that
// TestConnectEquivalence compares the current one with, bit for bit.
//
// Only what the rewrite changed is frozen: the round's state (refLeaderRound
// and refKindRound, on spec.Sets and spec.Assignments where the current one
// works on indices), steps 1-5 and 8 (run, handleLost, roundRobin),
// placement and settling, the balance plans (connectRule, connectorGap,
// movePlan, thisRound, imbalance, truncate), and the steps that drive them
// (verified, finish, deferredBalance, incrementalBalance: their bodies are
// the current ones', but over the frozen kind rounds). round's eligible
// and universe, which the rewrite removed, are kept on refRound.
//
// What the rewrite left as it was is called, not copied: newRound and
// round's other methods, schedule, backoff, unionOf, unionIDs, proposal,
// move, proposalOf, spreadByConnector, leaderRound's departedLeaders,
// containsAll and delayedPrev (see shared), and model/assign's LeastLoaded,
// ConnectBalanceTargets and ConnectImbalance (which the current leader no
// longer calls). A change to one of those the current leader still calls
// changes both sides alike, and so is not this test's to catch.

import (
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
	r, err := newRound(in)
	if err != nil {
		return classic.LeaderResult{}, err
	}
	if in.Now < 0 {
		return classic.LeaderResult{}, fmt.Errorf("policy: %s: negative time %d", p.name, in.Now)
	}
	if p.failover != ReassignImmediately && p.failover != DelayIfDeparted {
		return classic.LeaderResult{}, fmt.Errorf("policy: %s: unknown leader failover rule %d", p.name, p.failover)
	}
	lr := &refLeaderRound{refRound: refRound{r}, p: p, now: in.Now}
	lr.configured = lr.universe()
	return lr.run(), nil
}

// refRound is round with the two methods the rewrite removed from it.
type refRound struct{ round }

// eligible reports whether member m may be given resource x: m subscribes
// to x's topic.
func (r refRound) eligible(m spec.MemberID, x spec.Resource) bool {
	_, ok := slices.BinarySearch(r.subscription(m), x.Topic)
	return ok
}

// subscription returns member m's subscription, nil when m is not in the
// round.
func (r round) subscription(m spec.MemberID) []string {
	if p, ok := slices.BinarySearch(r.ids, m); ok {
		return r.subs[p]
	}
	return nil
}

// universe returns every resource of every topic some member subscribes to
// that exists in the leader's metadata (Connect's "configured" set).
func (r refRound) universe() spec.Set {
	var topics []string
	for _, m := range r.ids {
		topics = append(topics, r.subscription(m)...)
	}
	return r.in.Topics.Resources(topics...)
}

// refLeaderRound is one Assign in progress.
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

// shared returns a leaderRound holding only lr's round, policy and time,
// to run the methods the rewrite did not change, which read nothing else
// (departedLeaders, containsAll, delayedPrev).
func (lr *refLeaderRound) shared() *leaderRound {
	return &leaderRound{round: lr.round, p: lr.p, now: lr.now}
}

func (lr *refLeaderRound) run() classic.LeaderResult {
	in, ids := lr.in, lr.ids

	// Step 1-3: the derived sets.
	active := unionOf(lr.owned)
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
	sched := schedule{
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
		previous = unionOf(mem.Assignment).Union(mem.Lost)
	case lr.p.failover == DelayIfDeparted:
		previous = active
		if departed := lr.shared().departedLeaders(); len(departed) > 0 {
			previous = previous.Union(lr.configured)
			prevMembers = unionIDs(prevMembers, departed)
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
		Revocation:               unionOf(lr.revoked),
	}
	res := lr.result(final, lr.revoked, delay, out)
	if started {
		res.Held = held
	}
	return res
}

// handleLost is step 5 (Connect's handleLostAssignments). It may give lost
// resources to candidates in lr.next, and returns the delay, the lost
// resources to hand out least loaded, the ones held back, and whether this
// round starts the delay that holds them (no delay was pending: work that
// waits for a pending delay, a departed member's or a pacing one, the
// revocation back-off or Design III's step, is held but not started).
func (lr *refLeaderRound) handleLost(lost spec.Set, prevMembers []spec.MemberID, s *schedule) (delay classic.Millis, reassign, held spec.Set, started bool) {
	reset := func() {
		s.candidates, s.scheduledAt = nil, 0
	}
	switch {
	case lost.IsEmpty() && !s.revokedPrev:
		reset()
		return 0, nil, nil, false
	case s.scheduledAt <= 0 && lr.shared().containsAll(prevMembers) && (lost.IsEmpty() || !lr.in.Faults.Has(classic.UndeliveredAssignmentHeld)):
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
			s.candidates = unionIDs(s.candidates, []spec.MemberID{m})
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
	plan proposal
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
			if _, ok := slices.BinarySearch(lr.subscription(m), t); !ok {
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
	a := assign.LeastLoaded(cur, lr.eligibleFor(from), add)
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
func (lr *refLeaderRound) connectRule(ks *refKindRound) proposal {
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

// movePlan plans load-balancing moves for a heterogeneous kind on the
// placed assignment: repeatedly, from the most loaded member (ties by id)
// that has one, take its last owned resource that a member subscribed to
// its topic and holding at least two fewer could take, and count it as
// moved to the least loaded such member (ties by id), until no such move
// is left. It returns the moves in the order they were planned; each one
// lowers Σ load² given the ones before it.
func (lr *refLeaderRound) movePlan(ks *refKindRound) []move {
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
func (lr *refLeaderRound) thisRound(ks *refKindRound, plan proposal, handOver bool) (now spec.Assignment, later spec.Set, from map[spec.Resource]spec.MemberID) {
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
func (lr *refLeaderRound) imbalance(ks *refKindRound, plan proposal) int {
	now, later, _ := lr.thisRound(ks, plan, false)
	follow := lr.place(now, later, nil, func(_ spec.MemberID, x spec.Resource) bool { return later.Contains(x) })
	return assign.ConnectImbalance(follow).Of(ks.k)
}

// verified returns plan if it lowers the imbalance after the follow-up
// compared with revoking nothing, else fallback if that does, else nil.
func (lr *refLeaderRound) verified(ks *refKindRound, plan, fallback proposal) proposal {
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

// deferredBalance is Design II's step 6, run when no delay is pending. It
// sets each kind's plan and returns the delay.
func (lr *refLeaderRound) deferredBalance(kinds []*refKindRound, s *schedule) classic.Millis {
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
	case revoke && (s.revokedPrev || lr.shared().delayedPrev()) && lr.in.Faults.Has(classic.NoConsecutiveRevocation):
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

// incrementalBalance is Design III's step 6, run when no delay is pending.
// It sets each kind's plan and returns the delay.
func (lr *refLeaderRound) incrementalBalance(kinds []*refKindRound, s *schedule) classic.Millis {
	full := make([]proposal, len(kinds))
	moves := make([][]move, len(kinds))
	wanted := false
	for i, ks := range kinds {
		if ks.hom {
			full[i] = lr.connectRule(ks)
		} else {
			moves[i] = lr.movePlan(ks)
			full[i] = proposalOf(moves[i])
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
			ks.plan = lr.verified(ks, proposalOf(moves[i][:n]), proposalOf(moves[i][:min(1, n)]))
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
func (lr *refLeaderRound) truncate(ks *refKindRound, plan proposal, budget int) proposal {
	count := map[spec.MemberID]int{}
	for _, m := range lr.ids {
		count[m] = ks.on()[m].Len()
	}
	pos := map[spec.MemberID]int{}
	take := proposal{}
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
