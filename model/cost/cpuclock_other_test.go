//go:build !linux

package cost

// processCPU reports false: the process clock is read on Linux only.
func processCPU() (int64, bool) { return 0, false }
