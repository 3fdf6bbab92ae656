package ownership

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestViews pins the derivation rules on one history: ownership from
// Assigned.Call to Revoked.Return, a Removed fencing a zombie, a crash
// leaving the process down with no id (also in its next incarnation, until
// a callback names a member), a rejoin under the same id starting
// without a generation, and the observations that made each instant.
func TestViews(t *testing.T) {
	h := mustHistory(t, `
		topics t=2
		subs A=t B=t
		[0] joined member=A-1
		[0] joined member=B-1
		[1..3] A assigned {t-0 t-1} member=A-1 gen=1
		[5..9] A revoked {t-1} member=A-1 gen=2
		[9..10] B assigned {t-1} member=B-1 gen=2
		[12] removed member=A-1
		[14..15] A lost {t-0} member=A-1 gen=2
		[16] joined member=A-1
		[17] B crashed
		[18..19] A assigned {t-0 t-1} member=A-1 gen=4
		[20] B assigned`)
	var b strings.Builder
	for _, tv := range Views(h) {
		var obs []string
		for _, o := range tv.Observations {
			obs = append(obs, o.String())
		}
		fmt.Fprintf(&b, "at %d (%s)\n%s", tv.At, strings.Join(obs, "; "), tv.View)
	}
	want := `at 0 ([0] joined member=A-1; [0] joined member=B-1)
A id=- gen=-1 fenced owns={} subs=[t]
B id=- gen=-1 fenced owns={} subs=[t]
at 1 ([1..3] A assigned {t-0 t-1} member=A-1 gen=1)
A id=A-1 gen=1 current owns={t-0 t-1} subs=[t]
B id=- gen=-1 fenced owns={} subs=[t]
at 5 ([5..9] A revoked {t-1} member=A-1 gen=2)
A id=A-1 gen=2 current owns={t-0 t-1} subs=[t]
B id=- gen=-1 fenced owns={} subs=[t]
at 9 ([5..9] A revoked {t-1} member=A-1 gen=2; [9..10] B assigned {t-1} member=B-1 gen=2)
A id=A-1 gen=2 current owns={t-0} subs=[t]
B id=B-1 gen=2 current owns={t-1} subs=[t]
at 12 ([12] removed member=A-1)
A id=A-1 gen=2 fenced owns={t-0} subs=[t]
B id=B-1 gen=2 current owns={t-1} subs=[t]
at 14 ([14..15] A lost {t-0} member=A-1 gen=2)
A id=A-1 gen=2 fenced owns={t-0} subs=[t]
B id=B-1 gen=2 current owns={t-1} subs=[t]
at 15 ([14..15] A lost {t-0} member=A-1 gen=2)
A id=A-1 gen=2 fenced owns={} subs=[t]
B id=B-1 gen=2 current owns={t-1} subs=[t]
at 16 ([16] joined member=A-1)
A id=A-1 gen=-1 current owns={} subs=[t]
B id=B-1 gen=2 current owns={t-1} subs=[t]
at 17 ([17] B crashed)
A id=A-1 gen=-1 current owns={} subs=[t]
B id=- gen=-1 fenced owns={} subs=[t]
at 18 ([18..19] A assigned {t-0 t-1} member=A-1 gen=4)
A id=A-1 gen=4 current owns={t-0 t-1} subs=[t]
B id=- gen=-1 fenced owns={} subs=[t]
at 20 ([20] B assigned)
A id=A-1 gen=4 current owns={t-0 t-1} subs=[t]
B id=- gen=-1 fenced owns={} subs=[t]
`
	if got := b.String(); got != want {
		t.Errorf("views:\n%s\nwant:\n%s", got, want)
	}
}

// TestJudgeStanding: a violation that ends and begins again because a
// member's standing changed (the coordinator removes it and counts it
// again) with nothing it owns changing is reported each time it begins;
// JudgeSeq counts the views it judged.
func TestJudgeStanding(t *testing.T) {
	h := mustHistory(t, `
		topics t=1
		subs A=t B=t
		[0] joined member=A-1
		[0] joined member=B-1
		[1..2] A assigned {t-0} member=A-1 gen=1
		[2..3] B assigned {t-0} member=B-1 gen=1
		[5] removed member=A-1
		[7] joined member=A-1
		[9] quiet`)
	var got []string
	n, vs := JudgeSeq(h, func(spec.View) []spec.Violation { return nil }, nil)
	for _, v := range vs {
		got = append(got, v.String())
	}
	want := []string{
		"at 2: ExclusiveOwnership: t-0 [A B]: owned by more than one member that is not fenced",
		"at 7: ExclusiveOwnership: t-0 [A B]: owned by more than one member that is not fenced",
		"at 9: Coverage: t-0 [A B]: owned by 2 current members, want 1",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if views := Views(h); n != len(views) || n != 5 {
		t.Fatalf("JudgeSeq judged %d views, Views has %d, want 5", n, len(views))
	}
}
