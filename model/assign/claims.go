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
	return resolveClaimMap(g).summary(g)
}

// claim is the resolution of one claimed resource.
type claim struct {
	// claimants are indexes into Group.Members, ascending.
	claimants []int
	// winner is the index of the member that wins the claim, -1 if tied.
	winner int
}

// claimTable holds the resolution of every claimed resource of a group,
// for ResolveClaims. The assignors use claimIndex, the same resolution over
// dense partition numbers.
type claimTable map[spec.Resource]*claim

// resolveClaimMap builds the claim table of g.
func resolveClaimMap(g Group) claimTable {
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

// claimIndex is the resolution of the claims of a group (the rules of
// Claims) over the dense partition numbers of a stickyIndex: only claims on
// partitions of the index's topics are recorded, since the sticky
// assignors neither keep nor hand out anything else.
type claimIndex struct {
	*stickyIndex
	// keepTied gives a tie at the highest generation to the tied claimant
	// with the lowest member ID (CooperativeOptions.KeepSameGenerationClaims).
	keepTied bool
	// cells holds one claimCell per dense partition, nil when no member
	// claims any partition of the index.
	cells []claimCell
	// racks, when decided (decideRacks), overrides KIP-881's rule on the
	// group at hand: for a sub-group's index, built from the whole group's.
	racks rackDecision
}

// claimCell is the resolution of the claims on one partition so far: w is 0
// while nobody claims it, i+2 when member i claims it alone at the highest
// generation top, and -(i+2) when member i is the first of several
// claimants at top.
type claimCell struct{ w, top int32 }

// Results of claimIndex.winner besides a member index.
const (
	claimTied      = -1 // several claimants at the highest generation
	claimUnclaimed = -2 // nobody claims the partition
)

// claimFaults are the deliberate faults of claim resolution, from
// CooperativeOptions; the zero value is Kafka's rules since KAFKA-14639.
type claimFaults struct {
	// keepTied: CooperativeOptions.KeepSameGenerationClaims.
	keepTied bool
	// dropStale: CooperativeOptions.DropStaleClaims.
	dropStale bool
}

// resolveClaims resolves the claims of the valid group g over its sticky
// index. With faults.keepTied (CooperativeOptions.KeepSameGenerationClaims),
// a tie at the highest generation goes to the tied claimant with the lowest
// member ID instead of to nobody. With faults.dropStale
// (CooperativeOptions.DropStaleClaims), the claims of every member whose
// generation is below the highest of the group are not recorded at all.
// Members are walked in order, so the first claimant to reach a generation
// is the lowest member index at that generation.
func resolveClaims(g Group, faults claimFaults) *claimIndex {
	c := &claimIndex{stickyIndex: newStickyIndex(g), keepTied: faults.keepTied}
	newest := spec.NoGeneration
	if faults.dropStale {
		for _, m := range g.Members {
			newest = max(newest, m.Generation)
		}
	}
	for i, m := range g.Members {
		if faults.dropStale && m.Generation < newest {
			// Kafka's allSubscriptionsEqual before KAFKA-14639 cleared the
			// owned partitions of every member below the highest generation.
			continue
		}
		gen := int32(m.Generation)
		var (
			topic string
			base  = -1
			at    = c.cursor()
		)
		for k, r := range m.Owned {
			if k == 0 || !spec.SameTopic(r.Topic, topic) {
				topic = r.Topic
				base = c.topicBase(&at, topic)
			}
			if base < 0 {
				continue
			}
			if c.cells == nil {
				c.cells = make([]claimCell, c.total())
			}
			cell := &c.cells[base+int(r.Partition)]
			switch {
			case cell.w == 0 || gen > cell.top:
				cell.w, cell.top = int32(i+2), gen
			case gen == cell.top && cell.w > 0:
				cell.w = -cell.w
			}
		}
	}
	return c
}

// winner returns the member index that wins dense partition d, claimTied
// or claimUnclaimed.
func (c *claimIndex) winner(d int) int {
	if c.cells == nil {
		return claimUnclaimed
	}
	switch w := int(c.cells[d].w); {
	case w == 0:
		return claimUnclaimed
	case w > 0:
		return w - 2
	case c.keepTied:
		return -w - 2
	default:
		return claimTied
	}
}

// changesOwner reports whether giving dense partition d to member i
// changes its owner in this round: some member claims it, and i is not the
// member that wins its claims. This covers d owned by another member, d
// claimed by i at a stale generation while another member holds it at a
// newer one, and d tied between several claimants (i among them or not).
func (c *claimIndex) changesOwner(d, i int) bool {
	w := c.winner(d)
	return w != claimUnclaimed && w != i
}

// withhold returns a copy of a without every resource whose owner the
// assignment changes (changesOwner): KIP-429's cooperative rule, as Kafka's
// CooperativeStickyAssignor.adjustAssignment applies it. The resources stay
// unassigned for this round; their claimants revoke them, and the follow-up
// rebalance hands them out. Every resource of a is a partition of c's
// topics.
func withhold(g Group, c *claimIndex, a spec.Assignment) spec.Assignment {
	out := make(spec.Assignment, len(a))
	for i, m := range g.Members {
		var (
			topic string
			base  int
			at    = c.cursor()
		)
		out[m.ID] = a[m.ID].Filter(func(r spec.Resource) bool {
			if !spec.SameTopic(r.Topic, topic) {
				topic, base = r.Topic, c.topicBase(&at, r.Topic)
			}
			return !c.changesOwner(base+int(r.Partition), i)
		})
	}
	return out
}
