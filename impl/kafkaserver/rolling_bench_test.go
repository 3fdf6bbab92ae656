package kafkaserver

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/rebalance-ref/rebalance/impl/kgotest"
	"github.com/rebalance-ref/rebalance/spec"
)

// BenchmarkRollingRestart times, end to end, a rolling restart of a group
// of real kgo consumers against one reference coordinator behind the
// Front: every member in turn leaves (committing in its revocation
// callback) and starts again, and the next one goes only once the group
// has converged again (the coordinator stable with every member, each
// partition owned exactly once and balanced). Forming the group and
// judging the history (porcupine and the laws, after the timed part) are
// not timed. Run it once per case:
//
//	go test ./impl/kafkaserver -run '^$' -bench RollingRestart -benchtime 1x -timeout 60m
//
// MEMBERS (default 100) sets the group size.
func BenchmarkRollingRestart(b *testing.B) {
	n := 100
	if v, err := strconv.Atoi(os.Getenv("MEMBERS")); err == nil && v > 0 {
		n = v
	}
	topics := spec.Topics{"orders": int32(2 * n), "payments": int32(n)}
	for _, c := range []struct {
		p      kgotest.Protocol
		static bool
	}{{kgotest.Eager, false}, {kgotest.Cooperative, false}, {kgotest.Cooperative, true}, {kgotest.NextGen, false}, {kgotest.NextGen, true}} {
		name := fmt.Sprintf("%s/members=%d", c.p, n)
		if c.static {
			name = fmt.Sprintf("%s-static/members=%d", c.p, n)
		}
		b.Run(name, func(b *testing.B) {
			var restarts int
			var elapsed time.Duration
			for range b.N {
				b.StopTimer()
				g := newClientGroup(b, viaFront, c.p, envConfig{}, topics)
				names := make([]string, n)
				for i := range n {
					names[i] = fmt.Sprintf("m%03d", i)
					instance := ""
					if c.static {
						instance = "i-" + names[i]
					}
					g.start(names[i], instance)
				}
				g.waitConverged("the group forms")
				b.StartTimer()
				start := time.Now()
				for _, m := range names {
					g.leave(m)
					g.start(m, g.static[m])
					g.waitConverged("restart of " + m)
					restarts++
				}
				elapsed += time.Since(start)
				b.StopTimer()
				g.judge()
				g.finish()
			}
			b.ReportMetric(elapsed.Seconds()/float64(b.N), "s/rolling-restart")
			b.ReportMetric(elapsed.Seconds()/float64(restarts)*1000, "ms/member")
		})
	}
}
