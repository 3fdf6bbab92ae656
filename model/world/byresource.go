package world

import (
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// byResource maps partitions to values (an application's positions, the
// committed offsets, the processing counts of the delivery state; see
// delivery.go) as a slice sorted by spec.Resource.Compare, with one entry
// per partition.
//
// The world's states share these maps (a fork shares them with its
// parent), so none is changed in place: with, without, only and merged
// return a new slice (or the receiver, where nothing changes) and leave the
// receiver as it was. The delivery state holds a few
// entries (the partitions with records), so a slice copied on every
// change costs less than a Go map, which every change had to clone, and
// its order is the canonical encoding's without sorting.
type byResource[V any] []resourceValue[V]

// resourceValue is one entry of a byResource.
type resourceValue[V any] struct {
	R spec.Resource
	V V
}

// search returns the index of r's entry, or where it would go, and
// whether it is there.
func (m byResource[V]) search(r spec.Resource) (int, bool) {
	return slices.BinarySearchFunc(m, r, func(e resourceValue[V], r spec.Resource) int { return e.R.Compare(r) })
}

// get returns r's value and whether r has one.
func (m byResource[V]) get(r spec.Resource) (V, bool) {
	if i, ok := m.search(r); ok {
		return m[i].V, true
	}
	var zero V
	return zero, false
}

// with returns a copy of m in which r's value is v.
func (m byResource[V]) with(r spec.Resource, v V) byResource[V] {
	i, ok := m.search(r)
	if ok {
		out := slices.Clone(m)
		out[i].V = v
		return out
	}
	out := make(byResource[V], 0, len(m)+1)
	out = append(out, m[:i]...)
	out = append(out, resourceValue[V]{r, v})
	return append(out, m[i:]...)
}

// without returns m without the entries of the partitions in rs: m itself
// when it has none of them, nil when nothing is left.
func (m byResource[V]) without(rs spec.Set) byResource[V] {
	return m.filter(func(r spec.Resource) bool { return !rs.Contains(r) })
}

// only returns the entries of m of the partitions in rs: m itself when it
// has no others, nil when it has none of them.
func (m byResource[V]) only(rs spec.Set) byResource[V] {
	return m.filter(rs.Contains)
}

// filter returns the entries of m whose partition keep holds for: m
// itself when it holds for every one, nil when for none.
func (m byResource[V]) filter(keep func(spec.Resource) bool) byResource[V] {
	n := 0
	for _, e := range m {
		if keep(e.R) {
			n++
		}
	}
	switch n {
	case len(m):
		return m
	case 0:
		return nil
	}
	out := make(byResource[V], 0, n)
	for _, e := range m {
		if keep(e.R) {
			out = append(out, e)
		}
	}
	return out
}

// merged returns m with every entry of o set in it (o's value where both
// have one), as with does entry by entry: m itself when o is empty.
func (m byResource[V]) merged(o byResource[V]) byResource[V] {
	out := m
	for _, e := range o {
		out = out.with(e.R, e.V)
	}
	return out
}

// resources returns the partitions that have a value, as a set.
func (m byResource[V]) resources() spec.Set {
	if len(m) == 0 {
		return nil
	}
	out := make(spec.Set, len(m))
	for i, e := range m {
		out[i] = e.R
	}
	return out
}
