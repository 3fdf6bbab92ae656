//go:build linux

package cost

import "syscall"

// processCPU returns the CPU time the process has used, user and system,
// in nanoseconds (getrusage RUSAGE_SELF), and true.
func processCPU() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
