package checker

import "sync/atomic"

// frontierClaims hands out a level's frontier to its workers in chunks,
// each index exactly once. The frontier is split into one region per
// worker, by default the states that worker made in the level before
// (explorer.regions): worker k takes chunks of its own region first and
// only then helps with the others', so that it mostly expands states it
// wrote itself, still in its core's cache, rather than states the other
// core wrote (measured: 2.4 % less time on two workers for the
// incremental world with liveness; docs/checker-rounds.md, eleventh
// round).
type frontierClaims struct {
	// bounds holds the regions: region r is [bounds[r], bounds[r+1]).
	// Invariant: len(bounds) == len(next)+1, bounds ascending from 0 to
	// the frontier's length.
	bounds []int
	// next holds region r's next offset, from bounds[r], each alone on
	// its cache lines, so that workers claiming from different regions
	// do not write to one line.
	next  []alone[atomic.Int64]
	chunk int
}

// newFrontierClaims splits a frontier of n states among w workers by
// regions (len(regions) == w+1, from 0 to n), or in w equal parts when
// regions does not fit (the first level, or a level with fewer workers
// than the last). chunk, at least 1, is the most a claim hands out.
func newFrontierClaims(regions []int, n, w, chunk int) *frontierClaims {
	c := &frontierClaims{next: make([]alone[atomic.Int64], w), chunk: chunk}
	if len(regions) == w+1 && regions[0] == 0 && regions[w] == n {
		c.bounds = regions
	} else {
		c.bounds = make([]int, w+1)
		for k := range c.bounds {
			c.bounds[k] = n * k / w
		}
	}
	return c
}

// claim returns the next chunk [lo, hi) for worker k (0 ≤ k < w): from
// its own region while it has any, then from the regions after it in
// turn. ok is false when every index has been handed out. It is safe for
// concurrent use.
//
// A chunk is c.chunk indexes, or fewer near the end of a region: a
// (2w)-th of what the region has left, at least one (guided
// self-scheduling). So when one worker runs out of work, the others are
// each within a few states of their last, however small the level: the
// longest wait at a level's end is the expansion of a few states, not of
// a whole chunk.
func (c *frontierClaims) claim(k int) (lo, hi int, ok bool) {
	w := len(c.next)
	for d := range w {
		r := (k + d) % w
		size := c.bounds[r+1] - c.bounds[r]
		for {
			off := int(c.next[r].v.Load())
			if off >= size {
				break
			}
			n := guidedChunk(size-off, w, c.chunk)
			if c.next[r].v.CompareAndSwap(int64(off), int64(off+n)) {
				return c.bounds[r] + off, c.bounds[r] + off + n, true
			}
		}
	}
	return 0, 0, false
}

// guidedChunk is the size of the next chunk of a region with left
// indexes not handed out (left ≥ 1), among w workers, at most most.
func guidedChunk(left, w, most int) int { return max(1, min(most, left/(2*w))) }

// left is how many indexes have not been handed out yet.
func (c *frontierClaims) left() int {
	n := 0
	for r := range c.next {
		n += c.bounds[r+1] - c.bounds[r] - int(c.next[r].v.Load())
	}
	return n
}
