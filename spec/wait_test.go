package spec

import (
	"testing"
	"time"
)

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

// TestCheckHeldBack: a round may hold work back for a scheduled delay only
// when a member has departed.
func TestCheckHeldBack(t *testing.T) {
	held := Round{Assigned: Assignment{"A-1": Range("t", 0, 0)}, Held: Range("t", 1, 2)}
	for _, tc := range []struct {
		name     string
		r        Round
		departed bool
		want     string
	}{
		{"held while a member is away", held, true, ""},
		{"held with nobody away (KAFKA-9848)", held, false,
			"Timely: the round holds {t-1 t-2} back for a scheduled delay although no member has departed"},
		{"nothing held, nobody away", Round{Assigned: held.Assigned}, false, ""},
		{"nothing held, a member away", Round{Assigned: held.Assigned}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := violations(CheckHeldBack(tc.r, tc.departed)); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestCheckTimeBound: the group must stop changing within the bound, and
// the violation says by how much and what the bound was made of.
func TestCheckTimeBound(t *testing.T) {
	b := TimeBound{Rounds: 2, Round: 3 * time.Second, Delays: 20 * time.Second}
	for _, tc := range []struct {
		elapsed time.Duration
		b       TimeBound
		want    string
	}{
		{0, TimeBound{}, ""},
		{26 * time.Second, b, ""},
		{26*time.Second + time.Millisecond, b,
			"Timely: the group last changed 26.001s after the environment fell quiet, beyond its bound of 2 rounds of 3s + 20s of delays = 26s"},
		{7 * time.Second, TimeBound{Rounds: 2, Round: 3 * time.Second},
			"Timely: the group last changed 7s after the environment fell quiet, beyond its bound of 2 rounds of 3s = 6s"},
		{4 * time.Second, TimeBound{Rounds: 1, Round: 3 * time.Second},
			"Timely: the group last changed 4s after the environment fell quiet, beyond its bound of 1 round of 3s = 3s"},
	} {
		if got := violations(CheckTimeBound(tc.elapsed, tc.b)); got != tc.want {
			t.Errorf("CheckTimeBound(%s, %s):\ngot:  %s\nwant: %s", tc.elapsed, tc.b, got, tc.want)
		}
	}
}
