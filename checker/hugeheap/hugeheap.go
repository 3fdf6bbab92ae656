// Package hugeheap lets the Go heap that a long run grows into live on
// transparent huge pages where the system leaves that to the program.
//
// The model checker grows a heap of hundreds of megabytes of concrete
// states and fingerprints and reads it at random. On Linux with transparent huge pages in "madvise" mode (a
// common default), the Go runtime maps its heap in 4 KiB pages: every
// page costs a fault when first touched and a TLB entry while in use. On
// the 2-core VM this project is measured on, a fresh `rebalance check
// --protocol nextgen --workers 1 --no-liveness` took about 104,000 page
// faults, a fifth of its time; with the heap on huge pages, about 5,000
// (docs/checker-rounds.md, "Huge pages (2026-12-04)").
//
// Advise does what the runtime does not: it has the runtime map address
// space for a stretch of heap at once, marks it MADV_HUGEPAGE, and hands
// it back, untouched, to the runtime, which allocates from the lowest
// free addresses first, so the heap grows into the marked stretch and the
// kernel backs it with huge pages as it is first touched. Nothing is
// touched ahead of use: the resident memory grows as before, in 2 MiB
// steps instead of 4 KiB ones.
package hugeheap

import "sync"

// Result says what Advise did.
type Result struct {
	// Mode is the system's transparent huge page setting ("always",
	// "madvise" or "never"), "" where there is none (not Linux, or the
	// setting cannot be read).
	Mode string
	// Advised is how many bytes of heap address space were marked for huge
	// pages: 0 unless Advisable, that is unless Mode is "madvise" (under
	// "always" the kernel uses huge pages without being asked; under
	// "never" not at all), the system overcommits memory (under strict
	// accounting the stretch, though never touched, would count against
	// the commit limit), and GODEBUG does not set disablethp=1.
	Advised int64
	// Start is the first address of the marked stretch (0 when none).
	Start uintptr
}

// DefaultSize is the most heap rebalance check marks (and the checker's
// benchmarks with it). Marking costs address space, not memory, but the
// runtime keeps bookkeeping for every page of it, about 1 MiB per GiB;
// the default worlds' heaps stay under 1.5 GiB, and a heap that outgrows
// the stretch takes small pages beyond it.
const DefaultSize = 4 << 30

// advised is the first Advise's result: the heap is the process's, so
// only the first call marks.
var advised struct {
	sync.Once
	r Result
}

// Advise marks n bytes of heap for transparent huge pages (see advise for
// the platform's way). Only the first call in a process marks anything;
// every later one returns the first one's Result, so commands and tests
// that run several explorations in one process may each call it.
func Advise(n int64) Result {
	advised.Do(func() { advised.r = advise(n) })
	return advised.r
}

// SmallByDefault returns why a program should leave its heap in small
// pages unless its user asks for huge ones, "" where huge pages are the
// better default. The one reason is a balloon that reports free pages
// (ReportsFreePages): there a huge page is memory the host must supply
// again at its first touch, which cost runs up to twice their time on the
// project's VMs. rebalance check and the checker's benchmarks both follow
// it.
func SmallByDefault() string {
	if ReportsFreePages() {
		return "this VM's balloon reports free pages to its host, so a huge page would be memory the host must supply again"
	}
	return ""
}
