package spec

import (
	"strings"
	"testing"
)

// TestHistoryValidate: every kind of malformed observation is named with
// its index; a well-formed history passes.
func TestHistoryValidate(t *testing.T) {
	subs := map[string][]string{"A": {"t"}}
	good := []Observation{
		{Kind: Assigned, Process: "A", Member: "A-1", Generation: 1, Resources: Range("t", 0, 1), Call: 10, Return: 20},
		{Kind: Joined, Member: "A-1", Call: 5, Return: 5},
		{Kind: Revoked, Process: "A", Member: "A-1", Generation: 1, Resources: Range("t", 0, 0), Call: 30, Return: 40},
		{Kind: Removed, Member: "A-1", Call: 50, Return: 50},
		{Kind: Crashed, Process: "A", Call: 60, Return: 60},
		{Kind: Quiet, Call: 70, Return: 70},
	}
	if err := (History{Topics: Topics{"t": 2}, Subscriptions: subs, CoordinatorObserved: true, Observations: good}).Validate(); err != nil {
		t.Fatalf("a good history: %v", err)
	}
	cases := []struct {
		o    Observation
		want string
	}{
		{Observation{Kind: 0, Process: "A"}, "unknown kind"},
		{Observation{Kind: Assigned, Resources: Range("t", 0, 0)}, "a callback needs a process"},
		{Observation{Kind: Assigned, Process: "A", Resources: Set{TP("t", 1), TP("t", 0)}}, "not sorted"},
		{Observation{Kind: Revoked, Process: "A", Call: 9, Return: 8}, "returns at 8 before it is called at 9"},
		{Observation{Kind: Crashed, Call: 1, Return: 1}, "a crash needs a process"},
		{Observation{Kind: Joined, Call: 1, Return: 1}, "needs a member id"},
		{Observation{Kind: Quiet, Call: 1, Return: 2}, "Return == Call"},
		{Observation{Kind: Lost, Process: "B", Call: 1, Return: 2}, `process "B" has no subscription`},
		{Observation{Kind: Crashed, Process: "A", Resources: Range("t", 0, 0), Call: 1, Return: 1}, "only a callback is about resources"},
		{Observation{Kind: Assigned, Process: "A", Generation: -2, Call: 1, Return: 1}, "generation -2 is below -1"},
	}
	for _, tc := range cases {
		h := History{Subscriptions: subs, CoordinatorObserved: true, Observations: append(append([]Observation{}, good...), tc.o)}
		err := h.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "observation 6") {
			t.Errorf("%v: got %v, want an error about observation 6 with %q", tc.o, err, tc.want)
		}
	}
}

// TestHistoryValidateCoordinator: membership changes belong only in a
// history that claims to observe the coordinator.
func TestHistoryValidateCoordinator(t *testing.T) {
	h := History{Subscriptions: map[string][]string{"A": {"t"}}, Observations: []Observation{{Kind: Joined, Member: "A-1", Generation: NoGeneration}}}
	if err := h.Validate(); err == nil || !strings.Contains(err.Error(), "CoordinatorObserved") {
		t.Fatalf("got %v", err)
	}
	h.CoordinatorObserved = true
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
}
