package ownership

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// TimedView is the view a history passes through at one instant, after
// everything at that instant was applied.
type TimedView struct {
	At   spec.Nanos
	View spec.View
	// Observations are those called or returning at At (of any kind),
	// sorted by Call, Return, then history order: what made the instant.
	Observations []spec.Observation
	// Renewed names the processes whose member id started a new
	// membership at At (a Joined after a Removed of it): their generation
	// starts over, so the step into this view does not compare it with
	// the earlier membership's.
	Renewed []string
}

// edge is one effect of one observation on the views.
type edge struct {
	at     spec.Nanos
	effect int
	index  int // the observation
}

// The effects. Within one instant the coordinator's come first (Removed
// before Joined), then each process's in the order of its observations.
const (
	edgeRemoved = iota
	edgeJoined
	edgeCall    // a callback's call: member id, generation, acquisition
	edgeCrash   // a crash
	edgeRelease // a Revoked or Lost return
)

func edges(h spec.History) []edge {
	var out []edge
	for i, o := range h.Observations {
		switch o.Kind {
		case spec.Assigned:
			out = append(out, edge{o.Call, edgeCall, i})
		case spec.Revoked, spec.Lost:
			out = append(out, edge{o.Call, edgeCall, i}, edge{o.Return, edgeRelease, i})
		case spec.Crashed:
			out = append(out, edge{o.Call, edgeCrash, i})
		case spec.Removed:
			out = append(out, edge{o.Call, edgeRemoved, i})
		case spec.Joined:
			out = append(out, edge{o.Call, edgeJoined, i})
		}
	}
	class := func(e edge) int { return min(e.effect, edgeCall) }
	slices.SortFunc(out, func(a, b edge) int {
		oa, ob := h.Observations[a.index], h.Observations[b.index]
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(class(a), class(b)),
			cmp.Compare(oa.Call, ob.Call), cmp.Compare(oa.Return, ob.Return), cmp.Compare(a.index, b.index),
			cmp.Compare(a.effect, b.effect))
	})
	return out
}

// process is what the views know of one process.
type process struct {
	live bool
	id   spec.MemberID
	gen  spec.Generation
	owns spec.Set
}

// coordinatorObserved reports whether h claims to hold every membership
// change of the coordinator.
func coordinatorObserved(h spec.History) bool { return h.CoordinatorObserved }

// Views returns the views h passes through, one per instant at which a view
// can change, in time order, derived by the rules of the package
// documentation. Every process with a subscription appears in every view;
// the views share their Subscription and Owns slices, so treat them as
// read-only.
// h should Validate; observations of unknown kinds are skipped.
func Views(h spec.History) []TimedView {
	coord := coordinatorObserved(h)
	subs, names := sortedSubscriptions(h), h.Processes()
	procs := map[string]*process{}
	for n := range subs {
		procs[n] = &process{gen: spec.NoGeneration}
	}
	at := map[spec.Nanos][]int{} // the observations called or returning at an instant
	for i, o := range h.Observations {
		at[o.Call] = append(at[o.Call], i)
		if o.Return != o.Call {
			at[o.Return] = append(at[o.Return], i)
		}
	}
	joined := map[spec.MemberID]bool{}
	renewed := map[spec.MemberID]bool{} // at the current instant
	var out []TimedView
	es := edges(h)
	for i, e := range es {
		o := h.Observations[e.index]
		p := procs[o.Process]
		if p == nil { // a process without a subscription: tracked, not viewed
			p = &process{gen: spec.NoGeneration}
			procs[o.Process] = p
		}
		switch e.effect {
		case edgeRelease:
			p.owns = p.owns.Minus(o.Resources)
		case edgeCrash:
			*p = process{gen: spec.NoGeneration}
		case edgeRemoved:
			joined[o.Member] = false
		case edgeJoined:
			if was, seen := joined[o.Member]; seen && !was {
				// A new membership of the id: callbacks of the earlier
				// one do not give it a generation.
				for _, q := range procs {
					if q.id == o.Member {
						q.gen = spec.NoGeneration
					}
				}
				renewed[o.Member] = true
			}
			joined[o.Member] = true
		case edgeCall:
			p.live = true
			if o.Member != "" {
				p.id, p.gen = o.Member, o.Generation
			}
			if o.Kind == spec.Assigned {
				p.owns = p.owns.Union(o.Resources)
			}
		}
		if i+1 == len(es) || es[i+1].at != e.at {
			tv := TimedView{At: e.at, View: makeView(h, names, subs, procs, joined, coord), Observations: observationsAt(h, at[e.at])}
			for _, name := range names {
				if p := procs[name]; p != nil && p.id != "" && renewed[p.id] {
					tv.Renewed = append(tv.Renewed, name)
				}
			}
			clear(renewed)
			out = append(out, tv)
		}
	}
	return out
}

// observationsAt returns the observations of h with the indices idx,
// sorted by Call, Return, then history order.
func observationsAt(h spec.History, idx []int) []spec.Observation {
	idx = slices.Clone(idx)
	slices.Sort(idx)
	slices.SortStableFunc(idx, func(a, b int) int {
		oa, ob := h.Observations[a], h.Observations[b]
		return cmp.Or(cmp.Compare(oa.Call, ob.Call), cmp.Compare(oa.Return, ob.Return))
	})
	out := make([]spec.Observation, len(idx))
	for i, j := range idx {
		out[i] = h.Observations[j]
	}
	return out
}

// sortedSubscriptions returns h's subscriptions, each sorted; the views
// share them.
func sortedSubscriptions(h spec.History) map[string][]string {
	out := map[string][]string{}
	for n, topics := range h.Subscriptions {
		out[n] = slices.Sorted(slices.Values(topics))
	}
	return out
}

// Violation is a law broken at one instant of a history.
type Violation struct {
	Violation spec.Violation
	// At is the instant the violation began (state laws), happened (step
	// laws) or, for the convergence laws, the end of the history.
	At spec.Nanos
	// Observations made the instant (see TimedView.Observations); for the
	// convergence laws, the Quiet observations.
	Observations []spec.Observation
}

// String prints "at T: Law: resource members: detail".
func (v Violation) String() string {
	return fmt.Sprintf("at %d: %s", v.At, v.Violation)
}

// judge runs the laws over views: CheckState on each (reporting a
// violation at the instant it begins), CheckStep between successive views
// and, when h has a Quiet observation, CheckCoverage and balance on the
// view at the end.
func judge(h spec.History, views []TimedView, balance func(spec.View) []spec.Violation) []Violation {
	var out []Violation
	prevState := map[string]bool{}
	var prev *TimedView
	for i := range views {
		tv := &views[i]
		if prev != nil {
			for _, x := range spec.CheckStep(prev.View, tv.View) {
				if len(x.Members) == 1 && slices.Contains(tv.Renewed, x.Members[0]) {
					continue // a new membership of the same id starts over
				}
				out = append(out, Violation{x, tv.At, tv.Observations})
			}
		}
		state := map[string]bool{}
		for _, x := range spec.CheckState(tv.View) {
			key := x.String()
			state[key] = true
			if !prevState[key] {
				out = append(out, Violation{x, tv.At, tv.Observations})
			}
		}
		prevState, prev = state, tv
	}
	var quiet []spec.Observation
	end := spec.Nanos(0)
	for i, o := range h.Observations {
		if o.Kind == spec.Quiet {
			quiet = append(quiet, o)
		}
		if i == 0 || o.Return > end {
			end = o.Return
		}
	}
	if len(quiet) == 0 {
		return out
	}
	slices.SortStableFunc(quiet, func(a, b spec.Observation) int { return cmp.Compare(a.Call, b.Call) })
	last := makeView(h, h.Processes(), sortedSubscriptions(h), nil, nil, false)
	if prev != nil {
		last = prev.View
	}
	for _, x := range append(spec.CheckCoverage(last), balance(last)...) {
		out = append(out, Violation{x, end, quiet})
	}
	return out
}

// makeView builds the view of the processes names (sorted), with their
// sorted subscriptions subs: a process that is down
// has no id, NoGeneration and owns nothing; a live one is Current when the
// coordinator was not observed or counts its id.
func makeView(h spec.History, names []string, subs map[string][]string, procs map[string]*process, joined map[spec.MemberID]bool, coord bool) spec.View {
	v := spec.View{Topics: h.Topics}
	for _, n := range names {
		m := spec.MemberView{Name: n, Generation: spec.NoGeneration, Subscription: subs[n]}
		if p := procs[n]; p != nil && p.live {
			m.ID, m.Generation, m.Owns = p.id, p.gen, p.owns
			m.Current = !coord || (p.id != "" && joined[p.id])
		}
		m.Fenced = !m.Current
		v.Members = append(v.Members, m)
	}
	return v.Sort()
}
