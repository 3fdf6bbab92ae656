package sim

import (
	"reflect"
	"testing"
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
