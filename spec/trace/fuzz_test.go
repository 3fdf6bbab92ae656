package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzRead: the reader never panics; whatever it accepts turns into a
// history that validates, and writes back to a trace that reads as the
// same. Seeds: the example traces in testdata and a few broken lines.
func FuzzRead(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "checker", "oracle", "testdata", "*.ndjson"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(header + "\n" + `{"t":1,"call":0,"kind":"assigned","process":"A","resources":["t-0"]}`))
	f.Add([]byte(header + "\n" + `{"t":1,"kind":"crash","process":"A"}` + "\n" + `{"t":1,"kind":"restart","process":"A","topics":["t"]}`))
	f.Add([]byte(`{"format":"rebalance-trace","version":1}` + "\n" + `{"t":1,"kind":"topic","topic":"t","partitions":3}`))
	f.Add([]byte(header + "\n" + `{"t":1,"kind":"processed","process":"A","resource":"t-0","offset":0,"count":2}` + "\n" +
		`{"t":2,"call":1,"kind":"commit","process":"A","member":"m","generation":1,"offsets":{"t-0":2,"t-1":0},"error":0,"refused":["t-1"]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		tr, err := Read(bytes.NewReader(in), Limits{MaxLine: 4096, MaxEvents: 1000})
		if err != nil {
			if tr != nil {
				t.Fatal("a refused trace was returned")
			}
			return
		}
		h, c := tr.History()
		if ds := tr.Deliveries(); len(ds) != c.Processed+c.Commits {
			t.Fatalf("%d deliveries, %d counted", len(ds), c.Processed+c.Commits)
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("an accepted trace makes an invalid history: %v", err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, tr); err != nil {
			t.Fatal(err)
		}
		again, err := Read(&buf, Limits{})
		if err != nil {
			t.Fatalf("an accepted trace does not read back after Write: %v", err)
		}
		if !cmp.Equal(tr, again, cmp.AllowUnexported(Event{})) {
			t.Fatalf("read back differently:\n%s", cmp.Diff(tr, again, cmp.AllowUnexported(Event{})))
		}
	})
}

// FuzzFastDecoder: every line the fast decoder takes, encoding/json
// decodes (strictly, as Read does) to the same event.
func FuzzFastDecoder(f *testing.F) {
	for _, s := range []string{
		`{"t":1,"call":0,"kind":"assigned","process":"A","member":"m","generation":-1,"resources":["t-0","t-1"]}`,
		`{"t":5,"kind":"topic","topic":"t","partitions":3}`,
		`{"t":5,"kind":"response","api":"Heartbeat","error":27}`,
		`{"t":5,"kind":"join","process":"A","topics":[]}`,
		`{"t":5,"kind":"processed","process":"A","resource":"t-0","offset":3,"count":2}`,
		`{"t":5,"kind":"commit","process":"A","member":"m","offsets":{"t-0":3},"error":0,"refused":["t-0"]}`,
		` { "t" : 0 , "kind" : "quiet" } `,
		`{"T":1,"kind":"quiet"}`,
		`{"t":1,"t":2,"kind":"quiet"}`,
		`{"t":1e3,"kind":"quiet"}`,
		`{"t":01,"kind":"quiet"}`,
		`{"t":1,"kind":"qu\u0069et"}`,
		`{"t":9223372036854775808,"kind":"quiet"}`,
		`{"t":1,"kind":"quiet","call":null}`,
		`{"t":1,"kind":"quiet"} x`,
		"{\"t\":1,\"kind\":\"\xff\"}",
		`{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := newFastDecoder().decode(line)
		if !ok {
			return
		}
		var want Event
		if err := strict(line, &want); err != nil {
			t.Fatalf("the fast decoder took %q, which encoding/json refuses: %v", line, err)
		}
		if !cmp.Equal(want, got, cmp.AllowUnexported(Event{})) {
			t.Fatalf("%q decodes differently (-encoding/json +fast):\n%s", line, cmp.Diff(want, got, cmp.AllowUnexported(Event{})))
		}
	})
}
