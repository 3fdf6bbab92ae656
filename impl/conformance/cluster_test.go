package conformance

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Timeouts long enough that nothing expires during a sequence: every
// sequence runs in well under a second.
const (
	sessionTimeoutMs   = 30000
	rebalanceTimeoutMs = 30000
	// settle is how long a request our coordinator parked is given to be
	// answered by kfake anyway (after kfake has handled it and a later
	// request): kfake answers on the same loop turn, so only goroutine
	// scheduling and loopback I/O stand between the two.
	settle = 5 * time.Millisecond
	// answerWait bounds the wait for an answer our coordinator gave (and
	// kfake gave before the DescribeGroups that follows, if it did).
	answerWait = 250 * time.Millisecond
	// requestWait bounds a request the harness needs answered.
	requestWait = 5 * time.Second
)

// harnessT is what a run needs of its test: a *testing.T for the
// hand-written sequences, a *rapid.T for generated ones.
type harnessT interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Fatal(args ...any)
	Cleanup(func())
}

// topics of every cluster: name → partitions.
var clusterTopics = map[string]int32{"orders": 6, "payments": 3}

// fake is a kfake cluster with kfake's own group coordinator (no control
// hook replaces it) and an observer that counts the group requests that
// reached kfake's loop, so that the harness knows a request was handled
// before it sends the next one.
type fake struct {
	c    *kfake.Cluster
	addr string

	mu   sync.Mutex
	seen int
	// sent counts the observed requests the harness sent (one test at a
	// time uses a cluster).
	sent int
	cond *sync.Cond
}

// observed are the keys the harness sends and waits to be seen.
var observed = []kmsg.Key{kmsg.JoinGroup, kmsg.SyncGroup, kmsg.Heartbeat, kmsg.LeaveGroup, kmsg.DescribeGroups, kmsg.ConsumerGroupHeartbeat, kmsg.ConsumerGroupDescribe}

func newFake(t testing.TB) *fake {
	t.Helper()
	c, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.BrokerConfigs(map[string]string{
			"group.consumer.session.timeout.ms":    "30000",
			"group.consumer.heartbeat.interval.ms": "5000",
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	for name, n := range clusterTopics {
		if err := c.CreateTopic(name, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	f := &fake{c: c, addr: c.ListenAddrs()[0]}
	f.cond = sync.NewCond(&f.mu)
	for _, k := range observed {
		c.ControlKey(int16(k), func(kmsg.Request) (kmsg.Response, error, bool) {
			f.mu.Lock()
			f.seen++
			f.cond.Broadcast()
			f.mu.Unlock()
			return nil, nil, false // observe only: kfake handles it
		})
	}
	return f
}

// waitSeen waits until n observed requests reached kfake's loop. The
// request counted n-th is handled when the next one is.
func (f *fake) waitSeen(ctx context.Context, n int) bool {
	stop := context.AfterFunc(ctx, func() {
		f.mu.Lock()
		f.cond.Broadcast()
		f.mu.Unlock()
	})
	defer stop()
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.seen < n {
		if ctx.Err() != nil {
			return false
		}
		f.cond.Wait()
	}
	return true
}
