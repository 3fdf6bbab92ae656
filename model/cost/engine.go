package cost

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/sim"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// Run runs cfg's protocol through its workload and returns what it cost,
// or an error when cfg makes no sense (see Config) or a core rejects its
// configuration. The same cfg gives the same Result.
func Run(cfg Config) (Result, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return Result{}, err
	}
	if cfg.Protocol == "nextgen" {
		return run[nextgen.Message, nextgen.Timer, nextgen.Callback](cfg, nextgenFamily{t: cfg.Timing})
	}
	f, err := newClassicFamily(cfg.Protocol, cfg.Timing, cfg.MaxMovesPerRound)
	if err != nil {
		return Result{}, err
	}
	return run[classic.Message, classic.Timer, classic.Callback](cfg, f)
}

// status is where a member process is.
type status uint8

const (
	down   status = iota // not started, or stopped (restarting, crashed)
	up                   // running
	paused               // stopped in place, keeping its state
	gone                 // left the group for good
)

// action is a workload step.
type action uint8

const (
	actStop     action = iota + 1 // rolling restart: shut arg down
	actStart                      // start arg again
	actCap                        // rolling restart: stop waiting for arg
	actCrash                      // crash arg
	actPause                      // pause arg
	actResume                     // resume arg
	actScaleOut                   // start Count new members
	actScaleIn                    // make the last Count members leave
	actResub                      // change subscriptions
	actGrow                       // add partitions
)

// timerEntry is one armed timer of one node: its deadline, and the firing
// event the queue holds for it (at most one at a time).
type timerEntry struct {
	at      node.Millis
	pending node.Millis
	// fired is the node.TimerFired of this entry's timer, boxed at its
	// first firing and handed to every later one: an entry outlives its
	// firings (due), and a member's heartbeat timer fires every interval.
	// Nil until the first firing.
	fired      node.Event
	armed      bool
	hasPending bool
}

// proc is one member process: a name and configuration that survive
// restarts, a node that does not.
type proc[M fmt.Stringer, T sim.Timer, C fmt.Stringer] struct {
	ix       int32
	name     string
	instance string
	topics   []string
	node     memberNode[M, T, C]
	inc      int32
	addr     string
	st       status
	// stopping: told to leave; it goes down once its member is done.
	// leaving: and it does not come back (scale-in).
	stopping, leaving bool
	timers            timerTable[T] // by value: see timerTable
	held              []event[M, T]
	// busyUntil is when the application finishes the revocations it was
	// handed; revEpoch invalidates pending revocation completions (a
	// member that lost what it was revoking forgets them).
	busyUntil node.Millis
	revEpoch  int32
	unsettled bool
	// keepingAlive: an evKeepAlive of this incarnation is queued.
	keepingAlive bool
}

// engine is one run of one family's nodes in simulated time.
type engine[M fmt.Stringer, T sim.Timer, C fmt.Stringer] struct {
	cfg      Config
	fam      family[M, T, C]
	blocking bool // revocations block the member's sends (classic)
	coord    coordNode[M, T, C]
	ctimers  timerTable[T]
	procs    []*proc[M, T, C]
	addrs    map[string][2]int32 // node address -> process, incarnation
	topics   spec.Topics
	tr       *tracker
	q        queue[M, T]
	// out is every step's output, the coordinator's and the members':
	// each step's is performed before the next step, so one Output's
	// arrays serve them all (StepInto).
	out node.Output[M, T, C]
	now node.Millis

	notSettled                   int
	rounds, heartbeats, messages int
	maxLive                      int
	rng                          *rand.Rand

	// The run's stages: bringing the group up, then the workload, then
	// draining until quiet.
	stage       int
	quietSince  node.Millis // -1: not converged
	workStart   node.Millis
	rolling     int // rolling restart: the member restarted last (index), -1 none
	waiting     bool
	victim      int
	lowerBound  int
	convergedAt node.Millis
}

const (
	stageBringUp = iota
	stageWork
	stageDrain
)

func run[M fmt.Stringer, T sim.Timer, C fmt.Stringer](cfg Config, f family[M, T, C]) (Result, error) {
	// Revocations block a member whose family has no event to tell it
	// they are done (revocationDone's contract).
	blocking := f.revocationDone(nil) == nil
	e := &engine[M, T, C]{cfg: cfg, fam: f, blocking: blocking, addrs: map[string][2]int32{}, quietSince: -1, rolling: -1}
	e.rng = rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	var names []string
	e.topics, names = spec.NumberedTopics(topicFormat, cfg.Topics, int32(cfg.Partitions))
	stride := int32(cfg.Partitions)
	if cfg.Workload.Kind == AddPartitions {
		stride += int32(cfg.Workload.Count)
	}
	e.tr = newTracker(names, int32(cfg.Partitions), stride, cfg.KeepOwnership)
	c, err := f.newCoordinator(cfg, e.topics)
	if err != nil {
		return Result{}, err
	}
	e.coord = c
	for i := 1; i <= cfg.Members; i++ {
		e.addProc(memberName(i), names)
	}
	e.victim = e.rng.IntN(cfg.Members)
	if w := cfg.Workload.Member; w != "" {
		e.victim, _ = strconv.Atoi(strings.TrimPrefix(w, "m"))
		e.victim--
	}
	e.updateSubscribed()
	for _, p := range e.procs {
		if err := e.start(p); err != nil {
			return Result{}, err
		}
	}
	if err := e.loop(); err != nil {
		return Result{}, err
	}
	if free, queued := len(e.q.free), e.q.len(); free+queued != len(e.q.pool) {
		panic(fmt.Sprintf("cost: %d event slots, %d free and %d queued: a popped event's slot was not released", len(e.q.pool), free, queued))
	}
	return e.result(), nil
}

func (e *engine[M, T, C]) addProc(name string, topics []string) *proc[M, T, C] {
	p := &proc[M, T, C]{ix: e.tr.addProcess(name), name: name, topics: slices.Clone(topics)}
	if e.cfg.Static {
		p.instance = name
	}
	e.procs = append(e.procs, p)
	return p
}

// start starts p's next incarnation and tells it to join.
func (e *engine[M, T, C]) start(p *proc[M, T, C]) error {
	n, err := e.fam.newMember(p.name, p.instance, p.topics, int(p.inc)+1, e.topics)
	if err != nil {
		return err
	}
	p.inc++
	p.node = n
	p.addr = p.name
	if p.inc > 1 {
		p.addr = fmt.Sprintf("%s@%d", p.name, p.inc)
	}
	e.addrs[p.addr] = [2]int32{p.ix, p.inc}
	p.st = up
	p.stopping = false
	p.timers = timerTable[T]{}
	p.held = nil
	p.busyUntil = e.now
	p.revEpoch++
	p.keepingAlive = false
	e.tr.setRunning(p.ix, true)
	e.countLive()
	e.stepMember(p, node.Start{})
	return nil
}

// goDown takes p's node away: what it holds is gone with it.
func (e *engine[M, T, C]) goDown(p *proc[M, T, C]) {
	e.tr.setRunning(p.ix, false)
	e.tr.dropAll(p.ix)
	if p.unsettled {
		e.notSettled--
		p.unsettled = false
	}
	p.node = nil
	p.timers = timerTable[T]{}
	p.held = nil
	p.st = down
	if p.leaving {
		p.st = gone
		e.updateSubscribed()
	}
	p.stopping = false
	e.countLive()
}

func (e *engine[M, T, C]) countLive() {
	n := 0
	for _, p := range e.procs {
		if p.st == up || p.st == paused {
			n++
		}
	}
	e.maxLive = max(e.maxLive, n)
}

// updateSubscribed recomputes which topics some member of the group (not
// gone) subscribes to.
func (e *engine[M, T, C]) updateSubscribed() {
	sub := make([]bool, len(e.tr.topics))
	for _, p := range e.procs {
		if p.st == gone || p.leaving {
			continue
		}
		for _, t := range p.topics {
			if ti, ok := e.tr.topicIx[t]; ok {
				sub[ti] = true
			}
		}
	}
	for ti, s := range sub {
		e.tr.setSubscribed(int32(ti), s)
	}
	e.tr.sample()
}

// converged reports whether every subscribed resource is held by exactly
// one running member and no rebalance is in progress.
func (e *engine[M, T, C]) converged() bool {
	return e.tr.bad == 0 && e.notSettled == 0 && e.coord.Stable()
}

// loop runs events until the run ends.
func (e *engine[M, T, C]) loop() error {
	for {
		if e.q.len() == 0 {
			if e.anyLive() {
				return fmt.Errorf("cost: the event queue ran dry at %d (a core armed no timer)", e.now)
			}
			// Every member has stopped for good (a fatal error, or left)
			// and the coordinator waits for nothing: nothing happens again,
			// as in a run that has not converged by its horizon (a static
			// next-gen member killed before it left is refused its instance
			// id when it restarts: UNRELEASED_INSTANCE_ID, fatal).
			e.stopAt(e.cfg.Horizon)
			return nil
		}
		next := e.q.peek()
		if e.quietSince >= 0 && e.stage != stageWork && next > e.quietSince+e.cfg.Margin {
			at := e.quietSince + e.cfg.Margin
			if at > e.cfg.Horizon {
				e.stopAt(e.cfg.Horizon)
				return nil
			}
			if e.stage == stageDrain {
				e.stopAt(at)
				return nil
			}
			e.setNow(at)
			e.beginWorkload()
			continue
		}
		if next > e.cfg.Horizon {
			e.stopAt(e.cfg.Horizon)
			return nil
		}
		// The event stays in its slot while it runs. A push while it
		// runs may move the pool (append), leaving ev in the array it
		// left: its slot is not free, so nothing writes it there or
		// here, and ev reads the same event.
		slot := e.q.popSlot()
		ev := &e.q.pool[slot]
		e.setNow(ev.at)
		err := e.dispatch(ev)
		e.q.release(slot)
		if err != nil {
			return err
		}
		e.afterEvent()
	}
}

// anyLive reports whether some process runs a member that may still act:
// one not done (core.Phase.Done: failed or left).
func (e *engine[M, T, C]) anyLive() bool {
	for _, p := range e.procs {
		if p.node != nil && !p.node.Phase().Done() {
			return true
		}
	}
	return false
}

func (e *engine[M, T, C]) setNow(at node.Millis) {
	e.now = at
	e.tr.advance(at)
}

func (e *engine[M, T, C]) stopAt(at node.Millis) {
	if at > e.now {
		e.setNow(at)
	}
	if e.stage == stageBringUp {
		// The group never settled: the workload starts (and ends) here.
		e.workStart = e.now
		e.tr.begin()
	}
	e.tr.finish()
}

// afterEvent follows convergence: the quiet margins of the bring-up and
// the drain, and the rolling restart's wait.
func (e *engine[M, T, C]) afterEvent() {
	conv := e.converged()
	if e.tr.started && e.tr.lastChange == e.now && e.tr.bad == 0 {
		e.convergedAt = e.now
	}
	switch {
	case !conv:
		e.quietSince = -1
	case e.quietSince < 0:
		e.quietSince = e.now
	}
	if conv && e.stage == stageWork && e.waiting {
		e.waiting = false
		e.nextRestart()
	}
}

// dispatch runs one event; it does not write *ev.
func (e *engine[M, T, C]) dispatch(ev *event[M, T]) error {
	if ev.kind == evAction {
		return e.act(ev.act, int(ev.proc))
	}
	if ev.proc < 0 {
		switch ev.kind {
		case evDeliver:
			e.stepCoordinator(node.Receive[M]{From: ev.from, Msg: ev.msg}, ev.from, ev.sender)
		case evTimer:
			if fired := e.due(&e.ctimers, ev, -1, 0); fired != nil {
				e.stepCoordinator(fired, "", [2]int32{})
			}
		}
		return nil
	}
	p := e.procs[ev.proc]
	if p.node == nil || p.inc != ev.inc {
		return nil // the incarnation is gone: the message or timer is lost
	}
	var in node.Event
	switch ev.kind {
	case evDeliver:
		in = node.Receive[M]{From: node.CoordinatorNode, Msg: ev.msg}
	case evTimer:
		if in = e.due(&p.timers, ev, ev.proc, ev.inc); in == nil {
			return nil
		}
	case evHeldTimer:
		in = node.TimerFired[T]{Timer: ev.timer}
	case evRevoked:
		if ev.token != p.revEpoch {
			return nil
		}
		in = e.fam.revocationDone(ev.set)
	}
	if p.st == paused {
		held := *ev
		if held.kind == evTimer {
			held.kind = evHeldTimer // it fired: it runs when resumed
		}
		p.held = append(p.held, held)
		return nil
	}
	if ev.kind == evKeepAlive {
		e.keepAlive(p)
		return nil
	}
	e.stepMember(p, in)
	return nil
}

// keepAlive is p's heartbeat thread while its application revokes
// (blocking families): Kafka's consumer calls onPartitionsRevoked on its
// polling thread, before it sends the JoinGroup (onJoinPrepare) or after
// the SyncGroup (onJoinComplete), still a member of the group, and its
// heartbeat thread keeps the session alive meanwhile; only the rebalance
// timeout (max.poll.interval.ms) bounds the callback. The core has sent
// its JoinGroup already and is joining, so it heartbeats no more: the
// engine sends the family's keepAlive every heartbeat interval until the
// application is done. A member that leaves sends none: its process goes
// down at the leave (stepMember), its LeaveGroup held back until the
// revocations are done, as Kafka's consumer closes its heartbeat thread
// before onLeavePrepare revokes (AbstractCoordinator.close).
func (e *engine[M, T, C]) keepAlive(p *proc[M, T, C]) {
	p.keepingAlive = false
	if e.now >= p.busyUntil {
		return
	}
	if msg, ok := e.fam.keepAlive(p.node, p.instance); ok {
		if e.cfg.trace != nil {
			e.tracef("%s: heartbeat thread sends %s", p.addr, msg)
		}
		e.sendToCoordinator(p, msg, e.now)
	}
	e.scheduleKeepAlive(p)
}

// sendToCoordinator sends msg from p at sendAt (it arrives a latency
// later), counting it, and counting it as a heartbeat if it is one.
func (e *engine[M, T, C]) sendToCoordinator(p *proc[M, T, C], msg M, sendAt node.Millis) {
	e.count(&e.messages)
	if e.fam.isHeartbeat(msg) {
		e.count(&e.heartbeats)
	}
	e.q.push(event[M, T]{at: sendAt + e.cfg.Timing.Latency, kind: evDeliver, proc: -1, from: p.addr, sender: [2]int32{p.ix, p.inc}, msg: msg})
}

// scheduleKeepAlive queues p's next keepAlive a heartbeat interval from
// now, unless one is queued or the application is done by then.
func (e *engine[M, T, C]) scheduleKeepAlive(p *proc[M, T, C]) {
	at := e.now + e.cfg.Timing.Heartbeat
	if p.keepingAlive || at >= p.busyUntil {
		return
	}
	p.keepingAlive = true
	e.q.push(event[M, T]{at: at, kind: evKeepAlive, proc: p.ix, inc: p.inc})
}

// due returns the node.TimerFired event of a timer firing that is the
// one the node armed, nil for a stale or superseded one, re-queueing it
// when its deadline moved later.
func (e *engine[M, T, C]) due(m *timerTable[T], ev *event[M, T], proc, inc int32) node.Event {
	ent := m.get(ev.timer)
	if ent == nil || !ent.hasPending || ent.pending != ev.at {
		return nil
	}
	ent.hasPending = false
	switch {
	case !ent.armed:
		m.del(ev.timer)
		return nil
	case ent.at > ev.at:
		ent.pending, ent.hasPending = ent.at, true
		e.q.push(event[M, T]{at: ent.at, kind: evTimer, proc: proc, inc: inc, timer: ev.timer})
		return nil
	}
	// Fired: the entry stays, disarmed, for the node to arm again (a
	// member re-arms its heartbeat at every response), without a new one
	// each time. One that is never armed again stays too, a few bytes for
	// each timer a node ever fired.
	ent.armed = false
	if ent.fired == nil {
		ent.fired = node.TimerFired[T]{Timer: ev.timer}
	}
	return ent.fired
}

// setTimers applies a node's timer commands.
func (e *engine[M, T, C]) setTimers(m *timerTable[T], cmds []node.TimerCmd[T], proc, inc int32) {
	for _, tc := range cmds {
		ent := m.get(tc.Timer)
		if tc.Cancel {
			if ent != nil {
				ent.armed = false
			}
			continue
		}
		if ent == nil {
			ent = m.put(tc.Timer)
		}
		ent.armed, ent.at = true, tc.At
		if !ent.hasPending || ent.pending > tc.At {
			ent.pending, ent.hasPending = tc.At, true
			e.q.push(event[M, T]{at: max(tc.At, e.now), kind: evTimer, proc: proc, inc: inc, timer: tc.Timer})
		}
	}
}

// tracef reports a line to Config.trace, when set. The steps call it only
// when it is set: its arguments, boxed, would cost every step an allocation
// or two for nothing.
func (e *engine[M, T, C]) tracef(format string, args ...any) {
	if e.cfg.trace != nil {
		e.cfg.trace(fmt.Sprintf("%d ", e.now) + fmt.Sprintf(format, args...))
	}
}

// stepCoordinator steps the coordinator with ev and performs its output.
// An answer to ev's sender (from; "" for a timer, which no address is)
// goes to sender, the process and incarnation at that address, without
// looking the address up: most of the coordinator's messages answer the
// request it is handling (every heartbeat's).
func (e *engine[M, T, C]) stepCoordinator(ev node.Event, from string, sender [2]int32) {
	if e.cfg.trace != nil {
		e.tracef("coordinator: %s", ev)
	}
	out := &e.out
	e.coord.StepInto(node.Input{Now: e.now, Event: ev}, out)
	for _, env := range out.Messages {
		e.count(&e.messages)
		to, ok := sender, env.To == from
		if !ok {
			if to, ok = e.addrs[env.To]; !ok {
				continue
			}
		}
		e.q.push(event[M, T]{at: e.now + e.cfg.Timing.Latency, kind: evDeliver, proc: to[0], inc: to[1], msg: env.Msg})
	}
	e.setTimers(&e.ctimers, out.Timers, -1, 0)
	if out.Target != nil {
		e.count(&e.rounds)
	}
}

// stepMember steps p's live node and performs its output.
func (e *engine[M, T, C]) stepMember(p *proc[M, T, C], ev node.Event) {
	if e.cfg.trace != nil {
		e.tracef("%s: %s", p.addr, ev)
	}
	out := &e.out
	p.node.StepInto(node.Input{Now: e.now, Event: ev}, out)
	if e.cfg.trace != nil {
		for _, cb := range out.Callbacks {
			e.tracef("%s: callback %s", p.addr, cb)
		}
	}
	cache := newTopicCursor()
	revoked := 0
	for _, cb := range out.Callbacks {
		kind, rs := e.fam.classify(cb)
		switch kind {
		case cbAssigned:
			e.tr.holdSet(rs, p.ix, &cache, true)
		case cbRevoked, cbLost:
			e.tr.holdSet(rs, p.ix, &cache, false)
			if kind == cbLost {
				e.forget(p)
				continue
			}
			revoked += len(rs)
			if !e.blocking {
				// The application revokes after the callback returns and
				// reports each batch done in turn.
				p.busyUntil = max(p.busyUntil, e.now) + node.Millis(len(rs))*e.cfg.Timing.Revocation
				e.q.push(event[M, T]{at: p.busyUntil, kind: evRevoked, proc: p.ix, inc: p.inc, token: p.revEpoch, set: rs})
			}
		case cbFatal:
			e.forget(p)
		}
	}
	sendAt := e.now
	if e.blocking {
		// The callback runs on the polling thread: the member sends
		// nothing until its revocations are done.
		if revoked > 0 {
			p.busyUntil = max(p.busyUntil, e.now) + node.Millis(revoked)*e.cfg.Timing.Revocation
			e.scheduleKeepAlive(p)
		}
		sendAt = max(sendAt, p.busyUntil)
	}
	for _, env := range out.Messages {
		e.sendToCoordinator(p, env.Msg, sendAt)
	}
	e.setTimers(&p.timers, out.Timers, p.ix, p.inc)
	if out.Round != nil || out.RoundFailed {
		e.count(&e.rounds)
	}
	ph := p.node.Phase()
	unsettled := ph != core.Settled && !ph.Done()
	if unsettled != p.unsettled {
		p.unsettled = unsettled
		if unsettled {
			e.notSettled++
		} else {
			e.notSettled--
		}
	}
	e.tr.sample()
	if p.stopping && ph.Done() {
		e.goDown(p)
		e.tr.sample()
	}
}

// count adds one to a counter of the workload's: nothing counts before
// it starts.
func (e *engine[M, T, C]) count(n *int) {
	if e.tr.started {
		*n++
	}
}

// forget drops p's pending revocation completions (its member lost or
// gave up what it was revoking).
func (e *engine[M, T, C]) forget(p *proc[M, T, C]) {
	p.revEpoch++
	if !e.blocking {
		p.busyUntil = e.now
	}
}

// schedule queues a workload action at.
func (e *engine[M, T, C]) schedule(at node.Millis, a action, arg int) {
	e.q.push(event[M, T]{at: at, kind: evAction, act: a, proc: int32(arg)})
}

// beginWorkload starts the workload at the current time.
func (e *engine[M, T, C]) beginWorkload() {
	e.stage = stageWork
	e.quietSince = -1
	e.workStart = e.now
	e.lowerBound = e.movesLowerBound()
	e.tr.begin()
	e.convergedAt = e.now
	w := e.cfg.Workload
	switch w.Kind {
	case RollingRestart:
		e.nextRestart()
	case ScaleOut:
		e.schedule(e.now, actScaleOut, 0)
	case ScaleIn:
		e.schedule(e.now, actScaleIn, 0)
	case Crash:
		e.schedule(e.now, actCrash, e.victim)
	case Pause:
		e.schedule(e.now, actPause, e.victim)
		e.schedule(e.now+w.Pause, actResume, e.victim)
	case Resubscribe:
		e.schedule(e.now, actResub, 0)
	case AddPartitions:
		e.schedule(e.now, actGrow, 0)
	}
}

// nextRestart stops the next member of a rolling restart, or ends the
// workload after the last.
func (e *engine[M, T, C]) nextRestart() {
	e.rolling++
	if e.rolling >= len(e.procs) {
		e.stage = stageDrain
		return
	}
	e.schedule(e.now, actStop, e.rolling)
}

// act runs a workload action.
func (e *engine[M, T, C]) act(a action, arg int) error {
	w := e.cfg.Workload
	e.tracef("action %d %d", a, arg)
	switch a {
	case actStop:
		p := e.procs[arg]
		e.leave(p)
		e.schedule(e.now+e.cfg.Timing.Restart, actStart, arg)
	case actStart:
		p := e.procs[arg]
		if p.node != nil {
			// Still shutting down after Restart: it is killed.
			e.goDown(p)
		}
		if err := e.start(p); err != nil {
			return err
		}
		e.waiting = true
		e.schedule(e.now+w.Wait, actCap, arg)
	case actCap:
		if e.waiting && e.rolling == arg {
			e.waiting = false
			e.nextRestart()
		}
	case actCrash:
		p := e.procs[arg]
		p.leaving = true
		e.goDown(p)
		e.stage = stageDrain
	case actPause:
		p := e.procs[arg]
		p.st = paused
		e.tr.setRunning(p.ix, false)
		e.tr.sample()
	case actResume:
		p := e.procs[arg]
		if p.st == paused {
			p.st = up
			e.tr.setRunning(p.ix, true)
			e.tr.sample()
			held := p.held
			p.held = nil
			for i := range held {
				if err := e.dispatch(&held[i]); err != nil {
					return err
				}
			}
		}
		e.stage = stageDrain
	case actScaleOut:
		for range w.Count {
			p := e.addProc(memberName(len(e.procs)+1), topicNames(e.cfg.Topics))
			if err := e.start(p); err != nil {
				return err
			}
		}
		e.stage = stageDrain
	case actScaleIn:
		for _, p := range e.procs[len(e.procs)-w.Count:] {
			p.leaving = true
			e.leave(p)
		}
		e.updateSubscribed()
		e.stage = stageDrain
	case actResub:
		for _, p := range e.resubscribers() {
			p.topics = slices.Clone(w.Topics)
			if p.node != nil {
				e.stepMember(p, node.Subscribe{Topics: slices.Clone(w.Topics)})
			}
		}
		e.updateSubscribed()
		e.stage = stageDrain
	case actGrow:
		for _, t := range e.topics.Names() {
			e.topics[t] += int32(w.Count)
			e.tr.grow(e.tr.topicIx[t], e.topics[t])
		}
		e.tr.sample()
		md := node.MetadataUpdate{Topics: maps.Clone(e.topics)}
		if e.fam.metadataToCoordinator() {
			e.stepCoordinator(md, "", [2]int32{})
		} else {
			for _, p := range e.procs {
				if p.node != nil && p.st == up {
					e.stepMember(p, node.MetadataUpdate{Topics: maps.Clone(e.topics)})
				}
			}
		}
		e.stage = stageDrain
	}
	return nil
}

// leave shuts p down gracefully: its member leaves (a static one without
// telling the coordinator, where the family says so) and goes down once
// it is done.
func (e *engine[M, T, C]) leave(p *proc[M, T, C]) {
	if p.node == nil {
		return
	}
	p.stopping = true
	e.stepMember(p, node.Leave{})
}

// resubscribers is the members whose subscription changes.
func (e *engine[M, T, C]) resubscribers() []*proc[M, T, C] {
	w := e.cfg.Workload
	if w.Count <= 1 {
		return []*proc[M, T, C]{e.procs[e.victim]}
	}
	return e.procs[:w.Count]
}

// movesLowerBound is the fewest moves any protocol needs for the
// workload's change, from what each member holds when it starts: what
// members that leave (or stop subscribing to its topic) hold must move,
// and so must whatever a remaining member holds beyond its share of a
// balanced assignment afterwards. Balanced is taken in the weaker of the
// two senses the assignors give: loads over all resources differing by
// at most one (sticky, uniform), or loads per topic differing by at most
// one (range); the bound is the smaller of the two counts. Counting only
// loads, it is exact for homogeneous subscriptions and a lower bound
// otherwise.
func (e *engine[M, T, C]) movesLowerBound() int {
	w := e.cfg.Workload
	nt := len(e.tr.topics)
	leaving := map[int]bool{}
	newTopics := map[int][]string{}
	switch w.Kind {
	case ScaleIn:
		for i := len(e.procs) - w.Count; i < len(e.procs); i++ {
			leaving[i] = true
		}
	case Crash:
		leaving[e.victim] = true
	case Resubscribe:
		for _, p := range e.resubscribers() {
			newTopics[int(p.ix)] = w.Topics
		}
	}
	// Per topic: the resources after the change, what must move, and each
	// remaining subscriber's load.
	totals := make([]int, nt)
	departed := make([]int, nt)
	loads := make([][]int, nt)
	for ti := range nt {
		totals[ti] = int(e.tr.parts[ti])
		if w.Kind == AddPartitions {
			totals[ti] += w.Count
		}
	}
	var global []int
	subscribed := make([]bool, nt)
	for i, p := range e.procs {
		topics := p.topics
		if ts, ok := newTopics[i]; ok {
			topics = ts
		}
		byTopic := make([]int, nt)
		for _, ix := range e.tr.holdings(p.ix) {
			byTopic[ix/e.tr.stride]++
		}
		load := 0
		for ti, tp := range e.tr.topics {
			if leaving[i] || !slices.Contains(topics, tp) {
				departed[ti] += byTopic[ti]
				continue
			}
			subscribed[ti] = true
			loads[ti] = append(loads[ti], byTopic[ti])
			load += byTopic[ti]
		}
		if !leaving[i] {
			global = append(global, load)
		}
	}
	if w.Kind == ScaleOut {
		for range w.Count {
			global = append(global, 0)
			for ti := range nt {
				loads[ti] = append(loads[ti], 0)
			}
		}
	}
	total, gone, perTopic := 0, 0, 0
	for ti := range nt {
		if subscribed[ti] {
			gone += departed[ti]
			total += totals[ti]
			perTopic += departed[ti] + excess(loads[ti], totals[ti])
		}
	}
	return min(gone+excess(global, total), perTopic)
}

// excess is the fewest resources members holding counts must give up so
// that total resources can be spread over them with loads differing by at
// most one.
func excess(counts []int, total int) int {
	n := len(counts)
	if n == 0 {
		return 0
	}
	q, r := total/n, total%n
	sum, over := 0, 0
	for _, c := range counts {
		if c > q {
			sum += c - q
			over++
		}
	}
	return sum - min(r, over)
}

// result assembles the Result.
func (e *engine[M, T, C]) result() Result {
	t := e.tr
	converged := e.converged()
	res := Result{
		Protocol: e.cfg.Protocol,
		Workload: e.cfg.Workload.Kind,
		Start:    e.workStart,
		End:      e.now,
		Metrics: Metrics{
			UnavailableResourceSeconds: t.area / 1000,
			LongestOutage:              t.longest,
			OutageResource:             t.longestRes,
			Moves:                      t.moves,
			MovesLowerBound:            e.lowerBound,
			Rounds:                     e.rounds,
			Heartbeats:                 e.heartbeats,
			Messages:                   e.messages,
			Converged:                  converged,
		},
		Unavailable: t.samples,
		Members:     e.maxLive,
	}
	if converged {
		res.Metrics.ConvergedAt = e.convergedAt
	}
	for ti := range t.topics {
		if t.subscribed[ti] {
			res.Resources += int(t.parts[ti])
		}
	}
	if e.cfg.KeepOwnership {
		res.Ownership = t.intervals
	}
	return res
}
