package main

import (
	"slices"
	"testing"
)

// TestCheckedNames reads the invariants and properties of a TLC
// configuration, lists over several lines and comments included.
func TestCheckedNames(t *testing.T) {
	cfg := `\* a comment naming INVARIANT Fake
SPECIFICATION Spec
CONSTANTS
    N = 2
INVARIANTS
    TypeOK
    ExclusiveOwnership \* trailing comment
INVARIANT BoundedRounds
PROPERTIES
    EventuallyConverged
    Stability
`
	inv, props := checkedNames(cfg)
	if want := []string{"TypeOK", "ExclusiveOwnership", "BoundedRounds"}; !slices.Equal(inv, want) {
		t.Errorf("invariants = %v, want %v", inv, want)
	}
	if want := []string{"EventuallyConverged", "Stability"}; !slices.Equal(props, want) {
		t.Errorf("properties = %v, want %v", props, want)
	}
}
