package fuzz_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/fuzz"
	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	"github.com/rebalance-ref/rebalance/spec"
)

// small is a world the tests explore in a second or two.
var small = fuzz.Bounds{
	Check:  fuzz.World{Members: 2, Joins: 1, Topics: 1, Partitions: 3, Crashes: 1, Drops: 1},
	Random: fuzz.World{Members: 4, Joins: 1, Topics: 2, Partitions: 3, Crashes: 1, Restarts: 1, Leaves: 1, Drops: 1, Duplicates: 1},
	Steps:  40,
}

// renamed is p under another name: a protocol of the caller's.
type renamed struct {
	classic.Protocol
	name string
}

func (r renamed) Name() string { return r.name }

// RoundBound is the renamed protocol's.
func (r renamed) RoundBound(g classic.GroupShape) int {
	return r.Protocol.(classic.RoundBounder).RoundBound(g)
}

// tightBound is the cooperative protocol stating a round bound it does not
// keep: one round, where a member that must give something up needs two.
type tightBound struct{ classic.Protocol }

func (tightBound) Name() string                      { return "cooperative-in-one" }
func (tightBound) RoundBound(classic.GroupShape) int { return 1 }

// topicBalanced is range's eager protocol under a name of its own, stating
// range's balance law (each topic spread within one over its subscribers),
// which its assignments keep, though the members' totals may differ by
// more.
type topicBalanced struct{ renamed }

func (topicBalanced) Balance(v spec.View) []spec.Violation { return spec.CheckTopicBalance(v) }

// TestProtocolStatesItsBalance: a protocol that states its balance law
// (classic.Balancer) is judged by it, not by spec.CheckBalance: eager
// range passes as topicBalanced; stating nothing, it fails Balance in the
// random runs, whose four members share two topics of three partitions
// (range leaves the fourth member with nothing).
func TestProtocolStatesItsBalance(t *testing.T) {
	b := small
	b.Dir = t.TempDir()
	eagerRange := renamed{policy.Eager(assign.Range()), "my-range"}
	fuzz.Protocol(t, topicBalanced{eagerRange}, b)
	fs, err := fuzz.FindProtocol(eagerRange, b)
	if err != nil {
		t.Fatal(err)
	}
	var laws []string
	for _, f := range fs {
		laws = append(laws, string(f.Law))
	}
	if !slices.Contains(laws, string(spec.Balance)) {
		t.Fatalf("eager range judged by spec.CheckBalance: want a Balance failure, got %v", laws)
	}
}

// strictUniform is the uniform assignor stating a balance law no
// assignment meets.
type strictUniform struct{ assign.Assignor }

func (strictUniform) Balance(spec.View) []spec.Violation {
	return []spec.Violation{{Law: spec.Balance, Detail: "the stated law"}}
}

// TestCoordinatorAssignorStatesItsBalance: a server-side assignor that
// states its balance law (assign.BalancedAssignor) is judged by it:
// uniform, which passes with its own (TestCoordinatorAssignorHolds), fails
// with one nothing meets (with the hook cut out, it passes).
func TestCoordinatorAssignorStatesItsBalance(t *testing.T) {
	b := small
	b.Dir = t.TempDir()
	fs, err := fuzz.FindCoordinatorAssignor(strictUniform{assign.Uniform()}, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) == 0 || !strings.Contains(fs[0].Error(), "the stated law") {
		t.Fatalf("want the stated law broken, got %v", fs)
	}
}

// TestProtocolHolds: the project's cooperative protocol, under a name of
// its own (so the world runs the value given, not the built-in), passes.
func TestProtocolHolds(t *testing.T) {
	b := small
	b.Dir = t.TempDir()
	fuzz.Protocol(t, renamed{policy.Cooperative(), "mine"}, b)
	// The same assignor through policy.CooperativeWith, which states no
	// round bound: the world's is given.
	b.MaxRounds = 3
	fuzz.Protocol(t, policy.CooperativeWith(assign.CooperativeSticky()), b)
}

// TestCoordinatorAssignorHolds: the uniform assignor, given as a value,
// passes inside the next-gen coordinator.
func TestCoordinatorAssignorHolds(t *testing.T) {
	b := small
	b.Dir = t.TempDir()
	fuzz.CoordinatorAssignor(t, assign.Uniform(), b)
}

// TestProtocolCaught: protocols that break a law are caught, with a
// scenario file that replays. Each runs in a subtest of its own test
// value, so that the failure is observed, not reported.
func TestProtocolCaught(t *testing.T) {
	for _, c := range []struct {
		name      string
		p         classic.Protocol
		maxRounds int
		want      string // the law in the failure and the file name
	}{
		{"bound-too-tight", tightBound{policy.Cooperative()}, 0, "BoundedRounds"},
		// Range, run cooperatively, hands partitions over in the round
		// they are revoked: the leader's check refuses every such round,
		// so the group never gets there.
		{"eager-assignor-as-cooperative", policy.CooperativeWith(assign.Range()), 2, "EventuallyConverged"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			b := small
			b.Dir, b.MaxRounds = dir, c.maxRounds
			fs, err := fuzz.FindProtocol(c.p, b)
			if err != nil {
				t.Fatal(err)
			}
			if len(fs) == 0 {
				t.Fatalf("%s passed", c.p.Name())
			}
			var laws []string
			for _, f := range fs {
				laws = append(laws, string(f.Law))
				if !strings.Contains(f.Error(), "scenario: "+f.Scenario) {
					t.Errorf("the failure does not name its scenario:\n%v", f)
				}
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*-"+c.want+"-check.txt"))
			if len(files) != 1 {
				t.Fatalf("want the model checker's %s scenario; files %v, laws %v:\n%v", c.want, files, laws, fs)
			}
			text, err := os.ReadFile(files[0])
			if err != nil || !strings.Contains(string(text), c.want) {
				t.Fatalf("scenario %s does not show %s: %v\n%s", files[0], c.want, err, text)
			}
			fuzz.ReplayProtocol(t, c.p, files[0])
		})
	}
}
