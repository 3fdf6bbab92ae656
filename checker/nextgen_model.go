package checker

import (
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
)

// NextGen adapts the next-gen family's closed world to the checker: the
// world package cannot import the checker, so it reports action kinds as
// the checker's numbers and this type converts them.
type NextGen struct{ *ngworld.Model }

// Kind is the world's kind of a.
func (n NextGen) Kind(a ngworld.Action) Kind { return Kind(n.Model.Kind(a)) }

var _ Model[*ngworld.State, ngworld.Action] = NextGen{}
