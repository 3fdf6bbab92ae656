// Package world is the closed world of the next-gen protocol (KIP-848): one
// coordinator, member processes, heartbeats in flight, armed timers, a
// clock, and the applications' pending revocations, driven by explicit
// actions. It maps every state to a spec.View and checks the laws after
// every action, plus the coordinator's own invariants (partition owners
// equal the members' assigned and pending-revocation sets).
//
// It has the same shape as the classic world (model/classic/world): the
// network keeps messages in send order and any of them may be delivered,
// lost or duplicated; timers fire in deadline order; a restarted process
// gets a new address so replies to its previous incarnation are lost.
package world

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/nextgen/coordinator"
	"github.com/rebalance-ref/rebalance/model/sim"
	"github.com/rebalance-ref/rebalance/spec"
)

// CoordinatorInvariant is the law name under which the world reports a
// broken coordinator invariant (Coordinator.CheckInvariants).
const CoordinatorInvariant spec.Law = "CoordinatorInvariant"

// Process is one member process: its configuration, which survives
// crashes, and its node, which does not.
type Process struct {
	Config nextgen.MemberConfig
	// Node is nil while the process is down.
	Node *nextgen.Member
	// Isolated processes lose every message they send or are sent.
	Isolated bool
	// Incarnation counts starts; each incarnation has its own address and
	// its own client-generated member id (KIP-1082): Name-k.
	Incarnation int
	// Revoking is what the application was asked to revoke and has not
	// finished revoking (a RevocationDone is pending).
	Revoking spec.Set
	// Slow applications never finish revoking on their own: only an
	// explicit CompleteRevocation does (scenarios use it to show the
	// rebalance timeout).
	Slow bool

	// owner is the world that may change this process in place; a fork
	// shares its parent's processes and copies one before changing it.
	owner *World
}

// Address is the node address of the current incarnation: Name for the
// first, Name@k for the k-th.
func (p *Process) Address() string {
	if p.Incarnation <= 1 {
		return p.Config.Name
	}
	return fmt.Sprintf("%s@%d", p.Config.Name, p.Incarnation)
}

func processName(addr string) string {
	name, _, _ := strings.Cut(addr, "@")
	return name
}

// PendingTimer is a timer a node armed and the world will fire.
type PendingTimer = sim.Pending[nextgen.Timer, nextgen.Millis]

// World is the closed world. Change it only through its methods.
type World struct {
	Now         nextgen.Millis
	Topics      spec.Topics
	Coordinator *coordinator.Coordinator
	Processes   map[string]*Process
	InFlight    []nextgen.Envelope
	Timers      sim.Timers[nextgen.Timer, nextgen.Millis]
	Violations  []spec.Violation
	Log         []string
	Verbose     bool

	groupID string
	prev    spec.View
	// coordinatorOwner is the world that may change Coordinator in place
	// (see Fork).
	coordinatorOwner *World
}

// New returns a world with a coordinator configured by cfg and no members.
func New(cfg coordinator.CoordinatorConfig) (*World, error) {
	c, err := coordinator.NewCoordinator(cfg)
	if err != nil {
		return nil, err
	}
	w := &World{Topics: maps.Clone(cfg.Topics), Coordinator: c, Processes: map[string]*Process{}, groupID: cfg.GroupID}
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
	c.Violations = slices.Clone(w.Violations)
	c.Log = slices.Clone(w.Log)
	return &c
}

// Fork returns a copy of w that shares the coordinator and the processes
// with w until it changes them: it copies a node the first time it steps
// it. Changing the fork never changes w; w must not be changed while the
// fork is in use (the model checker forks states it never changes again).
// Topics is shared too: the world replaces it, never changes it in place.
func (w *World) Fork() *World {
	c := *w
	c.Processes = maps.Clone(w.Processes)
	c.InFlight = slices.Clone(w.InFlight)
	c.Timers = slices.Clip(w.Timers)
	c.Violations = slices.Clip(w.Violations)
	c.Log = slices.Clip(w.Log)
	return &c
}

// own returns the named process, copied first if w shares it with the
// world it was forked from; nil if there is none.
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

// AddMember creates a process from cfg (a new name) and starts it. The
// member id is set per incarnation to Name-k.
func (w *World) AddMember(cfg nextgen.MemberConfig) error {
	if _, ok := w.Processes[cfg.Name]; ok {
		return fmt.Errorf("member %s already exists", cfg.Name)
	}
	if cfg.Name == nextgen.CoordinatorNode || strings.Contains(cfg.Name, "@") {
		return fmt.Errorf("member name %q is reserved", cfg.Name)
	}
	p := &Process{Config: cfg, owner: w}
	if err := w.start(p); err != nil {
		return err
	}
	w.Processes[cfg.Name] = p
	w.stepMember(cfg.Name, nextgen.Start{})
	return nil
}

func (w *World) start(p *Process) error {
	cfg := p.Config
	cfg.GroupID = w.groupID
	cfg.MemberID = spec.MemberID(fmt.Sprintf("%s-%d", cfg.Name, p.Incarnation+1))
	n, err := nextgen.NewMember(cfg)
	if err != nil {
		return err
	}
	p.Incarnation++
	p.Node = n
	p.Revoking = nil
	return nil
}

// live returns the named process, owned by w (see Fork), if it is up.
func (w *World) live(name string) (*Process, error) {
	p, ok := w.Processes[name]
	if !ok {
		return nil, fmt.Errorf("no member %s", name)
	}
	if p.Node == nil {
		return nil, fmt.Errorf("member %s is down", name)
	}
	return w.own(name), nil
}

// Crash stops a process at once: its state, timers, ownership and pending
// revocation are gone. The coordinator notices through the session timeout.
func (w *World) Crash(name string) error {
	p, err := w.live(name)
	if err != nil {
		return err
	}
	p.Node = nil
	p.Revoking = nil
	w.Timers = w.Timers.DropNode(name)
	w.logf("%s crashed", name)
	w.check()
	return nil
}

// Restart starts a new incarnation of a crashed process, or of one that
// left (same instance id for a static member, new member id: a static
// member that left with -2 and restarts inside its session timeout gets its
// partitions back without a group epoch bump).
func (w *World) Restart(name string) error {
	p, ok := w.Processes[name]
	if !ok {
		return fmt.Errorf("no member %s", name)
	}
	if p.Node != nil && p.Node.State() != nextgen.MemberLeft {
		return fmt.Errorf("member %s is up; crash it or make it leave first", name)
	}
	w.Timers = w.Timers.DropNode(name)
	p = w.own(name)
	if err := w.start(p); err != nil {
		return err
	}
	w.logf("%s restarted as %s", name, p.Node.ID())
	w.stepMember(name, nextgen.Start{})
	return nil
}

// Leave tells a process to leave (a static member leaves temporarily).
func (w *World) Leave(name string) error { return w.event(name, nextgen.Leave{}) }

// Subscribe changes a process's subscription.
func (w *World) Subscribe(name string, topics []string) error {
	p, err := w.live(name)
	if err != nil {
		return err
	}
	p.Config.Topics = slices.Clone(topics)
	return w.event(name, nextgen.Subscribe{Topics: slices.Clone(topics)})
}

// CompleteRevocation tells a process's member that the application has
// finished revoking what it was asked to.
func (w *World) CompleteRevocation(name string) error {
	p, err := w.live(name)
	if err != nil {
		return err
	}
	if p.Revoking.IsEmpty() {
		return fmt.Errorf("member %s has no revocation pending", name)
	}
	done := p.Revoking
	p.Revoking = nil
	w.stepMember(name, nextgen.RevocationDone{Resources: done})
	return nil
}

// SetSlow makes a process's application slow (it revokes only on an
// explicit CompleteRevocation) or prompt.
func (w *World) SetSlow(name string, slow bool) error {
	if _, ok := w.Processes[name]; !ok {
		return fmt.Errorf("no member %s", name)
	}
	w.own(name).Slow = slow
	return nil
}

// Isolate makes every message to or from a process lost until healed.
func (w *World) Isolate(name string, isolated bool) error {
	if _, ok := w.Processes[name]; !ok {
		return fmt.Errorf("no member %s", name)
	}
	w.own(name).Isolated = isolated
	return nil
}

// UpdateMetadata changes the partition counts and tells the coordinator.
func (w *World) UpdateMetadata(topics spec.Topics) {
	w.Topics = maps.Clone(topics)
	w.logf("metadata %s", nextgen.MetadataUpdate{Topics: topics})
	w.stepCoordinator(nextgen.MetadataUpdate{Topics: maps.Clone(topics)})
}

func (w *World) event(name string, e nextgen.Event) error {
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
	in := nextgen.Receive{From: env.From, Msg: env.Msg}
	if env.To == nextgen.CoordinatorNode {
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

// FireTimer fires the i-th armed timer, moving the clock to its deadline.
func (w *World) FireTimer(i int) error {
	if i < 0 || i >= len(w.Timers) {
		return fmt.Errorf("no timer %d armed (%d)", i, len(w.Timers))
	}
	t, rest := w.Timers.Take(i)
	w.Timers = rest
	if t.At > w.Now {
		w.Now = t.At
	}
	ev := nextgen.TimerFired{Timer: t.Timer}
	if t.Node == nextgen.CoordinatorNode {
		w.stepCoordinator(ev)
	} else {
		w.stepMember(t.Node, ev)
	}
	return nil
}

// Stabilize delivers messages in send order, and completes the revocations
// of prompt applications, until nothing is left or limit steps were taken;
// it reports whether everything drained.
func (w *World) Stabilize(limit int) bool {
	for n := 0; ; n++ {
		if n >= limit {
			return false
		}
		if len(w.InFlight) > 0 {
			_ = w.Deliver(0)
			continue
		}
		done := false
		for _, name := range w.Names() {
			if p := w.Processes[name]; p.Node != nil && !p.Slow && !p.Revoking.IsEmpty() {
				_ = w.CompleteRevocation(name)
				done = true
				break
			}
		}
		if !done {
			return true
		}
	}
}

// Advance moves the clock forward by d, firing every timer that falls due
// in deadline order and stabilizing after each.
func (w *World) Advance(d nextgen.Millis) bool {
	end := w.Now + d
	if !w.Stabilize(stabilizeLimit) {
		return false
	}
	for len(w.Timers) > 0 && w.Timers[0].At <= end {
		_ = w.FireTimer(0)
		if !w.Stabilize(stabilizeLimit) {
			return false
		}
	}
	w.Now = end
	return true
}

// stabilizeLimit bounds one stabilize, so a livelock shows as an error.
const stabilizeLimit = 100000

func (w *World) isolated(node string) bool {
	p, ok := w.Processes[processName(node)]
	return ok && p.Isolated
}

func (w *World) stepCoordinator(e nextgen.Event) {
	w.ownCoordinator()
	out := w.Coordinator.Step(nextgen.Input{Now: w.Now, Event: e})
	w.apply(nextgen.CoordinatorNode, out)
}

func (w *World) stepMember(name string, e nextgen.Event) {
	p := w.own(name)
	out := p.Node.Step(nextgen.Input{Now: w.Now, Event: e})
	w.apply(name, out)
}

// apply performs a node's output and checks the laws.
func (w *World) apply(node string, out nextgen.Output) {
	p := w.Processes[node]
	for _, m := range out.Messages {
		if p != nil {
			m.From = p.Address()
		}
		w.InFlight = append(w.InFlight, m)
		if w.Verbose {
			w.logf("send %s", m)
		}
	}
	for _, tc := range out.Timers {
		w.Timers = w.Timers.Set(node, tc.Timer, tc.At, tc.Cancel)
	}
	for _, cb := range out.Callbacks {
		w.logf("%s: %s", node, cb)
		if p == nil {
			continue
		}
		switch cb.Kind {
		case nextgen.Revoke:
			p.Revoking = p.Revoking.Union(cb.Resources)
		case nextgen.Lost, nextgen.Fatal:
			p.Revoking = nil
		}
	}
	w.check()
}

func (w *World) logf(format string, args ...any) { w.Log = append(w.Log, fmt.Sprintf(format, args...)) }

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

func (w *World) check() {
	v := w.View()
	for _, x := range spec.CheckState(v) {
		w.violate(x)
	}
	for _, x := range spec.CheckStep(w.prev, v) {
		w.violate(x)
	}
	if err := w.Coordinator.CheckInvariants(); err != nil {
		w.violate(spec.Violation{Law: CoordinatorInvariant, Detail: err.Error()})
	}
	w.prev = v
}

// View maps the world to the ownership view. A live process is current when
// the coordinator counts its member id at a non-negative epoch and it is
// the process's current incarnation; any other process that still believes
// it owns is fenced by its epoch. The view's generation is the member epoch
// (a member back at epoch 0 after being fenced has reset, NoGeneration).
// Partitions of topics a member no longer subscribes to count as revoking:
// in KIP-848 the coordinator, not the member, decides when they go.
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
		if mv.Generation <= 0 {
			mv.Generation = spec.NoGeneration
		}
		mv.Revoking = mv.Revoking.Union(mv.Owns.Filter(func(r spec.Resource) bool { return !mv.Subscribes(r.Topic) }))
		v.Members = append(v.Members, mv)
	}
	return v.Sort()
}

// Ownership prints the view and the coordinator's epochs and state.
func (w *World) Ownership() string {
	var b strings.Builder
	b.WriteString(w.View().String())
	fmt.Fprintf(&b, "coordinator group-epoch=%d target-epoch=%d state=%s\n", w.Coordinator.GroupEpoch(), w.Coordinator.TargetEpoch(), w.Coordinator.State())
	return b.String()
}

// CheckConverged returns the convergence violations: coverage, and
// per-subscription balance (the uniform assignor's guarantee).
func (w *World) CheckConverged() []spec.Violation {
	v := w.View()
	return append(spec.CheckCoverage(v), spec.CheckBalance(v)...)
}
