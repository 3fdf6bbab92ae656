package assign

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rebalance-ref/rebalance/spec"
)

// The server-side assignor tests keep their own small helpers (prefixed
// srv) so that they depend only on the package's exported API and the
// unexported helpers of its non-test files.

// srvMember builds a dynamic member: topics separated by spaces, previous
// target in spec.ParseSet form.
func srvMember(t testing.TB, id, topics, prev string) Member {
	t.Helper()
	s, err := spec.ParseSet(prev)
	if err != nil {
		t.Fatalf("bad set %q: %v", prev, err)
	}
	return Member{ID: spec.MemberID(id), Topics: strings.Fields(topics), Owned: s}
}

// srvStatic is srvMember with a static instance ID.
func srvStatic(t testing.TB, id, instance, topics, prev string) Member {
	m := srvMember(t, id, topics, prev)
	m.InstanceID = instance
	return m
}

// srvWant parses an expected assignment written as member → set.
func srvWant(t testing.TB, w map[string]string) spec.Assignment {
	t.Helper()
	out := spec.Assignment{}
	for m, s := range w {
		set, err := spec.ParseSet(s)
		if err != nil {
			t.Fatalf("bad set %q: %v", s, err)
		}
		out[spec.MemberID(m)] = set
	}
	return out
}

// srvTB is what srvAssign needs from *testing.T and *rapid.T alike.
type srvTB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// srvAssign runs as on g and fails the test on an error.
func srvAssign(t srvTB, as Assignor, g Group) spec.Assignment {
	t.Helper()
	a, err := as.Assign(g)
	if err != nil {
		t.Fatalf("%s: %v\n%s", as.Name(), err, srvGroupString(g))
	}
	return a
}

// srvCheck fails when got differs from want (missing and empty alike).
func srvCheck(t testing.TB, what string, got, want spec.Assignment) {
	t.Helper()
	if !got.Equal(want) {
		t.Errorf("%s (-want +got):\n%s", what, cmp.Diff(strings.ReplaceAll(want.String(), "} ", "}\n"), strings.ReplaceAll(got.String(), "} ", "}\n")))
	}
}

// srvGroupString prints a group for failure messages.
func srvGroupString(g Group) string {
	var b strings.Builder
	b.WriteString("topics:")
	for _, t := range g.Topics.Names() {
		fmt.Fprintf(&b, " %s=%d", t, g.Topics[t])
	}
	for _, m := range g.Members {
		fmt.Fprintf(&b, "\n  %s inst=%q subs=[%s] prev=%s", m.ID, m.InstanceID, strings.Join(m.Topics, " "), m.Owned)
	}
	return b.String()
}

// srvLoads returns the sizes in a of g's members, in member order.
func srvLoads(g Group, a spec.Assignment) []int {
	out := make([]int, len(g.Members))
	for i, m := range g.Members {
		out[i] = a[m.ID].Len()
	}
	return out
}

// srvMoved counts the partitions of g's previous targets that a gives to
// another member.
func srvMoved(g Group, a spec.Assignment) int {
	n := 0
	for _, m := range g.Members {
		n += m.Owned.Minus(a[m.ID]).Len()
	}
	return n
}

// srvExample is one table row: a group and the expected target.
type srvExample struct {
	name    string
	topics  spec.Topics
	members func(t testing.TB) []Member
	// want is the expected result of the default assignor.
	want map[string]string
	// before, when set, is the result with BeforeKafka18688 where it
	// differs from want.
	before map[string]string
	// kafka, when set, is Kafka's expected result where it differs from
	// want only because Kafka's test iterates topics in hash order (the
	// kept partitions and the sizes are the same); it is checked for sizes.
	kafka map[string]string
}

// TestServerUniformHomogeneousExamples: Kafka's
// OptimizedUniformAssignmentBuilderTest (the homogeneous builder) and the
// KAFKA-18688 churn, through Uniform and UniformWith(BeforeKafka18688).
func TestServerUniformHomogeneousExamples(t *testing.T) {
	tests := []srvExample{
		{
			name:   "one member, no topic",
			topics: spec.Topics{"topic1": 3},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "", "{}")}
			},
			want: map[string]string{"A": "{}"},
		},
		{
			// Kafka throws PartitionAssignorException; this model ignores
			// the unknown topic.
			name:   "one member subscribed to a nonexistent topic",
			topics: spec.Topics{"topic1": 3},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "topic2", "{}")}
			},
			want: map[string]string{"A": "{}"},
		},
		{
			name:   "first assignment, two members, two topics",
			topics: spec.Topics{"topic1": 3, "topic3": 2},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "topic1 topic3", "{}"), srvMember(t, "B", "topic1 topic3", "{}")}
			},
			want:  map[string]string{"A": "{topic1-0 topic1-1 topic1-2}", "B": "{topic3-0 topic3-1}"},
			kafka: map[string]string{"A": "{topic1-0 topic3-0 topic3-1}", "B": "{topic1-1 topic1-2}"},
		},
		{
			name:   "first assignment, more members than partitions",
			topics: spec.Topics{"topic3": 2},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "topic3", "{}"), srvMember(t, "B", "topic3", "{}"), srvMember(t, "C", "topic3", "{}")}
			},
			want: map[string]string{"A": "{topic3-0}", "B": "{topic3-1}", "C": "{}"},
		},
		{
			name:   "unbalanced previous target",
			topics: spec.Topics{"topic1": 3, "topic2": 3},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1 topic2", "{topic1-0 topic1-1 topic2-0 topic2-1}"),
					srvMember(t, "B", "topic1 topic2", "{topic1-2 topic2-2}"),
				}
			},
			want: map[string]string{"A": "{topic1-0 topic1-1 topic2-0}", "B": "{topic1-2 topic2-1 topic2-2}"},
		},
		{
			name:   "partitions added",
			topics: spec.Topics{"topic1": 6, "topic2": 5},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1 topic2", "{topic1-0 topic1-2 topic2-0}"),
					srvMember(t, "B", "topic1 topic2", "{topic1-1 topic2-1 topic2-2}"),
				}
			},
			want:  map[string]string{"A": "{topic1-0 topic1-2 topic1-3 topic1-4 topic1-5 topic2-0}", "B": "{topic1-1 topic2-1 topic2-2 topic2-3 topic2-4}"},
			kafka: map[string]string{"A": "{topic1-0 topic1-2 topic1-3 topic2-0 topic2-3 topic2-4}", "B": "{topic1-1 topic1-4 topic1-5 topic2-1 topic2-2}"},
		},
		{
			name:   "one member added",
			topics: spec.Topics{"topic1": 3, "topic2": 3},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1 topic2", "{topic1-0 topic1-2 topic2-0}"),
					srvMember(t, "B", "topic1 topic2", "{topic1-1 topic2-1 topic2-2}"),
					srvMember(t, "C", "topic1 topic2", "{}"),
				}
			},
			want: map[string]string{"A": "{topic1-0 topic1-2}", "B": "{topic1-1 topic2-1}", "C": "{topic2-0 topic2-2}"},
		},
		{
			name:   "one member removed",
			topics: spec.Topics{"topic1": 3, "topic2": 3},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1 topic2", "{topic1-0 topic2-0}"),
					srvMember(t, "B", "topic1 topic2", "{topic1-1 topic2-1}"),
				}
			},
			want:  map[string]string{"A": "{topic1-0 topic1-2 topic2-0}", "B": "{topic1-1 topic2-1 topic2-2}"},
			kafka: map[string]string{"A": "{topic1-0 topic2-0 topic2-2}", "B": "{topic1-1 topic1-2 topic2-1}"},
		},
		{
			name:   "one subscription removed",
			topics: spec.Topics{"topic1": 2, "topic2": 2},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic2", "{topic1-0 topic2-0}"),
					srvMember(t, "B", "topic2", "{topic1-1 topic2-1}"),
				}
			},
			want: map[string]string{"A": "{topic2-0}", "B": "{topic2-1}"},
		},
		{
			// KAFKA-18688: balanced, but the member with the extra
			// partition is not the first; the old builder moves t-2.
			name:   "KAFKA-18688: balanced group, larger member last",
			topics: spec.Topics{"t": 3},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "t", "{t-0}"), srvMember(t, "B", "t", "{t-1 t-2}")}
			},
			want:   map[string]string{"A": "{t-0}", "B": "{t-1 t-2}"},
			before: map[string]string{"A": "{t-0 t-2}", "B": "{t-1}"},
		},
		{
			name:   "KAFKA-18688: three members, seven partitions",
			topics: spec.Topics{"t": 7},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "t", "{t-0 t-1}"), srvMember(t, "B", "t", "{t-2 t-3}"), srvMember(t, "C", "t", "{t-4 t-5 t-6}")}
			},
			want:   map[string]string{"A": "{t-0 t-1}", "B": "{t-2 t-3}", "C": "{t-4 t-5 t-6}"},
			before: map[string]string{"A": "{t-0 t-1 t-6}", "B": "{t-2 t-3}", "C": "{t-4 t-5}"},
		},
		{
			// Quota 1 with two extra slots: B and C held more and keep
			// one extra each; C's third partition moves to the new D.
			// Before the fix A and B had the extra slots, and C lost two.
			name:   "KAFKA-18688: extra slots go to the members that held more",
			topics: spec.Topics{"t": 6},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "t", "{t-0}"),
					srvMember(t, "B", "t", "{t-1 t-2}"),
					srvMember(t, "C", "t", "{t-3 t-4 t-5}"),
					srvMember(t, "D", "t", "{}"),
				}
			},
			want:   map[string]string{"A": "{t-0}", "B": "{t-1 t-2}", "C": "{t-3 t-4}", "D": "{t-5}"},
			before: map[string]string{"A": "{t-0 t-4}", "B": "{t-1 t-2}", "C": "{t-3}", "D": "{t-5}"},
		},
		{
			// Not possible in a real coordinator; resolved for the first
			// member that lists the partition.
			name:   "overlapping previous targets",
			topics: spec.Topics{"t": 4},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "t", "{t-0 t-1}"), srvMember(t, "B", "t", "{t-1 t-2}")}
			},
			want: map[string]string{"A": "{t-0 t-1}", "B": "{t-2 t-3}"},
		},
		{
			// Topics without partitions and unknown topics do not make a
			// group heterogeneous.
			name:   "empty and unknown topics are ignored",
			topics: spec.Topics{"t": 3, "z": 0},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "ghost t z", "{}"), srvMember(t, "B", "t", "{}")}
			},
			want: map[string]string{"A": "{t-0 t-1}", "B": "{t-2}"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Group{Topics: tt.topics, Members: tt.members(t)}
			if _, ok := serverHomogeneous(g); !ok {
				t.Fatalf("group is not homogeneous:\n%s", srvGroupString(g))
			}
			want := srvWant(t, tt.want)
			srvCheck(t, "uniform", srvAssign(t, Uniform(), g), want)
			before := want
			if tt.before != nil {
				before = srvWant(t, tt.before)
			}
			srvCheck(t, "uniform before KAFKA-18688", srvAssign(t, UniformWith(UniformOptions{BeforeKafka18688: true}), g), before)
			if tt.kafka != nil {
				kafka := srvWant(t, tt.kafka)
				if !slices.Equal(srvLoads(g, kafka), srvLoads(g, want)) {
					t.Errorf("sizes differ from Kafka's: %s vs %s", want, kafka)
				}
				for _, m := range g.Members {
					if kept, kk := m.Owned.Intersect(want[m.ID]), m.Owned.Intersect(kafka[m.ID]); !kept.Equal(kk) {
						t.Errorf("%s keeps %s, Kafka keeps %s", m.ID, kept, kk)
					}
				}
			}
		})
	}
}

// TestServerUniformLargeHomogeneous: Kafka's
// testValidityAndBalanceForLargeSampleSet, 49 members on 99 topics of 3.
func TestServerUniformLargeHomogeneous(t *testing.T) {
	g := Group{Topics: spec.Topics{}}
	var names []string
	for i := 1; i < 100; i++ {
		n := fmt.Sprintf("topic-%02d", i)
		g.Topics[n] = 3
		names = append(names, n)
	}
	for i := 1; i < 50; i++ {
		g.Members = append(g.Members, Member{ID: spec.MemberID(fmt.Sprintf("member%02d", i)), Topics: names})
	}
	a := srvAssign(t, Uniform(), g)
	if vs := spec.CheckRound(RoundOf(g, a, false)); len(vs) > 0 {
		t.Fatalf("invalid: %v", vs)
	}
	if vs := spec.CheckCoverage(ViewOf(g, a)); len(vs) > 0 {
		t.Fatalf("incomplete: %v", vs)
	}
	loads := srvLoads(g, a)
	if lo, hi := slices.Min(loads), slices.Max(loads); lo != 297/49 || hi != 297/49+1 {
		t.Fatalf("sizes %d..%d, want 6..7", lo, hi)
	}
}

// TestServerUniformHeterogeneousExamples: Kafka's
// UniformHeterogeneousAssignmentBuilderTest. Kafka's heterogeneous tests
// iterate members in sorted order and its topic ids sort like the names
// here, so the results match exactly. Rows marked direct pass Kafka a
// homogeneous group as HETEROGENEOUS; they run the builder directly.
func TestServerUniformHeterogeneousExamples(t *testing.T) {
	tests := []struct {
		srvExample
		direct bool
	}{
		{srvExample: srvExample{
			name:   "two members, no subscription",
			topics: spec.Topics{"topic1": 3},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "", "{}"), srvMember(t, "B", "", "{}")}
			},
			want: map[string]string{"A": "{}", "B": "{}"},
		}, direct: true},
		{srvExample: srvExample{
			// Kafka throws PartitionAssignorException. With no live
			// topic the group counts as homogeneous here.
			name:   "two members subscribed to nonexistent topics",
			topics: spec.Topics{"topic1": 3},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "topic3", "{}"), srvMember(t, "B", "topic2", "{}")}
			},
			want: map[string]string{"A": "{}", "B": "{}"},
		}, direct: true},
		{srvExample: srvExample{
			name:   "first assignment, two members, two topics",
			topics: spec.Topics{"topic1": 3, "topic3": 6},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "topic1 topic3", "{}"), srvMember(t, "B", "topic3", "{}")}
			},
			want: map[string]string{"A": "{topic1-0 topic1-1 topic1-2 topic3-4}", "B": "{topic3-0 topic3-1 topic3-2 topic3-3 topic3-5}"},
		}},
		{srvExample: srvExample{
			name:   "first assignment, more members than partitions",
			topics: spec.Topics{"topic1": 2, "topic3": 1},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "topic3", "{}"), srvMember(t, "B", "topic3", "{}"), srvMember(t, "C", "topic1", "{}")}
			},
			want: map[string]string{"A": "{topic3-0}", "B": "{}", "C": "{topic1-0 topic1-1}"},
		}},
		{srvExample: srvExample{
			name:   "unbalanced previous target, three topics",
			topics: spec.Topics{"topic1": 6, "topic2": 4, "topic3": 4},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1", "{topic1-0 topic1-1 topic1-2}"),
					srvMember(t, "B", "topic1 topic2", "{topic1-3 topic2-0}"),
					srvMember(t, "C", "topic1 topic2 topic3", "{topic1-4 topic1-5 topic2-1 topic2-2 topic2-3 topic3-0 topic3-1 topic3-2 topic3-3}"),
				}
			},
			want: map[string]string{
				"A": "{topic1-0 topic1-1 topic1-2 topic1-5}",
				"B": "{topic1-3 topic2-0 topic2-1 topic2-2 topic2-3}",
				"C": "{topic1-4 topic3-0 topic3-1 topic3-2 topic3-3}",
			},
		}},
		{srvExample: srvExample{
			name:   "partitions added",
			topics: spec.Topics{"topic1": 6, "topic2": 5, "topic3": 3, "topic4": 3},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1 topic3", "{topic1-0 topic1-1 topic1-2 topic1-3 topic3-0 topic3-1}"),
					srvMember(t, "B", "topic1 topic2 topic3 topic4", "{topic2-0 topic2-1 topic2-2 topic4-0 topic4-1 topic4-2}"),
				}
			},
			want: map[string]string{
				"A": "{topic1-0 topic1-1 topic1-2 topic1-3 topic1-4 topic1-5 topic3-0 topic3-1 topic3-2}",
				"B": "{topic2-0 topic2-1 topic2-2 topic2-3 topic2-4 topic4-0 topic4-1 topic4-2}",
			},
		}},
		{srvExample: srvExample{
			name:   "one member and partitions added",
			topics: spec.Topics{"topic1": 6, "topic2": 7},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1", "{topic1-0 topic1-2 topic2-0}"),
					srvMember(t, "B", "topic1 topic2", "{topic1-1 topic2-1 topic2-2}"),
					srvMember(t, "C", "topic1 topic2", "{}"),
				}
			},
			want: map[string]string{
				"A": "{topic1-0 topic1-2 topic1-3 topic1-4 topic1-5}",
				"B": "{topic1-1 topic2-1 topic2-2 topic2-6}",
				"C": "{topic2-0 topic2-3 topic2-4 topic2-5}",
			},
		}},
		{srvExample: srvExample{
			name:   "one member removed, three topics",
			topics: spec.Topics{"topic1": 3, "topic2": 8, "topic3": 3},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1 topic3", "{topic1-0 topic1-1 topic1-2 topic3-0 topic3-1}"),
					srvMember(t, "B", "topic2", "{topic2-3 topic2-4 topic2-5 topic2-6}"),
				}
			},
			want: map[string]string{
				"A": "{topic1-0 topic1-1 topic1-2 topic3-0 topic3-1 topic3-2}",
				"B": "{topic2-0 topic2-1 topic2-2 topic2-3 topic2-4 topic2-5 topic2-6 topic2-7}",
			},
		}},
		{srvExample: srvExample{
			name:   "one subscription removed",
			topics: spec.Topics{"topic1": 3, "topic2": 5},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1", "{topic1-0 topic1-2 topic2-1 topic2-3}"),
					srvMember(t, "B", "topic1 topic2", "{topic1-1 topic2-0 topic2-2 topic2-4}"),
				}
			},
			want: map[string]string{"A": "{topic1-0 topic1-1 topic1-2}", "B": "{topic2-0 topic2-1 topic2-2 topic2-3 topic2-4}"},
		}},
		{srvExample: srvExample{
			// The balancing loop runs out of topic1's partitions before
			// A and B are balanced, and B starts with none of them.
			name:   "topic partitions run out, members have none",
			topics: spec.Topics{"topic1": 2, "topic2": 2, "topic3": 2},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1 topic2 topic3", "{topic1-0 topic1-1 topic2-0 topic2-1 topic3-0 topic3-1}"),
					srvMember(t, "B", "topic1 topic2 topic3", "{}"),
				}
			},
			want: map[string]string{"A": "{topic2-0 topic3-0 topic3-1}", "B": "{topic1-0 topic1-1 topic2-1}"},
		}, direct: true},
		{srvExample: srvExample{
			name:   "first assignment, one member without subscription",
			topics: spec.Topics{"topic1": 3},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "topic1", "{}"), srvMember(t, "B", "", "{}")}
			},
			want: map[string]string{"A": "{topic1-0 topic1-1 topic1-2}", "B": "{}"},
		}},
		{srvExample: srvExample{
			// The javadoc example of balanceTopics: 1 and 2 share a, 2
			// and 3 share b. Each topic's subscribers are within one of
			// each other, so nothing moves, although 10/10/10 exists.
			name:   "almost balanced: 9/10/11",
			topics: spec.Topics{"a": 19, "b": 11},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "m1", "a", "{a-0 a-1 a-2 a-3 a-4 a-5 a-6 a-7 a-8}"),
					srvMember(t, "m2", "a b", "{a-9 a-10 a-11 a-12 a-13 a-14 a-15 a-16 a-17 a-18}"),
					srvMember(t, "m3", "b", "{b-0 b-1 b-2 b-3 b-4 b-5 b-6 b-7 b-8 b-9 b-10}"),
				}
			},
			want: map[string]string{
				"m1": "{a-0 a-1 a-2 a-3 a-4 a-5 a-6 a-7 a-8}",
				"m2": "{a-9 a-10 a-11 a-12 a-13 a-14 a-15 a-16 a-17 a-18}",
				"m3": "{b-0 b-1 b-2 b-3 b-4 b-5 b-6 b-7 b-8 b-9 b-10}",
			},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Group{Topics: tt.topics, Members: tt.members(t)}
			want := srvWant(t, tt.want)
			if tt.direct {
				got, converged, err := uniformHeterogeneous(g)
				if err != nil || !converged {
					t.Fatalf("err %v, converged %v", err, converged)
				}
				srvCheck(t, "heterogeneous builder", got, want)
				return
			}
			if _, ok := serverHomogeneous(g); ok {
				t.Fatalf("group is homogeneous:\n%s", srvGroupString(g))
			}
			srvCheck(t, "uniform", srvAssign(t, Uniform(), g), want)
			srvCheck(t, "uniform before KAFKA-18688", srvAssign(t, UniformWith(UniformOptions{BeforeKafka18688: true}), g), want)
		})
	}
}

// TestServerAssignorsRejectInvalidGroups: ValidateGroup's errors come back
// unchanged, and nothing panics.
func TestServerAssignorsRejectInvalidGroups(t *testing.T) {
	bad := []Group{
		{Topics: spec.Topics{"t": -1}, Members: []Member{{ID: "a"}}},
		{Topics: spec.Topics{"t": 1}, Members: []Member{{ID: "b"}, {ID: "a"}}},
		{Topics: spec.Topics{"t": 1}, Members: []Member{{ID: "a", Owned: spec.Set{spec.TP("t", 5)}}}},
		{Topics: spec.Topics{"t": 1}, Members: []Member{{ID: "a", Owned: spec.Set{spec.TP("u", 0)}}}},
		{Topics: spec.Topics{"t": 1}, Members: []Member{{ID: "a", Topics: []string{"t", "t"}}}},
		{Topics: spec.Topics{"t": 1}, Members: []Member{{ID: "a", InstanceID: "i"}, {ID: "b", InstanceID: "i"}}},
	}
	for _, as := range srvAssignors() {
		for i, g := range bad {
			want := ValidateGroup(g)
			if want == nil {
				t.Fatalf("group %d is valid", i)
			}
			a, err := as.Assign(g)
			if a != nil || err == nil || err.Error() != want.Error() || !errors.Is(err, ErrInvalidGroup) {
				t.Errorf("%s group %d: got %v, %v; want %v", as.Name(), i, a, err, want)
			}
		}
	}
}

// TestServerAssignorsNames: both uniform variants are "uniform"; the server
// range assignor is "range", like the client-side one.
func TestServerAssignorsNames(t *testing.T) {
	got := map[string]bool{}
	for _, as := range srvAssignors() {
		got[as.Name()] = true
	}
	if want := []string{"range", "uniform"}; !slices.Equal(slices.Sorted(maps.Keys(got)), want) {
		t.Fatalf("names %v, want %v", slices.Sorted(maps.Keys(got)), want)
	}
	for _, g := range []Group{{}, {Topics: spec.Topics{"t": 2}}} {
		for _, as := range srvAssignors() {
			if a := srvAssign(t, as, g); a == nil || len(a) != 0 {
				t.Errorf("%s on an empty group: %v", as.Name(), a)
			}
		}
	}
}

// srvAssignors lists the server-side assignors; srvLabels names them for
// subtests.
func srvAssignors() []Assignor {
	return []Assignor{Uniform(), UniformWith(UniformOptions{BeforeKafka18688: true}), ServerRange()}
}

var srvLabels = []string{"uniform", "uniform-before-KAFKA-18688", "server-range"}

// srvChain builds n members and n topics of parts partitions where member i
// subscribes to topics i and i+1 (overlapping, non-identical
// subscriptions), member 0 previously held topics 0 and 1 and member i>0
// topic i+1: a heavily skewed previous target.
func srvChain(n int, parts int32) Group {
	g := Group{Topics: spec.Topics{}}
	name := func(i int) string { return fmt.Sprintf("t%02d", i) }
	for i := range n {
		g.Topics[name(i)] = parts
	}
	for i := range n {
		m := Member{ID: spec.MemberID(fmt.Sprintf("m%02d", i)), Topics: []string{name(i)}}
		if i+1 < n {
			m.Topics = append(m.Topics, name(i+1))
		}
		switch {
		case i == 0:
			m.Owned = spec.Range(name(0), 0, parts-1).Union(spec.Range(name(1), 0, parts-1))
		case i+1 < n:
			m.Owned = spec.Range(name(i+1), 0, parts-1)
		}
		g.Members = append(g.Members, m)
	}
	return g
}

// TestServerUniformHeterogeneousChain: with overlapping subscriptions the
// heterogeneous builder balances each topic's subscribers, not the group
// (5 members end at 12/11/10/9/8 where 10 each is possible), and its 16
// passes can run out before that (8 members): the result is then not
// balanced per topic either, and feeding it back as the previous target
// moves partitions again.
func TestServerUniformHeterogeneousChain(t *testing.T) {
	tests := []struct {
		members   int
		parts     int32
		converged bool
		loads     []int
	}{
		{members: 5, parts: 10, converged: true, loads: []int{12, 11, 10, 9, 8}},
		{members: 8, parts: 40, converged: false, loads: []int{44, 42, 41, 40, 39, 39, 38, 37}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d members", tt.members), func(t *testing.T) {
			g := srvChain(tt.members, tt.parts)
			a, converged, err := uniformHeterogeneous(g)
			if err != nil || converged != tt.converged {
				t.Fatalf("err %v, converged %v, want %v", err, converged, tt.converged)
			}
			if !slices.Equal(srvLoads(g, a), tt.loads) {
				t.Fatalf("loads %v, want %v", srvLoads(g, a), tt.loads)
			}
			srvCheck(t, "uniform", srvAssign(t, Uniform(), g), a)
			spreads := srvTopicSpread(g, a)
			again := srvAssign(t, Uniform(), srvFeedBack(g, a))
			if converged {
				for topic, s := range spreads {
					if s > 1 {
						t.Errorf("topic %s: spread %d", topic, s)
					}
				}
				srvCheck(t, "fed back", again, a)
			} else if again.Equal(a) {
				t.Errorf("fed back after running out of passes: nothing moved")
			}
		})
	}
}
