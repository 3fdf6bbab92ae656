package spec

import (
	"fmt"
	"slices"
)

// CheckStableWhenBalanced judges StableWhenBalanced on a round: it reports
// one violation when the members keep fewer of their claims than a balanced
// assignment of the round can keep, and nothing otherwise.
//
// The law applies only where the most a balanced assignment can keep is
// plain arithmetic: every member of the round subscribes to the same
// topics, and no resource is claimed by two members (a resource claimed
// twice goes to its claimant of the highest generation, which the round
// does not carry), and the round knows its universe. Claims outside the universe or the subscription cannot
// be kept and are not counted, nor are Kafka Connect connector resources
// (the sticky assignors the law judges hand out partitions only). With P subscribed resources and M members,
// a balanced assignment gives everyone q = ⌊P/M⌋ or q+1, the larger share
// to exactly P mod M members, so it keeps at most
//
//	Σ min(|claim(m)|, q) + min(P mod M, |{m : |claim(m)| > q}|)
//
// claims, and Kafka's sticky assignors (the constrained assignment of
// AbstractStickyAssignor, and the uniform homogeneous builder since
// KAFKA-18688) keep exactly that many. The round is not judged on balance:
// that is Balance's business.
func CheckStableWhenBalanced(r Round) []Violation {
	members := make([]MemberID, 0, len(r.Subscriptions))
	for m := range r.Subscriptions {
		members = append(members, m)
	}
	if len(members) == 0 || r.Topics == nil {
		return nil
	}
	slices.Sort(members)
	topics := slices.Compact(slices.Sorted(slices.Values(r.Subscriptions[members[0]])))
	for _, m := range members[1:] {
		if !sameTopics(topics, r.Subscriptions[m]) {
			return nil
		}
	}
	keepable := func(res Resource) bool {
		return !res.IsConnector() && r.Topics.Has(res) && slices.Contains(topics, res.Topic)
	}
	var all []Resource
	claims := make(map[MemberID]Set, len(members))
	for _, m := range members {
		c := r.Claims[m].Filter(keepable)
		claims[m] = c
		all = append(all, c...)
	}
	if Duplicated(all) {
		return nil
	}
	resources := 0
	for _, t := range topics {
		resources += int(r.Topics[t])
	}
	q, extra := resources/len(members), resources%len(members)
	most, above, kept := 0, 0, 0
	var short []string
	for _, m := range members {
		c := claims[m]
		most += min(len(c), q)
		if len(c) > q {
			above++
		}
		k := len(r.Assigned[m].Intersect(c))
		kept += k
		if k < min(len(c), q) {
			short = append(short, string(m))
		}
	}
	most += min(extra, above)
	if kept >= most {
		return nil
	}
	if len(short) == 0 {
		// Nobody lost a claim within its base share, so the larger
		// shares went to the wrong members: name those that had one.
		for _, m := range members {
			if c := claims[m]; len(c) > q && len(r.Assigned[m].Intersect(c)) <= q {
				short = append(short, string(m))
			}
		}
	}
	return []Violation{{Law: StableWhenBalanced, Members: short, Detail: fmt.Sprintf(
		"the members keep %d of their claims; a balanced assignment of %d resources to %d members keeps %d", kept, resources, len(members), most)}}
}

// sameTopics reports whether a and b hold the same topics, in any order.
func sameTopics(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
