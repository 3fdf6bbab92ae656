package world

import "testing"

// TestNumbered: Numbered reads a member id (name-n) or an address
// (name@i) of a known process by its last separator and a number that is
// all digits, and nothing else: not another process's, not a sign, not a
// trailing letter, not a bare name.
func TestNumbered(t *testing.T) {
	processes := map[string]bool{"A": true, "x-y": true}
	for _, c := range []struct {
		id   string
		sep  byte
		name string
		n    int64
		ok   bool
	}{
		{"A-3", '-', "A", 3, true},
		{"A@2", '@', "A", 2, true},
		{"x-y-12", '-', "x-y", 12, true},
		{"x-y@4", '@', "x-y", 4, true},
		{"A-0", '-', "A", 0, true},
		{"A@2", '-', "", 0, false},
		{"B-3", '-', "", 0, false},
		{"A-+3", '-', "", 0, false},
		{"A--3", '-', "", 0, false},
		{"A-3x", '-', "", 0, false},
		{"A-", '-', "", 0, false},
		{"-3", '-', "", 0, false},
		{"A", '-', "", 0, false},
		{"coordinator", '@', "", 0, false},
	} {
		name, n, ok := Numbered(c.id, c.sep, processes)
		if name != c.name || n != c.n || ok != c.ok {
			t.Errorf("Numbered(%q, %q) = %q, %d, %t; want %q, %d, %t", c.id, c.sep, name, n, ok, c.name, c.n, c.ok)
		}
	}
}
