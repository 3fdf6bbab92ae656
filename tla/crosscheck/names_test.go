package crosscheck

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/checker"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/tla/tlaval"
)

// TestProjectionIsNameFree: the projection numbers processes and topics
// by their order, not by their names, so a world whose members are named
// worker-1, worker-2, ... and whose topics are named orders and payments
// has the same TLA+ graph, state for state and step for step, as the
// world it was renamed from (members A, B, ..., topics T and U). Before
// issue 13's twenty-sixth round the projection read a process's index
// from its letter and panicked on any other name.
func TestProjectionIsNameFree(t *testing.T) {
	word := regexp.MustCompile(`\b[A-CTU]\b`)
	names := map[string]string{"A": "worker-1", "B": "worker-2", "C": "worker-3", "T": "orders", "U": "payments"}
	rename := func(lines []string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = word.ReplaceAllStringFunc(l, func(w string) string { return names[w] })
		}
		return out
	}
	for _, config := range []string{"classic-cooperative-m2j1t1p2c1l1d1", "classic-deferred-m3j1t1p2", "nextgen-m2j1t1p2c1l1d1", "nextgen-m3j1t1p2"} {
		t.Run(config, func(t *testing.T) {
			var cfg core.CheckConfig
			var err error
			family, _, _ := strings.Cut(config, "-")
			if family == "classic" {
				c := ClassicConfigs[config]
				cfg, err = classicworld.CheckWorld(c.Protocol, c.Options)
			} else {
				cfg, err = ngworld.CheckWorld(NextGenConfigs[config])
			}
			if err != nil {
				t.Fatal(err)
			}
			named := cfg
			named.Setup, named.Joiners = rename(cfg.Setup), rename(cfg.Joiners)
			if all := strings.Join(append(named.Setup, named.Joiners...), "\n"); word.MatchString(all) || !strings.Contains(all, "add-member worker-2 ") {
				t.Fatalf("the renaming missed a name: %q", all)
			}
			graph := func(cfg core.CheckConfig) *Graph {
				if family == "classic" {
					return configGraph(t, classicworld.NewModel, ClassicStates, ClassicAction, cfg)
				}
				return configGraph(t, ngworld.NewModel, NextGenStates, NextGenAction, cfg)
			}
			want, got := graph(cfg), graph(named)
			if d := Compare("A, B, ...", want, "worker-1, worker-2, ...", got, 5); d != "" {
				t.Errorf("the two namings project differently:\n%s", d)
			}
			t.Logf("%d states, %d transitions", len(want.States), len(want.Edges))
		})
	}
}

// configGraph builds the model of cfg with newModel and returns the graph
// of its projection (states, action); it fails t on an error.
func configGraph[M checker.Model[S, core.Action], S any](t *testing.T, newModel func(core.CheckConfig) (M, error),
	states func(M) (func(S) tlaval.Value, error), action func(S, core.Action) string, cfg core.CheckConfig) *Graph {
	t.Helper()
	m, err := newModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := FromModel(m, mustStates(t, states, m), action, 0)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestNewIndices: processes and topics are numbered in name order, and
// names whose member ids would sort otherwise than the specs' numbers are
// refused.
func TestNewIndices(t *testing.T) {
	for _, c := range []struct {
		procs, topics []string
		err           string // a part of the error, "" for none
	}{
		{[]string{"A", "B", "C"}, []string{"T", "U"}, ""},
		{[]string{"worker-1", "worker-2", "worker-10"}, []string{"orders"}, "sorted"}, // worker-10 sorts before worker-2
		{[]string{"worker-01", "worker-02", "worker-10"}, []string{"orders"}, ""},
		{[]string{"w", "w-x"}, nil, ""},   // w-9 < w-x-1
		{[]string{"w", "w-"}, nil, "w-9"}, // w--1 sorts before w-1
		{[]string{"w", "w!"}, nil, "w-9"}, // '!' sorts before '-'
		{[]string{"B", "A"}, nil, "sorted"},
		{[]string{"A", "A"}, nil, "sorted"},
		{[]string{"A"}, []string{"U", "T"}, "sorted"},
		{make100(), nil, "at most 99"},
	} {
		_, err := NewIndices(c.procs, c.topics)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("NewIndices(%q, %q) = %v, want an error naming %q (none if empty)", c.procs, c.topics, err, c.err)
		}
	}
	ix, err := NewIndices([]string{"worker-1", "worker-2"}, []string{"orders", "payments"})
	if err != nil {
		t.Fatal(err)
	}
	if n, k := ix.member("worker-2-3"); n != 2 || k != 3 || ix.process("worker-1") != 1 || ix.topic("payments") != 2 {
		t.Errorf("worker-2-3 = process %d counter %d; worker-1 = %d; payments = %d", n, k, ix.process("worker-1"), ix.topic("payments"))
	}
	for _, bad := range []func(){
		func() { ix.member("worker-3-1") }, func() { ix.member("worker-1-10") }, func() { ix.member("worker-1-0") },
		func() { ix.member("worker-1") }, func() { ix.process("A") }, func() { ix.topic("T") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("an unknown process, topic or member id did not panic")
				}
			}()
			bad()
		}()
	}
}

func make100() []string {
	var names []string
	for i := range 100 {
		names = append(names, string(rune('A'+i/10))+string(rune('0'+i%10)))
	}
	return names
}
