package assign

import (
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/spec"
)

// Loads returns the number of resources each member of a holds. A member
// present in a with an empty set has load 0.
func Loads(a spec.Assignment) map[spec.MemberID]int {
	out := make(map[spec.MemberID]int, len(a))
	for m, s := range a {
		out[m] = s.Len()
	}
	return out
}

// ViewOf returns the ownership view of a group right after it applied a: one
// current member per member of g, named by its member ID, at its generation,
// with its subscription and owning exactly a[m]. It is what spec.CheckCoverage
// and spec.CheckBalance take to judge an assignor's result. g is assumed
// valid (see ValidateGroup).
func ViewOf(g Group, a spec.Assignment) spec.View {
	v := spec.View{Topics: g.Topics, Members: make([]spec.MemberView, 0, len(g.Members))}
	for _, m := range g.Members {
		v.Members = append(v.Members, spec.MemberView{
			Name:         string(m.ID),
			ID:           m.ID,
			Current:      true,
			Generation:   m.Generation,
			Subscription: slices.Clone(m.Topics),
			Owns:         a[m.ID],
		})
	}
	return v.Sort()
}

// RoundOf returns the spec.Round of one assignment: the group's universe,
// subscriptions and claims (Owned), and a as the assigned sets. With
// cooperative set, spec.CheckRound also checks CooperativeHandoff. This is
// the check a classic leader runs on its assignor's output.
func RoundOf(g Group, a spec.Assignment, cooperative bool) spec.Round {
	r := spec.Round{
		Topics:        g.Topics,
		Subscriptions: make(map[spec.MemberID][]string, len(g.Members)),
		Claims:        make(map[spec.MemberID]spec.Set, len(g.Members)),
		Assigned:      a,
		Cooperative:   cooperative,
	}
	for _, m := range g.Members {
		r.Subscriptions[m.ID] = slices.Clone(m.Topics)
		r.Claims[m.ID] = m.Owned
	}
	return r
}

// kafkaOrder returns the indexes of g.Members in the order Kafka's range and
// round-robin assignors iterate members (ConsumerPartitionAssignor.MemberInfo
// compareTo, and the server-side RangeAssignor): static members (non-empty
// InstanceID) first, ordered by instance ID, then dynamic members ordered by
// member ID.
func kafkaOrder(members []Member) []int {
	idx := make([]int, len(members))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		a, b := members[i], members[j]
		switch {
		case a.InstanceID != "" && b.InstanceID != "":
			if c := strings.Compare(a.InstanceID, b.InstanceID); c != 0 {
				return c
			}
		case a.InstanceID != "":
			return -1
		case b.InstanceID != "":
			return 1
		}
		return strings.Compare(string(a.ID), string(b.ID))
	})
	return idx
}

// inSubscription reports whether m subscribes to topic (m.Topics is sorted).
func inSubscription(m Member, topic string) bool {
	_, ok := slices.BinarySearch(m.Topics, topic)
	return ok
}

// subscribedTopics returns the topics of the universe that at least one
// member subscribes to, sorted. Topics that are not in the universe are left
// out; topics with zero partitions are kept.
func subscribedTopics(g Group) []string {
	var out []string
	for _, t := range g.Topics.Names() {
		for _, m := range g.Members {
			if inSubscription(m, t) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// emptyAssignment returns an assignment that maps every member of g to the
// empty set.
func emptyAssignment(g Group) spec.Assignment {
	a := make(spec.Assignment, len(g.Members))
	for _, m := range g.Members {
		a[m.ID] = nil
	}
	return a
}
