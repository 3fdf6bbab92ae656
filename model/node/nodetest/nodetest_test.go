package nodetest

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestTrim: lines trimmed, empty ones dropped, detail lines indented.
func TestTrim(t *testing.T) {
	in := "\n   group g\n\n\t  member A\n   assignment=x  \n"
	if got := Trim(in, nil); got != "group g\nmember A\nassignment=x" {
		t.Errorf("Trim(nil) = %q", got)
	}
	detail := func(l string) bool { return strings.HasPrefix(l, "assignment=") }
	if got := Trim(in, detail); got != "group g\nmember A\n  assignment=x" {
		t.Errorf("Trim(detail) = %q", got)
	}
}

// TestMust: the value without an error, a panic with one.
func TestMust(t *testing.T) {
	if Must(3, nil) != 3 {
		t.Error("Must(3, nil)")
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("Must with an error did not panic")
		}
	}()
	Must(0, errors.New("bad"))
}

// TestSet: a set parsed from its text.
func TestSet(t *testing.T) {
	if got := Set(t, "{T-1 T-0}").String(); got != "{T-0 T-1}" {
		t.Errorf("Set = %s", got)
	}
}

// failures records what CheckEncoders reports instead of failing the test.
type failures struct {
	testing.TB
	got []string
}

func (f *failures) Helper() {}
func (f *failures) Errorf(format string, args ...any) {
	f.got = append(f.got, fmt.Sprintf(format, args...))
}

// TestCheckEncoders: the guard passes a struct whose count and left-out
// fields are right, and names the struct and the encoder when a field is
// added, a tag is missing or a field is tagged without being named.
func TestCheckEncoders(t *testing.T) {
	type inner struct{ X int }
	type node struct {
		inner // one field of node, not two
		A     int
		B     string `canon:"-"`
	}
	typ := reflect.TypeFor[node]()
	for _, c := range []struct {
		name string
		enc  Encoded
		want string // "" for no failure, else a substring of the one failure
	}{
		{"right", Encoded{Type: typ, Encoder: "enc", Handled: 3, LeftOut: []string{"B"}}, ""},
		{"field added", Encoded{Type: typ, Encoder: "enc", Handled: 2, LeftOut: []string{"B"}}, "has 3 fields, enc handles 2"},
		{"tag missing", Encoded{Type: typ, Encoder: "enc", Handled: 3, LeftOut: []string{"A", "B"}}, "tagged canon:\"-\" are [B], enc leaves out [A B]"},
		{"tagged, not named", Encoded{Type: typ, Encoder: "enc", Handled: 3}, "tagged canon:\"-\" are [B], enc leaves out []"},
	} {
		f := &failures{TB: t}
		CheckEncoders(f, c.enc)
		switch {
		case c.want == "" && len(f.got) > 0:
			t.Errorf("%s: unexpected failures %q", c.name, f.got)
		case c.want != "" && (len(f.got) != 1 || !strings.Contains(f.got[0], c.want)):
			t.Errorf("%s: failures %q, want one containing %q", c.name, f.got, c.want)
		}
	}
}

// TestView: current members A, B, ... with ids A-1, B-1, ..., each
// subscribed to every topic and owning its set.
func TestView(t *testing.T) {
	v := View(t, spec.Topics{"b": 1, "a": 2}, "{a-0 b-0}", "{}")
	if got, want := fmt.Sprint(v.Members), fmt.Sprint([]spec.MemberView{
		{Name: "A", ID: "A-1", Current: true, Subscription: []string{"a", "b"}, Owns: Set(t, "{a-0 b-0}")},
		{Name: "B", ID: "B-1", Current: true, Subscription: []string{"a", "b"}, Owns: Set(t, "{}")},
	}); got != want || len(v.Topics) != 2 {
		t.Errorf("View = %s, want %s", got, want)
	}
}
