package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/rebalance-ref/rebalance/impl/kafkaserver"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

type serveOptions struct {
	listen            string
	topics            string
	minSession        time.Duration
	consumerSession   time.Duration
	consumerHeartbeat time.Duration
	faults            []string
	verbose           bool
}

func newServeCmd() *cobra.Command {
	var o serveOptions
	c := &cobra.Command{
		Use:   "serve",
		Short: "Run a Kafka endpoint whose group coordinator is the reference (classic and KIP-848); any Kafka client can join its groups",
		Long: `serve starts an in-memory Kafka cluster (franz-go's kfake) with the given
topics and puts a listener in front of it: the group APIs (JoinGroup,
SyncGroup, Heartbeat, LeaveGroup, ConsumerGroupHeartbeat, OffsetCommit,
OffsetFetch, DescribeGroups, ConsumerGroupDescribe, ListGroups,
DeleteGroups) are answered by the reference coordinators of this module,
everything else (metadata, produce, fetch, topics) by kfake. Point any
Kafka client at the printed address; Ctrl-C stops it.`,
		Example: `  rebalance serve --listen 127.0.0.1:9092 --topics orders:12,payments:6`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runServe(ctx, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := c.Flags()
	f.StringVar(&o.listen, "listen", "127.0.0.1:9092", "address to listen on (host:port; port 0 picks a free one)")
	f.StringVar(&o.topics, "topics", "", "topics to create, as name:partitions,name:partitions")
	f.DurationVar(&o.minSession, "min-session-timeout", 6*time.Second, "classic groups: group.min.session.timeout.ms")
	f.DurationVar(&o.consumerSession, "consumer-session-timeout", 45*time.Second, "consumer (KIP-848) groups: group.consumer.session.timeout.ms")
	f.DurationVar(&o.consumerHeartbeat, "consumer-heartbeat-interval", 5*time.Second, "consumer (KIP-848) groups: group.consumer.heartbeat.interval.ms")
	f.StringSliceVar(&o.faults, "fault", nil, "turn a coordinator fault switch on (repeatable; see rebalance check --list-faults)")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "log every membership change and every closed connection")
	return c
}

// parseTopics reads "name:partitions,name:partitions".
func parseTopics(s string) (spec.Topics, error) {
	out := spec.Topics{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, n, ok := strings.Cut(strings.TrimSpace(part), ":")
		count, err := strconv.ParseInt(n, 10, 32)
		if !ok || name == "" || err != nil || count <= 0 {
			return nil, fmt.Errorf("--topics %q: want name:partitions with partitions > 0", part)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("--topics: %q given twice", name)
		}
		out[name] = int32(count)
	}
	return out, nil
}

// logObserver prints membership changes.
type logObserver struct{ w io.Writer }

func (l logObserver) Membership(group string, member spec.MemberID, joined bool, at time.Time) {
	verb := "left"
	if joined {
		verb = "joined"
	}
	fmt.Fprintf(l.w, "%s group %s: member %s %s\n", at.Format("15:04:05.000"), group, member, verb)
}

// runServe serves until ctx ends, then stops everything it started.
func runServe(ctx context.Context, o serveOptions, stdout, stderr io.Writer) error {
	topics, err := parseTopics(o.topics)
	if err != nil {
		return usageError{err}
	}
	cfaults, nfaults, err := parseFaults(o.faults)
	if err != nil {
		return err
	}
	if d := deliveryFaults(o.faults); d != 0 {
		return usageError{fmt.Errorf("--fault %s: a delivery fault is the model's applications', not the server's", d)}
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return usageError{fmt.Errorf("--listen: %v", err)}
	}
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(0))
	if err != nil {
		ln.Close()
		return err
	}
	defer cluster.Close()
	for _, name := range topics.Names() {
		if err := cluster.CreateTopic(name, topics[name], nil); err != nil {
			ln.Close()
			return fmt.Errorf("creating topic %s: %v", name, err)
		}
	}
	cfg := kafkaserver.Config{
		Classic: classic.CoordinatorConfig{MinSessionTimeout: classic.Millis(o.minSession.Milliseconds()), Faults: cfaults},
		NextGen: nextgen.CoordinatorConfig{
			SessionTimeout:    coordinatorMillis(o.consumerSession),
			HeartbeatInterval: coordinatorMillis(o.consumerHeartbeat),
			Faults:            nfaults,
		},
		Topics: kafkaserver.KfakeTopics(cluster),
	}
	if o.verbose {
		cfg.Observer = logObserver{stderr}
	}
	server, err := kafkaserver.NewServer(cfg)
	if err != nil {
		ln.Close()
		return usageError{err}
	}
	defer server.Close()
	front, err := kafkaserver.NewFront(server, cluster.ListenAddrs(), []net.Listener{ln})
	if err != nil {
		ln.Close()
		return err
	}
	if o.verbose {
		front.Logf = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	}
	served := make(chan struct{})
	go func() {
		front.Serve()
		close(served)
	}()
	var names []string
	for _, n := range topics.Names() {
		names = append(names, fmt.Sprintf("%s:%d", n, topics[n]))
	}
	fmt.Fprintf(stdout, "rebalance serve: listening on %s (topics %s); group APIs answered by the reference coordinators, the rest by kfake; Ctrl-C stops\n",
		ln.Addr(), strings.Join(names, " "))
	<-ctx.Done()
	front.Close()
	<-served
	fmt.Fprintln(stdout, "rebalance serve: stopped")
	return nil
}

func coordinatorMillis(d time.Duration) nextgen.Millis { return nextgen.Millis(d.Milliseconds()) }
