package crosscheck

import (
	core "github.com/rebalance-ref/rebalance/model/world"
	"testing"

	"github.com/rebalance-ref/rebalance/checker"
	"github.com/rebalance-ref/rebalance/model/canon"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/tla/tlaval"
)

// TestEveryGoStateHasItsOwnImage backs the projections' claim that they
// drop nothing the checker keeps, in worlds where two members' correlation
// ids coincide on one path and not on another that reaches the same image.
// The checker's encoding numbers correlation ids per member
// (canon.Encoder.SeqSpace): no node compares two members' ids, and the
// spec (like the projection) keeps only whether each message carries the
// id its member awaits. So two Go states that differ only in such a
// coincidence are one state, and every Go state has its own image. Before
// ids were numbered per member, these worlds had more Go states than
// images: 2,634 against 2,630 for the first, 8,348 against 8,333 for the
// second, 104,574 against 103,815 for the third, and 3,511 against 3,461
// for the last, which has no lost message (and no TLC configuration):
// four members and one crash. Every pair of Go states with one image must
// also encode alike once ids are left out (canon SkipSeq).
func TestEveryGoStateHasItsOwnImage(t *testing.T) {
	for _, tc := range []struct {
		config string
		run    func(t *testing.T) (states, images int)
	}{
		{"classic-eager-m2j1t1p2c1l1d1", func(t *testing.T) (int, int) {
			m, err := ClassicModel("classic-eager-m2j1t1p2c1l1d1")
			if err != nil {
				t.Fatal(err)
			}
			state := mustStates(t, ClassicStates, m)
			return checkMerged[*classicworld.State, core.Action](t, m, state)
		}},
		{"classic-deferred-m2j1t1p2c1l1d1", func(t *testing.T) (int, int) {
			m, err := ClassicModel("classic-deferred-m2j1t1p2c1l1d1")
			if err != nil {
				t.Fatal(err)
			}
			state := mustStates(t, ClassicStates, m)
			return checkMerged[*classicworld.State, core.Action](t, m, state)
		}},
		{"nextgen-m3j1t2p2c1l1d1", func(t *testing.T) (int, int) {
			m, err := NextGenModel("nextgen-m3j1t2p2c1l1d1")
			if err != nil {
				t.Fatal(err)
			}
			state := mustStates(t, NextGenStates, m)
			return checkMerged[*ngworld.State, core.Action](t, m, state)
		}},
		{"classic-eager-m4j1t1p2c1-go-only", func(t *testing.T) (int, int) {
			o := classicworld.CheckOptions{Members: 4, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1}
			cfg, err := classicworld.CheckWorld("eager", o)
			if err != nil {
				t.Fatal(err)
			}
			m, err := classicworld.NewModel(cfg)
			if err != nil {
				t.Fatal(err)
			}
			state := mustStates(t, ClassicStates, m)
			return checkMerged[*classicworld.State, core.Action](t, m, state)
		}},
	} {
		t.Run(tc.config, func(t *testing.T) {
			states, images := tc.run(t)
			if states != images {
				t.Fatalf("%d Go states, %d images: the checker tells apart states that differ only in their correlation ids", states, images)
			}
		})
	}
}

// checkMerged explores m and fails t if two Go states with one image
// encode differently without their correlation ids. It returns the number
// of Go states and of images.
func checkMerged[S, A any](t *testing.T, m checker.Model[S, A], state func(S) tlaval.Value) (int, int) {
	t.Helper()
	encode := func(s S, skipSeq bool) string {
		enc := &canon.Encoder{SkipSeq: skipSeq}
		m.Encode(enc, s)
		return string(enc.Finish())
	}
	seen := map[string]bool{}
	image := map[string]string{} // image -> the first state's encoding without ids
	frontier := m.Init()
	for _, s := range frontier {
		seen[encode(s, false)] = true
	}
	var acts []A
	for len(frontier) > 0 {
		var next []S
		for _, s := range frontier {
			text, bare := state(s).String(), encode(s, true)
			if first, ok := image[text]; !ok {
				image[text] = bare
			} else if first != bare {
				t.Fatalf("two Go states with the image %s differ beyond their correlation ids", text)
			}
			acts = m.Actions(s, acts[:0])
			for _, a := range acts {
				u, _ := m.Step(s, a)
				if k := encode(u, false); !seen[k] {
					seen[k] = true
					next = append(next, u)
				}
			}
		}
		frontier = next
	}
	return len(seen), len(image)
}

// mustStates is states(m), the projection of m's states; it fails t when
// m's names cannot be numbered.
func mustStates[M, S any](t *testing.T, states func(M) (func(S) tlaval.Value, error), m M) func(S) tlaval.Value {
	t.Helper()
	state, err := states(m)
	if err != nil {
		t.Fatal(err)
	}
	return state
}
