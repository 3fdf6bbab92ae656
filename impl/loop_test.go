package impl

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// manualClock is a Clock that moves only when the test advances it, and
// records every clock timer the loop arms, so a test can see when the
// loop asked to be woken.
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
}

type manualTimer struct {
	clock   *manualClock
	d       time.Duration
	at      time.Time
	f       func()
	stopped bool
	fired   bool
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{clock: c, d: d, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *manualTimer) Stop() bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	if t.stopped || t.fired {
		return false
	}
	t.stopped = true
	return true
}

// advance moves the clock by d and calls, each in its own goroutine, the
// function of every timer that is now due and was not stopped.
func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	for _, t := range c.timers {
		if !t.stopped && !t.fired && !t.at.After(c.now) {
			t.fired = true
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		go f()
	}
}

// live returns the durations of the armed clock timers (neither stopped
// nor fired), in the order they were armed, and how many were ever armed.
func (c *manualClock) live() ([]time.Duration, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []time.Duration
	for _, t := range c.timers {
		if !t.stopped && !t.fired {
			out = append(out, t.d)
		}
	}
	return out, len(c.timers)
}

// script is a stepper whose every request is the list of timer commands
// it carries out (and echoes back); it records each firing as name@now.
type script struct{ fired []string }

type timerScript []timerCmd[string]

func (s *script) receive(now int64, from string, msg timerScript) effects[timerScript, string] {
	return effects[timerScript, string]{replies: []reply[timerScript]{{to: from, msg: msg}}, timers: msg}
}

func (s *script) fire(now int64, t string) effects[timerScript, string] {
	s.fired = append(s.fired, fmt.Sprintf("%s@%d", t, now))
	return effects[timerScript, string]{}
}

// TestLoopWakesOnItsClock: the loop arms one clock timer, on the Clock it
// was given, for the earliest armed deadline relative to now; it re-arms
// it only when that deadline changes, stops it when nothing is armed, and
// ignores the wake-up of a clock timer it superseded.
func TestLoopWakesOnItsClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		clk := &manualClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
		node := &script{}
		l := newLoop[timerScript, string](clk, node)
		defer l.close()
		send := func(cmds ...timerCmd[string]) {
			t.Helper()
			c, err := l.start(ctx, cmds)
			if err != nil || !c.answered {
				t.Fatalf("start: %v, answered=%t", err, c != nil && c.answered)
			}
		}
		expect := func(step string, live []time.Duration, armed int, fired ...string) {
			t.Helper()
			synctest.Wait()
			var got []string
			if err := l.do(ctx, func() { got = slices.Clone(node.fired) }); err != nil {
				t.Fatal(err)
			}
			gotLive, gotArmed := clk.live()
			if !slices.Equal(gotLive, live) || gotArmed != armed || !slices.Equal(got, fired) {
				t.Fatalf("%s: clock timers %v (%d armed in all), fired %v; want %v (%d), fired %v", step, gotLive, gotArmed, got, live, armed, fired)
			}
		}
		ms := time.Millisecond

		send(timerCmd[string]{timer: "x", at: 1000})
		expect("x armed at 0", []time.Duration{1000 * ms}, 1)
		clk.advance(400 * ms)
		send(timerCmd[string]{timer: "y", at: 2000})
		expect("a later deadline", []time.Duration{1000 * ms}, 1)
		send(timerCmd[string]{timer: "z", at: 700})
		expect("an earlier deadline at 400", []time.Duration{300 * ms}, 2)
		clk.mu.Lock()
		superseded := clk.timers[0].f
		clk.mu.Unlock()
		clk.advance(300 * ms)
		expect("z due at 700", []time.Duration{300 * ms}, 3, "z@700")
		go superseded() // a wake-up that Stop was too late for
		expect("a superseded wake-up", []time.Duration{300 * ms}, 3, "z@700")
		send(timerCmd[string]{timer: "x", cancel: true}, timerCmd[string]{timer: "y", at: 1500})
		expect("x cancelled, y moved", []time.Duration{800 * ms}, 4, "z@700")
		send(timerCmd[string]{timer: "y", cancel: true})
		expect("nothing armed", nil, 4, "z@700")
		clk.advance(5000 * ms)
		expect("nothing fires", nil, 4, "z@700")
	})
}
