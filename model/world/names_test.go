package world_test

import (
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
)

// TestMemberNames: a process may take any name that no identity could be
// read as: not the coordinator's, not empty, no '@' (addresses are
// name@incarnation), not one that ends in '-' and a number (member ids
// are read as name-number); '-' elsewhere, and a name that is also a
// topic's, are fine.
func TestMemberNames(t *testing.T) {
	for _, c := range []struct {
		name, err string
	}{
		{"worker-a", ""},
		{"T", ""},
		{"a-1b", ""},
		{"x-", ""},
		{"", "reserved"},
		{"coordinator", "reserved"},
		{"A@2", "reserved"},
		{"A-1", "member id"},
		{"worker-12", "member id"},
	} {
		w, err := ngworld.New(ngworld.DefaultCoordinatorConfig())
		if err != nil {
			t.Fatal(err)
		}
		err = w.AddMember(nextgen.MemberConfig{Name: c.name, Topics: []string{"T"}})
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("member named %q: %v, want an error saying %q", c.name, err, c.err)
		}
	}
}
