package canon

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

type millis int64

func init() { RegisterTimeType(reflect.TypeFor[millis]()) }

type node struct {
	Deadline millis            `canon:"instant"`
	Timeout  millis            `canon:"duration"`
	Waiting  uint64            `canon:"seq"`
	Counter  uint64            `canon:"-"`
	Arrival  uint64            `canon:"order"`
	Owned    map[string]int    // encoded in key order whatever the map's order
	Parked   map[string]uint64 `canon:"seq"`
}

func enc(now int64, v any) []byte {
	e := &Encoder{Now: now}
	e.Value(v)
	return append([]byte(nil), e.Finish()...)
}

// TestAbstraction: states that differ only in what the encoding abstracts
// encode alike, and states that differ in anything else do not.
func TestAbstraction(t *testing.T) {
	base := node{Deadline: 1500, Timeout: 300, Waiting: 7, Counter: 9, Arrival: 40, Owned: map[string]int{"a": 1, "b": 2}, Parked: map[string]uint64{"x": 7}}
	same := []struct {
		name string
		now  int64
		n    node
	}{
		{"clock and deadline shifted together", 1000 + 500, node{Deadline: 2000, Timeout: 300, Waiting: 7, Counter: 9, Arrival: 40, Owned: map[string]int{"a": 1, "b": 2}, Parked: map[string]uint64{"x": 7}}},
		{"correlation ids renamed consistently", 1000, node{Deadline: 1500, Timeout: 300, Waiting: 21, Counter: 9, Arrival: 40, Owned: map[string]int{"b": 2, "a": 1}, Parked: map[string]uint64{"x": 21}}},
		{"fresh-id counter left out", 1000, node{Deadline: 1500, Timeout: 300, Waiting: 7, Counter: 1234, Arrival: 40, Owned: map[string]int{"a": 1, "b": 2}, Parked: map[string]uint64{"x": 7}}},
		{"order value with the same rank", 1000, node{Deadline: 1500, Timeout: 300, Waiting: 7, Counter: 9, Arrival: 3, Owned: map[string]int{"a": 1, "b": 2}, Parked: map[string]uint64{"x": 7}}},
	}
	want := enc(1000, base)
	for _, c := range same {
		if got := enc(c.now, c.n); !bytes.Equal(got, want) {
			t.Errorf("%s: encodings differ", c.name)
		}
	}
	differ := []struct {
		name string
		n    node
	}{
		{"deadline moved", node{Deadline: 1600, Timeout: 300, Waiting: 7, Arrival: 40, Owned: map[string]int{"a": 1, "b": 2}, Parked: map[string]uint64{"x": 7}}},
		{"duration changed", node{Deadline: 1500, Timeout: 301, Waiting: 7, Arrival: 40, Owned: map[string]int{"a": 1, "b": 2}, Parked: map[string]uint64{"x": 7}}},
		{"parked id no longer the awaited one", node{Deadline: 1500, Timeout: 300, Waiting: 7, Arrival: 40, Owned: map[string]int{"a": 1, "b": 2}, Parked: map[string]uint64{"x": 8}}},
		{"map value changed", node{Deadline: 1500, Timeout: 300, Waiting: 7, Arrival: 40, Owned: map[string]int{"a": 1, "b": 3}, Parked: map[string]uint64{"x": 7}}},
		{"deadline none", node{Deadline: 0, Timeout: 300, Waiting: 7, Arrival: 40, Owned: map[string]int{"a": 1, "b": 2}, Parked: map[string]uint64{"x": 7}}},
	}
	for _, c := range differ {
		if got := enc(1000, c.n); bytes.Equal(got, want) {
			t.Errorf("%s: encodings equal", c.name)
		}
	}
	// Every due instant is alike, and unlike "none" and the future.
	if !bytes.Equal(enc(1000, node{Deadline: 400}), enc(1000, node{Deadline: 1000})) {
		t.Errorf("two due instants encode differently")
	}
	if bytes.Equal(enc(1000, node{Deadline: 1000}), enc(1000, node{Deadline: 0})) || bytes.Equal(enc(1000, node{Deadline: 1000}), enc(1000, node{Deadline: 1001})) {
		t.Errorf("due, none and future instants collide")
	}
}

type untaggedTime struct{ At millis }
type untaggedSeq struct{ JoinSeq uint64 }
type badTag struct {
	X int `canon:"sometimes"`
}

// TestRefusesUntaggedFields: a time or correlation-id field without a tag
// panics with a message naming the field.
func TestRefusesUntaggedFields(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{untaggedTime{}, "untaggedTime.At holds a time type"},
		{untaggedSeq{}, "untaggedSeq.JoinSeq looks like a correlation id"},
		{badTag{}, `unknown tag canon:"sometimes"`},
	} {
		func() {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(r.(string), c.want) {
					t.Errorf("%T: got panic %v, want one containing %q", c.v, r, c.want)
				}
			}()
			enc(0, c.v)
		}()
	}
}

func TestSortedIsOrderFree(t *testing.T) {
	a := &Encoder{}
	a.Sorted(3, func(i int) { a.String([]string{"x", "y", "z"}[i]) })
	b := &Encoder{}
	b.Sorted(3, func(i int) { b.String([]string{"z", "x", "y"}[i]) })
	if !bytes.Equal(a.Finish(), b.Finish()) {
		t.Errorf("Sorted depends on item order")
	}
}
