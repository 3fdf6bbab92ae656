package policy

import (
	"fmt"
	"slices"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// DefaultMaxDelay is Connect's default scheduled.rebalance.max.delay.ms
// (DistributedConfig): five minutes.
const DefaultMaxDelay classic.Millis = 300000

// LeaderFailover says what a Deferred or Incremental leader that has no
// history of the previous generation (a new leader, or a leader whose last
// round never completed) takes the previous assignment to be.
type LeaderFailover uint8

const (
	// ReassignImmediately is Kafka Connect's rule (KAFKA-9848): when the
	// leader's memory is not of the last completed generation, the previous
	// assignment is empty. Nothing counts as lost, so every resource nobody
	// reports is assigned at once, as new. A member that was the old
	// leader's and departed loses its resources to the others immediately:
	// the delay protects only departures a leader with history sees.
	ReassignImmediately LeaderFailover = iota
	// DelayIfDeparted is the seed design's heuristic: a leader with no
	// history takes the previous assignment to be what the members report,
	// and infers a departure when some member's Subscription.Leader (the
	// leader of the generation its claims were assigned in) is not a member
	// of this round. Then every resource of a subscribed topic that nobody
	// reports is treated as lost and held back for a fresh full MaxDelay
	// (the old leader and its resources are presumed gone for a while).
	// Otherwise unreported resources are new and assigned at once. The
	// heuristic errs both ways: resources that were simply never assigned
	// (a new topic, say) are held back too when a departure is inferred,
	// and a departure of a member other than the old leader is not noticed.
	DelayIfDeparted
)

var leaderFailovers = node.Enum[LeaderFailover]{Type: "leader-failover", Names: []string{"reassign-immediately", "delay-if-departed"}}

// String names the rule as the scenario scripts spell it.
func (f LeaderFailover) String() string { return leaderFailovers.Name(f) }

// DeferredConfig configures Deferred. The zero value is Connect's default.
type DeferredConfig struct {
	// MaxDelay is scheduled.rebalance.max.delay.ms: how long the resources
	// of a departed member are held back. 0 means DefaultMaxDelay. A
	// negative value disables scheduled delays, like Connect's 0
	// (KAFKA-15693): lost resources are reassigned at once and the
	// revocation back-off is always 0.
	MaxDelay classic.Millis `canon:"duration"`
	// LeaderFailover is the rule for a leader without history; the default
	// is ReassignImmediately (Kafka's behaviour).
	LeaderFailover LeaderFailover
	// BackoffMultiplier is the revocation back-off's multiplier: the n-th
	// successive revoking round waits min(multiplierⁿ ms, MaxDelay). 0
	// means Connect's 40. The model checker sets 1000 so that every timer
	// falls on its one-second grid (see docs/checker.md).
	BackoffMultiplier classic.Millis `canon:"duration"`
}

// Deferred returns the deferred protocol of the seed design's Design II,
// KIP-415: Kafka Connect's IncrementalCooperativeAssignor
// (connect/runtime/.../distributed/IncrementalCooperativeAssignor.java,
// performTaskAssignment) over generic resources. Name "deferred",
// Cooperative() == true.
//
// The universe ("configured") is every partition of every topic some member
// subscribes to, from LeaderInput.Topics; a resource may go only to a member
// subscribed to its topic. Connectors (partition spec.ConnectorTask) and
// other resources are balanced separately (assign.LeastLoaded); with topic
// metadata as the universe there are only partitions, counted as tasks.
// Each round:
//
//  1. The previous assignment is LeaderInput.Memory (its Assignment plus its
//     held-back Lost) when the memory is of LeaderInput.LastCompletedGeneration;
//     otherwise it is empty or reconstructed as LeaderFailover says.
//  2. If some member still claims a resource the previous round revoked
//     (LeaderMemory.Revocation, Connect's previousRevocation: that
//     revocation did not take effect), the previous assignment is what the
//     members claim. Like Connect's, the revoked set is kept whatever the
//     generation (it is this process's last round as leader).
//  3. deleted = (previous ∪ claimed) − universe; duplicated = claimed by two
//     or more members; lost = previous − claimed − deleted; created =
//     universe − previous − claimed.
//  4. Deleted and duplicated resources are revoked from every member that
//     claims them, and so is a resource claimed by a member that does not
//     subscribe to its topic (Connect has no subscriptions; this is the
//     generic rule). They are handed out as created in the follow-up.
//  5. Lost resources (handleLostAssignments): with no delay pending and no
//     previous member missing, they are reassigned at once; with delays
//     disabled too; once the delay has expired (Now ≥ ScheduledAt) they go
//     round-robin to the candidate members (members that had nothing while
//     the delay ran; a bouncing member comes back empty), resources a
//     candidate may not take and all of them when there is no candidate
//     going out least loaded; otherwise the currently empty members join
//     the candidates, the delay is min(ScheduledAt − Now, MaxDelay), or
//     MaxDelay when none was pending, and the lost resources stay
//     unassigned.
//  6. Load-balancing revocations, only when no delay is pending: see below.
//     When the previous round also revoked for balance, the
//     successive-revoking-rounds counter n goes up and the revocation is
//     skipped for a back-off delay of min(40ⁿ ms, MaxDelay): 40 ms, 1.6 s,
//     64 s, then MaxDelay (ExponentialBackoff(1, 40, MaxDelay), KAFKA-12495);
//     a round that needs no revocation resets the counter.
//  7. created plus the lost resources to reassign go out least loaded
//     (assign.LeastLoaded), connectors first. Revoked resources are never
//     handed out in the round that revokes them.
//  8. Every member gets its new complete set, its revocations, and the same
//     Delay.
//
// Load-balancing revocations. When every member may take every resource of
// a kind (all members subscribe to all the topics), the rule is Connect's:
// computed on the assignment before step 7, each member is cut to its
// assign.ConnectBalanceTargets target, ⌊N/W⌋ or ⌊N/W⌋+1, giving up the
// resources that sort last, the tasks of different connectors taking turns
// (KAFKA-17049's proposed fix; see spreadByConnector); after the follow-up
// the kind is balanced (loads differ by at most one). With heterogeneous subscriptions Connect's
// targets can ask for moves no member can take (and then revoke the same
// resource for ever), so the generalisation works on the assignment after
// step 7 and plans moves: repeatedly, from the most loaded member, a
// resource it owned that a subscriber of its topic holding at least two
// fewer could take. The plan is applied only if simulating this round and
// its quiet follow-up with it gives a lower sum of squared loads than
// without it, else its first move alone under the same test, else nothing.
// That check makes every revoking cycle lower the sum by construction (in a
// quiet group the first move always passes it), so the cycles end, and they
// end with no improving move left: for every two members whose loads differ
// by more than one, the more loaded one holds nothing the other subscribes
// to (spec.CheckBalance's notion of balance).
//
// Placement with heterogeneous subscriptions. Least-loaded placement in
// resource order can leave a resource handed out in this round on a member
// holding two or more than another subscriber of its topic. Such a
// resource is claimed by nobody, so it is moved over at once (settling);
// with homogeneous subscriptions least loaded never leaves one. Likewise,
// under Connect's rule, a resource given in this very round (a lost one
// handed to a candidate) is taken back before anything owned and handed
// out least loaded at once instead of being revoked.
//
// Memory out: the new complete assignment (revoked resources excluded; lost
// resources held back are in Lost), the members, ScheduledAt, Candidates,
// the counter, whether this round revoked for balance (Connect's
// revokedInPrevious, which also stays set through a skipped round), and
// Generation = LeaderInput.Generation.
//
// Guarantees: the round passes spec.CheckRound with Cooperative set; every
// member gets the same Delay. In a quiet group (no membership, subscription
// or metadata change, every assignment applied, members rejoining at once
// after a revocation and after Delay otherwise) with a leader that keeps its
// memory, the assignment is complete once the pending delay (at most
// MaxDelay) has run out and the follow-up round has run: lost resources are
// held at most MaxDelay, everything else is assigned in the round it
// appears or in the follow-up of the round that revoked it. Balance may take
// further revoking cycles separated by the back-off. Known weakness (the
// seed design's): a leader that keeps changing inside the delay restarts or
// drops it, so the delay can be extended indefinitely (DelayIfDeparted) or
// not applied at all (ReassignImmediately).
//
// Connect quirks kept on purpose: a previous member that left owning nothing
// while the previous round revoked for balance starts a MaxDelay delay with
// nothing lost; and a round that comes in while the back-off runs but after
// a follow-up has cleared the revocation flag revokes at once.
//
// Fault switches: with classic.CooperativeNoWithholding, resources revoked
// for balance are handed out least loaded (to a member other than their
// owner) in the same round, breaking spec.CooperativeHandoff on purpose.
// With classic.DisabledDelayHoldsLost and delays disabled, step 5 holds
// lost resources back with a delay of 0 instead of reassigning them
// (Connect before KAFKA-15693), so nothing hands them out in a quiet group.
// With classic.LostToFirstCandidate, an expired delay gives every lost
// resource to the first candidate, and placement does not settle them away
// (Connect before KAFKA-10413); the round's balance may still take them
// back unless classic.NoConsecutiveRevocation forbids it. With
// classic.UndeliveredAssignmentHeld, step 1 takes the memory whatever
// generation it is of, and step 5 holds lost resources for the delay even
// when no previous member is missing (Connect before KAFKA-9848).
func Deferred(cfg DeferredConfig) classic.Protocol {
	mult := cfg.BackoffMultiplier
	if mult <= 0 {
		mult = 40
	}
	return connectPolicy{name: "deferred", maxDelay: resolveMaxDelay(cfg.MaxDelay), failover: cfg.LeaderFailover, backoff: mult}
}

func resolveMaxDelay(d classic.Millis) classic.Millis {
	switch {
	case d == 0:
		return DefaultMaxDelay
	case d < 0:
		return 0
	}
	return d
}

// connectPolicy is the leader of Designs II (Deferred) and III
// (Incremental).
type connectPolicy struct {
	name string
	// maxDelay is positive, or 0 when scheduled delays are disabled.
	maxDelay    classic.Millis `canon:"duration"`
	failover    LeaderFailover
	incremental bool
	maxMoves    int            // Incremental only, > 0
	stepDelay   classic.Millis `canon:"duration"` // Incremental only, > 0
	backoff     classic.Millis `canon:"duration"` // Deferred only: the back-off multiplier, > 0
}

func (p connectPolicy) Name() string      { return p.name }
func (p connectPolicy) Cooperative() bool { return true }

// RoundBound is Design I's bound plus one for Design II (the round in
// which the scheduled delay holding a departed member's resources expires
// and hands them out) and, for Design III, two for every further batch of
// at most maxMoves resources that balance needs: 2 + min(Members−1,
// Resources) + 2·(⌈(Resources−1)/maxMoves⌉−1) (a batch of
// Resources−1 moves is the most balance can ask for: one member keeps
// one). Measured maxima are in docs/checker.md.
func (p connectPolicy) RoundBound(g classic.GroupShape) int {
	b := 2 + max(0, min(g.Members-1, g.Resources))
	if p.incremental && g.Resources > 1 {
		batches := (g.Resources - 1 + p.maxMoves - 1) / p.maxMoves
		b += 2 * (batches - 1)
	}
	return b
}

// Balance is spec.CheckConnectBalance (classic.Balancer): Connect's
// assignor balances connectors and tasks separately and, since
// KAFKA-17049, each connector's tasks; without connectors it is
// spec.CheckBalance.
func (connectPolicy) Balance(v spec.View) []spec.Violation { return spec.CheckConnectBalance(v) }

// AssignsConnectors is true: both designs run Connect's assignor
// (classic.ConnectAssigner).
func (connectPolicy) AssignsConnectors() bool { return true }

// DelayBound is one scheduled delay (MaxDelay: a departure the group
// learns of once quiet starts a fresh one, and one already pending has at
// most that much left) plus, for Design II, a revocation back-off in each
// of its rounds (min(multiplierⁿ ms, MaxDelay) for the n-th successive
// revoking round, KAFKA-12495) and, for Design III, a step delay in each
// of its rounds (with delays disabled too). Loose, not tight: the sum is
// what the rounds can take at most, not what one path takes.
func (p connectPolicy) DelayBound(g classic.GroupShape) classic.Millis {
	rounds := p.RoundBound(g)
	d := max(p.maxDelay, 0)
	for n := 1; n <= rounds; n++ {
		if p.incremental {
			d += p.stepDelay
		} else {
			d += backoff(n, p.backoff, p.maxDelay)
		}
	}
	return d
}

// schedule is the part of the leader's memory that survives a generation
// mismatch (as the fields of Connect's assignor do).
type schedule struct {
	scheduledAt classic.Millis `canon:"instant"`
	candidates  []spec.MemberID
	revokedPrev bool
	successive  int
}

// severalClaim is leaderRound.claimer's mark of a resource two or more
// members claim.
const severalClaim = -1

// leaderRound is one Assign in progress. Resources are named by their
// index in u and members by their position in ids (see index.go).
type leaderRound struct {
	round
	p   connectPolicy
	now classic.Millis `canon:"instant"`
	// u is the configured resources.
	u *universe
	// claimer says who claims each configured resource: 0 nobody, p+1
	// member p alone, severalClaim two or more members (one array
	// instead of a count and a claimer: it is allocated and filled for
	// every resource in every round).
	claimer []int32
	// subscribed[p][t] reports that member p subscribes to topic t of u.
	subscribed [][]bool
	// next is the assignment being built, by member position; revoked what
	// each member gives up.
	next    [][]int32
	revoked spec.Assignment
	// kept is, by member position, what step 4 left each member of its
	// claims: each resource of kept[p] is claimed by p alone.
	kept [][]int32
	// pending are resources revoked in step 4 that exist: nobody holds them
	// after this round, and the follow-up hands them out.
	pending []int32
	// pinned marks the lost resources step 5 gave to the first candidate
	// under classic.LostToFirstCandidate (nil when there are none): Connect
	// before KAFKA-10413 gave them to that worker outright, so placement
	// does not settle them away (a load-balancing revocation still may).
	pinned []bool
	// mark is scratch space of place, one entry per index, left zero.
	mark []uint8
}

func (p connectPolicy) Assign(in classic.LeaderInput) (classic.LeaderResult, error) {
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
	subs := r.subs
	lr := &leaderRound{round: r, p: p, now: in.Now, u: newUniverse(in.Topics, subs)}
	lr.subscribed = make([][]bool, len(r.ids))
	for i, s := range subs {
		if i > 0 && sameSlice(s, subs[i-1]) {
			lr.subscribed[i] = lr.subscribed[i-1]
			continue
		}
		row := make([]bool, len(lr.u.topics))
		for t, sp := range lr.u.topics {
			_, row[t] = slices.BinarySearch(s, sp.name)
		}
		lr.subscribed[i] = row
	}
	return lr.run(), nil
}

// eligibleIdx is round.eligible by index: member p subscribes to i's topic.
func (lr *leaderRound) eligibleIdx(p int, i int32) bool {
	return lr.subscribed[p][lr.u.topicOf[i]]
}

func (lr *leaderRound) run() classic.LeaderResult {
	in, ids, u := lr.in, lr.ids, lr.u

	// Step 1-3: the derived sets. Of the claims (active), only the
	// configured ones are counted by index; the others (extra) are all
	// deleted.
	lr.claimer = make([]int32, u.size)
	// claimed[p] is the indices of member p's configured claims, in
	// order: located once here for steps 1 to 4.
	claimed := make([][]int32, len(ids))
	// The members' lists share one array, each capped at its length so
	// that an append to one never writes into the next.
	total := 0
	for _, m := range ids {
		total += len(lr.owned[m])
	}
	buf := make([]int32, 0, total)
	var extra []spec.Resource
	for p, m := range ids {
		l := u.locator()
		start := len(buf)
		for _, x := range lr.owned[m] {
			if i, ok := l.index(x); ok {
				if lr.claimer[i] == 0 {
					lr.claimer[i] = int32(p) + 1
				} else {
					lr.claimer[i] = severalClaim
				}
				buf = append(buf, i)
			} else {
				extra = append(extra, x)
			}
		}
		claimed[p] = buf[start:len(buf):len(buf)]
	}
	extraSet := spec.NewSet(extra...)
	active := func(i int32) bool { return lr.claimer[i] != 0 }

	mem := in.Memory
	sched := schedule{
		scheduledAt: mem.ScheduledAt,
		candidates:  slices.Clone(mem.Candidates),
		revokedPrev: mem.Revoked,
		successive:  mem.SuccessiveRevokingRounds,
	}
	prevMembers := mem.Members
	// previous marks the configured resources of the previous assignment
	// (the others are deleted, whatever it holds).
	previous := make([]bool, u.size)
	markActive := func() {
		for i := range previous {
			previous[i] = active(int32(i))
		}
	}
	matched := len(mem.Members) > 0 && (mem.Generation == in.LastCompletedGeneration || in.Faults.Has(classic.UndeliveredAssignmentHeld))
	switch {
	case matched:
		// Before KAFKA-9848 Connect trusted its memory whatever
		// generation it was of (matched includes that fault).
		mark := func(s spec.Set) {
			l := u.locator()
			for _, x := range s {
				if i, ok := l.index(x); ok {
					previous[i] = true
				}
			}
		}
		for m, s := range mem.Assignment {
			// A member that claims the very set the memory gave it (the
			// leader's decoded claims are the same slice from one round
			// to the next while their text is) has its configured
			// resources located already.
			if p, ok := slices.BinarySearch(ids, m); ok && sameSet(s, lr.owned[m]) {
				for _, i := range claimed[p] {
					previous[i] = true
				}
				continue
			}
			mark(s)
		}
		mark(mem.Lost)
	case lr.p.failover == DelayIfDeparted:
		markActive()
		if departed := lr.departedLeaders(); len(departed) > 0 {
			for i := range previous {
				previous[i] = true
			}
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
	if (matched || lr.p.failover == ReassignImmediately) && lr.claimsAny(mem.Revocation, extraSet) {
		markActive()
	}
	// deleted = (previous ∪ active) − configured: every claim outside u;
	// lost = previous − active − deleted; created = configured − previous −
	// active.
	var lostIdx, created []int32
	for i, prev := range previous {
		switch {
		case active(int32(i)):
		case prev:
			lostIdx = append(lostIdx, int32(i))
		default:
			created = append(created, int32(i))
		}
	}
	lost := u.resources(lostIdx)

	// Step 4: revoke deleted, duplicated and unsubscribed claims.
	lr.next = make([][]int32, len(ids))
	lr.revoked = make(spec.Assignment, len(ids))
	var pending []int32
	for p, m := range ids {
		var drop spec.Set
		if own := lr.owned[m]; len(claimed[p]) == len(own) {
			// Every claim is configured: own[k] is index claimed[p][k].
			// The member keeps its claims' index list itself unless it
			// must drop one.
			keep := claimed[p]
			for k, i := range claimed[p] {
				if lr.claimer[i] == severalClaim || !lr.eligibleIdx(p, i) {
					if drop == nil {
						keep = make([]int32, k, len(own))
						copy(keep, claimed[p][:k])
					}
					drop = append(drop, own[k])
					pending = append(pending, i)
				} else if drop != nil {
					keep = append(keep, i)
				}
			}
			lr.revoked[m] = drop
			lr.next[p] = keep
			continue
		}
		keep := make([]int32, 0, len(lr.owned[m]))
		l := u.locator()
		for _, x := range lr.owned[m] {
			i, ok := l.index(x)
			switch {
			case !ok:
				drop = append(drop, x)
			case lr.claimer[i] == severalClaim || !lr.eligibleIdx(p, i):
				drop = append(drop, x)
				pending = append(pending, i)
			default:
				keep = append(keep, i)
			}
		}
		lr.revoked[m] = drop
		lr.next[p] = keep
	}
	lr.pending = sortedIdx(pending)
	// kept[p] is what member p keeps of its claims: all of them when it
	// is as long as them.
	kept := slices.Clone(lr.next)
	lr.kept = kept

	// Step 5: lost resources.
	delay, reassign, held, started := lr.handleLost(lost, prevMembers, &sched)
	toAssign := mergeIdx(u.indices(reassign), created)

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
	results := make([][][]int32, len(kinds))
	for k, ks := range kinds {
		results[k] = lr.finish(ks)
	}
	final := make(spec.Assignment, len(ids))
	for p, m := range ids {
		var all []int32
		for _, r := range results {
			all = mergeIdx(all, r[p])
		}
		if len(all) > 0 && len(all) == len(lr.owned[m]) && slices.Equal(all, kept[p]) {
			// The member keeps exactly what it claims: the claimed set
			// is that set (sets are immutable, so it is shared).
			final[m] = lr.owned[m]
		} else {
			final[m] = u.resources(all)
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

// claimsAny reports whether some member claims a resource of s (extra
// being the claims that are not configured).
func (lr *leaderRound) claimsAny(s, extra spec.Set) bool {
	l := lr.u.locator()
	for _, x := range s {
		if i, ok := l.index(x); ok {
			if lr.claimer[i] != 0 {
				return true
			}
		} else if extra.Contains(x) {
			return true
		}
	}
	return false
}

// departedLeaders returns the leaders members report their claims were
// assigned by that are not members of this round, sorted.
func (lr *leaderRound) departedLeaders() []spec.MemberID {
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
func (lr *leaderRound) handleLost(lost spec.Set, prevMembers []spec.MemberID, s *schedule) (delay classic.Millis, reassign, held spec.Set, started bool) {
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
		var cands []int
		for _, c := range s.candidates {
			if p, ok := slices.BinarySearch(lr.ids, c); ok {
				cands = append(cands, p)
			}
		}
		switch {
		case len(cands) == 0:
			reassign = lost
		case lr.in.Faults.Has(classic.LostToFirstCandidate):
			// Connect before KAFKA-10413: findFirst picked one
			// candidate for every lost resource.
			reassign = lr.roundRobin(cands[:1], lost)
			if pinned := lost.Minus(reassign); !pinned.IsEmpty() {
				lr.pinned = make([]bool, lr.u.size)
				for _, i := range lr.u.indices(pinned) {
					lr.pinned[i] = true
				}
			}
		default:
			reassign = lr.roundRobin(cands, lost)
		}
		reset()
		s.revokedPrev = false
		return 0, reassign, nil, false
	}
	for p, m := range lr.ids {
		if len(lr.next[p]) == 0 {
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

// roundRobin gives the lost resources (all configured) to the candidates
// (member positions) in turn, connectors first and then the rest, each
// pass starting again at the first candidate (Connect's iterator),
// skipping candidates that do not subscribe to a resource's topic. It
// returns what no candidate could take.
func (lr *leaderRound) roundRobin(cands []int, lost spec.Set) spec.Set {
	var rest []spec.Resource
	add := make([][]int32, len(cands))
	idx := lr.u.indices(lost)
	for _, k := range assign.ConnectKinds {
		cursor := 0
		for j, x := range lost {
			if assign.KindOf(x) != k {
				continue
			}
			placed := false
			for i := range cands {
				c := (cursor + i) % len(cands)
				if lr.eligibleIdx(cands[c], idx[j]) {
					add[c] = append(add[c], idx[j])
					cursor = (c + 1) % len(cands)
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
		lr.next[cands[c]] = mergeIdx(lr.next[cands[c]], sortedIdx(xs))
	}
	return spec.NewSet(rest...)
}

// containsAll reports whether every member of ms is in this round.
func (lr *leaderRound) containsAll(ms []spec.MemberID) bool {
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
func backoff(n int, mult, maxDelay classic.Millis) classic.Millis {
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
func unionOf(a spec.Assignment) spec.Set {
	var all []spec.Resource
	for _, s := range a {
		all = append(all, s...)
	}
	return spec.NewSet(all...)
}

// unionIDs returns the sorted union of two member lists.
func unionIDs(a, b []spec.MemberID) []spec.MemberID {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}
