package spec

import (
	"slices"
	"strconv"
	"testing"
)

// FuzzParseResource: ParseResource never panics; what it accepts is a
// valid resource, and its String parses back to the same resource.
func FuzzParseResource(f *testing.F) {
	for _, s := range []string{"T-0", "orders-12", "a-b-3", "C/connector", "C-0", "x/connector-1", "a/connector/connector",
		"T--1", "T-+1", "T-2147483648", "-1", "T-", "/connector", "", "T-1 ", "\xff-1",
		"007", "123456789", "999999999", "1234567890", "+5", "12a"} {
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
