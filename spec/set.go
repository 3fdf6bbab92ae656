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
	if !increasing(s) {
		slices.SortFunc(s, Resource.Compare)
		s = slices.Compact(s)
	}
	return Set(s)
}

// increasing reports whether rs is sorted with no resource twice, as a
// Set: NewSet need not sort it. Most sets it is given are (a heartbeat's
// owned partitions, an assignment read back), and sorting them compared
// topic names again and again.
func increasing(rs []Resource) bool {
	for i := 1; i < len(rs); i++ {
		if rs[i-1].Compare(rs[i]) >= 0 {
			return false
		}
	}
	return true
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

// Equal reports whether s and o hold the same resources. Two sets that
// are one slice are equal at once: a member and a leader compare what they
// hold with what they last printed, usually the very same set; otherwise
// resources are compared with Same.
func (s Set) Equal(o Set) bool {
	if len(s) != len(o) {
		return false
	}
	if sameSet(s, o) {
		return true
	}
	for i, r := range s {
		if !r.Same(o[i]) {
			return false
		}
	}
	return true
}

// sameSet reports whether s and o are the same non-empty slice: the same
// first element and the same length.
func sameSet(s, o Set) bool {
	return len(s) > 0 && len(s) == len(o) && &s[0] == &o[0]
}

// Union returns s ∪ o, walking the two a topic at a time (topicRuns).
func (s Set) Union(o Set) Set {
	if len(o) == 0 {
		return s
	}
	if len(s) == 0 {
		return o
	}
	out := make(Set, 0, len(s)+len(o))
	w := topicRuns{s: s, o: o}
	for w.i < len(s) && w.j < len(o) {
		a, b := w.next()
		out = unionRun(out, a, b)
	}
	out = append(out, s[w.i:]...)
	return append(out, o[w.j:]...)
}

// Meets reports whether s ∩ o is not empty, without building it.
func (s Set) Meets(o Set) bool {
	i, j := 0, 0
	for i < len(s) && j < len(o) {
		switch s[i].Compare(o[j]) {
		case -1:
			i++
		case 1:
			j++
		default:
			return true
		}
	}
	return false
}

// Intersect returns s ∩ o, walking the two a topic at a time
// (topicRuns).
func (s Set) Intersect(o Set) Set {
	var out Set
	w := topicRuns{s: s, o: o}
	for w.i < len(s) && w.j < len(o) {
		a, b := w.next()
		out = intersectRun(out, a, b)
	}
	return out
}

// Minus returns s − o. When o takes nothing from s the result is s itself,
// its capacity clipped so that appending to it never writes into s: a
// leader or member that subtracts what is usually absent allocates nothing,
// and otherwise exactly what the result holds.
func (s Set) Minus(o Set) Set {
	if len(o) == 0 || len(s) == 0 {
		return s
	}
	if sameSet(s, o) {
		// Everything taken, as the walk below finds.
		return nil
	}
	taken := 0
	w := topicRuns{s: s, o: o}
	for w.i < len(s) && w.j < len(o) {
		a, b := w.next()
		taken += commonRun(a, b)
	}
	switch taken {
	case 0:
		return clipped(s)
	case len(s):
		return nil
	}
	out := make(Set, 0, len(s)-taken)
	w = topicRuns{s: s, o: o}
	for w.i < len(s) && w.j < len(o) {
		a, b := w.next()
		out = minusRun(out, a, b)
	}
	return append(out, s[w.i:]...)
}

// Split returns a ∩ b, a − b and b − a in one walk of the two sets, a
// topic at a time (topicRuns). The common part, when it is all of a or
// all of b, is that set itself, capacity clipped as Minus's result is; so
// is a − b when b is empty, and b − a when a is empty. An empty part is
// nil; the others are sets of their own. It is what a reconciliation
// asks of a member's old and new sets (what it keeps, gives up and gains)
// and what the next-gen coordinator asks when a member's holding moves:
// the two are usually the same but for a few resources, so the common
// part is rarely built, and the two sets are walked once (a Minus walks
// them twice, to count and then to build).
func Split(a, b Set) (both, onlyA, onlyB Set) {
	switch {
	case sameSet(a, b):
		return clipped(a), nil, nil
	case len(a) == 0 || len(b) == 0:
		return nil, clipped(a), clipped(b)
	}
	// Until a−b and b−a both hold something, a∩b is a's or b's walked
	// prefix and is not built (built says when it is): it is built from
	// that prefix when the first resource of the second of them is found.
	built := false
	w := topicRuns{s: a, o: b}
	for w.i < len(a) && w.j < len(b) {
		i0, j0 := w.i, w.j
		ra, rb := w.next()
		for i, j := 0, 0; i < len(ra) || j < len(rb); {
			switch {
			case j == len(rb) || i < len(ra) && ra[i].Partition < rb[j].Partition:
				if !built && onlyB != nil {
					both, built = commonPrefix(a[:i0+i], a, b), true
				}
				onlyA = append(onlyA, ra[i])
				i++
			case i == len(ra) || rb[j].Partition < ra[i].Partition:
				if !built && onlyA != nil {
					both, built = commonPrefix(b[:j0+j], a, b), true
				}
				onlyB = append(onlyB, rb[j])
				j++
			default:
				if built {
					if both == nil {
						both = make(Set, 0, min(len(a), len(b)))
					}
					both = append(both, ra[i])
				}
				i++
				j++
			}
		}
	}
	// One set's rest, after the other ends, is its alone.
	if rest := a[w.i:]; len(rest) > 0 {
		if !built && onlyB != nil {
			both, built = commonPrefix(a[:w.i], a, b), true
		}
		onlyA = append(onlyA, rest...)
	}
	if rest := b[w.j:]; len(rest) > 0 {
		if !built && onlyA != nil {
			both, built = commonPrefix(b[:w.j], a, b), true
		}
		onlyB = append(onlyB, rest...)
	}
	switch {
	case built:
	case onlyA == nil:
		both = clipped(a)
	case onlyB == nil:
		both = clipped(b)
	}
	return both, onlyA, onlyB
}

// commonPrefix returns a copy of prefix, the part of a ∩ b Split has
// walked, with room for all of a ∩ b: the common part is then allocated
// once, and no larger than the smaller operand (a member keeps it as its
// assigned set). An empty prefix is nil, allocated at the first common
// resource, if any.
func commonPrefix(prefix, a, b Set) Set {
	if len(prefix) == 0 {
		return nil
	}
	out := make(Set, len(prefix), min(len(a), len(b)))
	copy(out, prefix)
	return out
}

// clipped returns s with no room past its end, so that an append to it
// never writes into s's array; nil when s is empty.
func clipped(s Set) Set {
	if len(s) == 0 {
		return nil
	}
	return s[:len(s):len(s)]
}

// topicRuns walks two sets together a topic at a time, in order, for
// Union, Intersect, Minus and Split: they compare topic names once per
// run of one topic, then the partitions of a topic both sets hold as
// numbers. A leader subtracts each member's new assignment from what it
// owns in every round, a member does so again at every sync, and the
// next-gen coordinator joins a member's assigned and pending sets at
// every heartbeat that moves them: sets of many partitions over a few
// topics, often with strings of their own, which comparing resource by
// resource compared byte by byte, and at every step where the two sets
// stood in different topics. (Meets usually answers at the first resource
// and keeps comparing resource by resource.)
type topicRuns struct {
	s, o Set
	i, j int // the next resource of s and of o not yet walked
}

// next returns the runs of the next topic of s and of o, either empty
// where that set does not hold the topic; neither set may be exhausted.
func (w *topicRuns) next() (a, b Set) {
	c := strings.Compare(w.s[w.i].Topic, w.o[w.j].Topic)
	if c <= 0 {
		e := w.s.RunEnd(w.i)
		a, w.i = w.s[w.i:e], e
	}
	if c >= 0 {
		e := w.o.RunEnd(w.j)
		b, w.j = w.o[w.j:e], e
	}
	return a, b
}

// RunEnd returns the end of the run of s[i]'s topic: the first index
// after i whose topic is another, or len(s). i must index s. The walks
// that take a set a topic at a time (its operations, a member's
// subscription filter, the assignors, the cost tracker, the canonical
// encoding) find their runs with it.
func (s Set) RunEnd(i int) int {
	t := s[i].Topic
	for i++; i < len(s) && SameTopic(s[i].Topic, t); i++ {
	}
	return i
}

// commonRun, unionRun, intersectRun and minusRun take two runs of one
// topic (one of them possibly empty), partitions increasing. They are
// four merges of the same shape, kept apart: one merge choosing by flags
// what it keeps measured 2.5% more instructions on the next-gen and
// cooperative simulations (docs/costs.md, seventh pass).

// commonRun counts the partitions a and b share.
func commonRun(a, b Set) int {
	n := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch pa, pb := a[i].Partition, b[j].Partition; {
		case pa < pb:
			i++
		case pa > pb:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// unionRun appends a ∪ b to out, a's resource where both hold one.
func unionRun(out, a, b Set) Set {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch pa, pb := a[i].Partition, b[j].Partition; {
		case pa < pb:
			out = append(out, a[i])
			i++
		case pa > pb:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// intersectRun appends a ∩ b to out, a's resources.
func intersectRun(out, a, b Set) Set {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch pa, pb := a[i].Partition, b[j].Partition; {
		case pa < pb:
			i++
		case pa > pb:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// minusRun appends a − b to out.
func minusRun(out, a, b Set) Set {
	j := 0
	for _, r := range a {
		for j < len(b) && b[j].Partition < r.Partition {
			j++
		}
		if j < len(b) && b[j].Partition == r.Partition {
			continue
		}
		out = append(out, r)
	}
	return out
}

// Add returns s ∪ {r}.
func (s Set) Add(r Resource) Set { return s.Union(Set{r}) }

// Remove returns s − {r}.
func (s Set) Remove(r Resource) Set { return s.Minus(Set{r}) }

// Filter returns the resources of s for which keep is true: s itself
// (capacity clipped, as Minus) when keep accepts them all and s is not
// empty, nil when it accepts none. keep is called once per resource, in
// order.
func (s Set) Filter(keep func(Resource) bool) Set {
	var out Set
	refused := false // out holds what was kept once keep refused one
	for i, r := range s {
		switch {
		case keep(r):
			if refused {
				out = append(out, r)
			}
		case !refused:
			refused = true
			if i > 0 {
				out = make(Set, i, len(s)-1)
				copy(out, s[:i])
			}
		}
	}
	switch {
	case !refused:
		return clipped(s)
	case len(out) == 0:
		return nil
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
// always valid; Validate is for sets decoded from outside input, and for
// the assignments a leader checks in every round.
func (s Set) Validate() error {
	if s.valid() {
		return nil
	}
	return s.firstProblem()
}

// firstProblem is Validate without valid's fast path: each resource
// checked, and compared with the one before it, until the first that is
// wrong, which it names.
func (s Set) firstProblem() error {
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

// valid reports whether Validate finds nothing (validRuns, with each
// run's first partition a connector's or above). Validate says what is
// wrong only when it is not.
func (s Set) valid() bool { return s.validRuns(nil, false) }

// ValidIn reports whether s is a valid set (Validate finds nothing) of
// partitions each in range of its topic in topics: a topic of topics,
// and 0 <= partition < its count. It reads s a run of one topic at a
// time, as Validate's fast path does: a classic leader checks every claim
// of its group against the topics in every round (model/assign's
// ValidPruned), and a claim nearly always passes.
func (s Set) ValidIn(topics Topics) bool { return s.validRuns(topics, true) }

// validRuns reports whether every topic of s is named and comes after
// the one before, and the partitions of each topic's run ascend from the
// first, which must be a connector's or above, or with inTopics, from 0
// up to below the topic's count in topics (an unknown topic reads as 0
// partitions, which no run is under). It compares each run's topic and
// checks its range once.
func (s Set) validRuns(topics Topics, inTopics bool) bool {
	for i := 0; i < len(s); {
		t := s[i].Topic
		if t == "" || i > 0 && s[i-1].Topic > t {
			return false
		}
		end := s.RunEnd(i)
		for k := i + 1; k < end; k++ {
			if s[k-1].Partition >= s[k].Partition {
				return false
			}
		}
		if first := s[i].Partition; inTopics {
			if first < 0 || s[end-1].Partition >= topics[t] {
				return false
			}
		} else if first < ConnectorTask {
			return false
		}
		i = end
	}
	return true
}

// String prints s compactly and deterministically, grouping partitions by
// topic: "{}" for the empty set, otherwise for example "{a-0 a-1 b-3 c/connector}".
func (s Set) String() string {
	var b strings.Builder
	s.BuildString(&b)
	return b.String()
}

// BuildString writes s, as String prints it, into b: encoders that embed
// a set in a larger text build it in one buffer. It grows b once for the
// whole set, sized for short names, and writes it a chunk at a time from a
// buffer on the stack, each resource appended to the chunk without a call
// into the builder: a leader prints every resource of every member in each
// round.
func (s Set) BuildString(b *strings.Builder) {
	b.Grow(2 + len(s)*(len(firstTopic(s))+8))
	var chunk [512]byte
	w := append(chunk[:0], '{')
	for i, r := range s {
		// The most one resource adds: a separator, the topic, and a dash
		// and an int32 (at most 11 bytes) or "/connector".
		if need := 1 + len(r.Topic) + 12; len(w)+need > len(chunk) {
			b.Write(w)
			w = chunk[:0]
			if need > len(chunk) {
				// A topic name longer than the chunk: written directly.
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(r.String())
				continue
			}
		}
		if i > 0 {
			w = append(w, ' ')
		}
		w = append(w, r.Topic...)
		if r.IsConnector() {
			w = append(w, "/connector"...)
			continue
		}
		w = append(w, '-')
		w = appendPartition(w, r.Partition)
	}
	w = append(w, '}')
	b.Write(w)
}

// appendPartition appends p in decimal, as strconv.AppendInt does, with
// a short loop for the common small non-negative numbers.
func appendPartition(w []byte, p int32) []byte {
	if p < 0 {
		return strconv.AppendInt(w, int64(p), 10)
	}
	var d [10]byte
	i := len(d)
	for p >= 10 {
		q := p / 10
		i--
		d[i] = byte('0' + p - q*10)
		p = q
	}
	i--
	d[i] = byte('0' + p)
	return append(w, d[i:]...)
}

func firstTopic(s Set) string {
	if len(s) == 0 {
		return ""
	}
	return s[0].Topic
}

// partitionField reads, from s[i:], one to nine ASCII digits that end s or
// a field (a space or a comma follows): the partition number, and where
// its field ends. ok is false for anything else, which ParseSet then
// reads field by field.
func partitionField(s string, i int) (p int32, end int, ok bool) {
	end = i
	for lim := min(len(s), i+9); end < lim; end++ {
		c := s[end] - '0' // a byte: anything below '0' wraps above 9
		if c > 9 {
			break
		}
		p = p*10 + int32(c)
	}
	if end == i || (end < len(s) && s[end] != ' ' && s[end] != ',') {
		return 0, 0, false
	}
	return p, end, true
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
	// Sized once, from the separators (an upper bound), at the first
	// resource (an empty set allocates nothing): a leader reads every
	// member's set in each round, and every member its revocation, most
	// often empty, at every sync.
	var rs []Resource
	sorted := true
	for len(inner) > 0 {
		if n := len(rs); n > 0 {
			// The next partition of the last resource's topic, as String
			// prints a run of one topic: "topic-N" and a separator or the
			// end, N of one to nine digits, is what ParseResource would
			// read (the last dash is the topic's end, and the topic is
			// valid), read in place without first finding the field's
			// end, and without ParseResource's search for suffixes and
			// dashes. A leader reads every member's set in each round.
			last := rs[n-1]
			t := last.Topic
			if len(inner) > len(t)+1 && inner[len(t)] == '-' && inner[:len(t)] == t {
				if p, end, ok := partitionField(inner, len(t)+1); ok {
					sorted = sorted && last.Partition < p
					rs = append(rs, Resource{Topic: t, Partition: p})
					inner = inner[min(end+1, len(inner)):]
					continue
				}
			}
		}
		// Fields are separated by runs of spaces and commas (both ASCII,
		// so no byte of another rune is one).
		end := 0
		for end < len(inner) && inner[end] != ' ' && inner[end] != ',' {
			end++
		}
		f := inner[:end]
		inner = inner[min(end+1, len(inner)):]
		if f == "" {
			continue
		}
		r, err := ParseResource(f)
		if err != nil {
			return nil, err
		}
		if rs == nil {
			rs = make([]Resource, 0, strings.Count(inner, " ")+strings.Count(inner, ",")+2)
		}
		if n := len(rs); n > 0 {
			switch last := rs[n-1]; {
			case last.Topic == r.Topic:
				// One string for a run of one topic: later comparisons
				// of the set's resources find their topics identical at
				// once.
				r.Topic = last.Topic
				sorted = sorted && last.Partition < r.Partition
			case last.Topic > r.Topic:
				sorted = false
			}
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
