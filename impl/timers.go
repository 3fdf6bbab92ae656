package impl

import (
	"container/heap"
)

// timerSet holds a node's armed timers by deadline: the cores arm and
// cancel timers by value (TimerCmd) and the driver fires each one when its
// deadline passes. Re-arming a timer (a session timer on every heartbeat)
// costs a map write and a heap push; superseded heap entries are dropped
// when they surface, and the heap is rebuilt once it holds more than
// twice the armed timers, so memory stays proportional to what is armed.
//
// Deadlines are milliseconds on the driver's clock (the cores' Millis).
type timerSet[T comparable] struct {
	// armed maps each armed timer to its deadline.
	armed map[T]int64
	// queue holds (deadline, timer) entries; an entry whose deadline is
	// not armed[timer] is stale.
	queue timerQueue[T]
}

type timerEntry[T comparable] struct {
	at    int64
	timer T
}

type timerQueue[T comparable] []timerEntry[T]

func (q timerQueue[T]) Len() int           { return len(q) }
func (q timerQueue[T]) Less(i, j int) bool { return q[i].at < q[j].at }
func (q timerQueue[T]) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *timerQueue[T]) Push(x any)        { *q = append(*q, x.(timerEntry[T])) }
func (q *timerQueue[T]) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

func newTimerSet[T comparable]() *timerSet[T] {
	return &timerSet[T]{armed: map[T]int64{}}
}

// arm sets t to fire at at (moving it if it was armed).
func (s *timerSet[T]) arm(t T, at int64) {
	if old, ok := s.armed[t]; ok && old == at {
		return
	}
	s.armed[t] = at
	heap.Push(&s.queue, timerEntry[T]{at: at, timer: t})
	if len(s.queue) > 2*len(s.armed)+64 {
		s.compact()
	}
}

// cancel disarms t.
func (s *timerSet[T]) cancel(t T) {
	delete(s.armed, t)
	if len(s.queue) > 2*len(s.armed)+64 {
		s.compact()
	}
}

// compact drops every stale entry.
func (s *timerSet[T]) compact() {
	live := s.queue[:0]
	for _, e := range s.queue {
		if at, ok := s.armed[e.timer]; ok && at == e.at {
			live = append(live, e)
		}
	}
	clear(s.queue[len(live):])
	s.queue = live
	heap.Init(&s.queue)
}

// next returns the earliest armed deadline.
func (s *timerSet[T]) next() (int64, bool) {
	for len(s.queue) > 0 {
		e := s.queue[0]
		if at, ok := s.armed[e.timer]; ok && at == e.at {
			return e.at, true
		}
		heap.Pop(&s.queue)
	}
	return 0, false
}

// due removes and returns every timer whose deadline is at or before now,
// earliest first. The order of equal deadlines is the heap's (deterministic
// for one sequence of arm calls); the cores do not depend on it, since
// each ignores a firing that is no longer due for it.
func (s *timerSet[T]) due(now int64) []T {
	var out []T
	for {
		at, ok := s.next()
		if !ok || at > now {
			return out
		}
		e := heap.Pop(&s.queue).(timerEntry[T])
		delete(s.armed, e.timer)
		out = append(out, e.timer)
	}
}
