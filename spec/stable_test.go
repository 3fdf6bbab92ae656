package spec

import "testing"

// TestCheckStableWhenBalanced: each row is a round (claims before, what the
// round assigned) and what the law reports. The law is judged only where
// the most a balanced assignment can keep is arithmetic.
func TestCheckStableWhenBalanced(t *testing.T) {
	all := map[MemberID][]string{"A": {"t"}, "B": {"t"}, "C": {"t"}}
	tests := []struct {
		name     string
		topics   Topics
		subs     map[MemberID][]string
		claims   map[MemberID]string
		assigned map[MemberID]string
		want     string
	}{
		{"balanced and unchanged keeps everything", Topics{"t": 4}, map[MemberID][]string{"A": {"t"}, "B": {"t"}},
			map[MemberID]string{"A": "{t-0 t-1}", "B": "{t-2 t-3}"}, map[MemberID]string{"A": "{t-0 t-1}", "B": "{t-2 t-3}"}, ""},
		{"balanced group reshuffled", Topics{"t": 4}, map[MemberID][]string{"A": {"t"}, "B": {"t"}},
			map[MemberID]string{"A": "{t-0 t-1}", "B": "{t-2 t-3}"}, map[MemberID]string{"A": "{t-1 t-2}", "B": "{t-0 t-3}"},
			"StableWhenBalanced: [A B]: the members keep 2 of their claims; a balanced assignment of 4 resources to 2 members keeps 4"},
		{"a join takes only the surplus", Topics{"t": 5}, all,
			map[MemberID]string{"B": "{t-0 t-1 t-2}", "C": "{t-3 t-4}"}, map[MemberID]string{"A": "{t-2}", "B": "{t-0 t-1}", "C": "{t-3 t-4}"}, ""},
		{"KAFKA-18688: the larger shares go first in member order", Topics{"t": 5}, all,
			map[MemberID]string{"B": "{t-0 t-1 t-2}", "C": "{t-3 t-4}"}, map[MemberID]string{"A": "{t-2 t-4}", "B": "{t-0 t-1}", "C": "{t-3}"},
			"StableWhenBalanced: [C]: the members keep 3 of their claims; a balanced assignment of 5 resources to 3 members keeps 4"},
		{"a member cut below its base share is named", Topics{"t": 3}, all,
			map[MemberID]string{"A": "{t-0}", "B": "{t-1}", "C": "{t-2}"}, map[MemberID]string{"A": "{t-0 t-1}", "B": "{}", "C": "{t-2}"},
			"StableWhenBalanced: [B]: the members keep 2 of their claims; a balanced assignment of 3 resources to 3 members keeps 3"},
		{"more members above the base share than larger shares", Topics{"t": 4}, all,
			map[MemberID]string{"A": "{t-0 t-1}", "B": "{t-2 t-3}"}, map[MemberID]string{"A": "{t-0 t-1}", "B": "{t-2}", "C": "{t-3}"}, ""},
		{"members at the base share are not above it", Topics{"t": 3}, map[MemberID][]string{"A": {"t"}, "B": {"t"}},
			map[MemberID]string{"A": "{t-0}", "B": "{t-1}"}, map[MemberID]string{"A": "{t-0 t-2}", "B": "{t-1}"}, ""},
		{"only a member that had a larger share is named", Topics{"t": 4}, all,
			map[MemberID]string{"A": "{t-0 t-1}", "B": "{t-2}", "C": "{t-3}"}, map[MemberID]string{"A": "{t-0}", "B": "{t-1 t-2}", "C": "{t-3}"},
			"StableWhenBalanced: [A]: the members keep 3 of their claims; a balanced assignment of 4 resources to 3 members keeps 4"},
		{"claims outside the universe cannot be kept", Topics{"t": 2}, map[MemberID][]string{"A": {"t"}, "B": {"t"}},
			map[MemberID]string{"A": "{t-0 t-5}", "B": "{t-1 u-0}"}, map[MemberID]string{"A": "{t-0}", "B": "{t-1}"}, ""},
		{"different subscriptions: not judged", Topics{"t": 2, "u": 2}, map[MemberID][]string{"A": {"t", "u"}, "B": {"t"}},
			map[MemberID]string{"A": "{t-0 t-1}", "B": "{}"}, map[MemberID]string{"A": "{u-0 u-1}", "B": "{t-0 t-1}"}, ""},
		{"a resource claimed twice: not judged", Topics{"t": 2}, map[MemberID][]string{"A": {"t"}, "B": {"t"}},
			map[MemberID]string{"A": "{t-0 t-1}", "B": "{t-1}"}, map[MemberID]string{"A": "{t-1}", "B": "{t-0}"}, ""},
		{"no universe: not judged", nil, map[MemberID][]string{"A": {"t"}, "B": {"t"}},
			map[MemberID]string{"A": "{t-0 t-1}"}, map[MemberID]string{"A": "{}", "B": "{t-0 t-1}"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Round{Topics: tt.topics, Subscriptions: tt.subs, Claims: map[MemberID]Set{}, Assigned: Assignment{}, Sticky: true}
			for m, s := range tt.claims {
				r.Claims[m] = mustSet(t, s)
			}
			for m, s := range tt.assigned {
				r.Assigned[m] = mustSet(t, s)
			}
			if got := violations(CheckStableWhenBalanced(r)); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			if vs := CheckRound(r); len(vs) > 0 && tt.topics != nil {
				t.Errorf("the row is not a legal round: %s", violations(vs))
			}
		})
	}
}

// TestViolationString: a violation that names no resource and no member
// prints "Law: detail".
func TestViolationString(t *testing.T) {
	for _, tt := range []struct {
		v    Violation
		want string
	}{
		{Violation{Law: BoundedRounds, Detail: "3 rounds"}, "BoundedRounds: 3 rounds"},
		{Violation{Law: Coverage, Resource: Resource{Topic: "t", Partition: 1}, Detail: "unowned"}, "Coverage: t-1: unowned"},
		{Violation{Law: Timely, Members: []string{"B"}, Detail: "expired"}, "Timely: [B]: expired"},
		{Violation{Law: Balance}, "Balance:"},
	} {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
