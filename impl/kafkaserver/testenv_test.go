package kafkaserver

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rebalance-ref/rebalance/impl"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

const nextgenAssignBeforeRelease = nextgen.AssignBeforeRelease

// env is a kfake cluster with the reference coordinators in front of it,
// on loopback, for one test.
type env struct {
	cluster *kfake.Cluster
	server  *Server
	seeds   []string
}

// endpoint says how the coordinators are put in front of kfake.
type endpoint int

const (
	viaFront   endpoint = iota // a listener of our own (rebalance serve)
	viaInstall                 // kfake's control hooks
)

func (e endpoint) String() string {
	if e == viaInstall {
		return "install"
	}
	return "front"
}

// envConfig tunes the coordinators for tests: short classic sessions are
// allowed and the next-gen coordinator heartbeats every 200 ms.
type envConfig struct {
	observer impl.Observer
	nextgen  nextgen.CoordinatorConfig
}

// newEnvTopics starts kfake with topics (name: partitions) and the
// coordinators in front of it, the Front or Install way.
func newEnvTopics(t testing.TB, how endpoint, cfg envConfig, topics spec.Topics) *env {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	for _, name := range topics.Names() {
		if err := c.CreateTopic(name, topics[name], nil); err != nil {
			t.Fatal(err)
		}
	}
	ng := cfg.nextgen
	if ng.SessionTimeout == 0 {
		ng.SessionTimeout = 3000
	}
	if ng.HeartbeatInterval == 0 {
		ng.HeartbeatInterval = 200
	}
	s, err := NewServer(Config{
		Classic:  classic.CoordinatorConfig{MinSessionTimeout: 1000},
		NextGen:  ng,
		Topics:   KfakeTopics(c),
		Observer: cfg.observer,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	e := &env{cluster: c, server: s}
	switch how {
	case viaInstall:
		Install(c, s, 0)
		e.seeds = c.ListenAddrs()
	default:
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		f, err := NewFront(s, c.ListenAddrs(), []net.Listener{ln})
		if err != nil {
			t.Fatal(err)
		}
		go f.Serve()
		t.Cleanup(f.Close)
		e.seeds = []string{ln.Addr().String()}
	}
	return e
}

// produce writes n records to each partition of topic through kfake.
func (e *env) produce(t testing.TB, topic string, n int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.seeds...), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range n {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte{byte(i)}}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
}
