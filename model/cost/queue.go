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
	// evKeepAlive is a heartbeat of proc's heartbeat thread while its
	// application revokes and holds back its sends (classic).
	evKeepAlive
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
	// from is the sender's address of a message to the coordinator, and
	// sender its process and incarnation (addrs[from], which never
	// changes for an address).
	from   string
	sender [2]int32
	msg    M
	timer  T
	set    spec.Set
}

// queue hands out events by (at, seq). It keeps them in two orders: a
// FIFO of message deliveries, and a four-ary min-heap of the rest (half
// the levels of a binary heap, so a pop moves fewer keys: a group of a
// thousand members keeps a few thousand events queued and pops tens of
// millions). Every message takes the same latency, so deliveries are
// nearly always pushed in the order they fall due, and most of the
// events a run pops (two messages for every heartbeat) then cost a FIFO's
// append and a comparison of the two heads instead of a heap's sifting. A
// delivery due before the FIFO's last one (a message a busy member sends
// late) goes to the heap. Each structure holds its events in (at, seq)
// order and a pop takes the earlier head, so the split does not change
// which event comes next: (at, seq) is a total order.
//
// The heap and the FIFO order small keys; the events themselves (large: a
// message, a timer, a set) stay in slots of a pool and never move.
type queue[M, T any] struct {
	h    []queueKey
	fifo []queueKey // fifo[head:], in (at, seq) order
	head int
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

// before reports whether a runs before b.
func (a *queueKey) before(b *queueKey) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// arity is the number of children of a heap node.
const arity = 4

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
	k := queueKey{at: ev.at, seq: ev.seq, slot: slot}
	if ev.kind == evDeliver && (q.head == len(q.fifo) || q.fifo[len(q.fifo)-1].at <= k.at) {
		// Due no earlier than the last delivery queued, and numbered
		// after it: the FIFO stays in (at, seq) order.
		if q.head == len(q.fifo) {
			q.fifo, q.head = q.fifo[:0], 0
		} else if q.head > len(q.fifo)/2 && q.head >= 64 {
			// Slide the live keys down instead of growing for ever.
			n := copy(q.fifo, q.fifo[q.head:])
			q.fifo, q.head = q.fifo[:n], 0
		}
		q.fifo = append(q.fifo, k)
		return
	}
	q.h = append(q.h, k)
	// Sift the new key up through a hole: parents move down, the key is
	// written once where it stops.
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / arity
		if !k.before(&q.h[p]) {
			break
		}
		q.h[i] = q.h[p]
		i = p
	}
	q.h[i] = k
}

func (q *queue[M, T]) len() int { return len(q.h) + len(q.fifo) - q.head }

// fifoFirst reports whether the next event is the FIFO's head; the queue
// must not be empty.
func (q *queue[M, T]) fifoFirst() bool {
	return q.head < len(q.fifo) && (len(q.h) == 0 || q.fifo[q.head].before(&q.h[0]))
}

// peek returns the time of the next event.
func (q *queue[M, T]) peek() node.Millis {
	if q.fifoFirst() {
		return q.fifo[q.head].at
	}
	return q.h[0].at
}

// release frees slot, which popSlot returned.
func (q *queue[M, T]) release(slot int32) {
	var zero event[M, T]
	q.pool[slot] = zero // let go of its message and set
	q.free = append(q.free, slot)
}

// popSlot removes the next event from the order and returns its slot,
// which stays the event's until release: the engine runs an event where
// it lies instead of copying it out (an event is 128 bytes, and the
// engine pops tens of millions).
func (q *queue[M, T]) popSlot() int32 {
	if q.fifoFirst() {
		q.head++
		return q.fifo[q.head-1].slot
	}
	top := q.h[0].slot
	n := len(q.h) - 1
	k := q.h[n]
	q.h = q.h[:n]
	if n == 0 {
		return top
	}
	// Sift the last key down from the root through a hole.
	i := 0
	for {
		first := arity*i + 1
		if first >= n {
			break
		}
		m := first
		for c := first + 1; c < first+arity && c < n; c++ {
			if q.h[c].before(&q.h[m]) {
				m = c
			}
		}
		if !q.h[m].before(&k) {
			break
		}
		q.h[i] = q.h[m]
		i = m
	}
	q.h[i] = k
	return top
}
