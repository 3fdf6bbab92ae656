package assign

import (
	"fmt"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// Examples from Kafka's RangeAssignorTest and RoundRobinAssignorTest
// (clients/src/test/.../consumer/), without racks, plus member ordering.
func TestRangeAndRoundRobinExamples(t *testing.T) {
	tests := []struct {
		name       string
		topics     spec.Topics
		members    func(t *testing.T) []Member
		range_, rr map[string]string
	}{
		{
			name:   "one consumer, no topic",
			topics: spec.Topics{},
			members: func(t *testing.T) []Member {
				return []Member{mem(t, "c", -1, "", "{}")}
			},
			range_: map[string]string{"c": "{}"},
			rr:     map[string]string{"c": "{}"},
		},
		{
			name:   "one consumer, nonexistent topic",
			topics: spec.Topics{},
			members: func(t *testing.T) []Member {
				return []Member{mem(t, "c", -1, "t", "{}")}
			},
			range_: map[string]string{"c": "{}"},
			rr:     map[string]string{"c": "{}"},
		},
		{
			name:   "two consumers, one topic, three partitions",
			topics: spec.Topics{"t": 3},
			members: func(t *testing.T) []Member {
				return []Member{mem(t, "c1", -1, "t", "{}"), mem(t, "c2", -1, "t", "{}")}
			},
			range_: map[string]string{"c1": "{t-0 t-1}", "c2": "{t-2}"},
			rr:     map[string]string{"c1": "{t-0 t-2}", "c2": "{t-1}"},
		},
		{
			name:   "multiple consumers, mixed topics",
			topics: spec.Topics{"t1": 3, "t2": 2},
			members: func(t *testing.T) []Member {
				return []Member{mem(t, "c1", -1, "t1", "{}"), mem(t, "c2", -1, "t1 t2", "{}"), mem(t, "c3", -1, "t1", "{}")}
			},
			range_: map[string]string{"c1": "{t1-0}", "c2": "{t1-1 t2-0 t2-1}", "c3": "{t1-2}"},
			rr:     map[string]string{"c1": "{t1-0}", "c2": "{t1-1 t2-0 t2-1}", "c3": "{t1-2}"},
		},
		{
			name:   "two consumers, two topics, six partitions",
			topics: spec.Topics{"t1": 3, "t2": 3},
			members: func(t *testing.T) []Member {
				return []Member{mem(t, "c1", -1, "t1 t2", "{}"), mem(t, "c2", -1, "t1 t2", "{}")}
			},
			range_: map[string]string{"c1": "{t1-0 t1-1 t2-0 t2-1}", "c2": "{t1-2 t2-2}"},
			rr:     map[string]string{"c1": "{t1-0 t1-2 t2-1}", "c2": "{t1-1 t2-0 t2-2}"},
		},
		{
			// AbstractStickyAssignorTest.testPoorRoundRobinAssignmentScenario's
			// javadoc gives this round-robin result.
			name:   "poor round-robin scenario",
			topics: spec.Topics{"topic1": 2, "topic2": 1, "topic3": 2, "topic4": 1, "topic5": 2},
			members: func(t *testing.T) []Member {
				return []Member{
					mem(t, "consumer1", -1, "topic1 topic2 topic3 topic4 topic5", "{}"),
					mem(t, "consumer2", -1, "topic1 topic3 topic5", "{}"),
					mem(t, "consumer3", -1, "topic1 topic3 topic5", "{}"),
					mem(t, "consumer4", -1, "topic1 topic2 topic3 topic4 topic5", "{}"),
				}
			},
			range_: map[string]string{
				"consumer1": "{topic1-0 topic2-0 topic3-0 topic4-0 topic5-0}",
				"consumer2": "{topic1-1 topic3-1 topic5-1}",
				"consumer3": "{}",
				"consumer4": "{}",
			},
			rr: map[string]string{
				"consumer1": "{topic1-0 topic3-0 topic5-0}",
				"consumer2": "{topic1-1 topic3-1 topic5-1}",
				"consumer3": "{}",
				"consumer4": "{topic2-0 topic4-0}",
			},
		},
		{
			// Static members come first, by instance id; then dynamic
			// members by member id.
			name:   "static members first, by instance id",
			topics: spec.Topics{"t": 5},
			members: func(t *testing.T) []Member {
				ms := []Member{mem(t, "m1", -1, "t", "{}"), mem(t, "m2", -1, "t", "{}"), mem(t, "m3", -1, "t", "{}")}
				ms[1].InstanceID = "z"
				ms[2].InstanceID = "a"
				return ms
			},
			range_: map[string]string{"m3": "{t-0 t-1}", "m2": "{t-2 t-3}", "m1": "{t-4}"},
			rr:     map[string]string{"m3": "{t-0 t-3}", "m2": "{t-1 t-4}", "m1": "{t-2}"},
		},
		{
			// Owned partitions and generations are ignored.
			name:   "ownership is ignored",
			topics: spec.Topics{"t": 2},
			members: func(t *testing.T) []Member {
				return []Member{mem(t, "c1", 5, "t", "{t-1}"), mem(t, "c2", 5, "t", "{t-0}")}
			},
			range_: map[string]string{"c1": "{t-0}", "c2": "{t-1}"},
			rr:     map[string]string{"c1": "{t-0}", "c2": "{t-1}"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := Group{Topics: tc.topics, Members: tc.members(t)}
			assertAssignment(t, mustAssign(t, Range(), g), parseAssignment(t, tc.range_))
			assertAssignment(t, mustAssign(t, RoundRobin(), g), parseAssignment(t, tc.rr))
		})
	}
}

func TestRangeCoPartitioning(t *testing.T) {
	g := Group{Topics: spec.Topics{"orders": 5, "payments": 5, "other": 3}}
	for _, id := range []string{"a", "b", "c"} {
		g.Members = append(g.Members, mem(t, id, -1, "orders other payments", "{}"))
	}
	a := mustAssign(t, Range(), g)
	for _, m := range g.Members {
		var orders, payments []int32
		for _, r := range a[m.ID] {
			switch r.Topic {
			case "orders":
				orders = append(orders, r.Partition)
			case "payments":
				payments = append(payments, r.Partition)
			}
		}
		if len(orders) == 0 || !slices.Equal(orders, payments) {
			t.Errorf("%s: orders %v and payments %v are not co-partitioned", m.ID, orders, payments)
		}
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		a    Assignor
		name string
	}{
		{Range(), "range"},
		{RoundRobin(), "roundrobin"},
		{Sticky(), "sticky"},
		{CooperativeSticky(), "cooperative-sticky"},
		{CooperativeStickyWith(CooperativeOptions{NoWithholding: true}), "cooperative-sticky"},
	} {
		if got := tc.a.Name(); got != tc.name {
			t.Errorf("Name() = %q, want %q", got, tc.name)
		}
	}
}

// TestSubscriptionTableGroups: the members' subscriptions are grouped by
// slice, and a slice of its own joins the previous member's group when it
// holds the same topics, so that a topic is looked up once per distinct
// subscription; whatever the grouping, has answers each member's own
// subscription.
func TestSubscriptionTableGroups(t *testing.T) {
	ab := []string{"a", "b"}
	for _, c := range []struct {
		name   string
		subs   [][]string
		groups int
	}{
		{"one slice shared", [][]string{ab, ab, ab}, 1},
		{"equal slices decoded apart", [][]string{{"a", "b"}, {"a", "b"}, {"a", "b"}}, 1},
		{"a shared slice seen again after another", [][]string{ab, {"b"}, ab}, 2},
		{"different topics", [][]string{{"a"}, {"b"}, {"a", "b"}}, 3},
		{"equal but not next to each other", [][]string{{"a"}, {"b"}, {"a"}}, 3},
		{"a prefix", [][]string{{"a"}, {"a", "b"}}, 2},
		{"none", [][]string{nil, {}, {"a"}}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := Group{Topics: map[string]int32{"a": 1, "b": 1}}
			for i, ts := range c.subs {
				g.Members = append(g.Members, Member{ID: spec.MemberID(fmt.Sprint("m", i)), Topics: ts})
			}
			s := newSubscriptionTable(g)
			if len(s.first) != c.groups {
				t.Errorf("%d groups, want %d (sub %v)", len(s.first), c.groups, s.sub)
			}
			for _, topic := range []string{"a", "b"} {
				s.load(topic)
				for i, ts := range c.subs {
					if got := s.has(i); got != slices.Contains(ts, topic) {
						t.Errorf("member %d subscribing to %v: has(%s) = %t", i, ts, topic, got)
					}
				}
			}
		})
	}
}
