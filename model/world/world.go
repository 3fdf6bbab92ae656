package world

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/sim"
	"github.com/rebalance-ref/rebalance/spec"
)

// CoordinatorInvariant is the law under which the world reports a broken
// coordinator invariant (Coordinator.CheckInvariants).
const CoordinatorInvariant spec.Law = "CoordinatorInvariant"

// Process is one member process: its configuration, which survives
// crashes, its node, which does not, and its application.
type Process[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any] struct {
	// config is the process's configuration (Config); replaced whole,
	// never changed in place, so the copies of a process share it: held by
	// pointer, it keeps the copy a step makes of a process 136 bytes
	// smaller. Never nil.
	config *P
	// Node is the live member; nil while the process is down (crashed and
	// not restarted).
	Node Member[M, T, C]
	// Isolated processes lose every message they send or are sent.
	Isolated bool
	// Incarnation counts the process's starts. A restarted process has new
	// connections: responses addressed to an earlier incarnation are lost,
	// as replies on a closed connection are.
	Incarnation int
	// Revoking is what the application was asked to revoke and has not
	// finished revoking (a RevocationDone is pending); always empty in a
	// family whose revocations complete within the callback.
	Revoking spec.Set
	// Slow applications never finish revoking on their own: only an
	// explicit CompleteRevocation does.
	Slow bool
	// Overrun marks an application that overruns the revocation it has
	// pending (OverrunRevocation): slow for that revocation only. It is
	// cleared with Revoking (stopRevoking), so it implies a revocation is
	// pending.
	Overrun bool
	// positions is, for each partition the application works on, the next
	// record it will process (see delivery.go); replaced whole, never
	// changed in place. Empty while the world's Records is 0. With the
	// OwnPosition fault it keeps the positions of partitions given up too.
	positions byResource[int]
	// unsent are the offsets the application gave up without committing
	// them yet, by partition: only with the CommitAfterRelease fault, whose
	// commit step (CommitReleased) sends them. Replaced whole.
	unsent byResource[int]

	// owner is the serial of the world that may change this process in
	// place (World.serial); a fork shares its parent's processes and
	// copies one before changing it. A serial, not a pointer to the world,
	// so that a process a state shares with its ancestors does not keep
	// the ancestor that made it alive, and with it every ancestor of that
	// one.
	owner uint64
	// encoding is the process's canonical encoding, recorded by its
	// owner once frozen (Model.Encode), for the forks that share it (the
	// zero Recording until then); a copy drops it.
	encoding canon.Recording
	// sharedNode is set while Node is shared with the world this process
	// was copied from (ownApplication): own copies it first.
	sharedNode bool
}

// Config is the process's configuration, which survives crashes. Its
// slices are the process's own: the caller must not change them.
func (p *Process[M, T, C, P]) Config() P { return *p.config }

// Address is the node address of the process's current incarnation: its
// name for the first, name@k for the k-th. Members put it in From, the
// coordinator replies to it, and the world loses messages to an address
// whose incarnation has ended.
func (p *Process[M, T, C, P]) Address(name string) string {
	if p.Incarnation <= 1 {
		return name
	}
	return fmt.Sprintf("%s@%d", name, p.Incarnation)
}

// ProcessName returns the process name of a node address.
func ProcessName(addr string) string {
	name, _, _ := strings.Cut(addr, "@")
	return name
}

// PendingTimer is a timer a node armed and the world will fire.
type PendingTimer[T sim.Timer] = sim.Pending[T, node.Millis]

// RoundRecord is one assignment round a node reported.
type RoundRecord struct {
	Leader     string // process name
	Generation spec.Generation
	Protocol   string
	Round      spec.Round
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
	if !r.Round.Held.IsEmpty() {
		fmt.Fprintf(&b, " holding %s", r.Round.Held)
	}
	return b.String()
}

// World is the closed world of one family. Its fields are exported for
// printers and checkers; change it only through its methods.
type World[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any] struct {
	Family      Family[M, T, C, P]
	Now         node.Millis
	Topics      spec.Topics
	Coordinator Coordinator[M, T, C]
	// procs are the processes, in the order of names (Process finds one
	// by name).
	procs []*Process[M, T, C, P]
	// InFlight is the network: messages sent and not yet delivered or
	// lost, in send order.
	InFlight []node.Envelope[M]
	// Timers are the armed timers, sorted by deadline, node, timer.
	Timers sim.Timers[T, node.Millis]
	// FailedRounds counts the rounds leaders sent failed (node.Output's
	// RoundFailed); the model counts them with the rounds sent.
	FailedRounds int
	// Lost counts the messages lost so far (Drop), for the Timely law. It
	// is not part of the world's encoding: the model keeps the same count
	// in Used.Drops, which its encoding writes.
	Lost int
	// Late counts the timers fired while messages were in flight (the
	// network was slower than a timer), for the Timely law. It is not part
	// of the encoding either: under the model checker's prompt network it
	// is always 0.
	Late int
	// Duplicated counts the messages duplicated so far (Duplicate), for
	// the Timely and NoSpuriousLoss laws. Not encoded either: the model
	// keeps the same count in Used.Duplicates.
	Duplicated int
	// Changed is the clock at the last action that changed the view (an
	// owner, a member, a generation or epoch, a subscription), QuietSince
	// the clock when Settle let the environment fall quiet, and Removed
	// the clock at the last member the coordinator took out of the group
	// for not answering in time (Family.Removes) that no live process had
	// given up: it was down, had left, or was a JoinGroup's orphan, a
	// wait the environment forced. Timely's time clause reads them
	// (CheckTimeBound). None is encoded: they are the observer's, like
	// Lost.
	Changed, QuietSince, Removed node.Millis
	// ActedMidRound reports whether the environment's last action (Apply)
	// came while a member was between a JoinGroup and the end of its
	// SyncGroup: the round in flight then serves the group as it was, and
	// the protocol's stated rounds count only from the round after it
	// (CheckTimeBound allows it). Not encoded: the observer's, like
	// Changed.
	ActedMidRound bool

	// abandoned is every member id a live process gave up while the
	// coordinator still counted it (Timely). Not encoded; forks share it,
	// so it is replaced, never appended to in place.
	abandoned []abandonment
	// Rounds is every assignment round a node reported so far.
	Rounds []RoundRecord
	// Violations collects every law violation found so far.
	Violations []spec.Violation
	// Log is the record of what happened, one line per entry, since the
	// last DrainLog.
	Log []string
	// Verbose adds every message sent to the log.
	Verbose bool

	// prev is the view after the last action; every action ends in check,
	// which sets it, so it is a function of the rest of the state.
	prev spec.View
	// coordinatorOwned is set when w may change Coordinator in place: it
	// made it (New, Clone) or copied it (ownCoordinator); a fork shares
	// its parent's (see Fork). A world that hands its coordinator to the
	// memo of coordinator steps gives it up (keepStep).
	coordinatorOwned bool
	// coordinatorFresh is set when Coordinator may differ from that of the
	// world w was forked from: w made it, copied it or took a step of it
	// from the memo. Unlike coordinatorOwned it stays set when w gives the
	// coordinator up to the memo (keepStep).
	coordinatorFresh bool
	// coordinatorSteps is the model checker's memo of coordinator steps
	// (stepMemo), shared by the model's worlds; nil elsewhere.
	coordinatorSteps *stepMemo[M, T, C]
	// coordinatorStep is the memo's step whose result Coordinator is, set
	// by takeStep and keepStep and dropped by any change (ownCoordinator),
	// so that Keep can leave the coordinator's encoding with the step for
	// the other worlds that take it; nil otherwise.
	coordinatorStep *memoStep[M, T, C]
	// serial numbers w among the worlds it shares processes with: the
	// number of forks between w and the world New or Clone made. Every
	// world that shares a process with w is its ancestor or descendant
	// (siblings share only what their common ancestor made), and those
	// have other serials, so a process whose owner is w.serial is w's own.
	serial uint64
	// coordinatorEncoding is the canonical encoding of Coordinator, as a
	// frozen world wrote it (Model.Encode), for the forks that share the
	// coordinator (the zero Recording when there is none): most steps
	// leave the coordinator alone, and its encoding is the largest part
	// of a state's. Written only while encoding a frozen world, which
	// never changes again; ownCoordinator drops it. Held by value, as a
	// process's is, so that a replay does not first read a recording
	// struct elsewhere in memory (docs/checker-rounds.md, ninth round).
	coordinatorEncoding canon.Recording
	// topicsEncoding is the encoding of Topics a frozen world kept
	// (encodeTopics), shared by its forks; valid while Topics is the map
	// it was made from.
	topicsEncoding *topicsEncoding
	// processesOwned is false while w shares the procs slice with the
	// world it was forked from; timersOwned the same for the backing
	// array of Timers, which FireTimer and apply change in place once it
	// owns it (ownTimers).
	processesOwned, timersOwned bool
	// inFlightOwned is set once InFlight's backing array is w's own: a
	// fork shares its parent's (clipped) until the first change makes a
	// new one.
	inFlightOwned bool
	// prevOwned is set when prev's member list is w's own (check built
	// it): a fork shares its parent's until its first check that finds
	// the view changed.
	prevOwned bool
	// spare is memory a discarded successor owned, for the worlds later
	// stepped into the same struct to use instead of allocating
	// (Model.Discard); nil outside the model checker.
	spare *spares[M, T, C, P]
	// names is the names of the processes, sorted; replaced whole, never
	// changed in place, so forks share it.
	names []string
	// stepOutputs holds the emptied outputs that nodes step into
	// (stepOutput, release): a step's output lives only until the world
	// has applied it, and a fresh one for each step was about 5 % of the
	// bytes an exploration allocates (docs/checker-rounds.md, sixteenth round).
	// Shared by the world New made and every clone and fork of it; a
	// sync.Pool, since the model checker's workers step forks of one
	// world at once, and a commit steps the coordinator while the output
	// that caused it is still being applied. Nil in a zero World, which
	// then allocates an output a step.
	stepOutputs *sync.Pool
	// unlogged makes logf a no-op: the model checker's steps keep no log
	// (a counterexample is replayed as a scenario, which logs).
	unlogged bool
	// lawsBroken is set when the last check found a state or step law
	// broken in prev.
	lawsBroken bool
	// frozen is set on a model checker state once its step is done: it
	// never changes again (its forks share its nodes). Forks of it are not
	// frozen; changing a frozen world panics.
	frozen bool

	// Records is how many records each partition's log holds; 0 turns
	// delivery (processing, commits and the delivery laws, delivery.go)
	// off. recordsOn, when not empty, limits the logs to those partitions.
	// Set both with SetRecords, before any member processes.
	Records   int
	recordsOn spec.Set
	// DeliveryFaults are the delivery fault switches on (configuration,
	// never changed by a step).
	DeliveryFaults DeliveryFault
	// committed is each partition's committed offset (absent: 0), and
	// processed how many times each of its records was processed (the
	// observer's, capped at maxProcessed). Both are replaced whole, never
	// changed in place, so forks share them.
	committed byResource[int]
	processed byResource[[]int]
	// unclean is set once a member crashed, a message was lost or
	// duplicated, a live member was fenced, or the coordinator refused a
	// member's parting commit (ExactlyOnceWhenClean; commit).
	unclean bool
}

// abandonment is a member id a live process gave up, at a time, while the
// coordinator still counted it.
type abandonment struct {
	id      spec.MemberID
	process string
	at      node.Millis
}

// New returns a world of family f with coordinator c over topics, and no
// members.
func New[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](f Family[M, T, C, P], c Coordinator[M, T, C], topics spec.Topics) *World[M, T, C, P] {
	w := &World[M, T, C, P]{Family: f, Topics: maps.Clone(topics), Coordinator: c, processesOwned: true, inFlightOwned: true, stepOutputs: new(sync.Pool)}
	w.coordinatorOwned, w.coordinatorFresh = true, true
	w.prev = w.View()
	return w
}

// Prev is the view after the last action.
func (w *World[M, T, C, P]) Prev() spec.View { return w.prev }

// RefreshView sets the previous view to the current one (after setup
// commands that change nothing the laws see, such as isolate).
func (w *World[M, T, C, P]) RefreshView() { w.prev = w.View() }

// Clone returns a deep copy of w that shares nothing mutable with it.
func (w *World[M, T, C, P]) Clone() *World[M, T, C, P] {
	c := *w
	c.spare = nil
	c.Topics = maps.Clone(w.Topics)
	c.Coordinator = w.Coordinator.CloneCoordinator()
	c.coordinatorOwned, c.coordinatorFresh, c.coordinatorStep = true, true, nil
	c.coordinatorEncoding = canon.Recording{}
	c.frozen = false
	c.procs = make([]*Process[M, T, C, P], len(w.procs))
	c.processesOwned = true
	for i, p := range w.procs {
		q := *p
		if p.Node != nil {
			q.Node = p.Node.CloneMember(nil)
		}
		q.owner, q.encoding, q.sharedNode = c.serial, canon.Recording{}, false
		c.procs[i] = &q
	}
	c.InFlight, c.inFlightOwned, c.prevOwned = slices.Clone(w.InFlight), true, false
	c.Timers = slices.Clone(w.Timers)
	c.Rounds = slices.Clone(w.Rounds)
	c.Violations = slices.Clone(w.Violations)
	c.Log = slices.Clone(w.Log)
	return &c
}

// Fork returns a copy of w that shares the coordinator, the processes and
// the network with w until it changes them: it copies a node the first
// time it steps it, the process map the first time it changes a process,
// and never changes the messages in flight in place. Changing the fork never changes w; but w must not be changed while
// the fork is in use (the model checker forks states it never changes
// again). Topics is shared too: the world replaces it, never changes it in
// place.
func (w *World[M, T, C, P]) Fork() *World[M, T, C, P] {
	c := new(World[M, T, C, P])
	w.forkInto(c)
	return c
}

// forkInto makes c a fork of w (see Fork), overwriting all of it.
func (w *World[M, T, C, P]) forkInto(c *World[M, T, C, P]) {
	sp := c.spare
	*c = *w
	c.spare = sp
	c.frozen = false
	c.inFlightOwned, c.prevOwned = false, false
	c.serial = w.serial + 1
	c.processesOwned, c.timersOwned, c.coordinatorOwned, c.coordinatorFresh = false, false, false, false
	c.InFlight = slices.Clip(w.InFlight)
	c.Timers = slices.Clip(w.Timers)
	c.Rounds = slices.Clip(w.Rounds)
	c.Violations = slices.Clip(w.Violations)
	c.Log = slices.Clip(w.Log)
}

// own returns the named process, copied first if w shares it with the
// world it was forked from; nil if there is none.
func (w *World[M, T, C, P]) own(name string) *Process[M, T, C, P] {
	return w.ownProcess(name, true)
}

// ownProcess is own, copying the process's node only when keepNode is
// set (Crash drops it).
func (w *World[M, T, C, P]) ownProcess(name string, keepNode bool) *Process[M, T, C, P] {
	i, p := w.writable(name)
	if p == nil {
		return nil
	}
	if p.owner == w.serial {
		if p.sharedNode && p.Node != nil && keepNode {
			p.Node = w.cloneNode(p.Node)
		}
		p.sharedNode = false
		return p
	}
	q := w.copyProcess(p)
	if p.Node != nil && keepNode {
		q.Node = w.cloneNode(p.Node)
	}
	q.sharedNode = false
	return w.replace(i, q)
}

// ownApplication is own for a change to the application's state alone
// (its positions, its pending commits): the copy shares the member node
// until own copies it, before anything steps it.
func (w *World[M, T, C, P]) ownApplication(name string) *Process[M, T, C, P] {
	i, p := w.writable(name)
	if p == nil || p.owner == w.serial {
		return p
	}
	q := w.copyProcess(p)
	q.sharedNode = p.Node != nil
	return w.replace(i, q)
}

// writable returns the index and the process of the named process (-1
// and nil when there is none) for a change; it panics when w is frozen.
func (w *World[M, T, C, P]) writable(name string) (int, *Process[M, T, C, P]) {
	if w.frozen {
		panic("world: a frozen world changes")
	}
	i := w.index(name)
	if i < 0 {
		return -1, nil
	}
	return i, w.procs[i]
}

// replace puts q, w's own copy, at index i of w's own process slice and
// returns it.
func (w *World[M, T, C, P]) replace(i int, q *Process[M, T, C, P]) *Process[M, T, C, P] {
	w.ownProcesses()
	w.procs[i] = q
	return q
}

// ownProcesses copies the process slice if w shares it.
func (w *World[M, T, C, P]) ownProcesses() {
	if w.frozen {
		panic("world: a frozen world changes")
	}
	if !w.processesOwned {
		w.procs = append(room(w.spare.procList(), len(w.procs)), w.procs...)
		w.processesOwned = true
	}
}

// ownCoordinator copies the coordinator if w shares it. Every change of
// the coordinator comes after it, so it drops the coordinator's encoding
// too.
func (w *World[M, T, C, P]) ownCoordinator() {
	if w.frozen {
		panic("world: a frozen world changes")
	}
	w.coordinatorEncoding = canon.Recording{}
	w.coordinatorFresh, w.coordinatorStep = true, nil
	if !w.coordinatorOwned {
		if f, ok := w.Coordinator.(Forker[M, T, C]); ok {
			w.Coordinator = f.ForkCoordinator()
		} else {
			w.Coordinator = w.Coordinator.CloneCoordinator()
		}
		w.coordinatorOwned = true
	}
}

// Process returns the named process, nil if there is none. The world
// changes its processes only through its methods; so must the caller.
func (w *World[M, T, C, P]) Process(name string) *Process[M, T, C, P] {
	if i := w.index(name); i >= 0 {
		return w.procs[i]
	}
	return nil
}

// index returns the position of process name in names and procs, or -1.
func (w *World[M, T, C, P]) index(name string) int {
	for i, n := range w.names {
		if n == name {
			return i
		}
	}
	return -1
}

// Names returns the process names in sorted order.
// The slice is shared: the caller must not change it.
func (w *World[M, T, C, P]) Names() []string { return w.names }

// AddMember creates a process from cfg and starts it. It refuses a name
// that is taken, empty, the coordinator's or holds '@' (addresses are
// name@incarnation), and a name that has the form of another process's
// member ids, or whose member ids another's name has (idOf).
func (w *World[M, T, C, P]) AddMember(cfg P) error {
	name := w.Family.MemberName(cfg)
	if w.Process(name) != nil {
		return fmt.Errorf("member %s already exists", name)
	}
	if name == node.CoordinatorNode || strings.ContainsAny(name, "@") || name == "" {
		return fmt.Errorf("member name %q is reserved", name)
	}
	for _, other := range w.names {
		long, short := name, other
		if idOf(other, name) {
			long, short = other, name
		}
		if idOf(long, short) {
			return fmt.Errorf("member name %q reads as a member id of member %q (its name, '-' and a number), which it could not be told from", long, short)
		}
	}
	p := &Process[M, T, C, P]{config: &cfg, owner: w.serial}
	if err := w.start(p); err != nil {
		return err
	}
	w.ownProcesses()
	i, _ := slices.BinarySearch(w.names, name)
	w.procs = slices.Insert(w.procs, i, p)
	w.names = slices.Insert(slices.Clone(w.names), i, name)
	w.stepMember(name, node.Start{})
	return nil
}

// idOf reports whether s reads as a member id of the process named name
// (Numbered: name, '-', a number). Member ids are read by that form (the
// unbounded-bounce abstraction, the symmetry renamer), so two processes
// may not be named so that one's name reads as the other's ids; any
// other name with '-' and digits in it is free.
func idOf(s, name string) bool {
	_, _, ok := Numbered(s, '-', map[string]bool{name: true})
	return ok
}

// start starts p's next incarnation.
func (w *World[M, T, C, P]) start(p *Process[M, T, C, P]) error {
	n, err := w.Family.NewMember(*p.config, p.Incarnation+1, w.Topics)
	if err != nil {
		return err
	}
	p.Incarnation++
	p.Node = n
	p.stopRevoking()
	return nil
}

func (w *World[M, T, C, P]) process(name string) (*Process[M, T, C, P], error) {
	p := w.Process(name)
	if p == nil {
		return nil, fmt.Errorf("no member %s", name)
	}
	return p, nil
}

// live returns the named process, owned by w (see Fork), if it is up.
func (w *World[M, T, C, P]) live(name string) (*Process[M, T, C, P], error) {
	return w.liveProcess(name, true)
}

// liveProcess is live, copying the process's node only when keepNode is
// set (see ownProcess).
func (w *World[M, T, C, P]) liveProcess(name string, keepNode bool) (*Process[M, T, C, P], error) {
	p, err := w.process(name)
	if err != nil {
		return nil, err
	}
	if p.Node == nil {
		return nil, fmt.Errorf("member %s is down", name)
	}
	return w.ownProcess(name, keepNode), nil
}

// Crash stops a process at once: its state, timers, ownership and pending
// revocation are gone; messages to it will be lost. The coordinator
// notices only through the session timeout.
func (w *World[M, T, C, P]) Crash(name string) error {
	p, err := w.liveProcess(name, false) // its node is dropped: no copy
	if err != nil {
		return err
	}
	p.Node = nil
	p.stopRevoking()
	p.positions, p.unsent = nil, nil
	w.unclean = true
	w.Timers = w.Timers.DropNode(name)
	if !w.unlogged {
		w.logf("%s crashed", name)
	}
	w.check()
	return nil
}

// Restart starts a new incarnation of a crashed process (or, where the
// family allows it, of one that left) with the same configuration, so a
// static member keeps its instance id.
func (w *World[M, T, C, P]) Restart(name string) error {
	p, err := w.process(name)
	if err != nil {
		return err
	}
	if p.Node != nil && !(w.Family.RestartLeft() && p.Node.Phase() == Left) {
		if w.Family.RestartLeft() {
			return fmt.Errorf("member %s is up; crash it or make it leave first", name)
		}
		return fmt.Errorf("member %s is up; crash it first", name)
	}
	w.Timers = w.Timers.DropNode(name)
	p = w.own(name)
	if err := w.start(p); err != nil {
		return err
	}
	if id := p.Node.ID(); id != "" {
		if !w.unlogged {
			w.logf("%s restarted as %s", name, id)
		}
	} else {
		if !w.unlogged {
			w.logf("%s restarted", name)
		}
	}
	w.stepMember(name, node.Start{})
	return nil
}

// Bounce restarts a live process with configuration cfg, as a rolling
// bounce does: the old incarnation leaves gracefully, then a new
// incarnation starts at once.
func (w *World[M, T, C, P]) Bounce(name string, cfg P) error {
	if _, err := w.live(name); err != nil {
		return err
	}
	w.stepMember(name, node.Leave{})
	return w.restartAs(name, cfg)
}

// restartAs replaces the node of process name, which has just been told
// to leave, by a new incarnation configured by cfg, started at once: the
// second half of a bounce.
func (w *World[M, T, C, P]) restartAs(name string, cfg P) error {
	p := w.own(name)
	p.Node = nil
	p.stopRevoking()
	w.Timers = w.Timers.DropNode(name)
	p.config = &cfg
	if err := w.start(p); err != nil {
		return err
	}
	if !w.unlogged {
		w.logf("%s bounced", name)
	}
	w.stepMember(name, node.Start{})
	return nil
}

// Leave tells a process to leave the group gracefully.
func (w *World[M, T, C, P]) Leave(name string) error { return w.Event(name, node.Leave{}) }

// Subscribe changes a process's subscription.
func (w *World[M, T, C, P]) Subscribe(name string, topics []string) error {
	p, err := w.live(name)
	if err != nil {
		return err
	}
	cfg := w.Family.WithTopics(*p.config, slices.Clone(topics))
	p.config = &cfg
	return w.Event(name, node.Subscribe{Topics: slices.Clone(topics)})
}

// CompleteRevocation tells a process's member that the application has
// finished revoking what it was asked to.
func (w *World[M, T, C, P]) CompleteRevocation(name string) error {
	p, err := w.live(name)
	if err != nil {
		return err
	}
	if p.Revoking.IsEmpty() {
		return fmt.Errorf("member %s has no revocation pending", name)
	}
	done := p.Revoking
	p.stopRevoking()
	w.commit(name, done) // what it processed of them, before the member acknowledges
	w.stepMember(name, w.Family.RevocationDone(done))
	return nil
}

// stopRevoking ends the pending revocation, done or abandoned.
func (p *Process[M, T, C, P]) stopRevoking() {
	p.Revoking, p.Overrun = nil, false
}

// OverrunRevocation makes the application of process name overrun the
// revocation it has pending: timers fire while it revokes, as for a Slow
// application, until it finishes (CompleteRevocation).
func (w *World[M, T, C, P]) OverrunRevocation(name string) error {
	if _, err := w.live(name); err != nil {
		return err
	}
	if w.Process(name).Revoking.IsEmpty() {
		return fmt.Errorf("member %s has no revocation pending", name)
	}
	p := w.own(name)
	p.Overrun = true
	if !w.unlogged {
		w.logf("%s's application overruns its revocation of %s", name, p.Revoking)
	}
	return nil
}

// SetSlow makes a process's application slow (it revokes only on an
// explicit CompleteRevocation) or prompt.
func (w *World[M, T, C, P]) SetSlow(name string, slow bool) error {
	if _, err := w.process(name); err != nil {
		return err
	}
	w.own(name).Slow = slow
	return nil
}

// Isolate makes every message to or from a process lost until healed.
func (w *World[M, T, C, P]) Isolate(name string, isolated bool) error {
	if _, err := w.process(name); err != nil {
		return err
	}
	w.own(name).Isolated = isolated
	return nil
}

// UpdateMetadata changes the partition counts and tells the coordinator.
func (w *World[M, T, C, P]) UpdateMetadata(topics spec.Topics) error {
	if !w.Family.CoordinatorTakesMetadata() {
		return fmt.Errorf("the %s coordinator takes no metadata", w.Family.Name())
	}
	w.Topics = maps.Clone(topics)
	if !w.unlogged {
		w.logf("metadata %s", node.MetadataUpdate{Topics: topics})
	}
	w.stepCoordinator(node.MetadataUpdate{Topics: maps.Clone(topics)})
	return nil
}

// Event steps a live process's member with e.
func (w *World[M, T, C, P]) Event(name string, e node.Event) error {
	if _, err := w.live(name); err != nil {
		return err
	}
	w.stepMember(name, e)
	return nil
}

// Deliver delivers the i-th message in flight.
func (w *World[M, T, C, P]) Deliver(i int) error {
	if i < 0 || i >= len(w.InFlight) {
		return fmt.Errorf("no message %d in flight (%d)", i, len(w.InFlight))
	}
	env := w.InFlight[i]
	w.removeMessage(i)
	if w.isolated(env.From) || w.isolated(env.To) {
		if !w.unlogged {
			w.logf("lost %s", env)
		}
		w.check()
		return nil
	}
	in := node.Receive[M]{From: env.From, Msg: env.Msg}
	if env.To == node.CoordinatorNode {
		w.stepCoordinator(in)
		return nil
	}
	name := ProcessName(env.To)
	p := w.Process(name)
	if p == nil || p.Node == nil || p.Address(name) != env.To {
		if !w.unlogged {
			w.logf("lost %s (%s is gone)", env, env.To)
		}
		w.check()
		return nil
	}
	w.stepMember(name, in)
	return nil
}

// removeMessage takes the i-th message out of the network, into a new
// slice: a fork shares its parent's (see Fork).
func (w *World[M, T, C, P]) removeMessage(i int) {
	out := append(room(w.spare.network(), len(w.InFlight)-1+2), w.InFlight[:i]...)
	w.InFlight, w.inFlightOwned = append(out, w.InFlight[i+1:]...), true
}

// InFlightCount is the number of messages in flight.
func (w *World[M, T, C, P]) InFlightCount() int { return len(w.InFlight) }

// Drop loses the i-th message in flight.
func (w *World[M, T, C, P]) Drop(i int) error {
	if i < 0 || i >= len(w.InFlight) {
		return fmt.Errorf("no message %d in flight (%d)", i, len(w.InFlight))
	}
	if !w.unlogged {
		w.logf("dropped %s", w.InFlight[i])
	}
	w.removeMessage(i)
	w.Lost++
	w.unclean = true
	w.check()
	return nil
}

// Duplicate sends the i-th message in flight once more.
func (w *World[M, T, C, P]) Duplicate(i int) error {
	if i < 0 || i >= len(w.InFlight) {
		return fmt.Errorf("no message %d in flight (%d)", i, len(w.InFlight))
	}
	w.InFlight, w.inFlightOwned = append(slices.Clip(w.InFlight), w.InFlight[i]), true
	w.Duplicated++
	w.unclean = true
	if !w.unlogged {
		w.logf("duplicated %s", w.InFlight[i])
	}
	w.check()
	return nil
}

// FireTimer fires the i-th armed timer, moving the clock to its deadline
// if that is later than now.
func (w *World[M, T, C, P]) FireTimer(i int) error {
	if i < 0 || i >= len(w.Timers) {
		return fmt.Errorf("no timer %d armed (%d)", i, len(w.Timers))
	}
	if len(w.InFlight) > 0 {
		w.Late++
	}
	name, id, atRisk := w.timelyAtRisk(i)
	removes, counted, answered := w.removes(i)
	t := w.Timers[i]
	// Most timers re-arm when they fire: the list made here, the world's
	// own, has room for that, and apply changes it in place.
	w.ownTimers(1)
	w.Timers = slices.Delete(w.Timers, i, i+1)
	if t.At > w.Now {
		w.Now = t.At
	}
	ev := node.TimerFired[T]{Timer: t.Timer}
	if t.Node == node.CoordinatorNode {
		w.stepCoordinator(ev)
	} else {
		w.stepMember(t.Node, ev)
	}
	if counted && w.Coordinator.MemberNode(removes) == "" {
		switch a := slices.IndexFunc(w.abandoned, func(a abandonment) bool { return a.id == removes }); {
		case a >= 0:
			w.violate(spec.Violation{Law: spec.Timely, Members: []string{w.abandoned[a].process}, Detail: fmt.Sprintf("the coordinator takes member %s out of the group for not answering, %d ms after %s gave that member id up while the group still counted it: the group waited for a member nobody would renew", removes, w.Now-w.abandoned[a].at, w.abandoned[a].process)})
		case !answered:
			w.Removed = w.Now
		}
	}
	if atRisk && !w.Coordinator.IsMember(id) {
		w.violate(spec.Violation{Law: spec.Timely, Members: []string{name}, Detail: fmt.Sprintf("the coordinator expires the session of %s (member %s), which is alive and in the group, after %d lost messages", name, id, w.Lost)})
	}
	return nil
}

// removes returns the member timer i may take out of the group
// (Family.Removes), whether the coordinator counts it now, and whether a
// live process answers for it (holder).
func (w *World[M, T, C, P]) removes(i int) (id spec.MemberID, counted, answered bool) {
	if w.Timers[i].Node != node.CoordinatorNode {
		return "", false, false
	}
	id, ok := w.Family.Removes(w.Timers[i].Timer)
	if !ok || w.Coordinator.MemberNode(id) == "" {
		return id, false, false
	}
	_, answered = w.holder(id)
	return id, true, answered
}

// StabilizeLimit bounds one Stabilize of the scenario language, so a
// livelock shows as an error instead of a hang.
const StabilizeLimit = 100000

// Stabilize delivers messages in send order, and completes the
// revocations of prompt applications (in name order), until nothing is
// left or limit steps were taken; it reports whether everything drained.
func (w *World[M, T, C, P]) Stabilize(limit int) bool {
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
			if p := w.Process(name); p.Node != nil && !p.Slow && !p.Revoking.IsEmpty() {
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
// in deadline order and stabilizing after each, so messages and prompt
// applications are fast next to timers. It reports false if the world did
// not settle.
func (w *World[M, T, C, P]) Advance(d node.Millis) bool {
	end := w.Now + d
	if !w.Stabilize(StabilizeLimit) {
		return false
	}
	for len(w.Timers) > 0 && w.Timers[0].At <= end {
		_ = w.FireTimer(0)
		if !w.Stabilize(StabilizeLimit) {
			return false
		}
	}
	w.Now = end
	return true
}

func (w *World[M, T, C, P]) isolated(addr string) bool {
	p := w.Process(ProcessName(addr))
	return p != nil && p.Isolated
}

// stepCoordinator steps the coordinator with e. In the model checker's
// worlds a step already taken from the same frozen coordinator is taken
// from the memo of coordinator steps, and a new one is kept there
// (stepMemo).
func (w *World[M, T, C, P]) stepCoordinator(e node.Event) {
	memo, key := w.memoKey(e)
	if key != nil {
		defer memo.keys.Put(key)
		if s := memo.lookup(w.Coordinator, key.Buf); s != nil {
			w.takeStep(memo, s, e)
			return
		}
	}
	from := w.Coordinator
	w.ownCoordinator()
	out := w.stepOutput()
	w.Coordinator.StepInto(node.Input{Now: w.Now, Event: e}, out)
	if key != nil {
		w.keepStep(memo, from, key.Buf, out)
	}
	w.applyCoordinatorStep(*out)
	w.release(out)
}

// applyCoordinatorStep performs the output of the coordinator's step that
// has just made w.Coordinator what it is.
func (w *World[M, T, C, P]) applyCoordinatorStep(out node.Output[M, T, C]) {
	if r, ok := w.Coordinator.(TimerResetter); ok && r.TimersReset() {
		w.Timers = w.Timers.DropNode(node.CoordinatorNode)
	}
	w.apply(node.CoordinatorNode, out)
}

// stepOutput returns an empty output for one node's step to write into,
// one that a step before it released if there is one (stepOutputs).
func (w *World[M, T, C, P]) stepOutput() *node.Output[M, T, C] {
	if w.stepOutputs != nil {
		if out, ok := w.stepOutputs.Get().(*node.Output[M, T, C]); ok {
			return out
		}
	}
	return new(node.Output[M, T, C])
}

// release takes back an output from stepOutput once the world has
// applied it. It empties it first (node.Output.Reset), so the buffers
// kept keep no message, callback or round alive. Nothing may read out
// afterwards.
func (w *World[M, T, C, P]) release(out *node.Output[M, T, C]) {
	if w.stepOutputs == nil {
		return
	}
	out.Reset()
	w.stepOutputs.Put(out)
}

// TimerResetter is a coordinator whose step may replace its whole state
// (model/mixed: a group converted between the classic and the consumer
// protocol). TimersReset reports whether its last step did: every timer
// it armed before that step is void, and the world drops them before it
// arms the step's own.
type TimerResetter interface {
	TimersReset() bool
}

func (w *World[M, T, C, P]) stepMember(name string, e node.Event) {
	p := w.own(name)
	id := p.Node.ID()
	out := w.stepOutput()
	p.Node.StepInto(node.Input{Now: w.Now, Event: e}, out)
	if id != "" && p.Node.ID() != id && !p.Node.Phase().Done() && w.Coordinator.MemberNode(id) != "" {
		w.abandoned = append(slices.Clip(w.abandoned), abandonment{id: id, process: name, at: w.Now})
	}
	w.checkSpuriousLoss(name, id, out.Callbacks)
	w.apply(name, *out)
	w.release(out)
}

// networkExcuses reports whether the network has done enough so far to
// excuse a member losing its session or its resources (the Timely and
// NoSpuriousLoss laws): it held a message up across a timer (Late),
// duplicated one (a copy arrives behind later messages, so a stale
// JoinGroup can start a generation a member's SyncGroup then misses), or
// lost at least tolerated messages.
func (w *World[M, T, C, P]) networkExcuses(tolerated int) bool {
	return w.Late > 0 || w.Duplicated > 0 || w.Lost >= tolerated
}

// timelyAtRisk returns the live member (process name and member id) whose
// session timer i may expire at the coordinator, in a run that lost fewer
// than the family's LossesBeforeSessionExpiry messages; ok is false when
// there is none. It judges only runs whose network has been prompt so far
// (Late is 0): a message held up across a timer is the network's doing,
// as a loss is, and may delay a member past its session. The model
// checker's network is always prompt; simulate's random walks are mostly
// not. Whether the session does expire is for the coordinator to
// decide (a member parked in a barrier is kept alive: Kafka's
// hasSatisfiedHeartbeat), so FireTimer reports Timely only if the member
// is gone from the group afterwards.
func (w *World[M, T, C, P]) timelyAtRisk(i int) (name string, id spec.MemberID, ok bool) {
	if i < 0 || i >= len(w.Timers) || w.Timers[i].Node != node.CoordinatorNode || w.networkExcuses(w.Family.LossesBeforeSessionExpiry()) {
		return "", "", false
	}
	id, ok = w.Family.SessionExpiry(w.Timers[i].Timer)
	if !ok || id == "" || !w.Coordinator.IsMember(id) {
		return "", "", false
	}
	name, ok = w.holder(id)
	return name, id, ok
}

// holder returns the live process that answers for member id: the one the
// coordinator has id from, still holding it and not done. An incarnation
// never holds an earlier one's id (the classic coordinator hands each id
// out once, and a next-gen incarnation makes its own), so the id alone
// decides.
func (w *World[M, T, C, P]) holder(id spec.MemberID) (name string, ok bool) {
	addr := w.Coordinator.MemberNode(id)
	if addr == "" {
		return "", false
	}
	name = ProcessName(addr)
	p := w.Process(name)
	return name, p != nil && p.Node != nil && p.Node.ID() == id && !p.Node.Phase().Done()
}

// checkSpuriousLoss reports NoSpuriousLoss when member name, whose member
// id was id before its step, is told its resources are lost while the
// coordinator still counts id in the group, in a run whose network has
// lost nothing and been prompt (Lost and Late 0): nothing the environment
// did can explain the loss.
func (w *World[M, T, C, P]) checkSpuriousLoss(name string, id spec.MemberID, cbs []C) {
	if id == "" || w.networkExcuses(1) || !w.Coordinator.IsMember(id) {
		return
	}
	for _, cb := range cbs {
		if w.Family.LostCallback(cb) {
			w.violate(spec.Violation{Law: spec.NoSpuriousLoss, Members: []string{name}, Detail: fmt.Sprintf("%s (member %s) is told %s while the coordinator counts it in the group", name, id, cb)})
			return
		}
	}
}

// ownTimers makes the timer list the world's own before a change in
// place: a fork shares the list with the world it was forked from, so the
// first change copies it, with room for extra more timers.
func (w *World[M, T, C, P]) ownTimers(extra int) {
	if w.timersOwned {
		return
	}
	w.Timers = append(room(w.spare.timerList(), len(w.Timers)+extra), w.Timers...)
	w.timersOwned = true
}

// apply performs a node's output: it queues messages, updates the timer
// list, logs callbacks and hands the application what it must revoke,
// records and checks a reported round, and checks the laws.
func (w *World[M, T, C, P]) apply(from string, out node.Output[M, T, C]) {
	p := w.Process(from)
	if !w.inFlightOwned && len(out.Messages) > 0 {
		// A fork's network is its parent's: it gets one of its own, with
		// room for the messages.
		w.InFlight = append(room(w.spare.network(), len(w.InFlight)+len(out.Messages)), w.InFlight...)
		w.inFlightOwned = true
	}
	for _, m := range out.Messages {
		if p != nil {
			m.From = p.Address(from)
		}
		w.InFlight = append(w.InFlight, m)
		if w.Verbose {
			if !w.unlogged {
				w.logf("send %s", m)
			}
		}
	}
	if len(out.Timers) > 0 {
		w.ownTimers(len(out.Timers))
	}
	for _, tc := range out.Timers {
		w.Timers = w.Timers.Put(from, tc.Timer, tc.At, tc.Cancel)
		if !tc.Cancel {
			if line := w.Family.LogTimer(from, tc, w.Now); line != "" {
				if !w.unlogged {
					w.logf("%s", line)
				}
			}
		}
	}
	for _, cb := range out.Callbacks {
		if !w.unlogged {
			w.logf("%s: %s", from, cb)
		}
		if p == nil {
			continue
		}
		switch revoke, forget := w.Family.RevokeCallback(cb); {
		case forget:
			p.stopRevoking()
		case !revoke.IsEmpty():
			p.Revoking = p.Revoking.Union(revoke)
		}
		if w.Records > 0 {
			w.deliveryCallback(from, cb)
		}
	}
	if out.RoundFailed {
		w.FailedRounds++
	}
	if out.Round != nil {
		gen := spec.NoGeneration
		if p != nil && p.Node != nil {
			gen = p.Node.Generation()
		}
		rec := RoundRecord{Leader: from, Generation: gen, Protocol: w.Coordinator.Protocol(), Round: *out.Round}
		w.Rounds = append(w.Rounds, rec)
		if !w.unlogged {
			w.logf("%s", rec)
		}
		for _, v := range spec.CheckRound(w.withDepartedClaims(rec.Round)) {
			w.violate(v)
		}
		for _, v := range spec.CheckHeldBack(rec.Round, w.departed(rec.Round)) {
			w.violate(v)
		}
	}
	if out.Withheld != nil {
		for _, v := range spec.CheckNoNeedlessWait(*out.Withheld) {
			w.violate(v)
		}
	}
	for _, r := range []*spec.Round{out.Round, out.Target} {
		if r != nil && r.Sticky {
			for _, v := range spec.CheckStableWhenBalanced(*r) {
				w.violate(v)
			}
		}
	}
	w.check()
}

// IDIssuer is a coordinator that hands out member ids itself (the classic
// coordinator). IssuedIDs counts every id it has handed out; every member
// of a round holds one of them.
type IDIssuer interface {
	IssuedIDs() int
}

// departed reports whether some member id the group has had is missing
// from round r: always true where the coordinator does not hand out ids
// (the world cannot tell, so Timely's delay clause is not judged there).
// Where it does, an id is handed out to one member once and never again,
// and a member that leaves, is removed or restarts joins again with a new
// one, so the group has lost a member exactly when fewer members are in
// the round than ids were handed out.
func (w *World[M, T, C, P]) departed(r spec.Round) bool {
	ids, ok := w.Coordinator.(IDIssuer)
	return !ok || ids.IssuedIDs() > len(r.Subscriptions)
}

// withDepartedClaims returns r, cooperative, with the claims of every
// process that left the group of its own accord and still believes it
// owns something added to those of the round's members, so that
// CooperativeHandoff sees a resource handed over while a departed member
// still works on it. Such a member is not excused as a fenced zombie is
// (see spec.MemberView.Fenced): nothing fences its work. r itself is not
// changed; a round that is not cooperative is returned as it is.
func (w *World[M, T, C, P]) withDepartedClaims(r spec.Round) spec.Round {
	if !r.Cooperative {
		return r
	}
	var claims map[spec.MemberID]spec.Set
	for _, mv := range w.View().Members {
		if mv.Current || mv.Fenced || mv.Owns.IsEmpty() {
			continue
		}
		id := mv.ID
		if id == "" {
			id = spec.MemberID(mv.Name)
		}
		if _, inRound := r.Subscriptions[id]; inRound {
			continue
		}
		if claims == nil {
			claims = maps.Clone(r.Claims)
		}
		claims[id] = mv.Owns
	}
	if claims != nil {
		r.Claims = claims
	}
	return r
}

// logf adds a line to the log. Its callers test unlogged first: the
// model checker's steps keep no log, and the arguments alone, converted
// for the call, were several allocations a step.
func (w *World[M, T, C, P]) logf(format string, args ...any) {
	if w.unlogged {
		return
	}
	w.Log = append(w.Log, fmt.Sprintf(format, args...))
}

// DrainLog returns the log and empties it.
func (w *World[M, T, C, P]) DrainLog() []string {
	l := w.Log
	w.Log = nil
	return l
}

func (w *World[M, T, C, P]) violate(v spec.Violation) {
	w.Violations = append(w.Violations, v)
	if !w.unlogged {
		w.logf("VIOLATION %s", v)
	}
}

// check runs the state and step laws on the current view, and the
// coordinator's invariants. A fork that has not stepped its coordinator
// shares it with the world it was forked from, where it was checked, and
// one that took a step from the memo shares the step's result, checked
// when it was kept (keepStep): the invariants are checked again only
// where w owns the coordinator.
//
// A step that changed nothing the laws see (a heartbeat, most deliveries
// to the coordinator) leaves the view equal to the last one: when the laws
// held there, they hold again (the state laws read one view, and the step
// laws, given two equal views, read only the second), so they are not run
// again. A broken law is reported again on every step while it stays
// broken, as before.
func (w *World[M, T, C, P]) check() {
	changed := !w.viewUnchanged(w.prev)
	if changed {
		w.Changed = w.Now
	}
	if w.lawsBroken || changed {
		v := w.view(w.prev)
		before := len(w.Violations)
		for _, x := range spec.CheckState(v) {
			w.violate(x)
		}
		for _, x := range spec.CheckStep(w.prev, v) {
			w.violate(x)
		}
		w.lawsBroken = len(w.Violations) > before
		w.prev, w.prevOwned = v, true
		w.noteFences(v)
	}
	if w.coordinatorOwned {
		if err := w.Coordinator.CheckInvariants(); err != nil {
			w.violate(spec.Violation{Law: CoordinatorInvariant, Detail: err.Error()})
		}
	}
}

// viewUnchanged reports whether the view of w equals prev in everything
// the laws read, without building it.
func (w *World[M, T, C, P]) viewUnchanged(prev spec.View) bool {
	if len(prev.Members) != len(w.names) || !sameTopics(w.Topics, prev.Topics) && !maps.Equal(w.Topics, prev.Topics) {
		return false
	}
	for i, name := range w.names {
		y := &prev.Members[i]
		if y.Name != name {
			return false
		}
		p := w.procs[i]
		if p.owner != w.serial {
			// The process is that of the world whose view prev is: only
			// whether it is current may differ, and only if the
			// coordinator changed (memberView would return y with
			// Current and Fenced computed again, or y itself). Fenced
			// follows: it is !Current and the phase of the same node.
			if w.coordinatorFresh && p.Node != nil && w.isCurrent(name, p, y.ID) != y.Current {
				return false
			}
			continue
		}
		x := w.memberView(name, p, y)
		if x.ID != y.ID || x.Current != y.Current || x.Fenced != y.Fenced || x.Generation != y.Generation ||
			!slices.Equal(x.Subscription, y.Subscription) || !slices.Equal(x.Owns, y.Owns) || !slices.Equal(x.Revoking, y.Revoking) {
			return false
		}
	}
	return true
}

// View maps the world to the ownership view: a live process is a current
// member when the coordinator counts its member id from the process's
// current incarnation. A live process the coordinator no longer counts
// because it was removed (its session or the JoinGroup barrier expired) is
// fenced: a zombie whose commits under its stale generation or epoch are
// rejected (spec.ExclusiveOwnership says, per protocol, what that
// tolerance rests on). A process that left the group of its own accord
// (phase Left: it sent LeaveGroup or its leave heartbeat) is departed,
// never fenced: every protocol has it give up what it owns before it
// leaves, so whatever it still owns counts. A process that is down owns
// nothing.
func (w *World[M, T, C, P]) View() spec.View { return w.view(spec.View{}) }

// view is View, taking the member views of processes that w shares with
// the world it was forked from (unchanged since that world's last check)
// from that world's view, prev, when it has them. Names are sorted in
// both, so one pass finds them.
func (w *World[M, T, C, P]) view(prev spec.View) spec.View {
	v := spec.View{Topics: w.Topics, Members: room(w.spare.memberViews(), len(w.names))}
	j := 0
	for i, name := range w.names {
		for j < len(prev.Members) && prev.Members[j].Name < name {
			j++
		}
		var was *spec.MemberView
		if j < len(prev.Members) && prev.Members[j].Name == name {
			was = &prev.Members[j]
		}
		v.Members = append(v.Members, w.memberView(name, w.procs[i], was))
	}
	return v.Sort()
}

// memberView is the view of process name, p. When w shares p with the
// world it was forked from, was (if not nil) is p's view there: only
// whether p is current is computed again, and only if w does not share
// the coordinator too.
func (w *World[M, T, C, P]) memberView(name string, p *Process[M, T, C, P], was *spec.MemberView) spec.MemberView {
	var mv spec.MemberView
	switch {
	case p.owner != w.serial && was != nil && !w.coordinatorFresh:
		// The process and the coordinator are both those of the world
		// whose view was is: whether p is current is what it was there.
		return *was
	case p.owner != w.serial && was != nil:
		mv = *was
	case p.Node == nil:
		subs := w.Family.MemberTopics(*p.config)
		if !slices.IsSorted(subs) {
			subs = slices.Sorted(slices.Values(subs))
		}
		return spec.MemberView{Name: name, Generation: spec.NoGeneration, Fenced: true, Subscription: subs}
	default:
		mv = w.Family.AdjustView(p.Node.View())
	}
	if p.Node != nil {
		mv.Current = w.isCurrent(name, p, mv.ID)
		mv.Fenced = !mv.Current && p.Node.Phase() != Left
	}
	return mv
}

// isCurrent reports whether live process name, p, whose member holds
// member id id, is a current member (see View).
func (w *World[M, T, C, P]) isCurrent(name string, p *Process[M, T, C, P], id spec.MemberID) bool {
	return id != "" && w.Coordinator.IsMemberAt(id, p.Address(name))
}

// Quiet reports whether nothing is in flight and no member is between a
// JoinGroup and the end of its SyncGroup: the group has settled until the
// next timer.
func (w *World[M, T, C, P]) Quiet() bool {
	return len(w.InFlight) == 0 && !w.rebalancing()
}

// rebalancing reports whether some live member is between a JoinGroup and
// the end of its SyncGroup (Phase Rebalancing; the next-gen family has no
// such phase).
func (w *World[M, T, C, P]) rebalancing() bool {
	for _, p := range w.procs {
		if p.Node != nil && p.Node.Phase() == Rebalancing {
			return true
		}
	}
	return false
}

// Settled reports whether the group is between rebalances: quiet, the
// coordinator stable, and every live member settled (or done).
func (w *World[M, T, C, P]) Settled() bool {
	if !w.Quiet() || !w.Coordinator.Stable() {
		return false
	}
	for _, p := range w.procs {
		if p.Node != nil {
			if ph := p.Node.Phase(); ph != Settled && !ph.Done() {
				return false
			}
		}
	}
	return true
}

// LeaderProcess returns the name of the live process whose member id
// leads the coordinator's current generation, "" when none does.
func (w *World[M, T, C, P]) LeaderProcess() string {
	id := w.Coordinator.Leader()
	if id == "" || !w.Coordinator.IsMember(id) {
		return ""
	}
	addr := w.Coordinator.MemberNode(id)
	name := ProcessName(addr)
	p := w.Process(name)
	if p == nil || p.Node == nil || p.Address(name) != addr {
		return ""
	}
	return name
}

// Ownership prints the view, one member per line, followed by the
// coordinator's summary and, in a world with records, each partition
// processed or committed (see Delivery).
func (w *World[M, T, C, P]) Ownership() string {
	return w.View().String() + "coordinator " + w.Coordinator.Summary() + "\n" + w.deliveryString()
}
