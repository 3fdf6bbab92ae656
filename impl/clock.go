package impl

import "time"

// Clock is the drivers' only source of time. The pure cores read no clock:
// a driver turns Clock.Now into the Now of every input and arms the cores'
// timers with AfterFunc.
//
// SystemClock is real time. Tests run the drivers inside a
// testing/synctest bubble, where the same SystemClock is the bubble's fake
// clock, so no test waits for a protocol timeout; a test can also pass a
// Clock of its own.
type Clock interface {
	// Now returns the current time. Successive calls never go backwards
	// (time.Now's monotonic reading guarantees it for SystemClock).
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed, unless
	// the returned Timer is stopped first.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call if it has not started; it reports whether it
	// did. A driver tolerates a call that Stop was too late for.
	Stop() bool
}

// SystemClock returns the clock of package time.
func SystemClock() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
