package ownership

import (
	"fmt"
	"strings"
	"testing"
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
