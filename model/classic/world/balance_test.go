package world

import (
	"testing"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	"github.com/rebalance-ref/rebalance/model/node/nodetest"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestBalanceOf: each built-in protocol states its own balance law
// (classic.Balancer), and BalanceOf finds it by the protocol's name. The
// views tell the three laws apart: one balances every topic but not the
// members' totals, one the totals but not each topic, one the totals but
// not a connector's tasks.
func TestBalanceOf(t *testing.T) {
	view := func(topics spec.Topics, owns ...string) spec.View { return nodetest.View(t, topics, owns...) }
	views := map[string]spec.View{
		"topics balanced, totals not": view(spec.Topics{"a": 1, "b": 1}, "{a-0 b-0}", "{}"),
		"totals balanced, topics not": view(spec.Topics{"a": 2, "b": 2}, "{a-0 a-1}", "{b-0 b-1}"),
		"totals balanced, a connector's tasks not": view(spec.Topics{}.AddConnector("c", 2).AddConnector("d", 2),
			"{c--1 c-0 c-1}", "{d--1 d-0 d-1}"),
	}
	cases := []struct {
		name string
		// law is the law the protocol states; nil for none.
		law func(spec.View) []spec.Violation
	}{
		{"eager", spec.CheckTopicBalance},
		{"cooperative", spec.CheckBalance},
		{"deferred", spec.CheckConnectBalance},
		{"incremental", spec.CheckConnectBalance},
	}
	for _, c := range cases {
		got := BalanceOf(c.name)
		if got == nil {
			t.Fatalf("BalanceOf(%q) is nil", c.name)
		}
		for vn, v := range views {
			if g, w := len(got(v)) > 0, len(c.law(v)) > 0; g != w {
				t.Errorf("%s on %q: BalanceOf says broken=%t, its law says %t", c.name, vn, g, w)
			}
		}
	}
	// The laws differ on the views, so the table above tells them apart.
	if len(spec.CheckTopicBalance(views["topics balanced, totals not"])) != 0 || len(spec.CheckBalance(views["topics balanced, totals not"])) == 0 ||
		len(spec.CheckTopicBalance(views["totals balanced, topics not"])) == 0 || len(spec.CheckBalance(views["totals balanced, topics not"])) != 0 ||
		len(spec.CheckBalance(views["totals balanced, a connector's tasks not"])) != 0 || len(spec.CheckConnectBalance(views["totals balanced, a connector's tasks not"])) == 0 {
		t.Fatal("the views no longer tell the three balance laws apart")
	}
	if BalanceOf("no-such-protocol") != nil {
		t.Error("BalanceOf of an unknown protocol is not nil")
	}
	// Eager states its assignor's law, and none for round-robin, which
	// states none (a harness then judges its own default, not nothing).
	for _, c := range []struct {
		a    assign.Assignor
		want func(spec.View) []spec.Violation
	}{
		{assign.RoundRobin(), nil},
		{assign.Sticky(), spec.CheckBalance},
		{assign.Range(), spec.CheckTopicBalance},
	} {
		b, ok := policy.Eager(c.a).(classic.Balancer)
		if ok != (c.want != nil) {
			t.Fatalf("eager(%s) states a balance law: %t, want %t", c.a.Name(), ok, c.want != nil)
		}
		if !ok {
			continue
		}
		for vn, v := range views {
			if got, want := len(b.Balance(v)) > 0, len(c.want(v)) > 0; got != want {
				t.Errorf("eager(%s) on %q: broken=%t, want %t", c.a.Name(), vn, got, want)
			}
		}
	}
	if _, ok := assign.CooperativeSticky().(assign.BalancedAssignor); !ok {
		t.Error("cooperative-sticky states no balance")
	}
}
