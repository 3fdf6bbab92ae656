package world_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/classic"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/mixed"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/sim"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// TestEncodingDeterminesSuccessors checks the property the checker's
// counts rest on: two states with one encoding have the same successors'
// encodings (as a set). Were it broken, which of two such states a
// breadth-first search meets first would decide what it explores, and the
// count would vary with the workers' interleaving. It explores small
// worlds, keeps the first state of each encoding, and compares the
// successors of every later state with the same encoding.
//
// These worlds were chosen because the encoding once broke the property
// in each of them: it numbered correlation ids across all nodes, so
// whether two members' independent counters happened to coincide was part
// of the encoding (the default incremental world gave 377,420 or 377,421
// states with 2 workers); canon.Encoder.SeqSpace numbers them per member.
func TestEncodingDeterminesSuccessors(t *testing.T) {
	for _, p := range []string{"eager", "incremental", "cooperative+records", "cooperative+records=2"} {
		t.Run(p, func(t *testing.T) {
			o := classicworld.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1}
			if protocol, n, ok := strings.Cut(p, "+records"); ok {
				// Delivery's state (positions, commits, counts) is
				// encoded too. With one record an offset is 1 wherever
				// there is one; with two its value tells states apart.
				p, o.Records, o.Partitions, o.Drops = protocol, 1, 1, 0
				if n == "=2" {
					o.Records = 2
				}
			}
			m := classicModel(t, p, o)
			successorsDetermined(t, m)
		})
	}
	for _, records := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("nextgen/records=%d", records), func(t *testing.T) {
			o := ngworld.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1, Records: records}
			if records > 0 {
				o.Partitions, o.Drops = 1, 0
			}
			m := nextgenModel(t, o)
			successorsDetermined(t, m)
		})
	}
	// Application state that only some worlds have: an overrun revocation
	// (Process.Overrun: the application works on past the rebalance
	// timeout) and offsets set aside for a later commit
	// (Process.unsent, with CommitAfterRelease). An encoding that dropped
	// either passed every other test.
	for _, c := range []struct {
		name string
		edit func(*ngworld.CheckOptions)
	}{
		{"overruns", func(o *ngworld.CheckOptions) { o.Overruns = 1 }},
		{"commit-after-release", func(o *ngworld.CheckOptions) { o.DeliveryFaults = core.CommitAfterRelease }},
	} {
		t.Run("nextgen/records=1+"+c.name, func(t *testing.T) {
			o := ngworld.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Leaves: 1, Records: 1}
			c.edit(&o)
			m := nextgenModel(t, o)
			successorsDetermined(t, m)
		})
	}
}

func successorsDetermined[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, m *core.Model[M, T, C, P]) {
	t.Helper()
	type state = *core.State[M, T, C, P]
	successors := func(s state) []string {
		var out []string
		for _, a := range m.Actions(s, nil) {
			u, _ := m.Step(s, a)
			out = append(out, string(encode(m, u)))
		}
		slices.Sort(out)
		return out
	}
	first := map[string]state{}
	frontier := m.Init()
	for _, s := range frontier {
		first[string(encode(m, s))] = s
	}
	compared := 0
	for len(frontier) > 0 {
		var next []state
		for _, s := range frontier {
			for _, a := range m.Actions(s, nil) {
				u, _ := m.Step(s, a)
				k := string(encode(m, u))
				f, ok := first[k]
				if !ok {
					first[k] = u
					next = append(next, u)
					continue
				}
				compared++
				if !slices.Equal(successors(f), successors(u)) {
					t.Fatalf("two states with one encoding have different successors; the second reached by %q", m.Line(s, a))
				}
			}
		}
		frontier = next
	}
	t.Logf("%d states, %d states compared with the first of their encoding", len(first), compared)
}

// TestCoincidingSeqsOfTwoMembers is the first pair of states the default
// incremental world merged that had different successors. In both, A has
// crashed with a JoinGroupResponse still in flight to it, and B waits for
// the response to its JoinGroup: in the first B's id is 4 and A's 6, in
// the second (a heartbeat round later, that heartbeat lost) B's is 5 and
// A's 6. The states behave alike and encode alike; B's SyncGroup then
// takes B's next id, 5 in the first, 6 in the second, equal to the id of
// A's message only there. No node compares two members' ids, so the
// successors behave alike too, and must encode alike: ids are numbered per
// member (canon.Encoder.SeqSpace), not across the state.
func TestCoincidingSeqsOfTwoMembers(t *testing.T) {
	m := classicModel(t, "incremental", classicworld.DefaultCheckOptions())
	join := "add-member C protocols=(incremental) topics=(T,U) session=2000 heartbeat=1000 rebalance=3000 delay=3000 moves=1 step-delay=1000"
	replay := func(lines ...string) *classicworld.State {
		s := m.Init()[0]
		for _, l := range lines {
			i := slices.IndexFunc(m.Actions(s, nil), func(a core.Action) bool { return m.Line(s, a) == l })
			if i < 0 {
				t.Fatalf("no action %q", l)
			}
			s, _ = m.Step(s, m.Actions(s, nil)[i])
		}
		return s
	}
	a := replay(join, "deliver 0", "fire", "deliver 0", "deliver 0", "deliver 0", "crash A", "leave C", "fire", "deliver 0", "deliver 0", "deliver 0", "drop 2")
	b := replay(join, "deliver 0", "fire", "deliver 0", "deliver 0", "deliver 0", "fire", "drop 0", "crash A", "leave C", "fire", "deliver 0", "deliver 0", "deliver 0", "deliver 2")
	if string(encode(m, a)) != string(encode(m, b)) {
		t.Fatal("the two states encode differently")
	}
	// B's JoinGroupResponse is message 1 in both.
	a1, b1 := replay1(t, m, a, "deliver 1"), replay1(t, m, b, "deliver 1")
	if string(encode(m, a1)) != string(encode(m, b1)) {
		t.Errorf("after B's JoinGroupResponse the states encode differently:\n%s\n%s", a1.W.InFlight, b1.W.InFlight)
	}
}

func replay1(t *testing.T, m *classicworld.Model, s *classicworld.State, line string) *classicworld.State {
	t.Helper()
	for _, a := range m.Actions(s, nil) {
		if m.Line(s, a) == line {
			u, _ := m.Step(s, a)
			return u
		}
	}
	t.Fatalf("no action %q", line)
	return nil
}

// TestEncodeConfigWritesTheSubscription: each family's EncodeConfig tells
// apart two configurations that differ only in their subscription, in
// content or order. A crashed process keeps the subscription it last had
// for its restart, and nothing else of the state may hold it then (its
// member is gone, the coordinator forgets it when its session expires),
// so the model checker merges two states that differ there unless the
// configuration's encoding writes it.
func TestEncodeConfigWritesTheSubscription(t *testing.T) {
	subscriptions := [][]string{{"T"}, {"T", "U"}, {"U", "T"}, {"U"}}
	distinct := func(t *testing.T, encode func(e *canon.Encoder, topics []string)) {
		seen := map[string][]string{}
		for _, topics := range subscriptions {
			e := &canon.Encoder{}
			encode(e, topics)
			k := string(e.Finish())
			if other, ok := seen[k]; ok {
				t.Fatalf("subscriptions %v and %v encode alike", other, topics)
			}
			seen[k] = topics
		}
	}
	t.Run("classic", func(t *testing.T) {
		distinct(t, func(e *canon.Encoder, topics []string) {
			classicworld.Family{}.EncodeConfig(e, classic.MemberConfig{Name: "A", Topics: topics})
		})
	})
	t.Run("nextgen", func(t *testing.T) {
		distinct(t, func(e *canon.Encoder, topics []string) {
			ngworld.Family{}.EncodeConfig(e, nextgen.MemberConfig{Name: "A", Topics: topics})
		})
	})
	t.Run("mixed", func(t *testing.T) {
		distinct(t, func(e *canon.Encoder, topics []string) {
			cfg := mixed.MemberConfig{Protocol: mixed.ConsumerProtocol, Classic: classic.MemberConfig{Name: "A", Topics: topics}, Consumer: nextgen.MemberConfig{Name: "A", Topics: topics}}
			mixed.Family{}.EncodeConfig(e, cfg)
		})
	})
}
