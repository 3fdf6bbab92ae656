package world_test

import (
	"testing"

	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/mixed"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
)

// classicModel is the model checker's world of a classic protocol with
// options o; the test fails at once when it cannot be made.
func classicModel(t testing.TB, protocol string, o classicworld.CheckOptions) *classicworld.Model {
	t.Helper()
	cfg, err := classicworld.CheckWorld(protocol, o)
	if err != nil {
		t.Fatal(err)
	}
	m, err := classicworld.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// nextgenModel is the model checker's next-gen world with options o; the
// test fails at once when it cannot be made.
func nextgenModel(t testing.TB, o ngworld.CheckOptions) *ngworld.Model {
	t.Helper()
	cfg, err := ngworld.CheckWorld(o)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ngworld.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mixedModel is the model checker's mixed world (classic members and
// consumer-protocol joiners in one group) with options o; the test fails
// at once when it cannot be made.
func mixedModel(t testing.TB, o mixed.CheckOptions) *mixed.Model {
	t.Helper()
	cfg, err := mixed.CheckWorld(o)
	if err != nil {
		t.Fatal(err)
	}
	m, err := mixed.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
