package world

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
	"pgregory.net/rapid"
)

// minSteps is the least number of actions of every random run (each run
// takes minSteps to twice as many); REBALANCE_MIN_STEPS overrides it.
var minSteps = func() int {
	if v, err := strconv.Atoi(os.Getenv("REBALANCE_MIN_STEPS")); err == nil && v > 0 {
		return v
	}
	return 50
}()

// randomRun drives the world through random enabled actions drawn by rapid,
// fails at the first law violation with the actions and the log, then lets
// the environment fall quiet and requires convergence.
func randomRun(t *rapid.T, sem nextgen.Semantics, faults nextgen.Fault) {
	b := DefaultBounds(faults)
	cfg := DefaultCoordinatorConfig()
	cfg.Semantics, cfg.Faults = sem, faults
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var u Used
	var trail []string
	choose := func(n int) int { return rapid.IntRange(0, n-1).Draw(t, "choice") }
	steps := rapid.IntRange(minSteps, 2*minSteps).Draw(t, "steps")
	for range steps {
		acts := w.Enabled(b, u)
		if len(acts) == 0 {
			break
		}
		a := Pick(acts, choose)
		trail = append(trail, a.String())
		if err := w.Apply(a, b, &u); err != nil {
			t.Fatalf("enabled action %s failed: %v", a, err)
		}
		if len(w.Violations) > 0 {
			t.Fatalf("law broken: %s\nactions:\n  %s\nlog:\n  %s", w.Violations[0], strings.Join(trail, "\n  "), strings.Join(w.Log, "\n  "))
		}
	}
	if !w.Settle(300000, 1000) {
		t.Fatalf("never settled\nactions:\n  %s", strings.Join(trail, "\n  "))
	}
	if len(w.Violations) > 0 {
		t.Fatalf("law broken: %s\nactions:\n  %s\nlog:\n  %s", w.Violations[0], strings.Join(trail, "\n  "), strings.Join(w.Log, "\n  "))
	}
	if vs := CheckConverged(w); len(vs) > 0 {
		t.Fatalf("not converged: %s\nactions:\n  %s\nownership:\n%s\n%s", vs[0], strings.Join(trail, "\n  "), w.Ownership(), w.Coordinator)
	}
}

// TestLawsHold checks every law after every action of random runs: joins,
// leaves, crashes, restarts (D is static), lost and duplicated heartbeats and
// responses, slow revocations racing the rebalance timeout, subscription
// changes and partitions added, under today's semantics and under each
// earlier one. CI runs 1,000 checks of at least 50 actions each
// (RAPID_CHECKS=1000).
func TestLawsHold(t *testing.T) {
	for _, c := range []struct {
		name string
		sem  nextgen.Semantics
	}{
		{"upstream", nextgen.Semantics{}},
		{"before-kafka-19233", nextgen.Semantics{BeforeKafka19233: true}},
		{"before-kafka-19449", nextgen.Semantics{BeforeKafka19449: true}},
	} {
		t.Run(c.name, rapid.MakeCheck(func(t *rapid.T) { randomRun(t, c.sem, 0) }))
	}
}

// recorder is a rapid.TB that records a failure instead of failing the
// test, so a test can require that a property fails.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	failed bool
	logs   []string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.TB.Name() }
func (r *recorder) Logf(f string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(f, a...))
}
func (r *recorder) Log(a ...any)              { r.Logf("%s", fmt.Sprint(a...)) }
func (r *recorder) Errorf(f string, a ...any) { r.Logf(f, a...); r.Fail() }
func (r *recorder) Error(a ...any)            { r.Log(a...); r.Fail() }
func (r *recorder) Fatalf(f string, a ...any) { r.Logf(f, a...); r.FailNow() }
func (r *recorder) Fatal(a ...any)            { r.Log(a...); r.FailNow() }
func (r *recorder) Fail() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
}
func (r *recorder) FailNow() { r.Fail(); runtime.Goexit() }
func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}
func (r *recorder) Skipf(string, ...any) { runtime.Goexit() }
func (r *recorder) Skip(...any)          { runtime.Goexit() }
func (r *recorder) SkipNow()             { runtime.Goexit() }

// TestFaultsAreCaught turns on each fault switch and requires the property
// test to fail with the law it breaks.
func TestFaultsAreCaught(t *testing.T) {
	for k, v := range map[string]string{"rapid.nofailfile": "true", "rapid.checks": "2000", "rapid.shrinktime": "10s"} {
		old := flag.Lookup(k).Value.String()
		if err := flag.Set(k, v); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = flag.Set(k, old) })
	}
	// SkipEpochCheck is not here: in this world a member's requests arrive
	// in order and fencing removes a member entirely, so no heartbeat at a
	// wrong epoch from an existing member occurs in random runs; the
	// coordinator's unit tests show the fault accepting one.
	for _, fi := range []nextgen.FaultInfo{nextgen.FaultList[0], nextgen.FaultList[2]} {
		t.Run(fi.Name, func(t *testing.T) {
			r := &recorder{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				rapid.Check(r, func(rt *rapid.T) { randomRun(rt, nextgen.Semantics{}, fi.Fault) })
			}()
			<-done
			if !r.Failed() {
				t.Fatalf("fault %s: the property test did not fail", fi.Name)
			}
			all := strings.Join(r.logs, "\n")
			if !strings.Contains(all, "law broken: "+string(spec.ExclusiveOwnership)) {
				t.Fatalf("fault %s: want ExclusiveOwnership reported, got:\n%s", fi.Name, firstLines(all, 60))
			}
			t.Logf("fault %s caught; rapid's report:\n%s", fi.Name, firstLines(all, 40))
		})
	}
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, "\n")
}
