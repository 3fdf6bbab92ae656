package spec

import "slices"

// roundClean reports that r breaks none of the laws CheckRound checks,
// in one pass over the claims and one over the assignment, without
// allocating per member: true only when it can tell. False means that it
// cannot, not that a law is broken: CheckRound then runs its exact checks,
// which find what (if anything) is wrong. Almost every round of a real
// group is clean, and a leader of a thousand members over 100,000
// partitions checks every round it leads (the cost simulator's largest
// runs spent a tenth of their time in CheckRound's separate passes and
// their map lookups).
//
// It gives up (false) on anything its marks cannot settle: a member of
// the assignment unknown to the round, a set not sorted or with an
// invalid resource, a connector, a resource outside the universe (any
// resource, when the round has none) or outside the member's
// subscription, a partition given twice, and, in a cooperative round, a
// claim outside the universe or a partition given to a member while
// another member is the last to claim it.
func roundClean(r Round) bool {
	u := newRoundMarks(r.Topics) // no universe: every partition is outside it
	var membersBuf [16]MemberID
	members := r.Assigned.AppendMembers(membersBuf[:0])
	if r.Cooperative {
		// Claimants are numbered 1.. in the order of the assignment's
		// members; one the assignment leaves out takes a number no member
		// of it has (which one does not matter: any claim by another
		// member gives up).
		for i, m := range members {
			if !u.claim(r.Claims[m], uint32(i+1)) {
				return false
			}
		}
		outside := uint32(len(members) + 1)
		for o, set := range r.Claims {
			if _, in := r.Assigned[o]; in {
				continue
			}
			if !u.claim(set, outside) {
				return false
			}
		}
	}
	for i, m := range members {
		subs, known := r.Subscriptions[m]
		if !known || !u.give(r.Assigned[m], subs, uint32(i+1)) {
			return false
		}
	}
	return true
}

// roundMarks marks the partitions of a round's universe, one slice per
// topic made when first needed. A mark holds, in givenBit, whether the
// round gives the partition, and in its other bits who claims it: 0
// nobody, else the number of the last claimant. A partition several
// members claim is safe to give to that one (it claims it, so the round
// does not add it to it); to anyone else, give gives up.
type roundMarks struct {
	names  []string // the universe's topics (and connector markers), sorted
	counts []int32  // counts[k] is names[k]'s partition count
	marks  [][]uint32
}

const givenBit = 1 << 31

func newRoundMarks(t Topics) *roundMarks {
	u := &roundMarks{names: AppendSortedKeys(make([]string, 0, len(t)), t)}
	u.counts = make([]int32, len(u.names))
	for k, n := range u.names {
		u.counts[k] = t[n]
	}
	u.marks = make([][]uint32, len(u.names))
	return u
}

// run returns the marks of topic, nil when the universe has no such
// topic or it sorts before names[*k]. A set is sorted by topic, so its
// runs look topics up in order: *k, the caller's cursor into names, only
// moves forward within one set.
func (u *roundMarks) run(topic string, k *int) []uint32 {
	for *k < len(u.names) && u.names[*k] < topic {
		*k++
	}
	if *k == len(u.names) || u.names[*k] != topic {
		return nil
	}
	if u.marks[*k] == nil {
		u.marks[*k] = make([]uint32, max(u.counts[*k], 0))
	}
	return u.marks[*k]
}

// claim marks set as claimed by claimant (a number below givenBit);
// false when set is not sorted or holds something that is not a partition
// of the universe.
func (u *roundMarks) claim(set Set, claimant uint32) bool {
	k := 0
	var marks []uint32
	for j, res := range set {
		if j == 0 || !SameTopic(res.Topic, set[j-1].Topic) {
			// A claim out of order is not found by the cursor, and
			// gives up.
			if marks = u.run(res.Topic, &k); marks == nil {
				return false
			}
		} else if res.Partition <= set[j-1].Partition {
			// Partitions out of order (or twice) within a topic: the
			// exact checks look claims up by binary search, which such a
			// set defeats, so only they can tell (the fuzzer's
			// 2ee534343d070140: a claim {a-1 a-0} that they do not see
			// claim a-0).
			return false
		}
		p := res.Partition
		if p < 0 || int(p) >= len(marks) {
			return false
		}
		marks[p] = claimant
	}
	return true
}

// give marks set as given to the member numbered receiver, whose
// subscription is subs; false when set is not a valid sorted set of
// partitions of the universe and of subs, gives a partition already
// given, or gives a partition another member claims last (only a
// cooperative round marks claims).
func (u *roundMarks) give(set Set, subs []string, receiver uint32) bool {
	sortedSubs := slices.IsSorted(subs)
	k, s := 0, 0 // cursors into u.names and subs
	var marks []uint32
	for j, res := range set {
		if j == 0 || !SameTopic(res.Topic, set[j-1].Topic) {
			// A topic out of order is not found by the cursor, which only
			// moves forward.
			if res.Topic == "" {
				return false
			}
			if marks = u.run(res.Topic, &k); marks == nil {
				return false
			}
			if sortedSubs {
				for s < len(subs) && subs[s] < res.Topic {
					s++
				}
				if s == len(subs) || subs[s] != res.Topic {
					return false
				}
			} else if !slices.Contains(subs, res.Topic) {
				return false
			}
		} else if res.Partition <= set[j-1].Partition {
			return false
		}
		p := res.Partition
		if p < 0 || int(p) >= len(marks) {
			return false
		}
		m := marks[p]
		if m&givenBit != 0 {
			return false
		}
		if c := m &^ givenBit; c != 0 && c != receiver {
			return false
		}
		marks[p] = m | givenBit
	}
	return true
}
