package spec

import "testing"

// TestFind: Find and Member find every member of a sorted view, the
// first, the last and those between, and nothing for a name before,
// between or after them, or in an empty view; Find points into the view.
func TestFind(t *testing.T) {
	v := View{Members: []MemberView{{Name: "B"}, {Name: "D", Generation: 4}, {Name: "F"}, {Name: "H"}}}
	for i, m := range v.Members {
		if got := v.Find(m.Name); got != &v.Members[i] {
			t.Errorf("Find(%s) = %p, want member %d", m.Name, got, i)
		}
		if got, ok := v.Member(m.Name); !ok || got.Name != m.Name || got.Generation != m.Generation {
			t.Errorf("Member(%s) = %+v, %t", m.Name, got, ok)
		}
	}
	for _, name := range []string{"A", "C", "E", "G", "I", ""} {
		if got := v.Find(name); got != nil {
			t.Errorf("Find(%q) = %+v, want nil", name, *got)
		}
		if _, ok := v.Member(name); ok {
			t.Errorf("Member(%q) found", name)
		}
	}
	if (View{}).Find("A") != nil {
		t.Error("Find in an empty view found a member")
	}
}
