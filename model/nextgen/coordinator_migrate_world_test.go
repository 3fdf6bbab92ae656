package nextgen

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// A small closed world for the migration tests: one group coordinator,
// which is a consumer-group Coordinator or a classic.Coordinator, real
// classic members (classic.Member) and next-gen members (Member),
// a network that delivers every message in send order, and timers fired
// in deadline order when nothing is in flight. Classic members' messages
// reach a consumer-group coordinator as Classic and its answers
// are unwrapped. The world switches coordinators as model/mixed will:
// after a step whose DowngradeTo reports a classic group, the consumer
// coordinator's timers are dropped and classic.RestoreCoordinator takes
// over. After every step: the coordinators' invariants, and no partition
// is owned by two live members (what the members themselves believe they
// own, the ownership that matters).

type mworld struct {
	t      *testing.T
	now    Millis
	topics spec.Topics
	cg     *Coordinator         // the consumer-group coordinator, or nil
	cc     *classic.Coordinator // the classic coordinator, or nil
	ccfg   classic.CoordinatorConfig
	cms    map[string]*classic.Member
	ngs    map[string]*Member
	queue  []mmsg
	timers map[mtimer]Millis
	log    []string
	steps  int
}

// mmsg is a message in flight: to the coordinator (from a member) or to a
// member.
type mmsg struct {
	from, to string
	msg      fmt.Stringer // classic.Message or Message
}

// mtimer is an armed timer of a node.
type mtimer struct {
	node string
	t    fmt.Stringer // classic.Timer or Timer
}

func newMWorld(t *testing.T, topics spec.Topics) *mworld {
	return &mworld{
		t: t, topics: topics, ccfg: classic.CoordinatorConfig{GroupID: "g"},
		cms: map[string]*classic.Member{}, ngs: map[string]*Member{},
		timers: map[mtimer]Millis{},
	}
}

// addClassic starts a classic member process named name with protocol p.
func (w *mworld) addClassic(name string, p classic.Protocol) {
	m, err := classic.NewMember(classic.MemberConfig{Name: name, Topics: w.topics.Names(), Protocols: []classic.Protocol{p},
		SessionTimeout: classicSession, Metadata: w.topics})
	if err != nil {
		w.t.Fatal(err)
	}
	w.cms[name] = m
	w.memberOut(name, m.Step(node.Input{Now: w.now, Event: node.Start{}}))
}

// addNextGen starts a next-gen member process named name (member id
// name).
func (w *mworld) addNextGen(name string) {
	m, err := NewMember(MemberConfig{Name: name, GroupID: "g", MemberID: spec.MemberID(name), Topics: w.topics.Names(), RebalanceTimeout: testRebalance})
	if err != nil {
		w.t.Fatal(err)
	}
	w.ngs[name] = m
	w.memberOut(name, m.Step(node.Input{Now: w.now, Event: node.Start{}}))
}

// leaveNextGen makes next-gen member name leave the group.
func (w *mworld) leaveNextGen(name string) {
	w.memberOut(name, w.ngs[name].Step(node.Input{Now: w.now, Event: node.Leave{}}))
}

func (w *mworld) logf(format string, args ...any) {
	w.log = append(w.log, fmt.Sprintf("@%d ", w.now)+fmt.Sprintf(format, args...))
}

// memberOut applies a member's output: its messages go in flight, its
// timers are set, and a next-gen member's Revoke callback is answered at
// once (the application revokes at once).
func (w *mworld) memberOut(name string, out any) {
	switch o := out.(type) {
	case classic.Output:
		for _, e := range o.Messages {
			w.queue = append(w.queue, mmsg{from: e.From, to: e.To, msg: e.Msg})
		}
		for _, tc := range o.Timers {
			w.setTimer(name, tc.Timer, tc.At, tc.Cancel)
		}
		for _, cb := range o.Callbacks {
			w.logf("%s callback %s", name, cb)
			if cb.Kind == classic.Fatal {
				w.t.Fatalf("classic member %s failed: %s\n%s", name, cb, strings.Join(w.log, "\n"))
			}
		}
	case Output:
		for _, e := range o.Messages {
			w.queue = append(w.queue, mmsg{from: e.From, to: e.To, msg: e.Msg})
		}
		for _, tc := range o.Timers {
			w.setTimer(name, tc.Timer, tc.At, tc.Cancel)
		}
		for _, cb := range o.Callbacks {
			w.logf("%s callback %s", name, cb)
			switch cb.Kind {
			case Revoke:
				w.memberOut(name, w.ngs[name].Step(node.Input{Now: w.now, Event: RevocationDone{Resources: cb.Resources}}))
			case Fatal:
				w.t.Fatalf("next-gen member %s failed: %s\n%s", name, cb, strings.Join(w.log, "\n"))
			}
		}
	default:
		panic(fmt.Sprintf("output %T", out))
	}
}

func (w *mworld) setTimer(n string, t fmt.Stringer, at Millis, cancel bool) {
	if cancel {
		delete(w.timers, mtimer{n, t})
		return
	}
	w.timers[mtimer{n, t}] = at
}

// coordOut applies the consumer coordinator's output, then switches to a
// classic coordinator if the step downgraded the group.
func (w *mworld) coordOut(out Output) {
	for _, e := range out.Messages {
		w.queue = append(w.queue, mmsg{from: e.From, to: e.To, msg: e.Msg})
	}
	for _, tc := range out.Timers {
		w.setTimer(CoordinatorNode, tc.Timer, tc.At, tc.Cancel)
	}
	if err := w.cg.CheckInvariants(); err != nil {
		w.t.Fatalf("%v\n%s", err, strings.Join(w.log, "\n"))
	}
	if g, ok := w.cg.DowngradeTo(); ok {
		w.logf("downgrade to classic: %d members at generation %d", len(g.Members), g.Generation)
		w.restore(g)
	}
}

// restore replaces the consumer coordinator by a classic one built from g.
func (w *mworld) restore(g classic.CoordinatorSnapshot) {
	armed := w.cg.ArmedTimers()
	for k := range w.timers {
		if k.node == CoordinatorNode {
			if !slices.ContainsFunc(armed, func(tc TimerCmd) bool { return fmt.Sprint(tc.Timer) == fmt.Sprint(k.t) }) {
				w.t.Fatalf("the world holds coordinator timer %s, which ArmedTimers does not list: %v", k.t, armed)
			}
			delete(w.timers, k)
		}
	}
	cc, out := classic.RestoreCoordinator(w.ccfg, g, w.now)
	w.cg, w.cc = nil, cc
	w.classicOut(out)
}

func (w *mworld) classicOut(out classic.Output) {
	for _, e := range out.Messages {
		w.queue = append(w.queue, mmsg{from: e.From, to: e.To, msg: e.Msg})
	}
	for _, tc := range out.Timers {
		w.setTimer(CoordinatorNode, tc.Timer, tc.At, tc.Cancel)
	}
	if err := w.cc.CheckInvariants(); err != nil {
		w.t.Fatalf("%v\n%s", err, strings.Join(w.log, "\n"))
	}
}

// deliver delivers m.
func (w *mworld) deliver(m mmsg) {
	w.logf("%s -> %s %s", m.from, m.to, m.msg)
	if m.to == CoordinatorNode {
		switch msg := m.msg.(type) {
		case classic.Message:
			switch {
			case w.cg != nil:
				w.coordOut(w.cg.Step(node.Input{Now: w.now, Event: Receive{From: m.from, Msg: Classic{Msg: msg}}}))
			case w.cc != nil:
				w.classicOut(w.cc.Step(node.Input{Now: w.now, Event: classic.Receive{From: m.from, Msg: msg}}))
			}
		case Message:
			if w.cg != nil {
				w.coordOut(w.cg.Step(node.Input{Now: w.now, Event: Receive{From: m.from, Msg: msg}}))
			}
		}
		return
	}
	switch msg := m.msg.(type) {
	case Classic:
		w.deliverClassic(m.from, m.to, msg.Msg)
	case classic.Message:
		w.deliverClassic(m.from, m.to, msg)
	case Message:
		if ng := w.ngs[m.to]; ng != nil {
			w.memberOut(m.to, ng.Step(node.Input{Now: w.now, Event: Receive{From: m.from, Msg: msg}}))
		}
	}
}

func (w *mworld) deliverClassic(from, to string, msg classic.Message) {
	if cm := w.cms[to]; cm != nil {
		w.memberOut(to, cm.Step(node.Input{Now: w.now, Event: classic.Receive{From: from, Msg: msg}}))
	}
}

// fire fires the earliest armed timer (ties in node then timer order).
func (w *mworld) fire() bool {
	if len(w.timers) == 0 {
		return false
	}
	keys := slices.SortedFunc(maps.Keys(w.timers), func(a, b mtimer) int {
		return cmp.Or(cmp.Compare(w.timers[a], w.timers[b]), cmp.Compare(a.node, b.node), cmp.Compare(fmt.Sprint(a.t), fmt.Sprint(b.t)))
	})
	k := keys[0]
	w.now = max(w.now, w.timers[k])
	delete(w.timers, k)
	w.logf("fire %s %s", k.node, k.t)
	switch t := k.t.(type) {
	case classic.Timer:
		if k.node == CoordinatorNode {
			w.classicOut(w.cc.Step(node.Input{Now: w.now, Event: classic.TimerFired{Timer: t}}))
		} else {
			w.memberOut(k.node, w.cms[k.node].Step(node.Input{Now: w.now, Event: classic.TimerFired{Timer: t}}))
		}
	case Timer:
		if k.node == CoordinatorNode {
			w.coordOut(w.cg.Step(node.Input{Now: w.now, Event: TimerFired{Timer: t}}))
		} else {
			w.memberOut(k.node, w.ngs[k.node].Step(node.Input{Now: w.now, Event: TimerFired{Timer: t}}))
		}
	}
	return true
}

// step delivers the first message in flight, or fires the earliest timer,
// then checks that no partition is owned twice.
func (w *mworld) step() {
	w.steps++
	if len(w.queue) > 0 {
		m := w.queue[0]
		w.queue = w.queue[1:]
		w.deliver(m)
	} else if !w.fire() {
		w.t.Fatal("nothing to do")
	}
	w.checkExclusive()
}

// owners maps each partition to the live members that believe they own
// it.
func (w *mworld) owners() map[spec.Resource][]string {
	out := map[spec.Resource][]string{}
	for _, name := range slices.Sorted(maps.Keys(w.cms)) {
		for _, p := range w.cms[name].Owned() {
			out[p] = append(out[p], name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(w.ngs)) {
		for _, p := range w.ngs[name].Owned() {
			out[p] = append(out[p], name)
		}
	}
	return out
}

func (w *mworld) checkExclusive() {
	w.t.Helper()
	for p, who := range w.owners() {
		if len(who) > 1 {
			w.t.Fatalf("partition %s owned by %v\n%s", p, who, strings.Join(w.log, "\n"))
		}
	}
}

// converged reports whether every partition is owned by exactly one
// member and the coordinator is stable with nothing in flight.
func (w *mworld) converged() bool {
	if len(w.queue) > 0 || len(w.owners()) != len(w.topics.Resources(w.topics.Names()...)) {
		return false
	}
	switch {
	case w.cg != nil:
		return w.cg.State() == GroupStable
	case w.cc != nil:
		return w.cc.State() == classic.GroupStable
	}
	return false
}

// runUntil steps until cond holds, failing after max steps.
func (w *mworld) runUntil(what string, limit int, cond func() bool) {
	w.t.Helper()
	for i := 0; !cond(); i++ {
		if i == limit {
			w.t.Fatalf("no %s after %d steps\n%s", what, limit, strings.Join(w.log[max(0, len(w.log)-80):], "\n"))
		}
		w.step()
	}
}

// classicGroup returns a classic coordinator whose group of n classic
// members (eager range) has completed a rebalance over foo:4 and is
// Stable, as a real classic world leaves it.
func classicGroup(t *testing.T, n int) *classic.Coordinator {
	t.Helper()
	w := newMWorld(t, spec.Topics{"foo": 4})
	w.cc = nodeMust(classic.NewCoordinator(w.ccfg))
	for i := range n {
		w.addClassic(fmt.Sprintf("C%d", i), policy.Eager(assign.Range()))
	}
	w.runUntil("stable classic group", 500, w.converged)
	return w.cc
}

func nodeMust[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func nodeInput(at Millis, ev node.Event) node.Input { return node.Input{Now: at, Event: ev} }
