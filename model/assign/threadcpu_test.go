package assign

import (
	"runtime"
	"testing"
)

// threadClock measures the CPU time of the benchmark's own thread, so that
// a benchmark can report it next to wall-clock time: on a shared machine the
// wall clock also counts the time other processes hold the CPU, the thread
// clock does not. It counts the work of the calling goroutine (including
// the GC assists it is charged), not the collector's background workers.
type threadClock struct {
	start int64
	ok    bool
}

// startThreadClock locks the goroutine to its thread and starts the clock.
func startThreadClock() threadClock {
	runtime.LockOSThread()
	t, ok := threadCPU()
	return threadClock{start: t, ok: ok}
}

// report stops the clock, unlocks the thread and reports the thread CPU
// time per operation as the metric thread-ns/op.
func (c threadClock) report(b *testing.B) {
	t, ok := threadCPU()
	runtime.UnlockOSThread()
	if c.ok && ok && b.N > 0 {
		b.ReportMetric(float64(t-c.start)/float64(b.N), "thread-ns/op")
	}
}
