package hugeheap

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

const (
	enabledFile    = "/sys/kernel/mm/transparent_hugepage/enabled"
	pageSizeFile   = "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"
	overcommitFile = "/proc/sys/vm/overcommit_memory"
)

// advise marks n bytes (rounded up to whole huge pages) of heap address
// space the runtime has not used yet for transparent huge pages, and
// returns it to the runtime untouched (see the package comment). It must
// run early, while the heap is small: the heap grows into the stretch
// only once it has used the addresses below it, and in a heap that once
// held n bytes and freed them the runtime would zero that memory to hand
// it out. It forces a garbage collection and returns the free heap to the
// system (debug.FreeOSMemory), so the runtime counts the stretch as
// released, not as memory in use. It does nothing (Advised 0) unless the
// system's setting allows it (Advisable); n <= 0 does nothing either.
func advise(n int64) Result {
	r := Result{Mode: thpMode()}
	if !Advisable() || n <= 0 {
		return r
	}
	huge := hugePageSize()
	size := (n + huge - 1) / huge * huge
	// One huge page more, so that an aligned stretch of size fits
	// whatever the start; fresh memory from the system is not zeroed by
	// the runtime, so nothing of it is touched.
	b := make([]byte, size+huge)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := int64((uintptr(huge) - base%uintptr(huge)) % uintptr(huge))
	if err := syscall.Madvise(b[off:off+size], syscall.MADV_HUGEPAGE); err == nil {
		r.Advised, r.Start = size, base+uintptr(off)
	}
	runtime.KeepAlive(b)
	debug.FreeOSMemory()
	return r
}

// Advisable reports whether Advise can mark anything here: the system's
// transparent huge page setting is "madvise", memory is overcommitted,
// and the user has not turned huge pages off for the Go heap
// (GODEBUG=disablethp=1).
func Advisable() bool {
	return thpMode() == "madvise" && !strictOvercommit() && !strings.Contains(os.Getenv("GODEBUG"), "disablethp=1")
}

// thpMode is the bracketed word of the system's transparent huge page
// setting, "" when it cannot be read.
func thpMode() string {
	b, err := os.ReadFile(enabledFile)
	if err != nil {
		return ""
	}
	return parseMode(string(b))
}

// parseMode returns the bracketed word of a transparent huge page setting
// ("always [madvise] never"), "" when there is none.
func parseMode(s string) string {
	i, j := strings.IndexByte(s, '['), strings.IndexByte(s, ']')
	if i < 0 || j < i {
		return ""
	}
	return s[i+1 : j]
}

// hugePageSize is the size of a transparent huge page (2 MiB where the
// system does not say).
func hugePageSize() int64 {
	if b, err := os.ReadFile(pageSizeFile); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 {
			return n
		}
	}
	return 2 << 20
}

// strictOvercommit reports whether the system accounts every private
// writable mapping against its commit limit (vm.overcommit_memory 2),
// where mapping a stretch never touched would still count.
func strictOvercommit() bool {
	b, err := os.ReadFile(overcommitFile)
	return err == nil && strings.TrimSpace(string(b)) == "2"
}

// virtioDevices is where Linux lists the virtio devices, each with its
// device id and its negotiated feature bits.
const virtioDevices = "/sys/bus/virtio/devices"

// ReportsFreePages reports whether this machine is a virtual machine whose
// memory balloon reports free pages to its host (a virtio balloon, device
// id 5, that negotiated VIRTIO_BALLOON_F_REPORTING, feature bit 5: Linux's
// free page reporting). The guest kernel then hands the host back its free
// memory in blocks of huge-page size or more, so a huge page is memory the
// host must supply again at its first touch, while small pages come mostly
// from memory the guest still holds. On the project's VMs that made runs
// with the heap on huge pages up to twice as slow whenever the host was
// slow to supply memory (docs/checker-rounds.md, twenty-sixth round), so
// rebalance check leaves the heap in small pages there unless told
// otherwise.
func ReportsFreePages() bool {
	dirs, err := os.ReadDir(virtioDevices)
	if err != nil {
		return false
	}
	for _, d := range dirs {
		dev, err1 := os.ReadFile(virtioDevices + "/" + d.Name() + "/device")
		feat, err2 := os.ReadFile(virtioDevices + "/" + d.Name() + "/features")
		if err1 == nil && err2 == nil && reportsFreePages(string(dev), string(feat)) {
			return true
		}
	}
	return false
}

// reportsFreePages reports whether a virtio device with this device id
// ("0x0005\n") and these feature bits (a string of '0' and '1', bit 0
// first, as sysfs writes them) is a balloon that reports free pages.
func reportsFreePages(device, features string) bool {
	const balloon, reporting = 5, 5
	id, err := strconv.ParseInt(strings.TrimSpace(device), 0, 64)
	return err == nil && id == balloon && len(features) > reporting && features[reporting] == '1'
}
