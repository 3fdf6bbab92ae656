package nextgen

import (
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestMemberTableIsAMap: a memberTable under random puts and removes,
// small (a linear lookup) and large (a binary search), with ids of
// several lengths, holds what a map holds: the same record for every id,
// the ids in plain order from ids, and its entries in canon.CompareKeys
// order (ordered reports nothing).
func TestMemberTableIsAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := rapid.SliceOfNDistinct(rapid.StringMatching(`[A-Z]{1,3}-[0-9]{1,2}`), 1, 3*linearLookup, rapid.ID).Draw(t, "ids")
		var table memberTable
		ref := map[spec.MemberID]*member{}
		for i, n := 0, rapid.IntRange(1, 60).Draw(t, "ops"); i < n; i++ {
			id := spec.MemberID(rapid.SampledFrom(ids).Draw(t, "id"))
			if _, ok := ref[id]; ok && rapid.Bool().Draw(t, "remove") {
				table.remove(id)
				delete(ref, id)
			} else {
				m := &member{id: id, node: rapid.StringMatching(`[a-z]`).Draw(t, "node")}
				table.put(m)
				ref[id] = m
			}
			if err := table.ordered(); err != nil {
				t.Fatalf("after %d operations: %v", i+1, err)
			}
			if len(table) != len(ref) {
				t.Fatalf("after %d operations: %d records, the map holds %d", i+1, len(table), len(ref))
			}
			for _, x := range ids {
				id := spec.MemberID(x)
				if got, want := table.get(id), ref[id]; got != want || table.has(id) != (want != nil) {
					t.Fatalf("after %d operations: record of %s is %v (has %t), the map's %v", i+1, id, got, table.has(id), want)
				}
			}
			if got, want := table.ids(), slices.Sorted(maps.Keys(ref)); !slices.Equal(got, want) {
				t.Fatalf("after %d operations: ids %v, want %v", i+1, got, want)
			}
		}
	})
}

// TestMemberTableRemovePanicsOnStranger: removing a member the table does
// not hold is a caller's bug.
func TestMemberTableRemovePanicsOnStranger(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("remove of an unknown member did not panic")
		}
	}()
	table := memberTable{{id: "A"}}
	table.remove("B")
}
