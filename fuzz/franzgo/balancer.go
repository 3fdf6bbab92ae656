package franzgo

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/impl/kwire"
	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// consumerVersion is the consumer embedded-protocol version written: 3,
// the newest (owned partitions, generation, rack).
const consumerVersion int16 = 3

// KgoBalancer is one of our protocols as a kgo.GroupBalancer; see Balancer
// and ProtocolBalancer. It holds the state of the process whose client it
// is configured in (leader memory, last completed generation, last leader,
// attached client), so every client needs a value of its own. Its methods
// are safe for concurrent use.
type KgoBalancer struct {
	p classic.Protocol
	// now is the leader's clock, LeaderInput.Now.
	now func() classic.Millis

	mu sync.Mutex
	// memory is this process's leader memory.
	memory classic.LeaderMemory
	// lastCompleted is the generation of the last assignment parsed.
	lastCompleted spec.Generation
	// leader is the leader of the last assignment parsed.
	leader spec.MemberID
	client *kgo.Client
	timer  *time.Timer
	// stats, for tests.
	rounds, heldRounds, delays int
}

var _ kgo.GroupBalancer = (*KgoBalancer)(nil)

// Balancer returns assignor a as a kgo.GroupBalancer named a.Name(),
// cooperative as given (kgo members then keep what they own across a
// rebalance and report it). The leader builds an assign.Group from the
// members' subscriptions (sorted by member ID; Owned and Generation as
// reported, claims on partitions the leader has no metadata for dropped
// with assign.PruneOwned; InstanceID; Rack from the subscription, but no
// replica racks) and the partition counts kgo gives, runs a, and gives
// each member a's set for it. The round must pass spec.CheckRound, with
// CooperativeHandoff when cooperative: with cooperative true, use an
// assignor that withholds a moving partition for a round
// (assign.CooperativeSticky); another one fails every round that moves a
// partition between members (BalanceOrError's error). Otherwise as
// ProtocolBalancer.
func Balancer(a assign.Assignor, cooperative bool) *KgoBalancer {
	return ProtocolBalancer(assignorProtocol{a: a, coop: cooperative})
}

// ProtocolBalancer returns embedded protocol p as a kgo.GroupBalancer:
// ProtocolName is p.Name(), IsCooperative is p.Cooperative(). Members send
// Kafka's consumer subscription (their topics, owned partitions and
// generation; in the user data the leader of their last assignment); the
// leader (MemberBalancer, then BalanceOrError) decodes every member, runs
// p.Assign on a classic.LeaderInput (Now: the wall clock in Unix
// milliseconds; Generation and Leader: kgo's BalanceInfo, or, without it,
// one more than the highest generation reported and the first member;
// LastCompletedGeneration: the generation of the last assignment this
// balancer parsed, spec.NoGeneration before any; Members sorted by ID;
// Topics: the partition counts kgo gives; Memory: this balancer's), checks
// the round with spec.CheckRound (and that no Revoked overlaps Assigned and
// no Delay is negative), keeps LeaderResult.Memory and returns every
// member's assignment: Kafka's consumer assignment of Assigned, with the
// generation, Leader, Revoked, Delay and Error in the user data. Errors
// (undecodable metadata, p's error or panic, a round that fails the check)
// come out of MemberBalancer or BalanceOrError; see the package
// documentation for what kgo does with them. Delays take effect only with
// a client attached (AttachClient).
func ProtocolBalancer(p classic.Protocol) *KgoBalancer {
	return &KgoBalancer{
		p:             p,
		now:           func() classic.Millis { return classic.Millis(time.Now().UnixMilli()) },
		lastCompleted: spec.NoGeneration,
	}
}

// AttachClient makes the balancer act on delays for cl, the client it is
// configured in (kgo.Balancers): every assignment with a positive Delay
// arms a timer that calls cl.ForceRebalance when it fires, replacing any
// timer armed before; an assignment without a delay disarms it. A nil cl
// detaches and disarms. Call it once the client is built.
func (b *KgoBalancer) AttachClient(cl *kgo.Client) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.client = cl
	if cl == nil && b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
}

// Memory returns a copy of the leader memory this process keeps: the zero
// value until it has led a round of a protocol that keeps one.
func (b *KgoBalancer) Memory() classic.LeaderMemory {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.memory.Clone()
}

// Protocol returns the embedded protocol the balancer runs.
func (b *KgoBalancer) Protocol() classic.Protocol { return b.p }

// ProtocolName implements kgo.GroupBalancer: the protocol's name.
func (b *KgoBalancer) ProtocolName() string { return b.p.Name() }

// IsCooperative implements kgo.GroupBalancer: the protocol's Cooperative.
func (b *KgoBalancer) IsCooperative() bool { return b.p.Cooperative() }

// JoinGroupMetadata implements kgo.GroupBalancer: Kafka's consumer
// subscription (version 3) of topicInterests, currentAssignment and
// generation, with the leader of the last assignment parsed in the user
// data. It is deterministic for the same inputs and state.
func (b *KgoBalancer) JoinGroupMetadata(topicInterests []string, currentAssignment map[string][]int32, generation int32) []byte {
	b.mu.Lock()
	leader := b.leader
	b.mu.Unlock()
	var rs []spec.Resource
	for t, ps := range currentAssignment {
		for _, p := range ps {
			rs = append(rs, spec.TP(t, p))
		}
	}
	sub := classic.Subscription{
		Topics:     slices.Compact(slices.Sorted(slices.Values(topicInterests))),
		Owned:      spec.NewSet(rs...),
		Generation: spec.Generation(generation),
		Leader:     leader,
	}
	md, err := kwire.EncodeConsumerSubscription(sub, kwire.ConsumerExtras{Version: consumerVersion, UserData: encodeSubscriptionData(leader)})
	if err != nil {
		// kgo gives non-empty topic names and non-negative partitions,
		// which always encode; anything else is reported as owning
		// nothing rather than not joining.
		sub.Owned = nil
		md, _ = kwire.EncodeConsumerSubscription(sub, kwire.ConsumerExtras{Version: consumerVersion})
	}
	return []byte(md)
}

// ParseSyncAssignment implements kgo.GroupBalancer: the partitions of
// Kafka's consumer assignment in assignment (empty bytes are an empty
// assignment). When the user data is ours it records the generation (the
// process's last completed generation) and the leader, and with a client
// attached arms or disarms the delay timer (see AttachClient). An
// assignment carrying a non-zero Error, undecodable bytes or malformed user
// data are errors, which kgo treats as a failed SyncGroup.
func (b *KgoBalancer) ParseSyncAssignment(assignment []byte) (map[string][]int32, error) {
	if len(assignment) == 0 {
		return map[string][]int32{}, nil
	}
	a, x, err := kwire.DecodeConsumerAssignment(classic.Metadata(assignment))
	if err != nil {
		return nil, err
	}
	gen, ours, err := decodeAssignmentData(x.UserData, &a)
	if err != nil {
		return nil, err
	}
	if ours {
		if a.Error != 0 {
			return nil, fmt.Errorf("franzgo: leader %q could not assign generation %d: error %d (%s)", a.Leader, gen, a.Error, a.Error)
		}
		b.mu.Lock()
		b.lastCompleted, b.leader = gen, a.Leader
		if b.client != nil {
			if b.timer != nil {
				b.timer.Stop()
				b.timer = nil
			}
			if a.Delay > 0 {
				b.delays++
				b.timer = time.AfterFunc(time.Duration(a.Delay)*time.Millisecond, b.client.ForceRebalance)
			}
		}
		b.mu.Unlock()
	}
	out := fromSet(a.Assigned)
	return out, nil
}

// MemberBalancer implements kgo.GroupBalancer: it decodes every member's
// subscription (an undecodable one is an error naming the member; a member
// ID listed twice keeps its first entry, as kgo's NewConsumerBalancer
// does) and returns the member balancer and the union of the members'
// topics.
func (b *KgoBalancer) MemberBalancer(members []kmsg.JoinGroupResponseMember) (kgo.GroupMemberBalancer, map[string]struct{}, error) {
	mb := &memberBalancer{b: b}
	topics := map[string]struct{}{}
	seen := map[spec.MemberID]bool{}
	for _, m := range members {
		id := spec.MemberID(m.MemberID)
		if seen[id] {
			continue
		}
		seen[id] = true
		sub, x, err := kwire.DecodeConsumerSubscription(classic.Metadata(m.ProtocolMetadata))
		if err != nil {
			return nil, nil, fmt.Errorf("franzgo: member %q: %w", m.MemberID, err)
		}
		sub.Leader = decodeSubscriptionData(x.UserData)
		j := classic.Joined{ID: id, Subscription: sub}
		if m.InstanceID != nil {
			j.InstanceID = *m.InstanceID
		}
		rack := ""
		if x.Rack != nil {
			rack = *x.Rack
		}
		mb.members = append(mb.members, j)
		mb.racks = append(mb.racks, rack)
		for _, t := range sub.Topics {
			topics[t] = struct{}{}
		}
	}
	// classic.LeaderInput wants the members sorted by ID; kgo sorts
	// instance IDs first.
	idx := make([]int, len(mb.members))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int { return strings.Compare(string(mb.members[i].ID), string(mb.members[j].ID)) })
	js, racks := make([]classic.Joined, len(idx)), make([]string, len(idx))
	for k, i := range idx {
		js[k], racks[k] = mb.members[i], mb.racks[i]
	}
	mb.members, mb.racks = js, racks
	return mb, topics, nil
}

// memberBalancer is one round at the leader.
type memberBalancer struct {
	b       *KgoBalancer
	members []classic.Joined // sorted by ID
	racks   []string         // racks[i] is members[i]'s
	info    kgo.BalanceInfo
	hasInfo bool
}

// SetBalanceInfo implements kgo.GroupMemberBalancerInfo: kgo gives the
// generation being assigned and the leader here.
func (mb *memberBalancer) SetBalanceInfo(info kgo.BalanceInfo) {
	mb.info, mb.hasInfo = info, true
}

// Balance implements kgo.GroupMemberBalancer (kgo calls BalanceOrError
// instead): the plan, or nil on an error.
func (mb *memberBalancer) Balance(topics map[string]int32) kgo.IntoSyncAssignment {
	into, err := mb.BalanceOrError(topics)
	if err != nil {
		return nil
	}
	return into
}

// BalanceOrError implements kgo.GroupMemberBalancerOrError; see
// ProtocolBalancer.
func (mb *memberBalancer) BalanceOrError(topics map[string]int32) (into kgo.IntoSyncAssignment, err error) {
	b := mb.b
	if len(mb.members) == 0 {
		return nil, fmt.Errorf("franzgo: %s: no members to balance", b.p.Name())
	}
	gen, leader := spec.Generation(0), mb.members[0].ID
	for _, j := range mb.members {
		gen = max(gen, j.Subscription.Generation)
	}
	gen++
	if mb.hasInfo {
		gen = spec.Generation(mb.info.Generation)
		if mb.info.LeaderID != "" {
			leader = spec.MemberID(mb.info.LeaderID)
		}
	}
	b.mu.Lock()
	in := classic.LeaderInput{
		Now:                     b.now(),
		Generation:              gen,
		Leader:                  leader,
		LastCompletedGeneration: b.lastCompleted,
		Members:                 mb.members,
		Topics:                  spec.Topics(maps.Clone(topics)),
		Memory:                  b.memory.Clone(),
	}
	b.mu.Unlock()
	proto := b.p
	if ap, ok := proto.(assignorProtocol); ok {
		ap.racks = mb.racks
		proto = ap
	}
	res, err := safeAssign(proto, in)
	if err != nil {
		return nil, err
	}
	plan, err := buildPlan(proto, in, res)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.memory = res.Memory.Clone()
	b.rounds++
	if !res.Held.IsEmpty() {
		b.heldRounds++
	}
	b.mu.Unlock()
	return plan, nil
}

// safeAssign is p.Assign, a panic recovered into an error.
func safeAssign(p classic.Protocol, in classic.LeaderInput) (res classic.LeaderResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = classic.LeaderResult{}, fmt.Errorf("franzgo: protocol %s panicked: %v", p.Name(), r)
		}
	}()
	res, err = p.Assign(in)
	if err != nil {
		return classic.LeaderResult{}, fmt.Errorf("franzgo: protocol %s: %w", p.Name(), err)
	}
	return res, nil
}

// buildPlan checks the round as our classic leader does and encodes every
// member's assignment.
func buildPlan(p classic.Protocol, in classic.LeaderInput, res classic.LeaderResult) (syncPlan, error) {
	round := spec.Round{
		Topics:        in.Topics,
		Subscriptions: make(map[spec.MemberID][]string, len(in.Members)),
		Claims:        make(map[spec.MemberID]spec.Set, len(in.Members)),
		Assigned:      spec.Assignment{},
		Cooperative:   p.Cooperative(),
	}
	full := maps.Clone(res.Assignments)
	if full == nil {
		full = map[spec.MemberID]classic.Assignment{}
	}
	for _, j := range in.Members {
		round.Subscriptions[j.ID] = j.Subscription.Topics
		round.Claims[j.ID] = j.Subscription.Owned
		if _, ok := full[j.ID]; !ok {
			full[j.ID] = classic.Assignment{}
		}
	}
	for id, a := range full {
		round.Assigned[id] = a.Assigned
	}
	var problems []string
	for _, v := range spec.CheckRound(round) {
		problems = append(problems, v.String())
	}
	problems = append(problems, classic.Malformed(full)...)
	if len(problems) > 0 {
		return nil, fmt.Errorf("franzgo: protocol %s: generation %d: %s", p.Name(), in.Generation, strings.Join(problems, "; "))
	}
	ids := slices.Sorted(maps.Keys(full))
	plan := make(syncPlan, 0, len(ids))
	for _, id := range ids {
		a := full[id]
		if a.Leader == "" {
			a.Leader = in.Leader
		}
		md, err := kwire.EncodeConsumerAssignment(a, kwire.ConsumerExtras{Version: consumerVersion, UserData: encodeAssignmentData(in.Generation, a)})
		if err != nil {
			return nil, fmt.Errorf("franzgo: protocol %s: member %s: %w", p.Name(), id, err)
		}
		sa := kmsg.NewSyncGroupRequestGroupAssignment()
		sa.MemberID = string(id)
		sa.MemberAssignment = []byte(md)
		plan = append(plan, sa)
	}
	return plan, nil
}

// syncPlan is a finished plan, sorted by member ID.
type syncPlan []kmsg.SyncGroupRequestGroupAssignment

// IntoSyncAssignment implements kgo.IntoSyncAssignment.
func (p syncPlan) IntoSyncAssignment() []kmsg.SyncGroupRequestGroupAssignment { return p }

// assignorProtocol runs an assignor as a one-round protocol: no memory, no
// delay, Revoked = claims − Assigned.
type assignorProtocol struct {
	a    assign.Assignor
	coop bool
	// racks, when set, are the members' racks in LeaderInput order.
	racks []string
}

func (p assignorProtocol) Name() string {
	if p.a == nil {
		return ""
	}
	return p.a.Name()
}

func (p assignorProtocol) Cooperative() bool { return p.coop }

func (p assignorProtocol) Assign(in classic.LeaderInput) (classic.LeaderResult, error) {
	if p.a == nil {
		return classic.LeaderResult{}, fmt.Errorf("no assignor")
	}
	g := assign.Group{Topics: in.Topics, Members: make([]assign.Member, len(in.Members))}
	for i, j := range in.Members {
		m := assign.Member{
			ID:         j.ID,
			InstanceID: j.InstanceID,
			Topics:     slices.Clone(j.Subscription.Topics),
			Owned:      j.Subscription.Owned,
			Generation: j.Subscription.Generation,
		}
		if i < len(p.racks) {
			m.Rack = p.racks[i]
		}
		g.Members[i] = m
	}
	g = assign.PruneOwned(g)
	a, err := p.a.Assign(g)
	if err != nil {
		return classic.LeaderResult{}, fmt.Errorf("assignor %s: %w", p.a.Name(), err)
	}
	out := classic.LeaderResult{Assignments: make(map[spec.MemberID]classic.Assignment, len(a))}
	for id, s := range a {
		out.Assignments[id] = classic.Assignment{Assigned: s, Leader: in.Leader}
	}
	for _, j := range in.Members {
		x := out.Assignments[j.ID]
		x.Revoked = j.Subscription.Owned.Minus(x.Assigned)
		x.Leader = in.Leader
		out.Assignments[j.ID] = x
	}
	return out, nil
}
