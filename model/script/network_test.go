package script

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// fakeNet records the calls the network verbs make.
type fakeNet struct {
	inFlight int
	calls    []string
}

func (f *fakeNet) InFlightCount() int { return f.inFlight }
func (f *fakeNet) Deliver(i int) error {
	f.calls = append(f.calls, fmt.Sprint("deliver ", i))
	return nil
}
func (f *fakeNet) Drop(i int) error {
	f.calls = append(f.calls, fmt.Sprint("drop ", i))
	f.inFlight--
	return nil
}
func (f *fakeNet) Duplicate(i int) error {
	f.calls = append(f.calls, fmt.Sprint("dup ", i))
	return nil
}
func (f *fakeNet) FireTimer(i int) error {
	f.calls = append(f.calls, fmt.Sprint("fire ", i))
	return nil
}

func TestNetworkVerb(t *testing.T) {
	for _, tt := range []struct {
		cmd, want, err string
		args           []Arg
	}{
		{cmd: "deliver", want: "deliver 0"},
		{cmd: "deliver", args: []Arg{{Key: "2"}}, want: "deliver 2"},
		{cmd: "drop", args: []Arg{{Key: "all"}}, want: "drop 0,drop 0,drop 0"},
		{cmd: "dup", args: []Arg{{Key: "1"}}, want: "dup 1"},
		{cmd: "fire", want: "fire 0"},
		{cmd: "deliver", args: []Arg{{Key: "x"}}, err: `deliver: "x" is not a number`},
		{cmd: "teleport", err: `"teleport" is not a network verb`},
	} {
		n := &fakeNet{inFlight: 3}
		err := NetworkVerb(n, tt.cmd, tt.args)
		if got := strings.Join(n.calls, ","); got != tt.want {
			t.Errorf("%s %v: calls %q, want %q", tt.cmd, tt.args, got, tt.want)
		}
		if (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
			t.Errorf("%s %v: error %v, want %q", tt.cmd, tt.args, err, tt.err)
		}
	}
}

func TestPrinters(t *testing.T) {
	if got := Numbered([]spec.Resource{spec.TP("t", 0), spec.TP("t", 1)}); got != "0: t-0\n1: t-1\n" {
		t.Errorf("Numbered: %q", got)
	}
	if got := Violations(nil); got != "no violations\n" {
		t.Errorf("Violations(nil): %q", got)
	}
	v := spec.Violation{Law: spec.Coverage, Resource: spec.TP("t", 0), Detail: "owned by 0 current members, want 1"}
	if got := Violations([]spec.Violation{v}); got != "Coverage: t-0: owned by 0 current members, want 1\n" {
		t.Errorf("Violations: %q", got)
	}
}
