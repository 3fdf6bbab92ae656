package checker

import (
	"runtime"
	"testing"
)

// TestGCPercentLeavesTheCollectorACore: 200 while fewer workers run than
// the process has cores, 400 once every core runs one (or more do).
func TestGCPercentLeavesTheCollectorACore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, c := range []struct{ workers, want int }{{1, 200}, {3, 200}, {4, 400}, {8, 400}} {
		if got := GCPercent(c.workers); got != c.want {
			t.Errorf("GCPercent(%d) at GOMAXPROCS 4 = %d, want %d", c.workers, got, c.want)
		}
	}
	runtime.GOMAXPROCS(1)
	if got := GCPercent(1); got != 400 {
		t.Errorf("GCPercent(1) at GOMAXPROCS 1 = %d, want 400", got)
	}
}
