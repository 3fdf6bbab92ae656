// Package nodetest is what the node tests of every protocol family share:
// building a node from a configuration the test knows to be valid, writing
// resource sets as text, and comparing printed outputs and states with
// expected text written indented in the test source.
//
// Like package node it is pure: standard library and packages spec, node
// and canon only.
package nodetest

import (
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// Must returns n, and panics with err when it is not nil: for a test that
// builds a node (NewCoordinator, NewMember) from a configuration it knows
// to be valid, so an error is a bug in the test.
func Must[N any](n N, err error) N {
	if err != nil {
		panic(err)
	}
	return n
}

// Set parses s as spec.ParseSet does ("{T-0 T-1}"), failing the test
// when it is not a set.
func Set(t testing.TB, s string) spec.Set {
	t.Helper()
	out, err := spec.ParseSet(s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// View is the ownership view of current members A, B, C, ... (member ids
// A-1, B-1, ...), each subscribed to every topic of topics and owning the
// set written in owns, in order: for tests of the balance laws.
func View(t testing.TB, topics spec.Topics, owns ...string) spec.View {
	t.Helper()
	v := spec.View{Topics: topics}
	for i, o := range owns {
		n := string(rune('A' + i))
		v.Members = append(v.Members, spec.MemberView{Name: n, ID: spec.MemberID(n + "-1"), Current: true, Subscription: topics.Names(), Owns: Set(t, o)})
	}
	return v.Sort()
}

// Trim trims the white space around every line of s and drops the empty
// lines, so that expected text can be indented in the test source. A line
// that indented reports true for (a detail line of a node's dump) keeps a
// two-space indent; indented may be nil.
func Trim(s string, indented func(line string) bool) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if indented != nil && indented(t) {
			t = "  " + t
		}
		out = append(out, t)
	}
	return strings.Join(out, "\n")
}

// CheckPhases fails t unless every state of a member's machine has the
// phase want gives it, written "state:phase" a state, in state order and
// separated by spaces: the phases are a table a typo can break silently
// (a state left Active that should rebalance), so each family's test
// spells the whole table out.
func CheckPhases[S ~uint8](t testing.TB, m *node.Machine[S], want string) {
	t.Helper()
	var got []string
	for s := range S(len(m.Names)) {
		got = append(got, m.Name(s)+":"+m.Phase(s).String())
	}
	if g := strings.Join(got, " "); g != want {
		t.Errorf("phases\n got %s\nwant %s", g, want)
	}
}
