package spec

import (
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// FuzzParseResource: ParseResource never panics; what it accepts is a
// valid resource, and its String parses back to the same resource.
func FuzzParseResource(f *testing.F) {
	for _, s := range []string{"T-0", "orders-12", "a-b-3", "C/connector", "C-0", "x/connector-1", "a/connector/connector",
		"T--1", "T-+1", "T-2147483648", "-1", "T-", "/connector", "", "T-1 ", "\xff-1",
		"007", "123456789", "999999999", "1234567890", "+5", "12a", "1,2", "3 4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, ok := smallDecimal(s); ok {
			if m, err := strconv.ParseInt(s, 10, 32); err != nil || int32(m) != n {
				t.Fatalf("smallDecimal(%q) = %d, strconv.ParseInt: %d, %v", s, n, m, err)
			}
		}
		r, err := ParseResource(s)
		if err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("%q parsed as an invalid resource %#v: %v", s, r, err)
		}
		again, err := ParseResource(r.String())
		if err != nil {
			t.Fatalf("%q parsed as %#v, whose String %q does not parse: %v", s, r, r.String(), err)
		}
		if again != r {
			t.Fatalf("%q parsed as %#v; its String %q parses as %#v", s, r, r.String(), again)
		}
	})
}

// FuzzParseSet: ParseSet never panics; what it accepts is a valid set
// (sorted, no duplicates, valid resources) with one resource per listed
// item, and its String parses back to the same set.
func FuzzParseSet(f *testing.F) {
	for _, s := range []string{"{}", "{T-0 T-1 U-3}", "{U-3,T-0, T-1}", "{a-b-0 C/connector C-0 C-1}", " {T-0} ", "{T-0 T-0}",
		"{T-0", "T-0}", "{{T-0}", "{T-0}}", "{T-x}", "{,,}", NewSet(TP("a", 2), Connector("c"), Task("c", 0)).String()} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		set, err := ParseSet(s)
		if err != nil {
			if set != nil {
				t.Fatalf("%q: an error with a set %v", s, set)
			}
			return
		}
		if err := set.Validate(); err != nil {
			t.Fatalf("%q parsed as an invalid set %#v: %v", s, set, err)
		}
		again, err := ParseSet(set.String())
		if err != nil {
			t.Fatalf("%q parsed as %#v, whose String %q does not parse: %v", s, set, set.String(), err)
		}
		if !slices.Equal(again, set) {
			t.Fatalf("%q parsed as %#v; its String %q parses as %#v", s, set, set.String(), again)
		}
	})
}

// FuzzParseSetItems: ParseSet, with its fast paths, reads what reading
// each item alone reads (parseSetItems), and fails where that fails. Its
// seeds are the inputs that only look like the next partition of a run.
func FuzzParseSetItems(f *testing.F) {
	for _, s := range []string{"{t-1 t-2 t-10}", "{t-1,t-2,,t-3}", "{t-1 t-01}", "{a-1 a-1-2}", "{t-1 t-1x}", "{t-1 t-}", "{t-1 t- t-2}", "{t-1 t-,t-2}", "{t-1 t-1:}", "{t-1 t-/2}",
		"{t-1 t--1}", "{t-1 t-999999999}", "{t-1 t-1000000000}", "{t-1 t-9999999999}", "{c/connector c-0}", "{t-5 tt-1 t-6}", "{t-1 t12}", "{t-1 t-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseSet(s)
		want, wantErr := parseSetItems(s)
		if (err != nil) != (wantErr != nil) || !slices.Equal(got, want) {
			t.Fatalf("ParseSet(%q) = %#v, %v; each item read alone: %#v, %v", s, got, err, want, wantErr)
		}
	})
}

// FuzzCheckRound: CheckRound, with roundClean's shortcut, reports exactly
// what the plain reference reports, on rounds the fuzzer draws from its
// bytes: up to four members (a missing or unsorted subscription, claims
// and assignment as drawn, so possibly unsorted, duplicated or outside
// the universe), a claimant the round gives nothing, cooperative or not,
// and a universe with a connector, none, or one with a nameless topic.
func FuzzCheckRound(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{1, 3, 0, 2, 1, 2, 2, 3, 4, 1, 1, 9})
	f.Add([]byte{5, 2, 1, 3, 0, 1, 2, 4, 5, 6, 0, 3, 3, 7, 8, 9, 2, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return int(b)
		}
		universes := []Topics{Topics{"a": 4, "b": 3}.AddConnector("c", 2), nil, {"a": 4, "": 1}}
		pool := []Resource{TP("a", 0), TP("a", 1), TP("a", 2), TP("a", 3), TP("b", 0), TP("b", 1), TP("b", 2),
			Connector("c"), Task("c", 0), Task("c", 1), TP("a", 9), TP("z", 0), TP("", 0), {Topic: "a", Partition: -2}}
		subscriptions := [][]string{{"a", "b", "c"}, {"b", "a"}, {"a"}, {"", "a"}, nil}
		drawSet := func() Set {
			rs := make(Set, next()%6)
			for i := range rs {
				rs[i] = pool[next()%len(pool)]
			}
			if next()%3 > 0 {
				return NewSet(rs...)
			}
			return rs // as drawn: maybe not a set
		}
		flags := next()
		r := Round{Topics: universes[flags%3], Cooperative: flags&4 != 0,
			Subscriptions: map[MemberID][]string{}, Claims: map[MemberID]Set{}, Assigned: Assignment{}}
		for m := range 1 + next()%4 {
			id := MemberID("m" + strconv.Itoa(m))
			if s := next() % (len(subscriptions) + 1); s < len(subscriptions) {
				r.Subscriptions[id] = subscriptions[s]
			}
			r.Claims[id] = drawSet()
			r.Assigned[id] = drawSet()
		}
		if flags&8 != 0 {
			r.Claims["gone"] = drawSet()
		}
		got, want := CheckRound(r), checkRoundReference(r)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %+v:\n got %v\nwant %v", r, got, want)
		}
	})
}
