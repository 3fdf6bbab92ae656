// Package tlaval is the TLA+ values the cross-check compares: integers,
// strings, booleans, model values, sequences, sets, records and functions,
// each with one canonical text. The Go side builds values with the
// constructors; TLC's printed states are read with Parse. Two values are
// equal as TLA+ values exactly when their canonical texts are equal, so the
// cross-check compares texts.
//
// The canonical text normalises what TLC prints differently for equal
// values: a function whose domain is 1..n is a sequence, a function whose
// domain is a set of strings is a record, the empty function is <<>>, an
// interval a..b is the set of its integers. Record fields, set elements and
// function keys are sorted by their canonical text (bytewise), and sets
// hold each element once.
package tlaval

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Kind is the kind of a value after normalisation.
type Kind uint8

// The kinds of value.
const (
	KindInt Kind = iota + 1
	KindString
	KindBool
	KindModelValue
	KindSeq
	KindSet
	KindRecord
	KindFunction
)

// Value is an immutable TLA+ value. The zero Value is not a value; every
// constructor returns a valid one. It is a pointer to its representation,
// so values are cheap to copy and sort.
type Value struct{ *value }

// value is a Value's representation.
type value struct {
	kind Kind
	// text is the canonical text, computed once at construction.
	text string
	// n is the integer of KindInt.
	n int
	// s is the string of KindString and the name of KindModelValue.
	s string
	// elems are a sequence's elements in order, or a set's sorted by text
	// and distinct.
	elems []Value
	// keys and vals are a record's or function's domain, sorted by text,
	// and the values at each key (a record's keys are strings).
	keys, vals []Value
}

// Kind returns the kind of v.
func (v Value) Kind() Kind { return v.kind }

// String returns the canonical text of v.
func (v Value) String() string { return v.text }

// Equal reports whether v and w are the same TLA+ value.
func (v Value) Equal(w Value) bool { return v.text == w.text }

// Int returns the integer n.
func Int(n int) Value { return Value{&value{kind: KindInt, n: n, text: strconv.Itoa(n)}} }

// Str returns the string s.
func Str(s string) Value { return Value{&value{kind: KindString, s: s, text: quote(s)}} }

// Bool returns TRUE or FALSE.
func Bool(b bool) Value {
	if b {
		return Value{&value{kind: KindBool, n: 1, text: "TRUE"}}
	}
	return Value{&value{kind: KindBool, text: "FALSE"}}
}

// ModelValue returns the model value called name (a TLA+ identifier, such
// as None). It panics on a name that is not an identifier.
func ModelValue(name string) Value {
	if !isIdent(name) || name == "TRUE" || name == "FALSE" {
		panic(fmt.Sprintf("tlaval: model value %q is not an identifier", name))
	}
	return Value{&value{kind: KindModelValue, s: name, text: name}}
}

// Seq returns the sequence <<vs[0], vs[1], ...>>.
func Seq(vs ...Value) Value {
	for _, v := range vs {
		mustValid(v)
	}
	var b strings.Builder
	b.WriteString("<<")
	for i, v := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v.text)
	}
	b.WriteString(">>")
	return Value{&value{kind: KindSeq, elems: slices.Clone(vs), text: b.String()}}
}

// Set returns the set of vs: order does not matter and duplicates count
// once.
func Set(vs ...Value) Value {
	for _, v := range vs {
		mustValid(v)
	}
	elems := slices.Clone(vs)
	slices.SortFunc(elems, func(a, b Value) int { return strings.Compare(a.text, b.text) })
	elems = slices.CompactFunc(elems, func(a, b Value) bool { return a.text == b.text })
	var b strings.Builder
	b.WriteString("{")
	for i, v := range elems {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v.text)
	}
	b.WriteString("}")
	return Value{&value{kind: KindSet, elems: elems, text: b.String()}}
}

// Rec returns the record with the given fields: Rec("a", Int(1), "b",
// Str("x")) is [a |-> 1, b |-> "x"]. Fields may come in any order. It
// panics on an odd number of arguments, a field name that is not a string,
// a value that is not a Value or a field given twice.
func Rec(kv ...any) Value {
	if len(kv)%2 != 0 {
		panic("tlaval: Rec wants name, value pairs")
	}
	type field struct {
		name string
		v    Value
	}
	fields := make([]field, 0, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		name, ok := kv[i].(string)
		if !ok {
			panic(fmt.Sprintf("tlaval: Rec field name %v is not a string", kv[i]))
		}
		v, ok := kv[i+1].(Value)
		if !ok {
			panic(fmt.Sprintf("tlaval: Rec field %s: %T is not a Value", name, kv[i+1]))
		}
		mustValid(v)
		fields = append(fields, field{name, v})
	}
	if len(fields) == 0 {
		return Seq()
	}
	slices.SortFunc(fields, func(a, b field) int { return strings.Compare(a.name, b.name) })
	out := &value{kind: KindRecord, keys: make([]Value, len(fields)), vals: make([]Value, len(fields))}
	size := 2
	for _, f := range fields {
		size += len(f.name) + len(f.v.text) + 6
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteByte('[')
	for i, f := range fields {
		if i > 0 {
			if f.name == fields[i-1].name {
				panic("tlaval: field " + f.name + " given twice")
			}
			b.WriteString(", ")
		}
		out.keys[i] = fieldName(f.name)
		out.vals[i] = f.v
		b.WriteString(f.name)
		b.WriteString(" |-> ")
		b.WriteString(f.v.text)
	}
	b.WriteByte(']')
	out.text = b.String()
	return Value{out}
}

// fieldNames caches the string values of record field names, which the
// same few names make up in every state.
var fieldNames sync.Map // string -> Value

func fieldName(name string) Value {
	if v, ok := fieldNames.Load(name); ok {
		return v.(Value)
	}
	v := Str(name)
	fieldNames.Store(name, v)
	return v
}

// Fcn returns the function mapping pairs[0] to pairs[1], pairs[2] to
// pairs[3], and so on, normalised: a domain 1..n makes a sequence, a domain
// of strings a record, an empty domain <<>>. It panics on an odd number of
// arguments or a key given twice.
func Fcn(pairs ...Value) Value {
	v, err := function(pairs)
	if err != nil {
		panic("tlaval: " + err.Error())
	}
	return v
}

// function builds the normalised function of key, value pairs.
func function(pairs []Value) (Value, error) {
	if len(pairs)%2 != 0 {
		return Value{}, fmt.Errorf("a function wants key, value pairs")
	}
	type kv struct{ k, v Value }
	entries := make([]kv, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		mustValid(pairs[i])
		mustValid(pairs[i+1])
		entries = append(entries, kv{pairs[i], pairs[i+1]})
	}
	slices.SortFunc(entries, func(a, b kv) int { return strings.Compare(a.k.text, b.k.text) })
	for i := 1; i < len(entries); i++ {
		if entries[i].k.text == entries[i-1].k.text {
			return Value{}, fmt.Errorf("key %s given twice", entries[i].k.text)
		}
	}
	if len(entries) == 0 {
		return Seq(), nil
	}
	// Domain 1..n: a sequence.
	seq := make([]Value, len(entries))
	isSeq := true
	for _, e := range entries {
		if e.k.kind != KindInt || e.k.n < 1 || e.k.n > len(entries) {
			isSeq = false
			break
		}
		seq[e.k.n-1] = e.v
	}
	if isSeq {
		return Seq(seq...), nil
	}
	// A record only when every key is a string that is an identifier, as
	// TLA+ field names are: [a b |-> 1] would not parse back, so a
	// function with a key such as "a b" prints as ("a b" :> 1).
	allStrings := true
	for _, e := range entries {
		if e.k.kind != KindString || !isIdent(e.k.s) {
			allStrings = false
			break
		}
	}
	out := &value{kind: KindFunction}
	if allStrings {
		out.kind = KindRecord
		// Sort by field name, which for strings is the order of their
		// quoted texts only up to escapes; sort by name to be exact.
		slices.SortFunc(entries, func(a, b kv) int { return strings.Compare(a.k.s, b.k.s) })
	}
	var b strings.Builder
	if allStrings {
		b.WriteString("[")
	} else {
		b.WriteString("(")
	}
	for i, e := range entries {
		out.keys = append(out.keys, e.k)
		out.vals = append(out.vals, e.v)
		if allStrings {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(e.k.s)
			b.WriteString(" |-> ")
		} else {
			if i > 0 {
				b.WriteString(" @@ ")
			}
			b.WriteString(e.k.text)
			b.WriteString(" :> ")
		}
		b.WriteString(e.v.text)
	}
	if allStrings {
		b.WriteString("]")
	} else {
		b.WriteString(")")
	}
	out.text = b.String()
	return Value{out}, nil
}

// Field returns the value of a record's field and whether it has it.
func (v Value) Field(name string) (Value, bool) {
	if v.kind != KindRecord {
		return Value{}, false
	}
	for i, k := range v.keys {
		if k.s == name {
			return v.vals[i], true
		}
	}
	return Value{}, false
}

// Fields returns a record's field names, sorted; nil for other kinds.
func (v Value) Fields() []string {
	if v.kind != KindRecord {
		return nil
	}
	out := make([]string, len(v.keys))
	for i, k := range v.keys {
		out[i] = k.s
	}
	return out
}

// Elems returns a sequence's elements in order or a set's in canonical
// order; nil for other kinds.
func (v Value) Elems() []Value { return slices.Clone(v.elems) }

func mustValid(v Value) {
	if v.value == nil {
		panic("tlaval: the zero Value is not a value")
	}
}

// quote writes s as a TLA+ string literal, escaping as TLC does.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	hasLetter := false
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			hasLetter = true
		case r >= '0' && r <= '9':
			_ = i
		default:
			return false
		}
	}
	return hasLetter
}
