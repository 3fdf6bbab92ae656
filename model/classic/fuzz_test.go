package classic

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// FuzzDecodeSubscription: DecodeSubscription never panics; what it
// accepts has sorted distinct topics, a valid owned set and a generation
// of at least NoGeneration, and Encode of it decodes to the same
// subscription.
func FuzzDecodeSubscription(f *testing.F) {
	for _, s := range []Subscription{
		{Topics: []string{"t"}, Generation: spec.NoGeneration},
		{Topics: []string{"T", "U"}, Owned: spec.NewSet(spec.TP("T", 0), spec.TP("U", 1)), Generation: 3, Leader: "A-1"},
		{Topics: []string{"C"}, Owned: spec.NewSet(spec.Connector("C"), spec.Task("C", 0)), Generation: 7, Leader: "B-2"},
	} {
		f.Add(string(s.Encode()))
	}
	for _, s := range []string{"", "topics=[];owned={};gen=-1;leader=-", "topics=[b a];owned={};gen=0;leader=-",
		"topics=[a];owned={a-0 a-0};gen=0;leader=x", "topics=[a];owned={};gen=-2;leader=x", "topics=[a];owned={};gen=1;leader=x;extra=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		s, err := DecodeSubscription(Metadata(md))
		if err != nil {
			return
		}
		if !slices.IsSorted(s.Topics) || len(slices.Compact(slices.Clone(s.Topics))) != len(s.Topics) {
			t.Fatalf("%q: topics %q not sorted and distinct", md, s.Topics)
		}
		if err := s.Owned.Validate(); err != nil {
			t.Fatalf("%q: owned: %v", md, err)
		}
		if s.Generation < spec.NoGeneration {
			t.Fatalf("%q: generation %d", md, s.Generation)
		}
		enc := s.Encode()
		if want := fmt.Sprintf("topics=[%s];owned=%s;gen=%d;leader=%s", strings.Join(s.Topics, " "), s.Owned, s.Generation, idOrDash(s.Leader)); string(enc) != want {
			t.Fatalf("%+v encodes as %q, want the documented form %q", s, enc, want)
		}
		again, err := DecodeSubscription(enc)
		if err != nil {
			t.Fatalf("%q decoded as %+v, whose encoding %q does not decode: %v", md, s, enc, err)
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("%q decoded as %+v; its encoding %q decodes as %+v", md, s, enc, again)
		}
	})
}

// FuzzDecodeAssignment: DecodeAssignment never panics; what it accepts
// has valid assigned and revoked sets that do not meet and a delay of at
// least 0, and Encode of it decodes to the same assignment.
func FuzzDecodeAssignment(f *testing.F) {
	for _, a := range []Assignment{
		{},
		{Assigned: spec.NewSet(spec.TP("T", 0), spec.TP("T", 1)), Revoked: spec.NewSet(spec.TP("U", 0)), Leader: "A-1"},
		{Assigned: spec.NewSet(spec.Connector("C"), spec.Task("C", 1)), Delay: 5000, Leader: "B-2", Error: spec.UnknownServerError},
	} {
		f.Add(string(a.Encode()))
	}
	for _, s := range []string{"", "assigned={a-0};revoked={a-0};delay=0;leader=-;error=0", "assigned={};revoked={};delay=-1;leader=-;error=0",
		"assigned={};revoked={};delay=0;leader=-;error=40000", "assigned={};revoked={};delay=0;leader=;error=-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		a, err := DecodeAssignment(Metadata(md))
		if err != nil {
			return
		}
		if err := a.Assigned.Validate(); err != nil {
			t.Fatalf("%q: assigned: %v", md, err)
		}
		if err := a.Revoked.Validate(); err != nil {
			t.Fatalf("%q: revoked: %v", md, err)
		}
		if x := a.Assigned.Intersect(a.Revoked); !x.IsEmpty() {
			t.Fatalf("%q: %s both assigned and revoked", md, x)
		}
		if a.Delay < 0 {
			t.Fatalf("%q: delay %d", md, a.Delay)
		}
		enc := a.Encode()
		if want := fmt.Sprintf("assigned=%s;revoked=%s;delay=%d;leader=%s;error=%d", a.Assigned, a.Revoked, a.Delay, idOrDash(a.Leader), a.Error); string(enc) != want {
			t.Fatalf("%+v encodes as %q, want the documented form %q", a, enc, want)
		}
		again, err := DecodeAssignment(enc)
		if err != nil {
			t.Fatalf("%q decoded as %+v, whose encoding %q does not decode: %v", md, a, enc, err)
		}
		if !reflect.DeepEqual(again, a) {
			t.Fatalf("%q decoded as %+v; its encoding %q decodes as %+v", md, a, enc, again)
		}
	})
}

// fieldsReference is fields as it was first written: the fields counted
// first, then split.
func fieldsReference(dst []string, md Metadata, what string, want ...string) error {
	if n := strings.Count(string(md), ";") + 1; n != len(want) {
		return fmt.Errorf("%s %q: want %d fields %v, got %d", what, md, len(want), want, n)
	}
	for i, p := range strings.Split(string(md), ";") {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k != want[i] {
			return fmt.Errorf("%s %q: field %d: want key %q", what, md, i+1, want[i])
		}
		dst[i] = v
	}
	return nil
}

// FuzzFields: fields reads what fieldsReference reads and fails with the
// same error, for two, three and five keys.
func FuzzFields(f *testing.F) {
	for _, s := range []string{"", ";", "a=1", "a=1;b=2", "a=1;b=2;c=3", "b=1;a=2", "a=1;;b=2", "a;b=2", "a=1;b=2;", "x=1;b=2;c=3;d=4",
		"a=1;b=2;c=3;d=4;e=5", "a=1;b=2;c=3;d=4;e=5;f=6", "a==1;b=2", "a=1;b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		for _, want := range [][]string{{"a", "b"}, {"a", "b", "c"}, {"a", "b", "c", "d", "e"}} {
			got, ref := make([]string, len(want)), make([]string, len(want))
			err := fields(got, Metadata(md), "test", want...)
			werr := fieldsReference(ref, Metadata(md), "test", want...)
			if fmt.Sprint(err) != fmt.Sprint(werr) || (err == nil && !slices.Equal(got, ref)) {
				t.Fatalf("fields(%q, %q) = %q, %v; reference %q, %v", md, want, got, err, ref, werr)
			}
		}
	})
}
