package hugeheap

import (
	"bufio"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

func TestParseMode(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"always [madvise] never\n", "madvise"},
		{"[always] madvise never\n", "always"},
		{"always madvise [never]\n", "never"},
		{"always defer defer+madvise [madvise] never\n", "madvise"},
		{"", ""},
		{"madvise] [", ""},
	} {
		if got := parseMode(c.in); got != c.want {
			t.Errorf("parseMode(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestReportsFreePages reads the virtio balloon's feature bits as sysfs
// writes them: bit 0 first, VIRTIO_BALLOON_F_REPORTING at bit 5, on the
// balloon (device 5) only. The first row is this project's VM's balloon.
func TestReportsFreePages(t *testing.T) {
	for _, c := range []struct {
		device, features string
		want             bool
	}{
		{"0x0005\n", "01100101000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\n", true},
		{"0x0005\n", "01100001000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\n", false},
		{"0x0002\n", "00100110011001000000000000000100100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\n", false}, // a block device with bit 5 set
		{"0x0005", "000001", true},
		{"0x0005", "00000", false},   // too few bits
		{"0x0005", "00000\n", false}, // too few bits, and the newline
		{"0x0005", "00000x", false},  // not a bit
		{"5", "000001", true},
		{"0x0001", "000001", false},
		{"", "000001", false},
		{"0x0005", "", false},
	} {
		if got := reportsFreePages(c.device, c.features); got != c.want {
			t.Errorf("reportsFreePages(%q, %q) = %t, want %t", c.device, c.features, got, c.want)
		}
	}
	t.Logf("this machine: ReportsFreePages() = %t", ReportsFreePages())
}

// TestAdviseMarksFreshHeap checks that the heap grows into the stretch
// Advise marks, and that the kernel has the stretch marked for huge pages
// (VmFlags "hg" in /proc/self/smaps). Under any setting but "madvise" it
// checks that Advise marks nothing.
func TestAdviseMarksFreshHeap(t *testing.T) {
	const n = 64 << 20
	r := Advise(n)
	t.Logf("THP setting %q: %+v", thpMode(), r)
	if !Advisable() {
		if r.Advised != 0 {
			t.Fatalf("Advise marked %d bytes under setting %q", r.Advised, r.Mode)
		}
		return
	}
	// The stretch is handed back released: the memory the runtime counts
	// as held from the system (what rebalance check limits) excludes it.
	m := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(m)
	if released := int64(m[0].Value.Uint64()); released < r.Advised {
		t.Errorf("the runtime counts %d bytes of heap released, less than the %d advised", released, r.Advised)
	}
	huge := hugePageSize()
	if r.Advised < n || r.Advised%huge != 0 || int64(r.Start)%huge != 0 {
		t.Fatalf("Advise(%d) = %+v: want at least %d bytes from a huge page boundary", n, r, n)
	}
	// Small objects, kept alive, until one lands in the stretch: the
	// runtime takes the lowest free addresses, and the stretch is the
	// free memory right above the heap so far.
	var keep [][]byte
	var in uintptr
	for i := 0; i < 1<<16 && in == 0; i++ {
		b := make([]byte, 1024)
		b[0] = 1
		keep = append(keep, b)
		if p := uintptr(unsafe.Pointer(&b[0])); p >= r.Start && p < r.Start+uintptr(r.Advised) {
			in = p
		}
	}
	if in == 0 {
		t.Fatalf("64 MiB of small objects and none in the advised stretch [%#x, %#x)", r.Start, r.Start+uintptr(r.Advised))
	}
	flags, err := vmFlags(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Fatalf("the mapping holding %#x has VmFlags %q, without hg (MADV_HUGEPAGE)", in, flags)
	}
	_ = keep
}

// vmFlags returns the VmFlags line of the mapping of /proc/self/smaps
// that holds address p.
func vmFlags(p uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inside := false
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := mappingRange(line); ok {
			inside = p >= lo && p < hi
			continue
		}
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok && inside {
			return strings.TrimSpace(rest), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", os.ErrNotExist
}

// mappingRange parses the address range of a mapping's header line
// ("c000000000-c004000000 rw-p ...").
func mappingRange(line string) (lo, hi uintptr, ok bool) {
	field, _, _ := strings.Cut(line, " ")
	a, b, found := strings.Cut(field, "-")
	if !found {
		return 0, 0, false
	}
	x, err1 := strconv.ParseUint(a, 16, 64)
	y, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return uintptr(x), uintptr(y), true
}
