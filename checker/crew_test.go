package checker

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestCrewRunsEachWorkerOncePerLevel runs crews of several sizes through
// many levels: back to back (the workers find the next level while they
// spin), after pauses longer than crewSpin (they find it asleep), and
// with some worker, the caller's or another, slower than crewSpin (the
// others and the caller wait asleep). Each level must run every worker's
// job exactly once and return only after all have; stop must end the
// crew's goroutines.
func TestCrewRunsEachWorkerOncePerLevel(t *testing.T) {
	for _, w := range []int{1, 2, 3} {
		before := runtime.NumGoroutine()
		c := newCrew(w)
		counts := make([]atomic.Int64, w)
		for level := int64(1); level <= 120; level++ {
			c.run(func(k int) {
				if level%40 == int64(10*k) {
					time.Sleep(2 * crewSpin) // one worker slow: the others sleep
				}
				counts[k].Add(1)
			})
			for k := range counts {
				if n := counts[k].Load(); n != level {
					t.Fatalf("%d workers, level %d: worker %d ran %d times", w, level, k, n)
				}
			}
			if level%30 == 0 {
				time.Sleep(2 * crewSpin) // the workers fall asleep
			}
		}
		c.stop()
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Errorf("%d workers: %d goroutines after stop, %d before the crew", w, n, before)
		}
	}
}
