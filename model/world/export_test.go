package world

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/sim"
	"github.com/rebalance-ref/rebalance/spec"
)

// EncodeAfresh is m.Encode on a copy of s that keeps no encoding of its
// coordinator: the reference the kept encodings are checked against.
func EncodeAfresh[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](m *Model[M, T, C, P], e *canon.Encoder, s *State[M, T, C, P]) {
	w := *s.W
	w.coordinatorEncoding, w.frozen = nil, false
	m.Encode(e, &State[M, T, C, P]{W: &w, U: s.U, Rounds: s.Rounds})
}

// KeepsCoordinatorEncoding reports whether s has an encoding of its
// coordinator kept (by the state it was forked from, or its own).
func KeepsCoordinatorEncoding[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](s *State[M, T, C, P]) bool {
	return s.W.coordinatorEncoding != nil
}

// Consumable is World.consumable, and ConsumableByReason the partitions
// of name's view for which cannotConsume has no reason: the reference.
func Consumable[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](w *World[M, T, C, P], name string) spec.Set {
	return w.consumable(name)
}

// ConsumableByReason is the reference for Consumable: the partitions the
// member of process name owns that cannotConsume gives no reason against.
func ConsumableByReason[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](w *World[M, T, C, P], name string) spec.Set {
	p := w.Processes[name]
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
