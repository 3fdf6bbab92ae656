package world_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/sim"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// TestFastPathsAgree explores the default worlds, with delivery on and
// off, breadth-first as the checker does (each state encoded once it is
// made), and checks the model checker's fast paths against their
// references in every state met: the encoding with the coordinator's kept
// encoding replayed against one written afresh, and the partitions an
// application may process (World.consumable) against cannotConsume's
// verdict on each partition its member owns. It also requires the kept
// encodings to have been used, on states whose clock moved too.
func TestFastPathsAgree(t *testing.T) {
	for _, records := range []int{0, 1} {
		t.Run(fmt.Sprintf("nextgen/records=%d", records), func(t *testing.T) {
			o := ngworld.DefaultCheckOptions()
			o.Records = records
			cfg, err := ngworld.CheckWorld(o)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ngworld.NewModel(cfg)
			if err != nil {
				t.Fatal(err)
			}
			fastPathsAgree(t, m)
		})
		t.Run(fmt.Sprintf("cooperative/records=%d", records), func(t *testing.T) {
			o := classicworld.DefaultCheckOptions()
			o.Records = records
			cfg, err := classicworld.CheckWorld("cooperative", o)
			if err != nil {
				t.Fatal(err)
			}
			m, err := classicworld.NewModel(cfg)
			if err != nil {
				t.Fatal(err)
			}
			fastPathsAgree(t, m)
		})
	}
}

func fastPathsAgree[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, m *core.Model[M, T, C, P]) {
	t.Helper()
	var e, f canon.Encoder
	seen := map[string]bool{}
	frontier := m.Init()
	kept, keptMoved, states := 0, 0, 0
	for len(frontier) > 0 && len(seen) < 5000 {
		var next []*core.State[M, T, C, P]
		for _, s := range frontier {
			for _, name := range s.W.Names() {
				if s.W.Records == 0 {
					break
				}
				if got, want := core.Consumable(s.W, name), core.ConsumableByReason(s.W, name); !slices.Equal(got, want) {
					t.Fatalf("%s may process %v, want %v\n%s", name, got, want, s.W.Ownership())
				}
			}
			for _, a := range m.Actions(s, nil) {
				t2, _ := m.Step(s, a)
				states++
				if core.KeepsCoordinatorEncoding(t2) {
					kept++
					if t2.W.Now != s.W.Now {
						keptMoved++
					}
				}
				e.Reset()
				m.Encode(&e, t2)
				got := e.Finish()
				f.Reset()
				core.EncodeAfresh(m, &f, t2)
				if want := f.Finish(); !bytes.Equal(got, want) {
					t.Fatalf("after %s: the encoding with the coordinator's kept encoding differs from the encoding afresh", m.Line(s, a))
				}
				if k := string(got); !seen[k] {
					seen[k] = true
					next = append(next, t2)
				}
			}
		}
		frontier = next
	}
	t.Logf("%d steps, %d with the coordinator's encoding kept, %d of them with the clock moved", states, kept, keptMoved)
	if kept == 0 || keptMoved == 0 {
		t.Errorf("%d steps kept the coordinator's encoding, %d of them with the clock moved: want some of each", kept, keptMoved)
	}
}
