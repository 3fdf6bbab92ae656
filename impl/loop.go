package impl

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"
)

// ErrClosed is returned by the drivers once Close has been called.
var ErrClosed = errors.New("impl: driver closed")

// stepper adapts one protocol family's pure node to the actor loop: it
// steps the node with a request or a timer at a time on the driver's clock
// (milliseconds since the driver started) and returns what the node asks
// the driver to do. M is the family's message type, T its timer type.
//
// A stepper is used only on the loop's goroutine.
type stepper[M any, T comparable] interface {
	// receive steps the node with msg from node from.
	receive(now int64, from string, msg M) effects[M, T]
	// fire steps the node with the firing of t.
	fire(now int64, t T) effects[M, T]
}

// effects is a step's output as the loop carries it out.
type effects[M any, T comparable] struct {
	// replies are the node's messages, addressed by node name.
	replies []reply[M]
	// arm and cancel are the node's timer commands, in order.
	timers []timerCmd[T]
}

type reply[M any] struct {
	to  string
	msg M
}

type timerCmd[T comparable] struct {
	timer  T
	at     int64
	cancel bool
}

// loop is the actor that owns one pure node: every request, timer firing
// and query runs on its goroutine, one at a time, so the node needs no
// locking and sees one input at a time, as the cores require.
//
// Requests are addressed by a node name made up for each call ("r<n>"):
// the cores answer a request by sending to its From, so each answer finds
// its caller even when it comes steps later (a JoinGroup parked until the
// barrier falls).
type loop[M any, T comparable] struct {
	clock  Clock
	origin time.Time
	node   stepper[M, T]

	mail chan func()
	done chan struct{}
	stop sync.Once

	// The fields below are owned by the loop's goroutine.
	timers *timerSet[T]
	// waiting maps the node name of each unanswered call to its caller.
	waiting map[string]*call[M]
	nextID  uint64
	// wake is the clock timer for the earliest armed deadline; wakeAt is
	// that deadline, 0 when wake is nil; wakeGen numbers the wake-ups so a
	// firing that was superseded is recognised.
	wake    Timer
	wakeAt  int64
	wakeGen uint64
}

// call is one request in flight.
type call[M any] struct {
	from string
	// reply receives the node's answer; it is buffered so the loop never
	// blocks on a caller that gave up.
	reply chan M
	// answered is set by the loop when the answer was produced by the step
	// that took the request (read by start's caller once start returns).
	answered bool
}

// newLoop starts the actor for node on clock (never nil: the drivers
// default it).
func newLoop[M any, T comparable](clock Clock, node stepper[M, T]) *loop[M, T] {
	l := &loop[M, T]{
		clock:   clock,
		origin:  clock.Now(),
		node:    node,
		mail:    make(chan func(), 64),
		done:    make(chan struct{}),
		timers:  newTimerSet[T](),
		waiting: map[string]*call[M]{},
	}
	go l.run()
	return l
}

func (l *loop[M, T]) run() {
	for {
		select {
		case f := <-l.mail:
			f()
		case <-l.done:
			if l.wake != nil {
				l.wake.Stop()
			}
			return
		}
	}
}

// now is the driver's clock in milliseconds since the loop started.
func (l *loop[M, T]) now() int64 { return l.clock.Now().Sub(l.origin).Milliseconds() }

// do runs f on the loop's goroutine and waits for it.
func (l *loop[M, T]) do(ctx context.Context, f func()) error {
	fin := make(chan struct{})
	select {
	case l.mail <- func() { f(); close(fin) }:
	case <-l.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-fin:
		return nil
	case <-l.done:
		return ErrClosed
	}
}

// start hands msg to the node and returns once the node has stepped with
// it; the call's answer may already be there (call.answered) or come with
// a later step.
func (l *loop[M, T]) start(ctx context.Context, msg M) (*call[M], error) {
	var c *call[M]
	err := l.do(ctx, func() { c = l.submit(msg) })
	if err != nil {
		return nil, err
	}
	return c, nil
}

// submit steps the node with msg under a fresh node name; it runs on the
// loop's goroutine. The answer, if the step produced it, is already in the
// returned call's reply channel.
func (l *loop[M, T]) submit(msg M) *call[M] {
	l.nextID++
	c := &call[M]{from: "r" + strconv.FormatUint(l.nextID, 10), reply: make(chan M, 1)}
	l.waiting[c.from] = c
	l.apply(l.node.receive(l.now(), c.from, msg))
	if _, stillWaiting := l.waiting[c.from]; stillWaiting {
		return c
	}
	c.answered = true
	return c
}

// submitNow is submit for a request the node always answers in the same
// step (a commit, a fetch): it returns the answer, or false if the node
// did not answer (a broken core), in which case the call is forgotten.
func (l *loop[M, T]) submitNow(msg M) (M, bool) {
	c := l.submit(msg)
	if !c.answered {
		delete(l.waiting, c.from)
		var zero M
		return zero, false
	}
	return <-c.reply, true
}

// wait returns the answer to c. If ctx ends first, the loop forgets c
// (a late answer is dropped) and wait returns ctx's error.
func (l *loop[M, T]) wait(ctx context.Context, c *call[M]) (M, error) {
	var zero M
	select {
	case m := <-c.reply:
		return m, nil
	case <-l.done:
		return zero, ErrClosed
	case <-ctx.Done():
		// Best effort: the loop may be closing.
		_ = l.do(context.Background(), func() { delete(l.waiting, c.from) })
		select {
		case m := <-c.reply: // answered meanwhile
			return m, nil
		default:
		}
		return zero, ctx.Err()
	}
}

// apply carries out a step's effects: answers go to their callers, timer
// commands to the timer set, and the wake-up is moved to the earliest
// deadline. An answer to a node name nobody waits for (a caller that gave
// up) is dropped.
func (l *loop[M, T]) apply(e effects[M, T]) {
	for _, r := range e.replies {
		if c, ok := l.waiting[r.to]; ok {
			delete(l.waiting, r.to)
			c.reply <- r.msg
		}
	}
	for _, t := range e.timers {
		if t.cancel {
			l.timers.cancel(t.timer)
		} else {
			l.timers.arm(t.timer, t.at)
		}
	}
	l.schedule()
}

// schedule arms the clock for the earliest deadline, if it changed.
func (l *loop[M, T]) schedule() {
	at, ok := l.timers.next()
	if !ok {
		if l.wake != nil {
			l.wake.Stop()
			l.wake, l.wakeAt = nil, 0
		}
		return
	}
	if l.wake != nil && l.wakeAt == at {
		return
	}
	if l.wake != nil {
		l.wake.Stop()
	}
	d := time.Duration(at-l.now()) * time.Millisecond
	l.wakeGen++
	gen := l.wakeGen
	l.wakeAt = at
	l.wake = l.clock.AfterFunc(max(d, 0), func() {
		select {
		case l.mail <- func() { l.tick(gen) }:
		case <-l.done:
		}
	})
}

// tick fires every timer that is due. A wake-up that was superseded (a
// stopped clock timer that had already fired) is ignored; one that comes
// early (the clock's granularity) is harmless: only due timers fire, and
// the cores ignore stale firings anyway.
func (l *loop[M, T]) tick(gen uint64) {
	if gen != l.wakeGen {
		return
	}
	l.wake, l.wakeAt = nil, 0
	now := l.now()
	for _, t := range l.timers.due(now) {
		l.apply(l.node.fire(now, t))
	}
	l.schedule()
}

// close stops the loop; calls in flight return ErrClosed.
func (l *loop[M, T]) close() {
	l.stop.Do(func() { close(l.done) })
}
