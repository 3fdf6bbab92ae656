// Package canon writes a canonical byte encoding of a model state, for the
// model checker's fingerprints and exact state storage. Two states with the
// same encoding behave the same from then on; the encoding is built so that
// the closed worlds' unbounded bookkeeping (the clock, request correlation
// ids) does not make their state spaces infinite.
//
// The encoder walks values by reflection, including unexported fields, so
// a field added to a node is part of the encoding without anyone
// remembering to add it. Struct tags say how a field is abstracted:
//
//	canon:"instant"   a point in time: written relative to Encoder.Now, with
//	                  0 kept as its own value (the models use 0 for "none")
//	                  and every instant at or before Now written as "due"
//	canon:"duration"  a length of time: written as is
//	canon:"seq"       a correlation id, compared by the model only for
//	                  equality with ids it issued: written as the order of
//	                  first appearance in the encoding (0 stays 0)
//	canon:"order"     a number the model only compares for order with
//	                  others of its kind, issuing larger ones later: written
//	                  as its rank among the order values in the encoding
//	                  (0 stays 0)
//	canon:"counter"   a counter that issues fresh identities: written as is,
//	                  or left out when Encoder.AbstractIdentities is set
//	canon:"-"         left out: a cache of the input, or a counter whose
//	                  only use is to issue fresh values
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
// To keep those contracts from being broken silently, the encoder refuses
// (panics on) a field of a registered time type without an instant,
// duration or "-" tag, and a field whose name ends in "seq" without a tag.
// Funcs and channels are configuration or plumbing and are skipped.
//
// The package is pure: no clock, no randomness, standard library only.
package canon

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// mode is how a subtree of a value is abstracted.
type mode uint8

const (
	plain mode = iota
	instant
	seq
	order
	counter
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
	// Rename, when set, is applied to every string before it is written
	// (the checker's symmetry reduction renames interchangeable members).
	Rename func(string) string
	// SkipSeq leaves correlation ids out (for identifying a message across
	// states whatever its id).
	SkipSeq bool
	// AbstractIdentities, when set, is applied to every integer of a type
	// registered with RegisterIdentityType (generations, epochs), and
	// counters tagged canon:"counter" are left out: the model checker's
	// abstraction for unbounded environments (see the world packages).
	AbstractIdentities func(t reflect.Type, v int64) int64

	// slots are the offsets in Buf of the correlation ids written so far,
	// in increasing order; each is 8 bytes, raw until Finish.
	slots   []int
	oslots  []int // the same for order values, rewritten as ranks
	seqs    map[uint64]uint64
	scratch [][]part
}

// part is one item of a Sorted collection: its encoding and the offsets of
// the correlation ids in it.
type part struct {
	buf           []byte
	slots, oslots []int
}

// Reset empties the encoding, keeping the buffers for reuse.
func (e *Encoder) Reset() {
	e.Buf = e.Buf[:0]
	e.slots = e.slots[:0]
	e.oslots = e.oslots[:0]
}

// Finish rewrites every correlation id as the order of its first
// appearance in the encoding (0 stays 0) and returns the encoding. Call it
// once, after the last value.
func (e *Encoder) Finish() []byte {
	if e.seqs == nil {
		e.seqs = map[uint64]uint64{}
	}
	clear(e.seqs)
	for _, o := range e.slots {
		s := binary.BigEndian.Uint64(e.Buf[o:])
		if s == 0 {
			continue
		}
		n, ok := e.seqs[s]
		if !ok {
			n = uint64(len(e.seqs) + 1)
			e.seqs[s] = n
		}
		binary.BigEndian.PutUint64(e.Buf[o:], n)
	}
	if len(e.oslots) > 0 {
		vals := make([]uint64, 0, len(e.oslots))
		for _, o := range e.oslots {
			vals = append(vals, binary.BigEndian.Uint64(e.Buf[o:]))
		}
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

// Order appends a value compared only for order; Finish rewrites it as its
// rank among the order values of the encoding (0 stays 0).
func (e *Encoder) Order(v uint64) {
	e.oslots = append(e.oslots, len(e.Buf))
	e.Buf = binary.BigEndian.AppendUint64(e.Buf, v)
}

// Value appends the encoding of v.
func (e *Encoder) Value(v any) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		e.Buf = append(e.Buf, 0)
		return
	}
	encoderOf(rv.Type(), plain)(e, rv)
}

// Int appends an integer.
func (e *Encoder) Int(n int64) { e.Buf = binary.AppendVarint(e.Buf, n) }

// Instant appends the instant t: 0 stays 0 ("none"), an instant at or
// before Now is written as "due" whatever its value, and a later one
// relative to Now.
func (e *Encoder) Instant(t int64) {
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

// Seq appends the correlation id s; Finish rewrites it as the order in
// which it first appears in the encoding (0 stays 0).
func (e *Encoder) Seq(s uint64) {
	if e.SkipSeq {
		return
	}
	e.slots = append(e.slots, len(e.Buf))
	e.Buf = binary.BigEndian.AppendUint64(e.Buf, s)
}

// String appends a string, renamed when Rename is set.
func (e *Encoder) String(s string) {
	if e.Rename != nil {
		s = e.Rename(s)
	}
	e.Buf = binary.AppendUvarint(e.Buf, uint64(len(s)))
	e.Buf = append(e.Buf, s...)
}

// Sorted appends n items as a multiset: each is encoded by item(i) on its
// own, then the encodings are written in byte order. Use it for
// collections whose order does not matter to the model (messages that may
// be delivered in any order).
func (e *Encoder) Sorted(n int, item func(i int)) {
	e.Buf = binary.AppendUvarint(e.Buf, uint64(n))
	if n == 0 {
		return
	}
	outer, outerSlots, outerO := e.Buf, e.slots, e.oslots
	parts := e.takeScratch(n)
	for i := range n {
		e.Buf, e.slots, e.oslots = parts[i].buf[:0], parts[i].slots[:0], parts[i].oslots[:0]
		item(i)
		parts[i] = part{e.Buf, e.slots, e.oslots}
	}
	slices.SortFunc(parts, func(a, b part) int { return bytes.Compare(a.buf, b.buf) })
	e.Buf, e.slots, e.oslots = outer, outerSlots, outerO
	for _, p := range parts {
		e.Buf = binary.AppendUvarint(e.Buf, uint64(len(p.buf)))
		base := len(e.Buf)
		e.Buf = append(e.Buf, p.buf...)
		for _, o := range p.slots {
			e.slots = append(e.slots, base+o)
		}
		for _, o := range p.oslots {
			e.oslots = append(e.oslots, base+o)
		}
	}
	e.putScratch(parts)
}

// takeScratch returns n parts whose buffers may be reused; Sorted calls
// nest, so the scratch space is a stack of part lists.
func (e *Encoder) takeScratch(n int) []part {
	var parts []part
	if k := len(e.scratch); k > 0 {
		parts, e.scratch = e.scratch[k-1], e.scratch[:k-1]
	}
	for len(parts) < n {
		parts = append(parts, part{})
	}
	return parts[:n]
}

func (e *Encoder) putScratch(parts []part) { e.scratch = append(e.scratch, parts) }

// Seed is the hash seed of Fingerprint, fixed per process.
var seed = maphash.MakeSeed()

// Fingerprint is the 64-bit hash of an encoding the checker stores instead
// of the encoding itself.
func Fingerprint(b []byte) uint64 { return maphash.Bytes(seed, b) }

// timeTypes are the registered time types: a field of one of them must say
// whether it is an instant or a duration.
var timeTypes sync.Map // reflect.Type -> bool

// RegisterTimeType makes t a time type: the encoder then refuses a struct
// field of type t (or holding t in a map, slice or pointer) without an
// instant, duration or "-" tag.
func RegisterTimeType(t reflect.Type) { timeTypes.Store(t, true) }

// identityTypes are the integer types AbstractIdentities applies to.
var identityTypes sync.Map // reflect.Type -> bool

// RegisterIdentityType makes integers of type t pass through
// Encoder.AbstractIdentities when it is set.
func RegisterIdentityType(t reflect.Type) { identityTypes.Store(t, true) }

type encodeFunc func(e *Encoder, v reflect.Value)

type cacheKey struct {
	t reflect.Type
	m mode
}

var cache sync.Map // cacheKey -> encodeFunc

// buildMu serialises building encoders; building is rare (once per type
// and mode), encoding with built ones takes no lock.
var buildMu sync.Mutex

// building holds the encoders being built, for recursive types; guarded
// by buildMu.
var building = map[cacheKey]*encodeFunc{}

func encoderOf(t reflect.Type, m mode) encodeFunc {
	if f, ok := cache.Load(cacheKey{t, m}); ok {
		return f.(encodeFunc)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	return encoderLocked(t, m)
}

// encoderLocked returns the encoder of (t, m), building it if needed;
// buildMu is held.
func encoderLocked(t reflect.Type, m mode) encodeFunc {
	k := cacheKey{t, m}
	if f, ok := cache.Load(k); ok {
		return f.(encodeFunc)
	}
	if p, ok := building[k]; ok {
		// A recursive type refers to itself: call through the pointer,
		// which is set once the build finishes (before any encoding).
		return func(e *Encoder, v reflect.Value) { (*p)(e, v) }
	}
	p := new(encodeFunc)
	building[k] = p
	*p = build(t, m)
	delete(building, k)
	cache.Store(k, *p)
	return *p
}

func build(t reflect.Type, m mode) encodeFunc {
	switch t.Kind() {
	case reflect.Bool:
		return func(e *Encoder, v reflect.Value) {
			if v.Bool() {
				e.Buf = append(e.Buf, 1)
			} else {
				e.Buf = append(e.Buf, 0)
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		switch m {
		case instant:
			return func(e *Encoder, v reflect.Value) { e.Instant(v.Int()) }
		case seq:
			return func(e *Encoder, v reflect.Value) { e.Seq(uint64(v.Int())) }
		case order:
			return func(e *Encoder, v reflect.Value) { e.Order(uint64(v.Int())) }
		case counter:
			return func(e *Encoder, v reflect.Value) {
				if e.AbstractIdentities == nil {
					e.Int(v.Int())
				}
			}
		}
		if _, ok := identityTypes.Load(t); ok {
			return func(e *Encoder, v reflect.Value) {
				if e.AbstractIdentities != nil {
					e.Int(e.AbstractIdentities(t, v.Int()))
					return
				}
				e.Int(v.Int())
			}
		}
		return func(e *Encoder, v reflect.Value) { e.Int(v.Int()) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		switch m {
		case instant:
			return func(e *Encoder, v reflect.Value) { e.Instant(int64(v.Uint())) }
		case seq:
			return func(e *Encoder, v reflect.Value) { e.Seq(v.Uint()) }
		case order:
			return func(e *Encoder, v reflect.Value) { e.Order(v.Uint()) }
		case counter:
			return func(e *Encoder, v reflect.Value) {
				if e.AbstractIdentities == nil {
					e.Buf = binary.AppendUvarint(e.Buf, v.Uint())
				}
			}
		}
		return func(e *Encoder, v reflect.Value) { e.Buf = binary.AppendUvarint(e.Buf, v.Uint()) }
	case reflect.Float32, reflect.Float64:
		return func(e *Encoder, v reflect.Value) { e.Buf = binary.BigEndian.AppendUint64(e.Buf, uint64(v.Float())) }
	case reflect.String:
		return func(e *Encoder, v reflect.Value) { e.String(v.String()) }
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return func(*Encoder, reflect.Value) {}
	case reflect.Pointer:
		elem := encoderLocked(t.Elem(), m)
		return func(e *Encoder, v reflect.Value) {
			if v.IsNil() {
				e.Buf = append(e.Buf, 0)
				return
			}
			e.Buf = append(e.Buf, 1)
			elem(e, v.Elem())
		}
	case reflect.Interface:
		// Each interface site remembers the last dynamic type it met, to
		// skip the cache lookup in the common case of one type.
		type last struct {
			t    reflect.Type
			name string
			f    encodeFunc
		}
		var seen atomic.Pointer[last]
		return func(e *Encoder, v reflect.Value) {
			if v.IsNil() {
				e.Buf = append(e.Buf, 0)
				return
			}
			d := v.Elem()
			dt := d.Type()
			l := seen.Load()
			if l == nil || l.t != dt {
				l = &last{dt, dt.String(), encoderOf(dt, m)}
				seen.Store(l)
			}
			e.Buf = append(e.Buf, 1)
			e.Buf = binary.AppendUvarint(e.Buf, uint64(len(l.name)))
			e.Buf = append(e.Buf, l.name...)
			l.f(e, d)
		}
	case reflect.Slice, reflect.Array:
		elem := encoderLocked(t.Elem(), m)
		return func(e *Encoder, v reflect.Value) {
			n := v.Len()
			e.Buf = binary.AppendUvarint(e.Buf, uint64(n))
			for i := range n {
				elem(e, v.Index(i))
			}
		}
	case reflect.Map:
		key := encoderLocked(t.Key(), plain)
		val := encoderLocked(t.Elem(), m)
		return func(e *Encoder, v reflect.Value) {
			// Map order is random: encode each entry on its own and sort.
			it := v.MapRange()
			e.Sorted(v.Len(), func(int) {
				it.Next()
				key(e, it.Key())
				val(e, it.Value())
			})
		}
	case reflect.Struct:
		return buildStruct(t, m)
	}
	panic(fmt.Sprintf("canon: cannot encode %s (kind %s)", t, t.Kind()))
}

type fieldEncoder struct {
	index int
	enc   encodeFunc
}

func buildStruct(t reflect.Type, m mode) encodeFunc {
	var fields []fieldEncoder
	for i := range t.NumField() {
		f := t.Field(i)
		tag, tagged := f.Tag.Lookup("canon")
		fm := m
		switch tag {
		case "-":
			continue
		case "instant":
			fm = instant
		case "seq":
			fm = seq
		case "order":
			fm = order
		case "counter":
			fm = counter
		case "duration", "":
		default:
			panic(fmt.Sprintf("canon: %s.%s: unknown tag canon:%q", t, f.Name, tag))
		}
		if !tagged && m == plain {
			if holdsTime(f.Type, map[reflect.Type]bool{}) {
				panic(fmt.Sprintf("canon: %s.%s holds a time type; tag it canon:\"instant\", canon:\"duration\" or canon:\"-\"", t, f.Name))
			}
			if strings.HasSuffix(strings.ToLower(f.Name), "seq") {
				panic(fmt.Sprintf("canon: %s.%s looks like a correlation id; tag it canon:\"seq\" or canon:\"-\"", t, f.Name))
			}
		}
		fields = append(fields, fieldEncoder{i, encoderLocked(f.Type, fm)})
	}
	return func(e *Encoder, v reflect.Value) {
		for _, f := range fields {
			f.enc(e, v.Field(f.index))
		}
	}
}

// holdsTime reports whether t is a registered time type or holds one
// directly through maps, slices, arrays or pointers (not through struct
// fields, which are checked on their own).
func holdsTime(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if _, ok := timeTypes.Load(t); ok {
		return true
	}
	switch t.Kind() {
	case reflect.Map:
		return holdsTime(t.Key(), seen) || holdsTime(t.Elem(), seen)
	case reflect.Slice, reflect.Array, reflect.Pointer:
		return holdsTime(t.Elem(), seen)
	}
	return false
}
