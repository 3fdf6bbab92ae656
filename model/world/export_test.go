package world

import (
	"fmt"
	"slices"

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
