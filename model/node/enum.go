package node

import (
	"fmt"
	"strconv"
)

// Enum names the values of an enum type E whose values count from 0:
// Names[e] is e's name, and a value without one prints as "Type(e)". Every
// family's kinds and states (timer and callback kinds, member and group
// states, decisions) print through one.
type Enum[E ~uint8] struct {
	// Type names E in the text of a value past the end of Names.
	Type string
	// Names are the values' names, in value order.
	Names []string
}

// Name returns e's name, or "Type(e)" when e has none.
func (n *Enum[E]) Name(e E) string {
	if int(e) < len(n.Names) {
		return n.Names[e]
	}
	return n.Type + "(" + strconv.Itoa(int(e)) + ")"
}

// Machine is a node's state machine over the states S (at most 32, counting
// from 0): their names and the moves allowed between them. A node writes its
// state only through Move, so an impossible move is caught where it is made.
type Machine[S ~uint8] struct {
	Enum[S]
	// Owner starts the text of an impossible move's panic ("classic:
	// member", "coordinator: group").
	Owner string
	// Moves[from] is the set of states from may move to, a bit per state
	// (1<<to). A state past the end of Moves may move nowhere.
	Moves []uint32
	// Phases[s] is where a member in state s is (Phase), for a member's
	// machine; nil for another node's. A state past its end is Active.
	Phases []Phase
}

// Phase is where a member in state s is: Phases[s], Active past its end.
func (m *Machine[S]) Phase(s S) Phase {
	if int(s) < len(m.Phases) {
		return m.Phases[s]
	}
	return Active
}

// Allows reports whether from may move to to.
func (m *Machine[S]) Allows(from, to S) bool {
	return int(from) < len(m.Moves) && to < 32 && m.Moves[from]&(1<<to) != 0
}

// Final reports whether s is a final state: one that may move nowhere.
func (m *Machine[S]) Final(s S) bool { return int(s) >= len(m.Moves) || m.Moves[s] == 0 }

// Move returns to when from may move to it. Otherwise it panics (an
// impossible move is a bug in the node) with "Owner name: invalid
// transition [from -> to]" (no space and name when name is empty),
// followed on the next lines by context when it is not nil (a dump of the
// node).
func (m *Machine[S]) Move(name string, from, to S, context fmt.Stringer) S {
	if !m.Allows(from, to) {
		who := m.Owner
		if name != "" {
			who += " " + name
		}
		msg := fmt.Sprintf("%s: invalid transition [%s -> %s]", who, m.Name(from), m.Name(to))
		if context != nil {
			msg += "\n" + context.String()
		}
		panic(msg)
	}
	return to
}
