package spec

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSetStringParseFast: String prints what joining Resource.String
// does, and ParseSet reads back String's output, any other order, commas,
// and rejects duplicates, as before its fast path for sorted input.
func TestSetStringParseFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// Among them a name longer than BuildString's chunk, and sets long
	// enough to fill several chunks.
	topics := []string{"a", "b-1", "long-topic-name", "c", strings.Repeat("x", 600)}
	for i := range 5000 {
		var rs []Resource
		for range rng.IntN(12) + 60*rng.IntN(2) {
			tp := topics[rng.IntN(len(topics))]
			switch rng.IntN(8) {
			case 0:
				rs = append(rs, Connector(tp))
			case 1:
				rs = append(rs, TP(tp, rng.Int32())) // up to math.MaxInt32
			default:
				rs = append(rs, TP(tp, int32(rng.IntN(20000))))
			}
		}
		s := NewSet(rs...)
		var parts []string
		for _, r := range s {
			parts = append(parts, r.String())
		}
		want := "{" + strings.Join(parts, " ") + "}"
		if got := s.String(); got != want {
			t.Fatalf("String = %q, want %q", got, want)
		}
		back, err := ParseSet(want)
		if err != nil || !reflect.DeepEqual(back, s) {
			t.Fatalf("ParseSet(%q) = %v, %v; want %v", want, back, err, s)
		}
		// Shuffled, with commas: sorted on the way in.
		rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		back, err = ParseSet("{" + strings.Join(parts, ", ") + "}")
		if err != nil || !reflect.DeepEqual(back, s) {
			t.Fatalf("ParseSet(shuffled %v) = %v, %v; want %v", parts, back, err, s)
		}
		if len(parts) > 0 && i%2 == 0 {
			dup := "{" + strings.Join(append(parts, parts[0]), " ") + "}"
			if _, err := ParseSet(dup); err == nil {
				t.Fatalf("ParseSet(%q) accepted a duplicate", dup)
			}
		}
	}
}

// TestTopicsExisting: Existing is Filter(Has).
func TestTopicsExisting(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	topics := Topics{"a": 3, "b": 0, "d": 5}.AddConnector("c", 2)
	names := []string{"a", "b", "c", "d", "e"}
	for range 5000 {
		var rs []Resource
		for range rng.IntN(10) {
			tp := names[rng.IntN(len(names))]
			if rng.IntN(6) == 0 {
				rs = append(rs, Connector(tp))
			} else {
				rs = append(rs, TP(tp, int32(rng.IntN(8))-1))
			}
		}
		s := NewSet(rs...)
		if got, want := topics.Existing(s), s.Filter(topics.Has); !reflect.DeepEqual(got, want) {
			t.Fatalf("Existing(%v) = %#v, want %#v", s, got, want)
		}
	}
}

// TestParseSetRunFastPath: the next partition of the last resource's
// topic is read without ParseResource; inputs that only look like one
// (a longer topic sharing the name as a prefix, a partition that is not
// one to nine digits, a connector's name followed by a partition) read
// as ParseResource reads each item, and errors stay errors.
func TestParseSetRunFastPath(t *testing.T) {
	for _, s := range []string{
		"{t-1 t-2 t-10}", "{t-2 t-1}", "{t-1 t-01}", "{t-1 t-1}",
		"{a-1 a-1-2}", "{a-1 a-12-3 a-2}", "{t-1 t-1x}", "{t-1 t-}", "{t-1 t--1}",
		"{t-1 t-999999999}", "{t-1 t-1000000000}", "{t-1 t-99999999999}",
		"{c/connector c-0 c-1}", "{c-0 c/connector}", "{t-5 tt-1 t-6}", "{ab-1 a-2}", "{t-1 t12}",
	} {
		got, err := ParseSet(s)
		want, wantErr := parseSetItems(s)
		if (err != nil) != (wantErr != nil) {
			t.Errorf("ParseSet(%q) error %v; each item read alone: %v", s, err, wantErr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ParseSet(%q) = %#v; each item read alone: %#v", s, got, want)
		}
	}
}

// TestSameTopic checks SameTopic against ==: on one string, on equal
// strings of their own, on the empty string, and on names that differ in
// length, in content, or only in their last byte, with a shared prefix;
// and Resource.Same against == on resources of those topics.
func TestSameTopic(t *testing.T) {
	name := "topic-07"
	own := strings.Clone(name)
	for _, c := range []struct{ a, b string }{
		{name, name},
		{name, own},
		{"", ""},
		{"", strings.Clone("x")[:0]},
		{name, name[:5]},
		{name, "topic-08"},
		{name, "TOPIC-07"},
		{"a", "b"},
		{"aa", "a"},
	} {
		for _, p := range [][2]string{{c.a, c.b}, {c.b, c.a}} {
			if got, want := SameTopic(p[0], p[1]), p[0] == p[1]; got != want {
				t.Errorf("SameTopic(%q, %q) = %t, want %t", p[0], p[1], got, want)
			}
			// Resource.Same is == on resources: the topics as SameTopic
			// has them, and the partitions.
			for _, parts := range [][2]int32{{3, 3}, {3, 4}, {ConnectorTask, ConnectorTask}} {
				a, b := Resource{Topic: p[0], Partition: parts[0]}, Resource{Topic: p[1], Partition: parts[1]}
				if got, want := a.Same(b), a == b; got != want {
					t.Errorf("%#v.Same(%#v) = %t, want %t", a, b, got, want)
				}
			}
		}
	}
}

// TestNewSetOfSortedInput: NewSet takes input already sorted without
// sorting it (increasing), and still sorts and deduplicates what is not:
// a sorted list with one resource twice, one pair swapped, or topics out
// of order, each with its topic strings shared and its own.
func TestNewSetOfSortedInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	topics := []string{"a", "aa", "b"}
	for range 500 {
		var rs []Resource
		for range rng.IntN(8) {
			topic := topics[rng.IntN(len(topics))]
			if rng.IntN(2) == 0 {
				topic = strings.Clone(topic)
			}
			rs = append(rs, Resource{Topic: topic, Partition: rng.Int32N(5) - 1})
		}
		want := NewSet(rs...)
		if err := want.Validate(); err != nil {
			t.Fatalf("NewSet(%v) = %s: %v", rs, want, err)
		}
		sorted := slices.Clone([]Resource(want))
		variants := [][]Resource{sorted}
		if n := len(sorted); n > 0 {
			i := rng.IntN(n)
			variants = append(variants, slices.Insert(slices.Clone(sorted), i, sorted[i]))
		}
		if n := len(sorted); n > 1 {
			i := rng.IntN(n - 1)
			swapped := slices.Clone(sorted)
			swapped[i], swapped[i+1] = swapped[i+1], swapped[i]
			variants = append(variants, swapped)
		}
		for _, v := range variants {
			if got := NewSet(v...); !slices.Equal(got, want) || got.Validate() != nil {
				t.Fatalf("NewSet(%v) = %s, want %s", v, got, want)
			}
		}
	}
}

// TestRunEnd: the run of a topic ends at the first resource of another
// topic (a name that only starts like it is another), whether or not the
// run's names are one string.
func TestRunEnd(t *testing.T) {
	s := Set{{Topic: "a", Partition: 0}, {Topic: strings.Clone("a"), Partition: 1}, {Topic: "aa", Partition: 0}, {Topic: "b", Partition: 0}, {Topic: "b", Partition: 2}}
	for i, want := range []int{2, 2, 3, 5, 5} {
		if got := s.RunEnd(i); got != want {
			t.Errorf("RunEnd(%d) of %s = %d, want %d", i, s, got, want)
		}
	}
}

// TestSplit: the three parts of Split on cases that name where its
// walk builds the common part (at the first resource of the second
// difference, inside a topic, in a's tail or in b's), where a part is an
// operand itself, and that such a part has no room past its end even when
// the operand has (an append to it must not write into the operand), and
// that a common part of its own has no more room than the smaller operand.
func TestSplit(t *testing.T) {
	roomy := func(s string) Set { // s with room for three more past its end
		set := mustSet(t, s)
		return append(make(Set, 0, len(set)+3), set...)
	}
	for _, c := range []struct {
		a, b               string
		both, onlyA, onlyB string
		bothIs             string // "a" or "b" when the common part is that operand
	}{
		{"{}", "{}", "{}", "{}", "{}", ""},
		{"{x-0 x-1}", "{}", "{}", "{x-0 x-1}", "{}", ""},
		{"{}", "{x-0 x-1}", "{}", "{}", "{x-0 x-1}", ""},
		{"{x-0 x-1}", "{x-0 x-1}", "{x-0 x-1}", "{}", "{}", "a"},
		{"{x-0 x-1}", "{x-0 x-1 x-2}", "{x-0 x-1}", "{}", "{x-2}", "a"},
		{"{x-0 x-2}", "{x-2}", "{x-2}", "{x-0}", "{}", "b"},
		// a − b first, then b − a inside the topic: built from b's prefix.
		{"{x-0 x-1 x-3 x-5}", "{x-1 x-2 x-3 x-5}", "{x-1 x-3 x-5}", "{x-0}", "{x-2}", ""},
		// b − a first, then a − b: built from a's prefix.
		{"{x-1 x-2 x-3 x-5}", "{x-0 x-1 x-3 x-5}", "{x-1 x-3 x-5}", "{x-2}", "{x-0}", ""},
		// Both differences before anything common: built empty, then
		// the common part after.
		{"{x-0 x-2}", "{x-1 x-2}", "{x-2}", "{x-0}", "{x-1}", ""},
		// The second difference in a's tail, and in b's.
		{"{x-1 y-0}", "{w-0 x-1}", "{x-1}", "{y-0}", "{w-0}", ""},
		{"{x-0 x-1 x-2}", "{x-1 y-0}", "{x-1}", "{x-0 x-2}", "{y-0}", ""},
		// Topics only one set holds, between shared ones.
		{"{a-0 b-0 c-0 c-1}", "{a-0 aa-3 c-1}", "{a-0 c-1}", "{b-0 c-0}", "{aa-3}", ""},
	} {
		a, b := roomy(c.a), roomy(c.b)
		both, onlyA, onlyB := Split(a, b)
		for _, p := range []struct {
			name      string
			got, want Set
		}{{"a ∩ b", both, mustSet(t, c.both)}, {"a − b", onlyA, mustSet(t, c.onlyA)}, {"b − a", onlyB, mustSet(t, c.onlyB)}} {
			if !p.got.Equal(p.want) || len(p.got) == 0 && p.got != nil {
				t.Errorf("Split(%s, %s): %s = %#v, want %s", c.a, c.b, p.name, p.got, p.want)
			}
			if len(p.got) > 0 && (len(a) > 0 && &p.got[0] == &a[0] || len(b) > 0 && &p.got[0] == &b[0]) && cap(p.got) != len(p.got) {
				t.Errorf("Split(%s, %s): %s is an operand with room past its end", c.a, c.b, p.name)
			}
		}
		is := map[string]Set{"a": a, "b": b}[c.bothIs]
		if (is != nil) != (len(both) > 0 && (&both[0] == &a[0] || &both[0] == &b[0])) || is != nil && &both[0] != &is[0] {
			t.Errorf("Split(%s, %s): the common part %s should be operand %q", c.a, c.b, both, c.bothIs)
		}
		if cap(both) > min(len(a), len(b)) {
			t.Errorf("Split(%s, %s): the common part has room for %d, more than the smaller operand", c.a, c.b, cap(both))
		}
		if self, _, _ := Split(a, a); len(a) > 0 && (&self[0] != &a[0] || cap(self) != len(self)) {
			t.Errorf("Split(%s, itself): the common part is not a, clipped", c.a)
		}
		if len(a) > 0 && len(b) == 0 && &onlyA[0] != &a[0] || len(b) > 0 && len(a) == 0 && &onlyB[0] != &b[0] {
			t.Errorf("Split(%s, %s): against the empty set, the difference is not the operand itself", c.a, c.b)
		}
	}
}

// TestSetEqual: Equal against == resource by resource where the sets
// differ only in a topic, only in a partition, or in length, and where
// they are equal with topic strings of their own.
func TestSetEqual(t *testing.T) {
	own := strings.Clone("x")
	for _, c := range []struct{ a, b Set }{
		{Set{{"x", 0}, {"y", 1}}, Set{{"x", 0}, {"z", 1}}},
		{Set{{"x", 0}, {"y", 1}}, Set{{"x", 0}, {"y", 2}}},
		{Set{{"x", 0}}, Set{{"x", 0}, {"y", 1}}},
		{Set{{"x", 0}, {"x", 1}}, Set{{own, 0}, {own, 1}}},
		{Set{}, nil},
	} {
		for _, p := range [][2]Set{{c.a, c.b}, {c.b, c.a}} {
			if got, want := p[0].Equal(p[1]), slices.Equal(p[0], p[1]); got != want {
				t.Errorf("%s.Equal(%s) = %t, want %t", p[0], p[1], got, want)
			}
		}
	}
}

// parseSetItems is ParseSet as its contract states it, without its fast
// paths: each item read alone by ParseResource, then made a set (an error
// for an item listed twice).
func parseSetItems(s string) (Set, error) {
	inner, ok := strings.CutPrefix(strings.TrimSpace(s), "{")
	if ok {
		inner, ok = strings.CutSuffix(inner, "}")
	}
	if !ok {
		return nil, errors.New("not braced")
	}
	var rs []Resource
	for _, f := range strings.FieldsFunc(inner, func(r rune) bool { return r == ' ' || r == ',' }) {
		r, err := ParseResource(f)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	out := NewSet(rs...)
	if len(out) != len(rs) {
		return nil, errors.New("duplicate")
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
