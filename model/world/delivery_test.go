package world_test

import (
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/script"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// TestDeliveryActions: the delivery steps are offered exactly when they
// can be taken. With commit-after-release, an application that gave a
// partition up without committing has a commit step, and none once it
// committed; an overrun is offered only to an application with a
// revocation pending, once per bound.
func TestDeliveryActions(t *testing.T) {
	s := ngworld.NewScript()
	for _, line := range []string{
		"group topics=(T:2)",
		"add-member A topics=(T)",
		"stabilize",
		"records 1 faults=(commit-after-release)",
		"consume A T-0",
		"consume A T-1",
		"add-member B topics=(T)",
		"deliver 0", // B's join: A must give T-1 up
	} {
		if err := script.RunLine(s.Run, line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	b := core.Bounds[nextgen.MemberConfig]{Overruns: 1,
		Members: []nextgen.MemberConfig{s.W.Process("A").Config, s.W.Process("B").Config}}
	enabled := func(u core.Used) []string {
		var out []string
		for _, a := range s.W.Enabled(b, u) {
			if a.Kind == core.CommitLate || a.Kind == core.Overrun {
				out = append(out, a.String())
			}
		}
		return out
	}
	for i := 0; !slices.Contains(enabled(core.Used{}), "overrun A"); i++ {
		var err error
		switch {
		case i == 20:
			t.Fatalf("A never has a revocation pending:\n%s", s.W.Ownership())
		case len(s.W.InFlight) > 0:
			err = s.W.Deliver(0)
		default:
			err = s.W.FireTimer(0) // A's next heartbeat
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := enabled(core.Used{Overruns: 1}); slices.Contains(got, "overrun A") {
		t.Errorf("an overrun past the bound is offered: %v", got)
	}
	if err := s.W.CompleteRevocation("A"); err != nil {
		t.Fatal(err)
	}
	got := enabled(core.Used{})
	if !slices.Equal(got, []string{"commit A"}) {
		t.Fatalf("after A gave T-0 up uncommitted: %v, want [commit A]", got)
	}
	if err := s.W.CommitReleased("A"); err != nil {
		t.Fatal(err)
	}
	if got := enabled(core.Used{}); len(got) != 0 {
		t.Errorf("after A committed: %v, want none", got)
	}
	if err := s.W.CommitReleased("A"); err == nil {
		t.Error("a second commit of nothing is accepted")
	}
}
