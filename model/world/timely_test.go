package world_test

import (
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestTimely: a next-gen member whose first heartbeat response is lost
// retries after its 30 s request timeout. With a 10 s session the
// coordinator expires the live member first (Timely breaks: one lost
// message cost the session); with Kafka's 45 s session the retry comes in
// time. Losing a second message, or a timer firing while a message is in
// flight (a network slower than a timer), lifts the law.
func TestTimely(t *testing.T) {
	for _, c := range []struct {
		name    string
		session nextgen.Millis
		drops   int  // heartbeat responses lost
		late    bool // a timer fires while the response is still in flight
		dup     bool // a message is duplicated
		want    bool // Timely broken
	}{
		{"10 s session, one lost response", 10000, 1, false, false, true},
		{"45 s session, one lost response", 45000, 1, false, false, false},
		{"10 s session, two lost", 10000, 2, false, false, false},
		{"10 s session, one lost, a late message", 10000, 1, true, false, false},
		{"10 s session, one lost, a duplicated message", 10000, 1, false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := ngworld.DefaultCoordinatorConfig()
			cfg.SessionTimeout = c.session
			w, err := ngworld.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			// Each lost response is a new member's first one (A's, then
			// B's), all before A's session can run out.
			for i, name := range []string{"A", "B"}[:max(c.drops, 1)] {
				if err := w.AddMember(nextgen.MemberConfig{Name: name, Topics: []string{"T"}}); err != nil {
					t.Fatal(err)
				}
				if i >= c.drops {
					break
				}
				if err := w.Deliver(0); err != nil { // the heartbeat reaches the coordinator
					t.Fatal(err)
				}
				if err := w.Drop(0); err != nil { // its response is lost
					t.Fatal(err)
				}
			}
			if c.late {
				// B's first heartbeat is still in flight when the next
				// timer (A's session) fires.
				if err := w.AddMember(nextgen.MemberConfig{Name: "B", Topics: []string{"T"}}); err != nil {
					t.Fatal(err)
				}
				if err := w.FireTimer(0); err != nil {
					t.Fatal(err)
				}
			}
			if c.dup {
				// B's first heartbeat is sent twice.
				if err := w.AddMember(nextgen.MemberConfig{Name: "B", Topics: []string{"T"}}); err != nil {
					t.Fatal(err)
				}
				if err := w.Duplicate(0); err != nil {
					t.Fatal(err)
				}
			}
			w.Advance(60000)
			got := slices.ContainsFunc(w.Violations, func(v spec.Violation) bool { return v.Law == spec.Timely })
			if got != c.want {
				t.Errorf("Timely broken: %t, want %t (violations %v, lost %d, late %d, duplicated %d)", got, c.want, w.Violations, w.Lost, w.Late, w.Duplicated)
			}
		})
	}
}
