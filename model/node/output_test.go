package node

import (
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
