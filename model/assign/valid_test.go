package assign

import (
	"errors"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// packageAssignors lists every assignor of the package that takes a Group,
// client-side and server-side, with the options that change its path.
func packageAssignors() []Assignor {
	return append(allAssignors(),
		CooperativeStickyWith(CooperativeOptions{NoWithholding: true}),
		ServerRange(), Uniform(), UniformWith(UniformOptions{RackAware: true}))
}

// TestAssignValid: for every assignor of the package, AssignValid on the
// ValidGroup that Validate returns gives what Assign gives, and leaves the
// group alone; each of them takes the path without a second check
// (validAssignor), which is what AssignValid is for.
func TestAssignValid(t *testing.T) {
	for _, as := range packageAssignors() {
		if _, ok := as.(validAssignor); !ok {
			t.Errorf("%s (%T) is not a validAssignor: AssignValid would copy its group and it would check it again", as.Name(), as)
		}
		t.Run(as.Name(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := genGroup(t, defaultLimits)
				before := cloneGroup(g)
				v, err := Validate(g)
				if err != nil {
					t.Fatalf("Validate rejects a valid group: %v", err)
				}
				got, err := AssignValid(as, v)
				if err != nil {
					t.Fatalf("AssignValid: %v", err)
				}
				if d := sameGroup(before, g); d != "" {
					t.Fatalf("AssignValid modified the group:\n%s", d)
				}
				if want := mustAssign(t, as, g); !got.Equal(want) {
					t.Fatalf("AssignValid gave %s, Assign %s", got, want)
				}
			})
		})
	}
}

// scribbler is an assignor of a caller's that writes over everything it
// is given, then assigns nothing.
type scribbler struct{ calls *int }

func (scribbler) Name() string { return "scribbler" }

func (s scribbler) Assign(g Group) (spec.Assignment, error) {
	*s.calls++
	for t := range g.Topics {
		g.Topics[t] = -1
	}
	g.Topics["scribbled"] = 1
	for i := range g.Members {
		m := &g.Members[i]
		for k := range m.Topics {
			m.Topics[k] = "scribbled"
		}
		for k := range m.Owned {
			m.Owned[k] = spec.Resource{Topic: "scribbled"}
		}
		m.ID = "scribbled"
	}
	for _, parts := range g.ReplicaRacks {
		for _, racks := range parts {
			for k := range racks {
				racks[k] = "scribbled"
			}
		}
	}
	return spec.Assignment{}, nil
}

// TestAssignValidCopiesForOthers: an assignor that is not the package's
// gets a copy of the group through AssignValid, so writing over all of it
// changes nothing of the caller's, racks included.
func TestAssignValidCopiesForOthers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genGroup(t, defaultLimits)
		if rapid.Bool().Draw(t, "racks") {
			g.ReplicaRacks = map[string][][]string{}
			for _, topic := range g.Topics.Names() {
				parts := make([][]string, g.Topics[topic])
				for p := range parts {
					parts[p] = []string{"r0", "r1"}
				}
				g.ReplicaRacks[topic] = parts
			}
		}
		before := cloneGroup(g)
		v, err := Validate(g)
		if err != nil {
			t.Fatalf("Validate: %v", err)
		}
		calls := 0
		if _, err := AssignValid(scribbler{&calls}, v); err != nil {
			t.Fatalf("AssignValid: %v", err)
		}
		if calls != 1 {
			t.Fatalf("the assignor ran %d times, want once", calls)
		}
		if d := sameGroup(before, g); d != "" {
			t.Fatalf("an assignor of the caller's wrote through AssignValid into the group:\n%s", d)
		}
	})
}

// TestValidateErrors: Validate and ValidatePruned return ValidateGroup's
// and ValidatePrunedGroup's errors, with the empty ValidGroup; on a group
// they accept, the ValidGroup holds that very group.
func TestValidateErrors(t *testing.T) {
	ok := Group{Topics: spec.Topics{"t": 2}, Members: []Member{{ID: "a", Topics: []string{"t"}, Owned: spec.Set{{Topic: "t", Partition: 1}}}}}
	unsorted := Group{Topics: spec.Topics{"t": 2}, Members: []Member{{ID: "b"}, {ID: "a"}}}
	badOwned := Group{Topics: spec.Topics{"t": 2}, Members: []Member{{ID: "a", Owned: spec.Set{{Topic: "t", Partition: 5}}}}}
	for _, c := range []struct {
		name   string
		g      Group
		full   bool // Validate rejects it
		pruned bool // ValidatePruned rejects it
	}{
		{"valid", ok, false, false},
		{"members not sorted", unsorted, true, true},
		// ValidatePruned does not look at the owned sets (its precondition).
		{"owned out of range", badOwned, true, false},
	} {
		for _, f := range []struct {
			name     string
			validate func(Group) (ValidGroup, error)
			want     func(Group) error
			rejects  bool
		}{
			{"Validate", Validate, ValidateGroup, c.full},
			{"ValidatePruned", ValidatePruned, ValidatePrunedGroup, c.pruned},
		} {
			v, err := f.validate(c.g)
			want := f.want(c.g)
			switch {
			case (err != nil) != f.rejects || (want != nil) != f.rejects:
				t.Errorf("%s: %s: error %v, the group check's %v, want rejected=%v", c.name, f.name, err, want, f.rejects)
			case err != nil && (err.Error() != want.Error() || !errors.Is(err, ErrInvalidGroup)):
				t.Errorf("%s: %s: error %q, want %q wrapping ErrInvalidGroup", c.name, f.name, err, want)
			case err != nil && v.Group().Members != nil:
				t.Errorf("%s: %s: a rejected group gave a ValidGroup of %d members", c.name, f.name, len(v.Group().Members))
			case err == nil && len(v.Group().Members) > 0 && &v.Group().Members[0] != &c.g.Members[0]:
				t.Errorf("%s: %s: the ValidGroup does not hold the group itself", c.name, f.name)
			}
		}
	}
}
