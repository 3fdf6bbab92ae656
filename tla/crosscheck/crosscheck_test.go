package crosscheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/checker"
)

const (
	goldenDir  = "../golden"
	configDir  = "../configs"
	specDir    = ".."
	reportSize = 5 // states and steps a mismatch report shows per kind
)

// goldens returns the committed golden files, each with its path.
func goldens(t *testing.T) map[string]Golden {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Golden{}
	for _, p := range paths {
		g, err := ReadGolden(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.TrimSuffix(filepath.Base(p), ".json"); g.Config != want {
			t.Fatalf("%s holds config %q", p, g.Config)
		}
		out[g.Config] = g
	}
	return out
}

// TestGoldenFilesAreCurrent checks that every configuration has a golden
// file, that every golden file was made by TLC from the committed
// configuration and specs (their digests), passed TLC's checks, and holds
// counts that agree with each other; and that the minimum is met:
// three classic protocols and two next-gen configurations.
func TestGoldenFilesAreCurrent(t *testing.T) {
	gs := goldens(t)
	cfgs, err := filepath.Glob(filepath.Join(configDir, "*.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range cfgs {
		name := strings.TrimSuffix(filepath.Base(c), ".cfg")
		seen[name] = true
		g, ok := gs[name]
		if !ok {
			t.Errorf("%s has no golden file: run tla/tlc.sh %s", c, name)
			continue
		}
		if d, err := FileDigest(c); err != nil || d != g.ConfigSHA256 {
			t.Errorf("%s changed since its golden file was made (%v): run tla/tlc.sh %s", c, err, name)
		}
		files, err := SpecFiles(specDir, name)
		if err != nil {
			t.Fatal(err)
		}
		if d, err := FileDigest(files...); err != nil || d != g.SpecSHA256 {
			t.Errorf("%s: the specs %v changed since its golden file was made (%v): run tla/tlc.sh %s", name, files, err, name)
		}
		if !strings.HasPrefix(g.TLCVersion, "TLC2 Version ") || g.Checked != "no error" || len(g.Invariants) == 0 || len(g.Properties) == 0 {
			t.Errorf("%s: not a passing TLC run with invariants and properties: %q %q %v %v", name, g.TLCVersion, g.Checked, g.Invariants, g.Properties)
		}
		if g.TLCDistinct != g.States || g.TLCDepth < g.Diameter || g.TLCGenerated < g.Transitions {
			t.Errorf("%s: TLC's counts (%d distinct, %d generated, depth %d) disagree with its graph (%d states, %d transitions, diameter %d)",
				name, g.TLCDistinct, g.TLCGenerated, g.TLCDepth, g.States, g.Transitions, g.Diameter)
		}
	}
	for name := range gs {
		if !seen[name] {
			t.Errorf("golden file %s.json has no configuration in %s", name, configDir)
		}
	}
	protocols := map[string]bool{}
	nextgen := 0
	for name := range gs {
		if p, ok := strings.CutPrefix(name, "classic-"); ok {
			protocols[strings.Split(p, "-")[0]] = true
		} else {
			nextgen++
		}
	}
	for _, p := range []string{"eager", "cooperative", "deferred"} {
		if !protocols[p] {
			t.Errorf("no golden file of a classic-%s configuration", p)
		}
	}
	if nextgen < 2 {
		t.Errorf("%d next-gen golden files, want at least 2", nextgen)
	}
}

// TestGoMatchesTLC is the cross-check: for every golden file, the Go
// closed world of the same configuration, mapped to the spec's variables
// and actions, has exactly TLC's graph: the same initial states, states and
// transitions (their counts, diameter and digests). On a mismatch it
// prints where the graphs part, from the committed graph file.
func TestGoMatchesTLC(t *testing.T) {
	gs := goldens(t)
	if len(gs) == 0 {
		t.Fatal("no golden files")
	}
	for _, name := range sortedNames(gs) {
		gold := gs[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel() // the default-bounds worlds take a minute or more each
			g, err := GoGraph(name)
			if err != nil {
				t.Fatal(err)
			}
			if got := g.Summarize(); got != gold.Summary {
				t.Errorf("Go's graph differs from TLC's:\n  TLC %+v\n  Go  %+v\n%s", gold.Summary, got, explain(t, gold, g))
			}
		})
	}
}

// explain compares g with the committed TLC graph of gold.
func explain(t *testing.T, gold Golden, g *Graph) string {
	t.Helper()
	if gold.Graph == "" {
		return "(the TLC graph of this configuration is too large to commit; run tla/tlc.sh and compare by hand)"
	}
	f, err := os.Open(filepath.Join(goldenDir, gold.Graph))
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	tlc, err := ReadGraph(f)
	if err != nil {
		return err.Error()
	}
	return Compare("TLC", tlc, "Go", g, reportSize)
}

// TestProjectionKeepsEveryState checks that the projection keeps
// everything that tells two Go states apart: the Go checker's count of
// distinct states (its exact encoding, one worker) equals the number of
// images. The configurations with a lost message are ones where two
// members' correlation ids coincide on one path and not on another to the
// same image; the checker numbers ids per member, so that makes no second
// Go state (see TestEveryGoStateHasItsOwnImage and docs/tla.md).
func TestProjectionKeepsEveryState(t *testing.T) {
	for _, config := range []string{"classic-eager-m2j1t1p2c1l1", "classic-eager-m2j1t1p2c1l1d1", "classic-cooperative-m3j1t1p2", "classic-cooperative-m2j1t1p2c1l1d1", "classic-deferred-m2j1t1p2c1l1", "classic-deferred-m2j1t1p2c1l1d1", "classic-incremental-m2j1t1p2c1l1", "classic-incremental-m2j1t1p2c1l1d1", "nextgen-m2j1t1p2c1l1", "nextgen-m2j1t1p2c1l1d1", "nextgen-m3j1t1p2", "nextgen-m4j1t1p2"} {
		t.Run(config, func(t *testing.T) {
			g, err := GoGraph(config)
			if err != nil {
				t.Fatal(err)
			}
			var res checker.Result
			opts := checker.Options{Workers: 1, Exact: true, NoLiveness: true}
			if strings.HasPrefix(config, "classic-") {
				m, err := ClassicModel(config)
				if err != nil {
					t.Fatal(err)
				}
				res, err = checker.Explore(m, opts)
				if err != nil {
					t.Fatal(err)
				}
			} else {
				m, err := NextGenModel(config)
				if err != nil {
					t.Fatal(err)
				}
				res, err = checker.Explore(m, opts)
				if err != nil {
					t.Fatal(err)
				}
			}
			if int(res.Distinct) != len(g.States) {
				t.Fatalf("the Go checker has %d states, their images %d: the projection merges states the checker tells apart", res.Distinct, len(g.States))
			}
		})
	}
}

func sortedNames(gs map[string]Golden) []string {
	names := make([]string, 0, len(gs))
	for n := range gs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
