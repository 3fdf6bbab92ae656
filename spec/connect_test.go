package spec

import "testing"

// TestConnectorUniverse: a connector of a Topics has its connector
// resource besides its tasks; its marker names no partition.
func TestConnectorUniverse(t *testing.T) {
	topics := Topics{"t": 1}.AddConnector("c", 2)
	if got, want := topics.Resources("c", "t", "c/connector").String(), "{c/connector c-0 c-1 t-0}"; got != want {
		t.Errorf("Resources: got %s, want %s", got, want)
	}
	for r, want := range map[Resource]bool{
		Connector("c"): true, Task("c", 1): true, Task("c", 2): false, Connector("t"): false,
		TP("c/connector", 0): false, TP("t", 0): true,
	} {
		if got := topics.Has(r); got != want {
			t.Errorf("Has(%s) = %v, want %v", r, got, want)
		}
	}
	if got := topics.Connectors(); len(got) != 1 || got[0] != "c" {
		t.Errorf("Connectors: got %v, want [c]", got)
	}
	if (Topics{"c/connector": 0}).IsConnector("c") {
		t.Errorf("a marker without its topic makes a connector")
	}
	v := View{Topics: topics, Members: []MemberView{
		{Name: "A", ID: "A-1", Current: true, Subscription: []string{"c", "t"}, Owns: mustSet(t, "{c-0 c-1 t-0}")},
	}}
	if got, want := violations(CheckCoverage(v)), "Coverage: c/connector: owned by 0 current members, want 1"; got != want {
		t.Errorf("coverage: got %q, want %q", got, want)
	}
	v.Members[0].Owns = mustSet(t, "{c/connector c-0 c-1 t-0}")
	if got := violations(CheckCoverage(v)); got != "" {
		t.Errorf("coverage of a covered connector: got %q", got)
	}
	if got := violations(CheckExistingOnly(v)); got != "" {
		t.Errorf("existing-only: got %q", got)
	}
}

// TestCheckConnectBalance: each row is a view of two or three workers and
// what the Connect balance law reports. Without connectors it is
// CheckBalance.
func TestCheckConnectBalance(t *testing.T) {
	connect := Topics{}.AddConnector("c", 4).AddConnector("d", 4)
	plain := Topics{"t": 4, "u": 2}
	view := func(topics Topics, owns ...string) View {
		v := View{Topics: topics}
		subs := topics.Names()
		for i, o := range owns {
			n := string(rune('A' + i))
			v.Members = append(v.Members, MemberView{Name: n, ID: MemberID(n + "-1"), Current: true, Subscription: subs, Owns: mustSet(t, o)})
		}
		return v.Sort()
	}
	tests := []struct {
		name string
		v    View
		want string
	}{
		{name: "balanced per kind and per connector", v: view(connect,
			"{c/connector c-0 c-1 d-0 d-1}", "{d/connector c-2 c-3 d-2 d-3}")},
		{name: "KAFKA-17049: the totals balanced, each connector on one worker", v: view(connect,
			"{c/connector c-0 c-1 c-2 c-3}", "{d/connector d-0 d-1 d-2 d-3}"),
			want: "Balance: [A B]: connector c: A runs 4 of its tasks and B runs 0\n" +
				"Balance: [B A]: connector d: B runs 4 of its tasks and A runs 0"},
		{name: "one more of a connector is within one", v: view(Topics{}.AddConnector("c", 3).AddConnector("d", 3),
			"{c/connector c-0 c-1 d-0}", "{d/connector c-2 d-1 d-2}")},
		{name: "connectors imbalanced, tasks balanced", v: view(connect,
			"{c/connector d/connector c-0 c-1 d-0 d-1}", "{c-2 c-3 d-2 d-3}"),
			want: "Balance: c/connector [A B]: connectors: A owns 2 and B owns 0; c/connector could move"},
		{name: "tasks imbalanced", v: view(connect,
			"{c/connector c-0 c-1 c-2 d-0 d-1 d-2}", "{d/connector c-3 d-3}"),
			want: "Balance: c-0 [A B]: tasks: A owns 6 and B owns 2; c-0 could move\n" +
				"Balance: [A B]: connector c: A runs 3 of its tasks and B runs 1\n" +
				"Balance: [A B]: connector d: A runs 3 of its tasks and B runs 1"},
		{name: "a worker not subscribed to a connector is not counted for it", v: func() View {
			v := view(connect, "{c/connector d/connector c-0 c-1 c-2 c-3 d-0 d-1 d-2 d-3}", "{}")
			v.Members[1].Subscription = nil
			return v
		}()},
		{name: "ties name the first worker in name order", v: view(connect,
			"{c/connector c-0 c-1 c-2 c-3}", "{d/connector d-0 d-1}", "{d-2 d-3}"),
			// Connector c's tasks: A 4, B and C none, so B is named; d's: B
			// and C 2 each, so B is named.
			want: "Balance: c-0 [A B]: tasks: A owns 4 and B owns 2; c-0 could move\n" +
				"Balance: c-0 [A C]: tasks: A owns 4 and C owns 2; c-0 could move\n" +
				"Balance: [A B]: connector c: A runs 4 of its tasks and B runs 0\n" +
				"Balance: [B A]: connector d: B runs 2 of its tasks and A runs 0"},
		{name: "without connectors it is CheckBalance", v: view(plain, "{t-0 t-1 t-2 u-0}", "{t-3 u-1}"),
			want: "Balance: t-0 [A B]: A owns 4 and B owns 2; t-0 could move"},
		{name: "without connectors, per-topic imbalance is not reported", v: view(plain, "{t-0 t-1 t-2}", "{t-3 u-0 u-1}")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := violations(CheckConnectBalance(tt.v)); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			if !hasConnectors(tt.v) {
				if got, want := violations(CheckConnectBalance(tt.v)), violations(CheckBalance(tt.v)); got != want {
					t.Errorf("without connectors: got %q, CheckBalance says %q", got, want)
				}
			}
		})
	}
}
