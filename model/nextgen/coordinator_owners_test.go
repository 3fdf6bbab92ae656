package nextgen

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/nextgen/reconcile"
	"github.com/rebalance-ref/rebalance/spec"
)

// refOwners is the owner map as it was before ownerMap: a map from each
// held partition to its holders, updated by removing everything a member
// held and adding everything it holds, on every heartbeat. It is the
// reference the owner map is checked against.
type refOwners struct {
	faults Fault
	owners map[spec.Resource][]holder
}

func (c *refOwners) updateHoldings(id spec.MemberID, old *reconcile.Member, next reconcile.Member) {
	switch {
	case !c.faults.Has(PerSetEpochUpdate):
		if old != nil {
			c.removeHoldings(id, old.Assigned.Union(old.PendingRevocation))
		}
		c.addHoldings(id, next.Epoch, next.Assigned.Union(next.PendingRevocation))
	case old == nil:
		c.addHoldings(id, next.Epoch, next.Assigned)
		c.addHoldings(id, next.Epoch, next.PendingRevocation)
	default:
		if !old.Assigned.Equal(next.Assigned) {
			c.removeHoldings(id, old.Assigned)
			c.addHoldings(id, next.Epoch, next.Assigned)
		}
		if !old.PendingRevocation.Equal(next.PendingRevocation) {
			c.removeHoldings(id, old.PendingRevocation)
			c.addHoldings(id, next.Epoch, next.PendingRevocation)
		}
	}
}

func (c *refOwners) removeHoldings(id spec.MemberID, ps spec.Set) {
	for _, p := range ps {
		if c.faults.Has(PerSetEpochUpdate) {
			delete(c.owners, p)
			continue
		}
		hs := c.owners[p]
		i := slices.IndexFunc(hs, func(h holder) bool { return h.member == id })
		if i < 0 {
			panic(fmt.Sprintf("coordinator: partition %s is not held by %s (holders %v)", p, id, hs))
		}
		if len(hs) == 1 {
			delete(c.owners, p)
			continue
		}
		c.owners[p] = slices.Delete(slices.Clone(hs), i, i+1)
	}
}

func (c *refOwners) addHoldings(id spec.MemberID, e spec.Epoch, ps spec.Set) {
	for _, p := range ps {
		if c.faults.Has(PerSetEpochUpdate) {
			c.owners[p] = []holder{{member: id, epoch: e}}
			continue
		}
		hs := c.owners[p]
		if len(hs) > 0 && !c.faults.Has(AssignBeforeRelease) {
			panic(fmt.Sprintf("coordinator: %s would take %s, which %s still holds at epoch %d", id, p, hs[0].member, hs[0].epoch))
		}
		if slices.ContainsFunc(hs, func(h holder) bool { return h.member == id }) {
			panic(fmt.Sprintf("coordinator: %s already holds %s", id, p))
		}
		next := append(slices.Clone(hs), holder{member: id, epoch: e})
		slices.SortFunc(next, func(a, b holder) int { return strings.Compare(string(a.member), string(b.member)) })
		c.owners[p] = next
	}
}

// holdings is what the coordinator and the reference both do to their
// owner maps.
type holdings interface {
	updateHoldings(id spec.MemberID, old *reconcile.Member, next reconcile.Member)
	removeHoldings(id spec.MemberID, ps spec.Set)
}

// ownersMap returns c's owner map as the reference keeps it, with the
// holders' epochs.
func (c *Coordinator) ownersMap() map[spec.Resource][]holder {
	out := map[spec.Resource][]holder{}
	c.owners.each(func(r spec.Resource, s slot) { out[r] = c.holders(s) })
	return out
}

// panicOf runs f and returns what it panicked with, or nil.
func panicOf(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

// ownerUniverse has a connector, so that partition -1 is covered, and
// topics of different lengths.
var ownerUniverse = spec.NewSet(spec.Connector("c")).Union(spec.Range("c", 0, 1)).
	Union(spec.Range("t", 0, 4)).Union(spec.Range("u", 0, 2))

// TestOwnerMapMatchesReference drives the coordinator's owner map (and its
// member records, which give the holders' epochs) and the reference with
// the same random updates (members joining, moving,
// re-epoching, keeping everything, parking and leaving, under every
// combination of the two faults that change the map) and requires the
// same entries after each update, and a panic with the same message
// whenever the reference panics.
func TestOwnerMapMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var faults Fault
		if rapid.Bool().Draw(t, "assignBeforeRelease") {
			faults |= AssignBeforeRelease
		}
		if rapid.Bool().Draw(t, "perSetEpochUpdate") {
			faults |= PerSetEpochUpdate
		}
		// The coordinator's member records give the holders' epochs.
		c := &Coordinator{cfg: &CoordinatorConfig{Faults: faults}}
		ref := &refOwners{faults: faults, owners: map[spec.Resource][]holder{}}
		ids := []spec.MemberID{"A", "B", "C"}
		cur := map[spec.MemberID]reconcile.Member{}
		subset := func(label string) spec.Set {
			return ownerUniverse.Filter(func(spec.Resource) bool { return rapid.Bool().Draw(t, label) })
		}
		for step := range rapid.IntRange(1, 30).Draw(t, "steps") {
			id := rapid.SampledFrom(ids).Draw(t, "member")
			old, known := cur[id]
			var apply func(o holdings)
			var next reconcile.Member
			leave := known && rapid.IntRange(0, 5).Draw(t, "leave") == 0
			if leave {
				apply = func(o holdings) {
					o.removeHoldings(id, old.Assigned.Union(old.PendingRevocation))
				}
			} else {
				next = reconcile.Member{Epoch: spec.Epoch(rapid.IntRange(-2, 5).Draw(t, "epoch"))}
				switch {
				case known && rapid.Bool().Draw(t, "keep"):
					// A keep-alive or a new epoch over the same sets.
					next.Assigned, next.PendingRevocation = old.Assigned, old.PendingRevocation
				case known && rapid.Bool().Draw(t, "move"):
					// Some of the old holding moves to pending revocation,
					// back, or away; some is new.
					all := old.Assigned.Union(old.PendingRevocation)
					next.Assigned = all.Filter(func(spec.Resource) bool { return rapid.Bool().Draw(t, "kept") }).Union(subset("added"))
					next.PendingRevocation = all.Minus(next.Assigned).Filter(func(spec.Resource) bool { return rapid.Bool().Draw(t, "revoking") })
				default:
					next.Assigned = subset("assigned")
					next.PendingRevocation = subset("pending").Minus(next.Assigned)
				}
				var prev *reconcile.Member
				if known {
					prev = &old
				}
				apply = func(o holdings) {
					o.updateHoldings(id, prev, next)
				}
			}
			want := panicOf(func() { apply(ref) })
			got := panicOf(func() { apply(c) })
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("step %d (%s): panic %v, reference panics %v", step, id, got, want)
			}
			if want != nil {
				return // both maps are half updated: nothing more to compare
			}
			if leave {
				delete(cur, id)
				c.members.Remove(id)
			} else {
				cur[id] = next
				c.setRecord(member{id: id, cur: next})
			}
			if got, want := c.ownersMap(), ref.owners; !maps.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("step %d (%s): owners %v, reference %v", step, id, got, want)
			}
			if n := c.owners.len(); n != len(ref.owners) {
				t.Fatalf("step %d: %d partitions held, reference %d", step, n, len(ref.owners))
			}
		}
	})
}
