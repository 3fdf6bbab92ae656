package node_test

import (
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/node"
)

// checkSwitches is FuzzParseNames's property for one family's switches:
// a list of names parses to a fault set exactly when every name is a
// switch's, an unknown one is an error naming it, and the set printed
// (Switches.String) parses back to the same set.
func checkSwitches[F ~uint32](t *testing.T, family string, s node.Switches[F], list string) {
	names := strings.Split(list, ",")
	f, err := s.ParseAll(names)
	if err != nil {
		if f != 0 || !strings.Contains(err.Error(), "unknown fault") {
			t.Fatalf("%s %q: error %v with set %d", family, list, err, f)
		}
		return
	}
	if f&^s.All() != 0 {
		t.Fatalf("%s %q: bits %b outside the switches", family, list, f&^s.All())
	}
	printed := s.String(f)
	if f == 0 {
		if printed != "none" {
			t.Fatalf("%s %q: the empty set prints as %q", family, list, printed)
		}
		return
	}
	again, err := s.ParseAll(strings.Split(printed, ","))
	if err != nil || again != f {
		t.Fatalf("%s %q parsed as %s; that parses as %d, %v", family, list, printed, again, err)
	}
}

// FuzzParseNames: the names the scenario language and the command line
// take for fault switches (both families' Switches.Parse and ParseAll,
// comma-separated lists) and for classic's claim-generation never panic,
// refuse an unknown name with an error, and print back (String) to what
// parses as the same value.
func FuzzParseNames(f *testing.F) {
	for _, s := range []string{"", "none", "eager-no-revoke", "keep-revoked,leave-keeps-working", "assign-before-release", "joined", "assigned", "x,,y"} {
		f.Add(s)
	}
	for _, sw := range classic.FaultList {
		f.Add(sw.Name)
	}
	for _, sw := range nextgen.FaultList {
		f.Add(sw.Name)
	}
	f.Fuzz(func(t *testing.T, list string) {
		checkSwitches(t, "classic", classic.FaultList, list)
		checkSwitches(t, "nextgen", nextgen.FaultList, list)
		if f, err := classic.ParseFault(list); err == nil && classic.FaultList.String(f) != list {
			t.Fatalf("classic.ParseFault(%q) = %s", list, classic.FaultList.String(f))
		}
		if f, err := nextgen.ParseFault(list); err == nil && nextgen.FaultList.String(f) != list {
			t.Fatalf("nextgen.ParseFault(%q) = %s", list, nextgen.FaultList.String(f))
		}
		g, err := classic.ParseClaimGeneration(list)
		if err != nil {
			return
		}
		if list != "" && g.String() != list {
			t.Fatalf("claim-generation %q parsed as %s", list, g)
		}
		if again, err := classic.ParseClaimGeneration(g.String()); err != nil || again != g {
			t.Fatalf("claim-generation %q parsed as %s, which parses as %s, %v", list, g, again, err)
		}
	})
}
