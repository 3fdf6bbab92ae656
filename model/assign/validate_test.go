package assign

import (
	"errors"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

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
			for _, as := range allAssignors() {
				got, aerr := func() (a spec.Assignment, err error) {
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("%s panicked: %v", as.Name(), p)
						}
					}()
					return as.Assign(tc.g)
				}()
				if aerr == nil || aerr.Error() != err.Error() {
					t.Errorf("%s: Assign error = %v, want ValidateGroup's %v", as.Name(), aerr, err)
				}
				if got != nil {
					t.Errorf("%s: Assign returned %v with its error", as.Name(), got)
				}
			}
		})
	}
}

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
			for _, as := range allAssignors() {
				a := mustAssign(t, as, tc.g)
				if len(a) != len(tc.g.Members) {
					t.Errorf("%s: %d members in the result, want %d", as.Name(), len(a), len(tc.g.Members))
				}
			}
		})
	}
}

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
