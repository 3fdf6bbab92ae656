package canon

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// record stands for a node's record in a Table: a pointer, as the
// coordinators store.
type record struct{ key, value string }

// TestTableIsAMap: a Table under random puts and removes, small (a linear
// lookup) and large (a binary search), with keys of several lengths,
// holds what a map holds: the same record under every key, the keys in
// plain order from AppendKeys (after what dst held), its rows in
// CompareKeys order (Ordered reports nothing), and an encoding equal to
// KeyedMap's of the map.
func TestTableIsAMap(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		keyGen := rapid.StringMatching(`[A-Z]{1,3}-[0-9]{1,2}`)
		keys := rapid.SliceOfNDistinct(keyGen, 1, 3*linearLookup, rapid.ID).Draw(rt, "keys")
		var table Table[string, *record]
		want := map[string]*record{}
		for op := range rapid.IntRange(1, 60).Draw(rt, "ops") {
			k := rapid.SampledFrom(keys).Draw(rt, "key")
			if want[k] != nil && rapid.Bool().Draw(rt, "remove") {
				table.Remove(k)
				delete(want, k)
			} else {
				r := &record{key: k, value: rapid.StringMatching(`[a-z]`).Draw(rt, "value")}
				table.Put(k, r)
				want[k] = r
			}
			checkTable(rt, op+1, table, keys, want)
		}
	})
}

// checkTable fails rt unless table holds exactly want (keys are every key
// the test may use).
func checkTable(rt *rapid.T, ops int, table Table[string, *record], keys []string, want map[string]*record) {
	if err := table.Ordered(); err != nil {
		rt.Fatalf("after %d operations: %v", ops, err)
	}
	if len(table) != len(want) {
		rt.Fatalf("after %d operations: %d rows, the map holds %d", ops, len(table), len(want))
	}
	for _, k := range keys {
		if got := table.Get(k); got != want[k] || table.Has(k) != (want[k] != nil) {
			rt.Fatalf("after %d operations: under %s %v (Has %t), the map holds %v", ops, k, got, table.Has(k), want[k])
		}
	}
	dst := []string{"kept"}
	if got, sorted := table.AppendKeys(dst), append(dst, slices.Sorted(maps.Keys(want))...); !slices.Equal(got, sorted) {
		rt.Fatalf("after %d operations: AppendKeys gives %v, want %v", ops, got, sorted)
	}
	byTable, byMap := &Encoder{}, &Encoder{}
	table.Encode(byTable, func(r *record) { byTable.String(r.value) })
	KeyedMap(byMap, want, func(r *record) { byMap.String(r.value) })
	if a, b := byTable.Finish(), byMap.Finish(); string(a) != string(b) {
		rt.Fatalf("after %d operations: the table encodes as %x, the map as %x", ops, a, b)
	}
}

// TestTableRefusesBrokenRows: Remove of a key the table does not hold is a
// caller's bug and panics; Ordered names a row without a key and the
// first pair of rows out of order.
func TestTableRefusesBrokenRows(t *testing.T) {
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), `"B"`) {
				t.Errorf("Remove of an unknown key: panic %v, want one naming it", r)
			}
		}()
		table := Table[string, int]{{Key: "A", Rec: 1}}
		table.Remove("B")
	}()
	for _, tc := range []struct {
		keys []string
		want string
	}{
		{[]string{"A", ""}, "table row 1 has no key"},
		{[]string{"B", "A"}, `table holds "A" after "B"`},
		{[]string{"AA", "B"}, `table holds "B" after "AA"`},
		{[]string{"A", "B", "B"}, `table holds "B" after "B"`},
		{[]string{"B", "AA"}, ""},
	} {
		var table Table[string, int]
		for _, k := range tc.keys {
			table = append(table, Row[string, int]{Key: k})
		}
		err := table.Ordered()
		if got := fmtErr(err); got != tc.want {
			t.Errorf("Ordered of rows %q: %q, want %q", tc.keys, got, tc.want)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
