package fuzz

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/checker"
	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/script"
	"github.com/rebalance-ref/rebalance/model/sim"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
)

// World bounds one closed world: a group of Members (Joins of them join
// later, the others are in the group, settled, at the start) sharing
// Topics topics of Partitions partitions, every member subscribing to all,
// and the environment's budget over a whole run.
type World struct {
	Members, Joins     int
	Topics, Partitions int
	Crashes, Restarts  int
	Leaves             int
	Resubscribes       int
	// Drops and Duplicates are lost and duplicated messages.
	Drops, Duplicates int
	// AddPartitions is how often a topic gains a partition (next-gen
	// only: the classic coordinator takes no metadata).
	AddPartitions int
}

// Bounds say where Protocol and CoordinatorAssignor run a protocol. The
// zero value is DefaultCheckWorld for the model checker, DefaultRandomWorld
// for the random runs, DefaultSteps steps a run, the balance law the
// protocol or assignor states (or else spec.CheckBalance), and
// counterexamples under testdata/rebalance.
type Bounds struct {
	// Check is the world the model checker explores exhaustively, safety
	// and liveness (zero means DefaultCheckWorld).
	Check World
	// NoCheck skips the model checker.
	NoCheck bool
	// Random is the larger world of the random runs, one per rapid case
	// (zero means DefaultRandomWorld); NoRandom skips them.
	Random   World
	NoRandom bool
	// Steps is how many actions a random run takes before the environment
	// falls quiet (0 means DefaultSteps).
	Steps int
	// MaxRounds is the bounded-rounds law for a protocol that states none
	// (classic.RoundBounder); it overrides a stated one when positive.
	MaxRounds int
	// Balance is the balance law a converged group must satisfy, with
	// Coverage: nil means the law the protocol or the assignor states,
	// when it is a classic.Balancer (Protocol) or an
	// assign.BalancedAssignor (CoordinatorAssignor), and spec.CheckBalance
	// otherwise; NoBalance judges coverage alone.
	Balance   core.Balance
	NoBalance bool
	// Dir is where counterexamples are written as scenario files (""
	// means testdata/rebalance, relative to the test's package).
	Dir string
	// TimeLimit stops the model checker (0 means two minutes); a check
	// stopped by it fails the test, since nothing was proven.
	TimeLimit time.Duration
}

// Defaults of a zero Bounds.
var (
	// DefaultCheckWorld is the world rebalance check explores by default:
	// three members, one of them joining; two topics of two partitions;
	// one crash, one leave and one lost message.
	DefaultCheckWorld = World{Members: 3, Joins: 1, Topics: 2, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1}
	// DefaultRandomWorld is a larger one for the random runs.
	DefaultRandomWorld = World{Members: 5, Joins: 2, Topics: 2, Partitions: 4, Crashes: 2, Restarts: 1, Leaves: 1, Resubscribes: 1, Drops: 2, Duplicates: 1}
)

// DefaultSteps is how many actions a random run takes by default.
const DefaultSteps = 80

// quietFor is how long a random run's environment stays quiet before
// convergence is judged, in ms of the world's clock: the checked worlds'
// timeouts are a few seconds (a session of 2 s, a rebalance timeout of
// 3 s, a scheduled delay of 3 s), so a minute is a dozen times the
// longest wait a protocol of them takes.
const quietFor = 60000

func (b Bounds) normalized(nextGen bool) (Bounds, error) {
	if b.Check == (World{}) {
		b.Check = DefaultCheckWorld
	}
	if b.Random == (World{}) {
		b.Random = DefaultRandomWorld
		if nextGen {
			b.Random.AddPartitions = 1
		}
	}
	if b.Steps == 0 {
		b.Steps = DefaultSteps
	}
	if b.Dir == "" {
		b.Dir = filepath.Join("testdata", "rebalance")
	}
	if b.TimeLimit == 0 {
		b.TimeLimit = 2 * time.Minute
	}
	if b.Balance == nil && !b.NoBalance {
		b.Balance = spec.CheckBalance
	}
	if b.NoBalance {
		b.Balance = nil
	}
	var errs []error
	if b.Steps < 0 || b.MaxRounds < 0 || b.TimeLimit < 0 {
		errs = append(errs, fmt.Errorf("negative Steps, MaxRounds or TimeLimit"))
	}
	if b.NoCheck && b.NoRandom {
		errs = append(errs, errors.New("NoCheck and NoRandom: nothing to run"))
	}
	for _, w := range []World{b.Check, b.Random} {
		if !nextGen && w.AddPartitions > 0 {
			errs = append(errs, errors.New("add-partitions: the classic coordinator takes no metadata (next-gen only)"))
		}
		if w.Topics > len(core.TopicNames) {
			errs = append(errs, fmt.Errorf("topics = %d: at most %d", w.Topics, len(core.TopicNames)))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return b, fmt.Errorf("fuzz: invalid bounds: %w", err)
	}
	return b, nil
}

func checkOptions[F any](w World, maxRounds int) core.CheckOptions[F] {
	return core.CheckOptions[F]{
		Members: w.Members, Joins: w.Joins, Topics: w.Topics, Partitions: w.Partitions,
		Crashes: w.Crashes, Restarts: w.Restarts, Leaves: w.Leaves, Resubscribes: w.Resubscribes,
		Drops: w.Drops, Duplicates: w.Duplicates, AddPartitions: w.AddPartitions, MaxRounds: maxRounds,
	}
}

// ProtocolFailure is a law a protocol broke in a closed world.
type ProtocolFailure struct {
	Law       spec.Law
	Violation spec.Violation
	// By is "model checker" or "random runs".
	By string
	// Scenario is the path of the scenario file that shows it.
	Scenario string
	// Detail is the steps (model checker) or what happened (random runs).
	Detail string
	// write writes the scenario file of a random run's failure: only the
	// shortest one rapid finds is written, not every case it tries.
	write func() (string, error)
}

// Error prints the failure with the scenario's path.
func (f ProtocolFailure) Error() string {
	return fmt.Sprintf("fuzz: the %s found %s broken: %s\n%s\nscenario: %s", f.By, f.Law, f.Violation, f.Detail, f.Scenario)
}

// Protocol runs p, a classic embedded protocol of the caller's (what a
// classic group's leader runs: classic.Protocol), in the closed worlds
// every protocol of this project is checked in: every member runs p over
// the classic group membership protocol, with crashes, restarts, leaves,
// subscription changes, lost and duplicated messages. First the model
// checker explores b.Check exhaustively (every law of package spec,
// safety and liveness, and the bounded-rounds law: p's classic.RoundBounder
// or b.MaxRounds), then rapid runs random walks of b.Random, each judged
// step by step and, once the environment falls quiet, on convergence
// (coverage and b.Balance). Each law broken fails the test and is written
// as a scenario file under b.Dir, whose path the failure names: commit it,
// and replay it with ReplayProtocol. Bounds that make no sense, or a model
// check stopped by b.TimeLimit, fail too.
func Protocol(t *testing.T, p classic.Protocol, b Bounds) {
	t.Helper()
	report(t, func(logf func(string, ...any)) ([]ProtocolFailure, error) { return checkProtocol(p, b, logf) })
}

// FindProtocol is Protocol without a test: it returns what Protocol
// reports (the failures, each with its scenario file written), or an error
// for bounds that make no sense or a model check that did not finish.
func FindProtocol(p classic.Protocol, b Bounds) ([]ProtocolFailure, error) {
	return checkProtocol(p, b, func(string, ...any) {})
}

func checkProtocol(p classic.Protocol, b Bounds, logf func(string, ...any)) ([]ProtocolFailure, error) {
	if p == nil {
		return nil, errors.New("fuzz: nil protocol")
	}
	if bl, ok := p.(classic.Balancer); ok && b.Balance == nil && !b.NoBalance {
		b.Balance = bl.Balance
	}
	b, err := b.normalized(false)
	if err != nil {
		return nil, err
	}
	f := classicworld.Family{Custom: []classic.Protocol{p}}
	build := func(w World) (*classicworld.Model, error) {
		cfg, err := f.CheckWorld(p.Name(), checkOptions[classic.Faults](w, b.MaxRounds))
		if err != nil {
			return nil, err
		}
		cfg.Balance = b.Balance
		return f.NewModel(cfg)
	}
	return run(p.Name(), b, build, quietFor, logf)
}

// CoordinatorAssignor runs a, a server-side assignor of the caller's
// (what a KIP-848 coordinator runs), inside the next-gen group coordinator
// of this project, as Protocol runs a classic protocol: the model checker
// on b.Check, then random walks of b.Random (with partitions added to the
// topics), every law judged, counterexamples written as scenario files
// under b.Dir and replayed with ReplayAssignor. The coordinator contains
// a's failures (an error, a panic or an illegal assignment fails the
// heartbeat that needed it); the laws must still hold, and the group must
// still converge once quiet.
func CoordinatorAssignor(t *testing.T, a assign.Assignor, b Bounds) {
	t.Helper()
	report(t, func(logf func(string, ...any)) ([]ProtocolFailure, error) { return checkAssignor(a, b, logf) })
}

// FindCoordinatorAssignor is CoordinatorAssignor without a test, as
// FindProtocol is Protocol without one.
func FindCoordinatorAssignor(a assign.Assignor, b Bounds) ([]ProtocolFailure, error) {
	return checkAssignor(a, b, func(string, ...any) {})
}

func checkAssignor(a assign.Assignor, b Bounds, logf func(string, ...any)) ([]ProtocolFailure, error) {
	if a == nil {
		return nil, errors.New("fuzz: nil assignor")
	}
	if bl, ok := a.(assign.BalancedAssignor); ok && b.Balance == nil && !b.NoBalance {
		b.Balance = bl.Balance
	}
	b, err := b.normalized(true)
	if err != nil {
		return nil, err
	}
	f := ngworld.Family{Assignors: []assign.Assignor{a}}
	build := func(w World) (*ngworld.Model, error) {
		cfg, err := ngworld.CheckWorld(checkOptions[nextgen.Fault](w, b.MaxRounds))
		if err != nil {
			return nil, err
		}
		cfg.Protocol = "nextgen/" + a.Name()
		cfg.Balance = b.Balance
		return f.NewModel(cfg)
	}
	return run(a.Name(), b, build, quietFor, logf)
}

// report runs check and fails t with each failure or error.
func report(t *testing.T, check func(logf func(string, ...any)) ([]ProtocolFailure, error)) {
	t.Helper()
	fs, err := check(t.Logf)
	for _, f := range fs {
		t.Error(f.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
}

// ReplayProtocol runs the scenario file at path (one Protocol wrote) with
// p available to it, and fails where an output differs from the file's:
// the regression test of a counterexample once the bug is fixed (rewrite
// the outputs with go test -rewrite, as for any datadriven file).
func ReplayProtocol(t *testing.T, p classic.Protocol, path string) {
	t.Helper()
	replay(t, path, classicworld.Family{Custom: []classic.Protocol{p}}.NewScript())
}

// ReplayAssignor is ReplayProtocol for a file CoordinatorAssignor wrote.
func ReplayAssignor(t *testing.T, a assign.Assignor, path string) {
	t.Helper()
	replay(t, path, ngworld.Family{Assignors: []assign.Assignor{a}}.NewScript())
}

func replay[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *testing.T, path string, s *core.Script[M, T, C, P]) {
	t.Helper()
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		args := make([]core.Arg, len(d.CmdArgs))
		for i, a := range d.CmdArgs {
			args[i] = core.Arg{Key: a.Key, Vals: a.Vals}
		}
		return script.Output(s.Run, d.Cmd, args)
	})
}

// run checks the worlds build makes: exhaustively, then at random.
func run[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](name string, b Bounds, build func(World) (*core.Model[M, T, C, P], error), quiet node.Millis, logf func(string, ...any)) ([]ProtocolFailure, error) {
	var out []ProtocolFailure
	if !b.NoCheck {
		fs, err := exhaustive(name, b, build, logf)
		out = append(out, fs...)
		if err != nil {
			return out, err
		}
	}
	if b.NoRandom {
		return out, nil
	}
	m, err := build(b.Random)
	if err != nil {
		return out, fmt.Errorf("fuzz: the random world: %w", err)
	}
	var last *ProtocolFailure
	var walkErr error
	tb := quietCheck("fuzz.Protocol_"+fileSafe(name), func(t *rapid.T) {
		f, err := randomWalk(t, name, b, m, quiet)
		if err != nil {
			walkErr = err
			t.Fatal(err)
		}
		if f != nil {
			last = f
			t.Fatal(f.Error())
		}
	})
	switch {
	case last != nil:
		path, err := last.write()
		last.Scenario, last.write = path, nil
		out = append(out, *last)
		if err != nil {
			return out, err
		}
	case walkErr != nil:
		return out, walkErr
	case tb.failed:
		return out, fmt.Errorf("fuzz: the random runs failed outside the laws: %s", tb.message)
	default:
		logf("random runs: passed")
	}
	return out, nil
}

// exhaustive runs the model checker on b.Check.
func exhaustive[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](name string, b Bounds, build func(World) (*core.Model[M, T, C, P], error), logf func(string, ...any)) ([]ProtocolFailure, error) {
	m, err := build(b.Check)
	var sv *core.SetupViolation
	if errors.As(err, &sv) {
		path, werr := writeCounterexample(b.Dir, name, sv.Violation.Law, "setup", func() (string, error) {
			return sv.ScenarioFile([]string{"Counterexample found by fuzz: the setup itself breaks a law", sv.Violation.String()}, append(slices.Clone(sv.Setup), "ownership", "check"))
		})
		return []ProtocolFailure{{Law: sv.Violation.Law, Violation: sv.Violation, By: "model checker", Scenario: path, Detail: "while the world is built"}}, werr
	}
	if err != nil {
		return nil, fmt.Errorf("fuzz: the checked world: %w", err)
	}
	res, err := checker.Explore(m, checker.Options{TimeLimit: b.TimeLimit})
	if err != nil {
		return nil, fmt.Errorf("fuzz: model checker: %w", err)
	}
	logf("model checker: %d distinct states, %d transitions, depth %d, %v", res.Distinct, res.Transitions, res.Depth, res.Elapsed.Round(time.Millisecond))
	var out []ProtocolFailure
	for _, ce := range res.Violations {
		comment := []string{fmt.Sprintf("Counterexample found by fuzz's model checker in the world %+v:", b.Check), ce.Violation.String()}
		if ce.Loop >= 0 {
			comment = append(comment, fmt.Sprintf("Steps %d to %d are a cycle the protocol can repeat forever (the file plays it once).", ce.Loop+1, len(ce.Steps)))
		}
		lines := m.Preamble()
		var table []string
		for i, s := range ce.Steps {
			lines = append(lines, s.Line)
			table = append(table, strings.TrimRight(fmt.Sprintf("%3d %s  %s", i+1, s.Line, s.Note), " "))
		}
		lines = append(lines, "ownership", "check")
		path, err := writeCounterexample(b.Dir, name, ce.Law, "check", func() (string, error) { return m.ScenarioFile(comment, lines) })
		if err != nil {
			return out, err
		}
		out = append(out, ProtocolFailure{Law: ce.Law, Violation: ce.Violation, By: "model checker", Scenario: path,
			Detail: fmt.Sprintf("%d steps:\n%s", len(ce.Steps), strings.Join(table, "\n"))})
	}
	if len(res.Violations) == 0 && !res.Complete {
		return out, fmt.Errorf("fuzz: the model checker stopped before the end (%s) after %d states: nothing is proven; raise Bounds.TimeLimit or shrink Bounds.Check", res.Stopped, res.Distinct)
	}
	return out, nil
}

// randomWalk takes up to b.Steps random actions in m's world, judging
// every step, then lets the environment fall quiet and judges
// convergence.
func randomWalk[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](t *rapid.T, name string, b Bounds, m *core.Model[M, T, C, P], quiet node.Millis) (*ProtocolFailure, error) {
	s := m.Init()[0]
	lines := m.Preamble()
	var acts []core.Action
	fail := func(v spec.Violation, extra ...string) (*ProtocolFailure, error) {
		all := append(slices.Clone(lines), extra...)
		all = append(all, "ownership", "check")
		comment := []string{fmt.Sprintf("Counterexample found by fuzz's random runs in the world %+v:", b.Random), v.String()}
		steps := lines[len(m.Preamble()):]
		return &ProtocolFailure{Law: v.Law, Violation: v, By: "random runs",
			Detail: fmt.Sprintf("after %d steps: %s", len(steps), strings.Join(steps, "; ")),
			write: func() (string, error) {
				return writeCounterexample(b.Dir, name, v.Law, "random", func() (string, error) { return m.ScenarioFile(comment, all) })
			}}, nil
	}
	for range rapid.IntRange(b.Steps/2, b.Steps).Draw(t, "steps") {
		acts = m.Actions(s, acts[:0])
		if len(acts) == 0 {
			break
		}
		a := acts[rapid.IntRange(0, len(acts)-1).Draw(t, "action")]
		lines = append(lines, m.Line(s, a))
		next, vs := m.Step(s, a)
		if len(vs) > 0 {
			return fail(vs[0])
		}
		s = next
	}
	w := s.W.Clone()
	if !w.Settle(quiet, 1000) {
		return nil, fmt.Errorf("fuzz: %s: the world never settled after the environment fell quiet (a livelock) after: %s", name, strings.Join(lines[len(m.Preamble()):], "; "))
	}
	settle := fmt.Sprintf("tick %d", quiet)
	if len(w.Violations) > 0 {
		return fail(w.Violations[0], settle)
	}
	if vs := w.CheckConverged(b.Balance); len(vs) > 0 {
		return fail(vs[0], settle)
	}
	return nil, nil
}

// writeCounterexample writes the scenario file of a law found broken by
// the model checker ("check"), the random runs ("random") or the setup,
// as dir/<name>-<law>-<by>.txt, and returns its path.
func writeCounterexample(dir, name string, law spec.Law, by string, text func() (string, error)) (string, error) {
	body, err := text()
	if err != nil {
		return "", fmt.Errorf("fuzz: writing the counterexample: %w", err)
	}
	path := filepath.Join(dir, fileSafe(name)+"-"+fileSafe(string(law))+"-"+by+".txt")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("fuzz: %w", err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		return "", fmt.Errorf("fuzz: %w", err)
	}
	return path, nil
}
