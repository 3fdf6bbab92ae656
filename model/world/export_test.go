package world

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/sim"
	"github.com/rebalance-ref/rebalance/spec"
)

// EncodeAfresh is m.Encode on a copy of s that keeps no recorded
// encoding of its coordinator or processes: the reference the
// recordings are checked against.
func EncodeAfresh[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](m *Model[M, T, C, P], e *canon.Encoder, s *State[M, T, C, P]) {
	w := *s.W
	w.coordinatorEncoding, w.topicsEncoding, w.frozen = canon.Recording{}, nil, false
	w.procs = make([]*Process[M, T, C, P], len(s.W.procs))
	for i, p := range s.W.procs {
		q := *p
		q.encoding = canon.Recording{}
		w.procs[i] = &q
	}
	m.Encode(e, &State[M, T, C, P]{W: &w, U: s.U, Rounds: s.Rounds})
}

// Recorded returns whether s has its coordinator's encoding recorded (by
// the state it was forked from, or its own), and how many of its
// processes it shares with a recorded encoding.
func Recorded[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](s *State[M, T, C, P]) (coordinator bool, processes int) {
	for _, p := range s.W.procs {
		if p.encoding.Recorded() && p.owner != s.W.serial {
			processes++
		}
	}
	return s.W.coordinatorEncoding.Recorded(), processes
}

// Consumable is World.consumable, and ConsumableByReason the partitions
// of name's view for which cannotConsume has no reason: the reference.
func Consumable[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](w *World[M, T, C, P], name string) spec.Set {
	return w.consumable(name)
}

// ConsumableByReason is the reference for Consumable: the partitions the
// member of process name owns that cannotConsume gives no reason against.
func ConsumableByReason[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](w *World[M, T, C, P], name string) spec.Set {
	p := w.Process(name)
	if p.Node == nil {
		return nil
	}
	var out spec.Set
	for _, r := range p.Node.View().Owns {
		if w.cannotConsume(p, r) == "" {
			out = append(out, r)
		}
	}
	return out
}

// DeliveryByFilter is the reference for Delivery: every resource of the
// topics, filtered by hasLog, each with a copy of its counts.
func DeliveryByFilter[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](w *World[M, T, C, P]) spec.Delivery {
	d := spec.Delivery{Clean: !w.unclean}
	if w.Records == 0 {
		return d
	}
	for _, r := range w.Topics.Resources(w.Topics.Names()...) {
		if !w.hasLog(r) {
			continue
		}
		counts, _ := w.processed.get(r)
		counts = slices.Clone(counts)
		if counts == nil {
			counts = make([]int, w.Records)
		}
		committed, _ := w.committed.get(r)
		d.Partitions = append(d.Partitions, spec.Progress{Resource: r, Committed: committed, Processed: counts})
	}
	return d
}

// DeliveryShared is the delivery view checkDelivery judges.
func DeliveryShared[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](w *World[M, T, C, P]) spec.Delivery {
	return w.delivery(false)
}

// EncodeTopicsFrozen writes w's metadata as a frozen world's encoding
// does (encodeTopics), keeping it for w's forks.
func EncodeTopicsFrozen[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](w *World[M, T, C, P], e *canon.Encoder) {
	frozen := w.frozen
	w.frozen = true
	w.encodeTopics(e)
	w.frozen = frozen
}

// TopicsKept reports whether w keeps an encoding of its metadata.
func TopicsKept[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](w *World[M, T, C, P]) bool {
	return w.topicsEncoding != nil
}

// SetStepMemo turns m's memo of coordinator steps off (on false), or on
// with every hit checked against a step afresh (verify), counting its
// lookups (CountStepMemo).
func SetStepMemo[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](m *Model[M, T, C, P], on, verify bool) {
	m.init.coordinatorSteps = nil
	if on {
		m.init.coordinatorSteps = newStepMemo[M, T, C]()
		m.init.coordinatorSteps.verify = verify
		m.init.coordinatorSteps.counting = true
	}
}

// CountStepMemo makes m's memo of coordinator steps, if it has one, count
// its lookups from now on (StepMemoCounts).
func CountStepMemo[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](m *Model[M, T, C, P]) {
	if s := m.init.coordinatorSteps; s != nil {
		s.counting = true
	}
}

// StepMemoCounts returns how many lookups of m's memo of coordinator
// steps found a step, and how many did not, while it counted them
// (SetStepMemo, CountStepMemo).
func StepMemoCounts[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](m *Model[M, T, C, P]) (hits, misses int64) {
	if s := m.init.coordinatorSteps; s != nil {
		return s.hits.Load(), s.misses.Load()
	}
	return 0, 0
}

// MemoStepAgrees reports whether the memo step w holds for its
// coordinator (World.coordinatorStep), if any, is the step that made it:
// Keep leaves w's coordinator's encoding with that step.
func MemoStepAgrees[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](w *World[M, T, C, P]) bool {
	return w.coordinatorStep == nil || w.coordinatorStep.to == w.Coordinator
}

// StepTwice steps a from s into a new state struct with spares (as Step
// does when it recycles nothing), discards that successor as
// Model.Discard does, and steps b from s2 into the same struct, as Step
// does when it takes the struct back. It returns the second successor,
// the laws its step broke, and the kinds of memory the second step took
// from the first one's spares: "network", "timers", "process list",
// "view", "process" and "node".
func StepTwice[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](m *Model[M, T, C, P], s *State[M, T, C, P], a Action, s2 *State[M, T, C, P], b Action) (*State[M, T, C, P], []spec.Violation, []string) {
	t := newStateWorld[M, T, C, P]()
	m.stepInto(t, s, a)
	was := ownArrays(t.W)
	processes := map[*Process[M, T, C, P]]bool{}
	var nodes []Member[M, T, C]
	for _, p := range t.W.procs {
		if p.owner == t.W.serial {
			processes[p] = true
			if p.Node != nil && !p.sharedNode {
				nodes = append(nodes, p.Node)
			}
		}
	}
	// Discard, but for the pool: the struct is stepped into at once.
	t.W.discard()
	t.clear()
	viols := m.stepInto(t, s2, b)
	var reused []string
	now := ownArrays(t.W)
	for _, k := range []string{"network", "timers", "process list", "view"} {
		if was[k] != nil && now[k] == was[k] {
			reused = append(reused, k)
		}
	}
	if slices.ContainsFunc(t.W.procs, func(p *Process[M, T, C, P]) bool { return processes[p] }) {
		reused = append(reused, "process")
	}
	if slices.ContainsFunc(t.W.procs, func(p *Process[M, T, C, P]) bool { return p.Node != nil && slices.Contains(nodes, p.Node) }) {
		reused = append(reused, "node")
	}
	return t, viols, reused
}

// ownArrays returns the first elements of the arrays w owns (for
// StepTwice to compare), by kind; a nil pointer for one it does not own.
func ownArrays[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](w *World[M, T, C, P]) map[string]any {
	return map[string]any{
		"network":      firstOf(w.inFlightOwned, w.InFlight),
		"timers":       firstOf(w.timersOwned, w.Timers),
		"process list": firstOf(w.processesOwned, w.procs),
		"view":         firstOf(w.prevOwned, w.prev.Members),
	}
}

// firstOf returns the address of the first element of s's array when own
// is set and the array has one, else nil (an untyped nil, which no
// address equals).
func firstOf[S ~[]E, E any](own bool, s S) any {
	if !own || cap(s) == 0 {
		return nil
	}
	return &s[:1][0]
}

// Describe prints everything s holds that a step can change, and no
// bookkeeping (owners, recordings, spares): two states that describe
// alike are the same state.
func Describe[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](s *State[M, T, C, P]) string {
	w := s.W
	var b strings.Builder
	fmt.Fprintf(&b, "used=%+v rounds=%d now=%d topics=%v changed=%d removed=%d lost=%d duplicated=%d late=%d unclean=%t\n",
		s.U, s.Rounds, w.Now, w.Topics, w.Changed, w.Removed, w.Lost, w.Duplicated, w.Late, w.unclean)
	fmt.Fprintf(&b, "coordinator %s\n", w.Coordinator)
	for i, name := range w.names {
		p := w.procs[i]
		fmt.Fprintf(&b, "process %s config=%+v isolated=%t incarnation=%d revoking=%v slow=%t overrun=%t positions=%v unsent=%v\n",
			name, *p.config, p.Isolated, p.Incarnation, p.Revoking, p.Slow, p.Overrun, p.positions, p.unsent)
		if p.Node != nil {
			fmt.Fprintf(&b, "  %s\n", p.Node)
		}
	}
	for _, e := range w.InFlight {
		fmt.Fprintf(&b, "in flight %s\n", e)
	}
	for _, t := range w.Timers {
		fmt.Fprintf(&b, "timer %+v\n", t)
	}
	fmt.Fprintf(&b, "view %+v\ncommitted=%v processed=%v abandoned=%+v violations=%v rounds=%v failed=%d\n",
		w.prev, w.committed, w.processed, w.abandoned, w.Violations, w.Rounds, w.FailedRounds)
	return b.String()
}

// SparesHeld is how many elements the spare lists of s's world have room
// for (0 when it has none).
func SparesHeld[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](s *State[M, T, C, P]) int {
	sp := s.W.spare
	if sp == nil {
		return 0
	}
	return cap(sp.inFlight) + cap(sp.timers) + cap(sp.procs) + cap(sp.members) + len(sp.processes) + len(sp.nodes)
}

// HasSpares reports whether w has spares of its own to take from.
func HasSpares[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](w *World[M, T, C, P]) bool {
	return w.spare != nil
}
