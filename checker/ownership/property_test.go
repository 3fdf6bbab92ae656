package ownership

import (
	"fmt"

	"github.com/google/go-cmp/cmp"
	"slices"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/rebalance-ref/rebalance/spec"
	"pgregory.net/rapid"
)

// simProc is one process of the simulated protocol.
type simProc struct {
	name     string
	member   spec.MemberID
	ids      int // member ids handed out so far
	busy     spec.Nanos
	alive    bool
	expelled bool
	owns     spec.Set // held under the current membership
	zombie   spec.Set // held after the coordinator removed the member
	since    spec.Nanos
	acquired map[spec.Resource]spec.Nanos // Return of the Assigned that gave it
}

// sim is a correct single-owner protocol: a resource is revoked before it
// is assigned elsewhere, a crash or a removal frees what the process held,
// and a removed member drops its resources (Lost) before it joins again.
// Callbacks of one process follow one another; those of different
// processes interleave with random durations.
type sim struct {
	t     *rapid.T
	coord bool
	now   spec.Nanos
	gen   spec.Generation
	procs []*simProc
	free  map[spec.Resource]spec.Nanos // free resources, from when
	obs   []spec.Observation
	moves []move
}

// move is a hand-off whose Assigned (obs index) can be moved into
// [lo, hi] to land wholly inside the previous owner's tenure.
type move struct {
	assigned int
	lo, hi   spec.Nanos
}

func (s *sim) draw(max int, label string) spec.Nanos {
	return spec.Nanos(rapid.IntRange(0, max).Draw(s.t, label))
}

func (s *sim) point(kind spec.ObservationKind, p *simProc, at spec.Nanos) {
	o := spec.Observation{Kind: kind, Member: p.member, Generation: spec.NoGeneration, Call: at, Return: at}
	if kind == spec.Crashed {
		o.Process, o.Member = p.name, ""
	}
	s.obs = append(s.obs, o)
}

// callback records a callback of p called no earlier than from and after
// p's previous one, and returns its index.
func (s *sim) callback(p *simProc, kind spec.ObservationKind, rs spec.Set, from spec.Nanos) int {
	call := max(from, p.busy) + s.draw(2, "gap")
	ret := call + s.draw(4, "duration")
	p.busy = ret
	s.obs = append(s.obs, spec.Observation{Kind: kind, Process: p.name, Member: p.member, Generation: s.gen, Resources: rs, Call: call, Return: ret})
	return len(s.obs) - 1
}

func (s *sim) assign(q *simProc, rs spec.Set, from spec.Nanos) int {
	i := s.callback(q, spec.Assigned, rs, from)
	q.owns = q.owns.Union(rs)
	for _, r := range rs {
		q.acquired[r] = s.obs[i].Return
		delete(s.free, r)
	}
	return i
}

func (s *sim) release(p *simProc, rs spec.Set) {
	i := s.callback(p, spec.Revoked, rs, s.now)
	p.owns = p.owns.Minus(rs)
	for _, r := range rs {
		s.free[r] = s.obs[i].Return
	}
}

// join starts a membership of p: Joined (when the coordinator is observed)
// and the first, empty, Assigned.
func (s *sim) join(p *simProc, newID bool) {
	if newID {
		p.ids++
		p.member = spec.MemberID(fmt.Sprintf("%s-%d", p.name, p.ids))
	}
	at := max(s.now, p.busy) + s.draw(2, "gap")
	if s.coord {
		s.point(spec.Joined, p, at)
	}
	i := s.assign(p, nil, at)
	p.since, p.alive, p.expelled = s.obs[i].Call, true, false
}

func (s *sim) handOff(p, q *simProc, r spec.Resource) {
	rv := s.callback(p, spec.Revoked, spec.Set{r}, s.now)
	p.owns = p.owns.Remove(r)
	s.gen++
	lo, hi := max(p.acquired[r], q.since)+1, s.obs[rv].Call-1
	as := s.assign(q, spec.Set{r}, s.obs[rv].Return+s.draw(2, "gap"))
	if hi-lo >= 1 {
		s.moves = append(s.moves, move{as, lo, hi})
	}
}

func (s *sim) crash(p *simProc) {
	at := max(s.now, p.busy) + s.draw(2, "gap")
	s.point(spec.Crashed, p, at)
	p.busy = at
	for _, r := range p.owns {
		s.free[r] = at
	}
	if s.coord && !p.expelled {
		s.point(spec.Removed, p, at+s.draw(3, "session"))
	}
	p.alive, p.expelled, p.owns, p.zombie = false, false, nil, nil
}

func (s *sim) expel(p *simProc) {
	// After the instant of p's Joined: within one instant the checks
	// apply Removed before Joined.
	at := max(s.now, p.busy, p.since+1)
	s.point(spec.Removed, p, at)
	p.busy = at
	for _, r := range p.owns {
		s.free[r] = at
	}
	p.zombie, p.owns, p.expelled = p.owns, nil, true
}

func (s *sim) rejoin(p *simProc) {
	if !p.zombie.IsEmpty() {
		s.callback(p, spec.Lost, p.zombie, s.now)
		p.zombie = nil
	}
	s.join(p, rapid.Bool().Draw(s.t, "new id"))
}

// step takes one random enabled action.
func (s *sim) step() {
	var active, down, expelled []*simProc
	for _, p := range s.procs {
		switch {
		case !p.alive:
			down = append(down, p)
		case p.expelled:
			expelled = append(expelled, p)
		default:
			active = append(active, p)
		}
	}
	owners := slices.DeleteFunc(slices.Clone(active), func(p *simProc) bool { return p.owns.IsEmpty() })
	var actions []string
	if len(owners) > 0 && len(active) > 1 {
		actions = append(actions, "move")
	}
	if len(s.free) > 0 && len(active) > 0 {
		actions = append(actions, "assign")
	}
	if len(active)+len(expelled) > 0 {
		actions = append(actions, "crash")
	}
	if len(down) > 0 {
		actions = append(actions, "restart")
	}
	if s.coord && len(active) > 0 {
		actions = append(actions, "expel")
	}
	if len(expelled) > 0 {
		actions = append(actions, "rejoin")
	}
	s.now += s.draw(3, "tick")
	switch rapid.SampledFrom(actions).Draw(s.t, "action") {
	case "move":
		p := rapid.SampledFrom(owners).Draw(s.t, "from")
		q := rapid.SampledFrom(slices.DeleteFunc(slices.Clone(active), func(q *simProc) bool { return q == p })).Draw(s.t, "to")
		s.handOff(p, q, rapid.SampledFrom(p.owns).Draw(s.t, "resource"))
	case "assign":
		r := rapid.SampledFrom(slices.SortedFunc(func(yield func(spec.Resource) bool) {
			for r := range s.free {
				if !yield(r) {
					return
				}
			}
		}, spec.Resource.Compare)).Draw(s.t, "resource")
		s.assign(rapid.SampledFrom(active).Draw(s.t, "to"), spec.Set{r}, max(s.now, s.free[r]))
	case "crash":
		s.crash(rapid.SampledFrom(append(active, expelled...)).Draw(s.t, "process"))
	case "restart":
		s.join(rapid.SampledFrom(down).Draw(s.t, "process"), true)
	case "expel":
		s.expel(rapid.SampledFrom(active).Draw(s.t, "process"))
	case "rejoin":
		s.rejoin(rapid.SampledFrom(expelled).Draw(s.t, "process"))
	}
}

// converge brings every process back, balances the resources round-robin
// among them (revocations first), and marks the environment quiet.
func (s *sim) converge() {
	for _, p := range s.procs {
		switch {
		case p.expelled:
			s.rejoin(p)
		case !p.alive:
			s.join(p, true)
		}
	}
	end := s.now
	for _, p := range s.procs {
		end = max(end, p.busy)
	}
	for _, at := range s.free {
		end = max(end, at)
	}
	s.now = end + 1
	s.obs = append(s.obs, spec.Observation{Kind: spec.Quiet, Generation: spec.NoGeneration, Call: s.now, Return: s.now})
	s.gen++
	var all spec.Set
	for _, p := range s.procs {
		all = all.Union(p.owns)
	}
	for r := range s.free {
		all = all.Add(r)
	}
	target := map[*simProc]spec.Set{}
	for i, r := range all {
		p := s.procs[i%len(s.procs)]
		target[p] = target[p].Add(r)
	}
	for _, p := range s.procs {
		if drop := p.owns.Minus(target[p]); !drop.IsEmpty() {
			s.release(p, drop)
		}
	}
	from := s.now
	for _, at := range s.free {
		from = max(from, at)
	}
	for _, p := range s.procs {
		if add := target[p].Minus(p.owns); !add.IsEmpty() {
			s.assign(p, add, from)
		}
	}
}

// simulate draws a history of the simulated protocol. Its first action
// hands t-0 off well after the start, so it has at least one move.
func simulate(t *rapid.T) (spec.History, *sim) {
	s := &sim{t: t, coord: rapid.Bool().Draw(t, "coordinator"), free: map[spec.Resource]spec.Nanos{}, gen: 1}
	h := spec.History{Topics: spec.Topics{}, Subscriptions: map[string][]string{}}
	n := rapid.IntRange(2, 4).Draw(t, "processes")
	for i := range n {
		p := &simProc{name: string(rune('A' + i)), acquired: map[spec.Resource]spec.Nanos{}}
		s.procs = append(s.procs, p)
		h.Subscriptions[p.name] = []string{"t"}
	}
	parts := rapid.IntRange(1, 6).Draw(t, "partitions")
	h.Topics["t"] = int32(parts)
	initial := map[*simProc]spec.Set{}
	for i := range parts {
		owner := rapid.IntRange(-1, n-1).Draw(t, "owner")
		if i == 0 || owner >= 0 {
			p := s.procs[max(owner, 0)]
			initial[p] = initial[p].Add(spec.TP("t", int32(i)))
		} else {
			s.free[spec.TP("t", int32(i))] = 0
		}
	}
	s.now = 1
	for _, p := range s.procs {
		s.join(p, true)
		if !initial[p].IsEmpty() {
			s.assign(p, initial[p], s.now)
		}
	}
	s.now = 20
	owner := slices.IndexFunc(s.procs, func(p *simProc) bool { return p.owns.Contains(spec.TP("t", 0)) })
	to := (owner + 1 + rapid.IntRange(0, n-2).Draw(t, "to")) % n
	s.handOff(s.procs[owner], s.procs[to], spec.TP("t", 0))
	for range rapid.IntRange(0, 20).Draw(t, "steps") {
		s.step()
	}
	if rapid.Bool().Draw(t, "quiet") {
		s.converge()
	}
	h.Observations = s.obs
	h.CoordinatorObserved = s.coord
	return h, s
}

// text prints h's observations by Call, one per line, for failure reports
// (in the form the tests parse).
func text(h spec.History) string {
	obs := slices.Clone(h.Observations)
	slices.SortStableFunc(obs, func(a, b spec.Observation) int { return int(a.Call - b.Call) })
	var b strings.Builder
	for _, o := range obs {
		b.WriteString(o.String() + "\n")
	}
	return b.String()
}

// TestSimulatedHistoriesOK: every history of the correct simulated protocol
// passes both checks.
func TestSimulatedHistoriesOK(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		h, s := simulate(t)
		res, err := Check(h, Options{Name: "simulated", HTMLDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK() || res.CoordinatorObserved != s.coord {
			t.Fatalf("%s\n%s", res, text(h))
		}
	})
}

// TestMovedAssignmentRejected: moving one Assigned of a hand-off wholly
// before the previous owner's revocation (and after it acquired) is always
// rejected by both checks, on that resource.
func TestMovedAssignmentRejected(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		h, s := simulate(t)
		m := rapid.SampledFrom(s.moves).Draw(t, "move")
		x := m.lo + s.draw(int(m.hi-m.lo-1), "at")
		h.Observations = slices.Clone(h.Observations)
		moved := &h.Observations[m.assigned]
		moved.Call, moved.Return = x, x+1
		r := moved.Resources[0]
		res, err := Check(h, Options{Name: "moved", HTMLDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		exclusive := slices.ContainsFunc(res.Violations, func(v Violation) bool {
			return v.Violation.Law == spec.ExclusiveOwnership && v.Violation.Resource == r && v.At == x
		})
		if res.Linearizable != porcupine.Illegal || !slices.Contains(res.IllegalResources, r) || !exclusive {
			t.Fatalf("moved %s to [%d..%d]: want Illegal on %s and ExclusiveOwnership at %d\n%s\n%s", moved, x, x+1, r, x, res, text(h))
		}
	})
}

// TestModelPure: Step never changes the state it is given, whatever the
// operations, so porcupine can branch from any state.
func TestModelPure(t *testing.T) {
	model := Model()
	rapid.Check(t, func(t *rapid.T) {
		input := rapid.Custom(func(t *rapid.T) Input {
			return Input{
				Kind:       OpKind(rapid.IntRange(1, 4).Draw(t, "kind")),
				Process:    rapid.SampledFrom([]string{"A", "B", "C"}).Draw(t, "process"),
				Member:     rapid.SampledFrom([]spec.MemberID{"A-1", "B-1", "C-1"}).Draw(t, "member"),
				Membership: rapid.IntRange(0, 1).Draw(t, "membership"),
				Resource:   spec.TP("t", 0),
			}
		})
		states := []any{model.Init()}
		seen := []string{model.DescribeState(states[0])}
		for range rapid.IntRange(1, 30).Draw(t, "steps") {
			from := rapid.IntRange(0, len(states)-1).Draw(t, "from")
			in := input.Draw(t, "input")
			if ok, next := model.Step(states[from], &in, nil); ok {
				states = append(states, next)
				seen = append(seen, model.DescribeState(next))
			}
			for i, s := range states {
				if got := model.DescribeState(s); got != seen[i] {
					t.Fatalf("state %d changed from %q to %q", i, seen[i], got)
				}
			}
		}
	})
}

// fullJudge is Judge without scoping: every state law on every whole
// view, a violation reported at the instant it begins. TestJudgerScoped
// holds the Judger to it.
func fullJudge(h spec.History, views []TimedView, balance func(spec.View) []spec.Violation) []Violation {
	var out []Violation
	prevState := map[string]bool{}
	for i, tv := range views {
		if i > 0 {
			for _, x := range spec.CheckStep(views[i-1].View, tv.View) {
				if len(x.Members) == 1 && slices.Contains(tv.Renewed, x.Members[0]) {
					continue
				}
				out = append(out, Violation{x, tv.At, tv.Observations})
			}
		}
		state := map[string]bool{}
		for _, x := range spec.CheckState(tv.View) {
			state[x.String()] = true
			if !prevState[x.String()] {
				out = append(out, Violation{x, tv.At, tv.Observations})
			}
		}
		prevState = state
	}
	j := NewJudger(balance)
	if len(views) > 0 {
		j.prev, j.started = views[len(views)-1], true
	}
	return append(out, j.End(h)...)
}

// brokenHistory is a simulated history broken at random: observations
// moved in time, dropped, or given another generation or resources.
func brokenHistory(t *rapid.T) spec.History {
	h, _ := simulate(t)
	h.Observations = slices.Clone(h.Observations)
	for range rapid.IntRange(0, 4).Draw(t, "breaks") {
		if len(h.Observations) == 0 {
			break
		}
		i := rapid.IntRange(0, len(h.Observations)-1).Draw(t, "observation")
		o := &h.Observations[i]
		switch rapid.IntRange(0, 3).Draw(t, "break") {
		case 0:
			h.Observations = slices.Delete(h.Observations, i, i+1)
		case 1:
			d := spec.Nanos(rapid.IntRange(-50, 50).Draw(t, "shift"))
			o.Call, o.Return = max(0, o.Call+d), max(0, o.Return+d)
		case 2:
			o.Generation = spec.Generation(rapid.IntRange(-1, 5).Draw(t, "generation"))
		case 3:
			if o.Kind <= spec.Lost {
				o.Resources = spec.NewSet(spec.TP("t", int32(rapid.IntRange(0, 4).Draw(t, "partition"))))
			}
		}
	}
	return h
}

// TestSplitAgrees: porcupine's verdict with each resource's sub-history
// cut at every free instant (split with pieces of one operation or more)
// is its verdict on the whole sub-history, on simulated histories broken
// at random.
func TestSplitAgrees(t *testing.T) {
	whole, cut := Model(), Model()
	whole.Partition = byResource
	cut.Partition = func(ops []porcupine.Operation) [][]porcupine.Operation {
		var out [][]porcupine.Operation
		for _, part := range byResource(ops) {
			out = append(out, split(part, 1)...)
		}
		return out
	}
	rapid.Check(t, func(t *rapid.T) {
		h := brokenHistory(t)
		if h.Validate() != nil {
			t.Skip("the break made an invalid history")
		}
		ops := Operations(h)
		if c, w := porcupine.CheckOperations(cut, ops), porcupine.CheckOperations(whole, ops); c != w {
			t.Fatalf("cut at free instants: linearizable %v; whole: %v\n%s", c, w, text(h))
		}
	})
}

// viewsOf yields the views of h, every process's built again at every
// instant.
func viewsOf(h spec.History, yield func(TimedView) bool) { views(h, true, false, yield) }

// TestJudgerScoped: views built only for the changed processes are the
// views built whole, JudgeSeq (views built in place) finds what Judge
// finds, and judging only the resources the changed processes
// touch finds exactly what judging every whole view finds, on simulated
// histories broken at random (observations moved in time, dropped, or
// given another generation or resources).
func TestJudgerScoped(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := brokenHistory(t)
		if h.Validate() != nil {
			t.Skip("the break made an invalid history")
		}
		views := Views(h)
		var rebuilt []TimedView
		views0 := func(tv TimedView) bool { rebuilt = append(rebuilt, tv); return true }
		viewsOf(h, views0)
		if diff := cmp.Diff(rebuilt, views); diff != "" {
			t.Fatalf("views built only for the changed processes differ from views built whole (-whole +changed):\n%s", diff)
		}
		got := Judge(h, views, spec.CheckBalance)
		want := fullJudge(h, views, spec.CheckBalance)
		key := func(vs []Violation) []string {
			var out []string
			for _, v := range vs {
				out = append(out, fmt.Sprintf("%d %s", v.At, v.Violation))
			}
			slices.Sort(out)
			return out
		}
		if _, seq := JudgeSeq(h, spec.CheckBalance, nil); !slices.Equal(key(seq), key(got)) {
			t.Fatalf("JudgeSeq:\n%s\nJudge:\n%s", strings.Join(key(seq), "\n"), strings.Join(key(got), "\n"))
		}
		if !slices.Equal(key(got), key(want)) {
			t.Fatalf("scoped judge:\n%s\nfull judge:\n%s\nhistory:\n%s", strings.Join(key(got), "\n"), strings.Join(key(want), "\n"), text(h))
		}
	})
}
