package assign

import (
	"maps"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// ValidGroup is a Group that ValidateGroup accepted, carried to
// AssignValid so that an assignor of this package does not check it a
// second time: a classic leader's policy and the next-gen coordinator
// validate the group they build (they must report a bad one as their own
// error), then hand it to the assignor, which validated it again in every
// round (a pass over every owned partition of the group, 3 to 4% of a
// large simulated group's time).
//
// It holds the group's slices and maps, not copies: it is valid only as
// long as no one writes to them, which the caller that validated the group
// must not do while it uses the ValidGroup. The zero ValidGroup is the
// empty group.
type ValidGroup struct{ g Group }

// Validate returns g as a ValidGroup, or ValidateGroup's error.
func Validate(g Group) (ValidGroup, error) {
	if err := ValidateGroup(g); err != nil {
		return ValidGroup{}, err
	}
	return ValidGroup{g}, nil
}

// ValidatePruned returns g as a ValidGroup, or ValidatePrunedGroup's
// error. Its precondition is ValidatePrunedGroup's: every Owned set of g
// is a valid spec.Set pruned to the existing partitions of g.Topics (as
// ValidPruned returns them); on any other group the ValidGroup it returns
// may not be valid.
func ValidatePruned(g Group) (ValidGroup, error) {
	if err := ValidatePrunedGroup(g); err != nil {
		return ValidGroup{}, err
	}
	return ValidGroup{g}, nil
}

// Group returns the validated group, sharing its slices and maps.
func (v ValidGroup) Group() Group { return v.g }

// validAssignor is an assignor of this package: Assign is ValidateGroup
// followed by assignValid, which takes a group ValidateGroup accepted and
// never writes to it.
type validAssignor interface {
	Assignor
	assignValid(g Group) (spec.Assignment, error)
}

// AssignValid returns what a.Assign(v.Group()) returns. An assignor of
// this package skips its check of the group (ValidateGroup accepted it)
// and reads the group itself, which it never modifies. Any other assignor
// gets a copy of the group's maps and of its slices (members, their
// subscriptions and owned sets, replica racks), so that one that writes to
// its input reaches nothing of the caller's.
func AssignValid(a Assignor, v ValidGroup) (spec.Assignment, error) {
	if va, ok := a.(validAssignor); ok {
		return va.assignValid(v.g)
	}
	return a.Assign(copyGroup(v.g))
}

// copyGroup returns a deep copy of g: nothing of it shares memory with g
// but strings.
func copyGroup(g Group) Group {
	out := Group{Topics: maps.Clone(g.Topics), Members: slices.Clone(g.Members)}
	for i := range out.Members {
		m := &out.Members[i]
		m.Topics = slices.Clone(m.Topics)
		m.Owned = slices.Clone(m.Owned)
	}
	if g.ReplicaRacks != nil {
		out.ReplicaRacks = make(map[string][][]string, len(g.ReplicaRacks))
		for t, parts := range g.ReplicaRacks {
			c := make([][]string, len(parts))
			for p, racks := range parts {
				c[p] = slices.Clone(racks)
			}
			out.ReplicaRacks[t] = c
		}
	}
	return out
}
