package node

import (
	"reflect"
	"testing"
	"time"
)

// TestNilEmpty: NilEmpty sets exactly the empty lists to nil, whether
// they are empty slices of a buffer or already nil, and keeps the rest.
func TestNilEmpty(t *testing.T) {
	var buf [2]Envelope[time.Duration]
	o := Output[time.Duration, time.Duration, time.Duration]{
		Messages:  buf[:0],
		Timers:    []TimerCmd[time.Duration]{{Timer: time.Second}},
		Callbacks: []time.Duration{},
	}
	o.NilEmpty()
	if o.Messages != nil || o.Callbacks != nil {
		t.Errorf("empty lists left non-nil: messages %#v, callbacks %#v", o.Messages, o.Callbacks)
	}
	if len(o.Timers) != 1 {
		t.Errorf("timers = %v, want the one timer kept", o.Timers)
	}
	o.Timers = o.Timers[:0]
	o.NilEmpty()
	if o.Timers != nil {
		t.Errorf("an emptied timer list left non-nil: %#v", o.Timers)
	}
}

// TestBuffered: a Buffered output starts empty with room for a message,
// two timer commands and a callback in one backing, takes more than that
// by growing as a nil list would, and after NilEmpty equals the output
// built by appending to nil lists.
func TestBuffered(t *testing.T) {
	type out = Output[time.Duration, time.Duration, time.Duration]
	o := Buffered[time.Duration, time.Duration, time.Duration]()
	if len(o.Messages) != 0 || len(o.Timers) != 0 || len(o.Callbacks) != 0 {
		t.Fatalf("Buffered() = %+v, want empty lists", o)
	}
	if cap(o.Messages) != 1 || cap(o.Timers) != 2 || cap(o.Callbacks) != 1 {
		t.Fatalf("Buffered() capacities %d, %d, %d; want 1, 2, 1", cap(o.Messages), cap(o.Timers), cap(o.Callbacks))
	}
	if p := Buffered[time.Duration, time.Duration, time.Duration](); &p.Timers[:1][0] == &o.Timers[:1][0] {
		t.Fatal("two Buffered outputs share a backing")
	}
	var plain out
	for i := range 3 {
		d := time.Duration(i)
		o.Send("A", "B", d)
		plain.Send("A", "B", d)
		o.Timers = append(o.Timers, TimerCmd[time.Duration]{Timer: d, At: Millis(i)})
		plain.Timers = append(plain.Timers, TimerCmd[time.Duration]{Timer: d, At: Millis(i)})
	}
	o.NilEmpty()
	plain.NilEmpty()
	if !reflect.DeepEqual(o, plain) {
		t.Errorf("buffered output %+v, built on nil lists %+v", o, plain)
	}
	empty := Buffered[time.Duration, time.Duration, time.Duration]()
	empty.NilEmpty()
	if !reflect.DeepEqual(empty, out{}) {
		t.Errorf("an unused Buffered output after NilEmpty = %#v, want the zero Output", empty)
	}
}
