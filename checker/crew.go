package checker

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// crewSpin is how long a crew's worker waits for the next level, and the
// caller for the workers to finish one, before it sleeps. Longer than
// the gap between two levels (the merge, tens of microseconds on the
// default worlds) so that a worker rarely sleeps between levels; short
// enough that a long serial part (a large level's merge, the liveness
// check after the last level) does not keep a core busy waiting.
const crewSpin = time.Millisecond

// crew runs a job on w workers at once, once per level, with goroutines
// that live as long as the crew: the caller's goroutine is worker 0, and
// workers 1 to w-1 wait between levels, first spinning (crewSpin) and
// then asleep.
//
// Starting w goroutines for every level, as the explorer did before,
// cost each level the wake-up of a sleeping thread on the other core: on
// the project's 2-vCPU VM, 50 to 100 µs a goroutine, 12 to 26 ms
// of an eager exploration's 180 ms on two workers, over its 134 levels.
// With the crew that exploration took 10 % less time on two workers
// (docs/checker-rounds.md, issue 13's twenty-second round).
type crew struct {
	w int
	// job is the level's work (run); read by the workers after they see
	// round change, written by run before it changes round.
	job func(k int)
	// round counts the levels started; a worker runs job once for each.
	round atomic.Uint64
	// left counts the workers (1 to w-1) still running the current job.
	left atomic.Int64
	// quit is set by stop: the workers return at the next round.
	quit atomic.Bool

	// mu and started let sleeping workers wait for round to change; mu
	// and finished let run's caller sleep until left is 0.
	mu       sync.Mutex
	started  *sync.Cond
	finished *sync.Cond
	wg       sync.WaitGroup
}

// newCrew starts the w-1 goroutines of a crew of w workers (w ≥ 1).
func newCrew(w int) *crew {
	c := &crew{w: w}
	c.started, c.finished = sync.NewCond(&c.mu), sync.NewCond(&c.mu)
	for k := 1; k < w; k++ {
		c.wg.Add(1)
		go c.work(k)
	}
	return c
}

// run runs job(k) for every worker k of the crew at once, job(0) on the
// caller's goroutine, and returns when all have returned. Not safe for
// concurrent use: one level at a time.
func (c *crew) run(job func(k int)) {
	c.job = job
	c.left.Store(int64(c.w - 1))
	c.next()
	job(0)
	c.await(c.finished, func() bool { return c.left.Load() == 0 })
}

// stop ends the crew's goroutines and waits for them.
func (c *crew) stop() {
	c.quit.Store(true)
	c.next()
	c.wg.Wait()
}

// next starts a round: under mu, so that a worker about to sleep either
// sees the new round or is woken by the broadcast.
func (c *crew) next() {
	c.mu.Lock()
	c.round.Add(1)
	c.started.Broadcast()
	c.mu.Unlock()
}

// work is worker k's loop: wait for a round, run the job, report done.
func (c *crew) work(k int) {
	defer c.wg.Done()
	var seen uint64
	for {
		c.await(c.started, func() bool { return c.round.Load() != seen })
		seen = c.round.Load()
		if c.quit.Load() {
			return
		}
		c.job(k)
		if c.left.Add(-1) == 0 {
			c.mu.Lock()
			c.finished.Broadcast()
			c.mu.Unlock()
		}
	}
}

// await returns once ready reports true: it spins for up to crewSpin,
// then sleeps on cond, which whoever makes ready true broadcasts under
// c.mu.
func (c *crew) await(cond *sync.Cond, ready func() bool) {
	if spin(ready) {
		return
	}
	c.mu.Lock()
	for !ready() {
		cond.Wait()
	}
	c.mu.Unlock()
}

// spin waits up to crewSpin for ready to report true, yielding the core
// to any other goroutine (the collector's) between tries, and reports
// whether it did.
func spin(ready func() bool) bool {
	deadline := time.Now().Add(crewSpin)
	for i := 0; ; i++ {
		if ready() {
			return true
		}
		if i%64 == 63 && time.Now().After(deadline) {
			return false
		}
		runtime.Gosched()
	}
}
