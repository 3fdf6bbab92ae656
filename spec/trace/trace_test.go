package trace

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/rebalance-ref/rebalance/spec"
)

const header = `{"format":"rebalance-trace","version":1,"protocol":"cooperative","coordinator":true}`

// TestReadRefuses: each kind of bad input is refused with its line and
// what is wrong, never read in part.
func TestReadRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", ``, "line 1: empty trace"},
		{"no header", `{"t":1,"kind":"quiet"}`, `line 1: header: not a trace event: json: unknown field "t"`},
		{"not json", `{"not":"a trace"`, "line 1: header: not a trace event"},
		{"wrong format", `{"format":"x","version":1}`, `line 1: header: format "x"`},
		{"future version", `{"format":"rebalance-trace","version":2}`, "line 1: header: version 2; this reader knows version 1"},
		{"unknown protocol", `{"format":"rebalance-trace","version":1,"protocol":"magic"}`, `protocol "magic"`},
		{"negative max rounds", `{"format":"rebalance-trace","version":1,"max_rounds":-1}`, "max_rounds -1 is negative"},
		{"truncated line", header + "\n" + `{"t":1,"kind":"ass`, "line 2: not a trace event: unexpected EOF"},
		{"two values", header + "\n" + `{"t":1,"kind":"quiet"} {"t":2,"kind":"quiet"}`, "line 2: more than one JSON value"},
		{"blank line", header + "\n\n" + `{"t":1,"kind":"quiet"}`, "line 2: empty line"},
		{"unknown kind", header + "\n" + `{"t":1,"kind":"teleported","process":"A"}`, `line 2: unknown event kind "teleported"`},
		{"unknown field", header + "\n" + `{"t":1,"kind":"quiet","colour":"red"}`, `line 2: not a trace event: json: unknown field "colour"`},
		{"field of another kind", header + "\n" + `{"t":1,"kind":"quiet","process":"A"}`, `line 2: a quiet event carries no "process"`},
		{"missing field", header + "\n" + `{"t":1,"kind":"assigned","process":"A"}`, `line 2: a assigned event needs "resources"`},
		{"time backwards", header + "\n" + `{"t":9,"kind":"quiet"}` + "\n" + `{"t":5,"kind":"quiet"}`, "line 3: time 5 goes backwards (line 2 was at 9)"},
		{"negative time", header + "\n" + `{"t":-1,"kind":"quiet"}`, "line 2: time -1 is negative"},
		{"called after return", header + "\n" + `{"t":5,"call":6,"kind":"assigned","process":"A","resources":["t-0"]}`, "called at 6 after it returned at 5"},
		{"bad resource", header + "\n" + `{"t":5,"kind":"assigned","process":"A","resources":["t"]}`, `line 2: resource "t": want topic-N`},
		{"resource twice", header + "\n" + `{"t":5,"kind":"assigned","process":"A","resources":["t-0","t-0"]}`, "listed twice"},
		{"generation below -1", header + "\n" + `{"t":5,"kind":"assigned","process":"A","generation":-3,"resources":["t-0"]}`, "generation -3 is below -1"},
		{"joined without coordinator", `{"format":"rebalance-trace","version":1}` + "\n" + `{"t":1,"kind":"joined","member":"m"}`, "does not claim the coordinator"},
		{"unknown member removed", header + "\n" + `{"t":1,"kind":"removed","member":"m"}`, `line 2: removed: member "m" is not counted`},
		{"event of a crashed process", header + "\n" + `{"t":1,"kind":"crash","process":"A"}` + "\n" + `{"t":2,"kind":"revoked","process":"A","resources":["t-0"]}`, `line 3: process "A" crashed at line 2 and has not restarted`},
		{"topic shrinks", header + "\n" + `{"t":1,"kind":"topic","topic":"t","partitions":4}` + "\n" + `{"t":2,"kind":"topic","topic":"t","partitions":2}`, "shrinks from 4 to 2"},
		{"unknown api", header + "\n" + `{"t":1,"kind":"request","api":"Produce"}`, `unknown group API "Produce"`},
		{"subscription twice", header + "\n" + `{"t":1,"kind":"join","process":"A","topics":["t","t"]}`, `topic "t" listed twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Read(strings.NewReader(tc.in), Limits{})
			var le *LineError
			if err == nil || !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a line error containing %q", err, tc.want)
			}
			if tr != nil {
				t.Fatalf("a refused trace was returned: %+v", tr)
			}
		})
	}
}

// TestReadLimits: a line or a trace beyond the limits is refused at the
// line where it goes beyond them.
func TestReadLimits(t *testing.T) {
	long := header + "\n" + `{"t":1,"kind":"quiet"}` + strings.Repeat(" ", 200) + "\n"
	if _, err := Read(strings.NewReader(long), Limits{MaxLine: 100}); err == nil || !strings.Contains(err.Error(), "line 2: longer than 100 bytes") {
		t.Fatalf("a long line: %v", err)
	}
	many := header + "\n" + strings.Repeat(`{"t":1,"kind":"quiet"}`+"\n", 4)
	if _, err := Read(strings.NewReader(many), Limits{MaxEvents: 3}); err == nil || !strings.Contains(err.Error(), "line 5: more than 3 events") {
		t.Fatalf("too many events: %v", err)
	}
	if tr, err := Read(strings.NewReader(many), Limits{MaxEvents: 4}); err != nil || len(tr.Events) != 4 {
		t.Fatalf("at the limit: %v", err)
	}
	// An endless stream of good events is refused where it goes past the
	// byte limit, without reading on.
	endless := io.MultiReader(strings.NewReader(header+"\n"), &repeat{line: []byte(`{"t":1,"kind":"quiet"}` + "\n")})
	if _, err := Read(endless, Limits{MaxBytes: 1 << 20}); err == nil || !strings.Contains(err.Error(), "goes past 1048576 bytes") || !strings.Contains(err.Error(), "line 45") {
		t.Fatalf("an endless trace: %v", err)
	}
	// A file of a gigabyte of zeros (sparse: nothing is written) is
	// refused at its first line.
	f, err := os.CreateTemp(t.TempDir(), "zeros")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(f, Limits{}); err == nil || !strings.Contains(err.Error(), "line 1: longer than 1048576 bytes") {
		t.Fatalf("a gigabyte of zeros: %v", err)
	}
}

// repeat reads line again and again, for ever.
type repeat struct {
	line []byte
	at   int
}

func (r *repeat) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], r.line[r.at:])
		n += k
		r.at = (r.at + k) % len(r.line)
	}
	return n, nil
}

// TestRecorderRoundTrip: what a Recorder writes reads back as the same
// events, and an event Read would refuse is refused by the Recorder
// without being written.
func TestRecorderRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	clock := int64(0)
	r, err := NewRecorder(&buf, Header{Group: "g", Protocol: "nextgen", Coordinator: true}, func() int64 { clock += 10; return clock })
	if err != nil {
		t.Fatal(err)
	}
	events := []Event{
		{Kind: Topic, Topic: "t", Partitions: 2},
		{Kind: Join, Process: "A", Client: "kgo", Topics: []string{"t"}},
		{Kind: Joined, Member: "m1"},
		{Kind: GenerationReached, Process: "A", Member: "m1", Generation: Int32(1)},
		{Kind: Assigned, Call: Int64(35), Process: "A", Member: "m1", Generation: Int32(1), Resources: []string{"t-0", "t-1"}},
		{Kind: Request, Member: "m1", API: "ConsumerGroupHeartbeat", Generation: Int32(1)},
		{Kind: Response, Member: "m1", API: "ConsumerGroupHeartbeat", Generation: Int32(1), Error: Int16(0)},
		{Kind: Quiet},
	}
	for _, e := range events {
		if err := r.Record(e); err != nil {
			t.Fatal(err)
		}
	}
	before := buf.Len()
	if err := r.Record(Event{Kind: Removed, Member: "m2"}); err == nil || !strings.Contains(err.Error(), "line 10: removed") {
		t.Fatalf("an unknown member's removal: %v", err)
	}
	if buf.Len() != before {
		t.Fatal("a refused event was written")
	}
	tr, err := Read(&buf, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		events[i].T = int64(10 * (i + 1))
		events[i].Line = i + 2
		events[i].set, _ = events[i].ResourceSet()
	}
	if diff := gocmp.Diff(events, tr.Events, gocmp.AllowUnexported(Event{})); diff != "" {
		t.Fatalf("read back (-written +read):\n%s", diff)
	}
	if tr.Header.Group != "g" || tr.Header.Format != Format {
		t.Fatalf("header %+v", tr.Header)
	}
	var again bytes.Buffer
	if err := Write(&again, tr); err != nil {
		t.Fatal(err)
	}
	if tr2, err := Read(&again, Limits{}); err != nil || !gocmp.Equal(tr, tr2, gocmp.AllowUnexported(Event{})) {
		t.Fatalf("Write does not read back: %v", err)
	}
}

// TestHistory: the observations a trace turns into, with their lines.
func TestHistory(t *testing.T) {
	in := header + `
{"t":0,"kind":"topic","topic":"t","partitions":2}
{"t":1,"kind":"join","process":"A","topics":["t"]}
{"t":2,"kind":"joined","member":"a1"}
{"t":3,"kind":"generation","process":"A","member":"a1","generation":1}
{"t":5,"call":4,"kind":"assigned","process":"B","member":"b1","generation":1,"resources":["t-1"]}
{"t":6,"kind":"subscribe","process":"A","topics":["t","u"]}
{"t":7,"kind":"request","api":"Heartbeat","member":"a1","generation":1}
{"t":8,"kind":"crash","process":"B"}
{"t":9,"kind":"quiet"}
`
	tr, err := Read(strings.NewReader(in), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	h, c := tr.History()
	want := spec.History{
		Topics:              spec.Topics{"t": 2},
		Subscriptions:       map[string][]string{"A": {"t"}, "B": {"t"}},
		CoordinatorObserved: true,
		Observations: []spec.Observation{
			{Kind: spec.Joined, Member: "a1", Generation: spec.NoGeneration, Call: 2, Return: 2, Source: 4},
			{Kind: spec.Reached, Process: "A", Member: "a1", Generation: 1, Call: 3, Return: 3, Source: 5},
			{Kind: spec.Assigned, Process: "B", Member: "b1", Generation: 1, Resources: spec.NewSet(spec.TP("t", 1)), Call: 4, Return: 5, Source: 6},
			{Kind: spec.Subscribed, Process: "A", Generation: spec.NoGeneration, Topics: []string{"t", "u"}, Call: 6, Return: 6, Source: 7},
			{Kind: spec.Crashed, Process: "B", Generation: spec.NoGeneration, Call: 8, Return: 8, Source: 9},
			{Kind: spec.Quiet, Generation: spec.NoGeneration, Call: 9, Return: 9, Source: 10},
		},
	}
	if diff := gocmp.Diff(want, h); diff != "" {
		t.Fatalf("history (-want +got):\n%s", diff)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	wantC := Carried{Ownership: true, Generations: true, Universe: true, Unsubscribed: []string{"B"}, Quiet: 10, Wire: 1}
	if diff := gocmp.Diff(wantC, c); diff != "" {
		t.Fatalf("carried (-want +got):\n%s", diff)
	}
}

// TestFromHistory: a history written as a trace reads back to the same
// history, but for the order of its observations and their lines; a
// crashed process that comes back gets a restart.
func TestFromHistory(t *testing.T) {
	h := spec.History{
		Topics:              spec.Topics{"t": 2},
		Subscriptions:       map[string][]string{"A": {"t"}, "B": {"t"}},
		CoordinatorObserved: true,
		Observations: []spec.Observation{
			{Kind: spec.Joined, Member: "a1", Generation: spec.NoGeneration, Call: 1, Return: 1},
			{Kind: spec.Assigned, Process: "A", Member: "a1", Generation: 1, Resources: spec.Range("t", 0, 1), Call: 2, Return: 9},
			{Kind: spec.Assigned, Process: "B", Member: "b1", Generation: 1, Call: 3, Return: 4},
			{Kind: spec.Crashed, Process: "A", Generation: spec.NoGeneration, Call: 10, Return: 10},
			{Kind: spec.Removed, Member: "a1", Generation: spec.NoGeneration, Call: 12, Return: 12},
			{Kind: spec.Assigned, Process: "A", Member: "a2", Generation: 2, Resources: spec.Range("t", 0, 0), Call: 14, Return: 15},
			{Kind: spec.Quiet, Generation: spec.NoGeneration, Call: 20, Return: 20},
		},
	}
	tr, err := FromHistory(h, Header{Protocol: "cooperative"})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []Kind
	for _, e := range tr.Events {
		kinds = append(kinds, e.Kind)
	}
	want := []Kind{Topic, Join, Join, Joined, GenerationReached, Assigned, Crash, Removed, Restart, Assigned, Quiet}
	if !slices.Equal(kinds, want) {
		t.Fatalf("events %v, want %v", kinds, want)
	}
	back, _ := tr.History()
	for i := range back.Observations {
		back.Observations[i].Source = 0
	}
	order := func(os []spec.Observation) []spec.Observation {
		out := slices.Clone(os)
		slices.SortStableFunc(out, func(a, b spec.Observation) int { return cmp.Compare(a.Return, b.Return) })
		return out
	}
	h.Observations = order(h.Observations)
	h.Observations[1].Kind, h.Observations[1].Call = spec.Reached, 4 // B's callback on nothing, at its return
	if diff := gocmp.Diff(h, back); diff != "" {
		t.Fatalf("read back (-history +trace's):\n%s", diff)
	}
	if _, err := FromHistory(spec.History{Observations: []spec.Observation{{Kind: spec.Assigned}}}, Header{}); err == nil {
		t.Fatal("an invalid history was written")
	}
}

// TestFastDecoderTakes: the fast decoder takes the plain lines a Recorder
// writes (or a person), whitespace included, and declines what only
// encoding/json may decide: another spelling of a key, an escape, a
// fraction, a leading zero, null, a key twice, a value too large, bytes
// that are not UTF-8, anything after the object.
func TestFastDecoderTakes(t *testing.T) {
	for _, line := range []string{
		`{"t":1,"call":0,"kind":"assigned","process":"A","member":"m","generation":-1,"resources":["t-0","t-1"]}`,
		`{"t":5,"kind":"topic","topic":"t","partitions":3}`,
		`{"t":5,"kind":"response","api":"Heartbeat","error":27,"instance":"i","client":"c"}`,
		`{"t":5,"kind":"join","process":"A","topics":[]}`,
		`{"t":5,"kind":"processed","process":"A","resource":"t-0","offset":0,"count":9223372036854775807}`,
		`{"t":5,"kind":"commit","process":"A","member":"m","error":0,"refused":["t-0"]}`,
		"\t{ \"t\" : 0 ,\r\"kind\" : \"quiet\" , \"topics\" : [ \"a\" , \"b\" ] } ",
		`{"t":0,"kind":"qu€et"}`,
		`{}`,
	} {
		got, ok := newFastDecoder().decode([]byte(line))
		var want Event
		if err := strict([]byte(line), &want); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if !ok || !gocmp.Equal(want, got, gocmp.AllowUnexported(Event{})) {
			t.Errorf("%q: taken %v, %+v, want %+v", line, ok, got, want)
		}
	}
	for _, line := range []string{
		`{"T":1}`, `{"t":1,"kind":"qu\u0069et"}`, `{"t":1.5}`, `{"t":1e3}`, `{"t":01}`, `{"t":-}`, `{"call":null}`,
		`{"t":1,"t":2}`, `{"generation":2147483648}`, `{"offsets":{"t-0":1}}`, `{"offset":1.0}`, `{"count":9223372036854775808}`, `{"refused":"t-0"}`, `{"error":32768}`, "{\"kind\":\"\xff\"}", `{"t":1} x`,
		`{"t":1 "kind":"quiet"}`, `{"t" 1}`, `{"resources":["a" "b"]}`, `{"resources":"a"}`, `{"topics":[1]}`,
		`["t"]`, `{"t":1`, `{"kind":"a`, "{\"kind\":\"a\nb\"}", `{"colour":"red"}`, `{"t":1,}`, `{"process":1}`,
	} {
		if _, ok := newFastDecoder().decode([]byte(line)); ok {
			t.Errorf("%q: taken, want it left to encoding/json", line)
		}
	}
}

// TestFastDecoderInterns: names that repeat share their bytes, up to a
// bound on the table.
func TestFastDecoderInterns(t *testing.T) {
	d := newFastDecoder()
	a, _ := d.decode([]byte(`{"process":"A","resources":["t-0"]}`))
	b, _ := d.decode([]byte(`{"process":"A","resources":["t-0"]}`))
	if unsafe.StringData(a.Process) != unsafe.StringData(b.Process) || unsafe.StringData(a.Resources[0]) != unsafe.StringData(b.Resources[0]) {
		t.Error("a repeated name is not interned")
	}
	for i := range 1<<16 + 10 {
		d.decode([]byte(fmt.Sprintf(`{"process":"P%d"}`, i)))
	}
	if n := len(d.names); n > 1<<16+1 {
		t.Errorf("the table holds %d names, want at most %d", n, 1<<16+1)
	}
}

// TestReadBoundaries: a line of exactly the line limit and a trace of
// exactly the byte limit are read; one byte more is refused. A trace read
// from a seekable input is held in one allocation of its events.
func TestReadBoundaries(t *testing.T) {
	event := `{"t":1,"kind":"quiet"}`
	in := header + "\n" + event + "\n" + event + "\n"
	if tr, err := Read(strings.NewReader(in), Limits{MaxLine: len(header)}); err != nil || len(tr.Events) != 2 {
		t.Fatalf("lines at the limit: %v", err)
	}
	if _, err := Read(strings.NewReader(in), Limits{MaxLine: len(header) - 1}); err == nil || !strings.Contains(err.Error(), "line 1: longer than") {
		t.Fatalf("a line one byte over: %v", err)
	}
	if tr, err := Read(strings.NewReader(in), Limits{MaxBytes: int64(len(in))}); err != nil || len(tr.Events) != 2 {
		t.Fatalf("a trace at the byte limit: %v", err)
	}
	if _, err := Read(strings.NewReader(in), Limits{MaxBytes: int64(len(in)) - 1}); err == nil || !strings.Contains(err.Error(), "line 3: the trace goes past") {
		t.Fatalf("a trace one byte over: %v", err)
	}
	tr, err := Read(strings.NewReader(in), Limits{})
	if err != nil || cap(tr.Events) != 3 {
		t.Fatalf("events held in %d, want room for the 3 lines counted (%v)", cap(tr.Events), err)
	}
	tr, err = Read(strings.NewReader(in), Limits{MaxBytes: int64(len(in)) - 10})
	if err == nil || tr != nil {
		t.Fatal("a seekable trace over the byte limit was read")
	}
	for _, tc := range []struct{ in, want string }{
		{header + "\n" + `{"t":1,"kind":"topic","topic":"t","partitions":-1}`, "with -1 partitions: want at least 1"},
		{header + "\n" + `{"t":1,"kind":"topic","topic":"t","partitions":2}` + "\n" + `{"t":2,"kind":"topic","topic":"t","partitions":2}`, ""},
		{`{"format":"rebalance-trace","version":1,"unit":"s"}` + "\n" + `{"t":9223372036,"kind":"quiet"}`, ""},
		{`{"format":"rebalance-trace","version":1,"unit":"s"}` + "\n" + `{"t":9223372037,"kind":"quiet"}`, "does not fit in nanoseconds"},
		{header + "\n" + `{"t":5,"call":5,"kind":"assigned","process":"A","resources":["t-0"]}`, ""},
		{header + "\n" + `{"t":5,"call":-1,"kind":"assigned","process":"A","resources":["t-0"]}`, "call time -1 is negative"},
		{header + "\n" + `{"t":5,"kind":"assigned","process":"A","generation":-1,"resources":["t-0"]}`, ""},
		{header + "\n" + `{"t":5,"kind":"generation","process":"A","member":"m","generation":-1}`, "needs a generation of 0 or more"},
		{header + "\n" + `{"t":5,"kind":"generation","process":"A","member":"m","generation":0}`, ""},
		{`{"format":"rebalance-trace","version":1,"unit":"hours"}`, `unit "hours"`},
		{`{"format":"rebalance-trace","version":1,"max_rounds":0}`, ""},
	} {
		_, err := Read(strings.NewReader(tc.in), Limits{})
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestUnits: times are read in the header's unit.
func TestUnits(t *testing.T) {
	for unit, ns := range map[string]spec.Nanos{"": 5, "ns": 5, "us": 5e3, "ms": 5e6, "s": 5e9} {
		tr, err := Read(strings.NewReader(`{"format":"rebalance-trace","version":1,"unit":"`+unit+`"}`+"\n"+`{"t":5,"call":5,"kind":"assigned","process":"A","resources":["t-0"]}`), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		h, _ := tr.History()
		if got := h.Observations[0].Call; got != ns || tr.Nanos(5) != ns {
			t.Errorf("unit %q: 5 is %d ns, want %d", unit, got, ns)
		}
	}
	if _, err := FromHistory(spec.History{}, Header{Unit: "ms"}); err == nil {
		t.Error("a history written in milliseconds")
	}
	if _, err := NewRecorder(io.Discard, Header{Unit: "days"}, nil); err == nil {
		t.Error("a recorder with an unknown unit")
	}
}

// TestHistoryWithoutTopics: without topic events the universe is what
// the callbacks name, and callbacks on nothing become generation events
// only with a member and a generation.
func TestHistoryWithoutTopics(t *testing.T) {
	tr, err := Read(strings.NewReader(`{"format":"rebalance-trace","version":1}`+"\n"+
		`{"t":1,"kind":"assigned","process":"A","resources":["t-4","u-0"]}`+"\n"+
		`{"t":2,"kind":"join","process":"B"}`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	h, c := tr.History()
	if !gocmp.Equal(h.Topics, spec.Topics{"t": 5, "u": 1}) || c.Universe || !slices.Equal(c.Unsubscribed, []string{"A"}) {
		t.Fatalf("universe %v, carried %+v", h.Topics, c)
	}
	if _, ok := h.Subscriptions["B"]; ok {
		t.Fatal("a join without topics gave a subscription")
	}
	h2 := spec.History{Topics: spec.Topics{"t": 1}, Subscriptions: map[string][]string{"A": {"t"}}, Observations: []spec.Observation{
		{Kind: spec.Assigned, Process: "A", Member: "", Generation: 1, Call: 1, Return: 1},
		{Kind: spec.Assigned, Process: "A", Member: "a", Generation: spec.NoGeneration, Call: 2, Return: 2},
		{Kind: spec.Assigned, Process: "A", Member: "a", Generation: 0, Call: 3, Return: 3},
	}}
	tr2, err := FromHistory(h2, Header{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []Kind
	for _, e := range tr2.Events {
		kinds = append(kinds, e.Kind)
	}
	if !slices.Equal(kinds, []Kind{Topic, Join, GenerationReached}) {
		t.Fatalf("events %v: want only the callback with a member and a generation kept", kinds)
	}
}

// TestLongLines: lines longer than the reader's buffer, and a last line
// without a newline, are read up to the limit exactly.
func TestLongLines(t *testing.T) {
	long := `{"t":1,"kind":"join","process":"` + strings.Repeat("p", 100<<10) + `"}`
	in := header + "\n" + long + "\n"
	for _, tc := range []struct {
		in      string
		maxLine int
		ok      bool
	}{
		{in, len(long), true},
		{in, len(long) - 1, false},
		{header + "\n" + long, len(long), true},
		{header + "\n" + long, len(long) - 1, false},
		{header + "\n" + `{"t":1,"kind":"quiet"}`, len(header), true},
	} {
		tr, err := Read(strings.NewReader(tc.in), Limits{MaxLine: tc.maxLine})
		if tc.ok != (err == nil) || tc.ok && tr.Events[0].Line != 2 {
			t.Errorf("a line of %d bytes with the limit at %d: %v", len(tc.in)-len(header)-1, tc.maxLine, err)
		}
		if !tc.ok && !strings.Contains(err.Error(), fmt.Sprintf("line 2: longer than %d bytes", tc.maxLine)) {
			t.Errorf("want line 2 refused, got %v", err)
		}
	}
}

// failingWriter fails every write after the first n.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("disk full")
	}
	w.n--
	return len(p), nil
}

// TestRecorderWriteError: a write that fails is reported with its line,
// and every later Record returns the same error.
func TestRecorderWriteError(t *testing.T) {
	r, err := NewRecorder(&failingWriter{n: 2}, Header{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Record(Event{T: 1, Kind: Quiet}); err != nil {
		t.Fatal(err)
	}
	err = r.Record(Event{T: 2, Kind: Quiet})
	if err == nil || err.Error() != "trace: write line 3: disk full" {
		t.Fatalf("got %v", err)
	}
	if again := r.Record(Event{T: 3, Kind: Quiet}); again != err {
		t.Fatalf("a later Record returned %v", again)
	}
	if _, err := NewRecorder(&failingWriter{}, Header{}, nil); err == nil {
		t.Fatal("a header that cannot be written")
	}
}
