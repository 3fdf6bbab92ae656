package checker

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// sigFunc signs a member by its name alone.
type sigFunc func(name string) uint64

func (f sigFunc) MemberSignature(_ cstate, member string) uint64 { return f(member) }

// signedCounters is counters whose member names[i] signs as sig(s, i).
type signedCounters struct {
	counters
	sig func(s cstate, i int) uint64
}

func (m signedCounters) MemberSignature(s cstate, member string) uint64 {
	return m.sig(s, slices.Index(m.names, member))
}

// unsigned hides everything of a model but Model, its MemberSignature
// among the rest, so that the symmetry reduction tries every permutation;
// it counts the encodings in n.
type unsigned[S, A any] struct {
	Model[S, A]
	n *atomic.Int64
}

func (m unsigned[S, A]) Encode(e *canon.Encoder, s S) { m.n.Add(1); m.Model.Encode(e, s) }

// signed is unsigned with the model's signer shown.
type signed[S, A any] struct {
	unsigned[S, A]
	MemberSigner[S]
}

// TestSymmetryBySignature: with a signature that moves with the member
// (its counter's value), the reduction stores the states the reduction
// over every permutation does, with fewer encodings; with one that
// depends on the name (the counter's index), it merges nothing, since
// only the identity orders the members by it.
func TestSymmetryBySignature(t *testing.T) {
	names := []string{"A", "B", "C", "D"}
	for _, c := range []struct {
		name   string
		sig    func(s cstate, i int) uint64
		merged int64
	}{
		// Four counters of 0 to 2: 81 states, 15 multisets.
		{"by value", func(s cstate, i int) uint64 { return uint64(s.c[i]) }, 15},
		{"by name", func(_ cstate, i int) uint64 { return uint64(i) }, 81},
		{"by value, reversed", func(s cstate, i int) uint64 { return uint64(9 - s.c[i]) }, 15},
	} {
		var plain, full, signed atomic.Int64
		base := counters{n: 4, max: 2, names: names}
		base.encodes = &plain
		if r := explore(t, base, Options{NoLiveness: true}); r.Distinct != 81 {
			t.Fatalf("%s: without symmetry %d states, want 81", c.name, r.Distinct)
		}
		base.encodes = &full
		if r := explore(t, base, Options{Symmetry: true, NoLiveness: true}); r.Distinct != 15 {
			t.Fatalf("%s: over every permutation %d states, want 15", c.name, r.Distinct)
		}
		base.encodes = &signed
		m := signedCounters{counters: base, sig: c.sig}
		r, err := Explore[cstate, caction](m, Options{Symmetry: true, NoLiveness: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Distinct != c.merged {
			t.Errorf("%s: %d states, want %d", c.name, r.Distinct, c.merged)
		}
		// Every permutation is 24 encodings a state; by value, a state
		// whose counters differ needs one renaming and the plain encoding.
		if c.merged == 15 && signed.Load()*2 > full.Load() {
			t.Errorf("%s: %d encodings, against %d over every permutation: want fewer than half", c.name, signed.Load(), full.Load())
		}
		if c.merged == 81 && signed.Load() != plain.Load() {
			t.Errorf("%s: %d encodings, want %d, one a state as without symmetry", c.name, signed.Load(), plain.Load())
		}
	}
}

// TestSignaturesMergeAsPermutations: on the closed worlds, the members'
// signatures (world.Model.MemberSignature) move with the members, so the
// reduction by signature stores the states and steps the reduction over
// every permutation does: classic and next-gen worlds with interchangeable
// joiners, with liveness on one, and a world with leader bounces
// unbounded, whose encoding writes generations as ranks.
func TestSignaturesMergeAsPermutations(t *testing.T) {
	type world struct {
		name     string
		protocol string
		cfg      func() (core.CheckConfig, error)
		liveness bool
	}
	classic := func(protocol string, set func(o *classicworld.CheckOptions)) func() (core.CheckConfig, error) {
		return func() (core.CheckConfig, error) {
			o := classicworld.DefaultCheckOptions()
			o.Records = 0
			set(&o)
			return classicworld.CheckWorld(protocol, o)
		}
	}
	worlds := []world{
		{"cooperative, two joiners", "cooperative", classic("cooperative", func(o *classicworld.CheckOptions) {
			o.Joins, o.Partitions, o.Crashes, o.Drops = 2, 1, 0, 0
		}), true},
		{"deferred, a crash", "deferred", classic("deferred", func(o *classicworld.CheckOptions) {
			o.Drops = 0
		}), false},
		{"eager, bounces unbounded", "eager", classic("eager", func(o *classicworld.CheckOptions) {
			o.Members, o.Joins, o.Topics, o.Partitions, o.Crashes, o.Drops, o.LeaderBounces = 2, 2, 1, 1, 0, 0, -1
		}), false},
		{"next-gen, two joiners", "nextgen", func() (core.CheckConfig, error) {
			o := ngworld.DefaultCheckOptions()
			o.Joins, o.Partitions, o.Crashes, o.Drops, o.Records = 2, 1, 0, 0, 0
			return ngworld.CheckWorld(o)
		}, false},
	}
	for _, w := range worlds {
		cfg, err := w.cfg()
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		o := Options{Symmetry: true, NoLiveness: !w.liveness}
		var signed, every Result
		if w.protocol == "nextgen" {
			m, err := ngworld.NewModel(cfg)
			if err != nil {
				t.Fatal(err)
			}
			signed, every = exploreBoth[*ngworld.State, core.Action](t, w.name, m, o)
		} else {
			m, err := classicworld.NewModel(cfg)
			if err != nil {
				t.Fatal(err)
			}
			signed, every = exploreBoth[*classicworld.State, core.Action](t, w.name, m, o)
		}
		if signed.Distinct != every.Distinct || signed.Transitions != every.Transitions || len(signed.Violations) != len(every.Violations) {
			t.Errorf("%s: by signature %d states, %d transitions, %d violations; over every permutation %d, %d, %d",
				w.name, signed.Distinct, signed.Transitions, len(signed.Violations), every.Distinct, every.Transitions, len(every.Violations))
		}
	}
}

// exploreBoth explores m with o, with its signer and with it hidden, and
// requires the signer to save encodings: half of them where a group has
// three members or more (six orders of them, against about two a state
// where the members differ).
func exploreBoth[S, A any](t *testing.T, name string, m Model[S, A], o Options) (bySig, every Result) {
	t.Helper()
	sg, ok := m.(MemberSigner[S])
	if !ok {
		t.Fatalf("%T is no MemberSigner", m)
	}
	var nSig, nEvery atomic.Int64
	var err error
	if bySig, err = Explore[S, A](signed[S, A]{unsigned[S, A]{m, &nSig}, sg}, o); err != nil || !bySig.Complete {
		t.Fatalf("%s by signature: %v, complete %t", name, err, bySig.Complete)
	}
	if every, err = Explore[S, A](unsigned[S, A]{m, &nEvery}, o); err != nil || !every.Complete {
		t.Fatalf("%s over every permutation: %v, complete %t", name, err, every.Complete)
	}
	t.Logf("%s: %d states, %d encodings by signature, %d over every permutation", name, bySig.Distinct, nSig.Load(), nEvery.Load())
	most := 0
	for _, g := range m.Interchangeable() {
		most = max(most, len(g))
	}
	if most == 0 {
		t.Fatalf("%s: no interchangeable members", name)
	}
	limit := nEvery.Load()
	if most >= 3 {
		limit /= 2
	}
	if nSig.Load() >= limit {
		t.Errorf("%s: %d encodings by signature, %d over every permutation: want fewer than %d", name, nSig.Load(), nEvery.Load(), limit)
	}
	return bySig, every
}

// TestSymmetry: with three interchangeable counters, symmetry reduction
// stores one state per multiset of values.
func TestSymmetry(t *testing.T) {
	m := counters{n: 3, max: 2, names: []string{"A", "B", "C"}}
	full := explore(t, m, Options{})
	sym := explore(t, m, Options{Symmetry: true})
	if full.Distinct != 27 {
		t.Errorf("without symmetry: %d states, want 27", full.Distinct)
	}
	// Multisets of 3 values from {0,1,2}: C(5,3) = 10.
	if sym.Distinct != 10 {
		t.Errorf("with symmetry: %d states, want 10", sym.Distinct)
	}
}

// TestSymmetryLimit: a symmetry reduction over at most MaxPermutations
// permutations (one group of eight members) is exact, and one over more
// is refused with an error that names the members and the count, before
// any permutation is made (twelve members have 12! = 479,001,600 of them:
// before the limit, check --members 12 --symmetry spent minutes and
// gigabytes making them).
func TestSymmetryLimit(t *testing.T) {
	names := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, string(rune('A'+i)))
		}
		return out
	}
	// Eight counters of 0 or 1: 256 states, 9 up to renaming (how many are 1).
	if r := explore(t, counters{n: 8, max: 1, names: names(8)}, Options{Symmetry: true, NoLiveness: true}); r.Distinct != 9 {
		t.Errorf("eight interchangeable counters: %d states, want 9", r.Distinct)
	}
	for _, n := range []int{9, 12, 40} {
		_, err := Explore[cstate, caction](counters{n: n, max: 1, names: names(n)}, Options{Symmetry: true})
		if want := fmt.Sprintf("(%s) have %d! permutations, more than 40320", strings.Join(names(n), " "), n); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d interchangeable counters: error %v, want one saying %q", n, err, want)
		}
	}
	for _, c := range []struct {
		groups [][]string
		want   string
		ok     bool
	}{
		{nil, "1", true},
		{[][]string{{"A", "B", "C"}, {"X", "Y"}}, "12", true},
		{[][]string{names(8)}, "40320", true},
		{[][]string{names(7), {"X", "Y"}}, "10080", true},
		{[][]string{names(8), {"X", "Y"}}, "8! x 2!", false},
		{[][]string{names(9)}, "9!", false},
	} {
		if got, ok := countPermutations(c.groups); got != c.want || ok != c.ok {
			t.Errorf("countPermutations(%q) = %s, %t; want %s, %t", c.groups, got, ok, c.want, c.ok)
		}
	}
}

// TestRenamings: the renamings a state is encoded under give each
// group's names to its members in the order of their signatures, and
// every order among members that tie: for signatures A:5 B:1 C:5 D:1
// E:1 and X:0 Y:0 (groups A to E and X, Y), the members sort as B D E |
// A C and X Y, and the renamings are the 3! x 2! x 2! = 24 orders of
// those ties, each renaming B, D and E to A, B and C in some order and A
// and C to D and E.
func TestRenamings(t *testing.T) {
	sigs := map[string]uint64{"A": 5, "B": 1, "C": 5, "D": 1, "E": 1}
	y, err := newSymmetry[cstate]([][]string{{"A", "B", "C", "D", "E"}, {"X", "Y"}}, sigFunc(func(name string) uint64 { return sigs[name] }))
	if err != nil {
		t.Fatal(err)
	}
	o := y.orders(cstate{})
	if want := [][2]int{{0, 3}, {3, 5}, {5, 7}}; !slices.Equal(o.ties, want) {
		t.Fatalf("ties %v, want %v", o.ties, want)
	}
	seen := map[string]bool{}
	o.each(func() {
		got := fmt.Sprint(o.p)
		if seen[got] {
			t.Errorf("renaming %s twice", got)
		}
		seen[got] = true
		image := map[string]string{}
		for _, name := range []string{"A", "B", "C", "D", "E", "X", "Y"} {
			image[name] = o.rename(name)
		}
		if low := []string{image["B"], image["D"], image["E"]}; !slices.Equal(slices.Sorted(slices.Values(low)), []string{"A", "B", "C"}) {
			t.Errorf("renaming %s: B, D and E to %v, want A, B and C", got, low)
		}
		if high := []string{image["A"], image["C"]}; !slices.Equal(slices.Sorted(slices.Values(high)), []string{"D", "E"}) {
			t.Errorf("renaming %s: A and C to %v, want D and E", got, high)
		}
	})
	if len(seen) != 24 {
		t.Errorf("%d renamings, want 24", len(seen))
	}
	y.release(o)
	// Without a signer every member ties: every permutation, the identity
	// among them.
	all, err := newSymmetry[cstate]([][]string{{"A", "B", "C"}, {"X", "Y"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, n, identity := all.orders(cstate{}), 0, false
	o.each(func() { n++; identity = identity || len(o.p) == 0 })
	if n != 12 || !identity {
		t.Errorf("no signer: %d renamings (identity among them: %t), want 12 with the identity", n, identity)
	}
	r := renamer(map[string]string{"A": "B", "B": "A", "x-y": "z@w", "x": "q"})
	for in, want := range map[string]string{
		"A": "B", "A-1": "B-1", "B@2": "A@2", "T-0": "T-0", "AB": "AB", "C": "C",
		// A name holding '-': its ids and addresses are read by the last
		// separator.
		"x-y": "z@w", "x-y-3": "z@w-3", "x-y@2": "z@w@2", "x-3": "q-3",
		// Derived strings end in a number: a process named A-x, or x-y
		// not moved, is not read as derived from A or x.
		"A-x": "A-x", "A@x": "A@x", "A-": "A-", "A-+1": "A-+1", "x-z": "x-z",
	} {
		if got := r(in); got != want {
			t.Errorf("rename %q = %q, want %q", in, got, want)
		}
	}
}
