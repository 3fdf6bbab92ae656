package crosscheck

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/tla/tlaval"
)

// graphText returns the text of WriteGraph(g), not gzipped.
func graphText(t testing.TB, g *Graph) string {
	var buf bytes.Buffer
	if err := WriteGraph(&buf, g); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rereadGraph writes g with WriteGraph and reads it back with ReadGraph,
// failing unless the graph comes back equal.
func rereadGraph(t *testing.T, what string, g *Graph) {
	var buf bytes.Buffer
	if err := WriteGraph(&buf, g); err != nil {
		t.Fatal(err)
	}
	back, err := ReadGraph(&buf)
	if err != nil {
		t.Fatalf("%s: the graph WriteGraph wrote does not read back: %v\n%s", what, err, graphText(t, g))
	}
	if !reflect.DeepEqual(back, g) {
		t.Fatalf("%s: read back differently:\n%s", what, Compare("written", g, "read", back, 5))
	}
}

// FuzzReadDot: ReadDot never panics; a graph it accepts keeps its
// invariant (every initial state and edge end is a state), its states are
// canonical texts (each parses to itself), and WriteGraph writes it as a
// file ReadGraph reads back equal, the way tla/golden keeps TLC's graphs.
func FuzzReadDot(f *testing.F) {
	b, err := os.ReadFile("testdata/toy.dot")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("1 [label=\"x = 0\",style = filled]\n1 -> 2 [label=\"Inc\"];\n2 [label=\"x = 1\"]\n")
	f.Add("1 [label=\"/\\\\ x = 0\\n/\\\\ y = \\\"a\\\"\",style = filled]\n1 -> 1 [label=\"Stay(1)\"];\n")
	f.Add("1 [style = filled]\n")
	f.Fuzz(func(t *testing.T, dot string) {
		g, err := ReadDot(strings.NewReader(dot))
		if err != nil {
			if g != nil {
				t.Fatal("an error with a graph")
			}
			return
		}
		for s := range g.Init {
			if !g.States[s] {
				t.Fatalf("initial state %q is not a state", s)
			}
		}
		for e := range g.Edges {
			if !g.States[e.From] || !g.States[e.To] {
				t.Fatalf("edge %v ends outside the states", e)
			}
		}
		for s := range g.States {
			if v, err := tlaval.Parse(s); err != nil || v.String() != s {
				t.Fatalf("state %q is not a canonical text (%v, %v)", s, v, err)
			}
		}
		rereadGraph(t, "dot", g)
	})
}

// FuzzReadGraph: ReadGraph never panics nor allocates what the counts
// claim before the lines are there; a graph it accepts writes back
// (WriteGraph) to a file it reads as the same graph. The fuzzed input is
// the text, gzipped here.
func FuzzReadGraph(f *testing.F) {
	b, err := os.ReadFile("testdata/toy.dot")
	if err != nil {
		f.Fatal(err)
	}
	g, err := ReadDot(bytes.NewReader(b))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(graphText(f, g))
	f.Add("states 2\na\nb\ninit 1\n0\nedges 2\n0 1 Go\n1 1 Stay\n")
	f.Add("states 2\na\na\ninit 2\n0\n1\nedges 0\n")
	f.Add("states 9999999999999\n")
	f.Add("states 0\ninit 0\nedges 0\nmore\n")
	f.Fuzz(func(t *testing.T, text string) {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if _, err := zw.Write([]byte(text)); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		g, err := ReadGraph(&buf)
		if err != nil {
			if g != nil {
				t.Fatal("an error with a graph")
			}
			return
		}
		rereadGraph(t, "graph", g)
	})
}
