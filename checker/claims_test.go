package checker

import (
	"fmt"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// TestFrontierClaims hands out random frontiers to workers claiming in a
// random order and requires every index handed out exactly once, each
// worker served from its own region while that has any, each chunk of the
// guided size (at most chunk, a (2w)-th of what its region had left, at
// least one), and left counting down to 0.
func TestFrontierClaims(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.IntRange(1, 5).Draw(t, "workers")
		sizes := rapid.SliceOfN(rapid.IntRange(0, 40), w, w).Draw(t, "region sizes")
		regions := []int{0}
		for _, s := range sizes {
			regions = append(regions, regions[len(regions)-1]+s)
		}
		n := regions[w]
		if rapid.Bool().Draw(t, "stale regions") {
			// A split that does not fit the frontier is replaced by equal parts.
			n += rapid.IntRange(1, 10).Draw(t, "extra")
			regions = []int{0}
			for k := 1; k <= w; k++ {
				regions = append(regions, n*k/w)
			}
			sizes = nil
		}
		chunk := rapid.IntRange(1, 12).Draw(t, "chunk")
		c := newFrontierClaims(regions, n, w, chunk)
		if sizes == nil {
			regions = c.bounds
		}
		seen := make([]int, n)
		done := make([]bool, w)
		for handed := 0; ; {
			if got := c.left(); got != n-handed {
				t.Fatalf("left() = %d after %d of %d handed out", got, handed, n)
			}
			k := rapid.IntRange(0, w-1).Draw(t, "worker")
			lo, hi, ok := c.claim(k)
			if !ok {
				done[k] = true
				if handed != n {
					t.Fatalf("worker %d got nothing with %d of %d handed out", k, handed, n)
				}
				break
			}
			if lo >= hi || lo < 0 || hi > n {
				t.Fatalf("worker %d got [%d,%d) of a frontier of %d", k, lo, hi, n)
			}
			r := 0
			for regions[r+1] <= lo {
				r++
			}
			if left := unclaimed(seen[regions[r]:regions[r+1]]); hi-lo != min(chunk, max(1, left/(2*w))) {
				t.Fatalf("worker %d got [%d,%d) from region %d with %d left: want min(%d, max(1, left/%d)) indexes", k, lo, hi, r, left, chunk, 2*w)
			}
			own := r == k
			if !own && !allClaimed(seen[regions[k]:regions[k+1]]) {
				t.Fatalf("worker %d got [%d,%d) outside its region [%d,%d) before finishing it", k, lo, hi, regions[k], regions[k+1])
			}
			for i := lo; i < hi; i++ {
				seen[i]++
			}
			handed += hi - lo
		}
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("index %d handed out %d times", i, s)
			}
		}
	})
}

func allClaimed(s []int) bool { return unclaimed(s) == 0 }

// unclaimed counts the indexes of s not handed out yet.
func unclaimed(s []int) int {
	n := 0
	for _, v := range s {
		if v == 0 {
			n++
		}
	}
	return n
}

// TestFrontierClaimsConcurrent has several goroutines claim one frontier
// at once (run it with -race) and requires every index exactly once.
func TestFrontierClaimsConcurrent(t *testing.T) {
	for _, w := range []int{2, 3, 8} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			n := 10007
			c := newFrontierClaims(nil, n, w, 7)
			seen := make([][]int, w)
			var wg sync.WaitGroup
			for k := range w {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						lo, hi, ok := c.claim(k)
						if !ok {
							return
						}
						for i := lo; i < hi; i++ {
							seen[k] = append(seen[k], i)
						}
					}
				}()
			}
			wg.Wait()
			count := make([]int, n)
			for _, s := range seen {
				for _, i := range s {
					count[i]++
				}
			}
			for i, c := range count {
				if c != 1 {
					t.Fatalf("index %d handed out %d times", i, c)
				}
			}
		})
	}
}
