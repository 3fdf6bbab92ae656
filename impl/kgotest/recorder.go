// Package kgotest runs real franz-go (kgo) consumers against a Kafka
// endpoint and records what they did as a spec.History: every rebalance
// callback with the wall-clock times it was called and returned, every
// crash, and (as an impl.Observer) every membership change the
// coordinator made, all on one monotonic clock. checker/ownership then
// judges the history with porcupine and the laws of package spec.
//
// It is the harness the impl tests use, exported so that anyone can point
// it at their own endpoint.
package kgotest

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/rebalance-ref/rebalance/spec"
	"github.com/rebalance-ref/rebalance/spec/trace"
)

// Recorder collects one group's history. It is safe for concurrent use:
// kgo calls the callbacks from its own goroutines, the coordinator's
// driver calls Membership from its loop.
type Recorder struct {
	group  string
	origin time.Time

	mu   sync.Mutex
	hist spec.History
	// live maps each process name to its current incarnation (nil when
	// none is running); observations from any other incarnation are
	// dropped: a crashed process reports nothing.
	live map[string]*incarnation
	// owned is what each process's current incarnation owns according to
	// its callbacks.
	owned map[string]spec.Set
}

// incarnation is one run of a process.
type incarnation struct{ name string }

// NewRecorder returns a recorder for group over the universe topics. Its
// clock starts now. Pass it as the coordinator's impl.Observer (and call
// ObservesCoordinator before any member starts) so that the history holds
// the coordinator's membership changes.
func NewRecorder(group string, topics spec.Topics) *Recorder {
	return &Recorder{
		group:  group,
		origin: time.Now(),
		hist:   spec.History{Topics: maps.Clone(topics), Subscriptions: map[string][]string{}},
		live:   map[string]*incarnation{},
		owned:  map[string]spec.Set{},
	}
}

// TopicsGrew records that the universe is now topics (topics were
// created or gained partitions): Covered and the history's Topics use it
// from now on.
func (r *Recorder) TopicsGrew(topics spec.Topics) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hist.Topics = maps.Clone(topics)
}

// ObservesCoordinator marks the history as holding every membership change
// of the coordinator (spec.History.CoordinatorObserved): the recorder is
// the coordinator's Observer from before the first member starts. It
// returns r.
func (r *Recorder) ObservesCoordinator() *Recorder {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hist.CoordinatorObserved = true
	return r
}

// at converts a wall-clock time to the history's clock.
func (r *Recorder) at(t time.Time) spec.Nanos { return spec.Nanos(t.Sub(r.origin)) }

// start registers a new incarnation of process name subscribed to topics.
// A process keeps one subscription for the whole history.
func (r *Recorder) start(name string, topics []string) *incarnation {
	r.mu.Lock()
	defer r.mu.Unlock()
	inc := &incarnation{name: name}
	r.live[name] = inc
	r.hist.Subscriptions[name] = slices.Sorted(slices.Values(topics))
	r.owned[name] = nil
	return inc
}

// stop ends an incarnation without recording anything (a graceful leave:
// its revocation callbacks already said it gave everything up).
func (r *Recorder) stop(inc *incarnation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live[inc.name] == inc {
		r.live[inc.name] = nil
	}
}

// crash records that inc died at t: it owns nothing from then on and
// reports nothing more.
func (r *Recorder) crash(inc *incarnation, t time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live[inc.name] != inc {
		return
	}
	r.live[inc.name] = nil
	r.owned[inc.name] = nil
	n := r.at(t)
	r.hist.Observations = append(r.hist.Observations, spec.Observation{Kind: spec.Crashed, Process: inc.name, Generation: spec.NoGeneration, Call: n, Return: n})
}

// callback records one rebalance callback of inc, unless inc is no longer
// the live incarnation or the callback is about nothing (kgo calls
// OnPartitionsRevoked with an empty map at the end of every session).
func (r *Recorder) callback(inc *incarnation, kind spec.ObservationKind, member string, gen int32, rs spec.Set, call, ret time.Time) {
	if rs.IsEmpty() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live[inc.name] != inc {
		return
	}
	switch kind {
	case spec.Assigned:
		r.owned[inc.name] = r.owned[inc.name].Union(rs)
	default:
		r.owned[inc.name] = r.owned[inc.name].Minus(rs)
	}
	r.hist.Observations = append(r.hist.Observations, spec.Observation{
		Kind: kind, Process: inc.name, Member: spec.MemberID(member), Generation: spec.Generation(gen),
		Resources: rs, Call: r.at(call), Return: r.at(ret),
	})
}

// Membership records the coordinator's membership changes of the
// recorder's group (it is an impl.Observer); other groups are ignored.
func (r *Recorder) Membership(group string, member spec.MemberID, joined bool, at time.Time) {
	if group != r.group {
		return
	}
	kind := spec.Removed
	if joined {
		kind = spec.Joined
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.at(at)
	r.hist.Observations = append(r.hist.Observations, spec.Observation{Kind: kind, Member: member, Generation: spec.NoGeneration, Call: n, Return: n})
}

// Quiet records that the environment falls quiet now: the group must
// converge by the end of the history.
func (r *Recorder) Quiet() {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.at(time.Now())
	r.hist.Observations = append(r.hist.Observations, spec.Observation{Kind: spec.Quiet, Generation: spec.NoGeneration, Call: n, Return: n})
}

// History returns a copy of what was recorded so far.
func (r *Recorder) History() spec.History {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := spec.History{Topics: maps.Clone(r.hist.Topics), Subscriptions: map[string][]string{}, CoordinatorObserved: r.hist.CoordinatorObserved, Observations: slices.Clone(r.hist.Observations)}
	for p, s := range r.hist.Subscriptions {
		h.Subscriptions[p] = slices.Clone(s)
	}
	return h
}

// Trace returns what was recorded so far as a trace (spec/trace) with
// header hdr, for the oracle or `rebalance trace check`: the history
// written by trace.FromHistory.
func (r *Recorder) Trace(hdr trace.Header) (*trace.Trace, error) {
	if hdr.Group == "" {
		hdr.Group = r.group
	}
	return trace.FromHistory(r.History(), hdr)
}

// Owned returns what each live process owns according to its callbacks.
func (r *Recorder) Owned() map[string]spec.Set {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]spec.Set{}
	for p, inc := range r.live {
		if inc != nil {
			out[p] = r.owned[p]
		}
	}
	return out
}

// Covered reports whether every partition of the processes' subscribed
// topics is owned by exactly one live process.
func (r *Recorder) Covered() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	count := map[spec.Resource]int{}
	subscribed := map[string]bool{}
	for p, inc := range r.live {
		if inc == nil {
			continue
		}
		for _, t := range r.hist.Subscriptions[p] {
			subscribed[t] = true
		}
		for _, res := range r.owned[p] {
			count[res]++
		}
	}
	for _, res := range r.hist.Topics.Resources(slices.Sorted(maps.Keys(subscribed))...) {
		if count[res] != 1 {
			return false
		}
	}
	return len(subscribed) > 0
}
