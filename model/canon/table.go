package canon

import (
	"fmt"
	"slices"
)

// Table holds records keyed by strings (a coordinator's member records,
// keyed by member id), one record per key, in the order of their keys by
// CompareKeys: the order in which KeyedMap writes the keys of a map.
//
// A sorted slice rather than a map because the model checker forks the
// nodes that hold one at almost every step: a fork copies a few rows
// instead of a map's buckets, Encode writes the rows in the order they are
// stored instead of sorting the keys each time, and a lookup among a
// handful of keys compares a few strings held in the rows instead of
// hashing one.
//
// Invariants (Ordered checks them): the keys strictly increase by
// CompareKeys, and none is empty. The holder says whether records are
// shared between copies of a table, and so whether it may write one in
// place; Put and Remove write the table's own array, which the caller
// must own (a copy of a table shares its array until slices.Clone).
type Table[K ~string, R any] []Row[K, R]

// Row is one entry of a Table: the record Rec under its key Key.
type Row[K ~string, R any] struct {
	Key K
	Rec R
}

// linearLookup is the table size up to which a lookup compares keys one by
// one: below it a scan of equal-length strings beats a binary search's
// ordered comparisons.
const linearLookup = 8

// Index is the position of key k in t and whether it is there; when it is
// not, the position it would take.
func (t Table[K, R]) Index(k K) (int, bool) {
	if len(t) <= linearLookup {
		for i := range t {
			if t[i].Key == k {
				return i, true
			}
		}
		// Not there: the search below finds where it would go.
	}
	return slices.BinarySearchFunc(t, k, func(r Row[K, R], k K) int {
		return CompareKeys(string(r.Key), string(k))
	})
}

// Get returns the record under k, the zero R (nil for a pointer) when
// there is none.
func (t Table[K, R]) Get(k K) R {
	if i, ok := t.Index(k); ok {
		return t[i].Rec
	}
	var none R
	return none
}

// Has reports whether t holds a record under k.
func (t Table[K, R]) Has(k K) bool {
	_, ok := t.Index(k)
	return ok
}

// Put stores r under k, in place of the record stored there if any. The
// caller owns t's array.
func (t *Table[K, R]) Put(k K, r R) {
	i, ok := t.Index(k)
	if ok {
		(*t)[i].Rec = r
		return
	}
	*t = slices.Insert(*t, i, Row[K, R]{Key: k, Rec: r})
}

// Remove deletes the record under k; it panics when there is none (a
// caller that removes a record has just looked it up). The caller owns
// t's array.
func (t *Table[K, R]) Remove(k K) {
	i, ok := t.Index(k)
	if !ok {
		panic(fmt.Sprintf("canon: no record under %q to remove", string(k)))
	}
	*t = slices.Delete(*t, i, i+1)
}

// AppendKeys appends the keys to dst in plain string order, which is the
// table's order when the keys have one length, and returns the extended
// slice.
func (t Table[K, R]) AppendKeys(dst []K) []K {
	start := len(dst)
	for i := range t {
		dst = append(dst, t[i].Key)
	}
	slices.Sort(dst[start:])
	return dst
}

// Ordered returns an error naming the first row out of the table's order
// (or a row without a key), nil when there is none.
func (t Table[K, R]) Ordered() error {
	for i := range t {
		switch k := string(t[i].Key); {
		case k == "":
			return fmt.Errorf("table row %d has no key", i)
		case i > 0 && CompareKeys(string(t[i-1].Key), k) >= 0:
			return fmt.Errorf("table holds %q after %q", k, string(t[i-1].Key))
		}
	}
	return nil
}

// Encode appends the table as KeyedMap appends the map of the same
// records: each row's key, then its record written by value. It panics
// when the rows are out of order (KeyedSlice).
func (t Table[K, R]) Encode(e *Encoder, value func(R)) {
	KeyedSlice(e, t, func(r Row[K, R]) K { return r.Key }, func(r Row[K, R]) { value(r.Rec) })
}
