package assign

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// assignNoPanic runs as on g and fails t if it panics.
func assignNoPanic(t tb, as Assignor, g Group) (a spec.Assignment, err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("%s panicked: %v\ngroup: %s", as.Name(), p, groupString(g))
		}
	}()
	return as.Assign(g)
}

// corruption breaks a valid group with at least one member in one way that
// ValidateGroup must reject, whatever the group; want is a fragment of the
// error message that names the problem.
type corruption struct {
	name  string
	apply func(t *rapid.T, g Group) Group
	want  string
}

// existingTopic draws a topic of g's universe.
func existingTopic(t *rapid.T, g Group) string {
	return rapid.SampledFrom(g.Topics.Names()).Draw(t, "topic")
}

// victim draws the index of a member of g.
func victim(t *rapid.T, g Group) int {
	return rapid.IntRange(0, len(g.Members)-1).Draw(t, "victim")
}

// corruptions are the bad inputs every assignor must reject. Each works on
// a clone, and each leaves exactly one problem, so ValidateGroup's first
// problem is the one named by want.
var corruptions = []corruption{
	{"negative partition count", func(t *rapid.T, g Group) Group {
		g.Topics[existingTopic(t, g)] = -int32(rapid.IntRange(1, 1<<30).Draw(t, "negative"))
		return PruneOwned(g)
	}, "negative partition count"},
	{"empty topic name in the universe", func(t *rapid.T, g Group) Group {
		g.Topics[""] = int32(rapid.IntRange(0, 3).Draw(t, "n"))
		return g
	}, "topic with an empty name"},
	{"duplicate member", func(t *rapid.T, g Group) Group {
		i := victim(t, g)
		dup := g.Members[i]
		dup.InstanceID = ""
		g.Members = slices.Insert(g.Members, i+1, dup)
		return g
	}, "appears twice"},
	{"members not sorted", func(t *rapid.T, g Group) Group {
		g.Members = slices.Insert(g.Members, 0, Member{ID: "~last"})
		return g
	}, "not sorted by ID"},
	{"empty member ID", func(t *rapid.T, g Group) Group {
		g.Members[victim(t, g)].ID = ""
		return g
	}, "empty member ID"},
	{"shared instance ID", func(t *rapid.T, g Group) Group {
		for i := range g.Members {
			g.Members[i].InstanceID = ""
		}
		g.Members[victim(t, g)].InstanceID = "dup"
		g.Members = append(g.Members, Member{ID: "~last", InstanceID: "dup"})
		return g
	}, `share instance ID "dup"`},
	{"subscription not sorted", func(t *rapid.T, g Group) Group {
		m := &g.Members[victim(t, g)]
		m.Topics = append([]string{"~"}, append(slices.Clone(m.Topics), "a")...)
		return g
	}, "subscription not sorted"},
	{"topic twice in a subscription", func(t *rapid.T, g Group) Group {
		m := &g.Members[victim(t, g)]
		m.Topics = []string{"a", "a"}
		return g
	}, "twice in its subscription"},
	{"empty topic in a subscription", func(t *rapid.T, g Group) Group {
		m := &g.Members[victim(t, g)]
		m.Topics = append([]string{""}, m.Topics...)
		return g
	}, "subscribes to a topic with an empty name"},
	{"owns a partition of a topic that does not exist", func(t *rapid.T, g Group) Group {
		m := &g.Members[victim(t, g)]
		m.Owned = m.Owned.Add(spec.TP("gone", int32(rapid.IntRange(0, 5).Draw(t, "p"))))
		return g
	}, "which does not exist"},
	{"owns a partition out of range", func(t *rapid.T, g Group) Group {
		m := &g.Members[victim(t, g)]
		topic := existingTopic(t, g)
		m.Owned = m.Owned.Add(spec.TP(topic, g.Topics[topic]+int32(rapid.IntRange(0, 5).Draw(t, "beyond"))))
		return g
	}, "out of range"},
	{"owns a connector", func(t *rapid.T, g Group) Group {
		m := &g.Members[victim(t, g)]
		m.Owned = m.Owned.Add(spec.Connector(existingTopic(t, g)))
		return g
	}, "out of range"},
	{"owns a negative partition", func(t *rapid.T, g Group) Group {
		m := &g.Members[victim(t, g)]
		m.Owned = append(spec.Set{spec.TP(existingTopic(t, g), -2)}, m.Owned...)
		return g
	}, "is negative"},
	{"owned set not sorted", func(t *rapid.T, g Group) Group {
		m := &g.Members[victim(t, g)]
		topic := existingTopic(t, g)
		m.Owned = spec.Set{spec.TP(topic, 1), spec.TP(topic, 0)}
		return g
	}, "not sorted"},
	{"owned set lists a partition twice", func(t *rapid.T, g Group) Group {
		m := &g.Members[victim(t, g)]
		r := spec.TP(existingTopic(t, g), 0)
		m.Owned = spec.Set{r, r}
		return g
	}, "appears twice"},
	{"replica racks of a topic that does not exist", func(t *rapid.T, g Group) Group {
		g.ReplicaRacks = map[string][][]string{"gone": {{"a"}}}
		return g
	}, `replica racks given for topic "gone", which does not exist`},
	{"replica racks for the wrong number of partitions", func(t *rapid.T, g Group) Group {
		topic := existingTopic(t, g)
		g.ReplicaRacks = map[string][][]string{topic: make([][]string, int(g.Topics[topic])+rapid.IntRange(1, 3).Draw(t, "more"))}
		return g
	}, "replica racks given for"},
	{"replica on an empty rack name", func(t *rapid.T, g Group) Group {
		live := slices.DeleteFunc(g.Topics.Names(), func(n string) bool { return g.Topics[n] == 0 })
		if len(live) == 0 {
			g.Topics["racked"] = 1
			live = []string{"racked"}
		}
		topic := rapid.SampledFrom(live).Draw(t, "topic")
		parts := make([][]string, g.Topics[topic])
		parts[rapid.IntRange(0, len(parts)-1).Draw(t, "p")] = []string{"a", ""}
		g.ReplicaRacks = map[string][][]string{topic: parts}
		return g
	}, "empty rack name"},
	{"generation below NoGeneration", func(t *rapid.T, g Group) Group {
		g.Members[victim(t, g)].Generation = spec.Generation(-rapid.IntRange(2, 1<<30).Draw(t, "generation"))
		return g
	}, "below -1"},
}

// TestEveryAssignorRejectsCorruptGroups feeds every assignor, client and
// server side, random groups broken in one of the ways of corruptions:
// each returns ValidateGroup's error, wrapping ErrInvalidGroup and naming
// the problem, with no assignment, and never panics.
func TestEveryAssignorRejectsCorruptGroups(t *testing.T) {
	for _, c := range corruptions {
		t.Run(c.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				var g Group
				if rapid.Bool().Draw(t, "server-shape") {
					g = srvAnyGroup(t)
				} else {
					g = genGroup(t, defaultLimits)
				}
				if len(g.Topics) == 0 {
					// Every generator makes at least one topic; a
					// corruption may need one.
					t.Fatalf("no topics")
				}
				g = c.apply(t, cloneGroup(g))
				want := ValidateGroup(g)
				if want == nil || !errors.Is(want, ErrInvalidGroup) || !strings.Contains(want.Error(), c.want) {
					t.Fatalf("ValidateGroup = %v, want an ErrInvalidGroup naming %q\ngroup: %s", want, c.want, groupString(g))
				}
				for _, l := range everyAssignor() {
					a, err := assignNoPanic(t, l.as, g)
					if err == nil || err.Error() != want.Error() || a != nil {
						t.Fatalf("%s: got %v, %v; want no assignment and %v\ngroup: %s", l.label, a, err, want, groupString(g))
					}
				}
			})
		})
	}
}

// TestValidateConnect: the Connect functions' input check names each
// problem, and LeastLoadedOrError returns it with no assignment.
func TestValidateConnect(t *testing.T) {
	tests := []struct {
		name     string
		current  spec.Assignment
		toAssign spec.Set
		want     string // "" for a valid input
	}{
		{"valid", connectAssignment(t, "A", "{a/connector a-0}", "B", "{}"), connectSet(t, "{a-1 b/connector}"), ""},
		{"no members", spec.Assignment{}, connectSet(t, "{a-0}"), ""},
		{"unsorted, repeating toAssign is tolerated", spec.Assignment{"A": nil}, spec.Set{spec.TP("a", 1), spec.TP("a", 0), spec.TP("a", 1)}, ""},
		{"empty member ID", spec.Assignment{"": nil}, nil, "empty member ID"},
		{"held by two members", connectAssignment(t, "A", "{a-0}", "B", "{a-0 a-1}"), nil, `a-0 is held by both "A" and "B"`},
		{"held set not sorted", spec.Assignment{"A": {spec.TP("a", 1), spec.TP("a", 0)}}, nil, `member "A" holds an invalid set`},
		{"held set repeats", spec.Assignment{"A": {spec.TP("a", 1), spec.TP("a", 1)}}, nil, "appears twice"},
		{"held resource with an empty name", spec.Assignment{"A": {spec.TP("", 0)}}, nil, "empty topic"},
		{"held partition below -1", spec.Assignment{"A": {spec.TP("a", -2)}}, nil, "is negative"},
		{"resource to assign with an empty name", spec.Assignment{"A": nil}, spec.Set{spec.TP("", 0)}, "resource to assign"},
		{"resource to assign below -1", spec.Assignment{"A": nil}, spec.Set{spec.TP("a", -7)}, "is negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateConnect(tc.current, tc.toAssign)
			a, aerr := LeastLoadedOrError(tc.current, nil, tc.toAssign)
			if tc.want == "" {
				if err != nil || aerr != nil {
					t.Fatalf("ValidateConnect = %v, LeastLoadedOrError = %v; want nil", err, aerr)
				}
				if want := LeastLoaded(tc.current, nil, tc.toAssign); !a.Equal(want) {
					t.Fatalf("LeastLoadedOrError = %s, LeastLoaded = %s", a, want)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrInvalidGroup) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ValidateConnect = %v, want an ErrInvalidGroup naming %q", err, tc.want)
			}
			if aerr == nil || aerr.Error() != err.Error() || a != nil {
				t.Fatalf("LeastLoadedOrError = %v, %v; want no assignment and %v", a, aerr, err)
			}
		})
	}
}

// TestLeastLoadedOrErrorProperty: on random Connect worlds LeastLoadedOrError
// is LeastLoaded; broken in one way (a resource held twice, an empty member
// ID, an invalid resource held or to assign), it returns an ErrInvalidGroup
// and no assignment, and never panics.
func TestLeastLoadedOrErrorProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		current, configured := genConnectWorld(t)
		toAssign := configured.Minus(current.All())
		if got, err := LeastLoadedOrError(current, nil, toAssign); err != nil || !got.Equal(LeastLoaded(current, nil, toAssign)) {
			t.Fatalf("valid world: %v, %v", got, err)
		}
		members := current.Members()
		m := rapid.SampledFrom(members).Draw(t, "victim")
		bad := current.Clone()
		switch rapid.IntRange(0, 4).Draw(t, "corruption") {
		case 0:
			bad["other"] = bad[m].Add(spec.TP("dup", 0))
			bad[m] = bad[m].Add(spec.TP("dup", 0))
		case 1:
			bad[""] = nil
		case 2:
			bad[m] = append(spec.Set{spec.TP("x", -2)}, bad[m]...)
		case 3:
			toAssign = append(slices.Clone(toAssign), spec.TP("", 0))
		default:
			bad[m] = append(slices.Clone(bad[m]), spec.TP("", 3))
		}
		a, err := func() (a spec.Assignment, err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v", p)
				}
			}()
			return LeastLoadedOrError(bad, nil, toAssign)
		}()
		if err == nil || !errors.Is(err, ErrInvalidGroup) || a != nil {
			t.Fatalf("got %v, %v; want an ErrInvalidGroup and no assignment\ncurrent %v\ntoAssign %v", a, err, bad, toAssign)
		}
	})
}
