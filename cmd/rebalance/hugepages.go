package main

import (
	"sync"

	"github.com/rebalance-ref/rebalance/checker/hugeheap"
)

// hugePagesUsage is the help of check's --huge-pages.
const hugePagesUsage = "put the heap on transparent huge pages where the system leaves that to programs (Linux, THP \"madvise\"): fewer page faults and TLB misses, about a sixth faster over the default worlds (docs/checker.md); false leaves the heap to the system"

// hugeHeapCap is the most heap adviseHugePages marks. Marking costs
// address space, not memory, but the runtime keeps bookkeeping for every
// page of it, about 1 MiB per GiB; the default worlds' heaps stay under
// 1.5 GiB, and a heap that outgrows the stretch takes small pages beyond it.
const hugeHeapCap = 4 << 30

// adviseHugePages has the heap check grows into marked for transparent
// huge pages (package hugeheap): as much as the memory limit (0: no
// limit), at most hugeHeapCap. It marks once per process (a command runs
// once; the tests run many) and returns that first result after.
func adviseHugePages(limit int64) hugeheap.Result {
	advised.Do(func() {
		n := int64(hugeHeapCap)
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
