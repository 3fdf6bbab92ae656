package node

import (
	"reflect"
	"testing"
	"time"

	"github.com/rebalance-ref/rebalance/spec"
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

// TestReset: Reset empties every list onto the array it had, zeroes the
// elements the last step wrote (so the array keeps nothing of that step
// alive) and every other field, and leaves nil lists nil.
func TestReset(t *testing.T) {
	type out = Output[time.Duration, time.Duration, time.Duration]
	var o out
	o.Reset()
	if !reflect.DeepEqual(o, out{}) {
		t.Fatalf("Reset of the zero Output = %#v, want the zero Output", o)
	}
	o = out{
		Messages:    []Envelope[time.Duration]{{From: "A", To: "B", Msg: 1}, {From: "A", To: "C", Msg: 2}},
		Timers:      []TimerCmd[time.Duration]{{Timer: 3, At: 4}},
		Callbacks:   []time.Duration{5, 6, 7},
		Round:       &spec.Round{},
		RoundFailed: true,
		Target:      &spec.Round{},
		Withheld:    &spec.Withholding{},
	}
	msgs, timers, cbs := o.Messages, o.Timers, o.Callbacks
	o.Reset()
	if len(o.Messages) != 0 || len(o.Timers) != 0 || len(o.Callbacks) != 0 {
		t.Fatalf("after Reset the lists hold %d, %d, %d elements; want none", len(o.Messages), len(o.Timers), len(o.Callbacks))
	}
	if &o.Messages[:1][0] != &msgs[0] || &o.Timers[:1][0] != &timers[0] || &o.Callbacks[:1][0] != &cbs[0] {
		t.Error("Reset dropped a list's array")
	}
	if o.Round != nil || o.RoundFailed || o.Target != nil || o.Withheld != nil {
		t.Errorf("Reset kept a field of the last step: %+v", o)
	}
	// Each of the other fields alone, lists empty.
	for _, set := range []func(*out){
		func(o *out) { o.Round = &spec.Round{} },
		func(o *out) { o.RoundFailed = true },
		func(o *out) { o.Target = &spec.Round{} },
		func(o *out) { o.Withheld = &spec.Withholding{} },
	} {
		var o out
		set(&o)
		o.Reset()
		if !reflect.DeepEqual(o, out{}) {
			t.Errorf("Reset kept a field of the last step: %+v", o)
		}
	}
	for i, m := range msgs {
		if m != (Envelope[time.Duration]{}) {
			t.Errorf("message %d left in the array: %v", i, m)
		}
	}
	if timers[0] != (TimerCmd[time.Duration]{}) {
		t.Errorf("timer left in the array: %v", timers[0])
	}
	for i, c := range cbs {
		if c != 0 {
			t.Errorf("callback %d left in the array: %v", i, c)
		}
	}
}
