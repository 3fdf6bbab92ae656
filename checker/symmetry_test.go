package checker

import (
	"slices"
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
		name           string
		sig            func(s cstate, i int) uint64
		states, merged int64
	}{
		// Four counters of 0 to 2: 81 states, 15 multisets.
		{"by value", func(s cstate, i int) uint64 { return uint64(s.c[i]) }, 81, 15},
		{"by name", func(_ cstate, i int) uint64 { return uint64(i) }, 81, 81},
		{"by value, reversed", func(s cstate, i int) uint64 { return uint64(9 - s.c[i]) }, 81, 15},
	} {
		var plain, full, signed atomic.Int64
		base := counters{n: 4, max: 2, names: names}
		base.encodes = &plain
		if r := explore(t, base, Options{NoLiveness: true}); r.Distinct != c.states {
			t.Fatalf("%s: without symmetry %d states, want %d", c.name, r.Distinct, c.states)
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
	if limit := map[bool]int64{false: nEvery.Load(), true: nEvery.Load() / 2}[most >= 3]; nSig.Load() >= limit {
		t.Errorf("%s: %d encodings by signature, %d over every permutation: want fewer than %d", name, nSig.Load(), nEvery.Load(), limit)
	}
	return bySig, every
}
