package costreport

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/cost"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

var (
	update = flag.Bool("update", false, "rewrite the golden files in testdata")
	pngDir = flag.String("png", "", "also draw the pictures as PNGs into this directory, to look at")
)

// phase is who owns each resource from At (after the workload's start)
// on; "" is nobody.
type phase struct {
	At     node.Millis
	Owners []string
}

// members, parts and the base assignment of the small rolling restart:
// four members, eight partitions of topic t, two each.
var (
	members = []string{"m0001", "m0002", "m0003", "m0004"}
	parts   = 8
)

// base returns the balanced assignment: t-i to members[i/2].
func base() []string {
	out := make([]string, parts)
	for i := range out {
		out[i] = members[i/2]
	}
	return out
}

// without returns base with member k's partitions taken away: to nobody,
// or (to) one each to the next two members.
func without(k int, to bool) []string {
	out := base()
	for j := 0; j < 2; j++ {
		out[2*k+j] = ""
		if to {
			out[2*k+j] = members[(k+1+j)%len(members)]
		}
	}
	return out
}

// nobody returns an assignment of nothing: eager's revocation.
func nobody() []string { return make([]string, parts) }

// result builds the result of a run through phases (the first at 0),
// from start to start+length, with its series and the metrics they give;
// rounds, heartbeats and messages are the caller's.
func result(protocol string, length node.Millis, phases []phase, rounds, heartbeats, messages int) cost.Result {
	const start = 30_000
	r := cost.Result{Protocol: protocol, Workload: "rolling-restart", Start: start, End: start + length, Resources: parts, Members: len(members)}
	r.Metrics.Rounds, r.Metrics.Heartbeats, r.Metrics.Messages = rounds, heartbeats, messages
	last := -1
	for i, ph := range phases {
		n := 0
		for _, o := range ph.Owners {
			if o == "" {
				n++
			}
		}
		if n != last {
			r.Unavailable = append(r.Unavailable, cost.Sample{At: start + ph.At, Unavailable: n})
		}
		if i > 0 && n < parts && !slices.Equal(ph.Owners, phases[i-1].Owners) {
			r.Metrics.ConvergedAt, r.Metrics.Converged = start+ph.At, n == 0
		}
		last = n
	}
	for p := 0; p < parts; p++ {
		res := spec.TP("t", int32(p))
		held, from, prev := "", node.Millis(0), ""
		var outFrom node.Millis
		closeAt := func(at node.Millis) {
			if held != "" {
				r.Ownership = append(r.Ownership, cost.Interval{Resource: res, Owner: held, From: start + from, To: start + at})
			}
		}
		for _, ph := range phases {
			o := ph.Owners[p]
			if o == held {
				continue
			}
			closeAt(ph.At)
			if held != "" && o == "" {
				outFrom = ph.At
			}
			if held == "" && o != "" && ph.At > 0 {
				if d := ph.At - outFrom; d > r.Metrics.LongestOutage {
					r.Metrics.LongestOutage, r.Metrics.OutageResource = d, res
				}
			}
			if o != "" && prev != "" && o != prev {
				r.Metrics.Moves++
			}
			if o != "" {
				prev = o
			}
			held, from = o, ph.At
		}
		closeAt(length)
	}
	for i, s := range r.Unavailable {
		to := r.End
		if i+1 < len(r.Unavailable) {
			to = r.Unavailable[i+1].At
		}
		r.Metrics.UnavailableResourceSeconds += float64(s.Unavailable) * float64(to-s.At) / 1000
	}
	return r
}

// restarts returns the phases of restarting each member in turn, every
// 4 s, with what each protocol does around one restart of member k at t.
func restarts(each func(k int, t node.Millis) []phase) []phase {
	out := []phase{{0, base()}}
	for k := range members {
		out = append(out, each(k, node.Millis(1000+4000*k))...)
	}
	return out
}

// golden is the hand-made comparison: a rolling restart of four members
// sharing eight partitions, under five protocols, each with its own
// shape of cost.
func golden() []cost.Result {
	return []cost.Result{
		// Eager: every member revokes everything when one leaves and again
		// when it comes back.
		result("eager", 20_000, restarts(func(k int, t node.Millis) []phase {
			return []phase{{t, nobody()}, {t + 1500, without(k, true)}, {t + 2500, nobody()}, {t + 3200, base()}}
		}), 8, 160, 420),
		// Cooperative: the leaver's two partitions move away and back, each
		// way through a revocation round.
		result("cooperative", 20_000, restarts(func(k int, t node.Millis) []phase {
			return []phase{{t, without(k, false)}, {t + 1500, without(k, true)}, {t + 2700, without(k, false)}, {t + 3400, base()}}
		}), 16, 180, 610),
		// Deferred: the group waits for the restarted member, which takes
		// its partitions back.
		result("deferred", 20_000, restarts(func(k int, t node.Millis) []phase {
			return []phase{{t, without(k, false)}, {t + 1000, base()}}
		}), 0, 120, 250),
		// Incremental: the leaver's partitions wait out a scheduled delay,
		// then go back to it.
		result("incremental", 20_000, restarts(func(k int, t node.Millis) []phase {
			return []phase{{t, without(k, false)}, {t + 1800, base()}}
		}), 8, 140, 390),
		// Next generation: the coordinator moves the leaver's partitions
		// at once and back when it returns.
		result("nextgen", 20_000, restarts(func(k int, t node.Millis) []phase {
			return []phase{{t, without(k, false)}, {t + 400, without(k, true)}, {t + 1100, without(k, false)}, {t + 1500, base()}}
		}), 8, 1_250, 2_900),
	}
}

// writers are every writer of the package, over the golden results, with
// the golden file of each.
var writers = []struct {
	file  string
	write func(w *bytes.Buffer, rs []cost.Result) error
}{
	{"costs.csv.golden", func(w *bytes.Buffer, rs []cost.Result) error { return WriteCSV(w, rs) }},
	{"costs.json.golden", func(w *bytes.Buffer, rs []cost.Result) error { return WriteJSON(w, rs) }},
	{"unavailable.svg", func(w *bytes.Buffer, rs []cost.Result) error { return UnavailableSVG(w, rs, 0, 0) }},
	{"ownership-eager.svg", func(w *bytes.Buffer, rs []cost.Result) error { return OwnershipSVG(w, rs[0], 0, 0) }},
	{"report.html", func(w *bytes.Buffer, rs []cost.Result) error {
		return WriteHTML(w, Report{Title: "Rolling restart <4 members, 8 partitions>", Command: "rebalance cost -workload rolling-restart -members 4 -partitions 8 -seed 1", Results: rs})
	}},
}

// TestGolden: every writer's output for the hand-made rolling restart is
// the one in testdata (looked at when written; -update rewrites them,
// -png DIR draws the pictures as PNGs to look at), and writing twice
// gives the same bytes.
func TestGolden(t *testing.T) {
	rs := golden()
	for _, wr := range writers {
		t.Run(wr.file, func(t *testing.T) {
			var got, again bytes.Buffer
			if err := wr.write(&got, rs); err != nil {
				t.Fatal(err)
			}
			if err := wr.write(&again, golden()); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), again.Bytes()) {
				t.Fatal("two writes of the same results differ")
			}
			path := filepath.Join("testdata", wr.file)
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
				t.Fatalf("the output differs from %s; look at both, then rewrite it with -update", path)
			}
		})
	}
	if *pngDir != "" {
		draw := func(name string, f func(*os.File) error) {
			fh, err := os.Create(filepath.Join(*pngDir, name))
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			if err := f(fh); err != nil {
				t.Fatal(err)
			}
		}
		draw("unavailable.png", func(f *os.File) error { return WriteUnavailable(f, rs, "png", 0, 0) })
		for _, r := range rs {
			draw("ownership-"+r.Protocol+".png", func(f *os.File) error { return WriteOwnership(f, r, "png", 0, 0) })
		}
		big := many(256, 30)
		draw("ownership-256.png", func(f *os.File) error { return WriteOwnership(f, big, "png", 0, 0) })
		draw("unavailable-256.png", func(f *os.File) error { return WriteUnavailable(f, []cost.Result{big, rs[0]}, "png", 0, 0) })
	}
}

// many returns a run of n resources over m members that restarts each
// member in turn, each holding's resources out for a while and back to
// their owner: a picture with many lanes and owners.
func many(n, m int) cost.Result {
	owner := func(i int) string { return fmt.Sprintf("m%04d", i%m+1) }
	r := cost.Result{Protocol: "cooperative", Workload: "rolling-restart", Start: 0, End: node.Millis(m*2000 + 4000), Resources: n, Members: m}
	r.Unavailable = []cost.Sample{{At: 0, Unavailable: 0}}
	for i := 0; i < m; i++ {
		at := node.Millis(1000 + 2000*i)
		r.Unavailable = append(r.Unavailable, cost.Sample{At: at, Unavailable: n / m}, cost.Sample{At: at + 900, Unavailable: 0})
	}
	for p := 0; p < n; p++ {
		k := p % m
		at := node.Millis(1000 + 2000*k)
		res := spec.TP("t", int32(p))
		r.Ownership = append(r.Ownership,
			cost.Interval{Resource: res, Owner: owner(p), From: 0, To: at},
			cost.Interval{Resource: res, Owner: owner(p), From: at + 900, To: r.End})
	}
	return r
}

// TestBadInput: results that cannot be presented are refused by every
// writer with what is wrong, and nothing is written.
func TestBadInput(t *testing.T) {
	backwards := golden()
	backwards[1].Unavailable[2].At = backwards[1].Unavailable[1].At - 1
	inverted := golden()
	inverted[0].Ownership[3].To = inverted[0].Ownership[3].From - 5
	ended := golden()
	ended[2].End = ended[2].Start - 1
	negative := golden()
	negative[4].Unavailable[1].Unavailable = -2
	outside := golden()
	outside[3].Unavailable = append(outside[3].Unavailable, cost.Sample{At: outside[3].End + 1})
	for _, tc := range []struct {
		name string
		rs   []cost.Result
		bad  int // the result that is wrong
		want string
	}{
		{"none", nil, -1, "no results"},
		{"backwards", backwards, 1, "(cooperative, rolling-restart): sample 2 at 30999ms goes back in time from 31000ms"},
		{"inverted", inverted, 0, "(eager, rolling-restart): holding 3 of t-0 by m0001 ends at 36495ms before it begins at 36500ms"},
		{"ended", ended, 2, "(deferred, rolling-restart): ends at 29999ms before it starts at 30000ms"},
		{"negative", negative, 4, "sample 1 at 31000ms counts -2 unavailable resources"},
		{"outside", outside, 3, "sample 9 at 50001ms is outside the run [30000ms, 50000ms]"},
	} {
		for _, wr := range writers {
			rs := tc.rs
			if strings.HasPrefix(wr.file, "ownership") {
				if tc.bad < 0 {
					continue
				}
				rs = rs[tc.bad:] // the writer draws the first
			}
			var b bytes.Buffer
			err := wr.write(&b, rs)
			if err == nil || !strings.Contains(err.Error(), tc.want) || b.Len() > 0 {
				t.Errorf("%s, %s: got %v (%d bytes), want %q", tc.name, wr.file, err, b.Len(), tc.want)
			}
		}
	}
}

// TestNoOwnership: a result without ownership intervals has no timeline
// (a clear error), and the HTML page says so in its place.
func TestNoOwnership(t *testing.T) {
	rs := golden()
	rs[2].Ownership = nil
	var b bytes.Buffer
	if err := OwnershipSVG(&b, rs[2], 0, 0); err == nil || !strings.Contains(err.Error(), "deferred, rolling-restart: no ownership intervals") || b.Len() > 0 {
		t.Errorf("got %v (%d bytes)", err, b.Len())
	}
	if err := WriteHTML(&b, Report{Results: rs}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "<svg"); got != 5 {
		t.Errorf("%d pictures, want 1 + 4 timelines", got)
	}
	for _, s := range []string{"This run kept no ownership intervals.", "<title>Cost of the rebalance protocols</title>"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the page has no %q", s)
		}
	}
}

// TestSampledLanes: above MaxLanes resources, the timeline draws every
// k-th lane and says so; up to it, every lane with a few labelled.
func TestSampledLanes(t *testing.T) {
	tl, err := Ownership(many(256, 30))
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Lanes) != 256 || strings.Contains(tl.Title, "shown") || tl.LaneTicks == 0 {
		t.Errorf("256 resources: %d lanes, title %q, %d ticks", len(tl.Lanes), tl.Title, tl.LaneTicks)
	}
	tl, err = Ownership(many(1200, 30))
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Lanes) != 400 || !strings.HasSuffix(tl.Title, ", every 3rd of 1,200 resources shown") || tl.Lanes[1] != "t-3" {
		t.Errorf("1200 resources: %d lanes, title %q", len(tl.Lanes), tl.Title)
	}
	for _, s := range tl.Segments {
		if !slices.Contains(tl.Lanes, s.Lane) {
			t.Fatalf("a segment on %s, which is not drawn", s.Lane)
		}
	}
}

// TestPeople: numbers for people have thousands separators and the
// decimals asked for.
func TestPeople(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		d    int
		want string
	}{
		{0, 0, "0"}, {999, 0, "999"}, {1000, 0, "1,000"}, {1234567.891, 2, "1,234,567.89"},
		{-12345.6, 1, "-12,345.6"}, {0.005, 2, "0.01"}, {100000, 2, "100,000.00"},
	} {
		if got := people(tc.v, tc.d); got != tc.want {
			t.Errorf("people(%v, %d) = %q, want %q", tc.v, tc.d, got, tc.want)
		}
	}
}

// TestColumns: the CSV header is Row's JSON names, in order, so the two
// formats name every metric alike.
func TestColumns(t *testing.T) {
	var names []string
	rt := reflect.TypeFor[Row]()
	for i := range rt.NumField() {
		names = append(names, rt.Field(i).Tag.Get("json"))
	}
	if !slices.Equal(names, Columns) || len(RowOf(golden()[0]).cells()) != len(Columns) {
		t.Errorf("columns %v, JSON names %v", Columns, names)
	}
}
