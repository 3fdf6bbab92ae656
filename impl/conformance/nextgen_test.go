package conformance

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/impl/kwire"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// The KIP-848 harness: members send ConsumerGroupHeartbeat v1 to both
// coordinators. Member ids are the members' own (KIP-1082), so both sides
// know a member by the same id. Every heartbeat is answered at once on
// both sides, so the harness sends, waits and compares, one at a time.
//
// A member is a well-behaved client on each side: it owns exactly the
// partitions of the last assignment that side sent it, and reports them.

// ngView is what a member knows on one side.
type ngView struct {
	epoch int32
	owned spec.Set
	// owns is whether the member believes it is in the group.
	in bool
}

type ngMember struct {
	name     string
	id       string
	instance string // "" for a dynamic member
	subs     []string
	assignor string // "" for none
	k, o     ngView
}

type ngRun struct {
	t     harnessT
	ctx   context.Context
	f     *fake
	group string
	core  *nextgen.Coordinator
	ids   kwire.TopicIDMap
	topic spec.Topics
	start time.Time
	wire  *wireClient
	// deterministic is set when every member asked for the range assignor
	// (deterministic on both sides, with the same member order): the
	// assignments are compared exactly, not only by their properties.
	deterministic bool

	timers  map[nextgen.Timer]nextgen.Millis
	members map[string]*ngMember
	step    int
	// requests counts the heartbeats sent to both sides, describes the
	// state comparisons (a ConsumerGroupDescribe and our core's state).
	requests, describes int
	diffs               []diff
	// context is the diff context of the step being compared.
	context string
	// wasParked is set once a static member was parked at -2 on our side.
	wasParked bool
}

func newNGRun(ctx context.Context, t harnessT, f *fake, group string, faults nextgen.Fault) *ngRun {
	table := map[string][16]byte{}
	topics := spec.Topics{}
	for name, n := range clusterTopics {
		table[name] = f.c.TopicInfo(name).TopicID
		topics[name] = n
	}
	ids, err := kwire.NewTopicIDMap(table)
	if err != nil {
		t.Fatal(err)
	}
	core, err := nextgen.NewCoordinator(nextgen.CoordinatorConfig{
		GroupID: group, SessionTimeout: 30000, HeartbeatInterval: 5000, Topics: topics, Faults: faults,
	})
	if err != nil {
		t.Fatal(err)
	}
	w := newWireClient(f.addr, "client-"+group)
	t.Cleanup(w.closeAll)
	return &ngRun{t: t, ctx: ctx, f: f, group: group, core: core, ids: ids, topic: topics, start: time.Now(), wire: w,
		timers: map[nextgen.Timer]nextgen.Millis{}, members: map[string]*ngMember{}}
}

// member declares a member: dynamic unless instance is set.
func (r *ngRun) member(name, instance, assignor string, subs ...string) {
	r.members[name] = &ngMember{name: name, id: "member-" + name, instance: instance, subs: subs, assignor: assignor}
}

func (r *ngRun) now() nextgen.Millis { return nextgen.Millis(time.Since(r.start).Milliseconds()) }

func (r *ngRun) stepCore(ev node.Event) *nextgen.HeartbeatResponse {
	out := r.core.Step(node.Input{Now: r.now(), Event: ev})
	var resp *nextgen.HeartbeatResponse
	for _, e := range out.Messages {
		m, ok := e.Msg.(nextgen.HeartbeatResponse)
		if !ok || resp != nil {
			r.t.Fatalf("unexpected core output %s", e.Msg)
		}
		resp = &m
	}
	for _, tc := range out.Timers {
		if tc.Cancel {
			delete(r.timers, tc.Timer)
		} else {
			r.timers[tc.Timer] = tc.At
		}
	}
	if err := r.core.CheckInvariants(); err != nil {
		r.t.Fatalf("our KIP-848 coordinator broke an invariant: %v", err)
	}
	return resp
}

func (r *ngRun) fireDue() {
	now := r.now()
	for _, tm := range slices.SortedFunc(maps.Keys(r.timers), func(a, b nextgen.Timer) int { return strings.Compare(a.String(), b.String()) }) {
		if r.timers[tm] <= now {
			delete(r.timers, tm)
			r.stepCore(nextgen.TimerFired{Timer: tm})
		}
	}
}

// hbKind says which heartbeat a member sends.
type hbKind int

const (
	hbJoin        hbKind = iota // epoch 0, full
	hbFull                      // current epoch, subscription and owned partitions
	hbKeepAlive                 // current epoch, nothing else (RebalanceTimeoutMs -1)
	hbStale                     // the epoch before the current one, with owned partitions
	hbOlder                     // two epochs before the current one, with owned partitions
	hbFuture                    // an epoch above the current one
	hbLeave                     // epoch -1
	hbStaticLeave               // epoch -2
	hbUnknown                   // a member id nobody has, epoch 1
)

var hbNames = []string{"join", "full", "keepalive", "stale", "older", "future", "leave", "static-leave", "unknown"}

func (k hbKind) String() string { return hbNames[k] }

func (r *ngRun) build(m *ngMember, v ngView, kind hbKind) *kmsg.ConsumerGroupHeartbeatRequest {
	q := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	q.Version = 1
	q.Group = r.group
	q.MemberID = m.id
	q.MemberEpoch = v.epoch
	q.RebalanceTimeoutMillis = -1
	if m.instance != "" {
		q.InstanceID = kmsg.StringPtr(m.instance)
	}
	owned := func(s spec.Set) { q.Topics = r.topicsOf(s) }
	full := func() {
		q.RebalanceTimeoutMillis = rebalanceTimeoutMs
		q.SubscribedTopicNames = slices.Clone(m.subs)
		if m.assignor != "" {
			q.ServerAssignor = kmsg.StringPtr(m.assignor)
		}
		owned(v.owned)
	}
	switch kind {
	case hbJoin:
		q.MemberEpoch = 0
		full()
		owned(nil)
	case hbFull:
		full()
	case hbKeepAlive:
	case hbStale:
		q.MemberEpoch = v.epoch - 1
		owned(v.owned)
	case hbOlder:
		q.MemberEpoch = v.epoch - 2
		owned(v.owned)
	case hbFuture:
		q.MemberEpoch = v.epoch + 5
		owned(v.owned)
	case hbLeave:
		q.MemberEpoch = -1
	case hbStaticLeave:
		q.MemberEpoch = -2
	case hbUnknown:
		q.MemberID = "nobody"
		q.MemberEpoch = 1
		owned(nil)
	}
	return q
}

// topicsOf is s as a heartbeat's owned partitions.
func (r *ngRun) topicsOf(s spec.Set) []kmsg.ConsumerGroupHeartbeatRequestTopic {
	out := []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	byTopic := map[string][]int32{}
	for _, p := range s {
		byTopic[p.Topic] = append(byTopic[p.Topic], p.Partition)
	}
	for _, name := range slices.Sorted(maps.Keys(byTopic)) {
		t := kmsg.NewConsumerGroupHeartbeatRequestTopic()
		t.TopicID, _ = r.ids.TopicID(name)
		t.Partitions = byTopic[name]
		out = append(out, t)
	}
	return out
}

// hb sends one heartbeat of member to both sides and compares the answers
// and then the groups.
func (r *ngRun) hb(member string, kind hbKind) { r.hbWith(member, kind, nil) }

// hbWith is hb with the request changed by edit on both sides (a probe of
// a request a well-behaved client does not send).
func (r *ngRun) hbWith(member string, kind hbKind, edit func(*kmsg.ConsumerGroupHeartbeatRequest)) {
	r.t.Helper()
	m := r.members[member]
	r.step++
	r.requests++
	kq, oq := r.build(m, m.k, kind), r.build(m, m.o, kind)
	if edit != nil {
		edit(kq)
		edit(oq)
	}

	ctx, cancel := context.WithTimeout(r.ctx, requestWait)
	defer cancel()
	r.f.sent++
	kresp, err := r.wire.request(ctx, kq)
	if err != nil {
		r.t.Fatalf("step %d: kfake: %v", r.step, err)
	}
	kr := kresp.(*kmsg.ConsumerGroupHeartbeatResponse)

	r.fireDue()
	r.context = ""
	for _, id := range r.core.Members() {
		if s, _ := r.core.Member(id); s.Epoch == spec.StaticLeaveEpoch {
			r.context = "parked-static"
			r.wasParked = true
		}
	}
	if r.wasParked {
		r.context += " was-parked"
	}
	if before, ok := r.core.Member(spec.MemberID(m.id)); ok && oq.SubscribedTopicNames != nil &&
		!slices.Equal(before.Subscription, slices.Sorted(slices.Values(oq.SubscribedTopicNames))) {
		r.context += " resubscribed"
	}
	var or nextgen.HeartbeatResponse
	creq, err := kwire.ConsumerGroupHeartbeatRequestFromKafka(oq, r.ids)
	if err != nil {
		or = nextgen.HeartbeatResponse{Error: spec.InvalidRequest, ErrorMessage: err.Error()}
	} else {
		p := r.stepCore(nextgen.Receive{From: "r" + fmt.Sprint(r.step), Msg: creq})
		if p == nil {
			r.t.Fatalf("step %d: our core did not answer", r.step)
		}
		or = *p
	}
	ko, err := kwire.ConsumerGroupHeartbeatResponseFromKafka(kr, r.ids)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Logf("step %d %s %s (epoch kfake %d, ours %d): kfake %s; ours %s", r.step, member, kind, kq.MemberEpoch, oq.MemberEpoch, ko, or)
	r.compare(m, kind, ko, or)
	m.k = r.advance(m.k, kind, ko)
	m.o = r.advance(m.o, kind, or)
	r.compareGroup()
}

// advance is the member's client: it takes what the answer says.
func (r *ngRun) advance(v ngView, kind hbKind, resp nextgen.HeartbeatResponse) ngView {
	if kind == hbUnknown || kind == hbStale || kind == hbOlder || kind == hbFuture {
		return v // a probe: the member's own state does not change
	}
	switch {
	case resp.Error == spec.None && resp.MemberEpoch < 0:
		return ngView{epoch: 0}
	case resp.Error == spec.None:
		v.epoch, v.in = int32(resp.MemberEpoch), true
		if resp.AssignmentSent {
			v.owned = resp.Assignment
		}
	case resp.Error == spec.FencedMemberEpoch || resp.Error == spec.UnknownMemberID:
		// The member abandons its partitions and rejoins.
		return ngView{epoch: 0}
	}
	return v
}

func (r *ngRun) diff(api, field, k, o string) {
	r.diffs = append(r.diffs, diff{API: api, Field: field, Kfake: k, Ours: o, Where: fmt.Sprintf("%s step %d", r.group, r.step), Group: r.group, Step: r.step, Context: r.context})
}

func (r *ngRun) compare(m *ngMember, kind hbKind, k, o nextgen.HeartbeatResponse) {
	check := func(field, kv, ov string) {
		if kv != ov {
			r.diff("ConsumerGroupHeartbeat", field, kv, ov)
		}
	}
	if k.Error != o.Error {
		// The messages say which check refused a request; kfake's
		// messages are mostly null, so they are compared only here, to
		// tell differences apart.
		check("error", errText(k), errText(o))
		return
	}
	check("memberId", string(k.MemberID), string(o.MemberID))
	check("heartbeatInterval", fmt.Sprint(k.HeartbeatIntervalMs), fmt.Sprint(o.HeartbeatIntervalMs))
	if !r.deterministic {
		// Under "uniform" the two targets differ (kfake's own sticky
		// assignor, Kafka's uniform here), and with them what each member
		// must revoke and so its epoch: only what does not depend on the
		// target is compared, and that an accepted heartbeat never leaves
		// a member at epoch 0.
		if (k.MemberEpoch == 0) != (o.MemberEpoch == 0) {
			check("memberEpoch", fmt.Sprint(k.MemberEpoch), fmt.Sprint(o.MemberEpoch))
		}
		return
	}
	check("memberEpoch", fmt.Sprint(k.MemberEpoch), fmt.Sprint(o.MemberEpoch))
	check("assignmentSent", fmt.Sprint(k.AssignmentSent), fmt.Sprint(o.AssignmentSent))
	if k.AssignmentSent && o.AssignmentSent {
		check("assignment", k.Assignment.String(), o.Assignment.String())
	}
}

func errText(r nextgen.HeartbeatResponse) string {
	if r.ErrorMessage == "" {
		return r.Error.String()
	}
	return r.Error.String() + " (" + r.ErrorMessage + ")"
}

// ngGroup is one side's group: epochs, state and every member's epoch,
// subscription and assigned partitions.
type ngGroup struct {
	state              string
	epoch, targetEpoch int32
	memberEpochs       map[string]int32
	subs               map[string][]string
	assigned           map[string]spec.Set
	target             map[string]spec.Set
}

func (r *ngRun) kfakeGroup() ngGroup {
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = []string{r.group}
	ctx, cancel := context.WithTimeout(r.ctx, requestWait)
	defer cancel()
	r.f.sent++
	resp, err := r.wire.request(ctx, req)
	if err != nil {
		r.t.Fatalf("ConsumerGroupDescribe: %v", err)
	}
	r.describes++
	g := resp.(*kmsg.ConsumerGroupDescribeResponse).Groups[0]
	out := ngGroup{state: strings.ToLower(g.State), epoch: g.Epoch, targetEpoch: g.AssignmentEpoch,
		memberEpochs: map[string]int32{}, subs: map[string][]string{}, assigned: map[string]spec.Set{}, target: map[string]spec.Set{}}
	if g.ErrorCode != 0 {
		out.state = "error " + errName(g.ErrorCode)
	}
	for _, m := range g.Members {
		out.memberEpochs[m.MemberID] = m.MemberEpoch
		out.subs[m.MemberID] = slices.Sorted(slices.Values(m.SubscribedTopics))
		out.assigned[m.MemberID] = r.kfakeSet(m.Assignment)
		out.target[m.MemberID] = r.kfakeSet(m.TargetAssignment)
	}
	return out
}

func (r *ngRun) kfakeSet(a kmsg.Assignment) spec.Set {
	var rs []spec.Resource
	for _, tp := range a.TopicPartitions {
		name, ok := r.ids.TopicName(tp.TopicID)
		if !ok {
			name = fmt.Sprintf("unknown-topic-%x", tp.TopicID[:4])
		}
		for _, p := range tp.Partitions {
			rs = append(rs, spec.TP(name, p))
		}
	}
	return spec.NewSet(rs...)
}

func (r *ngRun) oursGroup() ngGroup {
	c := r.core
	out := ngGroup{state: strings.ToLower(c.State().String()), epoch: int32(c.GroupEpoch()), targetEpoch: int32(c.TargetEpoch()),
		memberEpochs: map[string]int32{}, subs: map[string][]string{}, assigned: map[string]spec.Set{}, target: map[string]spec.Set{}}
	if !c.Exists() {
		out.state = "error GROUP_ID_NOT_FOUND"
	}
	for _, id := range c.Members() {
		s, _ := c.Member(id)
		out.memberEpochs[string(id)] = int32(s.Epoch)
		out.subs[string(id)] = s.Subscription
		out.assigned[string(id)] = s.Assigned
		out.target[string(id)] = s.Target
	}
	return out
}

// ownership checks the properties every assignment must have: each
// assigned partition exists, no partition is assigned to two members, and
// each member's target is within its subscription. (An assigned partition
// may be of a topic the member no longer subscribes to while it revokes
// it: Kafka keeps it assigned until then.)
func (r *ngRun) ownership(g ngGroup) string {
	var bad []string
	owner := map[spec.Resource]string{}
	for _, id := range slices.Sorted(maps.Keys(g.assigned)) {
		for _, p := range g.assigned[id] {
			if n, ok := r.topic[p.Topic]; !ok || p.Partition < 0 || p.Partition >= n {
				bad = append(bad, fmt.Sprintf("%s holds %s, which does not exist", id, p))
			}
			if o, ok := owner[p]; ok {
				bad = append(bad, fmt.Sprintf("%s and %s both hold %s", o, id, p))
			}
			owner[p] = id
		}
	}
	for _, id := range slices.Sorted(maps.Keys(g.target)) {
		for _, p := range g.target[id] {
			if !slices.Contains(g.subs[id], p.Topic) {
				bad = append(bad, fmt.Sprintf("%s is targeted %s without subscribing to it", id, p))
			}
		}
	}
	if len(bad) == 0 {
		return "ok"
	}
	return strings.Join(bad, "; ")
}

func (r *ngRun) compareGroup() {
	k, o := r.kfakeGroup(), r.oursGroup()
	context := r.context
	if o.epoch > o.targetEpoch {
		context += " target-behind"
	}
	add := func(field, kv, ov string) {
		if kv != ov {
			r.diffs = append(r.diffs, diff{API: "ConsumerGroupDescribe", Field: field, Kfake: kv, Ours: ov, Group: r.group, Step: r.step, State: true, Context: context,
				Where: fmt.Sprintf("%s after step %d", r.group, r.step)})
		}
	}
	add("groupEpoch", fmt.Sprint(k.epoch), fmt.Sprint(o.epoch))
	add("assignmentEpoch", fmt.Sprint(k.targetEpoch), fmt.Sprint(o.targetEpoch))
	add("ownership", r.ownership(k), r.ownership(o))
	add("members", membersText(k.memberEpochs), membersText(o.memberEpochs))
	if !r.deterministic {
		// Whether members are reconciled depends on the targets; whether
		// the group has members and whether its target is behind its
		// epoch does not.
		add("state", coarseState(k.state), coarseState(o.state))
	}
	if r.deterministic {
		add("state", k.state, o.state)
		add("memberEpochs", epochsText(k.memberEpochs), epochsText(o.memberEpochs))
		add("assignments", assignedText(k.assigned), assignedText(o.assigned))
	}
}

// coarseState merges the states that depend on the targets.
func coarseState(s string) string {
	if s == "stable" || s == "reconciling" {
		return "stable or reconciling"
	}
	return s
}

func membersText(m map[string]int32) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), " ")
}

func epochsText(m map[string]int32) string {
	var out []string
	for id, e := range m {
		out = append(out, fmt.Sprintf("%s=%d", id, e))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func assignedText(m map[string]spec.Set) string {
	var out []string
	for id, s := range m {
		out = append(out, fmt.Sprintf("%s=%s", id, s))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}
