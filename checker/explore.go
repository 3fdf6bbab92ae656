package checker

import (
	"cmp"
	"errors"
	"fmt"
	"runtime/metrics"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/spec"
)

// Options configure one exploration. The zero value explores with one
// worker, fingerprints, no symmetry reduction, liveness on, and no limits.
type Options struct {
	// Workers is the number of goroutines expanding states; 0 means 1.
	Workers int
	// Symmetry merges states that differ only by a permutation of the
	// model's interchangeable members: it keeps a state's least encoding
	// over the renamings that order them by signature (MemberSigner).
	Symmetry bool
	// Exact stores each state's whole canonical encoding instead of its
	// 64-bit fingerprint: no hash collision can hide a state, at several
	// times the memory.
	Exact bool
	// NoLiveness skips the liveness and stability check (and keeps no
	// graph).
	NoLiveness bool
	// MaxStates stops the exploration after this many distinct states;
	// 0 means no limit.
	MaxStates int64
	// TimeLimit stops the exploration after this long; 0 means none.
	TimeLimit time.Duration
	// MaxMemory stops the exploration when the memory the Go runtime
	// holds from the system (heap, stacks and its own structures, less
	// what it has returned) passes this many bytes; 0 means no limit. It
	// is checked every few thousand states, so the peak may pass it by a
	// little; set it below the machine's memory.
	MaxMemory int64
	// Progress, when set, is called from the exploring goroutine about
	// every ProgressEvery (default one second) and at the end of each
	// breadth-first level.
	Progress      func(Progress)
	ProgressEvery time.Duration
}

// Progress is a snapshot of a running exploration.
type Progress struct {
	Distinct, Transitions int64
	Queue, Depth          int
	Elapsed               time.Duration
}

// StatesPerSecond is the rate of new distinct states so far.
func (p Progress) StatesPerSecond() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Distinct) / p.Elapsed.Seconds()
}

// Result is what an exploration found.
type Result struct {
	// Distinct is the number of distinct states stored, Transitions the
	// number of steps taken from them, Depth the number of breadth-first
	// levels below the initial states that were reached.
	Distinct, Transitions int64
	Depth                 int
	Elapsed               time.Duration
	// Complete is true when every reachable state was explored (no limit
	// hit and no safety violation stopped the search).
	Complete bool
	// Stopped says why the exploration ended early, "" when Complete.
	Stopped string
	// StoredBytes is the memory of the seen set and the per-state records
	// (parent, action, and the liveness graph when kept), not counting
	// the frontier's concrete states.
	StoredBytes int64
	// PeakMemory is the most memory the process held (see
	// Options.MaxMemory) at the checks made for MaxMemory; 0 without a
	// limit.
	PeakMemory int64
	// Busy is the share of the workers' time in the breadth-first levels
	// that went into expanding states: summed over the workers, the time
	// each spent on its part of a level, over Workers times the levels'
	// time. The rest the workers spent waiting: for a level's last states
	// (a level of fewer states than workers leaves some with none), and
	// for the merge between levels, which one of them does. It says how
	// much of a speed-up below the number of workers comes from the
	// levels' structure rather than from the workers slowing each other
	// down (docs/checker.md). Close to 1 with one worker.
	Busy float64
	// LivenessChecked is true when the liveness and stability laws were
	// checked over the complete graph.
	LivenessChecked bool
	// Violations are the counterexamples: for a safety law, the shortest
	// path to a first violation, one per law found at the smallest depth;
	// for liveness, a lasso (a path and a fair cycle).
	Violations []Counterexample
}

// StatesPerSecond is the rate of distinct states over the whole run.
func (r Result) StatesPerSecond() float64 {
	return Progress{Distinct: r.Distinct, Elapsed: r.Elapsed}.StatesPerSecond()
}

// Step is one step of a counterexample.
type Step struct {
	// Line is the step as a command of the scenario language.
	Line string
	Kind Kind
	// Note says what the step does where Line does not (the message a
	// "deliver 2" delivers), when the model is a Noter.
	Note string
}

// Noter is a Model that can say what an action does in a state, for the
// table of a counterexample's steps.
type Noter[S, A any] interface {
	Note(s S, a A) string
}

// Recycler is a Model that takes back a state the checker is done with,
// so that Step may reuse its memory: a successor it drops (a state it had
// seen), and a state it has expanded, whose successors are in use and may
// share with it whatever it points to. Recycle may reuse the memory of the
// state itself, never what the state's successors may share. The checker
// keeps no reference to a state it recycles, and recycles no initial
// state.
type Recycler[S any] interface {
	Recycle(s S)
}

// Discarder is a Model that takes back a successor the checker dropped
// because it had seen the state before: no state was stepped from it and
// the checker kept no reference to it (it has encoded it, and is done
// with the encoder's output), so the model may reuse everything the
// successor holds that it does not share with the state it was stepped
// from. For such a successor the checker calls Discard instead of
// Recycle; an expanded state is still recycled.
type Discarder[S any] interface {
	Discard(s S)
}

// Keeper is a Model that keeps something of the encoding of a state the
// checker found new: the checker calls Keep right after, with the encoder
// that has just encoded s (without renaming, and finished), so that the
// model may record parts of it (canon.Encoder.RecordSpan) for the
// successors of s, which share most of it, to replay. It is never called
// for a state already seen, which is most successors.
type Keeper[S any] interface {
	Keep(e *canon.Encoder, s S)
}

// ConvergenceTester is a Model that tells whether a state is converged
// without listing what keeps it from converging: with liveness on, the
// checker asks of every state it expands whether it is converged, and
// reads Model.Converged's violations only for a counterexample.
// IsConverged(s) must equal len(Converged(s)) == 0.
type ConvergenceTester[S any] interface {
	IsConverged(s S) bool
}

// Counterexample is a path that breaks a law.
type Counterexample struct {
	// Law names the law broken.
	Law       spec.Law
	Violation spec.Violation
	// Steps is the path from the initial state. For a liveness
	// counterexample, Steps[Loop:] is a cycle that the protocol may repeat
	// forever under weak fairness; Loop is -1 for a safety one.
	Steps []Step
	Loop  int
}

// ErrTooManyActions is returned when a state enables more actions than a
// counterexample can name (65,535).
var ErrTooManyActions = errors.New("checker: a state enables more than 65535 actions")

// item is a frontier entry: a concrete state and its id.
type item[S any] struct {
	s  S
	id uint32
}

// record is what the checker keeps of each state.
type record struct {
	parent uint32 // id of the state it was first reached from; itself for an initial state
	act    uint16 // index of the action in the parent's Actions
}

// found is a safety violation found on a step.
type found struct {
	v      spec.Violation
	parent uint32
	act    uint16
}

type explorer[S, A any] struct {
	m    Model[S, A]
	rec  Recycler[S]  // m, when it recycles states; nil otherwise
	disc Discarder[S] // m, when it reuses dropped successors; nil otherwise
	keep Keeper[S]    // m, when it keeps new states' encodings; nil otherwise
	// converged is m's IsConverged when m is a ConvergenceTester, else
	// the test that m.Converged lists nothing.
	converged func(S) bool
	o         Options
	seen      *seenSet
	sym       *symmetry[S] // nil without Options.Symmetry

	// nextID is the id the next new state gets: ids are dense from 0, so
	// it is also the number of distinct states stored. Every new state
	// adds to it, from any worker, so it has cache lines of its own
	// (alone): on a line with the fields the workers read at every step
	// (sym, graph), each new state would make the other cores fetch
	// them again.
	nextID  alone[atomic.Uint32]
	records []record
	graph   *graph // nil without liveness
	inits   []item[S]

	// transitions counts the steps taken; each worker adds its own count
	// once per chunk of the frontier, not once per step, so that two
	// workers do not contend for the counter's cache line on every step.
	transitions atomic.Int64
	// stopped is set when a limit is hit in the middle of a level.
	stopped atomic.Bool
	// memoryChecks counts limit checks; the memory is read on every 64th.
	// memoryHit is the memory limit's report once it is hit.
	memoryChecks atomic.Int64
	memoryHit    atomic.Pointer[string]
	peakMemory   atomic.Int64
	// encoders are the workers' encoders, kept from level to level (with
	// their buffers and the arena their recordings are cut from); worker
	// k uses encoders[k] only.
	encoders []*canon.Encoder
	// regions splits the next level's frontier by the worker that made
	// its states: worker k's are frontier[regions[k]:regions[k+1]].
	regions []int
	// outs are the workers' outputs, kept from level to level (see
	// expansion); worker k uses outs[k] only, and writes to it at every
	// step, so each is alone on its cache lines.
	outs []alone[expansion[S]]
	// crew runs the levels' workers when Workers > 1 (nil otherwise), for
	// the whole of run.
	crew *crew
	// busy is the time the workers spent on their parts of the levels,
	// summed over levels and workers; levels the levels' time (Result.Busy).
	busy, levels time.Duration
}

// maxChunk is the most states of a level's frontier a worker takes at a
// time (fewer near the end of its part: frontierClaims.claim). The
// workers count their steps and check the limits once a chunk.
const maxChunk = 64

// memoryInUse is the memory the Go runtime holds from the system and has
// not returned to it.
func memoryInUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()) - int64(s[1].Value.Uint64())
}

// Explore checks m exhaustively (within o's limits) and returns what it
// found. It returns an error only when the model misbehaves (an action that
// cannot be named) or when o.Symmetry would try more than MaxPermutations
// permutations on each state; law violations are in the Result.
func Explore[S, A any](m Model[S, A], o Options) (Result, error) {
	if o.Workers <= 0 {
		o.Workers = 1
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = time.Second
	}
	x := &explorer[S, A]{m: m, o: o, seen: newSeenSet(o.Exact)}
	x.rec, _ = m.(Recycler[S])
	x.disc, _ = m.(Discarder[S])
	x.keep, _ = m.(Keeper[S])
	x.converged = func(s S) bool { return len(m.Converged(s)) == 0 }
	if t, ok := m.(ConvergenceTester[S]); ok {
		x.converged = t.IsConverged
	}
	if o.Symmetry {
		signer, _ := m.(MemberSigner[S])
		sym, err := newSymmetry(m.Interchangeable(), signer)
		if err != nil {
			return Result{}, err
		}
		x.sym = sym
	}
	if !o.NoLiveness {
		x.graph = &graph{}
	}
	start := time.Now()
	res, err := x.run(start)
	res.Elapsed = time.Since(start)
	res.Distinct = x.distinctStates()
	res.Transitions = x.transitions.Load()
	res.StoredBytes = x.seen.size() + int64(len(x.records))*6
	res.PeakMemory = x.peakMemory.Load()
	if x.levels > 0 {
		res.Busy = float64(x.busy) / (float64(o.Workers) * float64(x.levels))
	}
	if x.graph != nil {
		res.StoredBytes += x.graph.size()
	}
	return res, err
}

func (x *explorer[S, A]) run(start time.Time) (Result, error) {
	var res Result
	if x.o.Workers > 1 {
		x.crew = newCrew(x.o.Workers)
		defer x.crew.stop()
	}
	frontier := []item[S]{}
	enc := &canon.Encoder{}
	for _, s := range x.m.Init() {
		fp, b := x.fingerprint(enc, s)
		id, isNew := x.seen.insert(fp, b, x.allocID)
		if !isNew {
			continue
		}
		if x.keep != nil {
			x.keep.Keep(enc, s)
		}
		x.grow(id)
		x.records[id] = record{parent: id}
		x.inits = append(x.inits, item[S]{s, id})
		frontier = append(frontier, item[S]{s, id})
	}
	lastProgress := start
	for depth := 0; len(frontier) > 0; depth++ {
		began := time.Now()
		next, viols, err := x.level(frontier, start, &lastProgress, depth)
		x.levels += time.Since(began)
		if err != nil {
			return res, err
		}
		if len(next) > 0 {
			res.Depth = depth + 1
		}
		x.report(start, len(next), depth+1)
		if len(viols) > 0 {
			res.Violations = x.safetyCounterexamples(viols)
			res.Stopped = fmt.Sprintf("safety violation at depth %d", depth+1)
			return res, nil
		}
		if reason := x.limitHit(start); reason != "" {
			res.Stopped = reason
			return res, nil
		}
		frontier = next
	}
	res.Complete = true
	if x.graph != nil {
		res.LivenessChecked = true
		res.Violations = x.liveness()
	}
	return res, nil
}

func (x *explorer[S, A]) limitHit(start time.Time) string {
	if x.o.MaxStates > 0 && x.distinctStates() >= x.o.MaxStates {
		return fmt.Sprintf("state limit %d reached", x.o.MaxStates)
	}
	if r := x.memoryHit.Load(); r != nil {
		return *r
	}
	if x.o.MaxMemory > 0 && x.memoryChecks.Add(1)%64 == 0 {
		used := memoryInUse()
		for peak := x.peakMemory.Load(); used > peak && !x.peakMemory.CompareAndSwap(peak, used); peak = x.peakMemory.Load() {
		}
		if used > x.o.MaxMemory {
			r := fmt.Sprintf("memory limit %d MiB reached (%d MiB in use)", x.o.MaxMemory>>20, used>>20)
			x.memoryHit.CompareAndSwap(nil, &r)
			return *x.memoryHit.Load()
		}
	}
	if x.o.TimeLimit > 0 && time.Since(start) >= x.o.TimeLimit {
		return fmt.Sprintf("time limit %s reached", x.o.TimeLimit)
	}
	return ""
}

func (x *explorer[S, A]) report(start time.Time, queue, depth int) {
	if x.o.Progress == nil {
		return
	}
	x.o.Progress(Progress{Distinct: x.distinctStates(), Transitions: x.transitions.Load(), Queue: queue, Depth: depth, Elapsed: time.Since(start)})
}

// fingerprint encodes s (with Options.Symmetry, the least encoding over
// the renamings encodeReduced tries) and returns its fingerprint and the
// encoding (valid until the next call with enc). It leaves enc as
// encoding s without renaming left it, for Keeper.Keep.
func (x *explorer[S, A]) fingerprint(enc *canon.Encoder, s S) (uint64, []byte) {
	b := x.encode(enc, s)
	return canon.Fingerprint(b), b
}

func (x *explorer[S, A]) allocID() uint32 { return x.nextID.v.Add(1) - 1 }

// distinctStates is the number of distinct states stored so far.
func (x *explorer[S, A]) distinctStates() int64 { return int64(x.nextID.v.Load()) }

func (x *explorer[S, A]) encode(enc *canon.Encoder, s S) []byte {
	if x.sym != nil {
		return x.encodeReduced(enc, s)
	}
	enc.OpenPayloads = false
	enc.Reset()
	enc.Rename = nil
	x.m.Encode(enc, s)
	return enc.Finish()
}

func (x *explorer[S, A]) grow(id uint32) {
	for int(id) >= len(x.records) {
		x.records = append(x.records, record{})
	}
}

// expansion is one worker's output for a level. The explorer keeps each
// worker's from level to level (explorer.outs), so that its lists grow to
// the size of a level once rather than in every level; the graph keeps
// edges, which are new in each level.
//
// Invariant: between levels, next holds no states (the merge clears it).
type expansion[S any] struct {
	next []item[S]
	recs []struct {
		id, parent uint32
		act        uint16
	}
	viols  []found
	edges  []edge
	states []stateInfo
	keys   []uint64
	err    error
	// busy is the time the worker spent on its part of the level, from
	// its first claim to finding nothing left to claim.
	busy time.Duration
}

// reset empties out for a level: its lists keep their memory but for
// edges, which the graph keeps.
func (out *expansion[S]) reset() {
	out.next, out.recs, out.viols = out.next[:0], out.recs[:0], out.viols[:0]
	out.edges, out.states, out.keys = nil, out.states[:0], out.keys[:0]
	out.err = nil
}

// level expands every state of the frontier with the workers and returns
// the next frontier, in a deterministic order for one worker.
func (x *explorer[S, A]) level(frontier []item[S], start time.Time, last *time.Time, depth int) ([]item[S], []found, error) {
	w := min(x.o.Workers, len(frontier))
	for len(x.encoders) < w {
		// Each encoder alone on its cache lines: a worker writes to its
		// encoder at every step.
		x.encoders = append(x.encoders, &new(alone[canon.Encoder]).v)
		x.outs = append(x.outs, alone[expansion[S]]{})
	}
	outs := x.outs[:w]
	for k := range outs {
		outs[k].v.reset()
	}
	claims := newFrontierClaims(x.regions, len(frontier), w, maxChunk)
	// job is worker k's part of the level. Worker 0 runs on the caller's
	// goroutine, and only it reports progress, so *last needs no lock.
	job := func(k int) {
		if k >= w {
			return // a crew larger than this level needs
		}
		enc := x.encoders[k]
		var acts []A
		out := &outs[k].v
		began := time.Now()
		defer func() { out.busy = time.Since(began) }()
		for {
			i, end, ok := claims.claim(k)
			if !ok || x.stopped.Load() {
				return
			}
			if x.limitHit(start) != "" {
				x.stopped.Store(true)
				return
			}
			steps := 0
			for j := i; j < end; j++ {
				n, err := x.expand(enc, &acts, frontier[j], out)
				steps += n
				if out.err = err; err != nil {
					return
				}
				if x.rec != nil && depth > 0 {
					// Expanded: the checker never reads the state again
					// (the initial states, depth 0, are kept for the
					// paths of counterexamples).
					x.rec.Recycle(frontier[j].s)
				}
			}
			x.transitions.Add(int64(steps))
			if k == 0 && x.o.Progress != nil && time.Since(*last) >= x.o.ProgressEvery {
				*last = time.Now()
				x.report(start, claims.left(), depth+1)
			}
		}
	}
	if x.crew != nil && w > 1 {
		x.crew.run(job)
	} else {
		job(0)
	}
	size := 0
	for k := range outs {
		size += len(outs[k].v.next)
	}
	nextFrontier := make([]item[S], 0, size)
	var viols []found
	if n := x.nextID.v.Load(); n > 0 {
		x.grow(n - 1)
	}
	x.regions = append(x.regions[:0], 0)
	for k := range outs {
		out := &outs[k].v
		x.busy += out.busy
		if out.err != nil {
			return nil, nil, out.err
		}
		nextFrontier = append(nextFrontier, out.next...)
		clear(out.next) // the states are the next frontier's now
		x.regions = append(x.regions, len(nextFrontier))
		viols = append(viols, out.viols...)
		for _, r := range out.recs {
			x.records[r.id] = record{parent: r.parent, act: r.act}
		}
		if x.graph != nil {
			x.graph.add(out.edges, out.states, out.keys)
		}
	}
	slices.SortStableFunc(viols, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.parent, b.parent), cmp.Compare(a.act, b.act))
	})
	return nextFrontier, viols, nil
}

// expand takes every action enabled in it.s and returns how many it took.
func (x *explorer[S, A]) expand(enc *canon.Encoder, acts *[]A, it item[S], out *expansion[S]) (int, error) {
	*acts = x.m.Actions(it.s, (*acts)[:0])
	if len(*acts) > 0xFFFF {
		return 0, ErrTooManyActions
	}
	// ownKey is the index in out.keys of the next Own action's fairness
	// key: the keys are computed once, for the state's record in the
	// graph, and read again for its edges.
	ownKey := len(out.keys)
	if x.graph != nil {
		info := stateInfo{id: it.id, converged: x.converged(it.s), owners: x.m.Owners(it.s), keysFrom: ownKey}
		for _, a := range *acts {
			if x.m.Kind(a) == Own {
				out.keys = append(out.keys, x.m.FairKey(it.s, a))
			}
		}
		info.keysTo = len(out.keys)
		out.states = append(out.states, info)
	}
	for i, a := range *acts {
		t, viols := x.m.Step(it.s, a)
		fp, b := x.fingerprint(enc, t)
		id, isNew := x.seen.insert(fp, b, x.allocID)
		if isNew {
			if x.keep != nil {
				x.keep.Keep(enc, t)
			}
			out.next = append(out.next, item[S]{t, id})
			out.recs = append(out.recs, struct {
				id, parent uint32
				act        uint16
			}{id, it.id, uint16(i)})
		}
		for _, v := range viols {
			out.viols = append(out.viols, found{v: v, parent: it.id, act: uint16(i)})
		}
		switch {
		case isNew:
		case x.disc != nil:
			x.disc.Discard(t)
		case x.rec != nil:
			x.rec.Recycle(t)
		}
		if x.graph != nil {
			switch k := x.m.Kind(a); k {
			case Own:
				out.edges = append(out.edges, edge{from: it.id, to: id, act: uint16(i), key: out.keys[ownKey]})
				ownKey++
			case EnvUnbounded:
				out.edges = append(out.edges, edge{from: it.id, to: id, act: uint16(i), env: true})
			}
		}
	}
	return len(*acts), nil
}

// path returns the action indexes from an initial state to id, and that
// initial state.
func (x *explorer[S, A]) path(id uint32) (S, []uint16) {
	var acts []uint16
	for {
		r := x.records[id]
		if r.parent == id {
			break
		}
		acts = append(acts, r.act)
		id = r.parent
	}
	slices.Reverse(acts)
	for _, it := range x.inits {
		if it.id == id {
			return it.s, acts
		}
	}
	panic(fmt.Sprintf("checker: state %d has no parent and is not initial", id))
}

// replay takes the actions by index from s and returns the steps and the
// state reached.
func (x *explorer[S, A]) replay(s S, acts []uint16) ([]Step, S) {
	var steps []Step
	var buf []A
	for _, i := range acts {
		buf = x.m.Actions(s, buf[:0])
		a := buf[i]
		steps = append(steps, x.step(s, a))
		s, _ = x.m.Step(s, a)
	}
	return steps, s
}

// step describes taking a in s.
func (x *explorer[S, A]) step(s S, a A) Step {
	st := Step{Line: x.m.Line(s, a), Kind: x.m.Kind(a)}
	if n, ok := x.m.(Noter[S, A]); ok {
		st.Note = n.Note(s, a)
	}
	return st
}

func (x *explorer[S, A]) safetyCounterexamples(viols []found) []Counterexample {
	var out []Counterexample
	laws := map[spec.Law]bool{}
	for _, f := range viols {
		if laws[f.v.Law] {
			continue
		}
		laws[f.v.Law] = true
		init, acts := x.path(f.parent)
		steps, s := x.replay(init, acts)
		var buf []A
		buf = x.m.Actions(s, buf)
		steps = append(steps, x.step(s, buf[f.act]))
		out = append(out, Counterexample{Law: f.v.Law, Violation: f.v, Steps: steps, Loop: -1})
	}
	slices.SortFunc(out, func(a, b Counterexample) int { return strings.Compare(string(a.Law), string(b.Law)) })
	return out
}
