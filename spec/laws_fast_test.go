package spec

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// checkRoundReference is CheckRound in its plainest form, without the
// shortcut of roundClean: each resource looked up on its own, every
// (resource, member) pair sorted.
func checkRoundReference(r Round) []Violation {
	var out []Violation
	type given struct {
		res Resource
		m   string
	}
	var all []given
	for _, m := range r.Assigned.Members() {
		subs, known := r.Subscriptions[m]
		if !known {
			out = append(out, Violation{Law: KnownMembersOnly, Members: []string{string(m)}, Detail: fmt.Sprintf("assignment to a member that is not in the round: %s", r.Assigned[m])})
			continue
		}
		if err := r.Assigned[m].Validate(); err != nil {
			out = append(out, Violation{Law: ExistingOnly, Members: []string{string(m)}, Detail: err.Error()})
			continue
		}
		for _, res := range r.Assigned[m] {
			all = append(all, given{res, string(m)})
			if r.Topics != nil && !r.Topics.Has(res) {
				out = append(out, Violation{Law: ExistingOnly, Resource: res, Members: []string{string(m)}, Detail: "no such resource"})
				continue
			}
			if !slices.Contains(subs, res.Topic) {
				out = append(out, Violation{Law: SubscribedOnly, Resource: res, Members: []string{string(m)}, Detail: fmt.Sprintf("topic %q is not in the subscription [%s]", res.Topic, strings.Join(subs, " "))})
			}
		}
	}
	slices.SortFunc(all, func(a, b given) int {
		if c := a.res.Compare(b.res); c != 0 {
			return c
		}
		return strings.Compare(a.m, b.m)
	})
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].res == all[i].res {
			j++
		}
		if j-i > 1 {
			members := make([]string, 0, j-i)
			for _, g := range all[i:j] {
				members = append(members, g.m)
			}
			out = append(out, Violation{Law: AssignedOnce, Resource: all[i].res, Members: members, Detail: "given to more than one member"})
		}
		i = j
	}
	if r.Cooperative {
		out = append(out, checkHandoffReference(r)...)
	}
	return out
}

// checkHandoffReference is checkHandoff in its plainest form.
func checkHandoffReference(r Round) []Violation {
	var out []Violation
	type claim struct {
		res Resource
		m   MemberID
	}
	var claimed []claim
	for _, m := range r.Assigned.Members() {
		added := r.Assigned[m].Minus(r.Claims[m])
		if len(added) == 0 {
			continue
		}
		if claimed == nil {
			claimed = make([]claim, 0, len(r.Claims))
			for o, set := range r.Claims {
				for _, res := range set {
					claimed = append(claimed, claim{res, o})
				}
			}
			slices.SortFunc(claimed, func(a, b claim) int {
				if c := a.res.Compare(b.res); c != 0 {
					return c
				}
				return strings.Compare(string(a.m), string(b.m))
			})
		}
		for _, res := range added {
			i, _ := slices.BinarySearchFunc(claimed, res, func(c claim, r Resource) int { return c.res.Compare(r) })
			var from []string
			for ; i < len(claimed) && claimed[i].res == res; i++ {
				if claimed[i].m != m {
					from = append(from, string(claimed[i].m))
				}
			}
			if len(from) > 0 {
				out = append(out, Violation{Law: CooperativeHandoff, Resource: res, Members: append(from, string(m)), Detail: fmt.Sprintf("given to %s in the round it is revoked from %s", m, strings.Join(from, ","))})
			}
		}
	}
	return out
}

// TestCheckRoundFastPaths: CheckRound reports exactly what the sorting
// reference does, on random rounds with resources given twice, handed
// over while claimed, claimed or given outside the universe, connectors,
// members the round does not know, subscriptions that leave a topic out
// or are not sorted, claims of members the round gives nothing, sets
// that are not sorted, and with no universe at all. Some rounds must be
// clean (roundClean settles them alone) and some not.
func TestCheckRoundFastPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	topics := Topics{"a": 4, "b": 3}.AddConnector("c", 2)
	pool := []Resource{Connector("c"), Task("c", 0), Task("c", 1), TP("z", 0), TP("a", 9)}
	for _, tp := range []string{"a", "b"} {
		for p := range topics[tp] {
			pool = append(pool, TP(tp, p))
		}
	}
	randSet := func(n int, exotic bool) Set {
		var rs []Resource
		for range n {
			r := pool[rng.IntN(len(pool))]
			if !exotic && (r.Topic == "z" || r.Partition >= 4 || r.Topic == "c" || r.Topic == "") {
				continue
			}
			rs = append(rs, r)
		}
		return NewSet(rs...)
	}
	subscriptions := [][]string{{"a", "b", "c"}, {"a", "b", "c"}, {"c", "b", "a"}, {"a", "c"}, {"c", "a"}, {"b"}, {"", "a", "b"}}
	// A universe with a topic of no name, which no set may hold (Validate).
	nameless := maps.Clone(topics)
	nameless[""] = 2
	pool = append(pool, TP("", 0))
	violations, clean, unsettled := 0, 0, 0
	for i := range 40000 {
		exotic := i%5 == 0
		r := Round{Topics: topics, Subscriptions: map[MemberID][]string{}, Claims: map[MemberID]Set{}, Assigned: Assignment{}, Cooperative: i%2 == 0}
		switch {
		case i%7 == 0:
			r.Topics = nil
		case i%17 == 0:
			r.Topics = nameless
		}
		for m := range 1 + rng.IntN(4) {
			id := MemberID(fmt.Sprintf("m%d", m))
			if i%11 != 0 || m > 0 {
				r.Subscriptions[id] = subscriptions[0]
				if i%3 == 0 {
					r.Subscriptions[id] = subscriptions[rng.IntN(len(subscriptions))]
				}
			}
			r.Claims[id] = randSet(rng.IntN(4), exotic)
			r.Assigned[id] = randSet(rng.IntN(4), exotic)
			if i%13 == 0 && len(r.Assigned[id]) > 1 {
				// Not a set: its resources out of order.
				r.Assigned[id] = slices.Clone(r.Assigned[id])
				slices.Reverse(r.Assigned[id])
			}
		}
		if i%4 == 0 {
			// A claimant the round gives nothing.
			r.Claims["z"] = randSet(rng.IntN(3), exotic)
		}
		if roundClean(r) {
			clean++
		} else {
			unsettled++
		}
		got, want := CheckRound(r), checkRoundReference(r)
		violations += len(want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d %+v:\n got %v\nwant %v", i, r, got, want)
		}
	}
	if violations == 0 || clean == 0 || unsettled == 0 {
		t.Fatalf("%d violations, %d clean rounds, %d rounds left to the exact checks: the test checks too little", violations, clean, unsettled)
	}
}

// TestRoundCleanSettles: roundClean settles clean rounds by itself, the
// ones a leader leads in every rebalance of a real group, rather than
// leaving them to CheckRound's exact passes (which would find them clean
// too, but slower): a partition nobody claimed given out, a subscription
// not sorted, an eager round whose claims it ignores, a claimant the
// round gives nothing, a partition two members claim given to one of
// them.
func TestRoundCleanSettles(t *testing.T) {
	topics := Topics{"a": 4, "b": 2}
	subs := map[MemberID][]string{"m1": {"a", "b"}, "m2": {"b", "a"}}
	for _, c := range []struct {
		name string
		r    Round
	}{
		{"unclaimed partition given", Round{Topics: topics, Subscriptions: subs, Cooperative: true,
			Claims:   map[MemberID]Set{"m1": NewSet(TP("a", 0))},
			Assigned: Assignment{"m1": NewSet(TP("a", 0), TP("a", 1)), "m2": NewSet(TP("b", 0))}}},
		{"subscription not sorted", Round{Topics: topics, Subscriptions: subs,
			Assigned: Assignment{"m2": NewSet(TP("a", 0), TP("b", 1))}}},
		{"eager round ignores claims", Round{Topics: topics, Subscriptions: subs,
			Claims:   map[MemberID]Set{"m1": NewSet(TP("a", 0)), "m2": NewSet(TP("a", 0))},
			Assigned: Assignment{"m2": NewSet(TP("a", 0))}}},
		{"claimant given nothing", Round{Topics: topics, Subscriptions: subs, Cooperative: true,
			Claims:   map[MemberID]Set{"gone": NewSet(TP("a", 3))},
			Assigned: Assignment{"m1": NewSet(TP("a", 0))}}},
		{"claimed twice, given to the last claimant", Round{Topics: topics, Subscriptions: subs, Cooperative: true,
			Claims:   map[MemberID]Set{"m1": NewSet(TP("a", 0)), "m2": NewSet(TP("a", 0))},
			Assigned: Assignment{"m1": nil, "m2": NewSet(TP("a", 0))}}},
	} {
		if vs := checkRoundReference(c.r); len(vs) > 0 {
			t.Fatalf("%s: the round is not clean: %v", c.name, vs)
		}
		if !roundClean(c.r) {
			t.Errorf("%s: roundClean leaves a clean round to the exact checks", c.name)
		}
	}
}

// TestCoverageHolds: CoverageHolds answers as CheckCoverage's exact pass
// (coverageViolations) does, on
// random views of topics and a connector: every subscribed resource dealt
// to exactly one current member, then some views changed by one owner
// more, one fewer, or one member no longer current, or with a subscription
// no current member owns; or arbitrary sets of owned resources.
func TestCoverageHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	topics := Topics{"a": 3, "b": 2, "z": 1}.AddConnector("c", 2)
	names := []string{"a", "b", "c", "z"}
	held, broken := 0, 0
	for i := range 20000 {
		v := View{Topics: topics}
		for m := range 1 + rng.IntN(4) {
			var subs []string
			for _, n := range names {
				if rng.IntN(3) > 0 {
					subs = append(subs, n)
				}
			}
			v.Members = append(v.Members, MemberView{Name: fmt.Sprint("m", m), Current: rng.IntN(5) > 0, Subscription: subs})
		}
		var subscribed []string
		for _, m := range v.Members {
			if m.Current {
				subscribed = append(subscribed, m.Subscription...)
			}
		}
		owns := make([][]Resource, len(v.Members))
		for _, r := range topics.Resources(subscribed...) {
			k := rng.IntN(len(v.Members))
			switch i % 4 {
			case 1: // arbitrary: any member, some resources to two or none
				owns[k] = append(owns[k], r)
				if rng.IntN(8) == 0 {
					owns[rng.IntN(len(v.Members))] = append(owns[rng.IntN(len(v.Members))], r)
				}
				continue
			}
			for !v.Members[k].Current {
				k = (k + 1) % len(v.Members)
			}
			owns[k] = append(owns[k], r)
		}
		switch i % 4 {
		case 2: // one resource more, to some member
			k := rng.IntN(len(v.Members))
			owns[k] = append(owns[k], TP("a", int32(rng.IntN(3))))
		case 3: // one resource fewer
			if k := rng.IntN(len(v.Members)); len(owns[k]) > 0 {
				owns[k] = slices.Delete(owns[k], 0, 1)
			}
		}
		if i%7 == 0 {
			v.Members[rng.IntN(len(v.Members))].Current = false
		}
		for k := range v.Members {
			v.Members[k].Owns = NewSet(owns[k]...)
		}
		got, want := CoverageHolds(v), len(coverageViolations(v)) == 0
		if got != want {
			t.Fatalf("view %d %+v: CoverageHolds says %v, the exact pass lists %v", i, v, got, coverageViolations(v))
		}
		if want {
			held++
		} else {
			broken++
		}
	}
	if held < 1000 || broken < 1000 {
		t.Fatalf("coverage held in %d views and broke in %d: the test checks too little", held, broken)
	}
}
