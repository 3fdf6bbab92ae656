package target

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// genMember draws a member with id "m<i>", maybe static, subscribing to a
// random subset of a, b and c (c does not exist in universe).
func genMember(t *rapid.T, i int, label string) Member {
	m := Member{ID: spec.MemberID(fmt.Sprintf("m%d", i))}
	if rapid.Bool().Draw(t, label+"-static") {
		m.InstanceID = fmt.Sprintf("i%d", rapid.IntRange(0, 3).Draw(t, label+"-instance"))
	}
	for _, topic := range []string{"a", "b", "c"} {
		if rapid.Bool().Draw(t, label+"-"+topic) {
			m.Topics = append(m.Topics, topic)
		}
	}
	return m
}

// TestBuildProperties: on random groups, previous targets and deltas that
// Build accepts, with the fake sticky assignor, the target names exactly
// the group after the deltas, is legal, Changed is exactly the members
// without an equal previous entry, and the input is not modified.
func TestBuildProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var in Input
		instances := map[string]bool{}
		for i := range rapid.IntRange(0, 4).Draw(t, "members") {
			m := genMember(t, i, "member")
			if m.InstanceID != "" && instances[m.InstanceID] {
				m.InstanceID = ""
			}
			instances[m.InstanceID] = true
			in.Members = append(in.Members, m)
		}
		// A previous target: each existing partition (and one of a deleted
		// topic) to at most one member, by index; unknown ids too.
		in.Previous = spec.Assignment{}
		all := universe.Resources("a", "b").Add(spec.TP("gone", 0))
		for _, r := range all {
			if i := rapid.IntRange(-1, 5).Draw(t, "owner"); i >= 0 {
				id := spec.MemberID(fmt.Sprintf("m%d", i))
				in.Previous[id] = in.Previous[id].Add(r)
			}
		}
		for range rapid.IntRange(0, 2).Draw(t, "upserts") {
			in.Upsert = append(in.Upsert, genMember(t, rapid.IntRange(0, 6).Draw(t, "upsert-id"), "upsert"))
		}
		for range rapid.IntRange(0, 2).Draw(t, "removes") {
			in.Remove = append(in.Remove, spec.MemberID(fmt.Sprintf("m%d", rapid.IntRange(0, 6).Draw(t, "remove-id"))))
		}
		in.Topics = universe
		in.Assignor = sticky{}
		before := cloneInput(in)

		got, err := Build(in)
		if d := cmp.Diff(before, in, opts, cmpopts.IgnoreFields(Input{}, "Assignor")); d != "" {
			t.Fatalf("Build modified its input:\n%s", d)
		}
		if err != nil {
			// Only misuse is possible with this assignor: conflicting
			// deltas, rejected as ErrInvalidInput. rapid's Skip discards the
			// drawn input and draws another; any other error fails.
			if !errors.Is(err, ErrInvalidInput) {
				t.Fatalf("Build: %v", err)
			}
			t.Skip("conflicting deltas drawn")
		}

		group := map[spec.MemberID]bool{}
		for _, m := range in.Members {
			group[m.ID] = true
		}
		for _, id := range in.Remove {
			delete(group, id)
		}
		for _, m := range in.Upsert {
			for _, o := range in.Members {
				if m.InstanceID != "" && o.InstanceID == m.InstanceID && o.ID != m.ID {
					delete(group, o.ID)
				}
			}
		}
		for _, m := range in.Upsert {
			group[m.ID] = true
		}
		if len(got.Target) != len(group) {
			t.Fatalf("target %s, want members %v", got.Target, group)
		}
		for id := range group {
			if _, ok := got.Target[id]; !ok {
				t.Fatalf("member %s missing from %s", id, got.Target)
			}
		}
		var changed []spec.MemberID
		for _, id := range got.Target.Members() {
			if prev, ok := in.Previous[id]; !ok || !prev.Equal(got.Target[id]) {
				changed = append(changed, id)
			}
		}
		if !slices.Equal(changed, got.Changed) {
			t.Fatalf("changed %v, want %v", got.Changed, changed)
		}
		if all := got.Target.All(); all.Len() != sumLen(got.Target) {
			t.Fatalf("a partition given twice: %s", got.Target)
		}
	})
}

func sumLen(a spec.Assignment) int {
	n := 0
	for _, s := range a {
		n += s.Len()
	}
	return n
}
