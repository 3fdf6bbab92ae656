package nextgen

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/nextgen/reconcile"
	"github.com/rebalance-ref/rebalance/spec"
)

// corruption breaks (or may break) one part of a coordinator's state, in
// place; c is a Clone, whose maps it may write but whose member records
// and slices it must copy before changing them.
type corruption struct {
	name    string
	corrupt func(c *Coordinator, rng *rand.Rand)
}

// editMember replaces a random member's record by a copy changed by f; no
// change when there is no member.
func editMember(c *Coordinator, rng *rand.Rand, f func(m *member)) {
	if len(c.members) == 0 {
		return
	}
	i := rng.IntN(len(c.members))
	m := *c.members[i].Rec
	f(&m)
	c.members[i].Rec = &m // under the same key even if f changed m.id
}

// editSlot changes the slot of a random partition the owner map has a row
// for (held or not) by f.
func editSlot(c *Coordinator, rng *rand.Rand, f func(s slot) slot) {
	topics := slices.Sorted(maps.Keys(c.owners.topics))
	if len(topics) == 0 {
		return
	}
	t := topics[rng.IntN(len(topics))]
	row := c.owners.topics[t]
	if len(row) == 0 {
		return
	}
	r := spec.TP(t, int32(rng.IntN(len(row))-1))
	c.owners.set(r, f(c.owners.get(r)))
}

// randomID is a random member's id, or a stranger's.
func randomID(c *Coordinator, rng *rand.Rand) spec.MemberID {
	ids := c.members.AppendKeys(nil)
	if len(ids) == 0 || rng.IntN(4) == 0 {
		return "stranger"
	}
	return ids[rng.IntN(len(ids))]
}

var corruptions = []corruption{
	{"state", func(c *Coordinator, rng *rand.Rand) { c.state = GroupState(rng.IntN(4)) }},
	{"target epoch", func(c *Coordinator, rng *rand.Rand) { c.targetEpoch += spec.Epoch(rng.IntN(3) - 1) }},
	{"group epoch", func(c *Coordinator, rng *rand.Rand) { c.groupEpoch += spec.Epoch(rng.IntN(3) - 1) }},
	{"negative target epoch", func(c *Coordinator, rng *rand.Rand) { c.targetEpoch = -1 }},
	{"not created", func(c *Coordinator, rng *rand.Rand) { c.exists = false }},
	{"member id", func(c *Coordinator, rng *rand.Rand) {
		editMember(c, rng, func(m *member) { m.id = []spec.MemberID{"X", ""}[rng.IntN(2)] })
	}},
	{"instance id", func(c *Coordinator, rng *rand.Rand) {
		editMember(c, rng, func(m *member) { m.instanceID = []string{"", "i-A", "i-Z"}[rng.IntN(3)] })
	}},
	{"instance map", func(c *Coordinator, rng *rand.Rand) {
		c.instances = maps.Clone(c.instances)
		switch rng.IntN(3) {
		case 0:
			c.instances["i-Z"] = randomID(c, rng)
		case 1:
			for k := range c.instances {
				c.instances[k] = randomID(c, rng)
				break
			}
		default:
			for k := range c.instances {
				delete(c.instances, k)
				break
			}
		}
	}},
	{"assigned unsorted", func(c *Coordinator, rng *rand.Rand) {
		editMember(c, rng, func(m *member) {
			m.cur.Assigned = append(slices.Clone(m.cur.Assigned), spec.TP("a", 0))
		})
	}},
	{"assigned and pending overlap", func(c *Coordinator, rng *rand.Rand) {
		editMember(c, rng, func(m *member) {
			if len(m.cur.Assigned) > 0 {
				m.cur.PendingRevocation = m.cur.PendingRevocation.Add(m.cur.Assigned[rng.IntN(len(m.cur.Assigned))])
			}
		})
	}},
	{"pending revocation", func(c *Coordinator, rng *rand.Rand) {
		editMember(c, rng, func(m *member) { m.cur.PendingRevocation = m.cur.PendingRevocation.Add(spec.TP("b", 1)) })
	}},
	{"assigned", func(c *Coordinator, rng *rand.Rand) {
		editMember(c, rng, func(m *member) {
			if rng.IntN(2) == 0 && len(m.cur.Assigned) > 0 {
				m.cur.Assigned = slices.Delete(slices.Clone(m.cur.Assigned), 0, 1)
			} else {
				m.cur.Assigned = m.cur.Assigned.Add(spec.TP("c", int32(rng.IntN(4))))
			}
		})
	}},
	{"reconcile state", func(c *Coordinator, rng *rand.Rand) {
		editMember(c, rng, func(m *member) { m.cur.State = reconcile.State(rng.IntN(4)) })
	}},
	{"epoch", func(c *Coordinator, rng *rand.Rand) {
		editMember(c, rng, func(m *member) {
			m.cur.Epoch = []spec.Epoch{spec.StaticLeaveEpoch, -1, 0, c.targetEpoch, c.targetEpoch + 1}[rng.IntN(5)]
		})
	}},
	{"restarted at epoch 0", func(c *Coordinator, rng *rand.Rand) {
		// Consistent but for the epochs (the RestartOnNewTarget fault
		// records members so): its rebalance timer armed at epoch 0.
		editMember(c, rng, func(m *member) {
			m.cur.Epoch, m.cur.PreviousEpoch, m.cur.State = 0, 0, reconcile.UnrevokedPartitions
			m.rebalanceArmed, m.rebalanceEpoch = !m.cl.use, 0
		})
	}},
	{"previous epoch", func(c *Coordinator, rng *rand.Rand) {
		editMember(c, rng, func(m *member) { m.cur.PreviousEpoch = m.cur.Epoch + spec.Epoch(rng.IntN(3)-1) })
	}},
	{"subscription", func(c *Coordinator, rng *rand.Rand) {
		editMember(c, rng, func(m *member) {
			m.subscription = [][]string{{"b", "a"}, {"a", "a"}, {"a"}, {"c"}, {"a", "b", "c", "d"}, nil}[rng.IntN(6)]
		})
	}},
	{"session timer", func(c *Coordinator, rng *rand.Rand) {
		editMember(c, rng, func(m *member) { m.sessionArmed = !m.sessionArmed })
	}},
	{"rebalance timer", func(c *Coordinator, rng *rand.Rand) {
		editMember(c, rng, func(m *member) { m.rebalanceArmed = !m.rebalanceArmed })
	}},
	{"rebalance epoch", func(c *Coordinator, rng *rand.Rand) {
		editMember(c, rng, func(m *member) { m.rebalanceEpoch += spec.Epoch(rng.IntN(3) - 1) })
	}},
	{"classic record", func(c *Coordinator, rng *rand.Rand) {
		editMember(c, rng, func(m *member) {
			if rng.IntN(2) == 0 {
				m.cl.use = !m.cl.use
			} else {
				m.cl.joinAt = 5
			}
		})
	}},
	{"no target", func(c *Coordinator, rng *rand.Rand) { delete(c.target, randomID(c, rng)) }},
	{"target", func(c *Coordinator, rng *rand.Rand) {
		c.target[randomID(c, rng)] = c.target[randomID(c, rng)].Add(spec.TP([]string{"a", "b", "c", "d"}[rng.IntN(4)], int32(rng.IntN(5))))
	}},
	{"owner slot emptied", func(c *Coordinator, rng *rand.Rand) { editSlot(c, rng, func(slot) slot { return slot{} }) }},
	{"owner slot holder", func(c *Coordinator, rng *rand.Rand) {
		editSlot(c, rng, func(s slot) slot { return slotOf([]holder{{member: randomID(c, rng)}}) })
	}},
	{"owner slot epoch", func(c *Coordinator, rng *rand.Rand) {
		editSlot(c, rng, func(s slot) slot {
			if !s.empty() {
				s.first.epoch = 1
			}
			return s
		})
	}},
	{"owner slot extra holder", func(c *Coordinator, rng *rand.Rand) {
		editSlot(c, rng, func(s slot) slot {
			hs := append(s.holders(), holder{member: randomID(c, rng)})
			if rng.IntN(2) == 0 {
				slices.SortFunc(hs, compareHolders)
			}
			return slotOf(hs)
		})
	}},
	{"owner slot order", func(c *Coordinator, rng *rand.Rand) {
		editSlot(c, rng, func(s slot) slot { return slotOf(append([]holder{{member: "zz"}}, s.holders()...)) })
	}},
	{"subscription metadata", func(c *Coordinator, rng *rand.Rand) {
		c.subscribed = maps.Clone(c.subscribed)
		if c.subscribed == nil {
			c.subscribed = spec.Topics{}
		}
		t := []string{"a", "b", "c", "d"}[rng.IntN(4)]
		switch rng.IntN(3) {
		case 0:
			delete(c.subscribed, t)
		case 1:
			c.subscribed[t]++
		default:
			c.subscribed[t] = c.topics[t]
		}
	}},
	{"metadata", func(c *Coordinator, rng *rand.Rand) {
		c.topics = maps.Clone(c.topics)
		t := []string{"a", "b", "c", "d"}[rng.IntN(4)]
		if rng.IntN(2) == 0 {
			delete(c.topics, t)
		} else {
			c.topics[t]++
		}
	}},
	{"metadata expired", func(c *Coordinator, rng *rand.Rand) { c.metadataExpired = !c.metadataExpired }},
}

// TestInvariantsHoldAgreesWithCheck: the allocation-free invariantsHold
// says the invariants hold exactly when checkInvariants (which builds the
// report) returns nil, on every state of random runs (with and without the
// faults that relax the owner-map invariants) and on copies of them broken
// by one or two random corruptions.
func TestInvariantsHoldAgreesWithCheck(t *testing.T) {
	for _, f := range []Fault{0, AssignBeforeRelease, PerSetEpochUpdate} {
		t.Run(fmt.Sprint(f), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(f), 7))
			broken, held := 0, 0
			agree := func(c *Coordinator, what string) {
				t.Helper()
				err := c.checkInvariants()
				if ok := c.invariantsHold(); ok != (err == nil) {
					t.Fatalf("%s: invariantsHold() = %t, checkInvariants() = %v", what, ok, err)
				}
				if err := c.CheckInvariants(); (err == nil) != (c.checkInvariants() == nil) {
					t.Fatalf("%s: CheckInvariants() = %v", what, err)
				}
				if err == nil {
					held++
				} else {
					broken++
				}
			}
			for seed := uint64(1); seed <= 20; seed++ {
				func() {
					defer func() {
						if r := recover(); r != nil {
							if _, ok := r.(randomFailure); !ok {
								panic(r)
							}
						}
					}()
					runRandomObserved(t, seed, f, true, func(c *Coordinator) {
						agree(c, "after a step")
						for range 3 {
							d := c.Clone()
							var names []string
							for range 1 + rng.IntN(2) {
								k := corruptions[rng.IntN(len(corruptions))]
								k.corrupt(d, rng)
								names = append(names, k.name)
							}
							if rng.IntN(2) == 0 {
								d.state = d.derivedState()
							}
							agree(d, fmt.Sprintf("corrupted %v", names))
						}
					})
				}()
			}
			if broken == 0 || held == 0 {
				t.Fatalf("%d states with the invariants held, %d broken: want both", held, broken)
			}
		})
	}
}

// TestInvariantsHoldAllocatesNothing: the fast check allocates nothing on
// a coordinator whose invariants hold.
func TestInvariantsHoldAllocatesNothing(t *testing.T) {
	h := baseGroup(t, CoordinatorConfig{})
	if !h.Node.invariantsHold() {
		t.Fatal("the base group's invariants do not hold")
	}
	if n := testing.AllocsPerRun(100, func() { _ = h.Node.CheckInvariants() }); n != 0 {
		t.Fatalf("CheckInvariants allocates %v times", n)
	}
}
