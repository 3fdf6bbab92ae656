package spec

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// resourceGen draws resources from a small universe so that sets overlap,
// one topic name a prefix of another, and a topic's name sometimes a
// string of its own: the set operations must not rely on one set holding
// one string per topic, nor on the two sets sharing theirs.
var resourceGen = rapid.Custom(func(t *rapid.T) Resource {
	topic := rapid.SampledFrom([]string{"a", "aa", "b", "c"}).Draw(t, "topic")
	if rapid.Bool().Draw(t, "own-string") {
		topic = strings.Clone(topic)
	}
	return Resource{Topic: topic, Partition: rapid.Int32Range(-1, 4).Draw(t, "partition")}
})

// naive is the oracle: a set as a map.
func naive(rs []Resource) map[Resource]bool {
	m := map[Resource]bool{}
	for _, r := range rs {
		m[r] = true
	}
	return m
}

func fromNaive(m map[Resource]bool) Set {
	return NewSet(slices.Collect(maps.Keys(m))...)
}

// TestSetOperationsMatchNaiveSets checks every set operation against a
// deliberately naive map-based implementation, and that results are valid
// (sorted, distinct) and leave their operands untouched.
func TestSetOperationsMatchNaiveSets(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOf(resourceGen).Draw(t, "xs")
		ys := rapid.SliceOf(resourceGen).Draw(t, "ys")
		a, b := NewSet(xs...), NewSet(ys...)
		a0, b0 := slices.Clone(a), slices.Clone(b)
		na, nb := naive(xs), naive(ys)

		union, inter, minus := map[Resource]bool{}, map[Resource]bool{}, map[Resource]bool{}
		for r := range na {
			union[r] = true
			if nb[r] {
				inter[r] = true
			} else {
				minus[r] = true
			}
		}
		for r := range nb {
			union[r] = true
		}
		keep := func(r Resource) bool { return r.Topic == "a" || r.Partition%2 == 0 }
		kept := map[Resource]bool{}
		for r := range na {
			if keep(r) {
				kept[r] = true
			}
		}
		for name, c := range map[string][2]Set{
			"union":     {a.Union(b), fromNaive(union)},
			"intersect": {a.Intersect(b), fromNaive(inter)},
			"minus":     {a.Minus(b), fromNaive(minus)},
			"filter":    {a.Filter(keep), fromNaive(kept)},
		} {
			if !c[0].Equal(c[1]) {
				t.Fatalf("%s: got %s, want %s", name, c[0], c[1])
			}
			if err := c[0].Validate(); err != nil {
				t.Fatalf("%s: invalid result: %v", name, err)
			}
			if len(c[0]) == 0 && c[0] != nil && (name == "minus" && len(a) > 0 || name == "filter") {
				t.Fatalf("%s: an empty result is not nil", name)
			}
		}
		// Split: the three parts, each valid, empty ones nil, the common
		// part a or b itself when it is all of that set, and no part
		// sharing room with an operand that an append could write into.
		onlyB := map[Resource]bool{}
		for r := range nb {
			if !na[r] {
				onlyB[r] = true
			}
		}
		both, onlyA, onlyBGot := Split(a, b)
		for name, c := range map[string][2]Set{
			"split both":   {both, fromNaive(inter)},
			"split only a": {onlyA, fromNaive(minus)},
			"split only b": {onlyBGot, fromNaive(onlyB)},
		} {
			if !c[0].Equal(c[1]) || c[0].Validate() != nil || len(c[0]) == 0 && c[0] != nil {
				t.Fatalf("%s of %s and %s: got %#v, want %s", name, a, b, c[0], c[1])
			}
			grown := append(c[0], Resource{Topic: "zz"})
			if !a.Equal(a0) || !b.Equal(b0) || grown.Validate() != nil {
				t.Fatalf("%s of %s and %s: appending to it wrote into an operand", name, a0, b0)
			}
		}
		switch {
		case len(minus) == 0 && len(a) > 0 && &both[0] != &a[0]:
			t.Fatalf("split of %s and %s: the common part is all of a but not a itself", a, b)
		case len(minus) > 0 && len(onlyB) == 0 && len(b) > 0 && &both[0] != &b[0]:
			t.Fatalf("split of %s and %s: the common part is all of b but not b itself", a, b)
		case len(b) == 0 && len(a) > 0 && &onlyA[0] != &a[0]:
			t.Fatalf("split of %s and nothing: a − b is not a itself", a)
		case len(a) == 0 && len(b) > 0 && &onlyBGot[0] != &b[0]:
			t.Fatalf("split of nothing and %s: b − a is not b itself", b)
		}
		if both, onlyA, onlyB := Split(a, a0); len(a) > 0 && (&both[0] != &a[0] || onlyA != nil || onlyB != nil) {
			t.Fatalf("split of %s and its copy: %#v %#v %#v, want a itself and nothing else", a, both, onlyA, onlyB)
		}
		// Minus and Filter return their operand when they take nothing; two
		// such results grown by append must not share the new slot.
		all := func(Resource) bool { return true }
		for name, pair := range map[string][2]Set{
			"minus":  {a.Minus(Set{{Topic: "z"}}), a.Minus(Set{{Topic: "z"}})},
			"filter": {a.Filter(all), a.Filter(all)},
		} {
			x := append(pair[0], Resource{Topic: "z", Partition: 1})
			y := append(pair[1], Resource{Topic: "z", Partition: 2})
			if x[len(x)-1].Partition != 1 || y[len(y)-1].Partition != 2 {
				t.Fatalf("%s: results share the room beyond their end: %s %s", name, x, y)
			}
		}
		// Taking nothing allocates nothing: the result is a itself.
		if len(a) > 0 && &a.Minus(Set{{Topic: "z"}})[0] != &a[0] {
			t.Fatalf("%s minus {z-0} is a copy, not the set itself", a)
		}
		// Equal is == resource by resource, either way round.
		if a.Equal(b) != slices.Equal(a, b) || b.Equal(a) != slices.Equal(a, b) {
			t.Fatalf("%s equal to %s: %t, but resource by resource %t", a, b, a.Equal(b), slices.Equal(a, b))
		}
		// A set and itself, one slice: as a set and its copy.
		if !a.Equal(a) || !reflect.DeepEqual(a.Minus(a), a.Minus(a0)) {
			t.Fatalf("%s with itself: Equal %t, Minus %#v, Minus of a copy %#v", a, a.Equal(a), a.Minus(a), a.Minus(a0))
		}
		if a.Meets(b) != (len(inter) > 0) || b.Meets(a) != (len(inter) > 0) {
			t.Fatalf("%s meets %s: %t, but their intersection is %s", a, b, a.Meets(b), fromNaive(inter))
		}
		for r := range na {
			if !a.Contains(r) {
				t.Fatalf("%s does not contain %s", a, r)
			}
		}
		if !a.Equal(a0) || !b.Equal(b0) {
			t.Fatalf("operands changed: %s %s, were %s %s", a, b, a0, b0)
		}
		back, err := ParseSet(a.String())
		if err != nil || !back.Equal(a) {
			t.Fatalf("ParseSet(%q) = %s, %v", a.String(), back, err)
		}
		// Any order, any run of separators; a repeat is an error.
		fields := make([]string, len(xs))
		for i, r := range xs {
			fields[i] = r.String()
		}
		listed := "{" + strings.Join(fields, rapid.SampledFrom([]string{" ", ",", ", ", "  "}).Draw(t, "sep")) + "}"
		got, err := ParseSet(listed)
		switch {
		case len(a) < len(xs) && err == nil:
			t.Fatalf("ParseSet(%q) = %s, want an error for the repeat", listed, got)
		case len(a) == len(xs) && (err != nil || !got.Equal(a) || got.Validate() != nil):
			t.Fatalf("ParseSet(%q) = %s, %v; want %s", listed, got, err, a)
		}
	})
}

func TestParseRejectsMalformedInput(t *testing.T) {
	for _, s := range []string{"a-0", "{a}", "{a-x}", "{-1}", "{a-0 a-0}", "{/connector}", "{a-0", "a-0}"} {
		if got, err := ParseSet(s); err == nil {
			t.Errorf("ParseSet(%q) = %s, want an error", s, got)
		}
	}
	for _, s := range []string{"-1", "t-", "t", ""} {
		if _, err := ParseResource(s); err == nil || !strings.Contains(err.Error(), "want topic-N or name/connector") {
			t.Errorf("ParseResource(%q): %v, want the topic-N error", s, err)
		}
	}
	for _, s := range []string{"my-topic-3", "conn/connector", "t-0"} {
		r, err := ParseResource(s)
		if err != nil || r.String() != s {
			t.Errorf("ParseResource(%q) = %v, %v; want it back", s, r, err)
		}
	}
}

func TestSetValidateReportsDisorder(t *testing.T) {
	for _, s := range []Set{{TP("b", 0), TP("a", 0)}, {TP("a", 1), TP("a", 1)}, {TP("", 0)}, {TP("a", -2)}} {
		if err := s.Validate(); err == nil {
			t.Errorf("Validate(%v) = nil, want an error", []Resource(s))
		}
	}
}

// TestTopicsHas: a partition exists when its topic does and its number is
// in [0, count); a connector (partition -1) is not a partition.
func TestTopicsHas(t *testing.T) {
	topics := Topics{"t": 2}
	for _, tc := range []struct {
		r    Resource
		want bool
	}{
		{TP("t", 0), true}, {TP("t", 1), true}, {TP("t", 2), false}, {TP("t", -1), false}, {TP("u", 0), false},
	} {
		if got := topics.Has(tc.r); got != tc.want {
			t.Errorf("Has(%s) = %v, want %v", tc.r, got, tc.want)
		}
	}
}

// TestNumberedTopics: n topics named by the format in index order, each of
// the given count.
func TestNumberedTopics(t *testing.T) {
	topics, names := NumberedTopics("t%02d", 3, 4)
	if want := (Topics{"t00": 4, "t01": 4, "t02": 4}); !maps.Equal(topics, want) {
		t.Errorf("topics = %v, want %v", topics, want)
	}
	if want := []string{"t00", "t01", "t02"}; !slices.Equal(names, want) {
		t.Errorf("names = %q, want %q", names, want)
	}
	if topics, names := NumberedTopics("t%d", 0, 4); len(topics) != 0 || len(names) != 0 {
		t.Errorf("no topics: %v %q", topics, names)
	}
}

// TestSetValidateFastPath: Validate, with its run-wise fast path, gives
// what checking each resource gives (firstProblem: the same error, or
// none) for any
// slice of resources: sorted or not, with duplicates, empty topics,
// partitions below a connector's, and topics held as one string or not.
func TestSetValidateFastPath(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := rapid.Custom(func(t *rapid.T) Resource {
			topic := rapid.SampledFrom([]string{"", "a", "aa", "b"}).Draw(t, "topic")
			return Resource{Topic: topic, Partition: rapid.Int32Range(-3, 4).Draw(t, "partition")}
		})
		rs := rapid.SliceOfN(r, 0, 8).Draw(t, "resources")
		if rapid.Bool().Draw(t, "sorted") {
			rs = NewSet(rs...)
		}
		s := Set(rs)
		want := s.firstProblem()
		if got := s.Validate(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("Validate(%#v) = %v, want %v", []Resource(s), got, want)
		}
		if s.valid() != (want == nil) {
			t.Fatalf("valid(%#v) = %t, but the reference says %v", []Resource(s), s.valid(), want)
		}
	})
}

// TestSetValidIn: ValidIn is Validate finding nothing and every resource
// a partition in range of its topic, checked resource by resource
// (firstProblem is the reference for the first half), over topics that
// leave some drawn topics out, hold "" or not, and have counts that cut
// some drawn partitions off.
func TestSetValidIn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := []string{"", "a", "aa", "b"}
		r := rapid.Custom(func(t *rapid.T) Resource {
			return Resource{Topic: rapid.SampledFrom(names).Draw(t, "topic"), Partition: rapid.Int32Range(-3, 4).Draw(t, "partition")}
		})
		rs := rapid.SliceOfN(r, 0, 8).Draw(t, "resources")
		if rapid.Bool().Draw(t, "sorted") {
			rs = NewSet(rs...)
		}
		s := Set(rs)
		topics := Topics{}
		for _, n := range names {
			if rapid.Bool().Draw(t, "has "+n) {
				topics[n] = rapid.Int32Range(0, 5).Draw(t, "count of "+n)
			}
		}
		want := s.firstProblem() == nil
		for _, r := range s {
			if count, ok := topics[r.Topic]; !ok || r.Partition < 0 || r.Partition >= count {
				want = false
			}
		}
		if got := s.ValidIn(topics); got != want {
			t.Fatalf("ValidIn(%#v, %v) = %t, want %t", []Resource(s), topics, got, want)
		}
	})
}
