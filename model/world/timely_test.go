package world_test

import (
	"slices"
	"testing"
	"time"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	core "github.com/rebalance-ref/rebalance/model/world"
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

// TestTimeBounds: what each family states as Timely's time clause for a
// group as it is. Classic: the selected protocol's round bound (the first
// configured one before there is a selection) in rounds of the members'
// longest heartbeat interval, plus the delays a Connect design states;
// nothing for a protocol that states no round bound. Next-gen: three
// heartbeat intervals, whatever the shape.
func TestTimeBounds(t *testing.T) {
	cw, err := classicworld.New(classic.CoordinatorConfig{GroupID: "g"}, spec.Topics{"T": 4, "U": 2})
	if err != nil {
		t.Fatal(err)
	}
	member := func(p classic.Protocol, heartbeat classic.Millis, topics ...string) classic.MemberConfig {
		return classic.MemberConfig{Protocols: []classic.Protocol{p}, HeartbeatInterval: heartbeat, Topics: topics}
	}
	deferred := policy.Deferred(policy.DeferredConfig{MaxDelay: 20000, BackoffMultiplier: 40})
	for _, c := range []struct {
		name    string
		members []classic.MemberConfig
		want    string // "" when not judged
	}{
		{"cooperative, one topic", []classic.MemberConfig{member(policy.Cooperative(), 1000, "T"), member(policy.Cooperative(), 0, "T")},
			"2 rounds of 3s = 6s"},
		{"cooperative, both topics", []classic.MemberConfig{member(policy.Cooperative(), 1000, "T"), member(policy.Cooperative(), 2000, "T", "U")},
			"2 rounds of 2s = 4s"},
		{"deferred", []classic.MemberConfig{member(deferred, 0, "T"), member(deferred, 0, "T")},
			"3 rounds of 3s + 41.64s of delays = 50.64s"},
		{"no round bound stated", []classic.MemberConfig{member(struct{ classic.Protocol }{policy.Cooperative()}, 0, "T")}, ""},
	} {
		b, ok := cw.Family.TimeBound(cw.Coordinator, c.members, cw.Topics)
		if got := b.String(); !ok && c.want != "" || ok && got != c.want {
			t.Errorf("%s: got %q (judged %v), want %q", c.name, got, ok, c.want)
		}
	}
	// Once the coordinator has selected a protocol, that one states the
	// bound, whatever order a member lists its protocols in.
	a := classic.MemberConfig{Name: "A", Protocols: []classic.Protocol{policy.Cooperative(), policy.Eager(nil)}, Topics: []string{"T"}, Metadata: cw.Topics}
	if err := cw.AddMember(a); err != nil {
		t.Fatal(err)
	}
	if !cw.Stabilize(core.StabilizeLimit) || cw.Coordinator.Protocol() != "cooperative" {
		t.Fatalf("the group did not settle on cooperative: %s", cw.Coordinator)
	}
	b, ok := cw.Family.TimeBound(cw.Coordinator, []classic.MemberConfig{member(policy.Eager(nil), 0, "T"), a, a}, cw.Topics)
	if want := "3 rounds of 3s = 9s"; !ok || b.String() != want { // eager's would be 2 rounds
		t.Errorf("selected cooperative: got %s (judged %v), want %s", b, ok, want)
	}
	cfg := ngworld.DefaultCoordinatorConfig()
	cfg.HeartbeatInterval = 1500
	nw, err := ngworld.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := nw.Family.TimeBound(nw.Coordinator, nil, nw.Topics); !ok || b.String() != "3 rounds of 1.5s = 4.5s" {
		t.Errorf("nextgen: got %s (judged %v), want 3 rounds of 1.5s", b, ok)
	}
}

// TestTimeBoundActedMidRound replays the random run that found
// finding_subscribe_during_round.txt (TestTimeBoundWhenPrompt/cooperative,
// rapid seed 16965931101200910928): its last action, B's second
// subscription change, comes while B's JoinGroup for the first is in a
// round, and the group takes three rounds of heartbeats (9 s) where
// cooperative states two (6 s). The round in flight serves the group as
// it was (Kafka's clients ignore an assignment computed for a subscription
// they no longer hold and rejoin), so the time clause allows it besides
// the stated ones (World.ActedMidRound). The same run without that last
// action ends between rounds and is allowed only the stated two.
func TestTimeBoundActedMidRound(t *testing.T) {
	trail := []string{
		"add-member A", "deliver 0", "deliver 0", "deliver 0", "deliver 0", "fire", "deliver 0",
		"deliver 0", "fire", "crash A", "deliver 0", "deliver 0", "fire", "restart A", "deliver 0",
		"deliver 0", "add-member B", "crash A", "deliver 0", "deliver 0", "deliver 0", "fire",
		"deliver 0", "deliver 0", "subscribe B topics=(T)", "deliver 0", "deliver 0", "deliver 0",
		"deliver 0", "deliver 0", "fire", "deliver 0", "deliver 0", "fire", "restart A", "deliver 0",
		"deliver 0", "deliver 0", "fire", "deliver 0", "deliver 0", "deliver 0", "deliver 0",
		"deliver 0", "deliver 0", "deliver 0", "deliver 0", "deliver 0", "deliver 0", "subscribe B topics=(U)",
	}
	for _, c := range []struct {
		name      string
		actions   int  // how many of the trail's actions are taken
		wantActed bool // World.ActedMidRound after them
		wantLate  bool // settles past the stated two rounds
	}{
		{"last change mid-round", len(trail), true, true},
		{"without it", len(trail) - 1, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := classicRun("cooperative", 0)
			if err != nil {
				t.Fatal(err)
			}
			r = prompt(r)
			w, err := r.world()
			if err != nil {
				t.Fatal(err)
			}
			var u core.Used
			for i, want := range trail[:c.actions] {
				acts := w.Enabled(r.bounds, u)
				k := slices.IndexFunc(acts, func(a core.Action) bool { return a.String() == want })
				if k < 0 {
					t.Fatalf("action %d, %s, not enabled among %v", i, want, acts)
				}
				if err := w.Apply(acts[k], r.bounds, &u); err != nil {
					t.Fatalf("action %d, %s: %v", i, want, err)
				}
			}
			if w.ActedMidRound != c.wantActed {
				t.Fatalf("ActedMidRound = %v, want %v", w.ActedMidRound, c.wantActed)
			}
			if !w.Settle(r.quiet, 1000) {
				t.Fatal("the group did not settle")
			}
			if stated := 6 * time.Second; (w.SinceQuiet() > stated) != c.wantLate {
				t.Errorf("settled %s after the environment fell quiet; cooperative states %s", w.SinceQuiet(), stated)
			}
			if vs := w.CheckTimeBound(); len(vs) > 0 {
				t.Errorf("judged late: %s", vs[0])
			}
		})
	}
}
