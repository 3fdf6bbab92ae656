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
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// The classic harness: members named by letters send JoinGroup v9,
// SyncGroup v5, Heartbeat v4 and LeaveGroup v5 to both coordinators. Each
// side has its own member ids (kfake appends a UUID to the client id, the
// core a counter), so a member's id on each side is learned from that
// side's answers, and answers are compared with ids replaced by member
// names.

const (
	classicProtocolType = "consumer"
	classicProtocol     = "range"
)

// classicView is what a member knows on one side: its id, the generation
// and leader of its last successful JoinGroup, and, if it leads, the
// members it must assign to.
type classicView struct {
	id      string
	gen     int32
	leader  string
	members []string
}

type classicMember struct {
	name string
	wire *wireClient
	// meta is the metadata version the member joins with.
	meta int
	// instance is the static member's instance id (KIP-345), "" for a
	// dynamic member.
	instance string
	k, o     classicView
	// oldK and oldO are the views before the last restart of a static
	// member (its previous member id).
	oldK, oldO classicView
}

// classicCall is one request sent to both sides.
type classicCall struct {
	step   int
	member string
	api    string
	kreq   kmsg.Request // what kfake got
	oreq   kmsg.Request // what our core got, through kwire
	kp     *pending
	node   string // our core's From for it
	oResp  classic.Message
	oLeave []classic.LeaveGroupResponse
	oDone  bool
	kDone  bool
	done   bool // compared
	// probe marks a request that does not use the member's own id: its
	// answer does not change what the member knows.
	probe bool
}

// classicRun is one sequence against one group on both sides.
type classicRun struct {
	t     harnessT
	ctx   context.Context
	f     *fake
	group string
	core  *classic.Coordinator
	start time.Time
	// timers the core armed, for firing when due (none is, with the
	// timeouts the suite uses).
	timers map[classic.Timer]classic.Millis

	members map[string]*classicMember
	order   []string
	calls   []*classicCall
	byNode  map[string]*classicCall
	nodes   int
	step    int
	// names maps each side's member ids to member names.
	kNames, oNames map[string]string

	diffs []diff
	// requests counts the group requests sent to both sides, describes
	// the state comparisons (a DescribeGroups and our core's Describe).
	requests, describes int
	// probe marks the next request sent as a probe (classicCall.probe).
	probe bool
	// stopped is set when the sequence diverged in a way that is the
	// protocol's freedom (two leaders chosen differently): later answers
	// would differ for that reason alone.
	stopped string
}

func newClassicRun(ctx context.Context, t harnessT, f *fake, group string, names ...string) *classicRun {
	return newClassicRunFaults(ctx, t, f, group, 0, names...)
}

// newClassicRunFaults is newClassicRun with fault switches on our core
// (for the test that shows the harness catches a broken coordinator).
func newClassicRunFaults(ctx context.Context, t harnessT, f *fake, group string, faults classic.Faults, names ...string) *classicRun {
	core, err := classic.NewCoordinator(classic.CoordinatorConfig{GroupID: group, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	r := &classicRun{
		t: t, ctx: ctx, f: f, group: group, core: core, start: time.Now(),
		timers:  map[classic.Timer]classic.Millis{},
		members: map[string]*classicMember{}, byNode: map[string]*classicCall{},
		kNames: map[string]string{}, oNames: map[string]string{},
	}
	for _, n := range names {
		m := &classicMember{name: n, wire: newWireClient(f.addr, "client-"+n), meta: 1, k: classicView{gen: -1}, o: classicView{gen: -1}}
		r.members[n] = m
		r.order = append(r.order, n)
		t.Cleanup(m.wire.closeAll)
	}
	return r
}

func (r *classicRun) now() classic.Millis { return classic.Millis(time.Since(r.start).Milliseconds()) }

// stepCore steps our coordinator and routes its answers to the calls.
func (r *classicRun) stepCore(ev node.Event) {
	out := r.core.Step(node.Input{Now: r.now(), Event: ev})
	for _, e := range out.Messages {
		c, ok := r.byNode[e.To]
		if !ok {
			r.t.Fatalf("core answered %s, which nobody waits for: %s", e.To, e.Msg)
		}
		switch m := e.Msg.(type) {
		case classic.LeaveGroupResponse:
			c.oLeave = append(c.oLeave, m)
			c.oDone = true
		default:
			if c.oDone {
				r.t.Fatalf("core answered %s twice", e.To)
			}
			c.oResp, c.oDone = m, true
		}
	}
	for _, tc := range out.Timers {
		if tc.Cancel {
			delete(r.timers, tc.Timer)
		} else {
			r.timers[tc.Timer] = tc.At
		}
	}
	if err := r.core.CheckInvariants(); err != nil {
		r.t.Fatalf("our classic coordinator broke an invariant: %v", err)
	}
}

// fireDue fires the core's timers that are due (none, unless a sequence
// waits past a timeout).
func (r *classicRun) fireDue() {
	now := r.now()
	for _, tm := range slices.SortedFunc(maps.Keys(r.timers), func(a, b classic.Timer) int { return strings.Compare(a.String(), b.String()) }) {
		if r.timers[tm] <= now {
			delete(r.timers, tm)
			r.stepCore(classic.TimerFired{Timer: tm})
		}
	}
}

func (r *classicRun) kName(id string) string { return name(r.kNames, id) }
func (r *classicRun) oName(id string) string { return name(r.oNames, id) }

func name(m map[string]string, id string) string {
	if id == "" {
		return `""`
	}
	if n, ok := m[id]; ok {
		return n
	}
	return "unknown-id"
}

// side is what a request builder knows of the side it builds for.
type side struct {
	kfake bool
	// name maps the side's member ids to member names.
	name func(id string) string
}

// send sends the same request to both sides: build makes it from the
// member's view on each side.
func (r *classicRun) send(member, api string, build func(v classicView, sd side) kmsg.Request) *classicCall {
	r.t.Helper()
	if r.stopped != "" {
		return nil
	}
	m := r.members[member]
	r.step++
	r.requests++
	c := &classicCall{step: r.step, member: member, api: api, kreq: build(m.k, side{kfake: true, name: r.kName}), oreq: build(m.o, side{name: r.oName}), probe: r.probe}
	r.probe = false
	r.calls = append(r.calls, c)
	r.t.Logf("step %d: %s sends %s (kfake: %s, ours: %s)", r.step, member, api, reqText(c.kreq, r.kName), reqText(c.oreq, r.oName))

	// kfake first: wait until its loop took the request, so that the
	// next request is handled after it.
	c.kp = m.wire.send(c.kreq)
	r.f.sent++
	if !r.f.waitSeen(r.ctx, r.f.sent) {
		r.t.Fatalf("step %d: kfake never took %s from %s", r.step, api, member)
	}

	// Then our core, through kwire.
	r.fireDue()
	r.nodes++
	c.node = fmt.Sprintf("r%d", r.nodes)
	r.byNode[c.node] = c
	client := kwire.Client{ID: "client-" + member, Host: "127.0.0.1"}
	switch q := c.oreq.(type) {
	case *kmsg.JoinGroupRequest:
		j, err := kwire.JoinGroupRequestFromKafka(q, client)
		r.must(err)
		r.stepCore(classic.Receive{From: c.node, Msg: j.Request})
	case *kmsg.SyncGroupRequest:
		s, err := kwire.SyncGroupRequestFromKafka(q)
		r.must(err)
		r.stepCore(classic.Receive{From: c.node, Msg: s.Request})
	case *kmsg.HeartbeatRequest:
		h, err := kwire.HeartbeatRequestFromKafka(q)
		r.must(err)
		r.stepCore(classic.Receive{From: c.node, Msg: h.Request})
	case *kmsg.LeaveGroupRequest:
		l, err := kwire.LeaveGroupRequestFromKafka(q)
		r.must(err)
		for _, lm := range l.Members {
			r.stepCore(classic.Receive{From: c.node, Msg: lm})
		}
	default:
		r.t.Fatalf("unexpected request %T", q)
	}
	// The state first: kfake handles the DescribeGroups after the request,
	// so its answers to the request are on their way when the state comes.
	r.compareState()
	r.settle()
	return c
}

// reqText prints a request with member ids as names.
func reqText(q kmsg.Request, nameOf func(string) string) string {
	switch x := q.(type) {
	case *kmsg.JoinGroupRequest:
		return fmt.Sprintf("member=%s protocols=%s", nameOf(x.MemberID), x.Protocols[0].Metadata)
	case *kmsg.SyncGroupRequest:
		return fmt.Sprintf("member=%s gen=%d assignments=%d", nameOf(x.MemberID), x.Generation, len(x.GroupAssignment))
	case *kmsg.HeartbeatRequest:
		return fmt.Sprintf("member=%s gen=%d", nameOf(x.MemberID), x.Generation)
	case *kmsg.LeaveGroupRequest:
		return fmt.Sprintf("member=%s", nameOf(x.Members[0].MemberID))
	}
	return fmt.Sprintf("%T", q)
}

func (r *classicRun) must(err error) {
	r.t.Helper()
	if err != nil {
		r.t.Fatal(err)
	}
}

// settle collects the answers: every call our core answered must be
// answered by kfake (waited for); a call our core still parks is checked
// after a short grace for an answer kfake gave anyway.
func (r *classicRun) settle() {
	graced := false
	for _, c := range r.calls {
		if c.done {
			continue
		}
		switch {
		case c.oDone:
			c.kDone = c.kp.wait(answerWait)
		case c.step == r.step:
			// Sent in this step and parked on our side: kfake's answer,
			// if it gave one, is on its way.
			if !graced {
				time.Sleep(settle)
				graced = true
			}
			c.kDone = c.kp.answered()
		default:
			// Parked on both sides since an earlier step.
			c.kDone = c.kp.answered()
		}
		switch {
		case c.oDone && c.kDone:
			c.done = true
			r.compare(c)
			r.t.Logf("step %d %s %s: kfake %s; ours %s", c.step, c.member, c.api, r.kfakeSummary(c), r.oursSummary(c))
		case c.kDone: // kfake answered, ours parks
			c.done = true
			r.diff(c, "answered", "answered "+r.kfakeSummary(c), "parked")
		case c.oDone && c.kp.err == nil:
			c.done = true
			r.diff(c, "answered", "parked", "answered "+r.oursSummary(c))
		}
	}
}

// finish gives the calls still parked on our side a last chance on kfake's.
func (r *classicRun) finish() {
	time.Sleep(2 * settle)
	r.settle()
}

func (r *classicRun) kfakeSummary(c *classicCall) string {
	if c.kp.err != nil {
		return "connection error " + c.kp.err.Error()
	}
	return fmt.Sprintf("%s error=%s", c.api, errName(respCode(c.kp.resp)))
}

func (r *classicRun) oursSummary(c *classicCall) string {
	if c.oResp != nil {
		return c.oResp.String()
	}
	return fmt.Sprint(c.oLeave)
}

func respCode(resp kmsg.Response) int16 {
	switch x := resp.(type) {
	case *kmsg.JoinGroupResponse:
		return x.ErrorCode
	case *kmsg.SyncGroupResponse:
		return x.ErrorCode
	case *kmsg.HeartbeatResponse:
		return x.ErrorCode
	case *kmsg.LeaveGroupResponse:
		return x.ErrorCode
	case *kmsg.ConsumerGroupHeartbeatResponse:
		return x.ErrorCode
	}
	return -2
}

func errName(code int16) string { return spec.ErrorCode(code).String() }

func (r *classicRun) diff(c *classicCall, field, k, o string) {
	r.diffs = append(r.diffs, diff{API: c.api, Field: field, Kfake: k, Ours: o, Group: r.group, Step: r.step,
		Where: fmt.Sprintf("%s step %d (%s)", r.group, c.step, c.member)})
}

// compare compares the answers to c, and updates the member's views.
func (r *classicRun) compare(c *classicCall) {
	if c.kp.err != nil {
		r.diff(c, "answered", "connection error: "+c.kp.err.Error(), "answered "+r.oursSummary(c))
		return
	}
	m := r.members[c.member]
	check := func(field, k, o string) {
		if k != o {
			r.diff(c, field, k, o)
		}
	}
	// A client whose member id is unknown, or who left, starts over
	// without one.
	defer func() {
		if c.probe {
			return
		}
		kc := respCode(c.kp.resp)
		if lr, ok := c.kp.resp.(*kmsg.LeaveGroupResponse); ok && len(lr.Members) == 1 {
			kc = lr.Members[0].ErrorCode
		}
		if spec.ErrorCode(kc) == spec.UnknownMemberID || (c.api == "LeaveGroup" && kc == 0) {
			m.k = classicView{gen: -1}
		}
		oc := spec.None
		switch o := c.oResp.(type) {
		case classic.JoinGroupResponse:
			oc = o.Error
		case classic.SyncGroupResponse:
			oc = o.Error
		case classic.HeartbeatResponse:
			oc = o.Error
		}
		if len(c.oLeave) == 1 {
			oc = c.oLeave[0].Error
		}
		if oc == spec.UnknownMemberID || (c.api == "LeaveGroup" && oc == spec.None) {
			m.o = classicView{gen: -1}
		}
	}()
	switch kr := c.kp.resp.(type) {
	case *kmsg.JoinGroupResponse:
		o := c.oResp.(classic.JoinGroupResponse)
		ke, oe := errName(kr.ErrorCode), o.Error.String()
		check("error", ke, oe)
		if ke != oe {
			return
		}
		switch o.Error {
		case spec.MemberIDRequired:
			r.bind(m, kr.MemberID, string(o.MemberID))
		case spec.None:
			r.bind(m, kr.MemberID, string(o.MemberID))
			check("generation", fmt.Sprint(kr.Generation), fmt.Sprint(o.Generation))
			check("protocol", deref(kr.Protocol), o.ProtocolName)
			check("protocolType", deref(kr.ProtocolType), o.ProtocolType)
			check("skipAssignment", fmt.Sprint(kr.SkipAssignment), fmt.Sprint(o.SkipAssignment))
			kl, ol := r.kName(kr.LeaderID), r.oName(string(o.Leader))
			if kl != ol {
				// Which member leads a new generation whose old leader
				// is gone is the coordinator's choice (Kafka: the first
				// member in its map; kfake: the last in Go's map order;
				// ours: the first to arrive). Later answers would differ
				// for that reason alone, so the sequence stops here.
				r.stopped = fmt.Sprintf("step %d: leaders differ (kfake %s, ours %s)", c.step, kl, ol)
			}
			var km, om []string
			for _, x := range kr.Members {
				km = append(km, r.kName(x.MemberID)+"/"+deref(x.InstanceID)+"="+string(x.ProtocolMetadata))
			}
			for _, x := range o.Members {
				om = append(om, r.oName(string(x.MemberID))+"/"+x.InstanceID+"="+string(x.Metadata))
			}
			sort.Strings(km)
			sort.Strings(om)
			if kl == ol {
				check("members", strings.Join(km, ","), strings.Join(om, ","))
			}
			m.k = classicView{id: kr.MemberID, gen: kr.Generation, leader: kr.LeaderID}
			for _, x := range kr.Members {
				m.k.members = append(m.k.members, x.MemberID)
			}
			m.o = classicView{id: string(o.MemberID), gen: int32(o.Generation), leader: string(o.Leader)}
			for _, x := range o.Members {
				m.o.members = append(m.o.members, string(x.MemberID))
			}
		}
	case *kmsg.SyncGroupResponse:
		o := c.oResp.(classic.SyncGroupResponse)
		ke, oe := errName(kr.ErrorCode), o.Error.String()
		check("error", ke, oe)
		if ke == oe && o.Error == spec.None {
			check("assignment", assignmentText(kr.MemberAssignment), assignmentText([]byte(o.Assignment)))
			check("protocol", deref(kr.Protocol), o.ProtocolName)
		}
	case *kmsg.HeartbeatResponse:
		o := c.oResp.(classic.HeartbeatResponse)
		check("error", errName(kr.ErrorCode), o.Error.String())
	case *kmsg.LeaveGroupResponse:
		var ke, oe []string
		ke = append(ke, "top="+errName(kr.ErrorCode))
		oe = append(oe, "top="+spec.None.String())
		for _, x := range kr.Members {
			ke = append(ke, errName(x.ErrorCode))
		}
		for _, x := range c.oLeave {
			oe = append(oe, x.Error.String())
		}
		check("error", strings.Join(ke, ","), strings.Join(oe, ","))
	}
}

// bind records that member m is called kid on kfake and oid on ours.
func (r *classicRun) bind(m *classicMember, kid, oid string) {
	if kid != "" {
		r.kNames[kid] = m.name
		m.k.id = kid
	}
	if oid != "" {
		r.oNames[oid] = m.name
		m.o.id = oid
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// assignmentText prints assignment bytes; kfake's pre-serialized empty
// consumer assignment is named.
func assignmentText(b []byte) string {
	if len(b) == 0 {
		return `""`
	}
	var a kmsg.ConsumerMemberAssignment
	if a.ReadFrom(b) == nil && len(a.Topics) == 0 && len(a.UserData) == 0 && len(b) == len(new(kmsg.ConsumerMemberAssignment).AppendTo(nil)) {
		return "empty ConsumerMemberAssignment"
	}
	return fmt.Sprintf("%q", b)
}

// compareState compares the group as kfake's DescribeGroups shows it with
// our core: state and member names, and in Stable the protocol and every
// member's assignment (the ownership that results).
func (r *classicRun) compareState() {
	if r.stopped != "" {
		return
	}
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Version = 5
	req.Groups = []string{r.group}
	ctx, cancel := context.WithTimeout(r.ctx, requestWait)
	defer cancel()
	w := r.members[r.order[0]].wire
	r.f.sent++
	resp, err := w.request(ctx, req)
	if err != nil {
		r.t.Fatalf("DescribeGroups: %v", err)
	}
	r.describes++
	g := resp.(*kmsg.DescribeGroupsResponse).Groups[0]
	d := r.core.Describe()
	where := fmt.Sprintf("%s after step %d", r.group, r.step)
	add := func(field, k, o string) {
		if k != o {
			r.diffs = append(r.diffs, diff{API: "DescribeGroups", Field: field, Kfake: k, Ours: o, Where: where, Group: r.group, Step: r.step, State: true})
		}
	}
	add("state", g.State, d.State.String())
	var km, om []string
	for _, m := range g.Members {
		km = append(km, r.kName(m.MemberID))
	}
	for _, m := range d.Members {
		om = append(om, r.oName(string(m.ID)))
	}
	sort.Strings(km)
	sort.Strings(om)
	add("members", strings.Join(km, ","), strings.Join(om, ","))
	if g.State == "Stable" && d.State == classic.GroupStable {
		add("protocol", g.Protocol, d.Protocol)
		var ka, oa []string
		for _, m := range g.Members {
			ka = append(ka, r.kName(m.MemberID)+":"+assignmentText(m.MemberAssignment))
		}
		for _, m := range d.Members {
			oa = append(oa, r.oName(string(m.ID))+":"+assignmentText([]byte(m.Assignment)))
		}
		sort.Strings(ka)
		sort.Strings(oa)
		add("assignments", strings.Join(ka, " "), strings.Join(oa, " "))
	}
}

// The requests, built from a member's view on one side.

func (r *classicRun) join(member string) *classicCall {
	return r.joinWith(member, classicProtocolType, classicProtocol)
}

// joinOther joins under another protocol type (its protocol is named
// after it).
func (r *classicRun) joinOther(member, protocolType string) *classicCall {
	return r.joinWith(member, protocolType, protocolType)
}

func (r *classicRun) joinWith(member, protocolType, protocol string) *classicCall {
	m := r.members[member]
	return r.send(member, "JoinGroup", func(v classicView, sd side) kmsg.Request {
		q := kmsg.NewPtrJoinGroupRequest()
		q.Version = 9
		q.Group = r.group
		q.SessionTimeoutMillis = sessionTimeoutMs
		q.RebalanceTimeoutMillis = rebalanceTimeoutMs
		q.MemberID = v.id
		q.InstanceID = m.instancePtr()
		q.ProtocolType = protocolType
		p := kmsg.NewJoinGroupRequestProtocol()
		p.Name = protocol
		p.Metadata = fmt.Appendf(nil, "subscription-v%d", m.meta)
		q.Protocols = append(q.Protocols, p)
		return q
	})
}

// sync sends the member's SyncGroup; a leader assigns "<member>@<gen>" to
// every member it was told of.
func (r *classicRun) sync(member string) *classicCall { return r.syncWith(member, nil, nil) }

// syncOmit is sync with the members in omit left out of the leader's
// assignments.
func (r *classicRun) syncOmit(member string, omit ...string) *classicCall {
	return r.syncWith(member, omit, nil)
}

// syncEmpty is sync with an empty assignment (zero bytes) for the members
// in empty.
func (r *classicRun) syncEmpty(member string, empty ...string) *classicCall {
	return r.syncWith(member, nil, empty)
}

func (r *classicRun) syncWith(member string, omit, empty []string) *classicCall {
	return r.send(member, "SyncGroup", func(v classicView, sd side) kmsg.Request {
		q := kmsg.NewPtrSyncGroupRequest()
		q.Version = 5
		q.Group = r.group
		q.Generation = v.gen
		q.MemberID = v.id
		q.InstanceID = r.members[member].instancePtr()
		q.ProtocolType = kmsg.StringPtr(classicProtocolType)
		q.Protocol = kmsg.StringPtr(classicProtocol)
		if v.leader == v.id && v.id != "" {
			for _, id := range v.members {
				n := sd.name(id)
				if slices.Contains(omit, n) {
					continue
				}
				a := kmsg.NewSyncGroupRequestGroupAssignment()
				a.MemberID = id
				a.MemberAssignment = []byte{}
				if !slices.Contains(empty, n) {
					a.MemberAssignment = fmt.Appendf(nil, "%s@%d", n, v.gen)
				}
				q.GroupAssignment = append(q.GroupAssignment, a)
			}
		}
		return q
	})
}

func (r *classicRun) heartbeat(member string, genDelta int32) *classicCall {
	return r.send(member, "Heartbeat", func(v classicView, sd side) kmsg.Request {
		q := kmsg.NewPtrHeartbeatRequest()
		q.Version = 4
		q.Group = r.group
		q.Generation = v.gen + genDelta
		q.MemberID = v.id
		q.InstanceID = r.members[member].instancePtr()
		return q
	})
}

// static makes member a static member with the given instance id.
func (r *classicRun) static(member, instance string) { r.members[member].instance = instance }

func (m *classicMember) instancePtr() *string {
	if m.instance == "" {
		return nil
	}
	return kmsg.StringPtr(m.instance)
}

// restart is a static member's process starting again: it forgets its
// member id and joins with its instance id (KIP-345); what it knew before
// is kept for heartbeatOld.
func (r *classicRun) restart(member string) *classicCall {
	m := r.members[member]
	m.oldK, m.oldO = m.k, m.o
	m.k, m.o = classicView{gen: -1}, classicView{gen: -1}
	return r.join(member)
}

// heartbeatOld sends a heartbeat of the static member's previous
// incarnation (its old member id, generation and instance id).
func (r *classicRun) heartbeatOld(member string) *classicCall {
	m := r.members[member]
	r.probe = true
	return r.send(member, "Heartbeat", func(v classicView, sd side) kmsg.Request {
		old := m.oldO
		if sd.kfake {
			old = m.oldK
		}
		q := kmsg.NewPtrHeartbeatRequest()
		q.Version = 4
		q.Group = r.group
		q.Generation = old.gen
		q.MemberID = old.id
		q.InstanceID = m.instancePtr()
		return q
	})
}

// heartbeatAs sends a heartbeat with a member id nobody has.
func (r *classicRun) heartbeatAs(member, id string) *classicCall {
	r.probe = true
	return r.send(member, "Heartbeat", func(v classicView, sd side) kmsg.Request {
		q := kmsg.NewPtrHeartbeatRequest()
		q.Version = 4
		q.Group = r.group
		q.Generation = v.gen
		q.MemberID = id
		return q
	})
}

func (r *classicRun) leave(member string) *classicCall {
	return r.send(member, "LeaveGroup", func(v classicView, sd side) kmsg.Request {
		q := kmsg.NewPtrLeaveGroupRequest()
		q.Version = 5
		q.Group = r.group
		lm := kmsg.NewLeaveGroupRequestMember()
		lm.MemberID = v.id
		lm.InstanceID = r.members[member].instancePtr()
		q.Members = append(q.Members, lm)
		return q
	})
}

// joinAll brings members into the group: each gets its id
// (MEMBER_ID_REQUIRED), then all join with it; the first to join leads.
func (r *classicRun) joinAll(members ...string) {
	for _, m := range members {
		r.join(m)
	}
	for _, m := range members {
		r.join(m)
	}
}
