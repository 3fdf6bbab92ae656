package classic

import (
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
	"pgregory.net/rapid"
)

// TestCoordTimersActLikeAMap: random arms and disarms of a coordTimers
// leave it holding what a map would, each timer once, sorted by kind
// then member.
func TestCoordTimersActLikeAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var ts coordTimers
		want := map[Timer]Millis{}
		timer := rapid.Custom(func(t *rapid.T) Timer {
			if rapid.Bool().Draw(t, "join") {
				return coordJoinTimer
			}
			// Short ids, and long ones that share their first eight
			// bytes (memberPrefix), a NUL after an id and a byte above
			// 0x7f.
			return coordSessionTimer(spec.MemberID(rapid.SampledFrom([]string{
				"A-1", "B-2", "C-3", "A-10", "B", "B\x00", "\xffz",
				"member-0001-1", "member-0001-10", "member-0001-2", "member-0002-1", "member-0",
			}).Draw(t, "member")))
		})
		for range rapid.IntRange(0, 40).Draw(t, "ops") {
			tm := timer.Draw(t, "timer")
			if rapid.Bool().Draw(t, "arm") {
				at := Millis(rapid.IntRange(0, 5).Draw(t, "at"))
				ts.set(tm, at)
				want[tm] = at
			} else {
				ts.remove(tm)
				delete(want, tm)
			}
			if len(ts) != len(want) {
				t.Fatalf("%d timers armed, want %d", len(ts), len(want))
			}
			for i, a := range ts {
				if i > 0 && compareTimers(ts[i-1].timer, a.timer) >= 0 {
					t.Fatalf("timers %s and %s out of order", ts[i-1].timer, a.timer)
				}
				if at, ok := want[a.timer]; !ok || at != a.at {
					t.Fatalf("%s armed at %d; the map has %d, %t", a.timer, a.at, at, ok)
				}
			}
			for tm, at := range want {
				if got, ok := ts.get(tm); !ok || got != at {
					t.Fatalf("get(%s) = %d, %t; want %d", tm, got, ok, at)
				}
			}
		}
	})
}
