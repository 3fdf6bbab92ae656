package node

import "testing"

// TestCopyInto checks both ways of CopyInto: into a new value, and over
// a value nobody uses any more, which it must return, fully overwritten.
func TestCopyInto(t *testing.T) {
	type member struct {
		name  string
		epoch int
		owns  []string
	}
	src := &member{name: "A", epoch: 3, owns: []string{"T-0"}}
	fresh := CopyInto(src, nil)
	if fresh == src || fresh.name != "A" || fresh.epoch != 3 || len(fresh.owns) != 1 {
		t.Errorf("CopyInto(src, nil) = %p %+v, want a new copy of %p %+v", fresh, *fresh, src, *src)
	}
	old := &member{name: "B", epoch: 9, owns: []string{"U-1", "U-2"}}
	got := CopyInto(src, old)
	if got != old || got.name != "A" || got.epoch != 3 || len(got.owns) != 1 || got.owns[0] != "T-0" {
		t.Errorf("CopyInto(src, old) = %p %+v, want %p holding %+v", got, *got, old, *src)
	}
}
