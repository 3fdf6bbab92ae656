package kafkaserver

import (
	"testing"
	"time"

	"github.com/rebalance-ref/rebalance/impl/kgotest"
	"github.com/rebalance-ref/rebalance/spec"
)

func TestSmoke(t *testing.T) {
	for _, how := range []endpoint{viaFront, viaInstall} {
		for _, p := range []kgotest.Protocol{kgotest.Eager, kgotest.Cooperative, kgotest.NextGen} {
			t.Run(how.String()+"/"+p.String(), func(t *testing.T) {
				rec := kgotest.NewRecorder("g", spec.Topics{"t": 6}).ObservesCoordinator()
				e := newEnvTopics(t, how, envConfig{observer: rec}, spec.Topics{"t": 6})
				e.produce(t, "t", 60)
				var ms []*kgotest.Member
				for _, name := range []string{"a", "b", "c"} {
					m, err := kgotest.Start(rec, kgotest.MemberConfig{Name: name, Seeds: e.seeds, Group: "g", Topics: []string{"t"}, Protocol: p, SessionTimeout: 3 * time.Second, HeartbeatInterval: 200 * time.Millisecond})
					if err != nil {
						t.Fatal(err)
					}
					ms = append(ms, m)
				}
				// Shared: in one snapshot of who owns what, every partition
				// owned once and every member owning some. Covered alone
				// holds as soon as the first member owns all six, and
				// asking it again after the wait could catch that member
				// revoking for the next (a flake seen under load).
				shared := func(owned map[string]spec.Set) bool {
					seen := map[spec.Resource]bool{}
					for _, set := range owned {
						if len(set) == 0 {
							return false
						}
						for _, r := range set {
							if seen[r] {
								return false
							}
							seen[r] = true
						}
					}
					return len(owned) == len(ms) && len(seen) == 6
				}
				deadline := time.Now().Add(30 * time.Second)
				owned := rec.Owned()
				for !shared(owned) && time.Now().Before(deadline) {
					time.Sleep(50 * time.Millisecond)
					owned = rec.Owned()
				}
				t.Logf("owned: %v", owned)
				if !shared(owned) {
					t.Fatalf("not shared by all three: %v\n%v", owned, rec.History().Observations)
				}
				for _, m := range ms {
					m.Leave()
				}
			})
		}
	}
}
