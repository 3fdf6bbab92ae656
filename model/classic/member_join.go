package classic

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file is the member's way into a generation: preparing to join,
// JoinGroup and its response, and, for the leader, computing and checking
// the round's assignment.

// joinGroup starts a (re)join from any live state: onJoinPrepare, then a
// JoinGroup. Whatever the member waited for before is now stale.
func (m *Member) joinGroup(now Millis, out *Output) {
	m.prepareJoin(out)
	m.become(Joining)
	m.syncSeq, m.heartbeatSeq = 0, 0
	m.rejoinAfterSync = false
	m.sendJoin(now, out)
}

// prepareJoin is Kafka's ConsumerCoordinator.onJoinPrepare. An eager
// member revokes everything it owns (unless the EagerNoRevoke fault is on);
// a cooperative one (KIP-429) keeps what it owns and revokes only the
// resources of topics it no longer subscribes to. What a fenced member
// owned was already given up as lost when it was fenced (see lose), so
// nothing here is Lost.
func (m *Member) prepareJoin(out *Output) {
	if !m.eager {
		m.revokeUnsubscribed(out)
		return
	}
	if m.cfg.Faults.Has(EagerNoRevoke) {
		// The fault skips only the eager revoke-everything step; topics the
		// member left are still dropped, so the fault breaks exactly one law.
		m.revokeUnsubscribed(out)
		return
	}
	if m.owned.IsEmpty() {
		return
	}
	node.Notify(out, Revoked, m.owned, m.ownedGen, "")
	m.owned = nil
}

// unsubscribed returns the resources of s on topics the member does not
// subscribe to.
func (m *Member) unsubscribed(s spec.Set) spec.Set {
	// s is sorted by topic, and so are the member's topics: each run of
	// one topic is looked up once, walking the topics along with the runs
	// rather than searching them for each, and taken whole; a member that
	// subscribes to all of them (almost always) allocates nothing.
	var out spec.Set
	k := 0 // m.topics[:k] sort before the current run's topic
	for i := 0; i < len(s); {
		t := s[i].Topic
		j := s.RunEnd(i)
		for k < len(m.topics) && m.topics[k] < t {
			k++
		}
		if k == len(m.topics) || m.topics[k] != t {
			out = append(out, s[i:j]...)
		}
		i = j
	}
	return out
}

// revokeUnsubscribed revokes the owned resources of topics the member no
// longer subscribes to.
func (m *Member) revokeUnsubscribed(out *Output) {
	if m.rememberedSubscribed(m.owned) {
		return
	}
	dropped := m.unsubscribed(m.owned)
	if dropped.IsEmpty() {
		return
	}
	node.Notify(out, Revoked, dropped, m.ownedGen, "")
	m.owned = m.owned.Minus(dropped)
}

// subscription is the embedded-protocol metadata the member joins with.
// Its generation is the one MemberConfig.ClaimGeneration says. By default,
// as Kafka's ConsumerCoordinator.metadata does since KIP-792, it is the
// generation the member last joined (at least the one its resources were
// assigned in): a member that joined a generation but did not apply its
// assignment then rejoins with different metadata, which makes the
// coordinator run a new round instead of handing back the same stored
// assignment. With ClaimAtAssigned it is the generation of the last
// assignment applied (the cooperative-sticky user data before KIP-792).
func (m *Member) subscription() Subscription {
	return Subscription{Topics: m.topics, Owned: m.owned, Generation: m.claimGeneration(), Leader: m.ownedLeader}
}

// sendJoin sends a JoinGroup with a fresh Seq, advertising every configured
// protocol in preference order with the same subscription, and arms
// RequestTimer for the rebalance timeout plus Kafka's 5 s slack.
func (m *Member) sendJoin(now Millis, out *Output) {
	memo := m.codec()
	md := m.subscription().encode(&memo.owned)
	m.remember(memo)
	ps := make([]ProtocolMetadata, len(m.cfg.Protocols))
	for i, p := range m.cfg.Protocols {
		ps[i] = ProtocolMetadata{Name: p.Name(), Metadata: md}
	}
	m.joinSeq = m.nextSeq()
	out.Send(m.cfg.Name, CoordinatorNode, JoinGroupRequest{
		Seq:              m.joinSeq,
		MemberID:         m.id,
		InstanceID:       m.cfg.InstanceID,
		ClientID:         m.cfg.Name,
		ProtocolType:     m.cfg.ProtocolType,
		Protocols:        ps,
		SessionTimeout:   m.cfg.SessionTimeout,
		RebalanceTimeout: m.cfg.RebalanceTimeout,
	})
	m.arm(RequestTimer, now+m.cfg.RebalanceTimeout+memberJoinSlack, out)
}

// joinResponse handles the response to the JoinGroup the member waits for.
func (m *Member) joinResponse(now Millis, r JoinGroupResponse, out *Output) {
	if m.state != Joining || r.Seq != m.joinSeq {
		return
	}
	m.joinSeq = 0
	switch r.Error {
	case spec.None:
		m.joined(now, r, out)
	case spec.MemberIDRequired:
		// KIP-394: the coordinator hands a first-time dynamic member its id
		// and asks it to join again with it.
		if r.MemberID == "" {
			m.fail(fmt.Sprintf("JoinGroup: %s without a member id", r.Error), out)
			return
		}
		m.id = r.MemberID
		m.sendJoin(now, out)
	case spec.UnknownMemberID:
		// The coordinator forgot us: whatever we owned is gone; start over
		// as a new member (AbstractCoordinator resetStateAndRejoin, which
		// reruns onJoinPrepare since KAFKA-12983; the fault switch skips
		// it, as before the fix).
		if !m.cfg.Faults.Has(UnknownMemberKeepsOwned) {
			m.lose(out)
		}
		m.resetGeneration(true)
		m.joinGroup(now, out)
	case spec.CoordinatorNotAvailable, spec.NotCoordinator, spec.RebalanceInProgress:
		// Retriable: Kafka retries the JoinGroup after a back-off; time is
		// abstract here, so at once.
		m.sendJoin(now, out)
	default:
		// FENCED_INSTANCE_ID (another process took our instance id,
		// KIP-345), INCONSISTENT_GROUP_PROTOCOL, INVALID_SESSION_TIMEOUT,
		// GROUP_MAX_SIZE_REACHED, and anything unexpected.
		m.fail("JoinGroup: "+r.Error.String(), out)
	}
}

// joined completes a successful JoinGroup: record the generation, compute
// the assignment if leading, send SyncGroup.
func (m *Member) joined(now Millis, r JoinGroupResponse, out *Output) {
	if r.MemberID == "" {
		m.fail("JoinGroup: response without a member id", out)
		return
	}
	proto := m.protocolNamed(r.ProtocolName)
	if proto == nil {
		m.fail(fmt.Sprintf("JoinGroup: coordinator selected protocol %q this member does not support", r.ProtocolName), out)
		return
	}
	m.id, m.generation, m.leader, m.protocol = r.MemberID, r.Generation, r.Leader, r.ProtocolName
	req := SyncGroupRequest{MemberID: m.id, InstanceID: m.cfg.InstanceID, Generation: m.generation}
	if r.Leader == m.id && !r.SkipAssignment {
		req.Assignments, out.Round = m.lead(now, proto, r, out)
	}
	m.become(AwaitingSync)
	m.sync = &req
	m.sendSync(now, out)
	if !m.timers[HeartbeatTimer].Armed {
		m.arm(HeartbeatTimer, now+m.cfg.HeartbeatInterval, out)
	}
}

// sendSync sends m.sync with a fresh Seq and arms RequestTimer for the
// session timeout.
func (m *Member) sendSync(now Millis, out *Output) {
	m.syncSeq = m.nextSeq()
	req := *m.lastSync()
	req.Seq = m.syncSeq
	req.Assignments = slices.Clone(req.Assignments)
	out.Send(m.cfg.Name, CoordinatorNode, req)
	m.arm(RequestTimer, now+m.cfg.SessionTimeout, out)
}

// lead computes the round's assignment as the leader (Kafka's
// ConsumerCoordinator.onLeaderElected): decode every member's subscription,
// run the selected protocol, check the result with spec.CheckRound and
// encode it. It returns the SyncGroup assignments, sorted by member id, and
// the round that was sent (nil when the round failed).
//
// When a subscription cannot be decoded, Assign fails (an error or a
// panic), or the result breaks a law (and SkipLeaderValidation is off),
// the leader reports AssignorFailed and sends every member a "no change"
// assignment: Error UNKNOWN_SERVER_ERROR, which members answer by keeping
// what they own. The leader memory is then left as it was. Kafka throws
// from the assignor instead (validateCooperativeAssignment's
// IllegalStateException); failing the round in place keeps the node total
// and the group safe.
//
// With a memo (MemberConfig.Memo), a round that some member sharing it
// led before from the same input is handed out as it was (RoundMemo),
// the assignments, the round and the leader memory shared with it.
func (m *Member) lead(now Millis, proto Protocol, r JoinGroupResponse, out *Output) ([]MemberAssignment, *spec.Round) {
	memo := m.cfg.Memo
	if memo == nil {
		return m.leadRound(now, proto, r, out)
	}
	var buf [1024]byte
	key := m.appendRoundKey(buf[:0], now, r)
	if led := memo.find(proto, key); led != nil {
		m.memory = led.memory
		return led.assignments, led.round
	}
	as, round := m.leadRound(now, proto, r, out)
	if round != nil {
		memo.keep(proto, key, &ledRound{assignments: as, round: round, memory: m.memory})
	}
	return as, round
}

// leadRound is lead without the memo: it computes the round.
func (m *Member) leadRound(now Millis, proto Protocol, r JoinGroupResponse, out *Output) ([]MemberAssignment, *spec.Round) {
	byID := func(a, b JoinedMember) int { return strings.Compare(string(a.MemberID), string(b.MemberID)) }
	members := r.Members // read only; the coordinator sends them sorted
	if !slices.IsSortedFunc(members, byID) {
		members = slices.SortedFunc(slices.Values(r.Members), byID)
	}
	joined := make([]Joined, 0, len(members))
	var bad []string
	memo := m.codec()
	var claimsBuf [8]memberMemo[subscriptionMemo]
	claims := claimsBuf[:0]
	claimed, assigned := memoCursor[subscriptionMemo](memo.claims), memoCursor[printedSet](memo.assigns)
	for _, jm := range members {
		p := claimed.of(jm.MemberID)
		printed := assigned.of(jm.MemberID)
		sub, err := decodeSubscription(jm.Metadata, &p, &printed)
		if err != nil {
			bad = append(bad, fmt.Sprintf("member %s: %v", jm.MemberID, err))
		}
		claims = append(claims, memberMemo[subscriptionMemo]{jm.MemberID, p})
		joined = append(joined, Joined{ID: jm.MemberID, InstanceID: jm.InstanceID, Subscription: sub})
	}
	memo.claims = renewed(memo.claims, claims, subscriptionMemo.same)
	// The memo is installed once, when the round is sent (failed or not).
	noChange := func(detail string) ([]MemberAssignment, *spec.Round) {
		m.remember(memo)
		node.Notify(out, AssignorFailed, nil, r.Generation, detail)
		out.RoundFailed = true
		as := make([]MemberAssignment, len(joined))
		for i, j := range joined {
			// j.Subscription is the zero value for an undecodable one.
			a := Assignment{Assigned: j.Subscription.Owned, Leader: m.id, Error: spec.UnknownServerError}
			as[i] = MemberAssignment{MemberID: j.ID, Assignment: a.Encode()}
		}
		return as, nil
	}
	if len(bad) > 0 {
		return noChange(strings.Join(bad, "; "))
	}

	// The input shares the member's metadata and leader memory, which the
	// member replaces whole and never changes in place, and which a
	// Protocol must neither keep nor modify.
	res, err := assignContained(proto, LeaderInput{
		Now:                     now,
		Generation:              r.Generation,
		Leader:                  r.Leader,
		LastCompletedGeneration: m.lastCompleted,
		Members:                 joined,
		Topics:                  m.metadata,
		Memory:                  *m.leaderMemory(),
		Faults:                  m.cfg.Faults,
	})
	if err != nil {
		return noChange(fmt.Sprintf("protocol %s: %v", proto.Name(), err))
	}

	// Every member of the round gets an assignment, empty if the protocol
	// gave it none; entries for members not in the round are kept so that
	// the check reports them (KnownMembersOnly). The protocol's map is
	// only read, and copied only when a member is missing from it.
	full := withEveryMember(res.Assignments, joined)
	// The round shares the metadata, the decoded subscriptions and claims
	// (which the member's memo replaces whole and never changes in place)
	// and the protocol's sets (values no one changes): its observers only
	// read it (node.Output).
	round := &spec.Round{
		Topics:        m.metadata,
		Subscriptions: make(map[spec.MemberID][]string, len(joined)),
		Claims:        make(map[spec.MemberID]spec.Set, len(joined)),
		Assigned:      make(spec.Assignment, len(full)),
		Cooperative:   proto.Cooperative(),
		Held:          slices.Clone(res.Held),
	}
	if s, ok := proto.(StickyProtocol); ok {
		round.Sticky = s.KeepsClaims()
	}
	for _, j := range joined {
		round.Subscriptions[j.ID] = j.Subscription.Topics
		round.Claims[j.ID] = j.Subscription.Owned
	}
	for id, a := range full {
		round.Assigned[id] = a.Assigned
	}
	if !m.cfg.Faults.Has(SkipLeaderValidation) {
		var problems []string
		for _, v := range spec.CheckRound(*round) {
			problems = append(problems, v.String())
		}
		problems = append(problems, Malformed(full)...)
		if len(problems) > 0 {
			return noChange(fmt.Sprintf("protocol %s: %s", proto.Name(), strings.Join(problems, "; ")))
		}
	}

	var buf [8]spec.MemberID
	ids := spec.AppendSortedKeys(buf[:0], full)
	as := make([]MemberAssignment, len(ids))
	var printedBuf [8]memberMemo[printedSet]
	printed := printedBuf[:0]
	printedBefore := memoCursor[printedSet](memo.assigns)
	for i, id := range ids {
		a := full[id]
		if a.Leader == "" {
			a.Leader = m.id
		}
		p := printedBefore.of(id)
		as[i] = MemberAssignment{MemberID: id, Assignment: a.encode(&p)}
		printed = append(printed, memberMemo[printedSet]{id, p})
	}
	memo.assigns = renewed(memo.assigns, printed, printedSet.same)
	m.remember(memo)
	// The protocol's result is fresh and kept by no one else (a Protocol
	// is a pure value), so the member keeps its memory as it is.
	m.memory = &keptMemory{LeaderMemory: res.Memory}
	return as, round
}

// withEveryMember returns as when it has an entry for every member of
// joined, and otherwise a copy of it (a new map when as is nil) with an
// empty Assignment added for each member it lacks. It never changes as.
func withEveryMember(as map[spec.MemberID]Assignment, joined []Joined) map[spec.MemberID]Assignment {
	full, copied := as, false
	for _, j := range joined {
		if _, ok := full[j.ID]; ok {
			continue
		}
		if !copied {
			full, copied = make(map[spec.MemberID]Assignment, len(as)+len(joined)), true
			maps.Copy(full, as)
		}
		full[j.ID] = Assignment{}
	}
	return full
}

// Malformed reports the assignments of a round that spec.CheckRound does
// not judge but that no member could decode or apply: a revoked set that
// is not a valid set, a resource both assigned and revoked, a negative
// delay. Sorted by member id; empty when there are none. A leader sends
// nothing that CheckRound or Malformed reports.
func Malformed(as map[spec.MemberID]Assignment) []string {
	// One pass in map order, then only the members with something to
	// report are sorted: a leader asks at every round, and nearly always
	// there is nothing to report.
	type report struct {
		id       spec.MemberID
		problems []string
	}
	var reports []report
	for id, a := range as {
		var problems []string
		if err := a.Revoked.Validate(); err != nil {
			problems = append(problems, fmt.Sprintf("member %s: revoked: %v", id, err))
		}
		if x := a.Assigned.Intersect(a.Revoked); !x.IsEmpty() {
			problems = append(problems, fmt.Sprintf("member %s: %s both assigned and revoked", id, x))
		}
		if a.Delay < 0 {
			problems = append(problems, fmt.Sprintf("member %s: negative delay %d", id, a.Delay))
		}
		if len(problems) > 0 {
			reports = append(reports, report{id, problems})
		}
	}
	slices.SortFunc(reports, func(a, b report) int { return strings.Compare(string(a.id), string(b.id)) })
	var out []string
	for _, r := range reports {
		out = append(out, r.problems...)
	}
	return out
}

// assignContained runs proto.Assign, turning a panic into an error: a
// protocol of the caller's that panics fails its round as one that returns
// an error does (AssignorFailed, every member keeps what it owns), instead
// of taking the member down. Kafka's leader lets the assignor's exception
// escape poll(); a model node must stay total.
func assignContained(proto Protocol, in LeaderInput) (res LeaderResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = LeaderResult{}, fmt.Errorf("panicked: %v", p)
		}
	}()
	return proto.Assign(in)
}
