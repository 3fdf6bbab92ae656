package sim

import (
	"encoding/binary"
	"slices"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/spec"
)

// Interchangeable groups names by same, which tells whether the i-th and
// the j-th are configured alike but for their names (an equivalence: each
// name joins the group of the first earlier one it is the same as),
// keeping only groups of two or more, in first-seen order: the members
// the model checker's symmetry reduction may permute.
func Interchangeable(names []string, same func(i, j int) bool) [][]string {
	var groups [][]int // indexes into names; groups[g][0] stands for the group
	for i := range names {
		g := slices.IndexFunc(groups, func(group []int) bool { return same(group[0], i) })
		if g < 0 {
			groups = append(groups, []int{i})
			continue
		}
		groups[g] = append(groups[g], i)
	}
	var out [][]string
	for _, group := range groups {
		if len(group) > 1 {
			var ns []string
			for _, i := range group {
				ns = append(ns, names[i])
			}
			out = append(out, ns)
		}
	}
	return out
}

// MemberSignature hashes what the member process name holds in a view,
// without a name or an identity: for each of its entries (a process
// listed once per membership the view knows of), whether the group
// counts it and whether it was fenced, its subscription, and what it owns
// and is revoking; 0 when the view does not list it. A renaming of the
// members moves all of it with the member, so the model checker's
// symmetry reduction orders interchangeable members by it
// (checker.MemberSigner). The generation is left out: with unbounded
// leader bounces the encoding writes generations as ranks, so two states
// it merges may hold different ones.
func MemberSignature(v spec.View, name string) uint64 {
	var buf [512]byte
	b := buf[:0]
	for _, mv := range v.Members {
		if mv.Name != name {
			continue
		}
		b = canon.AppendBool(b, mv.Current)
		b = canon.AppendBool(b, mv.Fenced)
		b = binary.AppendUvarint(b, uint64(len(mv.Subscription)))
		for _, t := range mv.Subscription {
			b = canon.AppendString(b, t)
		}
		b = canon.AppendSet(b, mv.Owns)
		b = canon.AppendSet(b, mv.Revoking)
	}
	if len(b) == 0 {
		return 0
	}
	return canon.Fingerprint(b)
}

// Owners fingerprints who owns what in a view, and who is current: the
// model checker's stability law compares it along cycles, and asks it of
// every state, so it writes into a buffer on the stack for a small group
// rather than through an Encoder. Each name and topic is written with its
// length, and each member's set with its size, so that two views that
// differ in a name, a resource or a current flag are written differently.
func Owners(v spec.View) uint64 {
	var buf [512]byte
	b := buf[:0]
	for _, mv := range v.Members {
		b = canon.AppendString(b, mv.Name)
		b = canon.AppendSet(b, mv.Owns)
		b = canon.AppendBool(b, mv.Current)
	}
	return canon.Fingerprint(b)
}
