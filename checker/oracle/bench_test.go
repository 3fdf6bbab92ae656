package oracle

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/rebalance-ref/rebalance/spec/trace"
)

// movingTrace writes a cooperative trace of n ownership events: members
// processes share parts partitions of one topic, and round after round one
// partition moves from its owner to the next process (revoked, then
// assigned a generation later), with a quiet point at the end.
func movingTrace(tb testing.TB, n, members, parts int) []byte {
	var buf bytes.Buffer
	r, err := trace.NewRecorder(&buf, trace.Header{Protocol: "cooperative", Coordinator: true, MaxRounds: 1 << 30}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	rec := func(e trace.Event) {
		if err := r.Record(e); err != nil {
			tb.Fatal(err)
		}
	}
	name := func(i int) string { return fmt.Sprintf("P%02d", i) }
	rec(trace.Event{Kind: trace.Topic, Topic: "t", Partitions: int32(parts)})
	t := int64(1)
	owner := make([]int, parts)
	for i := range members {
		rec(trace.Event{T: t, Kind: trace.Join, Process: name(i), Topics: []string{"t"}})
		rec(trace.Event{T: t, Kind: trace.Joined, Member: name(i)})
	}
	gen := int32(1)
	for p := range parts {
		owner[p] = p % members
		t++
		rec(trace.Event{T: t, Call: trace.Int64(t - 1), Kind: trace.Assigned, Process: name(owner[p]), Member: name(owner[p]), Generation: trace.Int32(gen), Resources: []string{fmt.Sprintf("t-%d", p)}})
	}
	for events := parts; events+2 <= n; events += 2 {
		p := (events / 2) % parts
		from, to := owner[p], (owner[p]+1)%members
		gen++
		t += 2
		rec(trace.Event{T: t, Call: trace.Int64(t - 1), Kind: trace.Revoked, Process: name(from), Member: name(from), Generation: trace.Int32(gen), Resources: []string{fmt.Sprintf("t-%d", p)}})
		gen++
		t += 2
		rec(trace.Event{T: t, Call: trace.Int64(t - 1), Kind: trace.Assigned, Process: name(to), Member: name(to), Generation: trace.Int32(gen), Resources: []string{fmt.Sprintf("t-%d", p)}})
		owner[p] = to
	}
	rec(trace.Event{T: t + 1, Kind: trace.Quiet})
	return buf.Bytes()
}

var benchEvents = 1_000_000

// BenchmarkCheck: reading and judging a trace of a million ownership
// events (20 processes, 200 partitions), as `rebalance trace check` does.
//
//	go test ./checker/oracle -run XXX -bench Check -benchtime 1x -cpu 1
func BenchmarkCheck(b *testing.B) {
	in := movingTrace(b, benchEvents, 20, 200)
	b.ReportAllocs()
	for b.Loop() {
		tr, err := trace.Read(bytes.NewReader(in), trace.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		rep, err := Check(tr, Options{})
		if err != nil || !rep.OK() {
			b.Fatalf("%v\n%s", err, rep)
		}
		b.ReportMetric(float64(len(tr.Events)), "events")
	}
}
