package tlaval

import (
	"strings"
	"testing"
)

// TestParseCanonical parses what TLC prints and checks the canonical text:
// equal TLA+ values written differently by TLC come out the same.
func TestParseCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`1`, `1`},
		{`-3`, `-3`},
		{`"a\"b\\c"`, `"a\"b\\c"`},
		{`TRUE`, `TRUE`},
		{`None`, `None`},
		{`<<>>`, `<<>>`},
		{`<< 1 ,2>>`, `<<1, 2>>`},
		{`{3, 1, 2, 1}`, `{1, 2, 3}`},
		{`{}`, `{}`},
		{`1..3`, `{1, 2, 3}`},
		{`3..1`, `{}`},
		{`[b |-> 1, a |-> "x"]`, `[a |-> "x", b |-> 1]`},
		{`("b" :> 1 @@ "a" :> 2)`, `[a |-> 2, b |-> 1]`},
		{`(2 :> "y" @@ 1 :> "x")`, `<<"x", "y">>`},
		{`(1 :> <<>> @@ 3 :> <<>>)`, `(1 :> <<>> @@ 3 :> <<>>)`},
		{`(A :> 1 @@ B :> {})`, `(A :> 1 @@ B :> {})`},
		{"[a |->\n   {<<1, 2>>,\n <<1,2>>}]", `[a |-> {<<1, 2>>}]`},
		{`{[p |-> 1], [p |-> 0]}`, `{[p |-> 0], [p |-> 1]}`},
	} {
		v, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if got := v.String(); got != tc.want {
			t.Errorf("Parse(%q) = %s, want %s", tc.in, got, tc.want)
		}
		// The canonical text parses back to itself.
		w, err := Parse(v.String())
		if err != nil || w.String() != v.String() {
			t.Errorf("Parse(%q) does not round-trip: %v, %v", v.String(), w, err)
		}
	}
}

// TestConstructorsMatchParse checks that values built in Go have the text
// of the same values printed by TLC.
func TestConstructorsMatchParse(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		tlc  string
		kind Kind
	}{
		{Rec("b", Int(1), "a", Str("x")), `[a |-> "x", b |-> 1]`, KindRecord},
		{Fcn(Str("k"), Bool(false)), `[k |-> FALSE]`, KindRecord},
		{Fcn(Int(2), Int(20), Int(1), Int(10)), `<<10, 20>>`, KindSeq},
		{Fcn(), `<<>>`, KindSeq},
		{Fcn(Int(0), Int(1)), `(0 :> 1)`, KindFunction},
		{Fcn(ModelValue("B"), Int(1), ModelValue("A"), Int(2)), `(A :> 2 @@ B :> 1)`, KindFunction},
		{Set(Seq(Int(2)), Seq(Int(1)), Seq(Int(2))), `{<<1>>, <<2>>}`, KindSet},
		{Set(Int(1), Int(2)), `1..2`, KindSet},
	} {
		p, err := Parse(tc.tlc)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.tlc, err)
		}
		if !tc.v.Equal(p) {
			t.Errorf("%s built in Go, %s parsed from %q: want equal", tc.v, p, tc.tlc)
		}
		if tc.v.Kind() != tc.kind {
			t.Errorf("%s: kind %d, want %d", tc.v, tc.v.Kind(), tc.kind)
		}
	}
	r := Rec("b", Int(1), "a", Str("x"))
	if got, ok := r.Field("a"); !ok || got.String() != `"x"` {
		t.Errorf("Field(a) = %v, %v", got, ok)
	}
	if _, ok := r.Field("c"); ok {
		t.Errorf("Field(c) found a field the record does not have")
	}
	if got := strings.Join(r.Fields(), ","); got != "a,b" {
		t.Errorf("Fields = %s, want a,b", got)
	}
}

// TestParseErrors checks that malformed text gives an error that says
// where, never a value.
func TestParseErrors(t *testing.T) {
	for _, in := range []string{``, `<<1,`, `{1 2}`, `[a 1]`, `[a |-> 1, a |-> 2]`, `(1 :> 2 @@ 1 :> 3)`, `"abc`, `1 2`, `(1 2)`, `+`, `[|-> 1]`} {
		if v, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %s, want an error", in, v)
		}
	}
}

// TestParseState reads TLC's state conjunctions into the record of the
// variables.
func TestParseState(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/\\ y = {}\n/\\ x = <<1,\n  2>>", `[x |-> <<1, 2>>, y |-> {}]`},
		{"x = 0", `[x |-> 0]`},
	} {
		v, err := ParseState(tc.in)
		if err != nil || v.String() != tc.want {
			t.Errorf("ParseState(%q) = %v, %v; want %s", tc.in, v, err, tc.want)
		}
	}
	for _, in := range []string{"", "/\\ x = ", "/\\ x 1", "/\\ x = 1 /\\ x = 2"} {
		if v, err := ParseState(in); err == nil {
			t.Errorf("ParseState(%q) = %s, want an error", in, v)
		}
	}
}

// TestPanics checks that the constructors refuse what is not a value.
func TestPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"odd Rec":        func() { Rec(oddArgs()...) },
		"non-string key": func() { Rec(1, Int(1)) },
		"non-Value":      func() { Rec("a", 1) },
		"duplicate key":  func() { Fcn(Int(1), Int(1), Int(1), Int(2)) },
		"zero Value":     func() { Seq(Value{}) },
		"bad model name": func() { ModelValue("a b") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// oddArgs is a field name without its value.
func oddArgs() []any { return []any{"a"} }

// TestDiff names the paths where two values differ.
func TestDiff(t *testing.T) {
	a := Rec("x", Int(1), "m", Seq(Rec("s", Str("a"), "o", Set(Int(1)))), "f", Fcn(Int(0), Int(1)))
	b := Rec("x", Int(1), "m", Seq(Rec("s", Str("b"), "o", Set(Int(1)))), "f", Fcn(Int(0), Int(2)))
	got := strings.Join(Diff("", a, b), "; ")
	if want := `f[0]: 1 / 2; m[1].s: "a" / "b"`; got != want {
		t.Errorf("Diff = %s, want %s", got, want)
	}
	if d := Diff("", a, a); d != nil {
		t.Errorf("Diff of equal values = %v", d)
	}
	if got := strings.Join(Diff("v", Seq(Int(1)), Seq(Int(1), Int(2))), ";"); got != "v: <<1>> / <<1, 2>>" {
		t.Errorf("Diff of sequences of different lengths = %s", got)
	}
}
