package world

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/script"
	"github.com/rebalance-ref/rebalance/model/sim"
	"github.com/rebalance-ref/rebalance/spec"
)

// Kind says who takes an action, which decides how liveness treats it
// (checker.Kind is this type).
type Kind uint8

const (
	// Own is one of the protocol's own steps (deliver a message, fire a
	// timer, an application finishing a revocation). Own actions are
	// weakly fair: one that stays enabled is eventually taken.
	Own Kind = iota
	// Env is a bounded environment action (join, crash, lost message...).
	// The environment may stop acting at any time, so liveness is checked
	// on paths without Env steps.
	Env
	// EnvUnbounded is an environment action the model does not bound
	// (leader changes in the Design II liveness check). Such steps may
	// repeat forever on a liveness counterexample's cycle; they are not
	// fair.
	EnvUnbounded
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case Own:
		return "own"
	case Env:
		return "env"
	case EnvUnbounded:
		return "env*"
	}
	return "?"
}

// CheckConfig is a closed world for the model checker: the scenario
// commands that build the initial state, the members that may join later,
// the environment's budget and the protocol's promises.
type CheckConfig struct {
	// Protocol names the protocol the members run, for reports.
	Protocol string
	// Setup is the scenario commands that build the initial state, from
	// "group" on (members added and settled).
	Setup []string
	// Joiners are add-member commands of the members that may join later,
	// each at most once.
	Joiners []string
	// Crashes, Restarts, Leaves, Resubscribes, Drops, Duplicates and
	// AddPartitions bound the environment's actions over a whole path;
	// TopicChoices are the subscriptions Resubscribe may switch to.
	Crashes, Restarts, Leaves, Resubscribes, Drops, Duplicates, AddPartitions int
	// Overruns bounds how often an application overruns a revocation
	// (Overrun actions), Migrations how often a process is bounced onto
	// the other protocol (Migrate actions; a Migrator family only).
	Overruns, Migrations int
	TopicChoices         [][]string
	// LeaderBounces bounds how often the current leader is bounced (leaves
	// and starts again at once, a leader change); negative means without
	// bound, which makes the bounce an unbounded environment action. A
	// bounce happens only between rebalances (World.Settled).
	LeaderBounces int
	// EnvWhenQuiet lets members join, crash, leave, restart and change
	// subscription only while no message is in flight; messages are still
	// lost and duplicated anywhere.
	EnvWhenQuiet bool
	// MaxRounds is the bounded-rounds law: the most rebalance rounds (the
	// family's unit) the protocol may take after the environment's last
	// action.
	MaxRounds int
	// Balance is the balance law of the protocol's assignor, judged with
	// Coverage for convergence; nil for coverage alone.
	Balance Balance
	// Records gives every partition a log of that many records (the
	// applications process them and commit, and the delivery laws are
	// judged: World.Records); 0 leaves delivery out. RecordsOn, when not
	// empty, names the only partitions with records ("T-0").
	Records   int
	RecordsOn []string
	// DeliveryFaults are the delivery fault switches on (with records).
	DeliveryFaults DeliveryFault
}

// State is a state of the checked world: the world, the environment's
// budget used so far, and the rebalance rounds since the environment's
// last action. The checker never modifies a State.
type State[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any] struct {
	W *World[M, T, C, P]
	U Used
	// Rounds counts rounds since the last environment action, capped at
	// MaxRounds+1 so that a protocol that breaks the bound does not make
	// the state space infinite.
	Rounds int
}

// Model is a family's closed world as the checker sees it
// (checker.Model[*State, Action]).
type Model[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any] struct {
	cfg     CheckConfig
	bounds  Bounds[P]
	joiners map[string]string // name -> add-member line
	init    *World[M, T, C, P]
	// free holds states the checker dropped (Recycle), cleared, for Step
	// to reuse with their worlds.
	free sync.Pool
}

// SetupViolation is NewModel's error when the setup commands already
// break a law: a fault switch can break one before the model's first step
// (KAFKA-9848's switch does, in any setup of two members). The setup is
// then the whole counterexample.
type SetupViolation struct {
	Violation spec.Violation
	// Setup is the setup commands that break it.
	Setup    []string
	scenario func(comment, lines []string) (string, error)
}

func (e *SetupViolation) Error() string { return "setup breaks a law: " + e.Violation.String() }

// ScenarioFile is Model.ScenarioFile for the model that could not be
// built: it replays lines on a fresh script of the same family.
func (e *SetupViolation) ScenarioFile(comment, lines []string) (string, error) {
	return e.scenario(comment, lines)
}

// NewModel builds the model of family f: it runs the setup commands and
// reads the joiners' configurations. It returns an error for a setup that
// does not run or breaks a law (a *SetupViolation), a joiner that is not an add-member command,
// or nonsensical bounds.
func NewModel[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](f Family[M, T, C, P], cfg CheckConfig) (*Model[M, T, C, P], error) {
	for name, n := range map[string]int{"crashes": cfg.Crashes, "restarts": cfg.Restarts, "leaves": cfg.Leaves, "resubscribes": cfg.Resubscribes, "drops": cfg.Drops, "duplicates": cfg.Duplicates, "add-partitions": cfg.AddPartitions, "max-rounds": cfg.MaxRounds, "records": cfg.Records, "overruns": cfg.Overruns, "migrations": cfg.Migrations} {
		if n < 0 {
			return nil, fmt.Errorf("%s = %d: want 0 or more", name, n)
		}
	}
	if cfg.MaxRounds == 0 {
		return nil, fmt.Errorf("max-rounds = 0: every change needs at least one round")
	}
	s := &Script[M, T, C, P]{Family: f}
	for _, line := range cfg.Setup {
		if err := script.RunLine(s.Run, line); err != nil {
			return nil, fmt.Errorf("setup %q: %v", line, err)
		}
	}
	if s.W == nil {
		return nil, fmt.Errorf("setup: no group command")
	}
	if cfg.Records > 0 {
		// Written into the setup, so that counterexamples replay with it.
		line := fmt.Sprintf("records %d", cfg.Records)
		if len(cfg.RecordsOn) > 0 {
			line += " on=(" + strings.Join(cfg.RecordsOn, ",") + ")"
		}
		line += FaultsArg(cfg.DeliveryFaults)
		if err := script.RunLine(s.Run, line); err != nil {
			return nil, fmt.Errorf("setup %q: %v", line, err)
		}
		cfg.Setup = append(slices.Clone(cfg.Setup), line)
	}
	s.W.DrainLog()
	s.W.Rounds = nil
	s.W.Verbose = false
	if len(s.W.Violations) > 0 {
		return nil, &SetupViolation{Violation: s.W.Violations[0], Setup: slices.Clone(cfg.Setup),
			scenario: func(comment, lines []string) (string, error) { return ScenarioFile(f, comment, lines) }}
	}
	// Setup verbs that change nothing the laws see (isolate, slow) do not
	// refresh the previous view; every action of the model does.
	s.W.RefreshView()
	m := &Model[M, T, C, P]{cfg: cfg, init: s.W, joiners: map[string]string{}}
	for _, p := range s.W.procs {
		m.bounds.Members = append(m.bounds.Members, *p.config)
	}
	scratch := &Script[M, T, C, P]{Family: f, W: s.W.Clone()}
	for _, line := range cfg.Joiners {
		cmd, args, err := script.ParseLine(line)
		if err != nil || cmd != "add-member" {
			return nil, fmt.Errorf("joiner %q: want an add-member command", line)
		}
		name, _ := script.Name(args, cmd)
		if err := script.RunLine(scratch.Run, line); err != nil {
			return nil, fmt.Errorf("joiner %q: %v", line, err)
		}
		m.bounds.Members = append(m.bounds.Members, *scratch.W.Process(name).config)
		m.joiners[name] = line
	}
	slices.SortFunc(m.bounds.Members, func(a, b P) int { return strings.Compare(f.MemberName(a), f.MemberName(b)) })
	b := &m.bounds
	b.Crashes, b.Restarts, b.Leaves, b.Resubscribes, b.Drops, b.Duplicates, b.AddPartitions = cfg.Crashes, cfg.Restarts, cfg.Leaves, cfg.Resubscribes, cfg.Drops, cfg.Duplicates, cfg.AddPartitions
	b.Overruns, b.Migrations = cfg.Overruns, cfg.Migrations
	if _, ok := any(f).(Migrator[P]); !ok && cfg.Migrations > 0 {
		return nil, fmt.Errorf("migrations = %d: the %s family has one protocol", cfg.Migrations, f.Name())
	}
	b.TopicChoices = cfg.TopicChoices
	b.Prompt, b.PromptApps = true, true
	// Every state's world is a fork of a clone of init, and shares its
	// memo of coordinator steps.
	if f.RemembersCoordinatorSteps() {
		m.init.coordinatorSteps = newStepMemo[M, T, C]()
	}
	return m, nil
}

// Config returns the configuration the model was built from.
func (m *Model[M, T, C, P]) Config() CheckConfig { return m.cfg }

// Processes returns the name of every process the model's worlds may
// hold (the setup's members and the joiners), in name order.
func (m *Model[M, T, C, P]) Processes() []string {
	names := make([]string, len(m.bounds.Members))
	for i, c := range m.bounds.Members {
		names[i] = m.init.Family.MemberName(c)
	}
	return names
}

// Family is the model's family.
func (m *Model[M, T, C, P]) Family() Family[M, T, C, P] { return m.init.Family }

// Init is the state the setup commands build.
func (m *Model[M, T, C, P]) Init() []*State[M, T, C, P] {
	return []*State[M, T, C, P]{{W: m.init.Clone()}}
}

// Actions appends the enabled actions: World.Enabled under the bounds,
// only the network's and the protocol's own while messages are in flight
// if EnvWhenQuiet, and a bounce of the current leader while the budget
// allows and the group is settled.
func (m *Model[M, T, C, P]) Actions(s *State[M, T, C, P], dst []Action) []Action {
	start := len(dst)
	dst = s.W.AppendEnabled(dst, m.bounds, s.U)
	if m.cfg.EnvWhenQuiet && len(s.W.InFlight) > 0 {
		kept := slices.DeleteFunc(dst[start:], func(a Action) bool {
			return a.Kind != Deliver && a.Kind != FireNext && a.Kind != Drop && a.Kind != Duplicate && a.Kind != CompleteRevocation
		})
		dst = dst[:start+len(kept)]
	}
	if m.cfg.LeaderBounces != 0 && (m.cfg.LeaderBounces < 0 || s.U.LeaderBounces < m.cfg.LeaderBounces) && s.W.Settled() {
		if name := s.W.LeaderProcess(); name != "" {
			dst = append(dst, Action{Kind: BounceLeader, Member: name})
		}
	}
	return dst
}

// Step takes a on a copy of s. It counts the rebalance rounds the step
// took in the family's unit (Family.Rounds) since the environment's last
// action, or since the group learnt of it (Family.Detects: with the
// prompt network a crash's consequences land a session timeout later,
// after any number of other actions), and reports BoundedRounds once when
// the count passes MaxRounds.
func (m *Model[M, T, C, P]) Step(s *State[M, T, C, P], a Action) (*State[M, T, C, P], []spec.Violation) {
	t, ok := m.free.Get().(*State[M, T, C, P])
	if !ok {
		t = newStateWorld[M, T, C, P]()
	}
	return t, m.stepInto(t, s, a)
}

// stepInto makes t, a state nothing uses (a new or recycled one), the
// successor of s by a, and returns the laws the step broke (see Step).
func (m *Model[M, T, C, P]) stepInto(t, s *State[M, T, C, P], a Action) []spec.Violation {
	s.W.forkInto(t.W)
	t.U, t.Rounds = s.U, s.Rounds
	t.W.Log, t.W.unlogged = nil, true
	before, rounds, failed := len(t.W.Violations), len(t.W.Rounds), t.W.FailedRounds
	if err := t.W.Apply(a, m.bounds, &t.U); err != nil {
		panic(fmt.Sprintf("world: enabled action %s failed: %v", a, err))
	}
	t.W.Log, t.W.frozen = nil, true
	viols := slices.Clone(t.W.Violations[before:])
	t.W.Violations = t.W.Violations[:before]
	// Rounds sent and rounds failed both count; the world's records of
	// them are taken back so that they are not part of the state.
	sent := len(t.W.Rounds) - rounds + t.W.FailedRounds - failed
	t.W.Rounds = t.W.Rounds[:rounds]
	t.W.FailedRounds = failed
	f := m.init.Family
	// Every action ends in World.check, which leaves the view in prev.
	took := f.Rounds(sent, s.W.prev, t.W.prev)
	if m.Kind(a) != Own || (a.Kind == FireNext && f.Detects(s.W.Timers[0].Timer)) {
		t.Rounds = 0
	}
	if t.Rounds+took > m.cfg.MaxRounds && t.Rounds <= m.cfg.MaxRounds {
		viols = append(viols, spec.Violation{Law: spec.BoundedRounds, Detail: fmt.Sprintf("%d %s since the environment's last action; %s promises at most %d", t.Rounds+took, f.RoundUnit(), m.cfg.Protocol, m.cfg.MaxRounds)})
	}
	t.Rounds = min(t.Rounds+took, m.cfg.MaxRounds+1)
	return viols
}

// Recycle takes back a state the checker is done with (a successor it
// dropped, or a state it expanded), for Step to reuse its memory: the
// state and its world struct, cleared but for the spares that go with
// the struct (spares.go). Nothing may use s or its world
// afterwards. Recycle changes nothing they point to: the processes,
// coordinator, network, timers and recordings the world holds may be
// shared with the world it was forked from and with its own forks, and
// stay as they are. A fork copies its world by value and keeps no pointer
// to the world struct it was forked from (forkInto), so the struct is
// free once the checker is.
func (m *Model[M, T, C, P]) Recycle(s *State[M, T, C, P]) {
	s.clear()
	m.free.Put(s)
}

// clear empties s and its world for another step into them (stepInto),
// keeping the world's spares.
func (s *State[M, T, C, P]) clear() {
	w := s.W
	*w = World[M, T, C, P]{spare: w.spare}
	*s = State[M, T, C, P]{W: w}
}

// Kind is Own for the protocol's own steps, EnvUnbounded for an unbounded
// leader bounce, and Env for the rest.
func (m *Model[M, T, C, P]) Kind(a Action) Kind {
	switch {
	case a.Kind.Own():
		return Own
	case a.Kind == BounceLeader && m.cfg.LeaderBounces < 0:
		return EnvUnbounded
	}
	return Env
}

// FairKey identifies an own action across states: a delivery by its
// message (its correlation id left out, so a resent request is the same
// action; its identities abstracted as Encode does) and its rank among the
// same messages earlier on its connection (so duplicated responses are
// distinct actions), fire as one action, and a completed revocation by its
// member.
func (m *Model[M, T, C, P]) FairKey(s *State[M, T, C, P], a Action) uint64 {
	e, f := fairEncoders.Get().(*[2]canon.Encoder), fairEncoders.Get().(*[2]canon.Encoder)
	defer fairEncoders.Put(e)
	defer fairEncoders.Put(f)
	// msg encodes the i-th message in flight into x, identities
	// abstracted as Encode does.
	msg := func(x *canon.Encoder, i int) []byte {
		*x = canon.Encoder{Buf: x.Buf[:0], SkipSeq: true}
		if m.cfg.LeaderBounces < 0 {
			m.abstractIdentities(x, s)
			x.Reset()
		}
		s.W.encodeEnvelope(x, s.W.InFlight[i])
		return x.Finish()
	}
	key := &e[0]
	*key = canon.Encoder{Buf: key.Buf[:0], SkipSeq: true}
	key.Int(int64(a.Kind))
	switch a.Kind {
	case Deliver:
		env := s.W.InFlight[a.Index]
		me := msg(&e[1], a.Index)
		rank := 0
		for i, other := range s.W.InFlight[:a.Index] {
			if other.From == env.From && other.To == env.To && string(msg(&f[0], i)) == string(me) {
				rank++
			}
		}
		key.Buf = append(key.Buf, me...)
		key.Int(int64(rank))
	case CompleteRevocation, CommitLate:
		key.Name(a.Member)
	case Consume:
		key.Name(a.Member)
		key.String(a.Topic)
		key.Int(int64(a.Index))
	}
	return canon.Fingerprint(key.Finish())
}

// fairEncoders are scratch encoders for FairKey, which the checker calls
// from several workers.
var fairEncoders = sync.Pool{New: func() any { return new([2]canon.Encoder) }}

// Converged returns the violations of the liveness target in s: Coverage
// and the protocol's balance law.
func (m *Model[M, T, C, P]) Converged(s *State[M, T, C, P]) []spec.Violation {
	return converged(s.W.prev, m.cfg.Balance)
}

// IsConverged reports whether Converged(s) is empty without building its
// violations (checker.ConvergenceTester): Coverage is tested without
// listing what it misses, and the balance law is asked only of a group
// Coverage holds in.
func (m *Model[M, T, C, P]) IsConverged(s *State[M, T, C, P]) bool {
	return isConverged(s.W.prev, m.cfg.Balance)
}

// Owners fingerprints every member's ownership and membership.
func (m *Model[M, T, C, P]) Owners(s *State[M, T, C, P]) uint64 { return sim.Owners(s.W.prev) }

// Line prints a as a scenario command; a join prints its full add-member
// command.
func (m *Model[M, T, C, P]) Line(s *State[M, T, C, P], a Action) string {
	if a.Kind == Join {
		return m.joiners[a.Member]
	}
	return a.String()
}

// Note names the message a deliver, drop or dup acts on and the timer a
// fire fires.
func (m *Model[M, T, C, P]) Note(s *State[M, T, C, P], a Action) string {
	switch a.Kind {
	case Deliver, Drop, Duplicate:
		return s.W.InFlight[a.Index].String()
	case FireNext:
		return s.W.Timers[0].String()
	}
	return ""
}

// ScenarioFile replays the scenario commands on a fresh script of the
// model's family and returns them as a scenario file, each with the output
// it produces, after the comment lines. The model checker writes its
// counterexamples with it, so each one replays as a scenario test.
func (m *Model[M, T, C, P]) ScenarioFile(comment, lines []string) (string, error) {
	return ScenarioFile(m.init.Family, comment, lines)
}

// ScenarioFile is Model.ScenarioFile for family f.
func ScenarioFile[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](f Family[M, T, C, P], comment, lines []string) (string, error) {
	s := &Script[M, T, C, P]{Family: f}
	return script.File(comment, lines, s.Run)
}

// Preamble is the setup commands.
func (m *Model[M, T, C, P]) Preamble() []string { return slices.Clone(m.cfg.Setup) }

// Interchangeable groups the members whose configurations are the same
// but for their names: dynamic members (no instance id) with the same
// subscription, protocols, timeouts and fault switches.
func (m *Model[M, T, C, P]) Interchangeable() [][]string {
	f := m.init.Family
	var names []string
	var cfgs []P
	for _, c := range m.bounds.Members {
		if f.MemberInstance(c) == "" {
			names, cfgs = append(names, f.MemberName(c)), append(cfgs, c)
		}
	}
	return sim.Interchangeable(names, func(i, j int) bool { return f.SameConfig(cfgs[i], cfgs[j]) })
}

// MemberSignature is what member holds in s as the laws see it, hashed
// without names or identities (sim.MemberSignature), and the phase of its
// node (none for a process not running): the checker's symmetry
// reduction orders the interchangeable members by it
// (checker.MemberSigner), so it encodes a state under fewer renamings.
// A renaming moves all of it with the member.
func (m *Model[M, T, C, P]) MemberSignature(s *State[M, T, C, P], member string) uint64 {
	sig := sim.MemberSignature(s.W.prev, member)
	if p := s.W.Process(member); p != nil && p.Node != nil {
		sig = sig*0x9e3779b97f4a7c15 + uint64(p.Node.Phase()) + 1
	}
	return sig
}

// Encode writes the canonical encoding of s: the budget used, the rounds
// counter, and the world with its clock as the origin of every instant.
// Messages in flight are written as the family's network lets them be
// delivered (Network): a sequence per connection, the connections a
// multiset; or each member's requests in order (a sequence per sender, the
// senders a multiset) and the responses a multiset. The history (rounds,
// log, violations) is left out, and so is the previous view, which every
// action leaves equal to View() (World.check), so it is a function of the
// rest.
//
// With unbounded leader bounces (LeaderBounces < 0) the identities the
// bounces mint without end are abstracted too (abstractIdentities), so
// that the state space stays finite and a protocol that never converges
// shows as a cycle.
func (m *Model[M, T, C, P]) Encode(e *canon.Encoder, s *State[M, T, C, P]) {
	abstract := m.cfg.LeaderBounces < 0
	if abstract {
		m.abstractIdentities(e, s)
		defer func() { e.AbstractIdentities, e.Rename, e.RenameAddress = nil, nil, nil }()
	}
	m.encodeBody(e, s, abstract)
}

func (m *Model[M, T, C, P]) encodeBody(e *canon.Encoder, s *State[M, T, C, P], abstract bool) {
	w := s.W
	e.Now = int64(w.Now)
	e.Commits = w.Records > 0
	u := s.U
	if abstract {
		u.LeaderBounces = 0
	}
	u.encode(e)
	e.Int(int64(s.Rounds))
	w.encodeTopics(e)
	w.encodeCoordinator(e)
	names := w.Names()
	e.Int(int64(len(names)))
	for i, n := range names {
		p := w.procs[i]
		// A process is recorded by the frozen world that owns it (it made
		// or changed it), and replayed by the forks that share it.
		if e.ReplayKept(&p.encoding) {
			continue
		}
		mark := e.Mark()
		encodeProcess(e, w, n, p, abstract)
		if w.frozen && p.owner == w.serial {
			noteSpan(e, mark, i)
		}
	}
	var firstBuf [8]int
	var respBuf [16]int
	switch w.Family.Network() {
	case Connections:
		firsts := w.connections(firstBuf[:0])
		e.Sorted(len(firsts), func(i int) {
			from, to := w.InFlight[firsts[i]].From, w.InFlight[firsts[i]].To
			w.encodeQueue(e, firsts[i], func(env node.Envelope[M]) bool { return env.From == from && env.To == to })
		})
	default:
		firsts, responses := w.requestQueues(firstBuf[:0], respBuf[:0])
		e.Sorted(len(firsts), func(i int) {
			from := w.InFlight[firsts[i]].From
			w.encodeQueue(e, firsts[i], func(env node.Envelope[M]) bool { return env.To == node.CoordinatorNode && env.From == from })
		})
		e.Sorted(len(responses), func(i int) { w.encodeEnvelope(e, w.InFlight[responses[i]]) })
	}
	e.Int(int64(len(w.Timers)))
	for _, t := range w.Timers {
		e.Name(t.Node)
		w.Family.EncodeTimer(e, t.Timer)
		e.Instant(int64(t.At))
	}
	w.encodeDelivery(e)
}

// encodeProcess writes a process: its name, subscription, node and
// application state.
func encodeProcess[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](e *canon.Encoder, w *World[M, T, C, P], name string, p *Process[M, T, C, P], abstract bool) {
	e.Name(name)
	// Of the configuration only the subscription changes on a path
	// (Subscribe; the model's bounces keep the rest), so the rest is the
	// same in every state and left out.
	w.Family.EncodeConfig(e, *p.config)
	if p.Node == nil {
		e.Len(0)
	} else {
		e.Len(1)
		// The member's correlation ids are its own: the space of its
		// address, as in the messages it sends and receives.
		e.SeqSpace = p.Address(name)
		p.Node.Encode(e)
		e.SeqSpace = ""
	}
	e.Bool(p.Isolated)
	e.Bool(p.Slow)
	e.Bool(p.Overrun)
	e.Set(p.Revoking)
	if w.Records > 0 {
		encodeOffsets(e, p.positions)
		encodeOffsets(e, p.unsent)
	}
	if !abstract {
		e.Int(int64(p.Incarnation))
	}
}

// encodeEnvelope writes a message in flight: its addresses and the
// message as the family encodes it, its correlation id in the space of
// the member end (the sender of a request, the receiver of a response),
// whose counter issued it.
func (w *World[M, T, C, P]) encodeEnvelope(e *canon.Encoder, env node.Envelope[M]) {
	e.Address(env.From)
	e.Address(env.To)
	e.SeqSpace = env.From
	if env.From == node.CoordinatorNode {
		e.SeqSpace = env.To
	}
	w.Family.EncodeMessage(e, env.Msg)
	e.SeqSpace = ""
}

// encode writes the budget used, field by field.
func (u Used) encode(e *canon.Encoder) {
	for _, n := range [...]int{u.Crashes, u.Restarts, u.Leaves, u.Resubscribes, u.Drops, u.Duplicates, u.AddPartitions, u.LeaderBounces, u.Overruns, u.Migrations} {
		e.Int(int64(n))
	}
}

// connections appends to firsts the index of the first message in flight
// of each connection (sender and receiver), in order of first appearance.
func (w *World[M, T, C, P]) connections(firsts []int) []int {
	for i, e := range w.InFlight {
		if !slices.ContainsFunc(firsts, func(f int) bool { return w.InFlight[f].From == e.From && w.InFlight[f].To == e.To }) {
			firsts = append(firsts, i)
		}
	}
	return firsts
}

// requestQueues appends to firsts the index of the first request in
// flight of each sender, in order of first appearance, and to responses
// the indexes of the responses.
func (w *World[M, T, C, P]) requestQueues(firsts, responses []int) ([]int, []int) {
	for i, env := range w.InFlight {
		if env.To != node.CoordinatorNode {
			responses = append(responses, i)
			continue
		}
		if !slices.ContainsFunc(firsts, func(f int) bool { return w.InFlight[f].From == env.From }) {
			firsts = append(firsts, i)
		}
	}
	return firsts, responses
}

// encodeQueue writes a queue of messages in flight: how many there are,
// then each in send order; its first message is the from-th in flight
// and in reports the rest of it.
func (w *World[M, T, C, P]) encodeQueue(e *canon.Encoder, from int, in func(node.Envelope[M]) bool) {
	n := 0
	for _, env := range w.InFlight[from:] {
		if in(env) {
			n++
		}
	}
	e.Int(int64(n))
	for _, env := range w.InFlight[from:] {
		if in(env) {
			w.encodeEnvelope(e, env)
		}
	}
}

// abstractIdentities sets e up to write the identities a leader bounce
// mints as their ranks among those in the state, so states that differ
// only by how many bounces happened encode the same:
//
//   - a generation g > 0, wherever it is written with Generation (the
//     nodes' fields, and the classic family's metadata, which setting
//     AbstractIdentities opens: canon.Encoder.OpensPayloads), as its rank
//     among the generations in the state (0 and NoGeneration keep their
//     meanings);
//   - a member id name-n, wherever it is written with Name, as name-~k, k
//     the rank of n among the numbers of the ids of that process in the
//     state; the coordinator's id counter is left out;
//   - an address, wherever it is written with Address, as name@~k, k the
//     process's current incarnation minus the address's: name@i is the
//     i-th incarnation's address and a bare name the first's (a bare name
//     written with Name is the process, and stays).
//
// An identity is told by its type (it is written with Name) and read by
// its form: the process's name, then '-' or '@' and a number. It encodes
// s twice: once to collect the identities, once to write them.
// This is exact for the environments it is used in (leader bounces only,
// between rebalances): the protocol compares generations by order and
// equality only (the coordinator's next generation is larger than every
// one in the state), and member ids by equality, or by order only among
// ids of different processes, which keep their order (a bounced leader's
// LeaveGroup reaches the coordinator before the next join barrier can
// complete, the network being prompt, so its old and new ids never meet
// in one assignment).
func (m *Model[M, T, C, P]) abstractIdentities(e *canon.Encoder, s *State[M, T, C, P]) {
	w := s.W
	names := w.Names()
	gens := map[int64]bool{}
	ids := map[string]map[int64]bool{}
	for _, n := range names {
		ids[n] = map[int64]bool{}
	}
	e.AbstractIdentities = func(v int64) int64 { gens[v] = true; return v }
	e.Rename = func(id string) string {
		if name, n, ok := Numbered(id, '-', ids); ok {
			ids[name][n] = true
		}
		return id
	}
	m.encodeBody(e, s, true)
	e.Reset()
	genRank := ranks(gens)
	idRank := map[string]map[int64]int64{}
	for n, set := range ids {
		idRank[n] = ranks(set)
	}
	relGen := func(g int64) int64 {
		if g <= 0 {
			return g - 1 // 0 and NoGeneration keep distinct meanings
		}
		return genRank[g]
	}
	e.AbstractIdentities = relGen
	incarnation := map[string]int{}
	for _, n := range names {
		incarnation[n] = w.Process(n).Incarnation
	}
	e.Rename = func(id string) string {
		if name, n, ok := Numbered(id, '-', ids); ok {
			return fmt.Sprintf("%s-~%d", name, idRank[name][n])
		}
		// A bare name written with Name is the process itself.
		return id
	}
	e.RenameAddress = func(addr string) string {
		if name, i, ok := Numbered(addr, '@', ids); ok {
			return fmt.Sprintf("%s@~%d", name, int64(incarnation[name])-i)
		}
		if _, ok := ids[addr]; ok {
			// A process's name as an address is its first incarnation's.
			return fmt.Sprintf("%s@~%d", addr, incarnation[addr]-1)
		}
		return addr // the coordinator's
	}
}

// Numbered splits an identity of the form name, sep, number (a member id
// name-n, an address name@i): name is the part before the last sep and
// must be a key of processes, and number a non-negative decimal without
// a sign; ok is false for any other form. It is the one reading of
// identities by their form: the unbounded-bounce abstraction, the
// checker's symmetry renamer and World.AddMember's refusal of ambiguous
// names all use it.
func Numbered[V any](id string, sep byte, processes map[string]V) (name string, n int64, ok bool) {
	i := strings.LastIndexByte(id, sep)
	if i <= 0 {
		return "", 0, false
	}
	if _, known := processes[id[:i]]; !known {
		return "", 0, false
	}
	n, err := strconv.ParseInt(id[i+1:], 10, 64)
	if err != nil || n < 0 || id[i+1] == '+' {
		return "", 0, false
	}
	return id[:i], n, true
}

// ranks maps each positive value of set to its rank among them, from 1.
func ranks(set map[int64]bool) map[int64]int64 {
	var vs []int64
	for v := range set {
		if v > 0 {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	out := make(map[int64]int64, len(vs))
	for i, v := range vs {
		out[v] = int64(i + 1)
	}
	return out
}
