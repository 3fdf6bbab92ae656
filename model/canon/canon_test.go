package canon

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// node is a small state written the way the models write theirs.
type node struct {
	Deadline int64  // an instant
	Timeout  int64  // a duration
	Waiting  uint64 // a correlation id
	Counter  uint64 // a fresh-id counter
	Arrival  uint64 // an order value
	Gen      int64  // a generation
	Parked   []uint64
}

func (n node) encode(e *Encoder) {
	e.Instant(n.Deadline)
	e.Int(n.Timeout)
	e.Seq(n.Waiting)
	e.Counter(n.Counter)
	e.Order(n.Arrival)
	e.Generation(n.Gen)
	e.Len(len(n.Parked))
	for _, p := range n.Parked {
		e.Seq(p)
	}
}

func enc(now int64, n node) []byte {
	e := &Encoder{Now: now}
	n.encode(e)
	return append([]byte(nil), e.Finish()...)
}

// TestAbstraction: states that differ only in what the encoding abstracts
// encode alike, and states that differ in anything else do not.
func TestAbstraction(t *testing.T) {
	base := node{Deadline: 1500, Timeout: 300, Waiting: 7, Counter: 9, Arrival: 40, Gen: 2, Parked: []uint64{7}}
	same := []struct {
		name string
		now  int64
		n    node
	}{
		{"clock and deadline shifted together", 1000 + 500, node{Deadline: 2000, Timeout: 300, Waiting: 7, Counter: 9, Arrival: 40, Gen: 2, Parked: []uint64{7}}},
		{"correlation ids renamed consistently", 1000, node{Deadline: 1500, Timeout: 300, Waiting: 21, Counter: 9, Arrival: 40, Gen: 2, Parked: []uint64{21}}},
		{"order value with the same rank", 1000, node{Deadline: 1500, Timeout: 300, Waiting: 7, Counter: 9, Arrival: 3, Gen: 2, Parked: []uint64{7}}},
	}
	want := enc(1000, base)
	for _, c := range same {
		if got := enc(c.now, c.n); !bytes.Equal(got, want) {
			t.Errorf("%s: encodings differ", c.name)
		}
	}
	differ := []struct {
		name string
		n    node
	}{
		{"deadline moved", node{Deadline: 1600, Timeout: 300, Waiting: 7, Counter: 9, Arrival: 40, Gen: 2, Parked: []uint64{7}}},
		{"duration changed", node{Deadline: 1500, Timeout: 301, Waiting: 7, Counter: 9, Arrival: 40, Gen: 2, Parked: []uint64{7}}},
		{"parked id no longer the awaited one", node{Deadline: 1500, Timeout: 300, Waiting: 7, Counter: 9, Arrival: 40, Gen: 2, Parked: []uint64{8}}},
		{"counter moved", node{Deadline: 1500, Timeout: 300, Waiting: 7, Counter: 10, Arrival: 40, Gen: 2, Parked: []uint64{7}}},
		{"generation moved", node{Deadline: 1500, Timeout: 300, Waiting: 7, Counter: 9, Arrival: 40, Gen: 3, Parked: []uint64{7}}},
		{"deadline none", node{Deadline: 0, Timeout: 300, Waiting: 7, Counter: 9, Arrival: 40, Gen: 2, Parked: []uint64{7}}},
	}
	for _, c := range differ {
		if got := enc(1000, c.n); bytes.Equal(got, want) {
			t.Errorf("%s: encodings equal", c.name)
		}
	}
	// Every due instant is alike, and unlike "none" and the future.
	if !bytes.Equal(enc(1000, node{Deadline: 400}), enc(1000, node{Deadline: 1000})) {
		t.Errorf("two due instants encode differently")
	}
	if bytes.Equal(enc(1000, node{Deadline: 1000}), enc(1000, node{Deadline: 0})) || bytes.Equal(enc(1000, node{Deadline: 1000}), enc(1000, node{Deadline: 1001})) {
		t.Errorf("due, none and future instants collide")
	}
}

// TestAbstractIdentities: with AbstractIdentities set, counters are left
// out and generations pass through the function.
func TestAbstractIdentities(t *testing.T) {
	abstract := func(n node) []byte {
		e := &Encoder{AbstractIdentities: func(g int64) int64 { return g % 2 }}
		n.encode(e)
		return append([]byte(nil), e.Finish()...)
	}
	if !bytes.Equal(abstract(node{Counter: 1, Gen: 4}), abstract(node{Counter: 99, Gen: 6})) {
		t.Errorf("counter or mapped generation still written")
	}
	if bytes.Equal(abstract(node{Gen: 4}), abstract(node{Gen: 5})) {
		t.Errorf("generations mapped apart encode alike")
	}
}

func TestSortedIsOrderFree(t *testing.T) {
	a := &Encoder{}
	a.Sorted(3, func(i int) { a.String([]string{"x", "y", "z"}[i]) })
	b := &Encoder{}
	b.Sorted(3, func(i int) { b.String([]string{"z", "x", "y"}[i]) })
	if !bytes.Equal(a.Finish(), b.Finish()) {
		t.Errorf("Sorted depends on item order")
	}
}

// TestMapsAreOrderFree: topic metadata and assignments encode alike
// whatever the maps' iteration order, and differ when a value differs.
func TestMapsAreOrderFree(t *testing.T) {
	encode := func(f func(e *Encoder)) string {
		e := &Encoder{}
		f(e)
		return string(e.Finish())
	}
	topics := spec.Topics{"T": 2, "U": 3, "V": 1, "W": 4}
	asg := spec.Assignment{"A": {{Topic: "T", Partition: 0}}, "B": {{Topic: "T", Partition: 1}}, "C": nil}
	first := encode(func(e *Encoder) { e.Topics(topics); e.Assignment(asg) })
	for range 20 { // map iteration order is random
		if got := encode(func(e *Encoder) { e.Topics(topics); e.Assignment(asg) }); got != first {
			t.Fatalf("encoding depends on map order")
		}
	}
	if encode(func(e *Encoder) { e.Topics(spec.Topics{"T": 2, "U": 3, "V": 1, "W": 5}) }) == encode(func(e *Encoder) { e.Topics(topics) }) {
		t.Errorf("different topic metadata encode alike")
	}
	other := spec.Assignment{"A": {{Topic: "T", Partition: 1}}, "B": {{Topic: "T", Partition: 0}}, "C": nil}
	if encode(func(e *Encoder) { e.Assignment(other) }) == encode(func(e *Encoder) { e.Assignment(asg) }) {
		t.Errorf("swapped assignments encode alike")
	}
}

// TestSeqSpaces: correlation ids are numbered per space. Two members' ids
// that coincide are not the same id: whether A's awaited id equals B's is
// not part of the encoding, while equalities within one space still are,
// and so is each id's space. It also holds inside a multiset.
func TestSeqSpaces(t *testing.T) {
	// A waits for a, B for b, and one message in flight to each carries
	// ma and mb.
	encode := func(a, b, ma, mb uint64, inSet bool) string {
		e := &Encoder{}
		member := func(space string, s uint64) {
			e.SeqSpace = space
			e.String(space)
			e.Seq(s)
			e.SeqSpace = ""
		}
		if inSet {
			e.Sorted(1, func(int) { member("A", a) })
		} else {
			member("A", a)
		}
		member("B", b)
		member("A", ma)
		member("B", mb)
		return string(e.Finish())
	}
	for _, inSet := range []bool{false, true} { // inSet: A's id inside a multiset
		apart := encode(4, 5, 4, 5, inSet)
		if coincide := encode(5, 5, 5, 5, inSet); coincide != apart {
			t.Errorf("in a multiset=%v: ids of two spaces that coincide encode unlike ids that do not", inSet)
		}
		if crossed := encode(4, 5, 5, 4, inSet); crossed == apart {
			t.Errorf("in a multiset=%v: messages carrying the other member's awaited id encode as their own", inSet)
		}
		if stale := encode(4, 5, 3, 5, inSet); stale == apart {
			t.Errorf("in a multiset=%v: a stale id in one space encodes as the awaited one", inSet)
		}
	}
}

// TestRenumbering: correlation ids are numbered by first appearance and
// order values ranked, whatever their values, with 0 kept as "none".
func TestRenumbering(t *testing.T) {
	enc := func(seqs, orders []uint64) string {
		e := &Encoder{}
		for _, s := range seqs {
			e.Seq(s)
		}
		for _, o := range orders {
			e.Order(o)
		}
		return string(e.Finish())
	}
	for _, c := range []struct {
		aSeqs, aOrders, bSeqs, bOrders []uint64
		same                           bool
	}{
		{[]uint64{7, 7, 9}, nil, []uint64{1, 1, 2}, nil, true},
		{[]uint64{7, 7, 9}, nil, []uint64{7, 9, 9}, nil, false},
		{[]uint64{0, 7}, nil, []uint64{0, 3}, nil, true},
		{[]uint64{0, 7}, nil, []uint64{1, 7}, nil, false},
		{[]uint64{0, 5, 6}, nil, []uint64{0, 5, 0}, nil, false},
		{nil, []uint64{0, 5, 9}, nil, []uint64{0, 1, 2}, true},
		{nil, []uint64{5, 9}, nil, []uint64{1, 2}, true},
		{nil, []uint64{9, 5}, nil, []uint64{5, 9}, false},
		{nil, []uint64{0, 9}, nil, []uint64{5, 9}, false},
		{nil, []uint64{5}, nil, []uint64{0}, false},
		{nil, []uint64{5, 5, 9}, nil, []uint64{5, 9, 9}, false},
	} {
		if got := enc(c.aSeqs, c.aOrders) == enc(c.bSeqs, c.bOrders); got != c.same {
			t.Errorf("seqs %v orders %v against seqs %v orders %v: same = %v, want %v", c.aSeqs, c.aOrders, c.bSeqs, c.bOrders, got, c.same)
		}
	}
}

// TestScratchReuse: one encoder used for many multisets of different
// sizes, nested too, writes what fresh encoders write.
func TestScratchReuse(t *testing.T) {
	write := func(e *Encoder, n int) {
		e.Sorted(n, func(i int) {
			e.Seq(uint64(100 - i))
			e.Sorted(i, func(j int) { e.Int(int64(i * j)) })
		})
	}
	reused := &Encoder{}
	for _, n := range []int{3, 5, 2, 0, 6, 1} {
		reused.Reset()
		write(reused, n)
		fresh := &Encoder{}
		write(fresh, n)
		if r, f := reused.Finish(), fresh.Finish(); !bytes.Equal(r, f) {
			t.Errorf("n=%d: reused encoder wrote %x, a fresh one %x", n, r, f)
		}
	}
}

// TestSortedKeepsItsItems: a multiset's items are written, and correlation
// ids inside them are numbered with the rest of the encoding.
func TestSortedKeepsItsItems(t *testing.T) {
	enc := func(seqs []uint64, vals []int64) string {
		e := &Encoder{}
		e.Seq(seqs[0])
		e.Sorted(len(vals), func(i int) {
			e.Int(vals[i]) // the id is not at the item's start
			e.Seq(seqs[i+1])
		})
		return string(e.Finish())
	}
	base := enc([]uint64{50, 100, 200}, []int64{1, 2})
	if enc([]uint64{3, 7, 9}, []int64{1, 2}) != base {
		t.Errorf("renumbered ids inside a multiset encode differently")
	}
	if enc([]uint64{50, 100, 100}, []int64{1, 2}) == base {
		t.Errorf("two items sharing an id encode as two with their own")
	}
	if enc([]uint64{50, 100, 50}, []int64{1, 2}) == base {
		t.Errorf("an item's id equal to the outer one encodes as a fresh id")
	}
	if enc([]uint64{50, 100, 200}, []int64{1, 3}) == base {
		t.Errorf("a changed item encodes the same")
	}
}

// TestKeyedMapIsMap: KeyedMap, and KeyedSlice given the map's entries
// in order, write what Map writes with an entry of the
// key then the value, correlation ids and order values in the values
// included, with and without Rename.
func TestKeyedMapIsMap(t *testing.T) {
	keys := []string{"A-1", "B-2", "C-3", "AB-10", "", "Z", "A-1x"}
	for n := range len(keys) + 1 {
		m := map[string]uint64{}
		for i, k := range keys[:n] {
			m[k] = uint64(7 - i%3)
		}
		renames := []func(string) string{
			nil,
			func(s string) string { return strings.ToLower(s) + "!" },
			// Every key padded to one length: they order otherwise ("Z"
			// before "", "A-1x" before "A-1").
			func(s string) string { return strings.Repeat("x", 8-len(s)) + s },
		}
		for _, rename := range renames {
			value := func(e *Encoder) func(uint64) {
				return func(v uint64) {
					e.Int(int64(v))
					e.Seq(v)
					e.Order(v * 10)
				}
			}
			keyed, mapped := &Encoder{Rename: rename}, &Encoder{Rename: rename}
			keyed.Seq(3)
			mapped.Seq(3)
			KeyedMap(keyed, m, value(keyed))
			Map(mapped, m, func(k string, v uint64) { mapped.Name(k); value(mapped)(v) })
			// KeyedSlice, given the entries in CompareKeys order.
			type entry struct {
				k string
				v uint64
			}
			var entries []entry
			for k, v := range m {
				entries = append(entries, entry{k, v})
			}
			slices.SortFunc(entries, func(a, b entry) int { return CompareKeys(a.k, b.k) })
			sliced := &Encoder{Rename: rename}
			sliced.Seq(3)
			KeyedSlice(sliced, entries, func(x entry) string { return x.k }, func(x entry) { value(sliced)(x.v) })
			k, mp := bytes.Clone(keyed.Finish()), mapped.Finish()
			if !bytes.Equal(k, mp) {
				t.Errorf("%d keys, rename %v: KeyedMap wrote %x, Map %x", n, rename != nil, k, mp)
			}
			if sl := sliced.Finish(); !bytes.Equal(sl, mp) {
				t.Errorf("%d keys, rename %v: KeyedSlice wrote %x, Map %x", n, rename != nil, sl, mp)
			}
		}
	}
}

// TestKeyedSliceRefusesDisorder: entries out of CompareKeys order (or a
// key twice) would encode as another map, so KeyedSlice panics on them.
func TestKeyedSliceRefusesDisorder(t *testing.T) {
	for _, keys := range [][]string{{"B", "A"}, {"AB", "Z"}, {"A", "A"}} {
		func() {
			defer func() {
				// The message names the key out of order and the one
				// before it.
				want := fmt.Sprintf("%q after %q", keys[1], keys[0])
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), want) {
					t.Errorf("KeyedSlice took keys %q: panic %v, want one naming %s", keys, r, want)
				}
			}()
			KeyedSlice(&Encoder{}, keys, func(k string) string { return k }, func(string) {})
		}()
	}
}

// TestResponseIsHeaderThenCode: Response writes what Header and Int write,
// so a family may use either, and a response differs from another kind or
// another error code.
func TestResponseIsHeaderThenCode(t *testing.T) {
	resp, parts := &Encoder{}, &Encoder{}
	resp.Response(7, 3, -25)
	parts.Header(7, 3)
	parts.Int(-25)
	r := bytes.Clone(resp.Finish())
	if p := parts.Finish(); !bytes.Equal(r, p) {
		t.Fatalf("Response wrote %x, Header and Int %x", r, p)
	}
	for _, other := range []struct {
		kind byte
		code int64
	}{{8, -25}, {7, 0}} {
		o := &Encoder{}
		o.Response(other.kind, 3, other.code)
		if bytes.Equal(r, o.Finish()) {
			t.Errorf("kind %d code %d encodes like kind 7 code -25", other.kind, other.code)
		}
	}
}

// TestOptionalString: absent, empty and a value all encode apart.
func TestOptionalString(t *testing.T) {
	empty, x := "", "x"
	seen := map[string]string{}
	for name, s := range map[string]*string{"nil": nil, "empty": &empty, "x": &x} {
		e := &Encoder{}
		e.OptionalString(s)
		got := string(e.Finish())
		if other, ok := seen[got]; ok {
			t.Errorf("%s and %s encode alike: %x", name, other, got)
		}
		seen[got] = name
	}
}

// TestRecordAndReplay: a recording of values written with neither Rename
// nor AbstractIdentities, replayed into another encoding with the same
// Now, writes what writing the values again writes, wherever it lands:
// after other correlation ids and order values, and inside a multiset,
// its own ids and order values numbered and ranked among the whole
// encoding's. Anything written renamed or with identities abstracted is
// not recorded.
// TestRenameReachesIdentitiesOnly: Rename renames what is written as an
// identity (Name, the keys of KeyedMap and KeyedSlice, a member view's
// name and id) and nothing written as a plain string, a list of them, a
// set or topic metadata, even where a topic is named as a member is; it
// opens payloads, as AbstractIdentities and OpenPayloads do.
func TestRenameReachesIdentitiesOnly(t *testing.T) {
	swap := func(s string) string {
		switch s {
		case "A":
			return "B"
		case "B":
			return "A"
		}
		return s
	}
	type write struct {
		name    string
		renamed bool
		f       func(e *Encoder, member string)
	}
	for _, w := range []write{
		{"Name", true, func(e *Encoder, m string) { e.Name(m) }},
		{"Address", true, func(e *Encoder, m string) { e.Address(m) }},
		{"KeyedMap", true, func(e *Encoder, m string) { KeyedMap(e, map[string]int64{m: 1}, e.Int) }},
		{"KeyedSlice", true, func(e *Encoder, m string) {
			KeyedSlice(e, []string{m}, func(k string) string { return k }, func(string) {})
		}},
		{"MemberView", true, func(e *Encoder, m string) { e.MemberView(spec.MemberView{Name: m, ID: spec.MemberID(m)}) }},
		{"String", false, func(e *Encoder, m string) { e.String(m) }},
		{"Strings", false, func(e *Encoder, m string) { e.Strings([]string{m}) }},
		{"OptionalString", false, func(e *Encoder, m string) { e.OptionalString(&m) }},
		{"Set", false, func(e *Encoder, m string) { e.Set(spec.Set{{Topic: m, Partition: 0}}) }},
		{"Topics", false, func(e *Encoder, m string) { e.Topics(spec.Topics{m: 1}) }},
	} {
		renamed, plainB := &Encoder{Rename: swap}, &Encoder{}
		w.f(renamed, "A")
		w.f(plainB, "B")
		plainA := &Encoder{}
		w.f(plainA, "A")
		if got := bytes.Equal(renamed.Finish(), plainB.Finish()); got != w.renamed {
			t.Errorf("%s: A written under a renaming A to B reads as B written plainly: %t, want %t", w.name, got, w.renamed)
		}
		if !w.renamed && !bytes.Equal(renamed.Buf, plainA.Finish()) {
			t.Errorf("%s: a renaming changed what it writes: %x, want %x", w.name, renamed.Buf, plainA.Buf)
		}
	}
	// RenameAddress, when set, renames addresses in Rename's stead, and
	// nothing else.
	both := &Encoder{Rename: swap, RenameAddress: func(s string) string { return s + "@~0" }}
	both.Address("A")
	both.Name("A")
	want := &Encoder{}
	want.String("A@~0")
	want.String("B")
	if !bytes.Equal(both.Finish(), want.Finish()) {
		t.Errorf("with RenameAddress set, an address and a name write %x, want %x", both.Buf, want.Buf)
	}
	for _, c := range []struct {
		e    Encoder
		want bool
	}{
		{Encoder{}, false},
		{Encoder{RenameAddress: swap}, true},
		{Encoder{OpenPayloads: true}, true},
		{Encoder{Rename: swap}, true},
		{Encoder{AbstractIdentities: func(v int64) int64 { return v }}, true},
	} {
		if got := c.e.OpensPayloads(); got != c.want {
			t.Errorf("OpensPayloads with OpenPayloads %t, Rename %t, AbstractIdentities %t = %t, want %t",
				c.e.OpenPayloads, c.e.Rename != nil, c.e.AbstractIdentities != nil, got, c.want)
		}
	}
}

func TestRecordAndReplay(t *testing.T) {
	values := func(e *Encoder) {
		e.String("A-1")
		e.Instant(e.Now + 300)
		e.Set(spec.Set{{Topic: "T", Partition: 0}})
		KeyedMap(e, map[string]int64{"B": 2, "A": 1}, e.Int)
		e.SeqSpace = "A"
		e.Seq(7)
		e.Sorted(2, func(i int) { e.Seq(uint64(10 - i)) })
		e.SeqSpace = ""
		e.Order(30)
		e.Seq(0)
	}
	for _, c := range []struct {
		name     string
		setup    func(e *Encoder)
		recorded bool
	}{
		{"plain", nil, true},
		{"without ids", func(e *Encoder) { e.SkipSeq = true }, true},
		{"renamed", func(e *Encoder) { e.Rename = strings.ToLower }, false},
		{"addresses renamed", func(e *Encoder) { e.RenameAddress = strings.ToLower }, false},
		{"identities abstracted", func(e *Encoder) { e.AbstractIdentities = func(v int64) int64 { return v } }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &Encoder{Now: 1000}
			if c.setup != nil {
				c.setup(e)
			}
			e.Seq(5) // written before the mark: not part of the recording
			e.Order(99)
			m := e.Mark()
			values(e)
			rec, ok := e.Record(m)
			if ok != c.recorded {
				t.Fatalf("recorded = %t, want %t", ok, c.recorded)
			}
			if !ok {
				return
			}
			e.Reset() // the recording is a copy
			// Replayed after other values, with ids and order values of
			// their own, and inside a multiset.
			for _, place := range []func(e *Encoder, write func()){
				func(e *Encoder, write func()) { write() },
				func(e *Encoder, write func()) {
					e.SeqSpace = "A"
					e.Seq(8)
					e.Order(40)
					e.SeqSpace = ""
					e.Int(42)
					write()
				},
				func(e *Encoder, write func()) {
					e.Sorted(2, func(i int) {
						if i == 1 {
							write()
						} else {
							e.Seq(3)
							e.Order(10)
						}
					})
				},
			} {
				want := &Encoder{Now: 1000}
				got := &Encoder{Now: 1000}
				if c.setup != nil {
					c.setup(want)
					c.setup(got)
				}
				place(want, func() { values(want) })
				place(got, func() { got.Replay(rec) })
				if w, g := want.Finish(), got.Finish(); !bytes.Equal(w, g) {
					t.Fatalf("replayed %x, want %x", g, w)
				}
			}
		})
	}
}

// TestRecordSpanAfterFinish: a span noted while encoding and recorded
// after Finish (which rewrote its correlation ids and order values) is
// the recording Record makes at the span's end, before Finish; Reset
// forgets the spans noted.
func TestRecordSpanAfterFinish(t *testing.T) {
	write := func(e *Encoder) Span {
		e.SeqSpace = "A"
		e.Seq(5)
		e.Order(99)
		from := e.Mark()
		e.String("B-2")
		e.Seq(9)
		e.Seq(5)
		e.Sorted(2, func(i int) { e.Seq(uint64(20 + i)); e.Order(uint64(7 - i)) })
		e.Order(3)
		return Span{From: from, To: e.Mark(), Label: 4}
	}
	before := &Encoder{}
	span := write(before)
	want, ok := before.Record(span.From)
	if !ok {
		t.Fatal("not recorded")
	}
	after := &Encoder{}
	after.Spans = append(after.Spans, write(after))
	after.Seq(30) // written after the span: not part of it
	after.Order(1)
	after.Finish()
	if got := after.RecordSpan(after.Spans[0]); !reflect.DeepEqual(got, want) {
		t.Fatalf("recorded after Finish %+v, want %+v", got, want)
	}
	after.Reset()
	if len(after.Spans) != 0 {
		t.Fatalf("Reset kept %d spans", len(after.Spans))
	}
}

// TestRecordingsStayIndependent: each recording RecordSpan makes stays
// what it was through Reset and many later recordings, of spans short
// and long, recorded before and after Finish (which rewrites the ids and
// order values in the encoding); ReplayKept replays a recording only
// under the Commits, SkipSeq and OpenPayloads it was written with, and
// without renaming or abstraction, writing what writing its values again
// would.
func TestRecordingsStayIndependent(t *testing.T) {
	// write writes the i-th span's values.
	write := func(e *Encoder, i int) {
		e.SeqSpace = "A"
		for j := range i % 7 {
			e.Seq(uint64(j + 1))
			e.Order(uint64(10 - j))
		}
		e.String(strings.Repeat("x", (i*37)%2048+i/390*4096))
		e.Instant(e.Now + int64(i))
	}
	e := &Encoder{Now: 100}
	type kept struct {
		rec  *Recording
		want Recording
	}
	var all []kept
	for i := range 400 {
		e.Reset()
		e.Now = int64(100 + i%3)
		e.Commits = i%5 == 0
		from := e.Mark()
		write(e, i)
		sp := Span{From: from, To: e.Mark()}
		before := e.RecordSpan(sp)
		e.Finish()
		after := e.RecordSpan(sp)
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("recording %d: recorded after Finish %+v, before %+v", i, after, before)
		}
		// A deep copy, which no later recording could write into.
		want := after
		want.data, want.spaces = bytes.Clone(after.data), slices.Clone(after.spaces)
		all = append(all, kept{&after, want})
	}
	for i, k := range all {
		if !reflect.DeepEqual(*k.rec, k.want) {
			t.Fatalf("recording %d changed after later ones were made", i)
		}
	}
	// The 6th was written at Now 100, without commits, its instant at 106.
	r := all[6].rec
	for _, c := range []struct {
		name  string
		setup func(e *Encoder)
		ok    bool
	}{
		{"same settings", func(e *Encoder) {}, true},
		{"a later clock, the instant still ahead", func(e *Encoder) { e.Now = 101 }, true},
		{"a later clock, the instant due", func(e *Encoder) { e.Now = 500 }, true},
		{"an earlier clock", func(e *Encoder) { e.Now = 3 }, true},
		{"commits", func(e *Encoder) { e.Commits = true }, false},
		{"without ids", func(e *Encoder) { e.SkipSeq = true }, false},
		{"payloads opened", func(e *Encoder) { e.OpenPayloads = true }, false},
		{"renamed", func(e *Encoder) { e.Rename = strings.ToLower }, false},
		{"addresses renamed", func(e *Encoder) { e.RenameAddress = strings.ToLower }, false},
		{"identities abstracted", func(e *Encoder) { e.AbstractIdentities = func(v int64) int64 { return v } }, false},
	} {
		got := &Encoder{Now: 100}
		c.setup(got)
		if ok := got.ReplayKept(r); ok != c.ok || (len(got.Buf) > 0) != c.ok {
			t.Errorf("%s: ReplayKept = %t with %d bytes written, want %t", c.name, ok, len(got.Buf), c.ok)
		}
		if c.ok {
			// The 6th span's values, written again under c's settings.
			want := &Encoder{Now: 100}
			c.setup(want)
			want.SeqSpace = "A"
			for j := range 6 {
				want.Seq(uint64(j + 1))
				want.Order(uint64(10 - j))
			}
			want.String(strings.Repeat("x", 6*37))
			want.Instant(106)
			if !bytes.Equal(got.Finish(), want.Finish()) {
				t.Errorf("%s: replayed %x, want %x", c.name, got.Buf, want.Buf)
			}
		}
	}
	// A recording made with payloads opened replays only where they are.
	open := &Encoder{Now: 100, OpenPayloads: true}
	from := open.Mark()
	write(open, 6)
	opened := open.RecordSpan(Span{From: from, To: open.Mark()})
	if (&Encoder{Now: 100}).ReplayKept(&opened) || !(&Encoder{Now: 100, OpenPayloads: true}).ReplayKept(&opened) {
		t.Error("a recording made with payloads opened replays where they are not, or not where they are")
	}
	if (&Encoder{}).ReplayKept(nil) {
		t.Error("ReplayKept(nil) = true")
	}
	// The zero Recording is none, even where its zero settings match the
	// encoder's.
	if (&Encoder{}).ReplayKept(&Recording{}) || (&Recording{}).Recorded() || (*Recording)(nil).Recorded() {
		t.Error("the zero Recording replays or reads as recorded")
	}
	if !all[0].rec.Recorded() {
		t.Error("a recording RecordSpan made reads as none")
	}
}
