package main

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/rebalance-ref/rebalance/checker/ownership"
	"github.com/rebalance-ref/rebalance/impl/kgotest"
	"github.com/rebalance-ref/rebalance/spec"
)

// covered reports whether every partition is owned once and each of the
// n members owns some (the group's balanced end for these topics).
func covered(rec *kgotest.Recorder, n int) bool {
	owned := rec.Owned()
	if !rec.Covered() || len(owned) != n {
		return false
	}
	for _, s := range owned {
		if s.IsEmpty() {
			return false
		}
	}
	return true
}

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
// each family to it (two members each, their history judged), and stops it as Ctrl-C does (the context ends):
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
	topics := spec.Topics{"orders": 4, "payments": 2}
	for _, p := range []kgotest.Protocol{kgotest.Cooperative, kgotest.NextGen} {
		// A history from the clients' callbacks alone: serve's coordinator
		// is not observed, so every live member counts as current.
		rec := kgotest.NewRecorder("g-"+p.String(), topics)
		var ms []*kgotest.Member
		for _, name := range []string{"a", "b"} {
			m, err := kgotest.Start(rec, kgotest.MemberConfig{Name: name, Seeds: []string{addr}, Group: "g-" + p.String(),
				Topics: topics.Names(), Protocol: p, SessionTimeout: 3 * time.Second, HeartbeatInterval: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, m)
		}
		for deadline := time.Now().Add(30 * time.Second); !covered(rec, 2); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not converged in 30 s: %v", p, rec.Owned())
			}
		}
		rec.Quiet()
		ownership.Require(t, rec.History(), ownership.Options{Name: "serve-" + p.String()})
		for _, m := range ms {
			m.Leave()
		}
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
