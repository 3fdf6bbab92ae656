package tlaval

import "testing"

// tlcValues are values as TLC prints them (the canonical-text tests'
// inputs and a few more), the fuzz targets' seeds.
var tlcValues = []string{
	`1`, `-3`, `"a\"b\\c"`, `TRUE`, `None`, `<<>>`, `<< 1 ,2>>`, `{3, 1, 2, 1}`, `{}`, `1..3`, `3..1`,
	`[b |-> 1, a |-> "x"]`, `("b" :> 1 @@ "a" :> 2)`, `(2 :> "y" @@ 1 :> "x")`, `(1 :> <<>> @@ 3 :> <<>>)`,
	`(A :> 1 @@ B :> {})`, "[a |->\n   {<<1, 2>>,\n <<1,2>>}]", `{[p |-> 1], [p |-> 0]}`, `"tab\there\n"`,
	`[a |-> 1, a |-> 2]`, `(1 :> 2 @@ 1 :> 3)`, `"abc`,
}

// FuzzParse: Parse never panics (nor runs away with memory); what it
// accepts prints (String, the canonical text) as text that parses to an
// equal value printing the same.
func FuzzParse(f *testing.F) {
	for _, s := range tlcValues {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := Parse(text)
		if err != nil {
			return
		}
		w, err := Parse(v.String())
		if err != nil {
			t.Fatalf("%q parsed as %s, which does not parse: %v", text, v, err)
		}
		if !w.Equal(v) || w.String() != v.String() || w.Kind() != v.Kind() {
			t.Fatalf("%q parsed as %s; that text parses as %s", text, v, w)
		}
	})
}

// FuzzParseState: ParseState never panics; what it accepts is a record
// (the variables), and the state printed back as TLC's conjunction
// ("/\ x = v" per variable) parses to the same record.
func FuzzParseState(f *testing.F) {
	for _, s := range []string{
		"/\\ y = {}\n/\\ x = <<1,\n  2>>", "x = 0", "/\\ x = 1 /\\ x = 2", "/\\ x = ",
		"/\\ f = [a |-> 0, b |-> 0]\n/\\ q = (1 :> <<>> @@ 3 :> <<>>)\n/\\ r = [p |-> 1, o |-> \"s\\\"q\"]\n/\\ s = 1..2\n/\\ x = 0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v, err := ParseState(text)
		if err != nil {
			return
		}
		if v.Kind() != KindRecord {
			t.Fatalf("%q parsed as %s, not a record", text, v)
		}
		var conj string
		for _, name := range v.Fields() {
			x, _ := v.Field(name)
			conj += "/\\ " + name + " = " + x.String() + "\n"
		}
		w, err := ParseState(conj)
		if err != nil {
			t.Fatalf("%q parsed as %s; printed back as %q it does not parse: %v", text, v, conj, err)
		}
		if !w.Equal(v) {
			t.Fatalf("%q parsed as %s; printed back as %q it parses as %s", text, v, conj, w)
		}
	})
}
