package world

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/script"
	"github.com/rebalance-ref/rebalance/model/sim"
	"github.com/rebalance-ref/rebalance/spec"
)

func init() {
	canon.RegisterTimeType(reflect.TypeFor[classic.Millis]())
	canon.RegisterIdentityType(reflect.TypeFor[spec.Generation]())
}

// CheckConfig is a closed world for the model checker: the scenario
// commands that build the initial state, the members that may join later,
// and the environment's budget.
type CheckConfig struct {
	// Protocol names the embedded protocol the members run, for reports
	// and for the balance law (BalanceOf).
	Protocol string
	// Setup is the scenario commands that build the initial state, from
	// "group" on (members added and settled).
	Setup []string
	// Joiners are add-member commands of the members that may join later,
	// each at most once.
	Joiners []string
	// Crashes, Restarts, Leaves, Resubscribes, Drops and Duplicates bound
	// the environment's actions over a whole path; TopicChoices are the
	// subscriptions Resubscribe may switch to.
	Crashes, Restarts, Leaves, Resubscribes, Drops, Duplicates int
	TopicChoices                                               [][]string
	// LeaderBounces bounds how often the current leader is bounced (leaves
	// and starts again at once, a leader change); negative means without
	// bound, which makes the bounce an unbounded environment action. A
	// bounce happens only between rebalances (World.settled): the seed
	// design's concern is leaders changing while a scheduled delay runs,
	// and bounces that never let a rebalance finish would only starve the
	// group without exercising the delay.
	LeaderBounces int
	// EnvWhenQuiet lets members join, crash, leave, restart and change
	// subscription only while no message is in flight; messages are still
	// lost and duplicated anywhere.
	EnvWhenQuiet bool
	// MaxRounds is the bounded-rounds law: the most assignment rounds the
	// protocol may send after the environment's last action.
	MaxRounds int
}

// State is a state of the checked world: the world, the environment's
// budget used so far, and the assignment rounds sent since the
// environment's last action. The checker never modifies a State.
type State struct {
	W *World
	U Used
	// Rounds counts rounds since the last environment action, capped at
	// MaxRounds+1 so that a protocol that breaks the bound does not make
	// the state space infinite.
	Rounds int
}

// Model is the classic family's closed world as the checker sees it
// (checker.Model[*State, Action]).
type Model struct {
	cfg     CheckConfig
	bounds  Bounds
	joiners map[string]string // name -> add-member line
	init    *World
	faults  classic.Faults
}

// NewModel builds the model: it runs the setup commands and reads the
// joiners' configurations. It returns an error for a setup that does not
// run, a joiner that is not an add-member command, or nonsensical bounds.
func NewModel(cfg CheckConfig) (*Model, error) {
	for name, n := range map[string]int{"crashes": cfg.Crashes, "restarts": cfg.Restarts, "leaves": cfg.Leaves, "resubscribes": cfg.Resubscribes, "drops": cfg.Drops, "duplicates": cfg.Duplicates, "max-rounds": cfg.MaxRounds} {
		if n < 0 {
			return nil, fmt.Errorf("%s = %d: want 0 or more", name, n)
		}
	}
	if cfg.MaxRounds == 0 {
		return nil, fmt.Errorf("max-rounds = 0: every protocol needs at least one round after a change")
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
	s.W.Rounds = nil
	if len(s.W.Violations) > 0 {
		return nil, fmt.Errorf("setup breaks a law: %s", s.W.Violations[0])
	}
	m := &Model{cfg: cfg, init: s.W, joiners: map[string]string{}}
	for _, p := range s.W.Processes {
		m.bounds.Members = append(m.bounds.Members, p.Config)
		m.faults |= p.Config.Faults
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
		pc := scratch.W.Processes[name].Config
		m.bounds.Members = append(m.bounds.Members, pc)
		m.faults |= pc.Faults
		m.joiners[name] = line
	}
	slices.SortFunc(m.bounds.Members, func(a, b classic.MemberConfig) int { return strings.Compare(a.Name, b.Name) })
	b := &m.bounds
	b.Crashes, b.Restarts, b.Leaves, b.Resubscribes, b.Drops, b.Duplicates = cfg.Crashes, cfg.Restarts, cfg.Leaves, cfg.Resubscribes, cfg.Drops, cfg.Duplicates
	b.TopicChoices = cfg.TopicChoices
	b.FIFO, b.Prompt = true, true
	return m, nil
}

// settled reports whether the group is between rebalances: nothing in
// flight, the coordinator Stable, and every live member Stable.
func (w *World) settled() bool {
	if !w.Quiet() || w.Coordinator.State() != classic.GroupStable {
		return false
	}
	for _, p := range w.Processes {
		if p.Node != nil && p.Node.State() != classic.Stable && p.Node.State() != classic.Left && p.Node.State() != classic.Failed {
			return false
		}
	}
	return true
}

// connections groups the indexes of the messages in flight by connection
// (sender and receiver), each in send order.
func (w *World) connections() [][]int {
	var out [][]int
	for i, e := range w.InFlight {
		k := slices.IndexFunc(out, func(c []int) bool { f := w.InFlight[c[0]]; return f.From == e.From && f.To == e.To })
		if k < 0 {
			out = append(out, []int{i})
		} else {
			out[k] = append(out[k], i)
		}
	}
	return out
}

// Config returns the configuration the model was built from.
func (m *Model) Config() CheckConfig { return m.cfg }

// Init is the state the setup commands build.
func (m *Model) Init() []*State { return []*State{{W: m.init.Clone()}} }

// Actions appends the enabled actions: World.Enabled under the bounds,
// and a bounce of the current leader while the budget allows.
func (m *Model) Actions(s *State, dst []Action) []Action {
	start := len(dst)
	dst = append(dst, s.W.Enabled(m.bounds, s.U)...)
	if m.cfg.EnvWhenQuiet && len(s.W.InFlight) > 0 {
		dst = slices.DeleteFunc(dst[start:], func(a Action) bool {
			return a.Kind != Deliver && a.Kind != FireNext && a.Kind != Drop && a.Kind != Duplicate
		})
		dst = dst[:start+len(dst)]
	}
	if (m.cfg.LeaderBounces < 0 || s.U.LeaderBounces < m.cfg.LeaderBounces) && s.W.settled() {
		if name := s.W.leaderProcess(); name != "" {
			dst = append(dst, Action{Kind: BounceLeader, Member: name})
		}
	}
	return dst
}

// Step takes a on a copy of s.
func (m *Model) Step(s *State, a Action) (*State, []spec.Violation) {
	t := &State{W: s.W.Fork(), U: s.U, Rounds: s.Rounds}
	t.W.Log = nil
	before, rounds := len(t.W.Violations), len(t.W.Rounds)
	if err := t.W.Apply(a, m.bounds, &t.U); err != nil {
		panic(fmt.Sprintf("world: enabled action %s failed: %v", a, err))
	}
	t.W.Log = nil
	viols := slices.Clone(t.W.Violations[before:])
	t.W.Violations = t.W.Violations[:before]
	sent := len(t.W.Rounds) - rounds
	t.W.Rounds = t.W.Rounds[:rounds]
	if m.Kind(a) != ownKind || (a.Kind == FireNext && detects(s.W.Timers[0].Timer)) {
		t.Rounds = 0
	}
	if t.Rounds+sent > m.cfg.MaxRounds && t.Rounds <= m.cfg.MaxRounds {
		viols = append(viols, spec.Violation{Law: spec.BoundedRounds, Detail: fmt.Sprintf("%d assignment rounds since the environment's last action; %s promises at most %d", t.Rounds+sent, m.cfg.Protocol, m.cfg.MaxRounds)})
	}
	t.Rounds = min(t.Rounds+sent, m.cfg.MaxRounds+1)
	return t, viols
}

// detects reports whether firing timer t is how the group learns of an
// environment action: a session expiring at the coordinator (a crash, or
// heartbeats lost) or a request timing out at a member (a message lost).
// With the prompt network (Bounds.Prompt) neither fires otherwise, so the
// bounded-rounds law counts rounds from the moment the change is seen,
// not from when the environment acted: a crash's consequences land a
// session timeout later, after any number of other actions.
func detects(t classic.Timer) bool {
	return t.Kind == classic.SessionTimer || t.Kind == classic.RequestTimer
}

// kinds as the checker sees them; the world package does not import the
// checker, so the model reports them as the checker's numbering (Own 0,
// Env 1, EnvUnbounded 2).
const (
	ownKind          = 0
	envKind          = 1
	envUnboundedKind = 2
)

// Kind is 0 (checker.Own) for deliver and fire, 2 (checker.EnvUnbounded)
// for an unbounded leader bounce, and 1 (checker.Env) for the rest.
func (m *Model) Kind(a Action) uint8 {
	switch {
	case a.Kind == Deliver || a.Kind == FireNext:
		return ownKind
	case a.Kind == BounceLeader && m.cfg.LeaderBounces < 0:
		return envUnboundedKind
	}
	return envKind
}

// FairKey identifies deliveries by the message (its correlation id left
// out, so a resent heartbeat is the same action, and its identities
// abstracted as Encode does) and fire as one action.
func (m *Model) FairKey(s *State, a Action) uint64 {
	if a.Kind != Deliver {
		return 1
	}
	e := &canon.Encoder{SkipSeq: true}
	if m.cfg.LeaderBounces < 0 {
		// The same abstraction as Encode, so that the key names the
		// message alike in every state the encoding merges.
		m.abstractIdentities(e, s)
		e.Reset()
	}
	e.Value(s.W.InFlight[a.Index])
	return canon.Fingerprint(e.Finish())
}

// Converged is World.CheckConverged with the protocol's balance law.
func (m *Model) Converged(s *State) []spec.Violation {
	return s.W.checkConverged(s.W.prev, BalanceOf(m.cfg.Protocol))
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

// Note names the message a deliver, drop or dup acts on and the timer a
// fire fires.
func (m *Model) Note(s *State, a Action) string {
	switch a.Kind {
	case Deliver, Drop, Duplicate:
		return s.W.InFlight[a.Index].String()
	case FireNext:
		return s.W.Timers[0].String()
	}
	return ""
}

// Preamble is the setup commands.
func (m *Model) Preamble() []string { return slices.Clone(m.cfg.Setup) }

// Interchangeable groups the members whose configurations are the same
// but for their names: dynamic members with the same subscription,
// protocols and fault switches.
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
func memberKey(c classic.MemberConfig) string {
	e := &canon.Encoder{}
	c.Name = ""
	e.Value(c)
	return string(e.Finish())
}

// Encode writes the canonical encoding of s: the budget used, the rounds
// counter, and the world with its clock as the origin of every instant,
// its messages in flight as a multiset (any of them may be delivered
// next), and its history (rounds, log, violations) left out.
//
// With unbounded leader bounces (LeaderBounces < 0) the identities the
// bounces mint without end are abstracted too (abstractIdentities), so
// that the state space stays finite and a protocol that never converges
// shows as a cycle.
func (m *Model) Encode(e *canon.Encoder, s *State) {
	abstract := m.cfg.LeaderBounces < 0
	if abstract {
		m.abstractIdentities(e, s)
		defer func() { e.AbstractIdentities, e.Rename = nil, nil }()
	}
	m.encodeBody(e, s, abstract)
}

func (m *Model) encodeBody(e *canon.Encoder, s *State, abstract bool) {
	w := s.W
	e.Now = int64(w.Now)
	if abstract {
		u := s.U
		u.LeaderBounces = 0
		e.Value(u)
	} else {
		e.Value(s.U)
	}
	e.Int(int64(s.Rounds))
	e.Value(w.Topics)
	e.Value(w.Coordinator)
	names := w.Names()
	e.Int(int64(len(names)))
	for _, n := range names {
		p := w.Processes[n]
		e.String(n)
		// Of the configuration only the subscription changes on a path
		// (Subscribe; the model's bounces keep the protocols), so the
		// rest is the same in every state and left out.
		e.Value(p.Config.Topics)
		switch {
		case p.Node != nil && (p.Node.State() == classic.Left || p.Node.State() == classic.Failed):
			// A member that left or failed never steps again (no timer,
			// no message is delivered to it that it acts on, and the world
			// restarts only crashed processes): only its state and view
			// matter. Its memory would otherwise hold instants that drift
			// ever further into the past.
			e.Int(int64(p.Node.State()))
			e.Value(p.Node.View())
		default:
			e.Value(p.Node)
		}
		e.Value(p.Isolated)
		if !abstract {
			e.Int(int64(p.Incarnation))
		}
	}
	// Connections deliver in order (Bounds.FIFO): a connection's messages
	// are a sequence, the connections a multiset.
	conns := w.connections()
	e.Sorted(len(conns), func(i int) {
		e.Int(int64(len(conns[i])))
		for _, j := range conns[i] {
			e.Value(w.InFlight[j])
		}
	})
	e.Int(int64(len(w.Timers)))
	for _, t := range w.Timers {
		e.String(t.Node)
		e.Value(t.Timer)
		e.Instant(int64(t.At))
	}
}

// abstractIdentities sets e up to write the identities a leader bounce
// mints as their ranks among those in the state, so states that differ
// only by how many bounces happened encode the same:
//
//   - a generation g > 0 as its rank among the generations in the state (0
//     and NoGeneration keep their meanings), in typed fields and in the
//     "gen=N" of metadata strings;
//   - a member id name-n as name-~k, k the rank of n among the numbers of
//     the ids of that name in the state; the coordinator's id counter is
//     left out;
//   - an address name@i as name@~k, k = the process's current incarnation
//     minus i (a bare name, the first incarnation's address, stays).
//
// It encodes s twice: once to collect the identities, once to write them.
// This is exact for the environments it is used in (leader bounces only,
// between rebalances): the protocol compares generations by order and
// equality only (the coordinator's next generation is larger than every
// one in the state), and member ids by equality, or by order only among
// ids of different processes, which keep their order (a bounced leader's
// LeaveGroup reaches the coordinator before the next join barrier can
// complete, the network being prompt, so its old and new ids never meet
// in one assignment).
func (m *Model) abstractIdentities(e *canon.Encoder, s *State) {
	w := s.W
	names := w.Names()
	pattern := identityPattern(names)
	gens := map[int64]bool{}
	ids := map[string]map[int64]bool{}
	for _, n := range names {
		ids[n] = map[int64]bool{}
	}
	e.AbstractIdentities = func(_ reflect.Type, v int64) int64 { gens[v] = true; return v }
	e.Rename = func(str string) string {
		for _, tok := range pattern.FindAllString(str, -1) {
			if g, ok := strings.CutPrefix(tok, "gen="); ok {
				v, _ := strconv.ParseInt(g, 10, 64)
				gens[v] = true
			} else if name, num, ok := strings.Cut(tok, "-"); ok {
				v, _ := strconv.ParseInt(num, 10, 64)
				ids[name][v] = true
			}
		}
		return str
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
	e.AbstractIdentities = func(_ reflect.Type, v int64) int64 { return relGen(v) }
	incarnation := map[string]int{}
	for _, n := range names {
		incarnation[n] = w.Processes[n].Incarnation
	}
	e.Rename = func(str string) string {
		return pattern.ReplaceAllStringFunc(str, func(tok string) string {
			if g, ok := strings.CutPrefix(tok, "gen="); ok {
				v, _ := strconv.ParseInt(g, 10, 64)
				return fmt.Sprintf("gen=~%d", relGen(v))
			}
			if name, num, ok := strings.Cut(tok, "-"); ok {
				v, _ := strconv.ParseInt(num, 10, 64)
				return fmt.Sprintf("%s-~%d", name, idRank[name][v])
			}
			name, inc, ok := strings.Cut(tok, "@")
			if !ok {
				// A bare name is the process (or its first incarnation's
				// address, which it names absolutely).
				return tok
			}
			i, _ := strconv.Atoi(inc)
			return fmt.Sprintf("%s@~%d", name, incarnation[name]-i)
		})
	}
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

// identityPattern matches generation tokens, member ids and addresses of
// the named processes.
func identityPattern(names []string) *regexp.Regexp {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return regexp.MustCompile(`gen=-?\d+|\b(?:` + strings.Join(quoted, "|") + `)(?:-\d+|@\d+)?\b`)
}
