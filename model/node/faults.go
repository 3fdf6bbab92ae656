package node

import (
	"fmt"
	"strings"
)

// Switch names and describes one fault switch of a family: a bit of the
// family's fault set F that deliberately breaks one rule, so that the
// property tests and the model checker can show they catch the broken law.
type Switch[F ~uint32] struct {
	Fault F
	// Name is the switch's name in scenario files and on the command line.
	Name string
	// Doc says what breaks and, in brackets, the law reported.
	Doc string
	// Defence, when not empty, marks a switch that removes a defence in
	// depth: a check that guards against a situation no checked world
	// produces while the protocol is correct, so no law can report the
	// switch alone. It says why; unit tests below the worlds pin the check
	// down instead. Every other switch has a committed counterexample.
	Defence string
}

// Switches is every fault switch of a family, in the order their names
// print. Each family's fault set prints, parses and tests its bits
// through its Switches.
type Switches[F ~uint32] []Switch[F]

// Has reports whether every fault of x is in f; it is false for an empty x.
func Has[F ~uint32](f, x F) bool { return f&x == x && x != 0 }

// All returns the set of every switch in s: a fault bit outside it is
// unknown.
func (s Switches[F]) All() F {
	var all F
	for _, sw := range s {
		all |= sw.Fault
	}
	return all
}

// String lists the names of the switches of s that f has, separated by
// commas, or "none" when it has none.
func (s Switches[F]) String(f F) string {
	var names []string
	for _, sw := range s {
		if Has(f, sw.Fault) {
			names = append(names, sw.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

// Parse returns the fault of the switch named name, or an error naming
// every switch of s ("unknown fault %q (known: a, b)").
func (s Switches[F]) Parse(name string) (F, error) {
	var all []string
	for _, sw := range s {
		if sw.Name == name {
			return sw.Fault, nil
		}
		all = append(all, sw.Name)
	}
	return 0, fmt.Errorf("unknown fault %q (known: %s)", name, strings.Join(all, ", "))
}

// ParseAll returns the set of the faults named names (empty for none), or
// Parse's error for the first unknown name.
func (s Switches[F]) ParseAll(names []string) (F, error) {
	var set F
	for _, n := range names {
		f, err := s.Parse(n)
		if err != nil {
			return 0, err
		}
		set |= f
	}
	return set, nil
}
