package nodetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/node"
)

// toyOut is a toy node's output.
type toyOut struct{ n int }

func (o toyOut) String() string { return fmt.Sprintf("out %d", o.n) }

// toy is a node that counts the steps it took in counts[0], shared by
// its forks until they write, unless a fault breaks one of its contracts.
type toy struct {
	counts []int
	shared bool
	// faults: "fork-shares" (a fork writes into its origin's slice),
	// "clone-differs" (a clone starts from zero), "invariant" (a step
	// breaks the invariant), "encoding" (the fork encodes unlike the clone
	// though it prints alike).
	fault string
	fork  bool
}

func (t *toy) Step(in node.Input) toyOut {
	if t.shared && t.fault != "fork-shares" {
		t.counts, t.shared = append([]int(nil), t.counts...), false
	}
	t.counts[0]++
	return toyOut{t.counts[0]}
}

func (t *toy) Clone() *toy {
	c := &toy{counts: append([]int(nil), t.counts...), fault: t.fault}
	if t.fault == "clone-differs" {
		c.counts[0] = 0
	}
	return c
}

func (t *toy) Fork() *toy {
	return &toy{counts: t.counts, shared: true, fault: t.fault, fork: true}
}

func (t *toy) CheckInvariants() error {
	if t.fault == "invariant" && t.counts[0] > 1 {
		return fmt.Errorf("count %d", t.counts[0])
	}
	return nil
}

func (t *toy) String() string { return fmt.Sprintf("count=%d", t.counts[0]) }

func (t *toy) EncodeCanon(e *canon.Encoder) {
	e.Int(int64(t.counts[0]))
	if t.fault == "encoding" && t.fork {
		e.Bool(true)
	}
}

// fatals records the first Fatalf of a Harness and stops the step there,
// as testing.T's does.
type fatals struct {
	testing.TB
	got string
}

func (f *fatals) Helper() {}
func (f *fatals) Fatalf(format string, args ...any) {
	f.got = fmt.Sprintf(format, args...)
	panic(f)
}

// run steps a toy with fault twice through a Harness, expecting outputs
// "out 1" and then second, and state want; it returns what the harness
// failed with ("" for nothing).
func run(fault, second, want string) (got string) {
	f := &fatals{}
	h := NewHarness[*toy, toyOut](f, &toy{counts: []int{0}, fault: fault}, func(s string) string { return s })
	defer func() {
		if r := recover(); r != nil && r != any(f) {
			panic(r)
		}
		got = f.got
	}()
	h.Expect(10, node.Start{}, "out 1")
	h.Expect(20, node.Start{}, second)
	h.ExpectState(want)
	return ""
}

// TestHarness: a node that keeps its contracts passes; each broken
// contract (a fork writing into the node forked from, a clone unlike the
// node, an invariant, an encoding that differs) and each wrong
// expectation fails the test with a message that says which.
func TestHarness(t *testing.T) {
	for _, c := range []struct {
		fault, second, state, want string
	}{
		{"", "out 2", "count=2", ""},
		{"", "out 3", "count=2", "at 20, start:\ngot:\nout 2\nwant:\nout 3"},
		{"", "out 2", "count=3", "state:"},
		{"fork-shares", "out 2", "count=2", "changed the node forked from"},
		{"clone-differs", "out 2", "count=2", "a clone output"},
		{"invariant", "out 2", "count=2", "after start at 20: count 2"},
		{"encoding", "out 2", "count=2", "a clone output"},
	} {
		got := run(c.fault, c.second, c.state)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("fault %q, state %q: the harness failed with %q, want %q", c.fault, c.state, got, c.want)
		}
	}
}
