//go:build !linux

package hugeheap

// advise does nothing where there is no transparent huge page setting
// (see the Linux version): it returns a Result with Mode "".
func advise(n int64) Result { return Result{} }

// Advisable is false where there is no transparent huge page setting.
func Advisable() bool { return false }

// ReportsFreePages is false where there is no transparent huge page
// setting to make it matter.
func ReportsFreePages() bool { return false }
