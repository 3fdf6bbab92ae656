package fuzz_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rebalance-ref/rebalance/fuzz"
	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// funcAssignor is an assignor made of a function, for deliberately broken
// assignors.
type funcAssignor struct {
	name string
	f    func(assign.Group) (spec.Assignment, error)
}

func (a funcAssignor) Name() string                                   { return a.name }
func (a funcAssignor) Assign(g assign.Group) (spec.Assignment, error) { return a.f(g) }

// breaking wraps base: after base assigns, edit changes the result.
func breaking(name string, base assign.Assignor, edit func(assign.Group, spec.Assignment) spec.Assignment) assign.Assignor {
	return funcAssignor{name, func(g assign.Group) (spec.Assignment, error) {
		a, err := base.Assign(g)
		if err != nil {
			return nil, err
		}
		return edit(g, a.Clone()), nil
	}}
}

// firstSubscribed gives every partition of a subscribed topic to the
// first member (by ID) subscribing to it: valid, and unbalanced.
func firstSubscribed(g assign.Group) (spec.Assignment, error) {
	out := spec.Assignment{}
	for _, m := range g.Members {
		out[m.ID] = nil
	}
	for _, t := range g.Topics.Names() {
		for _, m := range g.Members {
			if contains(m.Topics, t) {
				out[m.ID] = out[m.ID].Union(g.Topics.Resources(t))
				break
			}
		}
	}
	return out, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// anyOwned returns some partition a gives and its holder.
func anyOwned(a spec.Assignment) (spec.MemberID, spec.Resource, bool) {
	for _, m := range a.Members() {
		if len(a[m]) > 0 {
			return m, a[m][0], true
		}
	}
	return "", spec.Resource{}, false
}

// TestBrokenAssignorsAreCaught: for every rule of validity and every
// declarable guarantee, an assignor broken in just that way is caught,
// with the guarantee named, a shrunk group that fuzz.ParseGroup reads back,
// and fuzz.Judge reproducing the failure from that group alone.
func TestBrokenAssignorsAreCaught(t *testing.T) {
	calls := 0
	cases := []struct {
		name string
		a    assign.Assignor
		o    fuzz.Options
		want string // the guarantee the failure names
		why  string // a part of the reason
	}{
		{"twice", breaking("twice", assign.Range(), func(g assign.Group, a spec.Assignment) spec.Assignment {
			if m, r, ok := anyOwned(a); ok {
				for _, o := range g.Members {
					if o.ID != m {
						a[o.ID] = a[o.ID].Add(r)
						break
					}
				}
			}
			return a
		}), fuzz.Options{}, fuzz.Validity, "AssignedOnce"},
		{"unknown-member", breaking("unknown-member", assign.Range(), func(g assign.Group, a spec.Assignment) spec.Assignment {
			if m, r, ok := anyOwned(a); ok {
				a[m] = a[m].Remove(r)
				a["stranger"] = spec.NewSet(r)
			}
			return a
		}), fuzz.Options{}, fuzz.Validity, "KnownMembersOnly"},
		{"unsubscribed", breaking("unsubscribed", assign.Range(), func(g assign.Group, a spec.Assignment) spec.Assignment {
			for _, m := range g.Members {
				for _, t := range g.Topics.Names() {
					if !contains(m.Topics, t) && g.Topics[t] > 0 {
						a[m.ID] = a[m.ID].Add(spec.TP(t, 0))
						for _, o := range g.Members {
							if o.ID != m.ID {
								a[o.ID] = a[o.ID].Remove(spec.TP(t, 0))
							}
						}
						return a
					}
				}
			}
			return a
		}), fuzz.Options{}, fuzz.Validity, "SubscribedOnly"},
		{"nonexistent", breaking("nonexistent", assign.Range(), func(g assign.Group, a spec.Assignment) spec.Assignment {
			for _, m := range g.Members {
				for _, t := range m.Topics {
					if n, ok := g.Topics[t]; ok {
						a[m.ID] = a[m.ID].Add(spec.TP(t, n))
						return a
					}
				}
			}
			return a
		}), fuzz.Options{}, fuzz.Validity, "ExistingOnly"},
		{"member-left-out", breaking("member-left-out", assign.Range(), func(g assign.Group, a spec.Assignment) spec.Assignment {
			for _, m := range g.Members {
				if len(a[m.ID]) == 0 {
					delete(a, m.ID)
				}
			}
			return a
		}), fuzz.Options{}, fuzz.Validity, "no entry for member"},
		{"error", funcAssignor{"error", func(g assign.Group) (spec.Assignment, error) {
			if len(g.Members) > 2 {
				return nil, errors.New("too many members")
			}
			return assign.Range().Assign(g)
		}}, fuzz.Options{}, fuzz.Validity, "returned an error"},
		{"panic", funcAssignor{"panic", func(g assign.Group) (spec.Assignment, error) {
			if len(g.Topics.Names()) > 1 {
				panic("two topics")
			}
			return assign.Range().Assign(g)
		}}, fuzz.Options{}, fuzz.Validity, "panicked"},
		{"nondeterministic", funcAssignor{"nondeterministic", func(g assign.Group) (spec.Assignment, error) {
			calls++
			if calls%2 == 0 {
				return firstSubscribed(g)
			}
			return assign.Range().Assign(g)
		}}, fuzz.Options{}, fuzz.Validity, "not deterministic"},
		{"modifies-input", funcAssignor{"modifies-input", func(g assign.Group) (spec.Assignment, error) {
			a, err := assign.Range().Assign(g)
			if len(g.Members) > 0 && len(g.Members[0].Topics) > 0 {
				g.Members[0].Topics[0] = "changed"
			}
			return a, err
		}}, fuzz.Options{}, fuzz.Validity, "modified its input"},
		{"incomplete", breaking("incomplete", assign.Range(), func(g assign.Group, a spec.Assignment) spec.Assignment {
			if m, r, ok := anyOwned(a); ok {
				a[m] = a[m].Remove(r)
			}
			return a
		}), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.Complete}}, "Complete", "Coverage"},
		{"unbalanced", funcAssignor{"first-subscriber", firstSubscribed}, fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.Complete, fuzz.Balanced}}, "Balanced", "could move"},
		{"topic-unbalanced", funcAssignor{"first-subscriber", firstSubscribed}, fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.TopicBalanced}}, "TopicBalanced", "of it and"},
		{"not-sticky", assign.Range(), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.Sticky}}, "Sticky", "StableWhenBalanced"},
		{"not-co-partitioned", assign.RoundRobin(), fuzz.Options{CommonSubscription: true, Guarantees: []fuzz.Guarantee{fuzz.CoPartitioned}}, "CoPartitioned", "same subscribers"},
		// At most six members: round-robin's result changes with every
		// member removed, and rapid's shrinking stopped at eight members
		// now and then (about one run in five under load).
		{"rack-blind", assign.RoundRobin(), fuzz.Options{Racks: true, CommonSubscription: true, Limits: fuzz.Limits{Members: 6}, Guarantees: []fuzz.Guarantee{fuzz.RackAligned}}, "RackAligned", "swapping"},
		{"back-and-forth", funcAssignor{"flip-flop", func(g assign.Group) (spec.Assignment, error) {
			// Range over the members in reverse order every other
			// generation: the partitions swap holders round after round.
			gen := spec.Generation(0)
			for _, m := range g.Members {
				gen = max(gen, m.Generation)
			}
			a, err := assign.Range().Assign(g)
			if err != nil || gen%2 == 0 || len(g.Members) < 2 {
				return a, err
			}
			out := spec.Assignment{}
			for i, m := range g.Members {
				out[m.ID] = a[g.Members[len(g.Members)-1-i].ID].Filter(func(r spec.Resource) bool { return contains(m.Topics, r.Topic) })
			}
			return out, nil
		}}, fuzz.Options{CommonSubscription: true, Guarantees: []fuzz.Guarantee{fuzz.NoBackAndForth}}, "NoBackAndForth", "moves back"},
		{"eager-as-cooperative", assign.Sticky(), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.CooperativeHandoff}}, "CooperativeHandoff", "CooperativeHandoff"},
		{"slow-to-converge", assign.CooperativeSticky(), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.CooperativeHandoff, fuzz.ConvergesWithin(1)}}, "ConvergesWithin(1)", "fixed point"},
		{"own-property", assign.Range(), fuzz.Options{Guarantees: []fuzz.Guarantee{fuzz.Property("NobodyOwnsMoreThanTwo", true, func(r fuzz.Round) error {
			for _, m := range r.Assigned.Members() {
				if r.Assigned[m].Len() > 2 {
					return fmt.Errorf("%s owns %d", m, r.Assigned[m].Len())
				}
			}
			return nil
		})}}, "NobodyOwnsMoreThanTwo", "owns"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(t.TempDir()) // rapid saves each failing input under testdata/rapid
			f, err := fuzz.Find(c.a, c.o)
			if err != nil {
				t.Fatal(err)
			}
			if f == nil {
				t.Fatalf("%s: no case breaks %s", c.a.Name(), c.want)
			}
			if f.Guarantee != c.want || !strings.Contains(f.Why, c.why) {
				t.Fatalf("want a failure of %s saying %q, got:\n%v", c.want, c.why, f)
			}
			msg := f.Error()
			if !strings.Contains(msg, "breaks "+c.want) || !strings.Contains(msg, "fuzz.ParseGroup reads it") {
				t.Fatalf("the message does not name the guarantee or print the group:\n%s", msg)
			}
			g, err := fuzz.ParseGroup(fuzz.FormatGroup(f.Round.Group))
			if err != nil {
				t.Fatalf("the counterexample's group does not read back: %v\n%s", err, msg)
			}
			if n := len(g.Members); n > 6 {
				t.Errorf("the shrunk group still has %d members:\n%s", n, msg)
			}
			// The printed group alone shows the failure again, except where
			// the assignor's state (a call counter) or its writes to its
			// input decide it.
			if c.name != "nondeterministic" && c.name != "modifies-input" {
				err := fuzz.Judge(c.a, c.o, g)
				var again *fuzz.Failure
				if !errors.As(err, &again) || again.Guarantee != c.want {
					t.Errorf("fuzz.Judge on the printed group: %v, want a failure of %s\n%s", err, c.want, msg)
				}
			}
			t.Logf("%s", msg)
		})
	}
}

// TestSlowAssignorIsCaught: a call that does not return within
// Options.Timeout fails the case, and the harness goes on (the call is
// left behind). It is judged on one group, not searched for: each try
// of a search would wait out the timeout.
func TestSlowAssignorIsCaught(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	slow := funcAssignor{"slow", func(g assign.Group) (spec.Assignment, error) {
		if len(g.Members) > 1 {
			<-block
		}
		return assign.Range().Assign(g)
	}}
	g, err := fuzz.ParseGroup("topics a:2\nmember x topics=a\nmember y topics=a\n")
	if err != nil {
		t.Fatal(err)
	}
	err = fuzz.Judge(slow, fuzz.Options{Timeout: 50 * time.Millisecond}, g)
	var f *fuzz.Failure
	if !errors.As(err, &f) || f.Guarantee != fuzz.Validity || !strings.Contains(f.Why, "did not return within 50ms") {
		t.Fatalf("Judge = %v, want a timeout", err)
	}
	g.Members = g.Members[:1]
	if err := fuzz.Judge(slow, fuzz.Options{Timeout: 50 * time.Millisecond}, g); err != nil {
		t.Fatalf("a fast call failed: %v", err)
	}
}
