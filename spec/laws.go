package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Law names a law of the design. Law names are stable: scenario files,
// counterexamples and the TLA+ specs use them.
type Law string

// The laws. Safety laws hold in every state (or, for step laws, across every
// step); the convergence laws hold once the environment has fallen quiet.
const (
	// ExclusiveOwnership: no resource is owned by two members that count
	// at once. Current members count, and so does a member that left the
	// group of its own accord (the view marks it departed: not Current,
	// not Fenced): every protocol has a leaving member give up its work
	// before anyone else may be given it (the consumer's onLeavePrepare
	// revokes before the LeaveGroup; a next-gen member revokes before its
	// leave heartbeat; a Connect worker that left because its config fell
	// behind revokes its tasks within the scheduled delay, KAFKA-9849's
	// fix, where our member revokes as it leaves), so nothing excuses what
	// it still owns. Only a live member that the group removed (its
	// session or the JoinGroup barrier expired) is tolerated, as Fenced,
	// and what that tolerance rests on is the protocol's:
	//
	//   - eager, cooperative (the consumer): commit fencing by generation.
	//     Offset commits carry the member id and generation, and the
	//     coordinator rejects a removed member's (UNKNOWN_MEMBER_ID,
	//     ILLEGAL_GENERATION), so the zombie's work is never committed.
	//   - next-gen: commit fencing by member epoch (STALE_MEMBER_EPOCH,
	//     UNKNOWN_MEMBER_ID).
	//   - deferred, incremental (Design II, Kafka Connect's protocol, and
	//     Design III, built on it): nothing fences a task's work (no commit fencing for tasks; exactly-once
	//     source fencing, KIP-618, is not modelled). The tolerance is the
	//     window Connect accepts: a removed worker runs its tasks until it
	//     learns it is out (KAFKA-9184 bounds that by the scheduled
	//     delay), and a leader with no memory of the last generation
	//     reassigns at once. Without it the default world breaks the law
	//     in 14 steps: B's JoinGroup is lost, the barrier removes B, and
	//     the new leader C takes everything while B still runs T-1.
	ExclusiveOwnership Law = "ExclusiveOwnership"
	// SubscribedOnly: a current member owns only resources of topics it
	// subscribes to, except those it is still revoking.
	SubscribedOnly Law = "SubscribedOnly"
	// ExistingOnly: no member owns a resource outside the universe.
	ExistingOnly Law = "ExistingOnly"
	// CooperativeHandoff: no resource is given to a new owner in the same
	// round in which it is revoked from (or still claimed by) another
	// member (Designs I-III); next-gen: a resource is given only once its
	// previous owner has released it.
	CooperativeHandoff Law = "CooperativeHandoff"
	// MonotonicGeneration: the generation or epoch of a live membership
	// never goes backwards.
	MonotonicGeneration Law = "MonotonicGeneration"
	// AssignedOnce: an assignment round gives no resource to two members.
	AssignedOnce Law = "AssignedOnce"
	// KnownMembersOnly: an assignment round gives resources only to members
	// that took part in the round.
	KnownMembersOnly Law = "KnownMembersOnly"
	// Coverage: every subscribed resource is owned by exactly one current
	// member (a convergence law).
	Coverage Law = "Coverage"
	// Balance: the group is balanced (a convergence law; see CheckBalance).
	Balance Law = "Balance"
	// EventuallyConverged: once the environment stops acting, every path
	// on which the protocol's own steps are weakly fair reaches a state
	// where Coverage and the protocol's balance law hold (a liveness law,
	// checked by the model checker over the whole state graph).
	EventuallyConverged Law = "EventuallyConverged"
	// Stability: once converged with the environment quiet, the group
	// stops moving resources: no fair cycle changes who owns what.
	Stability Law = "Stability"
	// BoundedRounds: after the environment's last action, the protocol
	// needs at most its stated number of rebalance rounds (classic) or
	// member epoch bumps (next-gen) to converge.
	BoundedRounds Law = "BoundedRounds"
	// Timely: a live member never has to wait for its own session to
	// expire: the coordinator never expires the session of a member whose
	// process is alive and still in the group, in a run where fewer than
	// two messages were lost (one lost message may cost a retry, not a
	// session), none was duplicated and none held up across a timer;
	// and a leader starts a scheduled delay that holds work back only when
	// a member has departed (see CheckHeldBack); and once the environment
	// has fallen quiet, the group stops changing within the time its
	// protocol states, in heartbeat intervals plus the delays it takes on
	// purpose (see TimeBound and CheckTimeBound). KAFKA-19233 broke the
	// first clause: a fenced member's rejoin was refused until its
	// session timed out; KAFKA-9848 the second: Connect's leader held the
	// work of a round that never reached its workers for the delay,
	// although no worker had left; KAFKA-13419 the third: a member
	// dropped its member id on ILLEGAL_GENERATION, and the group waited
	// for the old one until its session expired.
	Timely Law = "Timely"
	// NoSpuriousLoss: a live member that the coordinator still counts in
	// the group is never told its resources are lost (a rebalance callback
	// of kind lost), in a run whose network lost, duplicated and held up
	// nothing.
	// KAFKA-14016 broke it: a member whose SyncGroup was answered
	// REBALANCE_IN_PROGRESS reset its generation and declared everything
	// it owned lost.
	NoSpuriousLoss Law = "NoSpuriousLoss"
	// StableWhenBalanced: an assignor that claims stickiness moves no more
	// than balance requires. In a round whose members all subscribe to the
	// same topics and claim disjoint resources, they keep as many of their
	// claims as a balanced assignment can keep (see CheckStableWhenBalanced);
	// in particular a balanced group in which nothing changed keeps
	// everything. KAFKA-18688 broke it: the uniform assignor gave the
	// members first in its iteration order the larger shares, whoever held
	// them before, and moved partitions between the surviving members.
	StableWhenBalanced Law = "StableWhenBalanced"
	// NoNeedlessWait (next-gen): the coordinator withholds a partition of
	// a member's target (the member waits in UNRELEASED_PARTITIONS) only
	// while another member holds it, as assigned or pending revocation;
	// see CheckNoNeedlessWait. KAFKA-19449 broke it: a partition in the
	// member's own pending revocation that came back in its target counted
	// as unreleased, which cost the member a heartbeat.
	NoNeedlessWait Law = "NoNeedlessWait"
)

// LostBeforeSessionExpiry is how many lost messages a run may have before
// the Timely law tolerates the session of a live member expiring: two lost
// in a row may leave a member without a heartbeat for a whole session. A
// family may state a smaller number for itself (see the closed world's
// Family.LossesBeforeSessionExpiry).
const LostBeforeSessionExpiry = 2

// Violation says which law is broken, on which resource and by which
// members. Resource is the zero Resource and Members empty where the law is
// not about one resource.
type Violation struct {
	Law      Law
	Resource Resource
	Members  []string
	Detail   string
}

// Error implements error so a violation can be returned or wrapped as one.
func (v Violation) Error() string { return v.String() }

// String prints "Law: resource [members]: detail", or "Law: detail" for a
// violation that names no resource and no member.
func (v Violation) String() string {
	var b strings.Builder
	b.WriteString(string(v.Law))
	b.WriteString(":")
	if v.Resource != (Resource{}) {
		b.WriteString(" ")
		b.WriteString(v.Resource.String())
	}
	if len(v.Members) > 0 {
		b.WriteString(" [")
		b.WriteString(strings.Join(v.Members, " "))
		b.WriteString("]")
	}
	if v.Detail != "" {
		if v.Resource != (Resource{}) || len(v.Members) > 0 {
			b.WriteString(":")
		}
		b.WriteString(" ")
		b.WriteString(v.Detail)
	}
	return b.String()
}

// CheckState returns every safety violation of a single view, in a
// deterministic order (law, then resource, then members). It is
// ExclusiveOwnership, SubscribedOnly and ExistingOnly together.
func CheckState(v View) []Violation {
	var out []Violation
	out = append(out, CheckExclusiveOwnership(v)...)
	out = append(out, CheckSubscribedOnly(v)...)
	out = append(out, CheckExistingOnly(v)...)
	return out
}

// CheckExclusiveOwnership reports every resource believed owned by more than
// one member that counts: current members, and members that are neither
// current nor fenced (departed of their own accord; see
// ExclusiveOwnership for which members a protocol fences).
func CheckExclusiveOwnership(v View) []Violation {
	// The model checker runs this on every state: first look for a
	// resource held twice without building anything on the heap.
	var buf [64]Resource
	held := buf[:0]
	for _, m := range v.Members {
		if m.Current || !m.Fenced {
			held = append(held, m.Owns...)
		}
	}
	if !Duplicated(held) {
		return nil
	}
	owners := map[Resource][]string{}
	for _, m := range v.Members {
		if !m.Current && m.Fenced {
			continue
		}
		for _, r := range m.Owns {
			owners[r] = append(owners[r], m.Name)
		}
	}
	var out []Violation
	for _, r := range slices.SortedFunc(maps.Keys(owners), Resource.Compare) {
		if len(owners[r]) > 1 {
			out = append(out, Violation{Law: ExclusiveOwnership, Resource: r, Members: owners[r], Detail: "owned by more than one member that is not fenced"})
		}
	}
	return out
}

// Duplicated reports whether a resource appears more than once in rs. It
// sorts rs in place and builds nothing on the heap: the model checker asks
// in every state.
func Duplicated(rs []Resource) bool {
	slices.SortFunc(rs, Resource.Compare)
	for i := 1; i < len(rs); i++ {
		if rs[i] == rs[i-1] {
			return true
		}
	}
	return false
}

// CheckSubscribedOnly reports resources a current member owns on topics it
// does not subscribe to and is not revoking.
func CheckSubscribedOnly(v View) []Violation {
	var out []Violation
	for _, m := range v.Members {
		if !m.Current {
			continue
		}
		for _, r := range m.Owns {
			if !m.Subscribes(r.Topic) && !m.Revoking.Contains(r) {
				out = append(out, Violation{Law: SubscribedOnly, Resource: r, Members: []string{m.Name}, Detail: fmt.Sprintf("topic %q is not in the subscription [%s]", r.Topic, strings.Join(m.Subscription, " "))})
			}
		}
	}
	return out
}

// CheckExistingOnly reports resources a current member owns that are not in
// the universe v.Topics. A nil Topics disables the law.
func CheckExistingOnly(v View) []Violation {
	if v.Topics == nil {
		return nil
	}
	var out []Violation
	for _, m := range v.Members {
		if !m.Current {
			continue
		}
		for _, r := range m.Owns {
			if !v.Topics.Has(r) {
				out = append(out, Violation{Law: ExistingOnly, Resource: r, Members: []string{m.Name}, Detail: "no such resource"})
			}
		}
	}
	return out
}

// CheckStep returns the violations of the step laws between two successive
// views of the same system: MonotonicGeneration for every membership (same
// name and member id) that is current in both. A reset to NoGeneration is
// allowed only for a member that owns nothing afterwards.
func CheckStep(prev, next View) []Violation {
	var out []Violation
	for i := range next.Members {
		n, p := &next.Members[i], prev.Find(next.Members[i].Name)
		if p == nil || !p.Current || !n.Current || p.ID != n.ID || n.ID == "" {
			continue
		}
		if n.Generation == NoGeneration {
			// A fenced member resets to NoGeneration and starts over (Kafka's
			// resetGenerationOnResponseError); it must have dropped
			// everything it owned.
			if !n.Owns.IsEmpty() {
				out = append(out, Violation{Law: MonotonicGeneration, Members: []string{n.Name}, Detail: fmt.Sprintf("member %s reset its generation but still owns %s", n.ID, n.Owns)})
			}
			continue
		}
		if n.Generation < p.Generation {
			out = append(out, Violation{Law: MonotonicGeneration, Members: []string{n.Name}, Detail: fmt.Sprintf("member %s went from generation %d to %d", n.ID, p.Generation, n.Generation)})
		}
	}
	return out
}

// Round is one assignment round as the leader (classic) or the coordinator
// (next-gen) sees it: what each member claims and subscribes to, and what
// the round gives each member.
type Round struct {
	// Topics is the universe; resources outside it may not be assigned.
	Topics Topics
	// Subscriptions holds, for each member taking part, its subscribed
	// topics. A member not in Subscriptions is unknown to the round.
	Subscriptions map[MemberID][]string
	// Claims is what each member reported owning when the round started.
	Claims map[MemberID]Set
	// Assigned is what the round gives each member (its whole new set).
	Assigned Assignment
	// Cooperative enables CooperativeHandoff: a resource may not be added to
	// a member while another member of the round claims it.
	Cooperative bool
	// Sticky says the assignor of the round claims stickiness, so observers
	// judge CheckStableWhenBalanced on it. CheckRound ignores it: a leader
	// does not refuse a round for moving too much.
	Sticky bool
	// Held is what the round's leader starts holding back, assigned to
	// nobody, under a scheduled rebalance delay that the round starts
	// (Designs II and III: the work of a departed member, kept for it to
	// come back to); work that waits for a delay already running is not
	// in it. Observers judge CheckHeldBack on it; CheckRound ignores it.
	Held Set
}

// CheckRound validates an assignment round: AssignedOnce, KnownMembersOnly,
// ExistingOnly, SubscribedOnly and, when r.Cooperative, CooperativeHandoff.
// The classic leader runs it on its assignor's output and applies nothing
// when it reports anything.
func CheckRound(r Round) []Violation {
	if roundClean(r) {
		return nil
	}
	return checkRoundExact(r)
}

// checkRoundExact is CheckRound without roundClean's shortcut: each law's
// own pass, and every (resource, member) pair sorted to find the
// resources given twice.
func checkRoundExact(r Round) []Violation {
	var out []Violation
	// Every (resource, member) pair given; sorted by resource, then
	// member, below to find the resources given twice without a map.
	type given struct {
		res Resource
		m   string
	}
	var all []given
	var membersBuf [16]MemberID
	for _, m := range r.Assigned.AppendMembers(membersBuf[:0]) {
		subs, known := r.Subscriptions[m]
		if !known {
			out = append(out, Violation{Law: KnownMembersOnly, Members: []string{string(m)}, Detail: fmt.Sprintf("assignment to a member that is not in the round: %s", r.Assigned[m])})
			continue
		}
		if err := r.Assigned[m].Validate(); err != nil {
			out = append(out, Violation{Law: ExistingOnly, Members: []string{string(m)}, Detail: err.Error()})
			continue
		}
		// A set is sorted by topic: the topic's lookups are done once for
		// each run of its partitions.
		var topic string
		var count int32
		known, subscribed := false, false
		for i, res := range r.Assigned[m] {
			all = append(all, given{res, string(m)})
			if i == 0 || res.Topic != topic {
				topic = res.Topic
				count, known = r.Topics[topic]
				subscribed = slices.Contains(subs, topic)
			}
			if r.Topics != nil {
				// Topics.Has, with the topic's count looked up once.
				exists := known && res.Partition >= 0 && res.Partition < count
				if res.IsConnector() {
					exists = r.Topics.Has(res)
				}
				if !exists {
					out = append(out, Violation{Law: ExistingOnly, Resource: res, Members: []string{string(m)}, Detail: "no such resource"})
					continue
				}
			}
			if !subscribed {
				out = append(out, Violation{Law: SubscribedOnly, Resource: res, Members: []string{string(m)}, Detail: fmt.Sprintf("topic %q is not in the subscription [%s]", res.Topic, strings.Join(subs, " "))})
			}
		}
	}
	slices.SortFunc(all, func(a, b given) int {
		if c := a.res.Compare(b.res); c != 0 {
			return c
		}
		return strings.Compare(a.m, b.m)
	})
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].res == all[i].res {
			j++
		}
		if j-i > 1 {
			members := make([]string, 0, j-i)
			for _, g := range all[i:j] {
				members = append(members, g.m)
			}
			out = append(out, Violation{Law: AssignedOnce, Resource: all[i].res, Members: members, Detail: "given to more than one member"})
		}
		i = j
	}
	if r.Cooperative {
		out = append(out, checkHandoff(r)...)
	}
	return out
}

// checkHandoff reports every resource added to a member in a round while a
// different member of the round claims it: that claimant must revoke it
// first, and the resource may only be given out in a later round (KIP-429;
// Kafka's ConsumerCoordinator.validateCooperativeAssignment).
func checkHandoff(r Round) []Violation {
	var out []Violation
	// claimed lists every (resource, claimant) pair, sorted, built when a
	// member is first found to be given something it did not claim.
	type claim struct {
		res Resource
		m   MemberID
	}
	var claimed []claim
	var membersBuf [16]MemberID
	for _, m := range r.Assigned.AppendMembers(membersBuf[:0]) {
		added := r.Assigned[m].Minus(r.Claims[m])
		if len(added) == 0 {
			continue
		}
		if claimed == nil {
			claimed = make([]claim, 0, len(r.Claims))
			for o, set := range r.Claims {
				for _, res := range set {
					claimed = append(claimed, claim{res, o})
				}
			}
			slices.SortFunc(claimed, func(a, b claim) int {
				if c := a.res.Compare(b.res); c != 0 {
					return c
				}
				return strings.Compare(string(a.m), string(b.m))
			})
		}
		for _, res := range added {
			i, _ := slices.BinarySearchFunc(claimed, res, func(c claim, r Resource) int { return c.res.Compare(r) })
			var from []string
			for ; i < len(claimed) && claimed[i].res == res; i++ {
				if claimed[i].m != m {
					from = append(from, string(claimed[i].m))
				}
			}
			if len(from) > 0 {
				out = append(out, Violation{Law: CooperativeHandoff, Resource: res, Members: append(from, string(m)), Detail: fmt.Sprintf("given to %s in the round it is revoked from %s", m, strings.Join(from, ","))})
			}
		}
	}
	return out
}

// CheckCoverage reports every resource of a topic some current member
// subscribes to that is not owned by exactly one current member subscribed
// to its topic. It is a convergence law: it holds once the group is stable
// after the environment fell quiet.
func CheckCoverage(v View) []Violation {
	if CoverageHolds(v) {
		return nil
	}
	return coverageViolations(v)
}

// coverageViolations is CheckCoverage without its shortcut: it lists what
// it finds, building a map of owners.
func coverageViolations(v View) []Violation {
	subscribed := map[string]bool{}
	for _, m := range v.Members {
		if m.Current {
			for _, t := range m.Subscription {
				subscribed[t] = true
			}
		}
	}
	owners := map[Resource][]string{}
	for _, m := range v.Members {
		if !m.Current {
			continue
		}
		for _, r := range m.Owns {
			owners[r] = append(owners[r], m.Name)
		}
	}
	var out []Violation
	for _, r := range v.Topics.Resources(slices.Sorted(maps.Keys(subscribed))...) {
		if n := len(owners[r]); n != 1 {
			out = append(out, Violation{Law: Coverage, Resource: r, Members: owners[r], Detail: fmt.Sprintf("owned by %d current members, want 1", n)})
		}
	}
	return out
}

// CoverageHolds reports whether CheckCoverage(v) finds nothing, without
// building anything on the heap for a small group (the model checker asks
// in every state, and needs the violations only for a counterexample).
func CoverageHolds(v View) bool {
	var topicBuf [16]string
	var ownedBuf [64]Resource
	topics, owned := topicBuf[:0], ownedBuf[:0]
	for _, m := range v.Members {
		if m.Current {
			topics = append(topics, m.Subscription...)
			owned = append(owned, m.Owns...)
		}
	}
	slices.Sort(topics)
	slices.SortFunc(owned, Resource.Compare)
	for i, t := range topics {
		if i > 0 && topics[i-1] == t {
			continue
		}
		from := int32(0)
		if v.Topics.IsConnector(t) {
			from = ConnectorTask
		}
		for p := from; p < v.Topics[t]; p++ {
			r := Resource{Topic: t, Partition: p}
			j, found := slices.BinarySearchFunc(owned, r, Resource.Compare)
			if !found || (j+1 < len(owned) && owned[j+1] == r) {
				return false
			}
		}
	}
	return true
}

// CheckBalance reports imbalance among current members, with the meaning
// Kafka's sticky assignor tests use (AbstractStickyAssignorTest
// verifyValidityAndBalance): for every pair of members whose loads differ by
// more than one, the more loaded one must own nothing of a topic the less
// loaded one subscribes to (no single move could improve the balance).
// Counts include every resource a member owns.
func CheckBalance(v View) []Violation {
	var cur []MemberView
	for _, m := range v.Members {
		if m.Current {
			cur = append(cur, m)
		}
	}
	var out []Violation
	for _, hi := range cur {
		for _, lo := range cur {
			if hi.Owns.Len() <= lo.Owns.Len()+1 {
				continue
			}
			for _, r := range hi.Owns {
				if lo.Subscribes(r.Topic) {
					out = append(out, Violation{Law: Balance, Resource: r, Members: []string{hi.Name, lo.Name}, Detail: fmt.Sprintf("%s owns %d and %s owns %d; %s could move", hi.Name, hi.Owns.Len(), lo.Name, lo.Owns.Len(), r)})
					break
				}
			}
		}
	}
	return out
}

// CheckTopicBalance reports, for each topic, current subscribers whose
// shares of that topic differ by more than one: the per-topic balance that
// the range and round-robin assignors promise (range balances each topic
// among its subscribers, not the members' totals).
func CheckTopicBalance(v View) []Violation {
	counts := map[string]map[string]int{}
	for _, m := range v.Members {
		if !m.Current {
			continue
		}
		for _, t := range m.Subscription {
			if counts[t] == nil {
				counts[t] = map[string]int{}
			}
			counts[t][m.Name] += 0
		}
		for _, r := range m.Owns {
			if counts[r.Topic] != nil {
				if _, ok := counts[r.Topic][m.Name]; ok {
					counts[r.Topic][m.Name]++
				}
			}
		}
	}
	var out []Violation
	for _, t := range slices.Sorted(maps.Keys(counts)) {
		var hi, lo string
		for _, n := range slices.Sorted(maps.Keys(counts[t])) {
			if hi == "" || counts[t][n] > counts[t][hi] {
				hi = n
			}
			if lo == "" || counts[t][n] < counts[t][lo] {
				lo = n
			}
		}
		if counts[t][hi] > counts[t][lo]+1 {
			out = append(out, Violation{Law: Balance, Members: []string{hi, lo}, Detail: fmt.Sprintf("topic %s: %s owns %d of it and %s owns %d", t, hi, counts[t][hi], lo, counts[t][lo])})
		}
	}
	return out
}
