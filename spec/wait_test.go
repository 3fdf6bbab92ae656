package spec

import "testing"

// TestCheckNoNeedlessWait: a partition may be withheld from a member only
// while another member holds it.
func TestCheckNoNeedlessWait(t *testing.T) {
	for _, tc := range []struct {
		name   string
		heldBy map[Resource][]MemberID
		want   string
	}{
		{"held by another member", map[Resource][]MemberID{TP("t", 0): {"B-1"}, TP("t", 1): {"A-1", "C-1"}}, ""},
		{"held by the member itself only (KAFKA-19449)", map[Resource][]MemberID{TP("t", 0): {"B-1"}, TP("t", 1): {"A-1"}},
			"NoNeedlessWait: t-1 [A-1]: withheld from A-1's target although only A-1 itself holds it"},
		{"held by nobody", map[Resource][]MemberID{TP("t", 1): {"B-1"}},
			"NoNeedlessWait: t-0 [A-1]: withheld from A-1's target although nobody holds it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := Withholding{Member: "A-1", Withheld: Range("t", 0, 1), HeldBy: tc.heldBy}
			if got := violations(CheckNoNeedlessWait(w)); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
