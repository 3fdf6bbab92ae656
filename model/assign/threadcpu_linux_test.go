//go:build linux

package assign

import "syscall"

// threadCPU returns the CPU time the calling OS thread has used, in
// nanoseconds (getrusage RUSAGE_THREAD), and true.
func threadCPU() (int64, bool) {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
