// Package world is the closed world of the classic protocol family: one
// group coordinator, member processes, the messages in flight between them,
// the timers they armed and a clock, driven by explicit actions (deliver,
// drop or duplicate a message, fire a timer, start, crash, restart, leave,
// change subscription). It is deterministic: the same actions on the same
// world give the same world.
//
// The world maps every state to a spec.View and checks the laws: the state
// laws after every action, the step laws across every action, and
// spec.CheckRound on every assignment round a leader sends. Scenario tests,
// the rapid property tests and (later) the model checker drive it.
package world

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/sim"
	"github.com/rebalance-ref/rebalance/spec"
)

// Process is one member process: its configuration, which survives crashes,
// and its node, which does not.
type Process struct {
	Config classic.MemberConfig
	// Node is the live member; nil while the process is down (crashed and
	// not restarted).
	Node *classic.Member
	// Isolated processes lose every message they send or are sent.
	Isolated bool
	// Incarnation counts the process's starts. A restarted process has new
	// connections: responses addressed to an earlier incarnation are lost,
	// as replies on a closed connection are.
	Incarnation int

	// owner is the world that may change this process in place; a fork
	// shares its parent's processes and copies one before changing it.
	owner *World
}

// Address is the node address of the process's current incarnation: its
// name for the first, name@k for the k-th. Members put it in From, the
// coordinator replies to it, and the world loses messages to an address
// whose incarnation has ended.
func (p *Process) Address() string {
	if p.Incarnation <= 1 {
		return p.Config.Name
	}
	return fmt.Sprintf("%s@%d", p.Config.Name, p.Incarnation)
}

// processName returns the process name of a node address.
func processName(addr string) string {
	name, _, _ := strings.Cut(addr, "@")
	return name
}

// PendingTimer is a timer a node armed and the world will fire.
type PendingTimer = sim.Pending[classic.Timer, classic.Millis]

// RoundRecord is one assignment round a leader sent.
type RoundRecord struct {
	Leader     string // process name
	Generation spec.Generation
	Protocol   string
	Round      spec.Round
}

// World is the closed world. Its fields are exported for printers and
// checkers; change it only through its methods.
type World struct {
	Now         classic.Millis
	Topics      spec.Topics
	Coordinator *classic.Coordinator
	// Processes by name.
	Processes map[string]*Process
	// InFlight is the network: messages sent and not yet delivered or
	// lost, in send order.
	InFlight []classic.Envelope
	// Timers are the armed timers, sorted by deadline, node, timer.
	Timers sim.Timers[classic.Timer, classic.Millis]
	// Rounds is every assignment round sent so far.
	Rounds []RoundRecord
	// Violations collects every law violation found so far.
	Violations []spec.Violation
	// Log is the record of what happened, one line per entry, since the
	// last DrainLog.
	Log []string
	// Verbose adds every message sent to the log.
	Verbose bool

	prev spec.View
	// coordinatorOwner is the world that may change Coordinator in place
	// (see Fork).
	coordinatorOwner *World
}

// New returns a world with a coordinator configured by cfg and the given
// topic universe, and no members.
func New(cfg classic.CoordinatorConfig, topics spec.Topics) (*World, error) {
	c, err := classic.NewCoordinator(cfg)
	if err != nil {
		return nil, err
	}
	w := &World{Topics: maps.Clone(topics), Coordinator: c, Processes: map[string]*Process{}}
	w.coordinatorOwner = w
	w.prev = w.View()
	return w, nil
}

// Clone returns a deep copy of w that shares nothing mutable with it.
func (w *World) Clone() *World {
	c := *w
	c.Topics = maps.Clone(w.Topics)
	c.Coordinator = w.Coordinator.Clone()
	c.coordinatorOwner = &c
	c.Processes = make(map[string]*Process, len(w.Processes))
	for n, p := range w.Processes {
		q := *p
		if p.Node != nil {
			q.Node = p.Node.Clone()
		}
		q.owner = &c
		c.Processes[n] = &q
	}
	c.InFlight = slices.Clone(w.InFlight)
	c.Timers = slices.Clone(w.Timers)
	c.Rounds = slices.Clone(w.Rounds)
	c.Violations = slices.Clone(w.Violations)
	c.Log = slices.Clone(w.Log)
	return &c
}

// Fork returns a copy of w that shares the coordinator and the processes
// with w until it changes them: it copies a node the first time it steps
// it. Changing the fork never changes w; but w must not be changed while
// the fork is in use (the model checker forks states it never changes
// again). Fork is Clone without the cost of copying every node.
func (w *World) Fork() *World {
	c := *w // Topics is shared: no world action changes the universe
	c.Processes = maps.Clone(w.Processes)
	c.InFlight = slices.Clone(w.InFlight)
	c.Timers = slices.Clip(w.Timers)
	c.Rounds = slices.Clip(w.Rounds)
	c.Violations = slices.Clip(w.Violations)
	c.Log = slices.Clip(w.Log)
	return &c
}

// own returns the named process, copied first if w shares it with the
// world it was forked from.
func (w *World) own(name string) *Process {
	p := w.Processes[name]
	if p == nil || p.owner == w {
		return p
	}
	q := *p
	if p.Node != nil {
		q.Node = p.Node.Clone()
	}
	q.owner = w
	w.Processes[name] = &q
	return &q
}

// ownCoordinator copies the coordinator if w shares it.
func (w *World) ownCoordinator() {
	if w.coordinatorOwner != w {
		w.Coordinator = w.Coordinator.Clone()
		w.coordinatorOwner = w
	}
}

// Names returns the process names in sorted order.
func (w *World) Names() []string { return slices.Sorted(maps.Keys(w.Processes)) }

// AddMember creates a process from cfg (its name must be new) and starts it.
func (w *World) AddMember(cfg classic.MemberConfig) error {
	if _, ok := w.Processes[cfg.Name]; ok {
		return fmt.Errorf("member %s already exists", cfg.Name)
	}
	if cfg.Name == classic.CoordinatorNode {
		return fmt.Errorf("member name %q is reserved", cfg.Name)
	}
	if cfg.Metadata == nil {
		cfg.Metadata = maps.Clone(w.Topics)
	}
	n, err := classic.NewMember(cfg)
	if err != nil {
		return err
	}
	w.Processes[cfg.Name] = &Process{Config: cfg, Node: n, Incarnation: 1, owner: w}
	w.stepMember(cfg.Name, classic.Start{})
	return nil
}

func (w *World) process(name string) (*Process, error) {
	p, ok := w.Processes[name]
	if !ok {
		return nil, fmt.Errorf("no member %s", name)
	}
	return p, nil
}

func (w *World) live(name string) (*Process, error) {
	p, err := w.process(name)
	if err != nil {
		return nil, err
	}
	if p.Node == nil {
		return nil, fmt.Errorf("member %s is down", name)
	}
	return p, nil
}

// Crash stops a process at once: its state, timers and ownership are gone;
// messages to it will be lost. The coordinator notices only through the
// session timeout.
func (w *World) Crash(name string) error {
	if _, err := w.live(name); err != nil {
		return err
	}
	p := w.own(name)
	p.Node = nil
	w.Timers = w.Timers.DropNode(name)
	w.logf("%s crashed", name)
	w.check()
	return nil
}

// Restart starts a new incarnation of a crashed process with the same
// configuration (so a static member keeps its instance id).
func (w *World) Restart(name string) error {
	p, err := w.process(name)
	if err != nil {
		return err
	}
	if p.Node != nil {
		return fmt.Errorf("member %s is up; crash it first", name)
	}
	n, err := classic.NewMember(p.Config)
	if err != nil {
		return err
	}
	p = w.own(name)
	p.Node = n
	p.Incarnation++
	w.logf("%s restarted", name)
	w.stepMember(name, classic.Start{})
	return nil
}

// Bounce restarts a live process with new protocols, as a rolling bounce
// does: the old incarnation leaves gracefully (a dynamic member sends
// LeaveGroup; a static one leaves silently), then a new incarnation with the
// new configuration starts at once. Empty protocols keep the old ones.
func (w *World) Bounce(name string, protocols []classic.Protocol) error {
	if _, err := w.live(name); err != nil {
		return err
	}
	w.stepMember(name, classic.Leave{})
	p := w.own(name)
	p.Node = nil
	w.Timers = w.Timers.DropNode(name)
	if len(protocols) > 0 {
		p.Config.Protocols = slices.Clone(protocols)
	}
	n, err := classic.NewMember(p.Config)
	if err != nil {
		return err
	}
	p.Node = n
	p.Incarnation++
	w.logf("%s bounced", name)
	w.stepMember(name, classic.Start{})
	return nil
}

// Leave tells a process to leave the group gracefully.
func (w *World) Leave(name string) error { return w.event(name, classic.Leave{}) }

// Subscribe changes a process's subscription.
func (w *World) Subscribe(name string, topics []string) error {
	if _, err := w.live(name); err != nil {
		return err
	}
	p := w.own(name)
	p.Config.Topics = slices.Clone(topics)
	return w.event(name, classic.Subscribe{Topics: slices.Clone(topics)})
}

// RequestRejoin asks a process to rejoin.
func (w *World) RequestRejoin(name, reason string) error {
	return w.event(name, classic.RequestRejoin{Reason: reason})
}

// Isolate makes every message to or from a process lost until Heal.
func (w *World) Isolate(name string, isolated bool) error {
	if _, err := w.process(name); err != nil {
		return err
	}
	w.own(name).Isolated = isolated
	return nil
}

func (w *World) event(name string, e classic.Event) error {
	if _, err := w.live(name); err != nil {
		return err
	}
	w.stepMember(name, e)
	return nil
}

// Deliver delivers the i-th message in flight.
func (w *World) Deliver(i int) error {
	if i < 0 || i >= len(w.InFlight) {
		return fmt.Errorf("no message %d in flight (%d)", i, len(w.InFlight))
	}
	env := w.InFlight[i]
	w.InFlight = slices.Delete(w.InFlight, i, i+1)
	if w.isolated(env.From) || w.isolated(env.To) {
		w.logf("lost %s", env)
		w.check()
		return nil
	}
	in := classic.Receive{From: env.From, Msg: env.Msg}
	if env.To == classic.CoordinatorNode {
		w.stepCoordinator(in)
		return nil
	}
	name := processName(env.To)
	p, ok := w.Processes[name]
	if !ok || p.Node == nil || p.Address() != env.To {
		w.logf("lost %s (%s is gone)", env, env.To)
		w.check()
		return nil
	}
	w.stepMember(name, in)
	return nil
}

// InFlightCount is the number of messages in flight.
func (w *World) InFlightCount() int { return len(w.InFlight) }

// Drop loses the i-th message in flight.
func (w *World) Drop(i int) error {
	if i < 0 || i >= len(w.InFlight) {
		return fmt.Errorf("no message %d in flight (%d)", i, len(w.InFlight))
	}
	w.logf("dropped %s", w.InFlight[i])
	w.InFlight = slices.Delete(w.InFlight, i, i+1)
	w.check()
	return nil
}

// Duplicate sends the i-th message in flight once more.
func (w *World) Duplicate(i int) error {
	if i < 0 || i >= len(w.InFlight) {
		return fmt.Errorf("no message %d in flight (%d)", i, len(w.InFlight))
	}
	w.InFlight = append(w.InFlight, w.InFlight[i])
	w.logf("duplicated %s", w.InFlight[i])
	w.check()
	return nil
}

// FireTimer fires the i-th armed timer, moving the clock to its deadline
// if that is later than now.
func (w *World) FireTimer(i int) error {
	if i < 0 || i >= len(w.Timers) {
		return fmt.Errorf("no timer %d armed (%d)", i, len(w.Timers))
	}
	t, rest := w.Timers.Take(i)
	w.Timers = rest
	if t.At > w.Now {
		w.Now = t.At
	}
	ev := classic.TimerFired{Timer: t.Timer}
	if t.Node == classic.CoordinatorNode {
		w.stepCoordinator(ev)
	} else {
		w.stepMember(t.Node, ev)
	}
	return nil
}

// Stabilize delivers messages in send order until none is in flight or
// limit deliveries were made; it reports whether the network drained.
func (w *World) Stabilize(limit int) bool {
	for n := 0; len(w.InFlight) > 0; n++ {
		if n >= limit {
			return false
		}
		_ = w.Deliver(0)
	}
	return true
}

// Advance moves the clock forward by d, firing every timer that falls due
// in deadline order and stabilizing the network after each, so messages are
// fast next to timers. It reports false if the network did not drain.
func (w *World) Advance(d classic.Millis) bool {
	end := w.Now + d
	if !w.Stabilize(10000) {
		return false
	}
	for len(w.Timers) > 0 && w.Timers[0].At <= end {
		_ = w.FireTimer(0)
		if !w.Stabilize(10000) {
			return false
		}
	}
	w.Now = end
	return true
}

func (w *World) isolated(node string) bool {
	p, ok := w.Processes[processName(node)]
	return ok && p.Isolated
}

func (w *World) stepCoordinator(e classic.Event) {
	w.ownCoordinator()
	out := w.Coordinator.Step(classic.Input{Now: w.Now, Event: e})
	w.apply(classic.CoordinatorNode, out)
}

func (w *World) stepMember(name string, e classic.Event) {
	p := w.own(name)
	out := p.Node.Step(classic.Input{Now: w.Now, Event: e})
	w.apply(name, out)
}

// apply performs a node's output: it queues messages, updates the timer
// list, logs callbacks, records and checks the round, and checks the laws.
func (w *World) apply(node string, out classic.Output) {
	for _, m := range out.Messages {
		if p, ok := w.Processes[node]; ok {
			m.From = p.Address()
		}
		w.InFlight = append(w.InFlight, m)
		if w.Verbose {
			w.logf("send %s", m)
		}
	}
	for _, tc := range out.Timers {
		w.Timers = w.Timers.Set(node, tc.Timer, tc.At, tc.Cancel)
		if !tc.Cancel {
			if tc.Timer.Kind == classic.ScheduledRebalanceTimer {
				w.logf("%s: rebalance scheduled at %d (in %d)", node, tc.At, tc.At-w.Now)
			}
		}
	}
	for _, cb := range out.Callbacks {
		w.logf("%s: %s", node, cb)
	}
	if out.Round != nil {
		rec := RoundRecord{Leader: node, Generation: w.memberGeneration(node), Protocol: w.Coordinator.Protocol(), Round: *out.Round}
		w.Rounds = append(w.Rounds, rec)
		w.logf("%s", rec)
		for _, v := range spec.CheckRound(rec.Round) {
			w.violate(v)
		}
	}
	w.check()
}

func (w *World) memberGeneration(name string) spec.Generation {
	if p, ok := w.Processes[name]; ok && p.Node != nil {
		return p.Node.Generation()
	}
	return spec.NoGeneration
}

// String prints the round as
//
//	round gen=2 leader=A protocol=cooperative: A-1:{T-1} B-2:{T-2} revoking A-1:{T-4}
func (r RoundRecord) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "round gen=%d leader=%s protocol=%s:", r.Generation, r.Leader, r.Protocol)
	for _, m := range r.Round.Assigned.Members() {
		fmt.Fprintf(&b, " %s:%s", m, r.Round.Assigned[m])
	}
	var rev []string
	for _, m := range slices.Sorted(maps.Keys(r.Round.Claims)) {
		if gone := r.Round.Claims[m].Minus(r.Round.Assigned[m]); !gone.IsEmpty() {
			rev = append(rev, fmt.Sprintf("%s:%s", m, gone))
		}
	}
	if len(rev) > 0 {
		b.WriteString(" revoking " + strings.Join(rev, " "))
	}
	return b.String()
}

func (w *World) logf(format string, args ...any) {
	w.Log = append(w.Log, fmt.Sprintf(format, args...))
}

// DrainLog returns the log and empties it.
func (w *World) DrainLog() []string {
	l := w.Log
	w.Log = nil
	return l
}

func (w *World) violate(v spec.Violation) {
	w.Violations = append(w.Violations, v)
	w.logf("VIOLATION %s", v)
}

// check runs the state and step laws on the current view.
func (w *World) check() {
	v := w.View()
	for _, x := range spec.CheckState(v) {
		w.violate(x)
	}
	for _, x := range spec.CheckStep(w.prev, v) {
		w.violate(x)
	}
	w.prev = v
}

// View maps the world to the ownership view: a live process is a current
// member when the coordinator counts its member id; every other process
// that still believes it owns something is fenced by its stale generation
// (the classic protocol rejects commits from other generations). A process
// that is down owns nothing.
func (w *World) View() spec.View {
	v := spec.View{Topics: w.Topics}
	for _, name := range w.Names() {
		p := w.Processes[name]
		if p.Node == nil {
			v.Members = append(v.Members, spec.MemberView{Name: name, Generation: spec.NoGeneration, Fenced: true, Subscription: slices.Sorted(slices.Values(p.Config.Topics))})
			continue
		}
		mv := p.Node.View()
		mv.Current = mv.ID != "" && w.Coordinator.IsMember(mv.ID) && w.Coordinator.MemberNode(mv.ID) == p.Address()
		mv.Fenced = !mv.Current
		v.Members = append(v.Members, mv)
	}
	return v.Sort()
}

// Quiet reports whether nothing is in flight and no member is between a
// JoinGroup and the end of its SyncGroup: the group has settled until the
// next timer.
func (w *World) Quiet() bool {
	if len(w.InFlight) > 0 {
		return false
	}
	for _, p := range w.Processes {
		if p.Node != nil {
			switch p.Node.State() {
			case classic.Joining, classic.AwaitingSync:
				return false
			}
		}
	}
	return true
}

// Ownership prints the view, one member per line, followed by the
// coordinator's generation and state.
func (w *World) Ownership() string {
	var b strings.Builder
	b.WriteString(w.View().String())
	fmt.Fprintf(&b, "coordinator gen=%d state=%s leader=%s protocol=%s\n", w.Coordinator.Generation(), w.Coordinator.State(), w.Coordinator.Leader(), w.Coordinator.Protocol())
	return b.String()
}
