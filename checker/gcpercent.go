package checker

import "runtime"

// GCPercent is the collector setting (GOGC) an exploration with workers
// workers runs best at, on this process's GOMAXPROCS: 200 while a core is
// left over for the collector, 400 once every core runs a worker.
// rebalance check sets it unless GOGC is in the environment; the
// benchmarks set it as check does.
//
// The explorer keeps its frontier of concrete states alive and makes much
// short-lived garbage. With a core to spare, the collector marks there,
// so collecting twice as often costs the workers little, and the heap a
// third smaller saves the first touch of fresh memory, which is dear on a
// virtual machine (the system zeroes each page, and the host backs it).
// With no core to spare, every collection takes a worker's time, and the
// larger heap pays. Measured in fresh processes, one and two workers,
// 200 against 400: docs/checker.md, "Issue 13: seventeenth round".
func GCPercent(workers int) int {
	if workers < runtime.GOMAXPROCS(0) {
		return 200
	}
	return 400
}
