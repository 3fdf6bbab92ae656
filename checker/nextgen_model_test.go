package checker

import (
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/spec"
)

func nextGenModel(t *testing.T, o ngworld.CheckOptions) *ngworld.Model {
	t.Helper()
	cfg, err := ngworld.CheckWorld(o)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ngworld.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func steps(ce Counterexample) string {
	var b strings.Builder
	for i, s := range ce.Steps {
		mark := "  "
		if i == ce.Loop {
			mark = "->"
		}
		b.WriteString("\n  " + mark + " " + s.Kind.String() + "\t" + s.Line)
	}
	return b.String()
}

// TestNextGenDefaultWorld explores the default next-gen world completely:
// no safety law, no liveness law and no bound on the epoch bumps may
// break.
func TestNextGenDefaultWorld(t *testing.T) {
	m := nextGenModel(t, ngworld.DefaultCheckOptions())
	r, err := Explore(m, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d states, %d transitions, depth %d, %s", r.Distinct, r.Transitions, r.Depth, r.Elapsed)
	if !r.Complete || !r.LivenessChecked {
		t.Errorf("exploration not complete (%s), liveness checked %t", r.Stopped, r.LivenessChecked)
	}
	for _, ce := range r.Violations {
		t.Errorf("%s%s", ce.Violation, steps(ce))
	}
}

// TestNextGenAssignBeforeRelease checks that the checker catches the
// coordinator handing a partition to its new owner before the old owner
// released it, as a broken ExclusiveOwnership.
func TestNextGenAssignBeforeRelease(t *testing.T) {
	o := ngworld.DefaultCheckOptions()
	o.Faults = nextgen.AssignBeforeRelease
	m := nextGenModel(t, o)
	r, err := Explore(m, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, ce := range r.Violations {
		if ce.Law == spec.ExclusiveOwnership {
			t.Logf("%s%s", ce.Violation, steps(ce))
			return
		}
	}
	t.Errorf("no ExclusiveOwnership violation found; violations: %v", r.Violations)
}
