package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Set is a set of resources, kept as a slice sorted by Resource.Less with no
// duplicates. The zero value is the empty set.
//
// A Set is treated as immutable: every operation returns a new slice and
// never writes to its receiver or arguments, so sets can be shared between
// states without copying. Build sets with NewSet (which sorts and removes
// duplicates), never by appending to an existing Set.
type Set []Resource

// NewSet returns the set of the given resources, sorted and without
// duplicates. The argument slice is not retained.
func NewSet(rs ...Resource) Set {
	if len(rs) == 0 {
		return nil
	}
	s := slices.Clone(rs)
	slices.SortFunc(s, Resource.Compare)
	return Set(slices.Compact(s))
}

// Range returns the set {topic-from, ..., topic-to} (inclusive).
func Range(topic string, from, to int32) Set {
	var s Set
	for p := from; p <= to; p++ {
		s = append(s, TP(topic, p))
	}
	return s
}

// Len is the number of resources in s.
func (s Set) Len() int { return len(s) }

// IsEmpty reports whether s has no resources.
func (s Set) IsEmpty() bool { return len(s) == 0 }

// Contains reports whether r is in s.
func (s Set) Contains(r Resource) bool {
	_, ok := slices.BinarySearchFunc(s, r, Resource.Compare)
	return ok
}

// Equal reports whether s and o hold the same resources.
func (s Set) Equal(o Set) bool { return slices.Equal(s, o) }

// Union returns s ∪ o.
func (s Set) Union(o Set) Set {
	if len(o) == 0 {
		return s
	}
	if len(s) == 0 {
		return o
	}
	out := make(Set, 0, len(s)+len(o))
	i, j := 0, 0
	for i < len(s) && j < len(o) {
		switch s[i].Compare(o[j]) {
		case -1:
			out = append(out, s[i])
			i++
		case 1:
			out = append(out, o[j])
			j++
		default:
			out = append(out, s[i])
			i++
			j++
		}
	}
	out = append(out, s[i:]...)
	return append(out, o[j:]...)
}

// Intersect returns s ∩ o.
func (s Set) Intersect(o Set) Set {
	var out Set
	i, j := 0, 0
	for i < len(s) && j < len(o) {
		switch s[i].Compare(o[j]) {
		case -1:
			i++
		case 1:
			j++
		default:
			out = append(out, s[i])
			i++
			j++
		}
	}
	return out
}

// Minus returns s − o.
func (s Set) Minus(o Set) Set {
	if len(o) == 0 || len(s) == 0 {
		return s
	}
	out := make(Set, 0, len(s))
	j := 0
	for _, r := range s {
		for j < len(o) && o[j].Less(r) {
			j++
		}
		if j < len(o) && o[j] == r {
			continue
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Add returns s ∪ {r}.
func (s Set) Add(r Resource) Set { return s.Union(Set{r}) }

// Remove returns s − {r}.
func (s Set) Remove(r Resource) Set { return s.Minus(Set{r}) }

// Filter returns the resources of s for which keep is true.
func (s Set) Filter(keep func(Resource) bool) Set {
	var out Set
	for _, r := range s {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// Topics returns the distinct topics of s in sorted order.
func (s Set) Topics() []string {
	var out []string
	for _, r := range s {
		if len(out) == 0 || out[len(out)-1] != r.Topic {
			out = append(out, r.Topic)
		}
	}
	return out
}

// Validate returns an error if s is not sorted, has duplicates or holds an
// invalid resource. Sets built with NewSet and the operations above are
// always valid; Validate is for sets decoded from outside input.
func (s Set) Validate() error {
	for i, r := range s {
		if err := r.Validate(); err != nil {
			return err
		}
		if i > 0 && !s[i-1].Less(r) {
			if s[i-1] == r {
				return fmt.Errorf("set: %s appears twice", r)
			}
			return fmt.Errorf("set: %s listed after %s: not sorted", r, s[i-1])
		}
	}
	return nil
}

// String prints s compactly and deterministically, grouping partitions by
// topic: "{}" for the empty set, otherwise for example "{a-0 a-1 b-3 c/connector}".
func (s Set) String() string {
	// Written straight into one buffer, sized for short names: a leader
	// prints every resource of every member in each round.
	buf := make([]byte, 0, 2+len(s)*(len(firstTopic(s))+8))
	buf = append(buf, '{')
	for i, r := range s {
		if i > 0 {
			buf = append(buf, ' ')
		}
		buf = append(buf, r.Topic...)
		if r.IsConnector() {
			buf = append(buf, "/connector"...)
			continue
		}
		buf = append(buf, '-')
		buf = strconv.AppendInt(buf, int64(r.Partition), 10)
	}
	buf = append(buf, '}')
	return string(buf)
}

func firstTopic(s Set) string {
	if len(s) == 0 {
		return ""
	}
	return s[0].Topic
}

// ParseSet reads a set in the form String prints. Resources may be listed in
// any order and are separated by spaces or commas; duplicates are an error,
// since outside input that lists a resource twice is malformed.
func ParseSet(s string) (Set, error) {
	s = strings.TrimSpace(s)
	inner, ok := strings.CutPrefix(s, "{")
	if ok {
		inner, ok = strings.CutSuffix(inner, "}")
	}
	if !ok {
		return nil, fmt.Errorf("set %q: want {r1 r2 ...}", s)
	}
	var rs []Resource
	sorted := true
	for len(inner) > 0 {
		// Fields are separated by runs of spaces and commas (both ASCII,
		// so no byte of another rune is one).
		i := strings.IndexAny(inner, " ,")
		f := inner
		if i >= 0 {
			f, inner = inner[:i], inner[i+1:]
		} else {
			inner = ""
		}
		if f == "" {
			continue
		}
		r, err := ParseResource(f)
		if err != nil {
			return nil, err
		}
		if n := len(rs); n > 0 && rs[n-1].Compare(r) >= 0 {
			sorted = false
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		return nil, nil
	}
	if sorted {
		// As String prints it: already a set.
		return Set(rs), nil
	}
	out := NewSet(rs...)
	if len(out) != len(rs) {
		return nil, fmt.Errorf("set %q: a resource is listed twice", s)
	}
	return out, nil
}
