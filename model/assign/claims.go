package assign

import (
	"maps"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// Claims is the outcome of resolving, by generation, what the members of a
// group claim to own (Member.Owned at Member.Generation), following Kafka's
// AbstractStickyAssignor (clients/.../internals/AbstractStickyAssignor.java,
// allSubscriptionsEqual and prepopulateCurrentAssignments):
//
//   - a resource claimed by one member only is won by that member, even when
//     its generation is stale (older than other members');
//   - a resource claimed by several members is won by the one claiming it at
//     the highest generation among them;
//   - when two or more members claim it at that highest generation, nobody
//     wins it (Kafka's partitionsWithMultiplePreviousOwners).
//
// The rule is order-independent: Kafka's pairwise loop gives the same result
// for every member order. Claims are resolved whatever the claimant
// subscribes to: a member that no longer subscribes to a topic can still win
// a partition of it (and then loses it to the assignor, which never assigns
// an unsubscribed topic).
type Claims struct {
	// Won maps every member of the group to the claimed resources it wins
	// (possibly none), sorted.
	Won spec.Assignment
	// Contested holds every resource claimed by two or more members.
	Contested spec.Set
	// Tied holds the contested resources nobody wins: several members claim
	// them at the highest generation among their claimants.
	Tied spec.Set
}

// ResolveClaims resolves the claims of g as the Claims type documents. g is
// assumed valid (see ValidateGroup); the result shares nothing mutable
// with g.
func ResolveClaims(g Group) Claims {
	return resolveClaims(g, false).summary(g)
}

// claim is the resolution of one claimed resource.
type claim struct {
	// claimants are indexes into Group.Members, ascending.
	claimants []int
	// winner is the index of the member that wins the claim, -1 if tied.
	winner int
}

// claimTable holds the resolution of every claimed resource of a group.
type claimTable map[spec.Resource]*claim

// resolveClaims builds the claim table of g. With keepTied (a deliberate
// fault, CooperativeOptions.KeepSameGenerationClaims), a tie at the highest
// generation goes to the tied claimant with the lowest member ID instead of
// to nobody.
func resolveClaims(g Group, keepTied bool) claimTable {
	t := claimTable{}
	for i, m := range g.Members {
		for _, r := range m.Owned {
			c := t[r]
			if c == nil {
				c = &claim{}
				t[r] = c
			}
			c.claimants = append(c.claimants, i)
		}
	}
	for _, c := range t {
		c.winner = -1
		top, n := spec.NoGeneration-1, 0
		for _, i := range c.claimants {
			switch gen := g.Members[i].Generation; {
			case gen > top:
				top, n, c.winner = gen, 1, i
			case gen == top:
				n++
			}
		}
		if n > 1 {
			c.winner = -1
			if keepTied {
				for _, i := range c.claimants {
					if g.Members[i].Generation == top {
						c.winner = i
						break
					}
				}
			}
		}
	}
	return t
}

// won returns the claimed resources member i of g wins, sorted.
func (t claimTable) won(g Group, i int) spec.Set {
	var out spec.Set
	for _, r := range g.Members[i].Owned {
		if t[r].winner == i {
			out = append(out, r)
		}
	}
	return out
}

// summary turns the table into the exported Claims.
func (t claimTable) summary(g Group) Claims {
	c := Claims{Won: make(spec.Assignment, len(g.Members))}
	for i, m := range g.Members {
		c.Won[m.ID] = t.won(g, i)
	}
	for _, r := range slices.SortedFunc(maps.Keys(t), spec.Resource.Compare) {
		if len(t[r].claimants) > 1 {
			c.Contested = append(c.Contested, r)
			if t[r].winner < 0 {
				c.Tied = append(c.Tied, r)
			}
		}
	}
	return c
}

// changesOwner reports whether giving r to member i of the group changes r's
// owner in this round: some other member claims r, and i is not the member
// that wins r's claims. This covers r owned by another member, r claimed by
// i at a stale generation while another member holds it at a newer one, and
// r tied between several claimants (i among them or not).
func (t claimTable) changesOwner(r spec.Resource, i int) bool {
	c := t[r]
	if c == nil || c.winner == i {
		return false
	}
	return len(c.claimants) > 1 || c.claimants[0] != i
}

// withhold returns a copy of a without every resource whose owner the
// assignment changes (changesOwner): KIP-429's cooperative rule, as Kafka's
// CooperativeStickyAssignor.adjustAssignment applies it. The resources stay
// unassigned for this round; their claimants revoke them, and the follow-up
// rebalance hands them out.
func withhold(g Group, t claimTable, a spec.Assignment) spec.Assignment {
	out := make(spec.Assignment, len(a))
	for i, m := range g.Members {
		out[m.ID] = a[m.ID].Filter(func(r spec.Resource) bool { return !t.changesOwner(r, i) })
	}
	return out
}
