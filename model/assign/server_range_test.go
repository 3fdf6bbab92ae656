package assign

import (
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestServerRangeExamples: Kafka's group-coordinator RangeAssignorTest. The
// previous targets of the reassignment rows are ignored, as in Kafka.
func TestServerRangeExamples(t *testing.T) {
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
			// Kafka throws PartitionAssignorException.
			name:   "one member subscribed to a nonexistent topic",
			topics: spec.Topics{"topic1": 3},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "topic2", "{}")}
			},
			want: map[string]string{"A": "{}"},
		},
		{
			name:   "first assignment, two members, same subscriptions",
			topics: spec.Topics{"topic1": 3, "topic3": 2},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "topic1 topic3", "{}"), srvMember(t, "B", "topic1 topic3", "{}")}
			},
			want: map[string]string{"A": "{topic1-0 topic1-1 topic3-0}", "B": "{topic1-2 topic3-1}"},
		},
		{
			name:   "first assignment, three members, different subscriptions",
			topics: spec.Topics{"topic1": 3, "topic2": 3, "topic3": 2},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "topic1 topic2", "{}"), srvMember(t, "B", "topic3", "{}"), srvMember(t, "C", "topic2 topic3", "{}")}
			},
			want: map[string]string{"A": "{topic1-0 topic1-1 topic1-2 topic2-0 topic2-1}", "B": "{topic3-0}", "C": "{topic2-2 topic3-1}"},
		},
		{
			name:   "first assignment, more members than partitions",
			topics: spec.Topics{"topic1": 3, "topic3": 2},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "A", "topic1 topic3", "{}"), srvMember(t, "B", "topic1 topic3", "{}"), srvMember(t, "C", "topic1 topic3", "{}")}
			},
			want: map[string]string{"A": "{topic1-0 topic3-0}", "B": "{topic1-1 topic3-1}", "C": "{topic1-2}"},
		},
		{
			name:   "more members than partitions, one member added",
			topics: spec.Topics{"topic1": 2, "topic2": 2},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1 topic2", "{topic1-0 topic2-0}"),
					srvMember(t, "B", "topic1 topic2", "{topic1-1 topic2-1}"),
					srvMember(t, "C", "topic1 topic2", "{}"),
				}
			},
			want: map[string]string{"A": "{topic1-0 topic2-0}", "B": "{topic1-1 topic2-1}", "C": "{}"},
		},
		{
			name:   "one partition added to each topic",
			topics: spec.Topics{"topic1": 4, "topic2": 4},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1 topic2", "{topic1-0 topic1-1 topic2-0 topic2-1}"),
					srvMember(t, "B", "topic1 topic2", "{topic1-2 topic2-2}"),
				}
			},
			want: map[string]string{"A": "{topic1-0 topic1-1 topic2-0 topic2-1}", "B": "{topic1-2 topic1-3 topic2-2 topic2-3}"},
		},
		{
			name:   "one member added",
			topics: spec.Topics{"topic1": 3, "topic2": 3},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1 topic2", "{topic1-0 topic1-1 topic2-0 topic2-1}"),
					srvMember(t, "B", "topic1 topic2", "{topic1-2 topic2-2}"),
					srvMember(t, "C", "topic1 topic2", "{}"),
				}
			},
			want: map[string]string{"A": "{topic1-0 topic2-0}", "B": "{topic1-1 topic2-1}", "C": "{topic1-2 topic2-2}"},
		},
		{
			name:   "one member and one partition added",
			topics: spec.Topics{"topic1": 4, "topic2": 3},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1 topic2", "{topic1-0 topic1-1 topic2-0 topic2-1}"),
					srvMember(t, "B", "topic1 topic2", "{topic1-2 topic2-2}"),
					srvMember(t, "C", "topic1", "{}"),
				}
			},
			want: map[string]string{"A": "{topic1-0 topic1-1 topic2-0 topic2-1}", "B": "{topic1-2 topic2-2}", "C": "{topic1-3}"},
		},
		{
			name:   "one member removed",
			topics: spec.Topics{"topic1": 3, "topic2": 3},
			members: func(t testing.TB) []Member {
				return []Member{srvMember(t, "B", "topic1 topic2", "{topic1-2 topic2-2}")}
			},
			want: map[string]string{"B": "{topic1-0 topic1-1 topic1-2 topic2-0 topic2-1 topic2-2}"},
		},
		{
			name:   "several subscriptions removed",
			topics: spec.Topics{"topic1": 3, "topic2": 3, "topic3": 2},
			members: func(t testing.TB) []Member {
				return []Member{
					srvMember(t, "A", "topic1", "{topic1-0 topic1-1 topic1-2 topic2-0}"),
					srvMember(t, "B", "topic1 topic2 topic3", "{topic2-1}"),
					srvMember(t, "C", "topic2", "{topic2-2 topic3-0 topic3-1}"),
				}
			},
			want: map[string]string{"A": "{topic1-0 topic1-1}", "B": "{topic1-2 topic2-0 topic2-1 topic3-0 topic3-1}", "C": "{topic2-2}"},
		},
		{
			// Static members first, by instance ID, then dynamic ones by
			// member ID: instance ids reverse the member-ID order.
			name:   "static members first, by instance id",
			topics: spec.Topics{"topic1": 5},
			members: func(t testing.TB) []Member {
				return []Member{
					srvStatic(t, "A", "instanceZ", "topic1", "{}"),
					srvMember(t, "B", "topic1", "{}"),
					srvStatic(t, "C", "instanceC", "topic1", "{}"),
				}
			},
			want: map[string]string{"C": "{topic1-0 topic1-1}", "A": "{topic1-2 topic1-3}", "B": "{topic1-4}"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := Group{Topics: tt.topics, Members: tt.members(t)}
			srvCheck(t, "server range", srvAssign(t, ServerRange(), g), srvWant(t, tt.want))
		})
	}
}

// TestServerRangeStaticMembership: Kafka's testStaticMembership and
// testMixedStaticMembership: a static member that comes back under a new
// member ID with the same instance ID gets the same partitions, and so does
// everybody else.
func TestServerRangeStaticMembership(t *testing.T) {
	tests := []struct {
		name          string
		partitions    int32
		before, after func(t testing.TB) []Member
		renamed       [2]spec.MemberID
	}{
		{
			name:       "static",
			partitions: 3,
			before: func(t testing.TB) []Member {
				return []Member{srvStatic(t, "A", "instanceA", "topic1", "{}"), srvStatic(t, "B", "instanceB", "topic1", "{}")}
			},
			after: func(t testing.TB) []Member {
				return []Member{srvStatic(t, "B", "instanceB", "topic1", "{}"), srvStatic(t, "memberA1", "instanceA", "topic1", "{}")}
			},
			renamed: [2]spec.MemberID{"A", "memberA1"},
		},
		{
			name:       "mixed",
			partitions: 5,
			before: func(t testing.TB) []Member {
				return []Member{srvStatic(t, "A", "instanceA", "topic1", "{}"), srvMember(t, "B", "topic1", "{}"), srvStatic(t, "C", "instanceC", "topic1", "{}")}
			},
			after: func(t testing.TB) []Member {
				return []Member{srvMember(t, "B", "topic1", "{}"), srvStatic(t, "C", "instanceC", "topic1", "{}"), srvStatic(t, "memberA1", "instanceA", "topic1", "{}")}
			},
			renamed: [2]spec.MemberID{"A", "memberA1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			topics := spec.Topics{"topic1": tt.partitions}
			first := srvAssign(t, ServerRange(), Group{Topics: topics, Members: tt.before(t)})
			second := srvAssign(t, ServerRange(), Group{Topics: topics, Members: tt.after(t)})
			want := first.Clone()
			want[tt.renamed[1]] = want[tt.renamed[0]]
			delete(want, tt.renamed[0])
			srvCheck(t, "after the restart", second, want)
		})
	}
}
