package timeline

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestFromViews: a holding becomes one segment per stretch of the same
// standing (split where its member is fenced), lanes are the universe in
// resource order, and a holding still open at the end ends there.
func TestFromViews(t *testing.T) {
	owns := func(name string, fenced bool, rs ...spec.Resource) spec.MemberView {
		return spec.MemberView{Name: name, Current: !fenced, Fenced: fenced, Owns: spec.NewSet(rs...)}
	}
	topics := spec.Topics{"t": 2}
	steps := []Step{
		{At: 0, View: spec.View{Topics: topics, Members: []spec.MemberView{owns("A", false, spec.TP("t", 0), spec.TP("t", 1))}}},
		{At: 2, View: spec.View{Topics: topics, Members: []spec.MemberView{owns("A", true, spec.TP("t", 0), spec.TP("t", 1)), owns("B", false, spec.TP("t", 1))}}},
		{At: 3, View: spec.View{Topics: topics, Members: []spec.MemberView{owns("A", true), owns("B", false, spec.TP("t", 0), spec.TP("t", 1))}}},
	}
	got := FromViews("x", steps, 5)
	want := Timeline{Title: "x", Lanes: []string{"t-0", "t-1"}, Segments: []Segment{
		{Lane: "t-0", Owner: "A", From: 0, To: 2},
		{Lane: "t-0", Owner: "A", From: 2, To: 3, Zombie: true},
		{Lane: "t-0", Owner: "B", From: 3, To: 5},
		{Lane: "t-1", Owner: "A", From: 0, To: 2},
		{Lane: "t-1", Owner: "A", From: 2, To: 3, Zombie: true},
		{Lane: "t-1", Owner: "B", From: 2, To: 5},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("timeline (-want +got):\n%s", diff)
	}
	slot, rows := subRows(got.Segments)
	if !cmp.Equal(slot, []int{0, 0, 0, 0, 0, 1}) || rows["t-0"] != 1 || rows["t-1"] != 2 {
		t.Fatalf("sub-rows %v %v: want B's t-1 in a second row beside A's", slot, rows)
	}
	var b bytes.Buffer
	if err := got.WriteSVG(&b, 0, 0); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"<svg", "t-0", "t-1", ">A<", ">B<"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the SVG has no %q", s)
		}
	}
}

// TestValidate: a timeline that cannot be drawn is refused with what is
// wrong, and nothing is written.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		tl   Timeline
		want string
	}{
		{Timeline{Lanes: []string{"a", "a"}}, `lane "a" listed twice`},
		{Timeline{Lanes: []string{"a"}, Segments: []Segment{{Lane: "b", Owner: "A"}}}, `unknown lane "b"`},
		{Timeline{Lanes: []string{"a"}, Segments: []Segment{{Lane: "a", Owner: "A", From: 2, To: 1}}}, "ends at 1 before it starts at 2"},
	} {
		var b bytes.Buffer
		if err := tc.tl.WriteSVG(&b, 0, 0); err == nil || !strings.Contains(err.Error(), tc.want) || b.Len() > 0 {
			t.Errorf("%+v: got %v (%d bytes), want %q", tc.tl, err, b.Len(), tc.want)
		}
	}
}

var update = flag.Bool("update", false, "rewrite testdata/golden.svg")

// TestGoldenSVG: the drawing of a timeline with a zombie's holding, two
// owners of one resource at once, an alarm and a quiet mark is the one
// in testdata/golden.svg (looked at when it was written; -update
// rewrites it). Any change to the geometry shows here.
func TestGoldenSVG(t *testing.T) {
	tl := Timeline{
		Title: "golden", XLabel: "time (s)", Lanes: []string{"t-0", "t-1", "t-2"},
		Segments: []Segment{
			{Lane: "t-0", Owner: "A", From: 0, To: 4},
			{Lane: "t-0", Owner: "A", From: 4, To: 6, Zombie: true},
			{Lane: "t-0", Owner: "B", From: 5, To: 10},
			{Lane: "t-1", Owner: "B", From: 1, To: 10},
			{Lane: "t-2", Owner: "C", From: 2, To: 2},
		},
		Marks: []Mark{{At: 5, Label: "ExclusiveOwnership (line 9)", Alarm: true}, {At: 8, Label: "quiet"}},
	}
	var got bytes.Buffer
	if err := tl.WriteSVG(&got, 0, 0); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden.svg")
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got.Bytes()) {
		t.Fatalf("the drawing differs from %s; look at both, then rewrite it with -update", path)
	}
}

// TestManyOwners: up to the palette's length owners keep the palette's
// colours (the golden drawing's); beyond it, 30 owners get 30 different
// colours, and neighbours in name order differ clearly.
func TestManyOwners(t *testing.T) {
	if c := ownerColours(3); !cmp.Equal(c, palette[:3]) {
		t.Fatalf("3 owners: %v, want the palette's first 3", c)
	}
	c := ownerColours(30)
	seen := map[[3]uint8]bool{}
	for i, x := range c {
		k := [3]uint8{x.R, x.G, x.B}
		if seen[k] {
			t.Fatalf("owner %d shares colour %v", i, x)
		}
		seen[k] = true
		if i > 0 {
			p := c[i-1]
			d := absDiff(x.R, p.R) + absDiff(x.G, p.G) + absDiff(x.B, p.B)
			if d < 60 {
				t.Errorf("owners %d and %d: %v and %v are too alike", i-1, i, p, x)
			}
		}
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// TestLaneTicks: with LaneTicks set, at most that many lanes are labelled,
// the first among them; unset, every lane.
func TestLaneTicks(t *testing.T) {
	lanes := make([]string, 256)
	for i := range lanes {
		lanes[i] = fmt.Sprint("t-", i)
	}
	if n := len(laneTicks{lanes: lanes}.Ticks(0, 1)); n != 256 {
		t.Errorf("unlimited: %d ticks, want 256", n)
	}
	ticks := laneTicks{lanes: lanes, most: 16}.Ticks(0, 1)
	if len(ticks) != 16 || ticks[0].Label != "t-0" || ticks[0].Value != 255 || ticks[1].Label != "t-16" {
		t.Errorf("at most 16: %d ticks starting %v", len(ticks), ticks[:2])
	}
}
