package script

import (
	"slices"
	"testing"
)

func TestParseCounterexample(t *testing.T) {
	text := "# Counterexample found by rebalance check --protocol eager --fault x:\n# ExclusiveOwnership: T-1 [B C]: owned twice\n\ngroup topics=(T:2) faults=(x)\n----\n\nadd-member A faults=(x,y) topics=(T)\n----\nA: assigned {T-0}\n\nownership\n----\nA owns\n\ncheck\n----\nExclusiveOwnership: ...\n"
	ce, err := ParseCounterexample(text)
	if err != nil {
		t.Fatal(err)
	}
	if ce.Protocol != "eager" || ce.Law != "ExclusiveOwnership" || !slices.Equal(ce.Commands, []string{"group topics=(T:2) faults=(x)", "add-member A faults=(x,y) topics=(T)"}) {
		t.Fatalf("got %+v", ce)
	}
	if got := WithoutFaults(append(ce.Commands, "group topics=(T:2) session=3 before=(kafka-19233)")); !slices.Equal(got, []string{"group topics=(T:2)", "add-member A topics=(T)", "group topics=(T:2) session=3"}) {
		t.Fatalf("WithoutFaults = %q", got)
	}
	if _, err := ParseCounterexample("group topics=(T:2)\n----\n\n"); err == nil {
		t.Fatal("a scenario without the header parsed as a counterexample")
	}
}
