package checker

import (
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
)

// Classic adapts the classic family's closed world to the checker: the
// world package cannot import the checker, so it reports action kinds as
// the checker's numbers and this type converts them.
type Classic struct{ *classicworld.Model }

// Kind is the world's kind of a.
func (c Classic) Kind(a classicworld.Action) Kind { return Kind(c.Model.Kind(a)) }

var _ Model[*classicworld.State, classicworld.Action] = Classic{}
