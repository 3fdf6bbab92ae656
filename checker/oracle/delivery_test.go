package oracle

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
	"github.com/rebalance-ref/rebalance/spec/trace"
	"pgregory.net/rapid"
)

// TestDeliveryVerdicts: small traces, each with the verdict of the
// delivery law it is about (status, and the line for a broken one).
func TestDeliveryVerdicts(t *testing.T) {
	// Lines 1 to 6; A owns t-0 and t-1 from line 6 on.
	const base = `{"format":"rebalance-trace","version":1,"protocol":"cooperative","coordinator":true,"clean":true}
{"t":0,"kind":"topic","topic":"t","partitions":2}
{"t":0,"kind":"join","process":"A","topics":["t"]}
{"t":0,"kind":"join","process":"B","topics":["t"]}
{"t":1,"kind":"joined","member":"a"}
{"t":3,"call":2,"kind":"assigned","process":"A","member":"a","generation":1,"resources":["t-0","t-1"]}
`
	noCoordinator := `{"format":"rebalance-trace","version":1,"clean":true}
{"t":3,"call":2,"kind":"assigned","process":"A","member":"a","generation":1,"resources":["t-0","t-1"]}
`
	processed := func(tm int, p string, r string, off, n int) string {
		return fmt.Sprintf(`{"t":%d,"kind":"processed","process":"%s","resource":"%s","offset":%d,"count":%d}`+"\n", tm, p, r, off, n)
	}
	commit := func(tm int, p, m, offsets string, errc int, extra string) string {
		return fmt.Sprintf(`{"t":%d,"kind":"commit","process":"%s","member":"%s","offsets":{%s},"error":%d%s}`+"\n", tm, p, m, offsets, errc, extra)
	}
	removed := `{"t":20,"kind":"removed","member":"a"}` + "\n"
	leave := `{"t":11,"kind":"leave","process":"A","member":"a"}` + "\n"
	counts := map[string]int{"each broken commit counted": 3, "a zombie's second commit": 1, "a batch over two": 1}
	for _, tc := range []struct {
		name, trace string
		law         spec.Law
		status      Status
		line        int
		detail      string
	}{
		// AtLeastOnce.
		{"commit what was processed", base + processed(10, "A", "t-0", 0, 3) + commit(11, "A", "a", `"t-0":3`, 0, ""), spec.AtLeastOnce, Held, 0, "every accepted commit (1 commit)"},
		{"commit past a record skipped", base + processed(10, "A", "t-0", 1, 3) + commit(11, "A", "a", `"t-0":2`, 0, ""), spec.AtLeastOnce, Broken, 8, "t-0 [A]: committed offset 2 passes record 0, which nobody processed"},
		{"commit past the records processed", base + processed(10, "A", "t-0", 0, 3) + commit(11, "A", "a", `"t-0":4`, 0, ""), spec.AtLeastOnce, Broken, 8, "committed offset 4 passes record 3"},
		{"commit before processing", base + commit(10, "A", "a", `"t-0":2`, 0, "") + processed(11, "A", "t-0", 0, 2), spec.AtLeastOnce, Broken, 7, "passes record 0"},
		{"records processed by another process count", base + processed(10, "B", "t-0", 0, 1) + processed(10, "A", "t-0", 1, 1) + commit(11, "A", "a", `"t-0":2`, 0, ""), spec.AtLeastOnce, Held, 0, ""},
		{"a commit refused whole moves nothing", base + processed(10, "A", "t-0", 0, 1) + commit(11, "A", "a", `"t-0":5`, 22, ""), spec.AtLeastOnce, Held, 0, ""},
		{"a partition refused moves nothing", base + processed(10, "A", "t-0", 0, 1) + commit(11, "A", "a", `"t-0":5,"t-1":0`, 0, `,"refused":["t-0"]`), spec.AtLeastOnce, Held, 0, ""},
		{"the other partition accepted moves", base + processed(10, "A", "t-0", 0, 1) + commit(11, "A", "a", `"t-0":1,"t-1":1`, 0, `,"refused":["t-0"]`), spec.AtLeastOnce, Broken, 8, "t-1 [A]: committed offset 1 passes record 0"},
		{"a zombie's accepted commit moves the offset", base + removed + processed(21, "A", "t-0", 0, 1) + commit(22, "A", "a", `"t-0":2`, 0, ""), spec.AtLeastOnce, Broken, 9, "passes record 1"},
		{"each broken commit counted", base + processed(9, "B", "t-1", 5, 1) + commit(10, "A", "a", `"t-0":1`, 0, "") + commit(11, "A", "a", `"t-0":1,"t-1":1`, 0, ""), spec.AtLeastOnce, Broken, 8, ""},
		{"no commits", base + processed(10, "A", "t-0", 0, 1), spec.AtLeastOnce, NotJudged, 0, "no commit events"},
		{"no records processed", base + commit(10, "A", "a", `"t-0":0`, 0, ""), spec.AtLeastOnce, NotJudged, 0, "no processed events"},
		{"neither", base, spec.AtLeastOnce, NotJudged, 0, "no processed or commit events"},

		// ZombieCommitRejected.
		{"a member's commit", base + commit(10, "A", "a", `"t-0":0`, 0, ""), spec.ZombieCommitRejected, Held, 0, "every commit (1 commit)"},
		{"a zombie's commit accepted", base + removed + commit(21, "A", "a", `"t-0":0`, 0, ""), spec.ZombieCommitRejected, Broken, 8, "[a]: the coordinator accepted the commit of {t-0} from a fenced member (removed at line 7)"},
		{"a zombie's commit rejected", base + removed + commit(21, "A", "a", `"t-0":0`, 25, ""), spec.ZombieCommitRejected, Held, 0, ""},
		{"a zombie's commit refused partition by partition", base + removed + commit(21, "A", "a", `"t-0":0,"t-1":0`, 0, `,"refused":["t-0","t-1"]`), spec.ZombieCommitRejected, Held, 0, ""},
		{"a zombie's commit accepted in part", base + removed + commit(21, "A", "a", `"t-0":0,"t-1":0`, 0, `,"refused":["t-0"]`), spec.ZombieCommitRejected, Broken, 8, "accepted the commit of {t-1}"},
		{"a commit sent at the removal", base + removed + `{"t":21,"call":20,"kind":"commit","process":"A","member":"a","offsets":{"t-0":0},"error":0}`, spec.ZombieCommitRejected, Broken, 8, ""},
		{"a commit sent before the removal", base + removed + `{"t":21,"call":19,"kind":"commit","process":"A","member":"a","offsets":{"t-0":0},"error":0}`, spec.ZombieCommitRejected, Held, 0, ""},
		{"a member the coordinator never counted is no zombie", base + commit(10, "B", "b", `"t-0":0`, 0, ""), spec.ZombieCommitRejected, Held, 0, ""},
		{"a member counted again", base + removed + `{"t":21,"kind":"joined","member":"a"}` + "\n" + commit(22, "A", "a", `"t-0":0`, 0, ""), spec.ZombieCommitRejected, Held, 0, ""},
		{"another member's removal", base + `{"t":4,"kind":"joined","member":"b"}` + "\n" + `{"t":20,"kind":"removed","member":"b"}` + "\n" + commit(21, "A", "a", `"t-0":0`, 0, ""), spec.ZombieCommitRejected, Held, 0, ""},
		{"a zombie's second commit", base + removed + commit(21, "A", "a", `"t-0":0`, 25, "") + commit(22, "A", "a", `"t-0":0`, 0, ""), spec.ZombieCommitRejected, Broken, 9, ""},
		{"zombies without the coordinator", noCoordinator + commit(21, "A", "a", `"t-0":0`, 0, ""), spec.ZombieCommitRejected, NotJudged, 0, "does not claim the coordinator"},
		{"no commit to judge", base, spec.ZombieCommitRejected, NotJudged, 0, "no commit events"},

		// ExactlyOnceWhenClean.
		{"each record once", base + processed(10, "A", "t-0", 0, 2) + processed(11, "B", "t-0", 2, 2) + processed(11, "B", "t-1", 0, 2), spec.ExactlyOnceWhenClean, Held, 0, "a clean run"},
		{"a record twice", base + processed(10, "A", "t-0", 0, 2) + processed(11, "B", "t-0", 1, 2), spec.ExactlyOnceWhenClean, Broken, 8, "t-0 [B]: record 1 processed again in a clean run"},
		{"a batch over two", base + processed(10, "A", "t-0", 0, 1) + processed(10, "A", "t-0", 3, 1) + processed(11, "A", "t-0", 1, 5), spec.ExactlyOnceWhenClean, Broken, 9, "record 3 processed again"},
		{"the same partition of another topic", base + processed(10, "A", "t-0", 0, 2) + processed(11, "A", "t-1", 0, 2), spec.ExactlyOnceWhenClean, Held, 0, ""},
		{"twice before a crash", base + processed(10, "A", "t-0", 0, 2) + processed(11, "A", "t-0", 0, 2) + `{"t":12,"kind":"crash","process":"A"}`, spec.ExactlyOnceWhenClean, Broken, 8, ""},
		{"twice after a crash", base + processed(10, "A", "t-0", 0, 2) + `{"t":12,"kind":"crash","process":"A"}` + "\n" + processed(13, "B", "t-0", 0, 2), spec.ExactlyOnceWhenClean, NotJudged, 0, "not a clean run: process A crashed at line 8"},
		{"removed while owning", base + removed + processed(21, "A", "t-0", 0, 1), spec.ExactlyOnceWhenClean, NotJudged, 0, "not a clean run: member a (process A) was removed at line 7 while it owned {t-0 t-1}"},
		{"removed after giving everything up", base + `{"t":10,"call":9,"kind":"revoked","process":"A","member":"a","resources":["t-0","t-1"]}` + "\n" + removed + processed(21, "B", "t-0", 0, 1) + processed(22, "B", "t-0", 0, 1), spec.ExactlyOnceWhenClean, Broken, 10, ""},
		{"a lost callback", base + `{"t":10,"kind":"lost","process":"A","member":"a","resources":["t-0"]}` + "\n" + processed(21, "B", "t-0", 0, 1), spec.ExactlyOnceWhenClean, NotJudged, 0, "process A declared {t-0} lost at line 7"},
		{"a fenced event", base + `{"t":10,"kind":"fenced","process":"A"}` + "\n" + processed(21, "B", "t-0", 0, 1), spec.ExactlyOnceWhenClean, NotJudged, 0, "process A was fenced at line 7"},
		// A parting commit: A processes t-0's records 0 and 1 (line 7),
		// leaves (line 8) and commits them (line 9); B then processes
		// them again.
		{"a parting commit refused", base + processed(10, "A", "t-0", 0, 2) + leave + commit(12, "A", "a", `"t-0":2`, 22, "") + processed(13, "B", "t-0", 0, 2), spec.ExactlyOnceWhenClean, NotJudged, 0, "not a clean run: process A left at line 8 and its parting commit was refused at line 9"},
		{"a parting commit refused in part", base + processed(10, "A", "t-0", 0, 2) + leave + commit(12, "A", "a", `"t-0":2,"t-1":0`, 0, `,"refused":["t-0"]`) + processed(13, "B", "t-0", 0, 2), spec.ExactlyOnceWhenClean, NotJudged, 0, "parting commit was refused at line 9"},
		{"a parting commit accepted", base + processed(10, "A", "t-0", 0, 2) + leave + commit(12, "A", "a", `"t-0":2`, 0, "") + processed(13, "B", "t-0", 0, 2), spec.ExactlyOnceWhenClean, Broken, 10, "record 0 processed again"},
		{"a refused commit of a member that stays", base + processed(10, "A", "t-0", 0, 2) + commit(12, "A", "a", `"t-0":2`, 22, "") + processed(13, "B", "t-0", 0, 2), spec.ExactlyOnceWhenClean, Broken, 9, ""},
		{"a refused commit before leaving", base + processed(10, "A", "t-0", 0, 2) + commit(11, "A", "a", `"t-0":2`, 22, "") + leave + processed(13, "B", "t-0", 0, 2), spec.ExactlyOnceWhenClean, Broken, 10, ""},
		{"a refused commit after joining again", base + processed(10, "A", "t-0", 0, 2) + leave + `{"t":11,"kind":"join","process":"A","topics":["t"]}` + "\n" + commit(12, "A", "a", `"t-0":2`, 22, "") + processed(13, "B", "t-0", 0, 2), spec.ExactlyOnceWhenClean, Broken, 11, ""},
		{"another process's refused commit after a leave", base + processed(10, "A", "t-0", 0, 2) + leave + commit(12, "B", "b", `"t-0":2`, 22, "") + processed(13, "B", "t-0", 0, 2), spec.ExactlyOnceWhenClean, Broken, 10, ""},
		{"no clean claim", strings.Replace(base, `,"clean":true`, "", 1) + processed(10, "A", "t-0", 0, 1), spec.ExactlyOnceWhenClean, NotJudged, 0, "does not claim a clean run"},
		{"clean without the coordinator", noCoordinator + processed(10, "A", "t-0", 0, 1), spec.ExactlyOnceWhenClean, NotJudged, 0, "a member fenced while it owned something cannot be ruled out"},
		{"nothing processed", base + commit(10, "A", "a", `"t-0":0`, 0, ""), spec.ExactlyOnceWhenClean, NotJudged, 0, "no processed events"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Check(mustRead(t, tc.trace), Options{})
			if err != nil {
				t.Fatal(err)
			}
			v, ok := rep.Verdict(tc.law)
			if !ok || v.Status != tc.status || v.Line != tc.line || !strings.Contains(v.Detail, tc.detail) {
				t.Fatalf("%s: %+v, want %s at line %d with %q\n%s", tc.law, v, tc.status, tc.line, tc.detail, rep)
			}
			if want := counts[tc.name]; want > 0 && v.Count != want {
				t.Fatalf("%s: %d violations, want %d", tc.law, v.Count, want)
			}
		})
	}
}

// TestProcessedLog: the spans of a partition's records processed say,
// as a count per record would, which record of a batch was processed
// before and which is the first never processed; they stay disjoint,
// sorted and apart.
func TestProcessedLog(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var l processedLog
		var count [41]int // one past the last record a batch can reach (35+5), never processed
		for range rapid.IntRange(0, 30).Draw(t, "batches") {
			from := rapid.Int64Range(0, 35).Draw(t, "from")
			to := from + rapid.Int64Range(1, 5).Draw(t, "n")
			want := int64(-1)
			for i := from; i < to; i++ {
				if count[i] > 0 && want < 0 {
					want = i
				}
				count[i]++
			}
			if got := l.add(from, to); got != want {
				t.Fatalf("add(%d, %d) = %d, want %d (spans %v)", from, to, got, want, l)
			}
			if gap, want := l.firstGap(), int64(slices.Index(count[:], 0)); gap != want {
				t.Fatalf("first gap %d, want %d (spans %v)", gap, want, l)
			}
			for i, s := range l {
				if s.from >= s.to || i > 0 && l[i-1].to >= s.from {
					t.Fatalf("spans %v overlap, touch or are out of order", l)
				}
			}
		}
	})
}

// TestDeliveryAsSpec: on one partition of a few records, the oracle's
// AtLeastOnce and ExactlyOnceWhenClean break at the line where
// spec.CheckDelivery, judging the delivery view after each event, first
// reports them.
func TestDeliveryAsSpec(t *testing.T) {
	const records = 6
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		b.WriteString(`{"format":"rebalance-trace","version":1,"coordinator":true,"clean":true}` + "\n")
		d := spec.Delivery{Clean: true, Partitions: []spec.Progress{{Resource: spec.TP("t", 0), Processed: make([]int, records)}}}
		want := map[spec.Law]int{}
		n := rapid.IntRange(1, 12).Draw(t, "events")
		for i := range n {
			line := i + 2
			if rapid.Bool().Draw(t, "commit") {
				off := rapid.IntRange(0, records).Draw(t, "offset")
				accepted := rapid.Bool().Draw(t, "accepted")
				errc := 0
				if !accepted {
					errc = int(spec.IllegalGeneration)
				} else {
					d.Partitions[0].Committed = off
				}
				fmt.Fprintf(&b, `{"t":%d,"kind":"commit","process":"A","member":"a","offsets":{"t-0":%d},"error":%d}`+"\n", i, off, errc)
			} else {
				from := rapid.IntRange(0, records-1).Draw(t, "from")
				count := rapid.IntRange(1, records-from).Draw(t, "count")
				for r := from; r < from+count; r++ {
					d.Partitions[0].Processed[r]++
				}
				fmt.Fprintf(&b, `{"t":%d,"kind":"processed","process":"A","resource":"t-0","offset":%d,"count":%d}`+"\n", i, from, count)
			}
			for _, v := range spec.CheckDelivery(d) {
				if want[v.Law] == 0 {
					want[v.Law] = line
				}
			}
		}
		rep, err := Check(mustReadRapid(t, b.String()), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, law := range []spec.Law{spec.AtLeastOnce, spec.ExactlyOnceWhenClean} {
			v, _ := rep.Verdict(law)
			if v.Status == NotJudged {
				continue // no commit, or nothing processed
			}
			if v.Line != want[law] {
				t.Fatalf("%s: %+v, want broken at line %d (0: held)\n%s", law, v, want[law], b.String())
			}
		}
	})
}

func mustReadRapid(t *rapid.T, s string) *trace.Trace {
	t.Helper()
	tr, err := trace.Read(strings.NewReader(s), trace.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
