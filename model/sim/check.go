package sim

import (
	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/spec"
)

// Interchangeable groups names whose keys are equal (each world keys a
// member by the canonical encoding of its configuration without its
// name), keeping only groups of two or more, in first-seen order: the
// members the model checker's symmetry reduction may permute.
func Interchangeable(names, keys []string) [][]string {
	groups := map[string][]string{}
	var order []string
	for i, k := range keys {
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], names[i])
	}
	var out [][]string
	for _, k := range order {
		if len(groups[k]) > 1 {
			out = append(out, groups[k])
		}
	}
	return out
}

// Owners fingerprints who owns what in a view, and who is current: the
// model checker's stability law compares it along cycles.
func Owners(v spec.View) uint64 {
	e := &canon.Encoder{}
	for _, mv := range v.Members {
		e.String(mv.Name)
		e.String(mv.Owns.String())
		e.Bool(mv.Current)
	}
	return canon.Fingerprint(e.Finish())
}
