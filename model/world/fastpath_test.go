package world_test

import (
	"bytes"
	"fmt"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"reflect"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/script"
	"github.com/rebalance-ref/rebalance/model/sim"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestFastPathsAgree explores the default worlds, with delivery on and
// off, breadth-first as the checker does (each state encoded once it is
// made), and checks the model checker's fast paths against their
// references in every state met: the encoding with the recorded encodings
// of the coordinator and the processes replayed against one written
// afresh, and the partitions an application may process
// (World.consumable) against cannotConsume's verdict on each partition
// its member owns, and the delivery view against the filter of every
// partition; and that no step changes the state it is taken in (forks
// share nodes). It also requires recordings to have been there to
// replay, on states whose clock moved too.
func TestFastPathsAgree(t *testing.T) {
	for _, c := range []struct {
		records int
		on      []string
	}{{0, nil}, {1, []string{"T-0"}}, {1, nil}} {
		t.Run(fmt.Sprintf("nextgen/records=%d/on=%v", c.records, c.on), func(t *testing.T) {
			o := ngworld.DefaultCheckOptions()
			o.Records, o.RecordsOn = c.records, c.on
			m := nextgenModel(t, o)
			fastPathsAgree(t, m)
		})
		t.Run(fmt.Sprintf("cooperative/records=%d/on=%v", c.records, c.on), func(t *testing.T) {
			o := classicworld.DefaultCheckOptions()
			o.Records, o.RecordsOn = c.records, c.on
			m := classicModel(t, "cooperative", o)
			fastPathsAgree(t, m)
		})
		t.Run(fmt.Sprintf("mixed/records=%d/on=%v", c.records, c.on), func(t *testing.T) {
			o := core.DefaultCheckOptions[nextgen.Fault]()
			o.Records, o.RecordsOn, o.Drops, o.Migrations = c.records, c.on, 0, 1
			fastPathsAgree(t, mixedModel(t, o))
		})
	}
}

func fastPathsAgree[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, m *core.Model[M, T, C, P]) {
	t.Helper()
	var e, f canon.Encoder
	seen := map[string]bool{}
	frontier := m.Init()
	kept, keptMoved, procs, states := 0, 0, 0, 0
	for len(frontier) > 0 && len(seen) < 5000 {
		var next []*core.State[M, T, C, P]
		for _, s := range frontier {
			if want := core.DeliveryByFilter(s.W); !reflect.DeepEqual(s.W.Delivery(), want) || !reflect.DeepEqual(core.DeliveryShared(s.W), want) {
				t.Fatalf("delivery view %v (shared: %v), want %v", s.W.Delivery(), core.DeliveryShared(s.W), want)
			}
			for _, name := range s.W.Names() {
				if s.W.Records == 0 {
					break
				}
				if got, want := core.Consumable(s.W, name), core.ConsumableByReason(s.W, name); !slices.Equal(got, want) {
					t.Fatalf("%s may process %v, want %v\n%s", name, got, want, s.W.Ownership())
				}
			}
			f.Reset()
			core.EncodeAfresh(m, &f, s)
			before := bytes.Clone(f.Finish())
			for _, a := range m.Actions(s, nil) {
				t2, _ := m.Step(s, a)
				states++
				f.Reset()
				core.EncodeAfresh(m, &f, s)
				if !bytes.Equal(f.Finish(), before) {
					t.Fatalf("%s changed the state it was taken in", m.Line(s, a))
				}
				coord, n := core.Recorded(t2)
				procs += n
				if coord {
					kept++
					if t2.W.Now != s.W.Now {
						keptMoved++
					}
				}
				e.Reset()
				m.Encode(&e, t2)
				got := bytes.Clone(e.Finish())
				if !seen[string(got)] {
					// As the checker does for a state it finds new: its
					// successors replay what it records.
					m.Keep(&e, t2)
				}
				f.Reset()
				core.EncodeAfresh(m, &f, t2)
				if want := f.Finish(); !bytes.Equal(got, want) {
					t.Fatalf("after %s: the encoding with recordings replayed differs from the encoding afresh", m.Line(s, a))
				}
				// Without correlation ids (as FairKey writes messages),
				// the recordings made with them must not be replayed.
				e.Reset()
				e.SkipSeq = true
				m.Encode(&e, t2)
				f.Reset()
				f.SkipSeq = true
				core.EncodeAfresh(m, &f, t2)
				if !bytes.Equal(e.Finish(), f.Finish()) {
					t.Fatalf("after %s: without correlation ids, the encoding with recordings replayed differs from the encoding afresh", m.Line(s, a))
				}
				e.SkipSeq, f.SkipSeq = false, false
				if k := string(got); !seen[k] {
					seen[k] = true
					next = append(next, t2)
				}
			}
		}
		frontier = next
	}
	t.Logf("%d steps, %d with the coordinator's encoding recorded, %d of them with the clock moved; %d processes recorded", states, kept, keptMoved, procs)
	if kept == 0 || keptMoved == 0 || procs == 0 {
		t.Errorf("%d steps had the coordinator's encoding recorded, %d of them with the clock moved, and %d processes: want some of each", kept, keptMoved, procs)
	}
}

// TestConsumeSharesTheNode: processing a record copies the process but
// shares its member node with the world it was forked from, and a step of
// that member later in the same world copies the node first: the world
// forked from keeps its member as it was.
func TestConsumeSharesTheNode(t *testing.T) {
	s := ngworld.NewScript()
	for _, line := range []string{"group topics=(T:2)", "add-member A topics=(T)", "stabilize", "records 1"} {
		if err := script.RunLine(s.Run, line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	parent := s.W
	before := parent.Process("A").Node.String()
	w := parent.Fork()
	if err := w.Consume("A", spec.TP("T", 0)); err != nil {
		t.Fatal(err)
	}
	if w.Process("A") == parent.Process("A") || w.Process("A").Node != parent.Process("A").Node {
		t.Fatal("processing a record did not copy the process alone")
	}
	if err := w.Leave("A"); err != nil {
		t.Fatal(err)
	}
	if got := parent.Process("A").Node.String(); got != before {
		t.Fatalf("a step of the fork's member changed the parent's:\n%s\nwas\n%s", got, before)
	}
	if w.Process("A").Node.String() == before {
		t.Fatal("the fork's member did not leave")
	}
}

// TestTopicsEncodingFollowsTheMap: the metadata's encoding a frozen world
// keeps is replayed by its forks while they share the map, and not once
// a fork has new metadata: each writes what encoding its map afresh does.
func TestTopicsEncodingFollowsTheMap(t *testing.T) {
	s := ngworld.NewScript()
	for _, line := range []string{"group topics=(T:2,U:1)", "add-member A topics=(T,U)", "stabilize"} {
		if err := script.RunLine(s.Run, line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	fresh := func(topics spec.Topics) []byte {
		var e canon.Encoder
		e.Topics(topics)
		return e.Buf
	}
	var e canon.Encoder
	parent := s.W.Fork()
	core.EncodeTopicsFrozen(parent, &e)
	if !core.TopicsKept(parent) || !bytes.Equal(e.Buf, fresh(parent.Topics)) {
		t.Fatalf("kept %t, encoding %x, want %x", core.TopicsKept(parent), e.Buf, fresh(parent.Topics))
	}
	same := parent.Fork()
	e.Reset()
	core.EncodeTopicsFrozen(same, &e)
	if !bytes.Equal(e.Buf, fresh(parent.Topics)) {
		t.Fatalf("a fork sharing the metadata wrote %x, want %x", e.Buf, fresh(parent.Topics))
	}
	changed := parent.Fork()
	if err := changed.UpdateMetadata(spec.Topics{"T": 3, "U": 1}); err != nil {
		t.Fatal(err)
	}
	e.Reset()
	core.EncodeTopicsFrozen(changed, &e)
	if want := fresh(spec.Topics{"T": 3, "U": 1}); !bytes.Equal(e.Buf, want) {
		t.Fatalf("a fork with new metadata wrote %x, want %x", e.Buf, want)
	}
	e.Reset()
	e.Rename = func(s string) string { return s + "'" }
	core.EncodeTopicsFrozen(same, &e)
	e.Rename = nil
	want := canon.Encoder{Rename: func(s string) string { return s + "'" }}
	want.Topics(parent.Topics)
	if !bytes.Equal(e.Buf, want.Buf) {
		t.Fatalf("renamed: wrote %x, want %x", e.Buf, want.Buf)
	}
}
