package assign

import (
	"errors"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestValidateGroupRejects: ValidateGroup names each kind of bad input, and
// every assignor, client and server side, returns exactly that error (and
// no assignment) without panicking.
func TestValidateGroupRejects(t *testing.T) {
	topics := spec.Topics{"a": 2, "b": 3}
	tests := []struct {
		name    string
		g       Group
		wantErr string
	}{
		{
			name:    "duplicate member IDs",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"a"}}, {ID: "m1", Topics: []string{"a"}}}},
			wantErr: `member ID "m1" appears twice`,
		},
		{
			name:    "unsorted members",
			g:       Group{Topics: topics, Members: []Member{{ID: "m2"}, {ID: "m1"}}},
			wantErr: "not sorted by ID",
		},
		{
			name:    "empty member ID",
			g:       Group{Topics: topics, Members: []Member{{ID: "", Topics: []string{"a"}}}},
			wantErr: "empty member ID",
		},
		{
			name:    "duplicate instance IDs",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", InstanceID: "i"}, {ID: "m2", InstanceID: "i"}}},
			wantErr: `share instance ID "i"`,
		},
		{
			name:    "unsorted subscription",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"b", "a"}}}},
			wantErr: "subscription not sorted",
		},
		{
			name:    "duplicate topic in subscription",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"a", "a"}}}},
			wantErr: `lists topic "a" twice`,
		},
		{
			name:    "empty topic in subscription",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{""}}}},
			wantErr: "empty name",
		},
		{
			name:    "negative partition count",
			g:       Group{Topics: spec.Topics{"a": -1}, Members: []Member{{ID: "m1", Topics: []string{"a"}}}},
			wantErr: "negative partition count",
		},
		{
			name:    "empty topic name in universe",
			g:       Group{Topics: spec.Topics{"": 1}, Members: []Member{{ID: "m1"}}},
			wantErr: "empty name",
		},
		{
			name:    "owns a partition of a topic that does not exist",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"a"}, Owned: spec.Set{spec.TP("x", 0)}}}},
			wantErr: "does not exist",
		},
		{
			name:    "owns a partition out of range",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"a"}, Owned: spec.Set{spec.TP("a", 2)}}}},
			wantErr: "out of range",
		},
		{
			name:    "owns a connector resource",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"a"}, Owned: spec.Set{spec.Connector("a")}}}},
			wantErr: "out of range",
		},
		{
			name:    "owned set unsorted",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"a"}, Owned: spec.Set{spec.TP("a", 1), spec.TP("a", 0)}}}},
			wantErr: "not sorted",
		},
		{
			name:    "owned set with a duplicate",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"a"}, Owned: spec.Set{spec.TP("a", 1), spec.TP("a", 1)}}}},
			wantErr: "appears twice",
		},
		{
			name:    "invalid resource: empty topic",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"a"}, Owned: spec.Set{spec.TP("", 0)}}}},
			wantErr: "empty topic",
		},
		{
			name:    "invalid resource: partition below -1",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"a"}, Owned: spec.Set{spec.TP("a", -2)}}}},
			wantErr: "negative",
		},
		{
			name:    "negative partition count of a topic nobody subscribes to",
			g:       Group{Topics: spec.Topics{"a": 1, "z": -3}, Members: []Member{{ID: "m1", Topics: []string{"a"}}}},
			wantErr: `topic "z" has a negative partition count -3`,
		},
		{
			name:    "owns a partition of a topic with no partitions",
			g:       Group{Topics: spec.Topics{"a": 0}, Members: []Member{{ID: "m1", Topics: []string{"a"}, Owned: spec.Set{spec.TP("a", 0)}}}},
			wantErr: `out of range for topic "a" with 0 partitions`,
		},
		{
			name:    "owns a partition of an unsubscribed topic that does not exist",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"a"}}, {ID: "m2", Topics: []string{"b"}, Owned: spec.Set{spec.TP("gone", 3)}}}},
			wantErr: `member "m2" owns gone-3 of topic "gone", which does not exist`,
		},
		{
			name:    "duplicate member IDs, not adjacent to an earlier one",
			g:       Group{Topics: topics, Members: []Member{{ID: "m0"}, {ID: "m1"}, {ID: "m1"}}},
			wantErr: `member ID "m1" appears twice`,
		},
		{
			name:    "replica racks of a topic that does not exist",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"a"}}}, ReplicaRacks: map[string][][]string{"x": {{"r"}}}},
			wantErr: `replica racks given for topic "x", which does not exist`,
		},
		{
			name:    "replica racks for too few partitions",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"a"}}}, ReplicaRacks: map[string][][]string{"b": {{"r"}, {"r"}}}},
			wantErr: `replica racks given for 2 partitions of topic "b", which has 3`,
		},
		{
			name:    "replica on an empty rack name",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"a"}, Rack: "r"}}, ReplicaRacks: map[string][][]string{"a": {{"r"}, {""}}}},
			wantErr: "partition a-1 has a replica with an empty rack name",
		},
		{
			name:    "generation below NoGeneration",
			g:       Group{Topics: topics, Members: []Member{{ID: "m1", Topics: []string{"a"}, Generation: -2}}},
			wantErr: "below -1",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateGroup(tc.g)
			if err == nil || !errors.Is(err, ErrInvalidGroup) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("ValidateGroup = %v, want an ErrInvalidGroup mentioning %q", err, tc.wantErr)
			}
			for _, l := range everyAssignor() {
				got, aerr := assignNoPanic(t, l.as, tc.g)
				if aerr == nil || aerr.Error() != err.Error() || !errors.Is(aerr, ErrInvalidGroup) {
					t.Errorf("%s: Assign error = %v, want ValidateGroup's %v", l.label, aerr, err)
				}
				if got != nil {
					t.Errorf("%s: Assign returned %v with its error", l.label, got)
				}
			}
		})
	}
}

// TestValidateGroupAccepts: inputs that look odd but are allowed, and every
// assignor's result on them.
func TestValidateGroupAccepts(t *testing.T) {
	tests := []struct {
		name string
		g    Group
	}{
		{"empty group", Group{}},
		{"no members", Group{Topics: spec.Topics{"a": 1}}},
		{"subscription to a missing topic", Group{Topics: spec.Topics{"a": 1}, Members: []Member{{ID: "m1", Topics: []string{"a", "zz"}}}}},
		{"owns an unsubscribed topic", Group{Topics: spec.Topics{"a": 1, "b": 1}, Members: []Member{{ID: "m1", Topics: []string{"a"}, Owned: spec.Set{spec.TP("b", 0)}}}}},
		{"topic with zero partitions", Group{Topics: spec.Topics{"a": 0}, Members: []Member{{ID: "m1", Topics: []string{"a"}, Generation: spec.NoGeneration}}}},
		{"double claim", Group{Topics: spec.Topics{"a": 1}, Members: []Member{
			{ID: "m1", Topics: []string{"a"}, Owned: spec.Set{spec.TP("a", 0)}},
			{ID: "m2", Topics: []string{"a"}, Owned: spec.Set{spec.TP("a", 0)}},
		}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := ValidateGroup(tc.g); err != nil {
				t.Fatalf("ValidateGroup = %v, want nil", err)
			}
			for _, l := range everyAssignor() {
				a := mustAssign(t, l.as, tc.g)
				if len(a) != len(tc.g.Members) {
					t.Errorf("%s: %d members in the result, want %d", l.label, len(a), len(tc.g.Members))
				}
			}
		})
	}
}

// TestPruneOwned: PruneOwned turns claims on deleted or shrunk topics into
// a valid group, leaving its input alone.
func TestPruneOwned(t *testing.T) {
	g := Group{
		Topics: spec.Topics{"a": 2},
		Members: []Member{
			{ID: "m1", Topics: []string{"a"}, Owned: spec.Set{spec.TP("a", 0), spec.TP("a", 5), spec.TP("gone", 0)}},
			{ID: "m2", Topics: []string{"a"}, Owned: spec.Set{spec.TP("a", 1)}},
		},
	}
	before := cloneGroup(g)
	if ValidateGroup(g) == nil {
		t.Fatal("the unpruned group should be invalid")
	}
	p := PruneOwned(g)
	if err := ValidateGroup(p); err != nil {
		t.Fatalf("pruned group invalid: %v", err)
	}
	if got := p.Members[0].Owned.String(); got != "{a-0}" {
		t.Errorf("m1 owned after pruning = %s, want {a-0}", got)
	}
	if got := p.Members[1].Owned.String(); got != "{a-1}" {
		t.Errorf("m2 owned after pruning = %s, want {a-1}", got)
	}
	if d := sameGroup(before, g); d != "" {
		t.Errorf("PruneOwned modified its input:\n%s", d)
	}
}
