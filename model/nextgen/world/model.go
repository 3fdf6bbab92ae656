package world

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/script"
	"github.com/rebalance-ref/rebalance/model/sim"
	"github.com/rebalance-ref/rebalance/spec"
)

func init() { canon.RegisterTimeType(reflect.TypeFor[nextgen.Millis]()) }

// CheckConfig is a closed world for the model checker: the scenario
// commands that build the initial state, the members that may join later,
// and the environment's budget.
type CheckConfig struct {
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
	TopicChoices                                                              [][]string
	// MaxRounds is the bounded-rounds law: the most member epoch bumps
	// (reconciliation steps) the protocol may take after the
	// environment's last action.
	MaxRounds int
}

// State is a state of the checked world: the world, the environment's
// budget used so far, and the member epoch bumps since the environment's
// last action. The checker never modifies a State.
type State struct {
	W *World
	U Used
	// Rounds counts member epoch bumps since the last environment action,
	// capped at MaxRounds+1 so that a protocol that breaks the bound does
	// not make the state space infinite.
	Rounds int
}

// Model is the next-gen family's closed world as the checker sees it
// (checker.Model[*State, Action]).
type Model struct {
	cfg     CheckConfig
	bounds  Bounds
	joiners map[string]string // name -> add-member line
	init    *World
}

// NewModel builds the model: it runs the setup commands and reads the
// joiners' configurations. It returns an error for a setup that does not
// run, a joiner that is not an add-member command, or nonsensical bounds.
func NewModel(cfg CheckConfig) (*Model, error) {
	for name, n := range map[string]int{"crashes": cfg.Crashes, "restarts": cfg.Restarts, "leaves": cfg.Leaves, "resubscribes": cfg.Resubscribes, "drops": cfg.Drops, "duplicates": cfg.Duplicates, "add-partitions": cfg.AddPartitions, "max-rounds": cfg.MaxRounds} {
		if n < 0 {
			return nil, fmt.Errorf("%s = %d: want 0 or more", name, n)
		}
	}
	if cfg.MaxRounds == 0 {
		return nil, fmt.Errorf("max-rounds = 0: every change needs at least one epoch bump")
	}
	s := &Script{}
	for _, line := range cfg.Setup {
		if err := script.RunLine(s.Run, line); err != nil {
			return nil, fmt.Errorf("setup %q: %v", line, err)
		}
	}
	if s.W == nil {
		return nil, fmt.Errorf("setup: no group command")
	}
	s.W.DrainLog()
	s.W.Verbose = false
	if len(s.W.Violations) > 0 {
		return nil, fmt.Errorf("setup breaks a law: %s", s.W.Violations[0])
	}
	// Setup verbs that change nothing the laws see (isolate, slow) do not
	// refresh the previous view; every action of the model does.
	s.W.prev = s.W.View()
	m := &Model{cfg: cfg, init: s.W, joiners: map[string]string{}}
	for _, p := range s.W.Processes {
		m.bounds.Members = append(m.bounds.Members, p.Config)
	}
	scratch := &Script{W: s.W.Clone()}
	for _, line := range cfg.Joiners {
		cmd, args, err := script.ParseLine(line)
		if err != nil || cmd != "add-member" {
			return nil, fmt.Errorf("joiner %q: want an add-member command", line)
		}
		name, _ := script.Name(args, cmd)
		if err := script.RunLine(scratch.Run, line); err != nil {
			return nil, fmt.Errorf("joiner %q: %v", line, err)
		}
		m.bounds.Members = append(m.bounds.Members, scratch.W.Processes[name].Config)
		m.joiners[name] = line
	}
	slices.SortFunc(m.bounds.Members, func(a, b nextgen.MemberConfig) int { return strings.Compare(a.Name, b.Name) })
	b := &m.bounds
	b.Crashes, b.Restarts, b.Leaves, b.Resubscribes, b.Drops, b.Duplicates, b.AddPartitions = cfg.Crashes, cfg.Restarts, cfg.Leaves, cfg.Resubscribes, cfg.Drops, cfg.Duplicates, cfg.AddPartitions
	b.TopicChoices = cfg.TopicChoices
	b.Prompt, b.PromptApps = true, true
	return m, nil
}

// Config returns the configuration the model was built from.
func (m *Model) Config() CheckConfig { return m.cfg }

// Init is the state the setup commands build.
func (m *Model) Init() []*State { return []*State{{W: m.init.Clone()}} }

// Actions appends the enabled actions: World.Enabled under the bounds.
func (m *Model) Actions(s *State, dst []Action) []Action {
	return append(dst, s.W.Enabled(m.bounds, s.U)...)
}

// Step takes a on a copy of s. The epoch bumps it counts are the members
// whose view generation (the epoch at which they hold what they own) is
// higher after the step than before: a member that reconciles to a new
// epoch, or joins or rejoins at one.
func (m *Model) Step(s *State, a Action) (*State, []spec.Violation) {
	t := &State{W: s.W.Fork(), U: s.U, Rounds: s.Rounds}
	t.W.Log = nil
	before := len(t.W.Violations)
	if err := t.W.Apply(a, m.bounds, &t.U); err != nil {
		panic(fmt.Sprintf("world: enabled action %s failed: %v", a, err))
	}
	t.W.Log = nil
	viols := slices.Clone(t.W.Violations[before:])
	t.W.Violations = t.W.Violations[:before]
	// Every action ends in World.check, which leaves the view in prev.
	bumps := epochBumps(s.W.prev, t.W.prev)
	if m.Kind(a) != ownKind {
		t.Rounds = 0
	}
	if t.Rounds+bumps > m.cfg.MaxRounds && t.Rounds <= m.cfg.MaxRounds {
		viols = append(viols, spec.Violation{Law: spec.BoundedRounds, Detail: fmt.Sprintf("%d member epoch bumps since the environment's last action; the next-gen protocol promises at most %d", t.Rounds+bumps, m.cfg.MaxRounds)})
	}
	t.Rounds = min(t.Rounds+bumps, m.cfg.MaxRounds+1)
	return t, viols
}

// epochBumps counts the members of next whose generation is higher than
// in prev (a member missing from prev counts from NoGeneration).
func epochBumps(prev, next spec.View) int {
	n := 0
	for _, mv := range next.Members {
		old := spec.NoGeneration
		if p, ok := prev.Member(mv.Name); ok {
			old = p.Generation
		}
		if mv.Generation > old {
			n++
		}
	}
	return n
}

// kinds as the checker sees them; the world package does not import the
// checker, so the model reports them as the checker's numbering (Own 0,
// Env 1). The next-gen world has no unbounded environment action.
const (
	ownKind = 0
	envKind = 1
)

// Kind is 0 (checker.Own) for deliver, fire and an application finishing
// a revocation, and 1 (checker.Env) for the rest.
func (m *Model) Kind(a Action) uint8 {
	switch a.Kind {
	case Deliver, FireNext, CompleteRevocation:
		return ownKind
	}
	return envKind
}

// FairKey identifies deliveries by the message (its correlation id left
// out, so a resent heartbeat is the same action) and its rank among the
// messages in flight that are the same but for their ids (so duplicated
// responses are distinct actions), fire as one action, and a completed
// revocation by its member.
func (m *Model) FairKey(s *State, a Action) uint64 {
	e := &canon.Encoder{SkipSeq: true}
	e.Int(int64(a.Kind))
	switch a.Kind {
	case Deliver:
		msg := func(i int) []byte {
			f := &canon.Encoder{SkipSeq: true}
			f.Value(s.W.InFlight[i])
			return f.Finish()
		}
		env := s.W.InFlight[a.Index]
		me := msg(a.Index)
		rank := 0
		for i, f := range s.W.InFlight[:a.Index] {
			if f.From == env.From && f.To == env.To && string(msg(i)) == string(me) {
				rank++
			}
		}
		e.Buf = append(e.Buf, me...)
		e.Int(int64(rank))
	case CompleteRevocation:
		e.String(a.Member)
	}
	return canon.Fingerprint(e.Finish())
}

// Converged is World.CheckConverged: coverage and per-subscription
// balance.
func (m *Model) Converged(s *State) []spec.Violation {
	v := s.W.prev
	return append(spec.CheckCoverage(v), spec.CheckBalance(v)...)
}

// Owners fingerprints every member's ownership and membership.
func (m *Model) Owners(s *State) uint64 { return sim.Owners(s.W.prev) }

// Line prints a as a scenario command; a join prints its full add-member
// command.
func (m *Model) Line(s *State, a Action) string {
	if a.Kind == Join {
		return m.joiners[a.Member]
	}
	return a.String()
}

// Preamble is the setup commands.
func (m *Model) Preamble() []string { return slices.Clone(m.cfg.Setup) }

// Interchangeable groups the members whose configurations are the same
// but for their names: dynamic members with the same subscription,
// assignor, timeouts and fault switches.
func (m *Model) Interchangeable() [][]string {
	var names, keys []string
	for _, c := range m.bounds.Members {
		if c.InstanceID == "" {
			names, keys = append(names, c.Name), append(keys, memberKey(c))
		}
	}
	return sim.Interchangeable(names, keys)
}

// memberKey encodes a member's configuration without its name.
func memberKey(c nextgen.MemberConfig) string {
	e := &canon.Encoder{}
	c.Name = ""
	e.Value(c)
	return string(e.Finish())
}

// Encode writes the canonical encoding of s: the budget used, the rounds
// counter, and the world with its clock as the origin of every instant.
// Messages in flight are written as Enabled lets them be delivered: each
// member's requests in order (a sequence per sender, the senders a
// multiset) and the responses as a multiset. The history (log,
// violations) is left out, and so is the previous view, which every
// action leaves equal to View() (World.check), so it is a function of the
// rest. The group id and Verbose are the same in every state.
func (m *Model) Encode(e *canon.Encoder, s *State) {
	w := s.W
	e.Now = int64(w.Now)
	e.Value(s.U)
	e.Int(int64(s.Rounds))
	e.Value(w.Topics)
	e.Value(w.Coordinator)
	names := w.Names()
	e.Int(int64(len(names)))
	for _, n := range names {
		p := w.Processes[n]
		e.String(n)
		e.Value(p.Config)
		e.Value(p.Node)
		e.Value(p.Isolated)
		e.Value(p.Slow)
		e.Value(p.Revoking)
		e.Int(int64(p.Incarnation))
	}
	senders, responses := w.requestQueues()
	e.Sorted(len(senders), func(i int) {
		e.Int(int64(len(senders[i])))
		for _, j := range senders[i] {
			e.Value(w.InFlight[j])
		}
	})
	e.Sorted(len(responses), func(i int) { e.Value(w.InFlight[responses[i]]) })
	e.Int(int64(len(w.Timers)))
	for _, t := range w.Timers {
		e.String(t.Node)
		e.Value(t.Timer)
		e.Instant(int64(t.At))
	}
}

// requestQueues returns the indexes of the requests in flight grouped by
// sender, each in send order, and the indexes of the responses.
func (w *World) requestQueues() (senders [][]int, responses []int) {
	for i, env := range w.InFlight {
		if env.To != nextgen.CoordinatorNode {
			responses = append(responses, i)
			continue
		}
		k := slices.IndexFunc(senders, func(q []int) bool { return w.InFlight[q[0]].From == env.From })
		if k < 0 {
			senders = append(senders, []int{i})
		} else {
			senders[k] = append(senders[k], i)
		}
	}
	return senders, responses
}
