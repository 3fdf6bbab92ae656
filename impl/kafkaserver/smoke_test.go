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
				deadline := time.Now().Add(30 * time.Second)
				for !rec.Covered() && time.Now().Before(deadline) {
					time.Sleep(50 * time.Millisecond)
				}
				t.Logf("owned: %v", rec.Owned())
				if !rec.Covered() {
					t.Fatalf("not covered: %v\n%v", rec.Owned(), rec.History().Observations)
				}
				for _, m := range ms {
					m.Leave()
				}
			})
		}
	}
}
