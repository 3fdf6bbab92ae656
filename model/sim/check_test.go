package sim

import (
	"reflect"
	"slices"
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

// TestMemberSignature: a member's signature reads what it holds and
// nothing that names it. Renaming the members (names, ids, and a
// generation the encoding may write as a rank) leaves it as it was, the
// member's place in the view too; each field it reads changes it; a
// member the view does not list signs 0.
func TestMemberSignature(t *testing.T) {
	set := func(rs ...spec.Resource) spec.Set { return spec.NewSet(rs...) }
	a := spec.MemberView{Name: "A", ID: "A-1", Current: true, Generation: 3, Subscription: []string{"T", "UV"},
		Owns: set(spec.TP("T", 0), spec.TP("UV", 0)), Revoking: set(spec.TP("UV", 0))}
	other := spec.MemberView{Name: "B", ID: "B-2", Current: true, Generation: 3, Subscription: []string{"T"}}
	sign := func(v spec.MemberView, first bool) uint64 {
		view := spec.View{Members: []spec.MemberView{other, v}}
		if first {
			view.Members = []spec.MemberView{v, other}
		}
		return MemberSignature(view, v.Name)
	}
	base := sign(a, false)
	renamed := a
	renamed.Name, renamed.ID, renamed.Generation = "C", "C-7", 9
	if got := sign(renamed, true); got != base {
		t.Errorf("renamed (name, id, generation, place): %x, want %x as before", got, base)
	}
	for _, change := range []func(v *spec.MemberView){
		func(v *spec.MemberView) { v.Current = false },
		func(v *spec.MemberView) { v.Fenced = true },
		func(v *spec.MemberView) { v.Subscription = []string{"T"} },
		func(v *spec.MemberView) { v.Subscription = []string{"TU", "V"} },
		func(v *spec.MemberView) { v.Owns = set(spec.TP("T", 0)) },
		func(v *spec.MemberView) { v.Revoking = nil },
		func(v *spec.MemberView) {
			v.Owns, v.Revoking = set(spec.TP("T", 0)), set(spec.TP("UV", 0), spec.TP("T", 0))
		},
	} {
		v := a
		v.Subscription = slices.Clone(a.Subscription)
		change(&v)
		if sign(v, false) == base {
			t.Errorf("%+v signs as %+v", v, a)
		}
	}
	if got := MemberSignature(spec.View{Members: []spec.MemberView{other}}, "A"); got != 0 {
		t.Errorf("a member the view does not list: %x, want 0", got)
	}
}
