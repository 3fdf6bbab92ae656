package spec

import (
	"fmt"
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
		{Kind: Lost, Process: "A", Member: "A-1", Generation: 1, Resources: Range("t", 1, 1), Call: 55, Return: 58},
		{Kind: Crashed, Process: "A", Call: 60, Return: 60},
		{Kind: Quiet, Call: 70, Return: 70},
		{Kind: Subscribed, Process: "A", Topics: []string{"t", "u"}, Call: 80, Return: 80},
		{Kind: Reached, Process: "A", Member: "A-2", Generation: 0, Call: 90, Return: 90},
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
		{Observation{Kind: Crashed, Process: "A", Call: 1, Return: 2}, "Return == Call"},
		{Observation{Kind: Lost, Process: "B", Call: 1, Return: 2}, `process "B" has no subscription`},
		{Observation{Kind: Crashed, Process: "A", Resources: Range("t", 0, 0), Call: 1, Return: 1}, "only a callback is about resources"},
		{Observation{Kind: Assigned, Process: "A", Generation: -2, Call: 1, Return: 1}, "generation -2 is below -1"},
		{Observation{Kind: Subscribed, Topics: []string{"t"}}, "a subscription change needs a process"},
		{Observation{Kind: Reached, Process: "A", Generation: 1}, "needs a process and a member id"},
		{Observation{Kind: Reached, Process: "A", Member: "A-1", Generation: NoGeneration}, "needs a generation"},
		{Observation{Kind: Quiet, Topics: []string{"t"}}, "only a subscription change has topics"},
		{Observation{Kind: Subscribed, Process: "A", Call: 1, Return: 2}, "Return == Call"},
	}
	for _, tc := range cases {
		h := History{Subscriptions: subs, CoordinatorObserved: true, Observations: append(append([]Observation{}, good...), tc.o)}
		err := h.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), fmt.Sprintf("observation %d ", len(good))) {
			t.Errorf("%v: got %v, want an error about observation %d with %q", tc.o, err, len(good), tc.want)
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

// TestObservationString: the one-line form of each kind of observation:
// a range for a callback, one time for a point event, the generation only
// for callbacks.
func TestObservationString(t *testing.T) {
	for _, tc := range []struct {
		o    Observation
		want string
	}{
		{Observation{Kind: Assigned, Process: "A", Member: "A-1", Generation: 2, Resources: Range("t", 0, 1), Call: 1200, Return: 1350}, "[1200..1350] A assigned {t-0 t-1} member=A-1 gen=2"},
		{Observation{Kind: Lost, Process: "B", Member: "B-3", Generation: 0, Resources: Range("t", 2, 2), Call: 7, Return: 7}, "[7] B lost {t-2} member=B-3 gen=0"},
		{Observation{Kind: Revoked, Process: "A", Generation: NoGeneration, Call: 1, Return: 2}, "[1..2] A revoked"},
		{Observation{Kind: Joined, Member: "C-1", Generation: 4, Call: 9, Return: 9}, "[9] joined member=C-1"},
		{Observation{Kind: Crashed, Process: "A", Generation: 3, Call: 5, Return: 5}, "[5] A crashed"},
		{Observation{Kind: Quiet, Call: 11, Return: 11}, "[11] quiet"},
		{Observation{Kind: Subscribed, Process: "A", Generation: NoGeneration, Topics: []string{"u", "t"}, Call: 12, Return: 12}, "[12] A subscribed [u t]"},
		{Observation{Kind: Reached, Process: "A", Member: "A-1", Generation: 5, Call: 13, Return: 13}, "[13] A reached member=A-1 gen=5"},
	} {
		if got := tc.o.String(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	if got := ObservationKind(len(observationNames)).String(); got != "observation(10)" {
		t.Errorf("an unknown kind prints %q", got)
	}
	if got := Reached.String(); got != "reached" {
		t.Errorf("the last kind prints %q", got)
	}
}
