package classic

import (
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestMalformed: Malformed reports, sorted by member id, a revoked set
// that is not a set, a resource both assigned and revoked and a negative
// delay, each wherever it is in the map, and nothing (nil) for a round
// without them.
func TestMalformed(t *testing.T) {
	ok := Assignment{Assigned: spec.NewSet(spec.TP("t", 0)), Revoked: spec.NewSet(spec.TP("t", 1))}
	for _, c := range []struct {
		name string
		bad  Assignment
		want string
	}{
		{"revoked not a set", Assignment{Revoked: spec.Set{spec.TP("t", 2), spec.TP("t", 1)}}, "revoked: set: t-1 listed after t-2"},
		{"assigned and revoked", Assignment{Assigned: spec.NewSet(spec.TP("t", 3)), Revoked: spec.NewSet(spec.TP("t", 3))}, "{t-3} both assigned and revoked"},
		{"negative delay", Assignment{Delay: -1}, "negative delay -1"},
	} {
		for _, at := range []spec.MemberID{"a", "m", "z"} {
			as := map[spec.MemberID]Assignment{"a": ok, "m": ok, "z": ok}
			as[at] = c.bad
			got := Malformed(as)
			if len(got) != 1 || !strings.HasPrefix(got[0], "member "+string(at)+": ") || !strings.Contains(got[0], c.want) {
				t.Errorf("%s at %s: %q, want one report naming %s: %s", c.name, at, got, at, c.want)
			}
		}
	}
	two := map[spec.MemberID]Assignment{"z": {Delay: -2}, "b": {Delay: -1}, "m": ok}
	if got := Malformed(two); len(got) != 2 || !slices.IsSorted(got) {
		t.Errorf("two reports: %q, want them sorted by member", got)
	}
	if got := Malformed(map[spec.MemberID]Assignment{"a": ok, "b": {}}); got != nil {
		t.Errorf("a clean round: %q, want nil", got)
	}
}
