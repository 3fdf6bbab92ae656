package crosscheck

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/checker"
	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/spec"
	"github.com/rebalance-ref/rebalance/tla/tlaval"
)

// toyState is the Go twin of testdata/Toy.tla: x counts to 2, f maps "a"
// and "b" to bits; r, s and q are constants of the spec.
type toyState struct {
	x int
	f [2]int
}

type toyAction uint8

const (
	toyInc toyAction = iota
	toyStay
	toyFlip
)

// toyModel is a checker.Model of the toy; broken disables Flip at x = 0,
// which loses a state and transitions TLC has.
type toyModel struct{ broken bool }

func (m toyModel) Init() []toyState { return []toyState{{}} }
func (m toyModel) Actions(s toyState, dst []toyAction) []toyAction {
	if s.x < 2 {
		dst = append(dst, toyInc)
	}
	if s.x == 2 {
		dst = append(dst, toyStay)
	}
	if !(m.broken && s.x == 0) {
		dst = append(dst, toyFlip)
	}
	return dst
}
func (m toyModel) Step(s toyState, a toyAction) (toyState, []spec.Violation) {
	switch a {
	case toyInc:
		s.x++
	case toyFlip:
		s.f[0] = 1 - s.f[0]
	}
	return s, nil
}
func (toyModel) Encode(e *canon.Encoder, s toyState) {
	e.Int(int64(s.x))
	e.Int(int64(s.f[0]))
	e.Int(int64(s.f[1]))
}
func (toyModel) Kind(toyAction) checker.Kind            { return checker.Own }
func (toyModel) FairKey(_ toyState, a toyAction) uint64 { return uint64(a) }
func (toyModel) Converged(toyState) []spec.Violation    { return nil }
func (toyModel) Owners(toyState) uint64                 { return 0 }
func (toyModel) Line(_ toyState, a toyAction) string    { return toyName(a) }
func (toyModel) Preamble() []string                     { return nil }
func (toyModel) Interchangeable() [][]string            { return nil }
func toyName(a toyAction) string                        { return [...]string{"Inc", "Stay", "Flip"}[a] }
func toyAct(_ toyState, a toyAction) string             { return toyName(a) }

// toyTLA maps a toy state to the record of Toy.tla's variables.
func toyTLA(s toyState) tlaval.Value {
	return tlaval.Rec(
		"x", tlaval.Int(s.x),
		"f", tlaval.Rec("a", tlaval.Int(s.f[0]), "b", tlaval.Int(s.f[1])),
		"r", tlaval.Rec("p", tlaval.Int(1), "o", tlaval.Str(`s"q`)),
		"s", tlaval.Set(tlaval.Int(1), tlaval.Int(2)),
		"q", tlaval.Fcn(tlaval.Int(1), tlaval.Seq(), tlaval.Int(3), tlaval.Seq()),
	)
}

func readToyDot(t *testing.T) *Graph {
	t.Helper()
	f, err := os.Open("testdata/toy.dot")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := ReadDot(f)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestToyMatchesTLC runs the whole pipeline on the toy: TLC's dump of
// Toy.tla and the Go twin's projected graph are the same graph, with TLC's
// counts (6 distinct states, depth 4).
func TestToyMatchesTLC(t *testing.T) {
	tlc := readToyDot(t)
	s := tlc.Summarize()
	if s.States != 6 || s.Diameter != 4 || s.Transitions != 12 || len(tlc.Init) != 1 {
		t.Fatalf("TLC's toy graph: %+v, want 6 states, 12 transitions, diameter 4, 1 initial state", s)
	}
	got, err := FromModel[toyState, toyAction](toyModel{}, toyTLA, toyAct, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := Compare("TLC", tlc, "Go", got, 5); d != "" {
		t.Fatalf("the toy twin differs from TLC:\n%s", d)
	}
	if got.Summarize() != s {
		t.Fatalf("equal graphs with different summaries: %+v and %+v", got.Summarize(), s)
	}
}

// TestCompareSaysWhere breaks the twin and checks that the comparison
// fails and names the step where the sides part and the missing states.
func TestCompareSaysWhere(t *testing.T) {
	tlc := readToyDot(t)
	got, err := FromModel[toyState, toyAction](toyModel{broken: true}, toyTLA, toyAct, 0)
	if err != nil {
		t.Fatal(err)
	}
	d := Compare("TLC", tlc, "Go", got, 5)
	for _, want := range []string{
		"TLC: 6 states, 12 transitions, diameter 4; Go: 5 states",
		"1 steps TLC takes from a common state to a state only TLC has",
		"--Flip-->",
		"1 states only TLC has:\n  [f |-> [a |-> 1, b |-> 0], q |-> (1 :> <<>> @@ 3 :> <<>>), r |-> [o |-> \"s\\\"q\", p |-> 1], s |-> {1, 2}, x |-> 0]",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("the report lacks %q:\n%s", want, d)
		}
	}
	if got.Summarize().StatesDigest == tlc.Summarize().StatesDigest {
		t.Errorf("different state sets with one digest")
	}
}

// TestGraphRoundTrip writes a graph and reads it back.
func TestGraphRoundTrip(t *testing.T) {
	tlc := readToyDot(t)
	var buf bytes.Buffer
	if err := WriteGraph(&buf, tlc); err != nil {
		t.Fatal(err)
	}
	first := append([]byte(nil), buf.Bytes()...)
	back, err := ReadGraph(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if d := Compare("written", tlc, "read", back, 3); d != "" {
		t.Fatalf("round trip changed the graph:\n%s", d)
	}
	var again bytes.Buffer
	if err := WriteGraph(&again, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again.Bytes()) {
		t.Errorf("WriteGraph is not deterministic")
	}
}

// TestBadInput checks that malformed dumps and graph files are refused
// with an error that says where.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct{ name, dot, want string }{
		{"undeclared node", "1 [label=\"x = 0\",style = filled]\n1 -> 2 [label=\"Inc\"];\n", "undeclared node"},
		{"bad state", "1 [label=\"x = \",style = filled]\n", "line 1"},
		{"unknown line", "what is this\n", "unrecognised line"},
		{"no initial", "1 [label=\"x = 0\"]\n", "no initial state"},
		{"no label", "1 [style = filled]\n", "no label"},
	} {
		if _, err := ReadDot(strings.NewReader(tc.dot)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadGraph(strings.NewReader("not gzip")); err == nil {
		t.Errorf("ReadGraph accepted text that is not gzip")
	}
}
