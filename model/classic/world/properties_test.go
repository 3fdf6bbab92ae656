package world

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
	"pgregory.net/rapid"
)

// protocolsUnderTest are the four classic-family protocols the property
// tests drive.
var protocolsUnderTest = []string{"eager", "cooperative", "deferred", "incremental"}

// minSteps is the least number of actions of every random run; each run
// takes between minSteps and twice as many (fewer only if nothing is
// enabled, or up to the first violation). REBALANCE_MIN_STEPS overrides it.
var minSteps = func() int {
	if v, err := strconv.Atoi(os.Getenv("REBALANCE_MIN_STEPS")); err == nil && v > 0 {
		return v
	}
	return 50
}()

// randomRun drives a world through a random sequence of enabled actions
// drawn by rapid and fails at the first law violation, printing the actions
// and the world's log; rapid shrinks the draws and prints the seed.
func randomRun(t *rapid.T, protocol string, faults classic.Faults) {
	b, err := DefaultBounds(protocol, faults)
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(classic.CoordinatorConfig{GroupID: "g", Faults: faults}, DefaultTopics())
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
	// The environment falls quiet (crashed members stay down): every
	// subscribed resource must end up owned by exactly one current member,
	// balanced as the protocol's assignor promises.
	if !w.Settle(200000, 1000) {
		t.Fatalf("network never drained\nactions:\n  %s", strings.Join(trail, "\n  "))
	}
	if len(w.Violations) > 0 {
		t.Fatalf("law broken: %s\nactions:\n  %s\nlog:\n  %s", w.Violations[0], strings.Join(trail, "\n  "), strings.Join(w.Log, "\n  "))
	}
	if vs := w.CheckConverged(BalanceOf(protocol)); len(vs) > 0 {
		stale := staleStaticSubscriptions(w)
		if len(stale) == 0 {
			t.Fatalf("not converged: %s\nactions:\n  %s\nownership:\n%s", vs[0], strings.Join(trail, "\n  "), w.Ownership())
		}
		// Kafka's rule, not a bug of the model: a static member that
		// rejoins during Stable without changing the protocol vote gets
		// its old assignment and no rebalance, even with a new
		// subscription (GroupCoordinator: "Static member which joins
		// during Stable stage and doesn't affect selectProtocol will not
		// trigger rebalance"). The group stays unbalanced until the next
		// rebalance; start one and require convergence after it.
		for _, name := range stale {
			if err := RequestRejoin(w, name, "subscription the group has not assigned for"); err != nil {
				t.Fatal(err)
			}
		}
		if !w.Settle(200000, 1000) || len(w.Violations) > 0 {
			t.Fatalf("after the rejoin of %v: network never drained or law broken: %v", stale, w.Violations)
		}
		if vs := w.CheckConverged(BalanceOf(protocol)); len(vs) > 0 {
			t.Fatalf("not converged even after %v rejoined: %s\nactions:\n  %s\nownership:\n%s", stale, vs[0], strings.Join(trail, "\n  "), w.Ownership())
		}
	}
}

// staleStaticSubscriptions returns the live static members that the last
// assignment round did not assign for with their current subscription:
// they were replaced (KIP-345) after it, or took part with another
// subscription. A static replacement that keeps the protocol vote does not
// rebalance, so such a member holds an assignment made for its old self.
func staleStaticSubscriptions(w *World) []string {
	if len(w.Rounds) == 0 {
		return nil
	}
	last := w.Rounds[len(w.Rounds)-1].Round
	var out []string
	for _, name := range w.Names() {
		p := w.Processes[name]
		if p.Node == nil || p.Config.InstanceID == "" {
			continue
		}
		subs, ok := last.Subscriptions[p.Node.View().ID]
		if !ok || !slices.Equal(slices.Sorted(slices.Values(subs)), MemberOf(p).Subscription()) {
			out = append(out, name)
		}
	}
	return out
}

// TestLawsHold checks every safety law after every step of random runs of
// each protocol, then lets the environment fall quiet and checks the
// convergence laws (coverage and the assignor's balance). The runs have
// joins, leaves, crashes, restarts (D is static), subscription changes,
// leader crashes (any member may lead) and lost and duplicated messages.
// Every check takes at least minSteps (50) actions; CI runs 1,000 checks
// per protocol (RAPID_CHECKS=1000). A failure prints rapid's seed and the
// command that replays it.
func TestLawsHold(t *testing.T) {
	for _, p := range protocolsUnderTest {
		t.Run(p, rapid.MakeCheck(func(t *rapid.T) { randomRun(t, p, 0) }))
	}
}

// recorder is a rapid.TB that records a failure instead of failing the
// test, so a test can assert that a property does fail.
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

// TestFaultsAreCaught turns on each named fault switch and requires the
// property test to fail with the law the switch breaks: the tests can fail.
func TestFaultsAreCaught(t *testing.T) {
	// A fault must be found within a budget larger than the default, and
	// its failure must not leave a fail file behind.
	for k, v := range map[string]string{"rapid.nofailfile": "true", "rapid.checks": "2000", "rapid.shrinktime": "10s"} {
		old := flag.Lookup(k).Value.String()
		if err := flag.Set(k, v); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = flag.Set(k, old) })
	}
	cases := []struct {
		protocol string
		faults   classic.Faults
		law      spec.Law
	}{
		{"eager", classic.EagerNoRevoke, spec.ExclusiveOwnership},
		{"cooperative", classic.CooperativeNoWithholding | classic.SkipLeaderValidation, spec.CooperativeHandoff},
		{"cooperative", classic.KeepRevoked, spec.ExclusiveOwnership},
		{"deferred", classic.KeepRevoked, spec.ExclusiveOwnership},
		{"incremental", classic.KeepRevoked, spec.ExclusiveOwnership},
	}
	for _, c := range cases {
		t.Run(c.protocol+"/"+c.faults.String(), func(t *testing.T) {
			r := &recorder{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				rapid.Check(r, func(rt *rapid.T) { randomRun(rt, c.protocol, c.faults) })
			}()
			<-done
			if !r.Failed() {
				t.Fatalf("fault %s: the property test did not fail", c.faults)
			}
			all := strings.Join(r.logs, "\n")
			if !strings.Contains(all, "law broken: "+string(c.law)) {
				t.Fatalf("fault %s: want the law %s reported, got:\n%s", c.faults, c.law, all)
			}
			t.Logf("fault %s caught as %s; rapid's report:\n%s", c.faults, c.law, firstLines(all, 40))
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
