package cost

import "testing"

// cpuClock measures the CPU time of the whole process (every thread: the
// simulation's and the garbage collector's), so that a benchmark can report
// it next to wall-clock time: on a shared machine the wall clock also counts
// the time other processes hold the CPU, the process clock does not.
type cpuClock struct {
	start int64
	ok    bool
}

// startCPUClock starts the clock.
func startCPUClock() cpuClock {
	t, ok := processCPU()
	return cpuClock{start: t, ok: ok}
}

// report stops the clock and reports the process CPU time per operation as
// the metric cpu-ns/op.
func (c cpuClock) report(b *testing.B) {
	t, ok := processCPU()
	if c.ok && ok && b.N > 0 {
		b.ReportMetric(float64(t-c.start)/float64(b.N), "cpu-ns/op")
	}
}
