package world

import (
	"testing"

	"github.com/rebalance-ref/rebalance/model/nextgen"
)

// TestSameConfig: two next-gen configurations are the same when they
// differ only in their names, and not when any other field differs.
func TestSameConfig(t *testing.T) {
	a := nextgen.MemberConfig{Name: "A", Topics: []string{"T"}, RebalanceTimeout: 4000}
	b := a
	b.Name = "B"
	var f Family
	if !f.SameConfig(a, b) || !f.SameConfig(b, a) {
		t.Error("configurations that differ in their names only are not the same")
	}
	for name, change := range map[string]func(*nextgen.MemberConfig){
		"InstanceID":       func(c *nextgen.MemberConfig) { c.InstanceID = "a" },
		"Topics":           func(c *nextgen.MemberConfig) { c.Topics = []string{"U"} },
		"RebalanceTimeout": func(c *nextgen.MemberConfig) { c.RebalanceTimeout++ },
	} {
		c := b
		change(&c)
		if f.SameConfig(a, c) {
			t.Errorf("%s differs, yet the configurations are the same", name)
		}
	}
}
