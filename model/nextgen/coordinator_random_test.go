package nextgen

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// The random runs drive one coordinator with simple, well-behaved client
// processes (they join, heartbeat what they own, take every assignment at
// once, rejoin when fenced, leave, park and come back as static members,
// resubscribe) in a hostile environment (lost responses, metadata changes,
// timers firing). After every step: the coordinator's invariants, and every
// current member owns only what the coordinator records it as holding (so
// current members never share a partition). Once the environment is quiet,
// the group must converge: STABLE, each member owning its target, every
// subscribed partition owned.

type proc struct {
	name     string
	instance string // "" for a dynamic member
	id       spec.MemberID
	incarn   int
	joined   bool
	epoch    spec.Epoch
	owned    spec.Set
	topics   []string
	assignor string
	up       bool // false while away (left)
}

type randomRun struct {
	t      *testing.T
	rng    *rand.Rand
	c      *Coordinator
	now    Millis
	procs  []*proc
	timers map[Timer]Millis
	log    []string
	// catch makes fail panic with a randomFailure instead of failing the
	// test, for runs that are expected to break a law.
	catch bool
	// onStep, when set, is called with the coordinator after every step.
	onStep func(*Coordinator)
}

type randomFailure struct{ msg string }

func (w *randomRun) fail(format string, args ...any) {
	w.t.Helper()
	if w.catch {
		panic(randomFailure{fmt.Sprintf(format, args...)})
	}
	tail := w.log
	if len(tail) > 40 {
		tail = tail[len(tail)-40:]
	}
	w.t.Fatalf("%s\nlast steps:\n%s\nstate:\n%s", fmt.Sprintf(format, args...), strings.Join(tail, "\n"), w.c)
}

// step runs ev on a Fork of the coordinator, which then replaces it, and
// checks it against the reference, a Clone stepped alike: the same output
// (deeply equal) and state, and the coordinator forked from unchanged. Every random run
// thus checks what a fork shares copy-on-write. States are compared by
// their canonical encodings, which hold every field of the state
// (TestEncoderCoversEveryField) and cost much less than printing.
func (w *randomRun) step(ev node.Event) Output {
	w.t.Helper()
	in := node.Input{Now: w.now, Event: ev}
	orig, enc := w.c, encodeAt(w.c, w.now)
	ref := orig.Clone()
	w.c = orig.Fork()
	out := w.c.Step(in)
	if out.Messages != nil && len(out.Messages) == 0 || out.Timers != nil && len(out.Timers) == 0 {
		w.fail("after %s: output %s has an empty list that is not nil", ev, out)
	}
	if refOut := ref.Step(in); !reflect.DeepEqual(out, refOut) || encodeAt(w.c, w.now) != encodeAt(ref, w.now) {
		w.fail("after %s: the fork output\n%s\nand is\n%s\na clone output\n%s\nand is\n%s", ev, out, w.c, refOut, ref)
	}
	if encodeAt(orig, w.now) != enc {
		w.fail("stepping a fork with %s changed the coordinator forked from:\n%s", ev, orig)
	}
	w.log = append(w.log, fmt.Sprintf("@%d %s", w.now, ev))
	for _, m := range out.Messages {
		w.log = append(w.log, "  "+m.String())
	}
	for _, tc := range out.Timers {
		w.log = append(w.log, "  "+tc.String())
		if tc.Cancel {
			if _, ok := w.timers[tc.Timer]; !ok {
				w.fail("cancel of %s, which is not armed", tc.Timer)
			}
			delete(w.timers, tc.Timer)
		} else {
			w.timers[tc.Timer] = tc.At
		}
	}
	if w.onStep != nil {
		w.onStep(w.c)
	}
	if err := w.c.CheckInvariants(); err != nil {
		w.fail("%v", err)
	}
	if w.catch {
		w.log = nil // only the failure matters
	}
	return out
}

// send delivers p's request and, unless lost, hands p the response.
func (w *randomRun) send(p *proc, r HeartbeatRequest, lose bool) {
	out := w.step(Receive{From: p.name, Msg: r})
	if len(out.Messages) != 1 {
		w.fail("%d responses", len(out.Messages))
	}
	resp := out.Messages[0].Msg.(HeartbeatResponse)
	if validateLeave(r.MemberEpoch) {
		if resp.Error != spec.None && resp.Error != spec.UnknownMemberID {
			w.fail("leave refused: %s", resp)
		}
		return
	}
	switch resp.Error {
	case spec.None:
	case spec.FencedMemberEpoch, spec.UnknownMemberID:
		if lose {
			return
		}
		// The process loses its partitions and rejoins with epoch 0. A
		// static member first parks its instance (-2), or the coordinator
		// would answer its rejoin UNRELEASED_INSTANCE_ID until its old
		// session expired.
		p.joined, p.owned = false, nil
		if p.instance != "" {
			l := HeartbeatRequest{GroupID: "g", MemberID: p.id, MemberEpoch: spec.StaticLeaveEpoch,
				RebalanceTimeoutMs: -1, InstanceID: &p.instance}
			w.send(p, l, false)
		}
		return
	case spec.UnreleasedInstanceID:
		return // the old incarnation is still registered; try later
	default:
		w.fail("unexpected %s for %s", resp, r)
	}
	if lose {
		return
	}
	p.epoch = resp.MemberEpoch
	if resp.AssignmentSent {
		p.owned = resp.Assignment
	}
}

func validateLeave(e spec.Epoch) bool { return e == spec.LeaveEpoch || e == spec.StaticLeaveEpoch }

// request is p's next heartbeat: a join (epoch 0, everything sent,
// owning nothing) until p has an epoch, else its epoch and owned
// partitions, with the other fields when full.
func (w *randomRun) request(p *proc, full bool) HeartbeatRequest {
	r := HeartbeatRequest{GroupID: "g", MemberID: p.id, MemberEpoch: p.epoch, RebalanceTimeoutMs: -1,
		TopicPartitions: p.owned, OwnedSent: true}
	if !p.joined || p.epoch == 0 {
		p.joined, p.epoch, p.owned = true, 0, nil
		r.MemberEpoch, r.TopicPartitions = 0, nil
		full = true
	}
	if full {
		r.RebalanceTimeoutMs = 20000
		r.SubscribedTopicNames, r.SubscriptionSent = p.topics, true
		if p.assignor != "" {
			r.ServerAssignor = &p.assignor
		}
	}
	if p.instance != "" {
		r.InstanceID = &p.instance
	}
	return r
}

func (w *randomRun) heartbeat(p *proc, lose bool) {
	r := w.request(p, w.rng.IntN(4) == 0)
	if r.MemberEpoch > 0 && w.rng.IntN(8) == 0 {
		r.TopicPartitions, r.OwnedSent = nil, false
	}
	w.send(p, r, lose)
}

// checkOwnership: a process that the coordinator counts as a current
// member under its member id owns only what the coordinator holds for it,
// and no two such processes own the same partition.
func (w *randomRun) checkOwnership() {
	held := w.c.Owners()
	owner := map[spec.Resource]string{}
	for _, p := range w.procs {
		if !p.up || !p.joined || !w.c.IsMember(p.id) {
			continue
		}
		if extra := p.owned.Minus(held[p.id]); !extra.IsEmpty() {
			w.fail("%s (%s) owns %s, which the coordinator does not hold for it", p.name, p.id, extra)
		}
		for _, r := range p.owned {
			if other, ok := owner[r]; ok {
				w.fail("%s and %s both own %s", other, p.name, r)
			}
			owner[r] = p.name
		}
	}
}

var randomTopics = []string{"a", "b", "c"}

func (w *randomRun) randomTopicsSub() []string {
	var out []string
	for _, t := range randomTopics {
		if w.rng.IntN(2) == 0 {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		out = []string{randomTopics[w.rng.IntN(len(randomTopics))]}
	}
	return out
}

func (w *randomRun) act() {
	w.now += Millis(w.rng.IntN(3000))
	p := w.procs[w.rng.IntN(len(w.procs))]
	switch k := w.rng.IntN(20); {
	case k < 12:
		if p.up {
			w.heartbeat(p, w.rng.IntN(6) == 0)
		}
	case k < 13:
		if p.up && p.joined {
			// leave: a static member parks, a dynamic one leaves for good
			e := spec.LeaveEpoch
			if p.instance != "" && w.rng.IntN(3) > 0 {
				e = spec.StaticLeaveEpoch
			}
			r := HeartbeatRequest{GroupID: "g", MemberID: p.id, MemberEpoch: e, RebalanceTimeoutMs: -1}
			if p.instance != "" {
				r.InstanceID = &p.instance
			}
			w.send(p, r, false)
			p.up, p.joined, p.owned = false, false, nil
		}
	case k < 15:
		if !p.up {
			p.up = true
			p.incarn++
			p.id = spec.MemberID(fmt.Sprintf("%s.%d", p.name, p.incarn))
		}
	case k < 16:
		if p.up && p.joined {
			p.topics = w.randomTopicsSub()
			w.send(p, w.request(p, true), false)
		}
	case k < 17:
		topics := spec.Topics{}
		for _, t := range randomTopics {
			if w.rng.IntN(5) > 0 {
				topics[t] = int32(w.rng.IntN(5))
			}
		}
		w.step(node.MetadataUpdate{Topics: topics})
	default:
		// fire the earliest armed timer (ties by name)
		if len(w.timers) == 0 {
			return
		}
		ts := slices.SortedFunc(maps.Keys(w.timers), func(a, b Timer) int {
			if w.timers[a] != w.timers[b] {
				return int(w.timers[a] - w.timers[b])
			}
			return compareStrings(a.String(), b.String())
		})
		t := ts[0]
		if at := w.timers[t]; at > w.now {
			w.now = at
		}
		delete(w.timers, t)
		w.step(TimerFired{Timer: t})
	}
	w.checkOwnership()
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fireDue fires, in deadline order, every armed timer due by now.
func (w *randomRun) fireDue() {
	for {
		var due []Timer
		for t, at := range w.timers {
			if at <= w.now {
				due = append(due, t)
			}
		}
		if len(due) == 0 {
			return
		}
		t := slices.MinFunc(due, func(a, b Timer) int {
			if w.timers[a] != w.timers[b] {
				return int(w.timers[a] - w.timers[b])
			}
			return compareStrings(a.String(), b.String())
		})
		delete(w.timers, t)
		w.step(TimerFired{Timer: t})
		w.checkOwnership()
	}
}

// quiesce brings every process back and lets them heartbeat every 5 s,
// without losses, while due timers fire, and then checks convergence.
func (w *randomRun) quiesce() {
	for _, p := range w.procs {
		if !p.up {
			p.up = true
			p.incarn++
			p.id = spec.MemberID(fmt.Sprintf("%s.%d", p.name, p.incarn))
		}
	}
	for round := 0; round < 20; round++ {
		w.now += 5000
		w.fireDue()
		for _, p := range w.procs {
			w.heartbeat(p, false)
			w.checkOwnership()
		}
	}
	if w.c.State() != GroupStable {
		w.fail("not stable after quiet rounds")
	}
	tgt := w.c.Target()
	var all spec.Set
	for _, p := range w.procs {
		if !w.c.IsMember(p.id) {
			w.fail("%s (%s) is not a member after quiet rounds", p.name, p.id)
		}
		if !p.owned.Equal(tgt[p.id]) {
			w.fail("%s owns %s, target %s", p.name, p.owned, tgt[p.id])
		}
		all = all.Union(w.c.Topics().Resources(p.topics...))
	}
	if len(w.c.Members()) != len(w.procs) {
		w.fail("members %v, want one per process", w.c.Members())
	}
	if !tgt.All().Equal(all) {
		w.fail("target covers %s, subscribed partitions are %s", tgt.All(), all)
	}
}

// runRandom runs one random run: 300 random actions, then the quiet rounds.
func runRandom(t *testing.T, seed uint64, faults Fault, catch bool) {
	runRandomObserved(t, seed, faults, catch, nil)
}

// runRandomObserved is runRandom calling onStep after every step.
func runRandomObserved(t *testing.T, seed uint64, faults Fault, catch bool, onStep func(*Coordinator)) {
	rng := rand.New(rand.NewPCG(seed, 99))
	sem := Semantics{
		BeforeKafka19233: seed%3 == 0,
		BeforeKafka19449: seed%4 == 0,
		BeforeKafka18688: seed%5 == 0,
	}
	c, err := NewCoordinator(CoordinatorConfig{GroupID: "g", SessionTimeout: 30000, HeartbeatInterval: 3000,
		Topics: spec.Topics{"a": 3, "b": 2, "c": 4}, Semantics: sem, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	w := &randomRun{t: t, rng: rng, c: c, timers: map[Timer]Millis{}, catch: catch, onStep: onStep}
	for i, name := range []string{"A", "B", "C", "D"} {
		p := &proc{name: name, id: spec.MemberID(name + ".0"), up: true}
		if i%2 == 1 {
			p.instance = "i-" + name
		}
		p.topics = w.randomTopicsSub()
		if rng.IntN(3) == 0 {
			p.assignor = []string{"uniform", "range"}[rng.IntN(2)]
		}
		w.procs = append(w.procs, p)
	}
	for i := 0; i < 300; i++ {
		w.act()
	}
	w.quiesce()
}

func TestRandomRuns(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runRandom(t, seed, 0, false) })
	}
}

// TestRandomRunsFindFaults: with a fault that breaks exclusive ownership,
// some random run finds two current members owning one partition (or a
// member owning what the coordinator no longer holds for it).
func TestRandomRunsFindFaults(t *testing.T) {
	for _, f := range []Fault{AssignBeforeRelease, StraightToTarget} {
		t.Run(f.String(), func(t *testing.T) {
			for seed := uint64(1); seed <= 100; seed++ {
				if msg, found := catchRandom(t, seed, f); found {
					t.Logf("seed %d: %s", seed, msg)
					return
				}
			}
			t.Fatalf("no run found a violation with fault %s", f)
		})
	}
}

func catchRandom(t *testing.T, seed uint64, f Fault) (msg string, found bool) {
	defer func() {
		if r := recover(); r != nil {
			rf, ok := r.(randomFailure)
			if !ok {
				panic(r)
			}
			msg, found = rf.msg, true
		}
	}()
	runRandom(t, seed, f, true)
	return "", false
}

// encodeAt is c's canonical encoding at clock now.
func encodeAt(c *Coordinator, now Millis) string {
	e := &canon.Encoder{Now: int64(now)}
	c.EncodeCanon(e)
	return string(e.Finish())
}
