package world

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/sim"
	"github.com/rebalance-ref/rebalance/spec"
)

// Most successors the model checker makes it has seen before, and drops
// at once: half of them in the default next-gen world, a quarter to a
// third in the classic ones. What such a successor's world made for
// itself (Fork: its network, its timer list, its process list, the
// processes and member nodes it copied, its view) nobody else uses, and
// the next successor stepped into the same struct needs the same kinds of
// memory. Model.Discard keeps it, emptied, with the struct (spares), and
// the world takes from there before it allocates. On TLC's next-gen
// world that made 18 % fewer allocations and 24 % fewer bytes, on the
// classic ones 7 to 9 % fewer of each (docs/checker-rounds.md, issue
// 13's twenty-second round).

// stateWorld is a state allocated together with its world and its
// world's spares (Step): they live and die together (Recycle keeps them).
type stateWorld[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any] struct {
	s  State[M, T, C, P]
	w  World[M, T, C, P]
	sp spares[M, T, C, P]
}

// newStateWorld returns a new state of a new world with spares of its
// own.
func newStateWorld[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any]() *State[M, T, C, P] {
	sw := new(stateWorld[M, T, C, P])
	sw.w.spare = &sw.sp
	sw.s.W = &sw.w
	return &sw.s
}

// spares is memory a discarded world owned, emptied, for the next world
// made in the same struct to take (each list is nil once taken, and
// never shared). Invariant: nothing else refers to any of it; processes
// and nodes hold no nil entries.
type spares[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any] struct {
	inFlight  []node.Envelope[M]         // for removeMessage
	timers    sim.Timers[T, node.Millis] // for ownTimers
	procs     []*Process[M, T, C, P]     // for ownProcesses
	members   []spec.MemberView          // for view
	processes []*Process[M, T, C, P]     // for copyProcess, cleared
	nodes     []Member[M, T, C]          // for cloneNode
}

// forKeeps lets go of the spares a world the checker keeps did not use,
// so that the frontier does not hold them; the lists of spare processes
// and nodes keep their arrays, emptied.
func (sp *spares[M, T, C, P]) forKeeps() {
	sp.inFlight, sp.timers, sp.procs, sp.members = nil, nil, nil, nil
	clear(sp.processes)
	clear(sp.nodes)
	sp.processes, sp.nodes = sp.processes[:0], sp.nodes[:0]
}

// Discard takes back a successor the checker dropped unexpanded
// (checker.Discarder): no world was forked from it, so what its world
// made for itself is nobody else's. It keeps that memory as the struct's
// spares (World.discard) and recycles the state (Recycle).
func (m *Model[M, T, C, P]) Discard(s *State[M, T, C, P]) {
	s.W.discard()
	m.Recycle(s)
}

// discard moves what w made for itself into w.spare, emptied: the
// network, timer list, process list and view it owns (inFlightOwned,
// timersOwned, processesOwned, prevOwned), and the processes it copied
// (owner is w.serial) with their nodes unless shared (sharedNode). w must
// have no forks; nothing may use w afterwards but Recycle. A world with
// no spares (made outside Step) keeps nothing.
func (w *World[M, T, C, P]) discard() {
	sp := w.spare
	if sp == nil {
		return
	}
	if w.inFlightOwned {
		clear(w.InFlight)
		sp.inFlight = w.InFlight[:0]
	}
	if w.timersOwned {
		clear(w.Timers)
		sp.timers = w.Timers[:0]
	}
	for _, p := range w.procs {
		if p == nil || p.owner != w.serial {
			continue
		}
		if p.Node != nil && !p.sharedNode {
			sp.nodes = append(sp.nodes, p.Node)
		}
		*p = Process[M, T, C, P]{}
		sp.processes = append(sp.processes, p)
	}
	if w.processesOwned {
		clear(w.procs)
		sp.procs = w.procs[:0]
	}
	if w.prevOwned {
		clear(w.prev.Members)
		sp.members = w.prev.Members[:0]
	}
}

// copyProcess returns a copy of p for w to own (owner w.serial, no
// recorded encoding), in a spare process struct when w has one. Its node
// is p's: the caller copies it or marks it shared.
func (w *World[M, T, C, P]) copyProcess(p *Process[M, T, C, P]) *Process[M, T, C, P] {
	var q *Process[M, T, C, P]
	if sp := w.spare; sp != nil {
		q, _ = pop(&sp.processes)
	}
	if q == nil {
		q = new(Process[M, T, C, P])
	}
	*q = *p
	q.owner, q.encoding = w.serial, canon.Recording{}
	return q
}

// cloneNode returns w's own copy of n, in a spare node's memory when w
// has one of n's family.
func (w *World[M, T, C, P]) cloneNode(n Member[M, T, C]) Member[M, T, C] {
	var into Member[M, T, C]
	if sp := w.spare; sp != nil {
		into, _ = pop(&sp.nodes)
	}
	return n.CloneMember(into)
}

// pop takes the last element off *list, leaving its slot zero so that
// the list's array does not hold it; false when the list is empty.
func pop[E any](list *[]E) (E, bool) {
	var zero E
	n := len(*list)
	if n == 0 {
		return zero, false
	}
	e := (*list)[n-1]
	(*list)[n-1] = zero
	*list = (*list)[:n-1]
	return e, true
}

// room returns an empty slice with room for n: *spare, which it then
// sets to nil, when that has the room, else a new one. spare may be nil.
func room[S ~[]E, E any](spare *S, n int) S {
	if spare != nil && cap(*spare) >= n {
		s := (*spare)[:0]
		*spare = nil
		return s
	}
	return make(S, 0, n)
}

// network, timerList, procList and memberViews are the spare lists for
// room: nil when sp is (a world with no spares).
func (sp *spares[M, T, C, P]) network() *[]node.Envelope[M] {
	if sp == nil {
		return nil
	}
	return &sp.inFlight
}

func (sp *spares[M, T, C, P]) timerList() *sim.Timers[T, node.Millis] {
	if sp == nil {
		return nil
	}
	return &sp.timers
}

func (sp *spares[M, T, C, P]) procList() *[]*Process[M, T, C, P] {
	if sp == nil {
		return nil
	}
	return &sp.procs
}

func (sp *spares[M, T, C, P]) memberViews() *[]spec.MemberView {
	if sp == nil {
		return nil
	}
	return &sp.members
}
