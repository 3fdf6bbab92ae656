package world_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/node"
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
		Members: []nextgen.MemberConfig{s.W.Process("A").Config(), s.W.Process("B").Config()}}
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

// TestRandomRunNetworks: the random runs (each family's DefaultBounds)
// keep the family's network. Classic connections deliver in order, and
// only the oldest message of a connection is lost or duplicated, its copy
// going to the back: A's copied JoinGroup waits behind the original.
// Next-gen keeps each member's requests in order and never duplicates
// them; any message may be lost, and a response may be delivered in any
// order and duplicated. A network that let a copied request overtake the
// member's later ones breaks the unmodified protocols
// (hazard_duplicated_join.txt, hazard_duplicated_request.txt).
func TestRandomRunNetworks(t *testing.T) {
	classicBounds, err := classicworld.DefaultBounds("cooperative", 0)
	if err != nil {
		t.Fatal(err)
	}
	cs := classicworld.NewScript()
	got := networkActions(t, cs.Run, func() []core.Action { return cs.W.Enabled(classicBounds, core.Used{}) },
		func() []node.Envelope[classic.Message] { return cs.W.InFlight },
		"group topics=(T:2)",
		"add-member A protocols=(cooperative) topics=(T)",
		"add-member B protocols=(cooperative) topics=(T)",
		"dup 0")
	want := "A->coordinator B->coordinator A->coordinator: deliver 0, deliver 1, drop 0, drop 1, dup 0, dup 1"
	if got != want {
		t.Errorf("classic:\n got %s\nwant %s", got, want)
	}

	ngBounds := ngworld.DefaultBounds(0)
	ns := ngworld.NewScript()
	got = networkActions(t, ns.Run, func() []core.Action { return ns.W.Enabled(ngBounds, core.Used{}) },
		func() []node.Envelope[nextgen.Message] { return ns.W.InFlight },
		"group topics=(foo:2)",
		"add-member A topics=(foo)",
		"add-member B topics=(foo)",
		"dup 0",
		"deliver 1") // B's heartbeat; its response goes to the back
	want = "A->coordinator A->coordinator coordinator->B: deliver 0, deliver 2, drop 0, drop 1, drop 2, dup 2"
	if got != want {
		t.Errorf("next-gen:\n got %s\nwant %s", got, want)
	}
}

// networkActions runs the script lines and returns the senders and
// receivers of the messages then in flight and the network actions
// enabled.
func networkActions[M fmt.Stringer](t *testing.T, run func(string, []script.Arg) (string, error), enabled func() []core.Action,
	inFlight func() []node.Envelope[M], lines ...string) string {
	t.Helper()
	for _, line := range lines {
		if err := script.RunLine(run, line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	var msgs, acts []string
	for _, e := range inFlight() {
		msgs = append(msgs, fmt.Sprintf("%s->%s", e.From, e.To))
	}
	for _, a := range enabled() {
		if a.Kind == core.Deliver || a.Kind == core.Drop || a.Kind == core.Duplicate {
			acts = append(acts, a.String())
		}
	}
	return strings.Join(msgs, " ") + ": " + strings.Join(acts, ", ")
}
