package world_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/classic"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/mixed"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/script"
	"github.com/rebalance-ref/rebalance/model/sim"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
	"pgregory.net/rapid"
)

// The tests here run the shared world with each family plugged in. Each
// family's scenario and counterexample files are in its own package's
// testdata directory.
const (
	classicData = "../classic/world/testdata"
	nextgenData = "../nextgen/world/testdata"
	mixedData   = "../mixed/testdata"
)

// TestScenarios runs every scenario file of each family. Each file opens
// with a comment saying what it shows; the expected output after each
// command is what the world logged (callbacks, rounds, violations; with
// verbose, every message) or a printout.
//
// If this test fails after a deliberate change, run
//
//	go test ./model/world -run TestScenarios -rewrite
//
// and read the diff before committing it: only commit changes you
// understand.
func TestScenarios(t *testing.T) {
	t.Run("classic", func(t *testing.T) { scenarios(t, classicData, classicworld.NewScript) })
	t.Run("nextgen", func(t *testing.T) { scenarios(t, nextgenData, ngworld.NewScript) })
	t.Run("mixed", func(t *testing.T) { scenarios(t, mixedData, mixed.NewScript) })
}

func scenarios[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, dir string, newScript func() *core.Script[M, T, C, P]) {
	datadriven.Walk(t, filepath.Join(dir, "scenarios"), func(t *testing.T, path string) {
		runScenarioFile(t, path, newScript())
	})
}

// runScenarioFile runs one scenario file on s, comparing each command's
// output with the file's.
func runScenarioFile[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, path string, s *core.Script[M, T, C, P]) {
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		args := make([]core.Arg, len(d.CmdArgs))
		for i, a := range d.CmdArgs {
			args[i] = core.Arg{Key: a.Key, Vals: a.Vals}
		}
		return script.Output(s.Run, d.Cmd, args)
	})
}

// TestCounterexamples replays every counterexample the model checker found
// with a fault switch on (testdata/counterexamples of each family, written
// by rebalance check --scenarios). Each file must
//
//   - replay exactly as recorded (the golden outputs show the violation);
//   - with its switches on, break the law its header names: a safety law
//     on the way; for EventuallyConverged, no convergence even once the
//     environment falls quiet; for BoundedRounds, more rounds after the
//     environment's last action than the header's "promises at most N";
//   - with every switch off, break no law on the same steps (BoundedRounds
//     included) and converge once the environment falls quiet.
//
// Regenerate a file with the command in its first line, and the outputs
// with go test ./model/world -run TestCounterexamples -rewrite.
func TestCounterexamples(t *testing.T) {
	t.Run("classic", func(t *testing.T) {
		counterexamples(t, classicData, classicworld.NewScript, classicworld.BalanceOf)
	})
	t.Run("nextgen", func(t *testing.T) {
		counterexamples(t, nextgenData, ngworld.NewScript, func(string) core.Balance { return spec.CheckBalance })
	})
}

func counterexamples[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, dir string, newScript func() *core.Script[M, T, C, P], balanceOf func(protocol string) core.Balance) {
	files, err := filepath.Glob(filepath.Join(dir, "counterexamples", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no counterexample files: %v", err)
	}
	// replay runs the commands on a fresh script. A step that no longer
	// applies with the switch off (a message that is not in flight) is
	// skipped; the laws are what matter.
	replay := func(t *testing.T, lines []string) *core.World[M, T, C, P] {
		s := newScript()
		for _, l := range lines {
			cmd, args, err := script.ParseLine(l)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = s.Run(cmd, args)
		}
		return s.W
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			runScenarioFile(t, path, newScript())
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ce, err := script.ParseCounterexample(string(text))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			law, balance := spec.Law(ce.Law), balanceOf(ce.Protocol)
			on := replay(t, ce.Commands)
			bound := -1 // the BoundedRounds bound, when the file breaks it
			if law == spec.BoundedRounds {
				m := promisedRounds.FindStringSubmatch(string(text))
				if m == nil {
					t.Fatalf("%s: a BoundedRounds header without %q", path, "promises at most N")
				}
				bound, _ = strconv.Atoi(m[1])
			}
			switch {
			case law == spec.BoundedRounds:
				if len(on.Violations) > 0 {
					t.Fatalf("switch on: want no safety violation, got %v", on.Violations)
				}
				if n := roundsAfterEnvironment(t, newScript(), ce.Commands); n <= bound {
					t.Fatalf("switch on: %d rounds after the environment's last action, within the bound %d", n, bound)
				}
			case law == spec.EventuallyConverged:
				if len(on.Violations) > 0 {
					t.Fatalf("switch on: want no safety violation, got %v", on.Violations)
				}
				on.Settle(60000, 1000)
				if vs := on.CheckConverged(balance); len(vs) == 0 {
					t.Fatalf("switch on: the group converged once quiet; the file shows no liveness failure")
				}
			case !slices.ContainsFunc(on.Violations, func(v spec.Violation) bool { return v.Law == law }):
				t.Fatalf("switch on: want a %s violation, got %v", law, on.Violations)
			}
			off := replay(t, script.WithoutFaults(ce.Commands))
			if len(off.Violations) > 0 {
				t.Fatalf("switch off: the same steps break %v", off.Violations)
			}
			if bound >= 0 {
				if n := roundsAfterEnvironment(t, newScript(), script.WithoutFaults(ce.Commands)); n > bound {
					t.Fatalf("switch off: %d rounds after the environment's last action, past the bound %d", n, bound)
				}
			}
			if !off.Settle(60000, 1000) {
				t.Fatalf("switch off: the network never drained")
			}
			if vs := off.CheckConverged(balance); len(vs) > 0 {
				t.Fatalf("switch off: not converged once quiet: %v", vs)
			}
		})
	}
}

// promisedRounds finds the bound in a BoundedRounds counterexample's
// header ("... nextgen promises at most 6").
var promisedRounds = regexp.MustCompile(`promises at most (\d+)`)

// roundsAfterEnvironment replays commands on s, counting the rounds each
// command takes in the family's unit (Family.Rounds) as the model checker
// does (world.Model.Step): the count restarts at every command that is not
// one of the protocol's own steps (deliver, fire, revoked), and at a fire
// of a timer by which the group learns of an environment action
// (Family.Detects). It returns the count after the last command. As in
// the replay of TestCounterexamples, a step that does not apply is
// skipped.
func roundsAfterEnvironment[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, s *core.Script[M, T, C, P], commands []string) int {
	n := 0
	for _, l := range commands {
		cmd, args, err := script.ParseLine(l)
		if err != nil {
			t.Fatal(err)
		}
		own := cmd == "deliver" || cmd == "fire" || cmd == "revoked"
		if cmd == "fire" && s.W != nil {
			i := 0
			if len(args) > 0 {
				v, err := script.Int(args, 0, cmd)
				if err != nil {
					t.Fatal(err)
				}
				i = int(v)
			}
			if i < len(s.W.Timers) && s.W.Family.Detects(s.W.Timers[i].Timer) {
				own = false
			}
		}
		var prev spec.View
		sent, failed := 0, 0
		if s.W != nil {
			prev, sent, failed = s.W.View(), len(s.W.Rounds), s.W.FailedRounds
		}
		if _, err := s.Run(cmd, args); err != nil || s.W == nil {
			continue
		}
		took := s.W.Family.Rounds(len(s.W.Rounds)-sent+s.W.FailedRounds-failed, prev, s.W.View())
		if !own {
			n = 0
		}
		n += took
	}
	return n
}

// minSteps is the least number of actions of every random run; each run
// takes between minSteps and twice as many (fewer only if nothing is
// enabled, or up to the first violation). REBALANCE_MIN_STEPS overrides it.
var minSteps = func() int {
	if v, err := strconv.Atoi(os.Getenv("REBALANCE_MIN_STEPS")); err == nil && v > 0 {
		return v
	}
	return 50
}()

// run is one random run's world: a fresh world, the environment's bounds,
// the balance law it must converge to once quiet, how long quiet lasts,
// and an optional repair for a state that is not converged for a reason
// the family documents (it returns what it did, "" when nothing).
type run[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any] struct {
	world   func() (*core.World[M, T, C, P], error)
	bounds  core.Bounds[P]
	balance core.Balance
	quiet   node.Millis
	repair  core.Repair[M, T, C, P]
	// only, when set, makes the run fail for that law alone: a run with a
	// fault switch on may break other laws first, or not converge, and
	// which one a random run meets first must not decide a test that
	// asks whether this law is caught.
	only spec.Law
}

// randomRun drives a world through a random sequence of enabled actions
// drawn by rapid and fails at the first law violation, printing the actions
// and the world's log; then lets the environment fall quiet (crashed
// members stay down) and requires convergence: every subscribed resource
// owned by exactly one current member, balanced as the assignor promises.
// rapid shrinks the draws and prints the seed.
func randomRun[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *rapid.T, r run[M, T, C, P]) {
	w, err := r.world()
	if err != nil {
		t.Fatal(err)
	}
	var u core.Used
	var trail []string
	choose := func(n int) int { return rapid.IntRange(0, n-1).Draw(t, "choice") }
	steps := rapid.IntRange(minSteps, 2*minSteps).Draw(t, "steps")
	broken := func() {
		for _, v := range w.Violations {
			if r.only == "" || v.Law == r.only {
				t.Fatalf("law broken: %s\nactions:\n  %s\nlog:\n  %s", v, strings.Join(trail, "\n  "), strings.Join(w.Log, "\n  "))
			}
		}
	}
	for range steps {
		acts := w.Enabled(r.bounds, u)
		if len(acts) == 0 {
			break
		}
		a := core.Pick(acts, choose)
		trail = append(trail, a.String())
		if err := w.Apply(a, r.bounds, &u); err != nil {
			t.Fatalf("enabled action %s failed: %v", a, err)
		}
		broken()
	}
	if r.only != "" {
		w.Settle(r.quiet, 1000)
		broken()
		if vs := w.CheckTimeBound(); r.only == spec.Timely && len(vs) > 0 {
			t.Fatalf("law broken: %s\nactions:\n  %s", vs[0], strings.Join(trail, "\n  "))
		}
		return
	}
	settled, did, err := w.SettleRepaired(r.quiet, 1000, r.balance, r.repair)
	switch {
	case err != nil:
		t.Fatal(err)
	case !settled && did != "":
		t.Fatalf("after %s: never settled", did)
	case !settled:
		t.Fatalf("never settled\nactions:\n  %s", strings.Join(trail, "\n  "))
	}
	broken()
	vs := w.CheckConverged(r.balance)
	if len(vs) > 0 {
		t.Fatalf("not converged: %s\nactions:\n  %s\nownership:\n%s\n%s", vs[0], strings.Join(trail, "\n  "), w.Ownership(), w.Coordinator)
	}
	if vs := w.CheckTimeBound(); len(vs) > 0 {
		t.Fatalf("converged too late: %s\nactions:\n  %s", vs[0], strings.Join(trail, "\n  "))
	}
}

func classicRun(protocol string, faults classic.Faults) (run[classic.Message, classic.Timer, classic.Callback, classic.MemberConfig], error) {
	b, err := classicworld.DefaultBounds(protocol, faults)
	return run[classic.Message, classic.Timer, classic.Callback, classic.MemberConfig]{
		world: func() (*classicworld.World, error) {
			return classicworld.New(classic.CoordinatorConfig{GroupID: "g", Faults: faults}, classicworld.DefaultTopics())
		},
		bounds: b, balance: classicworld.BalanceOf(protocol), quiet: 200000, repair: classicworld.RejoinStaleStatic,
	}, err
}

// connectorRun is classicRun for a Connect design over connectors and
// their tasks (classicworld.ConnectorBounds). Once quiet the group
// converges to what Connect's placement promises, connectors and tasks
// each balanced (spec.CheckConnectKindBalance): its placement of new and
// lost tasks ignores their connector, so a crash can leave one
// connector's tasks uneven (docs/checker.md; the model checker judges
// per-connector balance too).
func connectorRun(protocol string, faults classic.Faults) (run[classic.Message, classic.Timer, classic.Callback, classic.MemberConfig], error) {
	b, err := classicworld.ConnectorBounds(protocol, faults)
	return run[classic.Message, classic.Timer, classic.Callback, classic.MemberConfig]{
		world: func() (*classicworld.World, error) {
			return classicworld.New(classic.CoordinatorConfig{GroupID: "g", Faults: faults}, classicworld.ConnectorTopics())
		},
		bounds: b, balance: spec.CheckConnectKindBalance, quiet: 200000, repair: classicworld.RejoinStaleStatic,
	}, err
}

func nextgenRun(sem nextgen.Semantics, faults nextgen.Fault) run[nextgen.Message, nextgen.Timer, nextgen.Callback, nextgen.MemberConfig] {
	return run[nextgen.Message, nextgen.Timer, nextgen.Callback, nextgen.MemberConfig]{
		world: func() (*ngworld.World, error) {
			cfg := ngworld.DefaultCoordinatorConfig()
			cfg.Semantics, cfg.Faults = sem, faults
			return ngworld.New(cfg)
		},
		bounds: ngworld.DefaultBounds(faults), balance: spec.CheckBalance, quiet: 300000,
	}
}

// mixedRun is a random run of a mixed group under migration policy p
// (mixed.DefaultBounds: migrations, crashes, restarts and leaves on a
// prompt network that loses nothing).
//
// The coordinator upgrades with the fix this project proposes
// (UpgradeKeepsClaims): in Kafka's own conversion a consumer member that
// upgrades a classic group is given partitions classic members still own
// when the group's rebalance interrupted a CompletingRebalance, or when a
// stable cooperative member is still to revoke one (model/mixed's
// finding_upgrade_after_failed_sync.txt and
// finding_upgrade_while_revoking.txt), findings that random runs would
// meet again and again.
func mixedRun(p validate.MigrationPolicy) run[nextgen.Message, mixed.Timer, mixed.Callback, mixed.MemberConfig] {
	cfg := mixed.DefaultConfig(p)
	cfg.Consumer.UpgradeKeepsClaims = true
	return run[nextgen.Message, mixed.Timer, mixed.Callback, mixed.MemberConfig]{
		world:   func() (*mixed.World, error) { return mixed.New(cfg) },
		bounds:  mixed.DefaultBounds(),
		balance: spec.CheckBalance, quiet: 300000,
	}
}

// TestLawsHold checks every safety law after every step of random runs,
// then lets the environment fall quiet and checks convergence: each classic
// protocol, and the next-gen protocol under today's semantics and before
// KAFKA-19233 (which only the checker's prompt network catches; before
// KAFKA-19449 breaks NoNeedlessWait and is in TestFaultsAreCaught). The runs have joins, leaves, crashes, restarts (D is
// static), subscription changes, leader crashes (any member may lead),
// lost and duplicated messages and, for next-gen, slow revocations racing
// the rebalance timeout and partitions added. Every check takes at least
// minSteps (50) actions; CI runs 1,000 checks per case (RAPID_CHECKS=1000).
// A failure prints rapid's seed and the command that replays it.
func TestLawsHold(t *testing.T) {
	for _, p := range []string{"eager", "cooperative", "deferred", "incremental"} {
		r, err := classicRun(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(p, rapid.MakeCheck(func(t *rapid.T) { randomRun(t, r) }))
	}
	for _, p := range []string{"deferred", "incremental"} {
		r, err := connectorRun(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(p+"-connectors", rapid.MakeCheck(func(t *rapid.T) { randomRun(t, r) }))
	}
	// With records, the delivery laws too (next-gen under KIP-1251's
	// commit rule: before it, a clean run may process a record twice, the
	// model's delivery_stale_epoch_commit scenario).
	for _, p := range []string{"eager", "cooperative", "deferred", "incremental"} {
		r, err := classicRun(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		r = withRecords(r, 2)
		t.Run(p+"-records", rapid.MakeCheck(func(t *rapid.T) { randomRun(t, r) }))
	}
	// A mixed group under the upgrade policy (the rolling upgrade; under
	// bidirectional the downgrade breaks laws: the finding_* scenarios of
	// model/mixed), with records.
	t.Run("mixed-records", rapid.MakeCheck(func(t *rapid.T) { randomRun(t, withRecords(mixedRun(validate.PolicyUpgrade), 2)) }))
	ngRecords := withRecords(nextgenRun(nextgen.Semantics{}, 0), 2)
	t.Run("nextgen-records", rapid.MakeCheck(func(t *rapid.T) { randomRun(t, ngRecords) }))
	for _, c := range []struct {
		name string
		sem  nextgen.Semantics
	}{
		{"nextgen", nextgen.Semantics{}},
		{"nextgen-before-kafka-19233", nextgen.Semantics{BeforeKafka19233: true}},
	} {
		r := nextgenRun(c.sem, 0)
		t.Run(c.name, rapid.MakeCheck(func(t *rapid.T) { randomRun(t, r) }))
	}
}

// withRecords gives every partition of r's worlds a log of n records
// (delivery, World.SetRecords).
func withRecords[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](r run[M, T, C, P], n int) run[M, T, C, P] {
	world := r.world
	r.world = func() (*core.World[M, T, C, P], error) {
		w, err := world()
		if err != nil {
			return nil, err
		}
		return w, w.SetRecords(n, nil)
	}
	return r
}

// prompt gives a run the network Timely's time clause judges: in order,
// faster than every timer, nothing lost or duplicated.
func prompt[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](r run[M, T, C, P]) run[M, T, C, P] {
	r.bounds = r.bounds.PromptNetwork()
	return r
}

// TestTimeBoundWhenPrompt: with a prompt network every random run is
// judged on Timely's time clause (randomRun calls CheckTimeBound), and
// every protocol stops changing within the time it states once quiet.
func TestTimeBoundWhenPrompt(t *testing.T) {
	for _, p := range []string{"eager", "cooperative", "deferred", "incremental"} {
		r, err := classicRun(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(p, rapid.MakeCheck(func(t *rapid.T) { randomRun(t, prompt(r)) }))
	}
	r := prompt(nextgenRun(nextgen.Semantics{}, 0))
	t.Run("nextgen", rapid.MakeCheck(func(t *rapid.T) { randomRun(t, r) }))
}

// undeclaredDelays is a Connect policy that states its round bound but
// not its delays (no classic.DelayBounder): Timely's time clause must
// notice the scheduled delays it then takes.
type undeclaredDelays struct {
	classic.Protocol
	classic.RoundBounder
}

// TestFaultsAreCaught turns on each fault switch and requires the property
// test to fail with the law the switch breaks: the tests can fail.
//
// The next-gen SkipEpochCheck is not here: in this world a member's
// requests arrive in order and fencing removes a member entirely, so no
// heartbeat at a wrong epoch from an existing member occurs in random runs;
// the coordinator's unit tests show the fault accepting one.
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
	for _, c := range []struct {
		protocol string
		faults   classic.Faults
		law      spec.Law
	}{
		{"eager", classic.EagerNoRevoke, spec.ExclusiveOwnership},
		{"cooperative", classic.CooperativeNoWithholding | classic.SkipLeaderValidation, spec.CooperativeHandoff},
		{"cooperative", classic.KeepRevoked, spec.ExclusiveOwnership},
		{"deferred", classic.KeepRevoked, spec.ExclusiveOwnership},
		{"incremental", classic.KeepRevoked, spec.ExclusiveOwnership},
		{"deferred", classic.LeaveKeepsWorking, spec.ExclusiveOwnership},
	} {
		r, err := classicRun(c.protocol, c.faults)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(c.protocol+"/"+c.faults.String(), func(t *testing.T) { caught(t, r, c.law) })
	}
	for _, f := range []nextgen.Fault{nextgen.AssignBeforeRelease, nextgen.StraightToTarget} {
		r := nextgenRun(nextgen.Semantics{}, f)
		t.Run("nextgen/"+f.String(), func(t *testing.T) { caught(t, r, spec.ExclusiveOwnership) })
	}
	// KAFKA-13419: a member meets ILLEGAL_GENERATION only after a
	// duplicated JoinGroup, so this run may duplicate more, and it is rare
	// even so (about one run in 300), so it gets more checks.
	r13419, err := classicRun("cooperative", classic.IllegalGenerationResetsMemberID)
	if err != nil {
		t.Fatal(err)
	}
	r13419.bounds.Duplicates = 12
	t.Run("cooperative/illegal-generation-resets-member-id", func(t *testing.T) {
		if err := flag.Set("rapid.checks", "6000"); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = flag.Set("rapid.checks", "2000") }()
		caught(t, r13419, spec.Timely)
	})
	// A behaviour selector the random runs catch: before KAFKA-19449 a
	// member waits a heartbeat for a partition only it holds.
	r := nextgenRun(nextgen.Semantics{BeforeKafka19449: true}, 0)
	t.Run("nextgen/before-kafka-19449", func(t *testing.T) { caught(t, r, spec.NoNeedlessWait) })
	// Timely's time clause, in prompt runs: KAFKA-16249's coordinator
	// leaves a member revoking until its rebalance timeout fences it; and
	// Design II, stating no delays, takes its scheduled delays anyway.
	r = prompt(nextgenRun(nextgen.Semantics{}, nextgen.RestartOnNewTarget))
	t.Run("nextgen/restart-on-new-target", func(t *testing.T) { caught(t, r, spec.Timely) })
	d, err := classicRun("deferred", 0)
	if err != nil {
		t.Fatal(err)
	}
	d = prompt(d)
	d.bounds.Members = slices.Clone(d.bounds.Members)
	for i, m := range d.bounds.Members {
		p := m.Protocols[0]
		m.Protocols = []classic.Protocol{undeclaredDelays{p, p.(classic.RoundBounder)}}
		d.bounds.Members[i] = m
	}
	t.Run("deferred/undeclared-delays", func(t *testing.T) { caught(t, d, spec.Timely) })
}

// caught requires random runs of r to break law.
func caught[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, r run[M, T, C, P], law spec.Law) {
	r.only = law
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		rapid.Check(rec, func(rt *rapid.T) { randomRun(rt, r) })
	}()
	<-done
	if !rec.Failed() {
		t.Fatal("the property test did not fail")
	}
	all := strings.Join(rec.logs, "\n")
	if !strings.Contains(all, "law broken: "+string(law)) {
		t.Fatalf("want the law %s reported, got:\n%s", law, firstLines(all, 60))
	}
	t.Logf("caught as %s; rapid's report:\n%s", law, firstLines(all, 40))
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

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, "\n")
}

// TestModels checks the checked model of each family at its default
// options: the setup builds a converged, quiet state from which the
// joiners may join; Step leaves its input as it was and every action
// leaves the previous view equal to the view (what lets Encode leave it
// out); and no two own actions of a state share a fairness key, duplicated
// messages included, and IsConverged agrees with Converged
// (checkReachable).
func TestModels(t *testing.T) {
	for _, p := range []string{"eager", "cooperative", "deferred", "incremental"} {
		t.Run(p, func(t *testing.T) {
			o := classicworld.DefaultCheckOptions()
			cfg, err := classicworld.CheckWorld(p, o)
			if err != nil {
				t.Fatal(err)
			}
			checkModel(t, cfg, classicworld.NewModel, o.Members-o.Joins, o.Joins)
			o.Duplicates = 1
			cfg, _ = classicworld.CheckWorld(p, o)
			checkReachable(t, cfg, classicworld.NewModel)
		})
	}
	t.Run("nextgen", func(t *testing.T) {
		for _, faults := range []nextgen.Fault{0, nextgen.AssignBeforeRelease} {
			o := ngworld.DefaultCheckOptions()
			o.Faults = faults
			cfg, err := ngworld.CheckWorld(o)
			if err != nil {
				t.Fatal(err)
			}
			checkModel(t, cfg, ngworld.NewModel, o.Members-o.Joins, o.Joins)
			o.Duplicates = 1
			cfg, _ = ngworld.CheckWorld(o)
			checkReachable(t, cfg, ngworld.NewModel)
		}
	})
	t.Run("mixed", func(t *testing.T) {
		o := core.DefaultCheckOptions[nextgen.Fault]()
		o.Drops, o.Migrations = 0, 1
		cfg, err := mixed.CheckWorld(o)
		if err != nil {
			t.Fatal(err)
		}
		checkModel(t, cfg, mixed.NewModel, o.Members-o.Joins, o.Joins)
		o.Duplicates = 1
		cfg, _ = mixed.CheckWorld(o)
		checkReachable(t, cfg, mixed.NewModel)
	})
}

func encode[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](m *core.Model[M, T, C, P], s *core.State[M, T, C, P]) []byte {
	e := &canon.Encoder{}
	m.Encode(e, s)
	return bytes.Clone(e.Finish())
}

func checkModel[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, cfg core.CheckConfig, newModel func(core.CheckConfig) (*core.Model[M, T, C, P], error), members, joiners int) {
	t.Helper()
	m, err := newModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	init := m.Init()[0]
	if v := m.Converged(init); len(v) > 0 {
		t.Errorf("initial state not converged: %v\n%s", v, init.W.Ownership())
	}
	if len(init.W.InFlight) > 0 || len(init.W.Violations) > 0 || len(init.W.Log) > 0 {
		t.Errorf("initial state has %d messages in flight, %d violations, %d log lines", len(init.W.InFlight), len(init.W.Violations), len(init.W.Log))
	}
	if got := len(init.W.Names()); got != members {
		t.Errorf("%d processes, want %d", got, members)
	}
	joins := 0
	for _, a := range m.Actions(init, nil) {
		if a.Kind == core.Join {
			joins++
			if line := m.Line(init, a); !strings.HasPrefix(line, "add-member "+a.Member+" ") {
				t.Errorf("join line %q", line)
			}
		}
	}
	if joins != joiners {
		t.Errorf("%d join actions, want %d", joins, joiners)
	}
	if !reflect.DeepEqual(init.W.Prev(), init.W.View()) {
		t.Fatal("initial state: previous view differs from the view")
	}
	// A state the model's Step made is frozen: changing it in place would
	// change the forks that share its nodes, so it panics.
	var act core.Action
	for _, a := range m.Actions(init, nil) {
		if a.Kind == core.Deliver || a.Kind == core.FireNext {
			act = a
			break
		}
	}
	next, _ := m.Step(init, act)
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "frozen") {
				t.Errorf("changing a stepped state in place: recovered %v, want a frozen-world panic", r)
			}
		}()
		var u core.Used
		_ = next.W.Apply(m.Actions(next, nil)[0], core.Bounds[P]{}, &u)
	}()
	seen := map[string]bool{string(encode(m, init)): true}
	frontier := []*core.State[M, T, C, P]{init}
	steps := 0
	for len(frontier) > 0 && len(seen) < 3000 {
		var next []*core.State[M, T, C, P]
		for _, s := range frontier {
			for _, a := range m.Actions(s, nil) {
				before := encode(m, s)
				prev := s.W.Prev()
				t2, _ := m.Step(s, a)
				steps++
				if after := encode(m, s); !bytes.Equal(before, after) {
					t.Fatalf("Step %s changed its input state", m.Line(s, a))
				}
				if !reflect.DeepEqual(prev, s.W.Prev()) {
					t.Fatalf("Step %s changed its input's previous view", m.Line(s, a))
				}
				if !reflect.DeepEqual(t2.W.Prev(), t2.W.View()) {
					t.Fatalf("after %s: previous view differs from the view:\n%v\n%v", m.Line(s, a), t2.W.Prev(), t2.W.View())
				}
				if k := string(encode(m, t2)); !seen[k] {
					seen[k] = true
					next = append(next, t2)
				}
			}
		}
		frontier = next
	}
	if steps < 3000 {
		t.Fatalf("only %d steps taken", steps)
	}
}

// checkReachable explores the first 3000 or so states of cfg's world
// breadth-first: no two own actions of a state share a fairness key, some
// state has a duplicated message in flight, and IsConverged agrees with
// Converged in every state, some converged and some not.
func checkReachable[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, cfg core.CheckConfig, newModel func(core.CheckConfig) (*core.Model[M, T, C, P], error)) {
	t.Helper()
	m, err := newModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	frontier := m.Init()
	seen := map[string]bool{}
	dups := 0
	converged := map[bool]int{}
	for len(frontier) > 0 && len(seen) < 3000 {
		var next []*core.State[M, T, C, P]
		for _, s := range frontier {
			vs := m.Converged(s)
			if got := m.IsConverged(s); got != (len(vs) == 0) {
				t.Fatalf("IsConverged says %v, Converged lists %v\n%s", got, vs, s.W.Ownership())
			}
			converged[len(vs) == 0]++
			keys := map[uint64]string{}
			for _, a := range m.Actions(s, nil) {
				if m.Kind(a) != core.Own {
					continue
				}
				k := m.FairKey(s, a)
				if other, ok := keys[k]; ok {
					t.Fatalf("%s and %s have the same fairness key", other, m.Line(s, a))
				}
				keys[k] = m.Line(s, a)
			}
			for i, e := range s.W.InFlight {
				for _, f := range s.W.InFlight[:i] {
					if reflect.DeepEqual(e, f) {
						dups++
					}
				}
			}
			for _, a := range m.Actions(s, nil) {
				t2, _ := m.Step(s, a)
				if k := string(encode(m, t2)); !seen[k] {
					seen[k] = true
					next = append(next, t2)
				}
			}
		}
		frontier = next
	}
	if dups == 0 {
		t.Error("no state with a duplicated message was met")
	}
	if converged[true] == 0 || converged[false] == 0 {
		t.Errorf("%d converged states and %d others: IsConverged is tested on one answer only", converged[true], converged[false])
	}
}

// TestEverySwitchIsShown: every fault switch that is not a defence in
// depth is named by the header of a committed counterexample of its
// family (the checker shows it breaking a law), and a defence in depth is
// named by none and says why no checked world shows it.
func TestEverySwitchIsShown(t *testing.T) {
	headers := func(dir string) string {
		files, err := filepath.Glob(filepath.Join(dir, "counterexamples", "*.txt"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no counterexample files in %s: %v", dir, err)
		}
		var b strings.Builder
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			b.WriteString(first + " \n")
		}
		return b.String()
	}
	check := func(family, name, heads, defence string) {
		shown := strings.Contains(heads, "--fault "+name+" ") || strings.Contains(heads, "--fault "+name+":")
		switch {
		case defence == "" && !shown:
			t.Errorf("%s switch %s: no committed counterexample names it, and it is not marked a defence in depth", family, name)
		case defence != "" && shown:
			t.Errorf("%s switch %s is marked a defence in depth (%s), but a counterexample names it", family, name, defence)
		}
	}
	classicHeads, nextgenHeads := headers(classicData), headers(nextgenData)
	for _, sw := range classic.FaultList {
		check("classic", sw.Name, classicHeads, sw.Defence)
	}
	for _, sw := range nextgen.FaultList {
		check("nextgen", sw.Name, nextgenHeads, sw.Defence)
	}
	// The delivery switches are both families': each needs a
	// counterexample in each.
	for _, sw := range core.DeliveryFaultList {
		check("classic", sw.Name, classicHeads, sw.Defence)
		check("nextgen", sw.Name, nextgenHeads, sw.Defence)
	}
}
