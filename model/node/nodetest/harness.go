package nodetest

import (
	"fmt"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/node"
)

// Node is a pure node as a Harness steps it: its Step, the two copies the
// model checker makes of it (Clone, a deep copy; Fork, a copy-on-write one
// that shares what neither changes), its invariants, its dump and its
// canonical encoding. N is the node's own pointer type (*Coordinator).
type Node[N any, O fmt.Stringer] interface {
	Step(node.Input) O
	Clone() N
	Fork() N
	CheckInvariants() error
	String() string
	EncodeCanon(*canon.Encoder)
}

// Harness steps one node at a settable clock and compares what it prints
// with expected text, as the coordinator tests of every family do. Every
// step is also a test of the copies the model checker relies on: Step
// steps a Fork of the node, which then replaces it, and a Clone beside it;
// the two must print the same output and state and encode alike, and the
// node forked from must be left as it was. Fields are set by the caller;
// T, Node and Norm must not be nil.
type Harness[N Node[N, O], O fmt.Stringer] struct {
	T testing.TB
	// Node is the node under test; each Step replaces it by the fork it
	// stepped.
	Node N
	// Now is the clock of the next Step (Expect sets it).
	Now node.Millis
	// Norm normalises printed text before Expect and ExpectState compare
	// it (Trim, with the family's rule for indented lines).
	Norm func(string) string
}

// NewHarness returns a Harness of n (built with Must, say) that compares
// text normalised by norm, its clock at 0.
func NewHarness[N Node[N, O], O fmt.Stringer](t testing.TB, n N, norm func(string) string) *Harness[N, O] {
	return &Harness[N, O]{T: t, Node: n, Norm: norm}
}

// Step runs ev at h.Now and returns the node's output, failing the test
// when the node breaks its invariants, when the fork and the clone
// disagree, or when stepping the fork changed the node it was forked from.
func (h *Harness[N, O]) Step(ev node.Event) O {
	h.T.Helper()
	in := node.Input{Now: h.Now, Event: ev}
	orig := h.Node
	dump, enc := orig.String(), Encoding(orig)
	ref := orig.Clone()
	h.Node = orig.Fork()
	out := h.Node.Step(in)
	if err := h.Node.CheckInvariants(); err != nil {
		h.T.Fatalf("after %s at %d: %v\n%s", ev, h.Now, err, h.Node)
	}
	if refOut := ref.Step(in); out.String() != refOut.String() || h.Node.String() != ref.String() || Encoding(h.Node) != Encoding(ref) {
		h.T.Fatalf("after %s at %d: the fork output\n%s\nand is\n%s\na clone output\n%s\nand is\n%s", ev, h.Now, out, h.Node, refOut, ref)
	}
	if err := orig.CheckInvariants(); err != nil || orig.String() != dump || Encoding(orig) != enc {
		h.T.Fatalf("stepping a fork with %s changed the node forked from (%v):\n%s\nwas\n%s", ev, err, orig, dump)
	}
	return out
}

// Expect runs ev at time at and compares its printed output with want.
func (h *Harness[N, O]) Expect(at node.Millis, ev node.Event, want string) {
	h.T.Helper()
	h.Now = at
	got := h.Step(ev).String()
	if h.Norm(got) != h.Norm(want) {
		h.T.Fatalf("at %d, %s:\ngot:\n%s\nwant:\n%s", at, ev, h.Norm(got), h.Norm(want))
	}
}

// ExpectState compares the node's dump with want.
func (h *Harness[N, O]) ExpectState(want string) {
	h.T.Helper()
	if got := h.Node.String(); h.Norm(got) != h.Norm(want) {
		h.T.Fatalf("state:\ngot:\n%s\nwant:\n%s", h.Norm(got), h.Norm(want))
	}
}

// Encoding is n's canonical encoding at clock 0, as text.
func Encoding[N interface{ EncodeCanon(*canon.Encoder) }](n N) string {
	e := &canon.Encoder{}
	n.EncodeCanon(e)
	return string(e.Finish())
}
