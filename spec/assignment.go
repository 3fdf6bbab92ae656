package spec

import (
	"maps"
	"slices"
	"strings"
)

// Assignment maps members to the resources given to them. It is a plain map;
// functions in this module that return an Assignment return a fresh one the
// caller owns, and never write to one they were given.
type Assignment map[MemberID]Set

// Members returns the members of a in sorted order.
func (a Assignment) Members() []MemberID {
	return slices.Sorted(maps.Keys(a))
}

// All returns the union of every member's resources.
func (a Assignment) All() Set {
	var out Set
	for _, m := range a.Members() {
		out = out.Union(a[m])
	}
	return out
}

// Owner returns the members that hold r, in sorted order.
func (a Assignment) Owner(r Resource) []MemberID {
	var out []MemberID
	for _, m := range a.Members() {
		if a[m].Contains(r) {
			out = append(out, m)
		}
	}
	return out
}

// Clone returns a copy of a that shares no map with it (sets are immutable
// and are shared).
func (a Assignment) Clone() Assignment {
	if a == nil {
		return nil
	}
	return maps.Clone(a)
}

// Equal reports whether a and o give every member the same resources,
// treating a missing member and an empty set alike.
func (a Assignment) Equal(o Assignment) bool {
	for m, s := range a {
		if !s.Equal(o[m]) {
			return false
		}
	}
	for m, s := range o {
		if !s.Equal(a[m]) {
			return false
		}
	}
	return true
}

// String prints a as "member:{...} member:{...}" in member order.
func (a Assignment) String() string {
	var b strings.Builder
	for i, m := range a.Members() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(m))
		b.WriteByte(':')
		b.WriteString(a[m].String())
	}
	return b.String()
}

// Topics is the resource universe: the number of partitions of each topic
// (or tasks of each connector). A topic with count n has resources
// topic-0 .. topic-(n-1); a connector additionally has topic/connector when
// it is listed in a Universe's Connectors.
type Topics map[string]int32

// Resources returns every partition of the topics named in names that exist
// in t, in sorted order. Unknown names are skipped.
func (t Topics) Resources(names ...string) Set {
	var out Set
	for _, n := range slices.Sorted(slices.Values(names)) {
		c, ok := t[n]
		if !ok || (len(out) > 0 && out[len(out)-1].Topic == n) {
			continue
		}
		out = append(out, Range(n, 0, c-1)...)
	}
	return out
}

// Names returns the topics of t in sorted order.
func (t Topics) Names() []string { return slices.Sorted(maps.Keys(t)) }

// Has reports whether r is a partition of a topic of t.
func (t Topics) Has(r Resource) bool {
	c, ok := t[r.Topic]
	return ok && r.Partition >= 0 && r.Partition < c
}
