package trace

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkRead reads a trace of a million callbacks.
//
//	go test ./spec/trace -run XXX -bench Read -benchtime 1x -cpu 1 -benchmem
func BenchmarkRead(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"format":"rebalance-trace","version":1,"protocol":"cooperative"}` + "\n")
	for i := range 1_000_000 {
		fmt.Fprintf(&buf, `{"t":%d,"call":%d,"kind":"assigned","process":"P%02d","member":"P%02d","generation":%d,"resources":["t-%d"]}`+"\n", 2*i+1, 2*i, i%20, i%20, i, i%200)
	}
	in := buf.Bytes()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		tr, err := Read(bytes.NewReader(in), Limits{})
		if err != nil || len(tr.Events) != 1_000_000 {
			b.Fatal(err)
		}
	}
}
