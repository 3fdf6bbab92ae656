package world

import (
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/sim"
)

// The model checker's memo of coordinator steps.
//
// A coordinator is a pure function of its state and its input (the core
// takes no clock or randomness but the input's): the same coordinator,
// stepped at the same instant with the same event, ends in the same state
// and asks for the same output. The model checker meets that step again
// and again. A state S whose coordinator has a request in flight has a
// successor that delivers it and successors that step a member first; each
// of those shares S's coordinator (Fork) and still has the request in
// flight, and delivering it there is the same step. In the default
// next-gen world (records on T-0), 95,294 of the 122,229 coordinator
// steps that go through the memo are repeats it finds (docs/checker-rounds.md,
// twentieth round).
//
// stepMemo keeps the steps it saw, and World.stepCoordinator takes a
// repeat's result instead of copying the coordinator, stepping it and
// checking its invariants again. A step is the same when:
//
//   - the coordinator is the same object: one a world shares with the
//     world it was forked from, which never changes again (a frozen
//     world's; changing one panics), so its identity stands for its state;
//     a memo entry holds it, so its address is not reused while the entry
//     lives;
//   - the clock is the same;
//   - the event encodes to the same bytes under a plain canon.Encoder: no
//     renaming, no abstraction, and Finish not called, so correlation ids,
//     generations and counters are written as they are. Every message and
//     timer encoder writes every field (each family's
//     TestEncodersCoverEveryField), so equal bytes are equal events.
//
// The step's result is a coordinator that no world changes in place any
// more (the world that made it gives up owning it: a later change copies
// it first), and its output, which every world that takes it applies as
// its own (World.apply only reads an output). A step whose coordinator
// breaks an invariant is not kept: the world that takes a kept step need
// not check them again.
//
// The memo is a table of memoSlots slots, each holding the latest step
// whose key hashes to it: it bounds what the memo keeps alive (each entry
// two coordinators and an output) whatever the size of the world. The
// checker's workers share it; a slot is swapped whole (atomic), and an
// entry never changes once stored but for its encoding, set once
// (atomic).
type stepMemo[M fmt.Stringer, T sim.Timer, C fmt.Stringer] struct {
	seed  maphash.Seed
	slots []atomic.Pointer[memoStep[M, T, C]]
	// keys holds the encoders the keys are written with.
	keys sync.Pool
	// verify makes every hit step the coordinator anyway and panic when
	// the result differs from the kept one (tests).
	verify bool
	// counting turns on hits and misses (tests). Off, no lookup writes to
	// the memo's header, which every lookup reads: counters that every
	// worker added to on every lookup would pass that cache line between
	// the cores.
	counting bool
	// hits and misses count lookups that found a step and lookups that
	// did not (steps of a coordinator the world already owns are not
	// looked up), while counting.
	hits, misses atomic.Int64
}

// memoSlots is the number of slots of a stepMemo. With 2^14 slots the
// default next-gen world finds 95,294 repeats, against 102,520 with 2^20;
// the incremental world, with more coordinator states, 184,474 against
// 335,272, but 2^20 slots grew its heap from 231 to 479 MB.
const memoSlots = 1 << 14

// memoStep is one coordinator step: from, stepped at the instant and with
// the event that key encodes, became to and asked for out. Never changed
// once stored, but for encoding.
type memoStep[M fmt.Stringer, T sim.Timer, C fmt.Stringer] struct {
	from Coordinator[M, T, C]
	key  []byte
	to   Coordinator[M, T, C]
	out  node.Output[M, T, C]
	// encoding is the recorded encoding of to (canon.Recording), set once
	// by the first world with to as its coordinator that the checker kept
	// (Model.Keep); nil until then. A world that takes the step later
	// replays it as a fork replays its parent's (ReplayKept checks that it
	// was written under the settings it is replayed under).
	encoding atomic.Pointer[canon.Recording]
}

func newStepMemo[M fmt.Stringer, T sim.Timer, C fmt.Stringer]() *stepMemo[M, T, C] {
	return &stepMemo[M, T, C]{seed: maphash.MakeSeed(), slots: make([]atomic.Pointer[memoStep[M, T, C]], memoSlots)}
}

// stepKey writes the memo key of stepping w's coordinator with ev into e,
// emptied first: the clock, then the message as the state writes one in
// flight (encodeEnvelope) or the timer. It reports whether ev is an event
// the memo keeps: a message received or a timer fired (a metadata update
// is rare, and not kept).
func (w *World[M, T, C, P]) stepKey(e *canon.Encoder, ev node.Event) bool {
	*e = canon.Encoder{Buf: e.Buf[:0]}
	e.Int(int64(w.Now))
	switch ev := ev.(type) {
	case node.Receive[M]:
		e.Buf = append(e.Buf, 1)
		w.encodeEnvelope(e, node.Envelope[M]{From: ev.From, To: node.CoordinatorNode, Msg: ev.Msg})
	case node.TimerFired[T]:
		e.Buf = append(e.Buf, 2)
		w.Family.EncodeTimer(e, ev.Timer)
	default:
		return false
	}
	return true
}

// slot returns the slot of a step of from with key. A coordinator hashes
// by its dynamic value: every family's is a pointer, or a struct holding
// one, so its address stands for it, as in the entries' ==.
func (m *stepMemo[M, T, C]) slot(from Coordinator[M, T, C], key []byte) *atomic.Pointer[memoStep[M, T, C]] {
	h := maphash.Bytes(m.seed, key) ^ hashComparable(m.seed, from)
	return &m.slots[h%uint64(len(m.slots))]
}

// hashComparable is maphash.Comparable on an any: called on a type
// parameter's interface, it panics ("intrinsic") in generic code as this
// Go compiles it.
func hashComparable(seed maphash.Seed, v any) uint64 { return maphash.Comparable(seed, v) }

// lookup returns the kept step of from with key, nil if there is none.
func (m *stepMemo[M, T, C]) lookup(from Coordinator[M, T, C], key []byte) *memoStep[M, T, C] {
	if s := m.slot(from, key).Load(); s != nil && s.from == from && string(s.key) == string(key) {
		if m.counting {
			m.hits.Add(1)
		}
		return s
	}
	if m.counting {
		m.misses.Add(1)
	}
	return nil
}

// store keeps a step and returns it: from, with key, became to and asked
// for out (copied: out is the world's to reuse).
func (m *stepMemo[M, T, C]) store(from Coordinator[M, T, C], key []byte, to Coordinator[M, T, C], out *node.Output[M, T, C]) *memoStep[M, T, C] {
	s := &memoStep[M, T, C]{from: from, key: slices.Clone(key), to: to, out: *out}
	s.out.Messages, s.out.Timers, s.out.Callbacks = slices.Clone(out.Messages), slices.Clone(out.Timers), slices.Clone(out.Callbacks)
	s.out.NilEmpty()
	m.slot(from, key).Store(s)
	return s
}

// encoder returns an encoder for a key, from the pool.
func (m *stepMemo[M, T, C]) encoder() *canon.Encoder {
	if e, ok := m.keys.Get().(*canon.Encoder); ok {
		return e
	}
	return new(canon.Encoder)
}

// memoKey returns w's memo of coordinator steps and, in an encoder from
// its pool, the key of stepping w's coordinator with e; a nil encoder
// when the memo is off, w already owns its coordinator (it changed it in
// this step, so the coordinator is no frozen world's) or e is not an
// event the memo keeps. The caller puts the encoder back.
func (w *World[M, T, C, P]) memoKey(e node.Event) (*stepMemo[M, T, C], *canon.Encoder) {
	memo := w.coordinatorSteps
	if memo == nil || w.coordinatorOwned {
		return nil, nil
	}
	enc := memo.encoder()
	if !w.stepKey(enc, e) {
		memo.keys.Put(enc)
		return nil, nil
	}
	return memo, enc
}

// takeStep makes w take s, the memo's step of w's coordinator with e:
// its coordinator, shared, with the encoding recorded for it if there is
// one, and its output.
func (w *World[M, T, C, P]) takeStep(memo *stepMemo[M, T, C], s *memoStep[M, T, C], e node.Event) {
	if memo.verify {
		w.verifyStep(s, e)
	}
	w.Coordinator, w.coordinatorFresh, w.coordinatorStep = s.to, true, s
	w.coordinatorEncoding = canon.Recording{}
	if r := s.encoding.Load(); r != nil {
		w.coordinatorEncoding = *r
	}
	w.applyCoordinatorStep(s.out)
}

// keepStep keeps the step w's coordinator has just taken from from, with
// key, asking for out, unless the coordinator breaks an invariant (check
// then reports it).
func (w *World[M, T, C, P]) keepStep(memo *stepMemo[M, T, C], from Coordinator[M, T, C], key []byte, out *node.Output[M, T, C]) {
	if w.Coordinator.CheckInvariants() != nil {
		return
	}
	w.coordinatorStep = memo.store(from, key, w.Coordinator, out)
	// The stored coordinator is the memo's now: every world that takes
	// the step shares it, so none may change it in place, this one
	// included (a later change copies it: ownCoordinator). Its
	// invariants hold, and check need not ask again.
	w.coordinatorOwned = false
}

// verifyStep panics unless stepping a copy of s.from with e gives what s
// kept: the same coordinator (printed whole, and encoded plainly) and the
// same output (written plainly). For tests (stepMemo.verify).
func (w *World[M, T, C, P]) verifyStep(s *memoStep[M, T, C], e node.Event) {
	c := s.from.CloneCoordinator()
	var out node.Output[M, T, C]
	c.StepInto(node.Input{Now: w.Now, Event: e}, &out)
	out.NilEmpty()
	coordinator := func(c Coordinator[M, T, C]) string {
		e := canon.Encoder{Now: int64(w.Now)}
		c.Encode(&e)
		return c.String() + string(e.Buf)
	}
	if coordinator(c) != coordinator(s.to) || w.plainOutput(out) != w.plainOutput(s.out) {
		panic(fmt.Sprintf("world: the memo's step of the coordinator with %v differs from a step afresh:\nkept:\n%s%s\nafresh:\n%s%s", e, s.to, s.out, c, out))
	}
}

// plainOutput writes out whole: each message as a memo key writes one
// (encodeEnvelope, no Finish), each timer command with its deadline as it
// is, each callback, and the round, target and withholding reported.
func (w *World[M, T, C, P]) plainOutput(out node.Output[M, T, C]) string {
	var e canon.Encoder
	for _, m := range out.Messages {
		w.encodeEnvelope(&e, m)
	}
	for _, t := range out.Timers {
		w.Family.EncodeTimer(&e, t.Timer)
		e.Int(int64(t.At))
		e.Bool(t.Cancel)
	}
	return fmt.Sprintf("%x %v %v %+v %+v %+v", e.Buf, out.Callbacks, out.RoundFailed, out.Round, out.Target, out.Withheld)
}
