package policy

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// connectUniverse draws 1-3 connectors c0, c1, ... of 0-4 tasks each, all
// with the same number when equal.
func connectUniverse(t *rapid.T, equal bool) spec.Topics {
	topics := spec.Topics{}
	tasks := rapid.IntRange(0, 4).Draw(t, "tasks")
	for i := range rapid.IntRange(1, 3).Draw(t, "connectors") {
		if !equal {
			tasks = rapid.IntRange(0, 4).Draw(t, "tasks")
		}
		topics.AddConnector(fmt.Sprintf("c%d", i), int32(tasks))
	}
	return topics
}

// joinInput is the round in which joining workers join a worker "w0"
// that runs everything of topics, as the leader with memory of the last
// round.
func joinInput(topics spec.Topics, joining int) classic.LeaderInput {
	names := topics.Connectors()
	all := topics.Resources(names...)
	in := classic.LeaderInput{
		Now: 1000, Generation: 5, LastCompletedGeneration: 4, Topics: topics, Leader: "w0",
		Members: []classic.Joined{{ID: "w0", Subscription: classic.Subscription{Topics: names, Owned: all, Generation: 4, Leader: "w0"}}},
		Memory:  classic.LeaderMemory{Generation: 4, Members: []spec.MemberID{"w0"}, Assignment: spec.Assignment{"w0": all}},
	}
	for i := range joining {
		in.Members = append(in.Members, classic.Joined{ID: spec.MemberID(fmt.Sprintf("w%d", i+1)), Subscription: classic.Subscription{Topics: names, Generation: spec.NoGeneration}})
	}
	return in
}

// TestConnectorSpread (KAFKA-17049): one worker runs every connector and
// task and a second worker joins; once the group is quiet, each
// connector's tasks are spread over the two within one, and connectors and
// tasks are each balanced (spec.CheckConnectBalance). Deferred lets the
// connectors take turns, as Kafka's proposed fix does, which spreads
// connectors of equal task counts (KAFKA-17049's report); Incremental
// takes each step from the connector spread worst, which spreads any
// counts.
//
// Not claimed: with two or more workers joining at once, or connectors of
// unequal task counts under Deferred, the spread is not guaranteed: the
// revoked tasks go out least loaded by total, whatever their connector
// (Connect's assignTasks), and turns take as many tasks of a small
// connector as of a large one (rapid finds both at once without these
// restrictions).
func TestConnectorSpread(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		moves := rapid.IntRange(1, 3).Draw(t, "max-moves")
		for _, c := range []struct {
			p     classic.Protocol
			equal bool
		}{
			{Deferred(DeferredConfig{MaxDelay: propMaxDelay}), true},
			{Incremental(IncrementalConfig{MaxDelay: propMaxDelay, MaxMovesPerRound: moves, StepDelay: 1000}), false},
		} {
			topics := connectUniverse(t, c.equal)
			_, v := converge(t, c.p, joinInput(topics, 1), 40)
			for _, vs := range [][]spec.Violation{spec.CheckState(v), spec.CheckCoverage(v), spec.CheckConnectBalance(v)} {
				if len(vs) > 0 {
					t.Fatalf("%s ends with %v\n%s", protoName(c.p), vs, v)
				}
			}
		}
	})
}

// TestConnectorSpreadFault: with revocation-ignores-connectors (Kafka
// trunk's rule), two connectors of two tasks on one worker and a second
// worker joining end with each connector on one worker, as KAFKA-17049
// reports; without it, one task of each moves.
func TestConnectorSpreadFault(t *testing.T) {
	topics := spec.Topics{}.AddConnector("c", 2).AddConnector("d", 2)
	for _, p := range []classic.Protocol{Deferred(DeferredConfig{}), Incremental(IncrementalConfig{})} {
		for _, c := range []struct {
			faults classic.Faults
			want   string
		}{
			{0, ""},
			{classic.RevocationIgnoresConnectors, "connector c: w0 runs 2 of its tasks and w1 runs 0"},
		} {
			g := newGroup(t, p, topics)
			g.faults = c.faults
			g.checkLaws = c.faults == 0
			g.leader = "w0"
			g.join("w0", []string{"c", "d"}, "{}")
			g.round()
			g.join("w1", []string{"c", "d"}, "{}")
			for range 12 {
				g.now += 1000
				g.round()
			}
			v := spec.View{Topics: topics}
			for _, id := range []spec.MemberID{"w0", "w1"} {
				v.Members = append(v.Members, spec.MemberView{Name: string(id), ID: id, Current: true, Subscription: []string{"c", "d"}, Owns: g.m[id].owned})
			}
			got := ""
			for _, x := range spec.CheckConnectBalance(v) {
				got += x.Detail + "\n"
			}
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("%s with faults %s: %s\ngot %q, want %q", p.Name(), c.faults, v, got, c.want)
			}
		}
	}
}

// TestSpreadByConnector: the revocation order lets the connectors take
// turns (Deferred) or takes from the connector spread worst (Incremental);
// other resources keep their order (Incremental: after the tasks).
func TestSpreadByConnector(t *testing.T) {
	topics := spec.Topics{"p": 3}.AddConnector("c", 3).AddConnector("d", 1)
	parse := func(s string) []spec.Resource {
		var out []spec.Resource
		for _, f := range strings.Fields(s) {
			r, err := spec.ParseResource(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	print := func(rs []spec.Resource) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.String())
		}
		return strings.Join(out, " ")
	}
	// gaps: d is spread worse than c.
	gaps := func(c string) int { return map[string]int{"c": 1, "d": 3}[c] }
	for _, c := range []struct {
		in   string
		gap  func(string) int
		want string
	}{
		{"p-2 p-1 p-0", nil, "p-2 p-1 p-0"},
		{"d-0 c-2 c-1 c-0", nil, "d-0 c-2 c-1 c-0"},
		{"p-1 d-0 c-2 c-1 c-0 p-0", nil, "p-1 d-0 c-2 p-0 c-1 c-0"},
		{"c-2 c-1 c-0 d-0", gaps, "d-0 c-2 c-1 c-0"},
		{"c-2 d-0", gaps, "d-0 c-2"}, // one task per connector: still by gap
		{"p-0 c-2 c-1 d-0", func(string) int { return 0 }, "c-2 d-0 c-1 p-0"},
		{"d/connector c/connector", nil, "d/connector c/connector"},
		// No connector's tasks: xs's own order, with a gap too.
		{"p-2 p-0 p-1", gaps, "p-2 p-0 p-1"},
		{"p-1 c/connector p-0", gaps, "p-1 c/connector p-0"},
	} {
		if got := print(spreadByConnector(parse(c.in), topics, c.gap)); got != c.want {
			t.Errorf("spreadByConnector(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
