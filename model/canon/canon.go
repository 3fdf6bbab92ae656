// Package canon writes a canonical byte encoding of a model state, for the
// model checker's fingerprints and exact state storage. Two states with the
// same encoding behave the same from then on; the encoding is built so that
// the closed worlds' unbounded bookkeeping (the clock, request correlation
// ids) does not make their state spaces infinite.
//
// Every node writes itself with typed calls (no reflection): each value
// says how it is abstracted by the method it is written with.
//
//	Instant    a point in time: written relative to Encoder.Now, with 0
//	           kept as its own value (the models use 0 for "none") and
//	           every instant at or before Now written as "due"
//	Int        a length of time, a count, an enum: written as is
//	Seq        a correlation id, compared by the model only for equality
//	           with ids it issued: written as the order of first
//	           appearance in the encoding (0 stays 0)
//	Order      a number the model only compares for order with others of
//	           its kind, issuing larger ones later: written as its rank
//	           among the order values in the encoding (0 stays 0)
//	Counter    a counter that issues fresh identities: written as is, or
//	           left out when Encoder.AbstractIdentities is set
//	Generation a generation: passed through Encoder.AbstractIdentities
//	           when it is set
//
// and a field that is only a cache of the input, or a counter whose only
// use is to issue fresh values, is left out. The struct tags on the nodes'
// fields (canon:"instant", "duration", "seq", "order", "counter", "-")
// record the same choice next to the field; each node's tests check that
// its encoder writes every field it has.
//
// The abstraction is exact (it merges only states that behave the same)
// under the contracts the models keep, and that docs/checker.md argues
// for each node: behaviour is invariant under shifting every instant and
// the clock together, and an instant at or before the clock is only ever
// tested for being due, never measured (time only moves forward, so a due
// instant stays due); a correlation id is only compared for equality, and
// every id a node issues later is fresh; a field left out is never read
// before it is written, or only issues fresh values.
//
// The package is pure: no clock, no randomness, standard library and spec
// only.
package canon

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/spec"
)

// Encoder appends the canonical encoding of values to Buf. Set Now before
// encoding anything that holds instants. The zero value encodes with the
// clock at 0. An Encoder is not safe for concurrent use; reuse one per
// goroutine with Reset.
type Encoder struct {
	// Buf is the encoding so far.
	Buf []byte
	// Now is the clock that instants are written relative to.
	Now int64
	// Rename, when set, is applied to every identity before it is
	// written: a process name, a node address or a member id, each
	// written with Name (the keys of KeyedMap, KeyedSlice and Table are
	// member ids, and go through Name too). The checker's symmetry
	// reduction renames interchangeable members with it, and the
	// unbounded-bounce abstraction ranks member ids and incarnations.
	// Nothing else is renamed: a topic, a protocol name or an instance
	// id is written with String, which never renames, so the names of
	// members and topics are free (no name of one kind can be taken for
	// one of the other). A node address (written with Address) goes
	// through Rename too, unless RenameAddress is set.
	Rename func(string) string
	// RenameAddress, when set, is applied to every node address before
	// it is written, instead of Rename: a process's name for its first
	// incarnation, name@k after. The unbounded-bounce abstraction writes
	// every address relative to its process's current incarnation with
	// it, the first incarnation's too, which a bare name written with
	// Name (the process itself) is not.
	RenameAddress func(string) string
	// SkipSeq leaves correlation ids out (for identifying a message across
	// states whatever its id).
	SkipSeq bool
	// SeqSpace is the space of the correlation ids Seq writes: the node
	// that issues them (a member's address; a request and its response are
	// in the space of the member that sent the request). Each node issues
	// and compares ids of its own only, so the same value in two spaces is
	// two unrelated ids: Finish numbers (space, id) pairs, not bare ids,
	// and a coincidence between two nodes' counters is not part of the
	// encoding. The closed worlds set it around each node and message they
	// encode; Reset sets it to "".
	SeqSpace string
	// AbstractIdentities, when set, is applied to every generation written
	// with Generation, and counters written with Counter are left out: the
	// model checker's abstraction for unbounded environments (see package
	// world).
	AbstractIdentities func(v int64) int64
	// OpenPayloads has the nodes write an opaque protocol payload that
	// holds identities (the classic family's subscription and assignment
	// metadata, which carry a leader's member id and a generation) field
	// by field, the identities with Name and the generations with
	// Generation, instead of as its bytes, so that Rename and
	// AbstractIdentities reach inside. OpensPayloads is true whenever
	// either of those is set; set OpenPayloads as well on every encoding
	// that is compared with such one without them (the checker's
	// symmetry reduction compares each renamed encoding of a state with
	// its plain one), so that all have the same form.
	OpenPayloads bool
	// Commits is set when the world encoded sends offset commits: state
	// that only the fencing of commits reads (next-gen's assignment
	// epochs, KIP-1251) is written only then. Without commits, two states
	// that differ only there have the same successors, so leaving it out
	// merges nothing the checker could tell apart.
	Commits bool

	// slots are the offsets in Buf of the correlation ids written so far,
	// in increasing order, with their spaces; each is 8 bytes, raw until
	// Finish.
	slots  []seqSlot
	oslots []int // the same for order values, rewritten as ranks
	// seqs are the correlation ids Finish has met, in order of first
	// appearance (an id's number is its index plus one): a state holds a
	// few dozen at most, which a slice searches faster than a map hashes.
	seqs    []seqKey
	scratch [][]part
	// Spans are stretches of the encoding its writer noted to record
	// later (RecordSpan), once it knows the encoding is worth it: the
	// model checker records the nodes of the states it finds new, and
	// drops most successors as already seen. Reset empties it.
	Spans []Span
	// finished is set by Finish, until Reset; raw and rawOrders then keep
	// the values Finish rewrote, slot by slot, for RecordSpan.
	finished       bool
	raw, rawOrders []uint64
	// ranks is Finish's scratch space for ranking the order values.
	ranks []uint64
	// instants are the instants written at the top level of the encoding
	// (in no Sorted, Map or KeyedMap item), with their offsets in Buf, in
	// increasing order: a recording re-encodes them when it is replayed
	// under another Now (ReplayKept).
	instants []instantSlot
	// depth counts the Sorted, Map and KeyedMap items being written, and
	// nested the instants written inside one so far (or replayed from a
	// recording that had such): an item's bytes, and so its length prefix
	// and its rank among the others, may change with Now, so a recording
	// of a span that holds one replays only under the Now it was written
	// with.
	depth, nested int
}

// instantSlot is an instant written at the top level: where its encoding
// starts, and its value.
type instantSlot struct {
	off int
	t   int64
}

// Span is a stretch of an encoding, between two marks, that its writer
// may record later (Encoder.Spans); Label is the writer's, to tell what
// was written there.
type Span struct {
	From, To Mark
	Label    int
}

// part is one item of a Sorted collection: its encoding and the offsets of
// the correlation ids in it.
type part struct {
	buf    []byte
	slots  []seqSlot
	oslots []int
}

// seqSlot is where a correlation id is written, and its space.
type seqSlot struct {
	off   int
	space string
}

// seqKey is a correlation id in its space.
type seqKey struct {
	space string
	seq   uint64
}

// Reset empties the encoding, keeping the buffers for reuse.
func (e *Encoder) Reset() {
	e.Buf = e.Buf[:0]
	e.slots = e.slots[:0]
	e.oslots = e.oslots[:0]
	e.SeqSpace = ""
	e.Spans = e.Spans[:0]
	e.finished = false
	e.instants = e.instants[:0]
	e.depth, e.nested = 0, 0
}

// Finish rewrites every correlation id as the order of the first
// appearance of it in its space in the encoding (0 stays 0) and returns
// the encoding. Call it once, after the last value.
func (e *Encoder) Finish() []byte {
	e.seqs = e.seqs[:0]
	e.finished = true
	e.raw, e.rawOrders = e.raw[:0], e.rawOrders[:0]
	for _, sl := range e.slots {
		s := binary.BigEndian.Uint64(e.Buf[sl.off:])
		e.raw = append(e.raw, s)
		if s == 0 {
			continue
		}
		k := seqKey{sl.space, s}
		n := slices.Index(e.seqs, k) + 1
		if n == 0 {
			e.seqs = append(e.seqs, k)
			n = len(e.seqs)
		}
		binary.BigEndian.PutUint64(e.Buf[sl.off:], uint64(n))
	}
	if len(e.oslots) > 0 {
		for _, o := range e.oslots {
			e.rawOrders = append(e.rawOrders, binary.BigEndian.Uint64(e.Buf[o:]))
		}
		vals := append(e.ranks[:0], e.rawOrders...)
		e.ranks = vals
		slices.Sort(vals)
		vals = slices.Compact(vals)
		for _, o := range e.oslots {
			v := binary.BigEndian.Uint64(e.Buf[o:])
			if v == 0 {
				continue
			}
			r, _ := slices.BinarySearch(vals, v)
			if vals[0] != 0 {
				r++
			}
			binary.BigEndian.PutUint64(e.Buf[o:], uint64(r))
		}
	}
	return e.Buf
}

// Mark is a point in an encoding (Encoder.Mark), to record what is
// written after it with Encoder.Record.
type Mark struct{ buf, slots, oslots, instants, nested int }

// Mark returns the point the encoding has reached.
func (e *Encoder) Mark() Mark {
	return Mark{len(e.Buf), len(e.slots), len(e.oslots), len(e.instants), e.nested}
}

// Recording is a stretch of an encoding kept to be written again
// (Encoder.Record, Encoder.Replay): its bytes with the correlation ids
// and order values in it, raw, as Finish has not rewritten them yet, its
// instants, and the settings it was written under (Now, Commits,
// SkipSeq). It replays under those settings, or under another Now when
// every instant in it was written at the top level (nowFree): those are
// then written again relative to the new Now (Encoder.ReplayKept).
//
// The bytes and the offsets are one allocation, which holds no pointer:
// the model checker keeps a recording for most nodes of every state it
// finds new, and up to four allocations a recording (the ids' one, with
// their spaces, scanned by the collector) were a sixth of its
// allocations (docs/checker-rounds.md, "Issue 13: twelfth round").
type Recording struct {
	// data is the recorded bytes, data[:n], then the offsets in them,
	// each a little-endian uint32: of the nslots correlation ids, of the
	// noslots order values, and of the ninsts instants, each of those
	// followed by its value (a little-endian int64). Invariant: len(data)
	// = n + 4*(nslots+noslots) + 12*ninsts.
	data                       []byte
	n, nslots, noslots, ninsts uint32
	// space is the space of the first correlation id in the recording,
	// and of every one when they share it; otherwise spaces holds each
	// one's, in order (nil when they share one).
	space                          string
	spaces                         []string
	now                            int64
	commits, skipSeq, openPayloads bool
	nowFree                        bool
	// recorded is set by RecordSpan: the zero Recording is none, which
	// ReplayKept never replays.
	recorded bool
}

// bytes are the recorded bytes.
func (r *Recording) bytes() []byte { return r.data[:r.n] }

// slot is the offset in the recorded bytes of the i-th correlation id, and
// its space.
func (r *Recording) slot(i int) (int, string) {
	off := int(binary.LittleEndian.Uint32(r.data[int(r.n)+4*i:]))
	if r.spaces != nil {
		return off, r.spaces[i]
	}
	return off, r.space
}

// oslot is the offset of the i-th order value.
func (r *Recording) oslot(i int) int {
	return int(binary.LittleEndian.Uint32(r.data[int(r.n+4*r.nslots)+4*i:]))
}

// instant is the offset and the value of the i-th instant.
func (r *Recording) instant(i int) (int, int64) {
	at := int(r.n+4*(r.nslots+r.noslots)) + 12*i
	return int(binary.LittleEndian.Uint32(r.data[at:])), int64(binary.LittleEndian.Uint64(r.data[at+4:]))
}

// Record returns a copy of what was written after m, with its correlation
// ids and order values, and whether it may be replayed: only what was
// written with neither Rename nor AbstractIdentities set, whose bytes
// depend on nothing but the values written, Now, Commits, SkipSeq,
// OpenPayloads and the SeqSpace of each correlation id (kept with the
// id). Replaying it into an encoding with the same Now, Commits, SkipSeq
// and OpenPayloads writes exactly what writing the same values again
// would, Finish numbering its ids and ranking its order values among the
// whole encoding's.
func (e *Encoder) Record(m Mark) (Recording, bool) {
	if !e.Plain() {
		return Recording{}, false
	}
	return e.RecordSpan(Span{From: m, To: e.Mark()}), true
}

// RecordSpan returns a copy of what was written between s.From and s.To,
// as Record does, before or after Finish (which keeps the values it
// rewrites until Reset), so that a writer may note a span while it
// encodes and record it once it knows the encoding is kept. The caller
// must have written the span with neither Rename nor AbstractIdentities
// set, and nothing may have been written into the encoding before s.To
// since (Sorted and KeyedMap write into the item being written only).
//
// Each recording is allocated on its own, at its exact size: the model
// checker keeps one or two for every state it finds new, and a node that
// stays unchanged keeps its recording alive for as many levels as it
// lasts. Recordings cut from shared chunks made each such survivor hold
// its whole chunk, and so doubled the checker's live heap and the memory
// its heap grew into (docs/checker-rounds.md, "Issue 13: ninth round").
func (e *Encoder) RecordSpan(s Span) Recording {
	from, to := s.From, s.To
	r := Recording{now: e.Now, commits: e.Commits, skipSeq: e.SkipSeq, openPayloads: e.OpenPayloads, nowFree: to.nested == from.nested, recorded: true}
	r.n = uint32(to.buf - from.buf)
	r.nslots = uint32(to.slots - from.slots)
	r.noslots = uint32(to.oslots - from.oslots)
	if r.nowFree {
		r.ninsts = uint32(to.instants - from.instants)
	}
	r.data = make([]byte, r.n, r.n+4*(r.nslots+r.noslots)+12*r.ninsts)
	copy(r.data, e.Buf[from.buf:to.buf])
	slots := e.slots[from.slots:to.slots]
	for i, sl := range slots {
		off := sl.off - from.buf
		r.data = binary.LittleEndian.AppendUint32(r.data, uint32(off))
		if e.finished {
			binary.BigEndian.PutUint64(r.data[off:], e.raw[from.slots+i])
		}
		if i == 0 {
			r.space = sl.space
		} else if r.spaces == nil && sl.space != r.space {
			r.spaces = make([]string, len(slots))
			for j := range slots {
				r.spaces[j] = slots[j].space
			}
		}
	}
	for i, o := range e.oslots[from.oslots:to.oslots] {
		off := o - from.buf
		r.data = binary.LittleEndian.AppendUint32(r.data, uint32(off))
		if e.finished {
			binary.BigEndian.PutUint64(r.data[off:], e.rawOrders[from.oslots+i])
		}
	}
	for _, in := range e.instants[from.instants : from.instants+int(r.ninsts)] {
		r.data = binary.LittleEndian.AppendUint32(r.data, uint32(in.off-from.buf))
		r.data = binary.LittleEndian.AppendUint64(r.data, uint64(in.t))
	}
	return r
}

// Recorded reports whether r holds a recording (RecordSpan made it): not
// nil, and not the zero Recording, which stands for none.
func (r *Recording) Recorded() bool { return r != nil && r.recorded }

// ReplayKept replays r and reports true when it may be: r is not nil and
// was written under e's Now, Commits, SkipSeq and OpenPayloads, and e
// writes with neither Rename nor AbstractIdentities set (a recording is
// written without them: see RecordSpan). Otherwise it writes nothing and
// reports false, and the caller writes the values again.
func (e *Encoder) ReplayKept(r *Recording) bool {
	if !r.Recorded() || r.commits != e.Commits || r.skipSeq != e.SkipSeq || r.openPayloads != e.OpenPayloads || !e.Plain() {
		return false
	}
	switch {
	case r.now == e.Now:
		e.Replay(*r)
	case r.nowFree:
		e.replayAt(r)
	default:
		return false
	}
	return true
}

// replayAt appends r, written under another Now, as writing its values
// again under e.Now would: its bytes with each instant written again
// relative to e.Now (an instant's encoding may change length, so what
// follows it moves), its correlation ids and order values where they
// land. Only a nowFree recording may be: an instant inside an item of a
// collection could change the item's length prefix and rank.
func (e *Encoder) replayAt(r *Recording) {
	base := len(e.Buf)
	buf := r.bytes()
	from, shift := 0, 0 // bytes of buf written; how far they moved
	slot, oslot := 0, 0
	// upTo writes buf up to end and the correlation ids and order values
	// in it.
	upTo := func(end int) {
		e.Buf = append(e.Buf, buf[from:end]...)
		for ; slot < int(r.nslots); slot++ {
			off, space := r.slot(slot)
			if off >= end {
				break
			}
			e.slots = append(e.slots, seqSlot{base + shift + off, space})
		}
		for ; oslot < int(r.noslots); oslot++ {
			off := r.oslot(oslot)
			if off >= end {
				break
			}
			e.oslots = append(e.oslots, base+shift+off)
		}
		from = end
	}
	for i := range int(r.ninsts) {
		off, t := r.instant(i)
		upTo(off)
		before := len(e.Buf)
		e.Instant(t)
		old := instantLen(buf[off:])
		shift += len(e.Buf) - before - old
		from += old
	}
	upTo(len(buf))
}

// instantLen is the length of the instant encoded at the start of b.
func instantLen(b []byte) int {
	if b[0] != 1 {
		return 1 // 0 (none) or 2 (due)
	}
	_, n := binary.Varint(b[1:])
	return 1 + n
}

// Replay appends a recording (see Record), written under e's Now.
func (e *Encoder) Replay(r Recording) {
	base := len(e.Buf)
	e.Buf = append(e.Buf, r.bytes()...)
	for i := range int(r.nslots) {
		off, space := r.slot(i)
		e.slots = append(e.slots, seqSlot{base + off, space})
	}
	for i := range int(r.noslots) {
		e.oslots = append(e.oslots, base+r.oslot(i))
	}
	switch {
	case !r.nowFree:
		e.nested++
	case e.depth > 0:
		e.nested += int(r.ninsts)
	default:
		for i := range int(r.ninsts) {
			off, t := r.instant(i)
			e.instants = append(e.instants, instantSlot{base + off, t})
		}
	}
}

// Order appends a value compared only for order; Finish rewrites it as its
// rank among the order values of the encoding (0 stays 0).
func (e *Encoder) Order(v uint64) {
	e.oslots = append(e.oslots, len(e.Buf))
	e.Buf = binary.BigEndian.AppendUint64(e.Buf, v)
}

// Int appends an integer.
func (e *Encoder) Int(n int64) { e.Buf = binary.AppendVarint(e.Buf, n) }

// Instant appends the instant t: 0 stays 0 ("none"), an instant at or
// before Now is written as "due" whatever its value, and a later one
// relative to Now.
func (e *Encoder) Instant(t int64) {
	if e.depth > 0 {
		e.nested++
	} else {
		e.instants = append(e.instants, instantSlot{len(e.Buf), t})
	}
	switch {
	case t == 0:
		e.Buf = append(e.Buf, 0)
	case t <= e.Now:
		e.Buf = append(e.Buf, 2)
	default:
		e.Buf = append(e.Buf, 1)
		e.Int(t - e.Now)
	}
}

// Seq appends the correlation id s of space SeqSpace; Finish rewrites it
// as the order in which it first appears in that space in the encoding (0
// stays 0).
func (e *Encoder) Seq(s uint64) {
	if e.SkipSeq {
		return
	}
	e.slots = append(e.slots, seqSlot{len(e.Buf), e.SeqSpace})
	e.Buf = binary.BigEndian.AppendUint64(e.Buf, s)
}

// String appends a string that names no member: never renamed (see
// Rename; identities go through Name).
func (e *Encoder) String(s string) {
	if len(s) < 0x80 {
		// The one-byte uvarint of the length: most strings are names.
		e.Buf = append(append(e.Buf, byte(len(s))), s...)
		return
	}
	e.Buf = binary.AppendUvarint(e.Buf, uint64(len(s)))
	e.Buf = append(e.Buf, s...)
}

// Name appends an identity (a process name, a node address or a member
// id) as String does, renamed first when Rename is set.
func (e *Encoder) Name(s string) {
	if e.Rename != nil {
		s = e.Rename(s)
	}
	e.String(s)
}

// Address appends a node address (a process's name for its first
// incarnation, name@k after) as Name does, renamed by RenameAddress when
// that is set.
func (e *Encoder) Address(s string) {
	if e.RenameAddress != nil {
		e.String(e.RenameAddress(s))
		return
	}
	e.Name(s)
}

// OpensPayloads reports whether payloads that hold identities are
// written field by field (see OpenPayloads): when OpenPayloads, Rename or
// AbstractIdentities is set.
func (e *Encoder) OpensPayloads() bool {
	return e.OpenPayloads || !e.Plain()
}

// Plain reports whether e writes every value as it is: neither Rename,
// RenameAddress nor AbstractIdentities is set. Only a plain encoding is
// recorded and replayed (Record, ReplayKept), or kept by the models for
// reuse.
func (e *Encoder) Plain() bool {
	return e.Rename == nil && e.RenameAddress == nil && e.AbstractIdentities == nil
}

// Sorted appends n items as a multiset: each is encoded by item(i) on its
// own, then the encodings are written in byte order. Use it for
// collections whose order does not matter to the model (messages that may
// be delivered in any order).
func (e *Encoder) Sorted(n int, item func(i int)) {
	e.Len(n)
	if n == 0 {
		return
	}
	outer, outerSlots, outerO := e.Buf, e.slots, e.oslots
	parts := e.takeScratch(n)
	e.depth++
	for i := range n {
		e.Buf, e.slots, e.oslots = parts[i].buf[:0], parts[i].slots[:0], parts[i].oslots[:0]
		item(i)
		parts[i] = part{e.Buf, e.slots, e.oslots}
	}
	e.depth--
	e.Buf, e.slots, e.oslots = outer, outerSlots, outerO
	e.writeSorted(parts)
}

// Map appends a map as a multiset of its entries, each written by entry
// (its key, then its value): the encoding does not depend on the map's
// iteration order, nor on how Rename reorders keys.
func Map[K comparable, V any](e *Encoder, m map[K]V, entry func(k K, v V)) {
	e.Len(len(m))
	if len(m) == 0 {
		return
	}
	outer, outerSlots, outerO := e.Buf, e.slots, e.oslots
	parts := e.takeScratch(len(m))
	i := 0
	e.depth++
	for k, v := range m {
		e.Buf, e.slots, e.oslots = parts[i].buf[:0], parts[i].slots[:0], parts[i].oslots[:0]
		entry(k, v)
		parts[i] = part{e.Buf, e.slots, e.oslots}
		i++
	}
	e.depth--
	e.Buf, e.slots, e.oslots = outer, outerSlots, outerO
	e.writeSorted(parts)
}

// KeyedMap appends a map keyed by member ids as Map does with an entry
// that writes the key with Name, then the value with value. It writes
// exactly what that Map call writes, faster when Rename is unset:
// length-prefixed keys differ before the values do, so the entries' byte
// order is the keys' order by length, then by bytes (CompareKeys), and
// the entries can be written in that order directly.
func KeyedMap[K ~string, V any](e *Encoder, m map[K]V, value func(V)) {
	if e.Rename != nil || len(m) > 16 {
		Map(e, m, func(k K, v V) {
			e.Name(string(k))
			value(v)
		})
		return
	}
	var buf [16]K
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b K) int { return CompareKeys(string(a), string(b)) })
	writeKeyed(e, keys, func(k K) K { return k }, func(k K) { value(m[k]) })
}

// KeyedSlice appends entries keyed by member ids, given in the order of
// their keys by CompareKeys with no key twice, as KeyedMap appends the
// map that holds them: key(v) is an entry's key, value(v) writes its
// value. It sorts nothing unless Rename is set (renamed keys may order
// otherwise). It panics on entries out of that order, which would encode
// as another map.
func KeyedSlice[K ~string, V any](e *Encoder, entries []V, key func(V) K, value func(V)) {
	if e.Rename != nil {
		e.Sorted(len(entries), func(i int) {
			e.Name(string(key(entries[i])))
			value(entries[i])
		})
		return
	}
	writeKeyed(e, entries, key, value)
}

// CompareKeys orders map keys as KeyedMap writes them, which is the byte
// order of their length-prefixed encodings: by length, then by bytes.
func CompareKeys(a, b string) int {
	return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b))
}

// writeKeyed writes entries, in their keys' CompareKeys order, as Map
// writes the map of them (each entry its key with Name then its value,
// behind the entry's length), without encoding them apart to sort them.
// Its callers call it only while Rename is unset, so the keys are written
// as they are.
func writeKeyed[K ~string, V any](e *Encoder, entries []V, key func(V) K, value func(V)) {
	e.Len(len(entries))
	e.depth++
	for i, v := range entries {
		k := string(key(v))
		if i > 0 && CompareKeys(string(key(entries[i-1])), k) >= 0 {
			panic(fmt.Sprintf("canon: keyed entries out of order: %q after %q", k, string(key(entries[i-1]))))
		}
		start := len(e.Buf)
		e.Name(k)
		value(v)
		// Map writes each entry behind its length: write it in front.
		entry := len(e.Buf) - start
		var lenBuf [binary.MaxVarintLen64]byte
		n := binary.PutUvarint(lenBuf[:], uint64(entry))
		e.Buf = append(e.Buf, lenBuf[:n]...)
		copy(e.Buf[start+n:], e.Buf[start:start+entry])
		copy(e.Buf[start:], lenBuf[:n])
		e.shiftSlots(start, n)
	}
	e.depth--
}

// shiftSlots moves the correlation-id and order-value offsets at or after
// from by n bytes (n bytes were inserted at from).
func (e *Encoder) shiftSlots(from, n int) {
	for i := len(e.slots) - 1; i >= 0 && e.slots[i].off >= from; i-- {
		e.slots[i].off += n
	}
	for i := len(e.oslots) - 1; i >= 0 && e.oslots[i] >= from; i-- {
		e.oslots[i] += n
	}
}

// writeSorted appends the parts in byte order, each with its length, and
// moves their correlation-id offsets into the encoding's; it gives the
// parts back to the scratch stack.
func (e *Encoder) writeSorted(parts []part) {
	slices.SortFunc(parts, func(a, b part) int { return bytes.Compare(a.buf, b.buf) })
	for _, p := range parts {
		e.Len(len(p.buf))
		e.appendEncoded(p.buf, p.slots, p.oslots)
	}
	e.putScratch(parts)
}

// appendEncoded appends buf, encoded on its own, with the offsets in it of
// its correlation ids and order values, which Finish will rewrite.
func (e *Encoder) appendEncoded(buf []byte, slots []seqSlot, oslots []int) {
	base := len(e.Buf)
	e.Buf = append(e.Buf, buf...)
	for _, sl := range slots {
		e.slots = append(e.slots, seqSlot{base + sl.off, sl.space})
	}
	for _, o := range oslots {
		e.oslots = append(e.oslots, base+o)
	}
}

// takeScratch returns n parts whose buffers may be reused; Sorted calls
// nest, so the scratch space is a stack of part lists.
func (e *Encoder) takeScratch(n int) []part {
	var parts []part
	if k := len(e.scratch); k > 0 {
		// Every part of a list put back keeps its buffers: take them all.
		parts, e.scratch = e.scratch[k-1], e.scratch[:k-1]
		parts = parts[:cap(parts)]
	}
	for len(parts) < n {
		parts = append(parts, part{})
	}
	return parts[:n]
}

func (e *Encoder) putScratch(parts []part) { e.scratch = append(e.scratch, parts[:cap(parts)]) }

// Seed is the hash seed of Fingerprint, fixed per process.
var seed = maphash.MakeSeed()

// Fingerprint is the 64-bit hash of an encoding the checker stores instead
// of the encoding itself.
func Fingerprint(b []byte) uint64 { return maphash.Bytes(seed, b) }

// AppendString appends s to b after its length, as a key written byte by
// byte for Fingerprint, without an Encoder, writes a string: no two
// strings followed by more of the key run together.
func AppendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// AppendSet appends s to b as such a key writes a set: the number of its
// resources, then each one's topic (AppendString) and partition. A nil
// set and an empty one are written alike.
func AppendSet(b []byte, s spec.Set) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	for _, r := range s {
		b = AppendString(b, r.Topic)
		b = binary.AppendVarint(b, int64(r.Partition))
	}
	return b
}

// AppendBool appends v to b as one byte, 1 or 0, as such a key writes a
// flag.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// Bool appends a boolean.
func (e *Encoder) Bool(b bool) {
	if b {
		e.Buf = append(e.Buf, 1)
	} else {
		e.Buf = append(e.Buf, 0)
	}
}

// Uint appends an unsigned integer.
func (e *Encoder) Uint(n uint64) { e.Buf = binary.AppendUvarint(e.Buf, n) }

// Len appends the length of a collection (or, with 0 and 1, whether an
// optional value is absent or present).
func (e *Encoder) Len(n int) { e.Buf = binary.AppendUvarint(e.Buf, uint64(n)) }

// Counter appends a counter that issues fresh identities, or nothing when
// AbstractIdentities is set.
func (e *Encoder) Counter(n uint64) {
	if e.AbstractIdentities == nil {
		e.Uint(n)
	}
}

// Generation appends a generation, passed through AbstractIdentities
// when it is set.
func (e *Encoder) Generation(g int64) {
	if e.AbstractIdentities != nil {
		g = e.AbstractIdentities(g)
	}
	e.Int(g)
}

// Strings appends a sequence of strings, in its order.
func (e *Encoder) Strings(ss []string) {
	e.Len(len(ss))
	for _, s := range ss {
		e.String(s)
	}
}

// Set appends a set of resources (kept sorted by spec.Set's contract) as
// its runs of one topic: the number of resources, then for each run its
// topic, its length and its partitions. Written run by run, a set's topic
// names go through String once per run instead of once per resource, and
// the encoding is shorter by the names it does not repeat; the runs and
// their lengths make it as unambiguous as one name per resource.
func (e *Encoder) Set(s spec.Set) {
	e.Len(len(s))
	for i := 0; i < len(s); {
		j := s.RunEnd(i)
		e.String(s[i].Topic)
		e.Len(j - i)
		for _, r := range s[i:j] {
			e.Int(int64(r.Partition))
		}
		i = j
	}
}

// Topics appends topic metadata in topic order. Topic names are never
// renamed (Rename applies to identities only), so the order is the same
// whatever Rename does.
func (e *Encoder) Topics(t spec.Topics) {
	e.Len(len(t))
	if len(t) == 0 {
		return
	}
	// The counts are taken with the names, so that none is looked up
	// again.
	type topic struct {
		name       string
		partitions int32
	}
	var buf [8]topic
	topics := buf[:0]
	for n, p := range t {
		topics = append(topics, topic{n, p})
	}
	slices.SortFunc(topics, func(a, b topic) int { return strings.Compare(a.name, b.name) })
	for _, x := range topics {
		e.String(x.name)
		e.Int(int64(x.partitions))
	}
}

// Assignment appends an assignment as a multiset of (member, set)
// entries (member ids may be renamed).
func (e *Encoder) Assignment(a spec.Assignment) { KeyedMap(e, a, e.Set) }

// MemberView appends a member as the laws see it, every field.
func (e *Encoder) MemberView(v spec.MemberView) {
	e.Name(v.Name)
	e.Name(string(v.ID))
	e.Bool(v.Current)
	e.Bool(v.Fenced)
	e.Generation(int64(v.Generation))
	e.Strings(v.Subscription)
	e.Set(v.Owns)
	e.Set(v.Revoking)
}

// Header appends a message's header: its kind (a small tag that tells the
// message types of a family apart) and its correlation id.
func (e *Encoder) Header(kind byte, seq uint64) {
	e.Buf = append(e.Buf, kind)
	e.Seq(seq)
}

// OptionalString appends a nullable string (an instance id, a rack, a
// protocol name a request may leave out): absent, or present and its
// value, so that nil and "" encode apart.
func (e *Encoder) OptionalString(s *string) {
	if s == nil {
		e.Len(0)
		return
	}
	e.Len(1)
	e.String(*s)
}

// Response appends a response's header and its error code, which every
// response of every family carries first: Header, then Int(code).
func (e *Encoder) Response(kind byte, seq uint64, code int64) {
	e.Header(kind, seq)
	e.Int(code)
}
