package main

import (
	"sync"

	"github.com/rebalance-ref/rebalance/checker/hugeheap"
)

// hugePagesUsage is the help of check's --huge-pages.
const hugePagesUsage = "put the heap on transparent huge pages where the system leaves that to programs (Linux, THP \"madvise\"): fewer page faults and TLB misses, about a sixth faster over the default worlds (docs/checker.md); false leaves the heap to the system"

// adviseHugePages has the heap a run grows into marked for transparent
// huge pages (package hugeheap): at most limit bytes of it (0: no
// limit), and never more than most. It marks once per process (a command
// runs once; the tests run many) and returns that first result after.
// Marking costs address space, not memory, but the runtime keeps
// bookkeeping for every page of it, about 1 MiB per GiB; hence the cap.
func adviseHugePages(limit, most int64) hugeheap.Result {
	advised.Do(func() {
		n := most
		if limit > 0 {
			n = min(n, limit)
		}
		advised.r = hugeheap.Advise(n)
	})
	return advised.r
}

var advised struct {
	sync.Once
	r hugeheap.Result
}
