package crosscheck

import (
	"testing"

	"github.com/rebalance-ref/rebalance/checker"
	"github.com/rebalance-ref/rebalance/model/canon"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/tla/tlaval"
)

// TestMergedStatesDifferOnlyInSeqs backs the projections' claim about what
// they drop where a configuration has more Go states than TLA+ states: the
// checker's encoding numbers correlation ids across the whole state, so two
// states that differ only in whether one member's awaited id happens to
// equal another member's are two Go states; no node compares two members'
// ids, and the spec (like the projection) keeps only whether each message
// carries the id its member awaits. Every pair of Go states with one image
// must therefore encode alike once ids are left out (canon SkipSeq); the
// configurations here are ones where such pairs exist.
func TestMergedStatesDifferOnlyInSeqs(t *testing.T) {
	for _, tc := range []struct {
		config string
		run    func(t *testing.T) (states, images int)
	}{
		{"classic-eager-m2j1t1p2c1l1d1", func(t *testing.T) (int, int) {
			m, err := ClassicModel("classic-eager-m2j1t1p2c1l1d1")
			if err != nil {
				t.Fatal(err)
			}
			state := func(s *classicworld.State) tlaval.Value { return ClassicState(2, s) }
			return checkMerged[*classicworld.State, classicworld.Action](t, m, state)
		}},
		{"classic-deferred-m2j1t1p2c1l1d1", func(t *testing.T) (int, int) {
			m, err := ClassicModel("classic-deferred-m2j1t1p2c1l1d1")
			if err != nil {
				t.Fatal(err)
			}
			state := func(s *classicworld.State) tlaval.Value { return ClassicState(2, s) }
			return checkMerged[*classicworld.State, classicworld.Action](t, m, state)
		}},
		{"nextgen-m3j1t2p2c1l1d1", func(t *testing.T) (int, int) {
			m, err := NextGenModel("nextgen-m3j1t2p2c1l1d1")
			if err != nil {
				t.Fatal(err)
			}
			state := func(s *ngworld.State) tlaval.Value { return NextGenState(3, s) }
			return checkMerged[*ngworld.State, ngworld.Action](t, m, state)
		}},
	} {
		t.Run(tc.config, func(t *testing.T) {
			states, images := tc.run(t)
			if states == images {
				t.Fatalf("%d Go states, as many images: no merged pair to check here; pick another configuration", states)
			}
			t.Logf("%d Go states, %d images: the %d merged differ only in their correlation ids", states, images, states-images)
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
