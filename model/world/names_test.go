package world_test

import (
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
)

// TestMemberNames: a process may take any name that no identity could be
// read as: not the coordinator's, not empty, no '@' (addresses are
// name@incarnation), and not, with another process, a pair of which one
// has the form of the other's member ids (name, '-', a number), in either
// order of joining. '-' and digits elsewhere ("worker-1" beside
// "worker-2"), and a name that is also a topic's, are fine.
func TestMemberNames(t *testing.T) {
	for _, c := range []struct {
		before []string
		name   string
		err    string
	}{
		{nil, "worker-a", ""},
		{nil, "T", ""},
		{nil, "a-1b", ""},
		{nil, "x-", ""},
		{nil, "A-1", ""},
		{[]string{"worker-1", "worker-2"}, "worker-12", ""},
		{[]string{"worker"}, "worker-b", ""},
		{[]string{"A-1"}, "A-2", ""},
		{[]string{"work"}, "worker-1", ""},
		{[]string{"x"}, "x-", ""},
		{[]string{"A"}, "A1", ""},
		{nil, "", "reserved"},
		{nil, "coordinator", "reserved"},
		{nil, "A@2", "reserved"},
		{[]string{"A"}, "A-1", `"A-1" reads as a member id of member "A"`},
		{[]string{"A-1"}, "A", `"A-1" reads as a member id of member "A"`},
		{[]string{"B", "worker"}, "worker-12", `"worker-12" reads as a member id of member "worker"`},
		{[]string{"worker-1"}, "worker-1-7", `"worker-1-7" reads as a member id of member "worker-1"`},
		{[]string{"A"}, "A", "already exists"},
	} {
		w, err := ngworld.New(ngworld.DefaultCoordinatorConfig())
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range c.before {
			if err := w.AddMember(nextgen.MemberConfig{Name: b, Topics: []string{"T"}}); err != nil {
				t.Fatalf("member named %q: %v", b, err)
			}
		}
		err = w.AddMember(nextgen.MemberConfig{Name: c.name, Topics: []string{"T"}})
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("member named %q after %q: %v, want an error saying %q", c.name, c.before, err, c.err)
		}
		if want := len(c.before) + 1; c.err == "" && len(w.Names()) != want {
			t.Errorf("member named %q after %q: %d processes, want %d", c.name, c.before, len(w.Names()), want)
		}
	}
}
