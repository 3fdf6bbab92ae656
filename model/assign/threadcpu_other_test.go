//go:build !linux

package assign

// threadCPU is not available off Linux.
func threadCPU() (int64, bool) { return 0, false }
