package crosscheck

import (
	core "github.com/rebalance-ref/rebalance/model/world"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
)

// TestCrossCheckCatchesFaults shows that the cross-check can fail: the Go
// world of a configuration with one of the model's fault switches on no
// longer has TLC's graph (the specs have no faults), and the report says
// where the two part: the step the faulty Go world takes from a state both
// sides have to a state only Go has.
func TestCrossCheckCatchesFaults(t *testing.T) {
	for _, tc := range []struct {
		config, fault string
		// where is the variable the report must name, with TLC's value
		// and the faulty Go world's, where the two part.
		where string
		graph func() (*Graph, error)
	}{
		{"classic-eager-m2j1t1p2", "eager-no-revoke", "procs[1].owned: {} / {100, 101}", func() (*Graph, error) {
			c := ClassicConfigs["classic-eager-m2j1t1p2"]
			c.Options.Faults = classic.EagerNoRevoke
			cfg, err := classicworld.CheckWorld(c.Protocol, c.Options)
			if err != nil {
				return nil, err
			}
			m, err := classicworld.NewModel(cfg)
			if err != nil {
				return nil, err
			}
			state, err := ClassicStates(m)
			if err != nil {
				return nil, err
			}
			return FromModel[*classicworld.State, core.Action](m, state, ClassicAction, 0)
		}},
		{"nextgen-m2j1t1p2", "assign-before-release", "cmem[2].assigned: {} / {<<1, 1>>}", func() (*Graph, error) {
			o := NextGenConfigs["nextgen-m2j1t1p2"]
			o.Faults = nextgen.AssignBeforeRelease
			cfg, err := ngworld.CheckWorld(o)
			if err != nil {
				return nil, err
			}
			m, err := ngworld.NewModel(cfg)
			if err != nil {
				return nil, err
			}
			state, err := NextGenStates(m)
			if err != nil {
				return nil, err
			}
			return FromModel[*ngworld.State, core.Action](m, state, NextGenAction, 0)
		}},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			gold, err := ReadGolden(filepath.Join(goldenDir, tc.config+".json"))
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(filepath.Join(goldenDir, gold.Graph))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tlc, err := ReadGraph(f)
			if err != nil {
				t.Fatal(err)
			}
			faulty, err := tc.graph()
			if err != nil {
				t.Fatal(err)
			}
			if faulty.Summarize() == gold.Summary {
				t.Fatalf("%s with %s has TLC's graph: the cross-check cannot tell the fault", tc.config, tc.fault)
			}
			report := Compare("TLC", tlc, "Go", faulty, 2)
			for _, want := range []string{"steps Go takes from a common state to a state only Go has", tc.where} {
				if !strings.Contains(report, want) {
					t.Fatalf("the report does not say where the faulty Go world leaves TLC's graph (%q):\n%s", want, report)
				}
			}
			t.Logf("%s with %s:\n%s", tc.config, tc.fault, report)
		})
	}
}
