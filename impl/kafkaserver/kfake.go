package kafkaserver

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Install puts s in charge of a kfake cluster's group APIs through kfake's
// control hooks (Cluster.ControlKey): every request of a key s handles is
// answered by s, and kfake keeps topics, produce, fetch and metadata. A
// parked JoinGroup or SyncGroup puts its control function to sleep
// (Cluster.SleepControl), which lets kfake serve other connections until
// the coordinator answers; requests on the same connection wait behind it,
// as on a Kafka broker. CreateTopics, DeleteTopics and CreatePartitions
// are watched (and left to kfake) so that consumer groups see new
// partition counts.
//
// What a control function is not told: the request header's client id
// and the client's address, so classic member ids are generated without a
// client id and DescribeGroups shows neither. And kfake's own listener
// panics on a frame with an unknown API key before any control runs; for
// clients you do not trust, use a Front instead (rebalance serve does).
//
// wait bounds how long a request may stay parked before its connection is
// closed (0: one minute); Kafka's clients retry a JoinGroup whose
// connection closed.
func Install(c *kfake.Cluster, s *Server, wait time.Duration) {
	if wait <= 0 {
		wait = time.Minute
	}
	for _, key := range HandledKeys() {
		c.ControlKey(key, func(req kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			r, err := s.Serve(ctx, Client{}, req)
			if err != nil {
				return nil, err, true
			}
			if !r.Ready() {
				done := make(chan struct{})
				var (
					resp kmsg.Response
					werr error
				)
				go func() {
					resp, werr = r.Wait(ctx)
					close(done)
				}()
				c.SleepControl(func() { <-done })
				select {
				case <-done:
					return resp, werr, true
				default: // the cluster is closing
					return nil, errClosed, true
				}
			}
			resp, err := r.Wait(ctx)
			return resp, err, true
		})
	}
	for _, key := range []kmsg.Key{kmsg.CreateTopics, kmsg.DeleteTopics, kmsg.CreatePartitions} {
		c.ControlKey(int16(key), func(kmsg.Request) (kmsg.Response, error, bool) {
			s.TopicsChanged()
			return nil, nil, false
		})
	}
}
