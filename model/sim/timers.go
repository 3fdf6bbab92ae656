// Package sim holds the mechanics the closed worlds share: the armed
// timers of every node, kept in firing order. It is pure and generic over
// each protocol family's timer and time types.
package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/node"
)

// Timer is how a node names one of its timers: a comparable value that
// prints deterministically.
type Timer interface {
	comparable
	String() string
}

// Pending is a timer a node armed, with its deadline.
type Pending[T Timer, M ~int64] struct {
	Node  string
	Timer T
	At    M
}

// String prints "node:timer@At".
func (p Pending[T, M]) String() string { return fmt.Sprintf("%s:%s@%d", p.Node, p.Timer, p.At) }

// Timers is the armed timers of a world, sorted by deadline, then node
// (every member before the coordinator, node.CoordinatorNode, and members
// by name), then timer name, so that firing the first one is
// deterministic. Timers due at one instant fire in that order: putting
// the coordinator after the members by rule, not by where its name falls
// among theirs, keeps a world's behaviour the same whatever its members
// are called, as long as their own order is kept. A node
// has at most one entry per timer. Methods return the updated list and,
// but for Put, do not write to the receiver's backing array.
type Timers[T Timer, M ~int64] []Pending[T, M]

// Set arms timer t of node at at (replacing an earlier deadline), or
// disarms it when cancel is set.
func (ts Timers[T, M]) Set(node string, t T, at M, cancel bool) Timers[T, M] {
	out := make(Timers[T, M], 0, len(ts)+1)
	for _, p := range ts {
		if p.Node != node || p.Timer != t {
			out = append(out, p)
		}
	}
	if cancel {
		return out
	}
	p := Pending[T, M]{Node: node, Timer: t, At: at}
	i, _ := slices.BinarySearchFunc(out, p, compare[T, M])
	out = append(out, Pending[T, M]{})
	copy(out[i+1:], out[i:])
	out[i] = p
	return out
}

// Put is Set writing to the receiver's backing array, for a caller that
// owns it: it returns what Set returns, without copying the list.
func (ts Timers[T, M]) Put(node string, t T, at M, cancel bool) Timers[T, M] {
	ts = slices.DeleteFunc(ts, func(p Pending[T, M]) bool { return p.Node == node && p.Timer == t })
	if cancel {
		return ts
	}
	p := Pending[T, M]{Node: node, Timer: t, At: at}
	i, _ := slices.BinarySearchFunc(ts, p, compare[T, M])
	return slices.Insert(ts, i, p)
}

// DropNode disarms every timer of node (its process stopped).
func (ts Timers[T, M]) DropNode(node string) Timers[T, M] {
	return slices.DeleteFunc(slices.Clone(ts), func(p Pending[T, M]) bool { return p.Node == node })
}

// Take removes and returns the i-th timer.
func (ts Timers[T, M]) Take(i int) (Pending[T, M], Timers[T, M]) {
	p := ts[i]
	return p, slices.Delete(slices.Clone(ts), i, i+1)
}

func compare[T Timer, M ~int64](a, b Pending[T, M]) int {
	switch {
	case a.At != b.At:
		if a.At < b.At {
			return -1
		}
		return 1
	case a.Node != b.Node:
		if a.Node == node.CoordinatorNode || b.Node == node.CoordinatorNode {
			if a.Node == node.CoordinatorNode {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Node, b.Node)
	default:
		return strings.Compare(a.Timer.String(), b.Timer.String())
	}
}
