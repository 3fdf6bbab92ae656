package nodetest

import (
	"errors"
	"strings"
	"testing"
)

// TestTrim: lines trimmed, empty ones dropped, detail lines indented.
func TestTrim(t *testing.T) {
	in := "\n   group g\n\n\t  member A\n   assignment=x  \n"
	if got := Trim(in, nil); got != "group g\nmember A\nassignment=x" {
		t.Errorf("Trim(nil) = %q", got)
	}
	detail := func(l string) bool { return strings.HasPrefix(l, "assignment=") }
	if got := Trim(in, detail); got != "group g\nmember A\n  assignment=x" {
		t.Errorf("Trim(detail) = %q", got)
	}
}

// TestMust: the value without an error, a panic with one.
func TestMust(t *testing.T) {
	if Must(3, nil) != 3 {
		t.Error("Must(3, nil)")
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("Must with an error did not panic")
		}
	}()
	Must(0, errors.New("bad"))
}

// TestSet: a set parsed from its text.
func TestSet(t *testing.T) {
	if got := Set(t, "{T-1 T-0}").String(); got != "{T-0 T-1}" {
		t.Errorf("Set = %s", got)
	}
}
