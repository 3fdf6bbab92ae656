package ownership

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestDescriptions pins what the visualization shows: operation kinds,
// operations, memberships (the second membership of A-1 is A-1#2) and
// model states in the form state.String documents.
func TestDescriptions(t *testing.T) {
	a1, a2, b1 := membership{"A-1", 0}, membership{"A-1", 1}, membership{"B-1", 0}
	t0 := spec.TP("t", 0)
	for _, tc := range []struct {
		got, want string
	}{
		{OpKind(0).String(), "?"},
		{Acquire.String(), "acquire"},
		{Release.String(), "release"},
		{Crash.String(), "crash"},
		{Fence.String(), "fence"},
		{OpKind(5).String(), "op(5)"},
		{describe(Input{Kind: Acquire, Process: "A", Member: "A-1", Resource: t0}), "A acquires t-0 as A-1"},
		{describe(Input{Kind: Acquire, Process: "A", Member: "A-1", Membership: 1, Resource: t0}), "A acquires t-0 as A-1#2"},
		{describe(Input{Kind: Release, Process: "A", Resource: t0}), "A releases t-0"},
		{describe(Input{Kind: Crash, Process: "B"}), "B crashes"},
		{describe(Input{Kind: Fence, Member: "A-1", Membership: 2}), "coordinator fences A-1#3"},
		{describe(Input{Kind: 7}), "op(7)"},
		{state{}.String(), "free"},
		{state{holdings: []holding{{"A", a1}}}.String(), "A as A-1"},
		{state{fenced: []membership{a1, a2}}.String(), "free | fenced: A-1 A-1#2"},
		{state{holdings: []holding{{"A", a2}, {"B", b1}}, fenced: []membership{a1, b1}}.String(), "A as A-1#2, B as B-1 (fenced) | fenced: A-1 B-1"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestOperations pins the porcupine operations of a history: one per
// resource of each callback, in history order, memberships numbered by
// the Removed and Joined around them, each with its process's index in
// Processes() as ClientId (fences one past the last process) and its
// observation as Metadata.
func TestOperations(t *testing.T) {
	h := mustHistory(t, `
		topics t=2
		subs A=t B=t
		[0] joined member=A-1
		[0] joined member=B-1
		[1..3] A assigned {t-0 t-1} member=A-1 gen=1
		[4] removed member=A-1
		[5..6] A revoked {t-1} member=A-1 gen=1
		[7] B crashed
		[8] joined member=A-1
		[9..10] A assigned {t-1} member=A-1 gen=2`)
	var got []string
	for _, op := range Operations(h) {
		got = append(got, fmt.Sprintf("client %d [%d..%d] %s <- %s", op.ClientId, op.Call, op.Return, describe(*op.Input.(*Input)), describeMetadata(op.Metadata)))
	}
	want := []string{
		"client 0 [1..3] A acquires t-0 as A-1 <- [1..3] A assigned {t-0 t-1} member=A-1 gen=1",
		"client 0 [1..3] A acquires t-1 as A-1 <- [1..3] A assigned {t-0 t-1} member=A-1 gen=1",
		"client 2 [4..4] coordinator fences A-1 <- [4] removed member=A-1",
		"client 0 [5..6] A releases t-1 <- [5..6] A revoked {t-1} member=A-1 gen=1",
		"client 1 [7..7] B crashes <- [7] B crashed",
		"client 0 [9..10] A acquires t-1 as A-1#2 <- [9..10] A assigned {t-1} member=A-1 gen=2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("operations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if describeMetadata("not an observation") != "" {
		t.Error("describeMetadata of a non-observation is not empty")
	}
}
