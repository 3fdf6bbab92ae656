package spec

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// checkRoundReference is CheckRound as it was before its one-pass fast
// paths (givenOnce, noHandoff): every (resource, member) pair sorted.
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

// checkHandoffReference is checkHandoff without its fast path.
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
// and with no universe at all.
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
			if !exotic && (r.Topic == "z" || r.Partition >= 4 || r.Topic == "c") {
				continue
			}
			rs = append(rs, r)
		}
		return NewSet(rs...)
	}
	violations := 0
	for i := range 20000 {
		exotic := i%5 == 0
		r := Round{Topics: topics, Subscriptions: map[MemberID][]string{}, Claims: map[MemberID]Set{}, Assigned: Assignment{}, Cooperative: i%2 == 0}
		if i%7 == 0 {
			r.Topics = nil
		}
		for m := range 1 + rng.IntN(4) {
			id := MemberID(fmt.Sprintf("m%d", m))
			r.Subscriptions[id] = []string{"a", "b", "c"}
			r.Claims[id] = randSet(rng.IntN(4), exotic)
			r.Assigned[id] = randSet(rng.IntN(4), exotic)
		}
		got, want := CheckRound(r), checkRoundReference(r)
		violations += len(want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d %+v:\n got %v\nwant %v", i, r, got, want)
		}
	}
	if violations == 0 {
		t.Fatal("no round broke a law: the test checks nothing")
	}
}
