package main

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// syncBuffer is a bytes.Buffer safe for the serve goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServe starts `rebalance serve` as a user would (--listen with port
// 0, two topics), reads the address it prints, joins a kgo consumer of
// each family to it, and stops it as Ctrl-C does (the context ends):
// serve then reports that it stopped and returns.
func TestServe(t *testing.T) {
	ctx, stop := context.WithCancel(t.Context())
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, serveOptions{listen: "127.0.0.1:0", topics: "orders:4,payments:2", minSession: time.Second,
			consumerSession: 3 * time.Second, consumerHeartbeat: 200 * time.Millisecond}, &out, &errOut)
	}()
	addrRE := regexp.MustCompile(`listening on (\S+) \(topics orders:4 payments:2\)`)
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("serve printed no address: %q %q", out.String(), errOut.String())
	}
	for _, nextgen := range []bool{false, true} {
		assigned := make(chan map[string][]int32, 1)
		opts := []kgo.Opt{
			kgo.SeedBrokers(addr), kgo.ConsumerGroup("g" + map[bool]string{false: "classic", true: "nextgen"}[nextgen]),
			kgo.ConsumeTopics("orders", "payments"), kgo.SessionTimeout(3 * time.Second), kgo.HeartbeatInterval(200 * time.Millisecond),
			kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
				select {
				case assigned <- m:
				default:
				}
			}),
		}
		if nextgen {
			opts = append(opts, kgo.ServerSideBalancer())
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for !cl.PollFetches(context.Background()).IsClientClosed() {
			}
		}()
		select {
		case m := <-assigned:
			if len(m["orders"]) != 4 || len(m["payments"]) != 2 {
				t.Errorf("nextgen=%t: the only member was assigned %v, want every partition", nextgen, m)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("nextgen=%t: no assignment in 30 s", nextgen)
		}
		cl.Close()
	}
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !regexp.MustCompile(`rebalance serve: stopped`).MatchString(out.String()) {
		t.Fatalf("serve did not say it stopped: %q", out.String())
	}
}

// TestServeUsageErrors: nonsense flags are usage errors, before anything
// starts.
func TestServeUsageErrors(t *testing.T) {
	for _, o := range []serveOptions{
		{listen: "127.0.0.1:0", topics: "orders"},
		{listen: "127.0.0.1:0", topics: "orders:0"},
		{listen: "127.0.0.1:0", topics: "orders:2,orders:3"},
		{listen: "127.0.0.1:0", topics: ":3"},
		{listen: "127.0.0.1:0", faults: []string{"no-such-fault"}},
		{listen: "not an address"},
		{listen: "127.0.0.1:0", minSession: time.Second, consumerSession: time.Second, consumerHeartbeat: 2 * time.Second},
	} {
		var out bytes.Buffer
		err := runServe(t.Context(), o, &out, &out)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%+v: got %v, want a usage error", o, err)
		}
	}
}
