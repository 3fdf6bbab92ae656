package nodetest

import (
	"reflect"
	"slices"
	"testing"
)

// Encoded names a struct whose canonical encoder (package canon) is written
// by hand, so that a test can notice a field the encoder does not know of.
type Encoded struct {
	// Type is the struct.
	Type reflect.Type
	// Encoder names the function that writes it, for the failure message.
	Encoder string
	// Handled is how many of the struct's own fields the encoder handles:
	// the fields it writes plus the ones left out on purpose.
	Handled int
	// LeftOut names the fields left out on purpose; each must carry the
	// tag canon:"-" and no other field may.
	LeftOut []string
}

// CheckEncoders fails t for every struct of types that has gained or lost
// a field since its encoder's count was written, or whose fields tagged
// canon:"-" are not exactly the ones named as left out: a field added to
// a node must be written by its encoder (or left out with a reason and a
// tag) before the tests pass again. It reads the types' shapes only, never
// a value.
func CheckEncoders(t testing.TB, types ...Encoded) {
	t.Helper()
	for _, c := range types {
		var own, tagged []string
		for _, f := range reflect.VisibleFields(c.Type) {
			if len(f.Index) != 1 {
				continue // promoted from an embedded struct: counted there
			}
			own = append(own, f.Name)
			if f.Tag.Get("canon") == "-" {
				tagged = append(tagged, f.Name)
			}
		}
		if len(own) != c.Handled {
			t.Errorf("%s has %d fields, %s handles %d: update %s (and its count) for the new or removed field", c.Type, len(own), c.Encoder, c.Handled, c.Encoder)
		}
		left := slices.Sorted(slices.Values(c.LeftOut))
		slices.Sort(tagged)
		if !slices.Equal(left, tagged) {
			t.Errorf("%s: the fields tagged canon:\"-\" are %v, %s leaves out %v", c.Type, tagged, c.Encoder, left)
		}
	}
}
