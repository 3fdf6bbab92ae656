package fuzz

import (
	"errors"
	"fmt"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/assign"
)

// Find runs the cases Assignor runs and returns the shortest failure rapid
// finds, or nil when every case passes: Assignor without a test to fail,
// for tools and for tests that expect an assignor to break a guarantee.
// The number of cases is rapid's (-rapid.checks). As in any rapid run, the
// failing input is also saved under testdata/rapid/fuzz.Find_<assignor
// name>/ in the working directory unless -rapid.nofailfile is set, and a
// saved input there is tried first next time. It returns an error for
// options that make no sense.
func Find(a assign.Assignor, o Options) (*Failure, error) {
	var last *Failure
	prop, err := property(a, o, func(f *Failure) { last = f })
	if err != nil {
		return nil, err
	}
	tb := quietCheck("fuzz.Find_"+fileSafe(a.Name()), prop)
	if !tb.failed {
		return nil, nil
	}
	if last == nil {
		return nil, fmt.Errorf("fuzz: the run failed outside the harness's checks: %s", tb.message)
	}
	return last, nil
}

var errStop = errors.New("fuzz: stop")

// quietCheck runs prop with rapid.Check on a quietTB called name, which
// records a failure (after rapid's shrinking) instead of failing a test,
// and returns it.
func quietCheck(name string, prop func(*rapid.T)) (tb *quietTB) {
	tb = &quietTB{name: name}
	defer func() {
		if p := recover(); p != nil && p != errStop {
			panic(p)
		}
	}()
	rapid.Check(tb, prop)
	return tb
}

// quietTB is the rapid.TB Find gives rapid: it records the failure instead
// of failing a test.
type quietTB struct {
	name    string
	failed  bool
	message string
}

func (*quietTB) Helper()                     {}
func (*quietTB) Name() string                { return "fuzz.Find" }
func (*quietTB) Logf(string, ...any)         {}
func (*quietTB) Log(...any)                  {}
func (*quietTB) Skipf(string, ...any)        { panic(errStop) }
func (*quietTB) Skip(...any)                 { panic(errStop) }
func (*quietTB) SkipNow()                    { panic(errStop) }
func (q *quietTB) Errorf(f string, a ...any) { q.failed, q.message = true, fmt.Sprintf(f, a...) }
func (q *quietTB) Error(a ...any)            { q.failed, q.message = true, fmt.Sprint(a...) }
func (q *quietTB) Fatalf(f string, a ...any) {
	q.Errorf(f, a...)
	panic(errStop)
}
func (q *quietTB) Fatal(a ...any) {
	q.Error(a...)
	panic(errStop)
}
func (q *quietTB) FailNow()     { q.failed = true; panic(errStop) }
func (q *quietTB) Fail()        { q.failed = true }
func (q *quietTB) Failed() bool { return q.failed }

// fileSafe keeps letters, digits, '-' and '.' of name and turns anything
// else into '_', so that rapid can name its fail file after it.
func fileSafe(name string) string {
	out := []byte(name)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			out[i] = '_'
		}
	}
	return string(out)
}
