package sim

import (
	"reflect"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestInterchangeable: names configured alike form groups in first-seen
// order, one-name groups are dropped, and each name is compared with the
// first of a group only.
func TestInterchangeable(t *testing.T) {
	keys := []string{"x", "y", "x", "z", "y"}
	calls := 0
	same := func(i, j int) bool { calls++; return keys[i] == keys[j] }
	got := Interchangeable([]string{"A", "B", "C", "D", "E"}, same)
	want := [][]string{{"A", "C"}, {"B", "E"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// B against A; C against A; D against A and B; E against A and B.
	if calls != 6 {
		t.Errorf("same called %d times, want 6 (once per earlier group)", calls)
	}
	if got := Interchangeable([]string{"A", "B"}, func(i, j int) bool { return false }); got != nil {
		t.Errorf("distinct configurations grouped: %v", got)
	}
}

// TestOwners: views that differ in who is current, in a member's name, or
// in what a member owns have different fingerprints, a difference that
// moves a resource or a name's letters between members included; equal
// views, built apart, have equal ones, a nil set and an empty one
// included.
func TestOwners(t *testing.T) {
	set := func(rs ...spec.Resource) spec.Set { return spec.NewSet(rs...) }
	member := func(name string, current bool, owns spec.Set) spec.MemberView {
		return spec.MemberView{Name: name, Current: current, Owns: owns}
	}
	base := spec.View{Members: []spec.MemberView{member("A", true, set(spec.TP("T", 0), spec.TP("T", 1))), member("B", true, set(spec.TP("U", 0)))}}
	views := []spec.View{
		base,
		{Members: []spec.MemberView{member("A", false, set(spec.TP("T", 0), spec.TP("T", 1))), member("B", true, set(spec.TP("U", 0)))}},
		{Members: []spec.MemberView{member("A", true, set(spec.TP("T", 0))), member("B", true, set(spec.TP("T", 1), spec.TP("U", 0)))}},
		{Members: []spec.MemberView{member("A", true, set(spec.TP("T", 0), spec.TP("T", 1), spec.TP("U", 0))), member("B", true, nil)}},
		{Members: []spec.MemberView{member("A", true, set(spec.TP("T", 0), spec.TP("T", 10))), member("B", true, set(spec.TP("U", 0)))}},
		{Members: []spec.MemberView{member("A", true, set(spec.TP("T", 0), spec.TP("T", 1))), member("C", true, set(spec.TP("U", 0)))}},
		{Members: []spec.MemberView{member("AB", true, set(spec.TP("T", 0), spec.TP("T", 1))), member("", true, set(spec.TP("U", 0)))}},
		{Members: []spec.MemberView{member("A", true, set(spec.TP("T", 0), spec.TP("T", 1))), member("B", true, set(spec.Connector("U")))}},
		{Members: []spec.MemberView{member("A", true, set(spec.TP("T", 0), spec.TP("T", 1)))}},
		// Names are free, so views whose bytes would run together
		// without the lengths of names and sets: a name that holds what
		// another member's fields would be, and a set whose resource
		// would read as the next member.
		{Members: []spec.MemberView{member("A", false, nil), member("", false, nil)}},
		{Members: []spec.MemberView{member("A\x00\x00", false, nil)}},
		{Members: []spec.MemberView{member("A", false, set(spec.TP("", 0)))}},
	}
	seen := map[uint64]int{}
	for i, v := range views {
		fp := Owners(v)
		if j, ok := seen[fp]; ok {
			t.Errorf("views %d and %d have one fingerprint:\n%+v\n%+v", j, i, views[j], v)
		}
		seen[fp] = i
	}
	again := spec.View{Members: []spec.MemberView{member("A", true, set(spec.TP("T", 1), spec.TP("T", 0))), member("B", true, set(spec.TP("U", 0)))}}
	if Owners(again) != Owners(base) {
		t.Error("two equal views have different fingerprints")
	}
	// A member owning nothing owns nothing, whether its set is nil or
	// empty: the stability law must not see a change between the two.
	none := spec.View{Members: []spec.MemberView{member("A", true, nil)}}
	empty := spec.View{Members: []spec.MemberView{member("A", true, spec.Set{})}}
	if Owners(none) != Owners(empty) {
		t.Error("a nil set and an empty one have different fingerprints")
	}
}
