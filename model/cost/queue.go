package cost

import (
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// evKind is what an event does.
type evKind uint8

const (
	// evDeliver delivers msg, sent by from, to proc (coordinator when -1).
	evDeliver evKind = iota + 1
	// evTimer fires timer of proc (coordinator when -1), if still due.
	evTimer
	// evHeldTimer fires timer of proc unconditionally: a firing held
	// while the process was paused.
	evHeldTimer
	// evRevoked tells proc its application finished revoking set.
	evRevoked
	// evAction runs a workload action.
	evAction
)

// event is one thing scheduled at a time; events run in (at, seq) order,
// so events due at the same time run in the order they were scheduled
// (messages on one connection arrive in the order sent).
type event[M, T any] struct {
	at    node.Millis
	seq   uint64
	kind  evKind
	proc  int32 // -1: the coordinator
	inc   int32 // the incarnation of proc the event is for
	token int32 // evRevoked: the process's revocation epoch
	act   action
	from  string
	msg   M
	timer T
	set   spec.Set
}

// queue is a binary min-heap of events by (at, seq). The heap orders
// small keys; the events themselves (large: a message, a timer, a set)
// stay in slots of a pool and never move while the heap sifts.
type queue[M, T any] struct {
	h    []queueKey
	pool []event[M, T]
	free []int32 // slots of pool not in use
	seq  uint64
}

// queueKey is a heap entry: an event's order and its slot in the pool.
type queueKey struct {
	at   node.Millis
	seq  uint64
	slot int32
}

func (q *queue[M, T]) less(i, j int) bool {
	a, b := &q.h[i], &q.h[j]
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// push schedules ev, numbering it after every event scheduled before.
func (q *queue[M, T]) push(ev event[M, T]) {
	q.seq++
	ev.seq = q.seq
	var slot int32
	if n := len(q.free); n > 0 {
		slot, q.free = q.free[n-1], q.free[:n-1]
		q.pool[slot] = ev
	} else {
		slot = int32(len(q.pool))
		q.pool = append(q.pool, ev)
	}
	q.h = append(q.h, queueKey{at: ev.at, seq: ev.seq, slot: slot})
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *queue[M, T]) len() int { return len(q.h) }

// peek returns the time of the next event.
func (q *queue[M, T]) peek() node.Millis { return q.h[0].at }

// pop removes and returns the next event.
func (q *queue[M, T]) pop() event[M, T] {
	slot := q.h[0].slot
	top := q.pool[slot]
	var zero event[M, T]
	q.pool[slot] = zero // let go of its message and set
	q.free = append(q.free, slot)
	n := len(q.h) - 1
	q.h[0] = q.h[n]
	q.h = q.h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			break
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
	return top
}
