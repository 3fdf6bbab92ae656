package trace

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestDeliveryEvents: the processed and commit events a reader takes, and
// each malformed one refused with its line and what is wrong.
func TestDeliveryEvents(t *testing.T) {
	topic := `{"t":0,"kind":"topic","topic":"t","partitions":2}` + "\n"
	for _, tc := range []struct {
		name, in, want string // want "" for a trace that reads
	}{
		{"processed", `{"t":1,"kind":"processed","process":"A","resource":"t-0","offset":0}`, ""},
		{"processed a batch", `{"t":1,"kind":"processed","process":"A","member":"m","generation":2,"resource":"t-1","offset":5,"count":3}`, ""},
		{"processed, topics declared", topic + `{"t":1,"kind":"processed","process":"A","resource":"t-1","offset":0}`, ""},
		{"commit accepted", `{"t":1,"kind":"commit","process":"A","member":"m","generation":1,"offsets":{"t-0":3,"t-1":0},"error":0}`, ""},
		{"commit with its call", `{"t":4,"call":2,"kind":"commit","process":"A","member":"m","offsets":{"t-0":3},"error":0}`, ""},
		{"commit answered as it was sent", `{"t":4,"call":4,"kind":"commit","process":"A","member":"m","offsets":{"t-0":3},"error":0}`, ""},
		{"commit refused whole", `{"t":1,"kind":"commit","process":"A","member":"m","offsets":{"t-0":3},"error":22}`, ""},
		{"commit refused in part", `{"t":1,"kind":"commit","process":"A","member":"m","generation":3,"offsets":{"t-0":3,"t-1":4},"error":0,"refused":["t-1"]}`, ""},
		{"empty refused is none", `{"t":1,"kind":"commit","process":"A","member":"m","offsets":{"t-0":3},"error":0,"refused":[]}`, ""},

		{"processed without offset", `{"t":1,"kind":"processed","process":"A","resource":"t-0"}`, `line 2: a processed event needs "offset"`},
		{"processed without resource", `{"t":1,"kind":"processed","process":"A","offset":0}`, `line 2: a processed event needs "resource"`},
		{"processed without process", `{"t":1,"kind":"processed","resource":"t-0","offset":0}`, `line 2: a processed event needs "process"`},
		{"negative offset", `{"t":1,"kind":"processed","process":"A","resource":"t-0","offset":-1}`, "line 2: offset -1 is negative"},
		{"zero count", `{"t":1,"kind":"processed","process":"A","resource":"t-0","offset":0,"count":0}`, "line 2: count 0: want 1 or more records"},
		{"negative count", `{"t":1,"kind":"processed","process":"A","resource":"t-0","offset":0,"count":-2}`, "line 2: count -2"},
		{"count past the largest offset", `{"t":1,"kind":"processed","process":"A","resource":"t-0","offset":9223372036854775807,"count":1}`, "go past the largest offset"},
		{"count at the largest offset", `{"t":1,"kind":"processed","process":"A","resource":"t-0","offset":9223372036854775806,"count":1}`, ""},
		{"processed a connector", `{"t":1,"kind":"processed","process":"A","resource":"c/connector","offset":0}`, `line 2: resource "c/connector": want a partition`},
		{"processed a bad resource", `{"t":1,"kind":"processed","process":"A","resource":"t","offset":0}`, `line 2: resource "t": want topic-N`},
		{"processed an unknown partition", topic + `{"t":1,"kind":"processed","process":"A","resource":"t-2","offset":0}`, "line 3: processed: t-2 is not a partition of the topics declared so far"},
		{"processed an unknown topic", topic + `{"t":1,"kind":"processed","process":"A","resource":"u-0","offset":0}`, "line 3: processed: u-0 is not a partition"},
		{"processed with resources", `{"t":1,"kind":"processed","process":"A","resource":"t-0","offset":0,"resources":["t-0"]}`, `a processed event carries no "resources"`},
		{"processed with a call", `{"t":1,"call":0,"kind":"processed","process":"A","resource":"t-0","offset":0}`, `a processed event carries no "call"`},
		{"offset on another kind", `{"t":1,"kind":"quiet","offset":0}`, `a quiet event carries no "offset"`},
		{"commit without an answer", `{"t":1,"kind":"commit","process":"A","member":"m","offsets":{"t-0":3}}`, `line 2: a commit event needs "error"`},
		{"commit without offsets", `{"t":1,"kind":"commit","process":"A","member":"m","error":0}`, `line 2: a commit event needs "offsets"`},
		{"commit of nothing", `{"t":1,"kind":"commit","process":"A","member":"m","offsets":{},"error":0}`, `line 2: a commit event needs "offsets"`},
		{"commit without member", `{"t":1,"kind":"commit","process":"A","offsets":{"t-0":3},"error":0}`, `line 2: a commit event needs "member"`},
		{"commit negative offset", `{"t":1,"kind":"commit","process":"A","member":"m","offsets":{"t-0":-3},"error":0}`, "line 2: offset -3 of t-0 is negative"},
		{"commit bad partition", `{"t":1,"kind":"commit","process":"A","member":"m","offsets":{"t":3},"error":0}`, `line 2: resource "t": want topic-N`},
		{"commit partition twice", `{"t":1,"kind":"commit","process":"A","member":"m","offsets":{"t-0":3,"t-00":4},"error":0}`, "line 2: a partition is listed twice in offsets"},
		{"refused not committed", `{"t":1,"kind":"commit","process":"A","member":"m","offsets":{"t-0":3},"error":0,"refused":["t-1"]}`, "line 2: refused: t-1 is not among the offsets committed"},
		{"refused twice", `{"t":1,"kind":"commit","process":"A","member":"m","offsets":{"t-0":3},"error":0,"refused":["t-0","t-0"]}`, "line 2: a partition is listed twice in refused"},
		{"refused bad", `{"t":1,"kind":"commit","process":"A","member":"m","offsets":{"t-0":3},"error":0,"refused":["x"]}`, `resource "x"`},
		{"refused with an error", `{"t":1,"kind":"commit","process":"A","member":"m","offsets":{"t-0":3},"error":22,"refused":["t-0"]}`, "line 2: a commit refused whole (error 22) refuses no partition one by one"},
		{"commit sent after answered", `{"t":1,"call":2,"kind":"commit","process":"A","member":"m","offsets":{"t-0":3},"error":0}`, "line 2: commit sent at 2 after it was answered at 1"},
		{"refused on a response", `{"t":1,"kind":"response","api":"OffsetCommit","error":0,"refused":["t-0"]}`, `a response event carries no "refused"`},
		{"offsets not an object", `{"t":1,"kind":"commit","process":"A","member":"m","offsets":["t-0"],"error":0}`, "line 2: not a trace event"},
		{"commit of a crashed process", `{"t":1,"kind":"crash","process":"A"}` + "\n" + `{"t":2,"kind":"commit","process":"A","member":"m","offsets":{"t-0":3},"error":0}`, `line 3: process "A" crashed`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Read(strings.NewReader(header+"\n"+tc.in), Limits{})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := Write(&buf, tr); err != nil {
					t.Fatal(err)
				}
				again, err := Read(&buf, Limits{})
				if err != nil || !gocmp.Equal(tr, again, gocmp.AllowUnexported(Event{})) {
					t.Fatalf("does not write back as read (%v):\n%s", err, gocmp.Diff(tr, again, gocmp.AllowUnexported(Event{})))
				}
				return
			}
			var le *LineError
			if err == nil || !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a line error containing %q", err, tc.want)
			}
			if tr != nil {
				t.Fatal("a refused trace was returned")
			}
		})
	}
}

// TestDeliveries: what the delivery laws read from the processed and
// commit events, with their lines, in trace order; the history takes
// none of them and Carried counts them.
func TestDeliveries(t *testing.T) {
	in := `{"format":"rebalance-trace","version":1,"coordinator":true,"clean":true,"unit":"ms"}
{"t":1,"kind":"processed","process":"A","member":"a1","generation":1,"resource":"t-0","offset":0,"count":2}
{"t":2,"kind":"processed","process":"A","resource":"t-1","offset":7}
{"t":5,"call":3,"kind":"commit","process":"A","member":"a1","generation":1,"offsets":{"t-0":2,"t-1":8},"error":0,"refused":["t-1"]}
{"t":6,"kind":"commit","process":"A","member":"a1","offsets":{"t-0":2},"error":25}
`
	tr, err := Read(strings.NewReader(in), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Header.Clean {
		t.Fatal("the header's clean claim is lost")
	}
	t0, t1 := spec.TP("t", 0), spec.TP("t", 1)
	want := []Delivery{
		{Line: 2, Kind: Processed, Process: "A", Member: "a1", Generation: 1, Call: 1e6, At: 1e6, Resource: t0, From: 0, To: 2},
		{Line: 3, Kind: Processed, Process: "A", Generation: spec.NoGeneration, Call: 2e6, At: 2e6, Resource: t1, From: 7, To: 8},
		{Line: 4, Kind: Commit, Process: "A", Member: "a1", Generation: 1, Call: 3e6, At: 5e6,
			Commit:  spec.Commit{Member: "a1", Partitions: spec.NewSet(t0, t1), Refused: spec.NewSet(t1)},
			Offsets: map[spec.Resource]int64{t0: 2, t1: 8}},
		{Line: 5, Kind: Commit, Process: "A", Member: "a1", Generation: spec.NoGeneration, Call: 6e6, At: 6e6,
			Commit:  spec.Commit{Member: "a1", Partitions: spec.NewSet(t0), Error: spec.UnknownMemberID},
			Offsets: map[spec.Resource]int64{t0: 2}},
	}
	if diff := gocmp.Diff(want, tr.Deliveries()); diff != "" {
		t.Fatalf("deliveries (-want +got):\n%s", diff)
	}
	h, c := tr.History()
	if len(h.Observations) != 0 || c.Processed != 2 || c.Commits != 2 {
		t.Fatalf("history %v, carried %+v: want no observation, 2 processed and 2 commits", h.Observations, c)
	}
	if got := want[2].Commit.Accepted(); !got.Equal(spec.NewSet(t0)) {
		t.Fatalf("accepted %v", got)
	}
}

// TestRecorderDelivery: a Recorder writes delivery events that read back
// the same, and refuses a malformed one as Read would, writing nothing.
func TestRecorderDelivery(t *testing.T) {
	var buf bytes.Buffer
	r, err := NewRecorder(&buf, Header{Coordinator: true, Clean: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	events := []Event{
		{T: 1, Kind: Processed, Process: "A", Member: "m", Resource: "t-0", Offset: Int64(0), Count: Int64(4)},
		{T: 2, Call: Int64(1), Kind: Commit, Process: "A", Member: "m", Generation: Int32(1), Offsets: map[string]int64{"t-0": 4, "t-1": 0}, Error: Int16(0), Refused: []string{"t-1"}},
	}
	for _, e := range events {
		if err := r.Record(e); err != nil {
			t.Fatal(err)
		}
	}
	before := buf.Len()
	if err := r.Record(Event{T: 3, Kind: Commit, Process: "A", Member: "m", Offsets: map[string]int64{"t-0": -1}, Error: Int16(0)}); err == nil || !strings.Contains(err.Error(), "line 4: offset -1 of t-0 is negative") {
		t.Fatalf("a negative commit offset: %v", err)
	}
	if err := r.Record(Event{T: 3, Kind: Processed, Process: "A", Resource: "t-0"}); err == nil || !strings.Contains(err.Error(), `line 4: a processed event needs "offset"`) {
		t.Fatalf("a processed event without an offset: %v", err)
	}
	if buf.Len() != before {
		t.Fatal("a refused event was written")
	}
	written := buf.String()
	tr, err := Read(&buf, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		events[i].Line = i + 2
		if err := events[i].parse(); err != nil {
			t.Fatal(err)
		}
	}
	if diff := gocmp.Diff(events, tr.Events, gocmp.AllowUnexported(Event{})); diff != "" {
		t.Fatalf("read back (-written +read):\n%s", diff)
	}
	if !tr.Header.Clean || !strings.Contains(written, `"clean":true`) {
		t.Fatalf("header %+v", tr.Header)
	}
}
