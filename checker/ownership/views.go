package ownership

import (
	"cmp"
	"fmt"
	"iter"
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
	// Changed names the processes whose view may differ from the previous
	// view's, sorted: those with an observation at At, and those whose
	// member id the coordinator started or stopped counting at At. Every
	// other process's view is the same as before.
	Changed []string
	// Before holds the views of the Changed processes in the previous
	// view, in the same order (nil for the first view).
	Before []spec.MemberView
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
	edgeCall       // a callback's call or a Reached: member id, generation, acquisition
	edgeCrash      // a crash
	edgeSubscribed // a subscription change
	edgeRelease    // a Revoked or Lost return
)

func edges(h spec.History) []edge {
	out := make([]edge, 0, 2*len(h.Observations))
	for i, o := range h.Observations {
		switch o.Kind {
		case spec.Assigned, spec.Reached:
			out = append(out, edge{o.Call, edgeCall, i})
		case spec.Subscribed:
			out = append(out, edge{o.Call, edgeSubscribed, i})
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
	// sub is the subscription, sorted; shared with the views, so replaced,
	// never changed in place.
	sub []string
	// revoking is the part of owns outside sub since a subscription
	// change dropped its topics.
	revoking spec.Set
}

// coordinatorObserved reports whether h claims to hold every membership
// change of the coordinator.
func coordinatorObserved(h spec.History) bool { return h.CoordinatorObserved }

// Views returns the views h passes through (ViewSeq, collected).
func Views(h spec.History) []TimedView { return slices.Collect(ViewSeq(h)) }

// ViewSeq yields the views h passes through, one per instant at which a
// view can change, in time order, derived by the rules of the package
// documentation. Every process with a subscription appears in every view;
// the views share their Subscription and Owns slices, so treat them as
// read-only. A long history is judged view by view without holding them
// all (see also JudgeSeq).
// h should Validate; observations of unknown kinds are skipped.
func ViewSeq(h spec.History) iter.Seq[TimedView] {
	return func(yield func(TimedView) bool) { views(h, false, false, yield) }
}

// views yields the views of h. With rebuild, every process's view is
// built again at every instant (the tests' reference), otherwise only the
// changed ones'. With shared, every view yielded is the same member slice,
// changed in place: a view is good only until the next is asked for.
func views(h spec.History, rebuild, shared bool, yield func(TimedView) bool) {
	coord := coordinatorObserved(h)
	subs, names := sortedSubscriptions(h), h.Processes()
	index := make(map[string]int, len(names))
	for k, n := range names {
		index[n] = k
	}
	procs := map[string]*process{}
	for n, sub := range subs {
		procs[n] = &process{gen: spec.NoGeneration, sub: sub}
	}
	stamps := stampsOf(h) // the observations called or returning, by instant
	next := 0
	joined := map[spec.MemberID]bool{}
	renewed := map[spec.MemberID]bool{} // at the current instant
	changed := map[string]bool{}        // at the current instant
	var cur []spec.MemberView           // the last view, in names order
	var idx []int                       // the observations at an instant
	var obs []spec.Observation          // the same, when shared
	var before []spec.MemberView        // TimedView.Before, when shared
	es := edges(h)
	for i, e := range es {
		o := h.Observations[e.index]
		p := procs[o.Process]
		if p == nil { // a process without a subscription: tracked, not viewed
			p = &process{gen: spec.NoGeneration}
			procs[o.Process] = p
		}
		if e.effect == edgeRemoved || e.effect == edgeJoined {
			for n, q := range procs {
				if q.id == o.Member {
					changed[n] = true
				}
			}
		} else {
			changed[o.Process] = true
		}
		switch e.effect {
		case edgeRelease:
			p.owns = p.owns.Minus(o.Resources)
			p.revoking = p.revoking.Minus(o.Resources) // nothing to do when empty
		case edgeCrash:
			*p = process{gen: spec.NoGeneration, sub: p.sub}
		case edgeSubscribed:
			p.sub = slices.Sorted(slices.Values(o.Topics))
			p.sub = slices.Compact(p.sub)
			p.revoking = p.owns.Filter(func(r spec.Resource) bool { return !slices.Contains(p.sub, r.Topic) })
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
				p.revoking = p.revoking.Minus(o.Resources)
			}
		}
		if i+1 < len(es) && es[i+1].at == e.at {
			continue
		}
		tv := TimedView{At: e.at}
		for n := range changed {
			if _, viewed := index[n]; viewed {
				tv.Changed = append(tv.Changed, n)
			}
		}
		slices.Sort(tv.Changed)
		if cur == nil {
			cur = make([]spec.MemberView, len(names))
			for k, name := range names {
				cur[k] = memberView(name, subs, procs, joined, coord)
			}
		} else {
			// Only the changed processes' views are built again.
			if shared {
				tv.Before = before[:0]
			}
			for _, name := range tv.Changed {
				k := index[name]
				tv.Before = append(tv.Before, cur[k])
				cur[k] = memberView(name, subs, procs, joined, coord)
			}
			if shared {
				before = tv.Before
			}
			if rebuild {
				for k, name := range names {
					cur[k] = memberView(name, subs, procs, joined, coord)
				}
			}
		}
		members := cur
		if !shared {
			members = slices.Clone(cur)
		}
		tv.View = spec.View{Topics: h.Topics, Members: members}
		for next < len(stamps) && stamps[next].at < e.at {
			next++
		}
		idx = idx[:0]
		for ; next < len(stamps) && stamps[next].at == e.at; next++ {
			idx = append(idx, int(stamps[next].i))
		}
		if shared {
			obs = observationsInto(obs[:0], h, idx)
			tv.Observations = obs
		} else {
			tv.Observations = observationsInto(nil, h, idx)
		}
		for id := range renewed {
			for _, name := range names {
				if procs[name].id == id {
					tv.Renewed = append(tv.Renewed, name)
				}
			}
		}
		slices.Sort(tv.Renewed)
		clear(renewed)
		clear(changed)
		if !yield(tv) {
			return
		}
	}
}

// stamp is an observation (its index) called or returning at an instant.
type stamp struct {
	at spec.Nanos
	i  int32
}

// stampsOf returns the calls and returns of h's observations by instant,
// then index.
func stampsOf(h spec.History) []stamp {
	out := make([]stamp, 0, 2*len(h.Observations))
	for i, o := range h.Observations {
		out = append(out, stamp{o.Call, int32(i)})
		if o.Return != o.Call {
			out = append(out, stamp{o.Return, int32(i)})
		}
	}
	slices.SortFunc(out, func(a, b stamp) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.i, b.i)) })
	return out
}

// observationsInto appends to dst the observations of h with the indices
// idx (sorted in place), sorted by Call, Return, then history order.
func observationsInto(dst []spec.Observation, h spec.History, idx []int) []spec.Observation {
	slices.Sort(idx)
	slices.SortStableFunc(idx, func(a, b int) int {
		oa, ob := h.Observations[a], h.Observations[b]
		return cmp.Or(cmp.Compare(oa.Call, ob.Call), cmp.Compare(oa.Return, ob.Return))
	})
	for _, j := range idx {
		dst = append(dst, h.Observations[j])
	}
	return dst
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

// Judge runs the laws over views (Views of h): CheckState on each
// (reporting a violation at the instant it begins), CheckStep between
// successive views and, when h has a Quiet observation, CheckCoverage and
// balance on the view at the end.
func Judge(h spec.History, views []TimedView, balance func(spec.View) []spec.Violation) []Violation {
	j := NewJudger(balance)
	for _, tv := range views {
		j.View(tv)
	}
	return j.End(h)
}

// JudgeSeq is Judge over ViewSeq(h) without keeping the views: each view
// (its members and observations) is built in place of the last, and each,
// before it is judged, goes to each (when not nil), good for as long as
// the call lasts: what each keeps of it, it copies. It returns the
// number of views and the violations.
func JudgeSeq(h spec.History, balance func(spec.View) []spec.Violation, each func(TimedView)) (int, []Violation) {
	j := NewJudger(balance)
	n := 0
	views(h, false, true, func(tv TimedView) bool {
		if each != nil {
			each(tv)
		}
		j.View(tv)
		n++
		return true
	})
	return n, j.End(h)
}

// Judger is Judge one view at a time, for histories too long to hold
// every view. After the first view it judges the state laws only on the
// resources that the changed processes (TimedView.Changed) own before or
// after the step: every state law is about one resource, and the others'
// verdicts cannot change.
type Judger struct {
	balance func(spec.View) []spec.Violation
	prev    TimedView
	started bool
	// unknown names the current members that own something at
	// NoGeneration in the last view.
	unknown []string
	// owners holds, for each resource, the processes that own it in the
	// last view.
	owners map[spec.Resource][]string
	// Buffers View reuses from call to call.
	prevBuf, nextBuf, members, changed []spec.MemberView
	rs                                 []spec.Resource
	names                              []string
	was                                map[spec.Resource]map[string]bool
	// ongoing holds the state violations that last, by resource, each by
	// its printed form.
	ongoing map[spec.Resource]map[string]bool
	out     []Violation
}

// NewJudger returns a Judger with balance as the balance law.
func NewJudger(balance func(spec.View) []spec.Violation) *Judger {
	return &Judger{balance: balance, ongoing: map[spec.Resource]map[string]bool{}}
}

// View judges the next view: the step from the previous one, and the
// state laws, each violation reported at the instant it begins. It reads
// the previous views of the changed processes from tv.Before, and keeps
// tv only as the last view (for End).
func (j *Judger) View(tv TimedView) {
	changedNow := j.only(tv.View, tv.Changed)
	if j.started {
		// CheckStep finds nothing between two equal views of a member but
		// a current member that owns something at NoGeneration; the
		// members that did not change are judged from that alone.
		prev, next := spec.View{Members: append(j.prevBuf[:0], tv.Before...)}, spec.View{Members: append(j.nextBuf[:0], changedNow...)}
		for _, n := range j.unknown {
			if !slices.Contains(tv.Changed, n) {
				m, _ := tv.View.Member(n)
				prev.Members = append(prev.Members, m)
				next.Members = append(next.Members, m)
			}
		}
		prev.Sort()
		next.Sort()
		j.prevBuf, j.nextBuf = prev.Members, next.Members
		for _, x := range spec.CheckStep(prev, next) {
			if len(x.Members) == 1 && slices.Contains(tv.Renewed, x.Members[0]) {
				continue // a new membership of the same id starts over
			}
			j.out = append(j.out, Violation{x, tv.At, slices.Clone(tv.Observations)})
		}
	}
	judged, was := tv.View, j.ongoing
	if j.started {
		j.own(tv.Before, tv.View, tv.Changed)
		var in spec.Set
		judged, in = j.scope(tv.Before, tv.View, tv.Changed)
		if j.was == nil {
			j.was = map[spec.Resource]map[string]bool{}
		}
		clear(j.was)
		was = j.was
		for _, r := range in {
			was[r] = j.ongoing[r]
			delete(j.ongoing, r)
		}
	} else {
		j.ongoing = map[spec.Resource]map[string]bool{}
		j.owners = map[spec.Resource][]string{}
		for _, m := range tv.View.Members {
			for _, r := range m.Owns {
				j.owners[r] = append(j.owners[r], m.Name)
			}
		}
	}
	for _, x := range spec.CheckState(judged) {
		key := x.String()
		if j.ongoing[x.Resource] == nil {
			j.ongoing[x.Resource] = map[string]bool{}
		}
		j.ongoing[x.Resource][key] = true
		if !was[x.Resource][key] {
			j.out = append(j.out, Violation{x, tv.At, slices.Clone(tv.Observations)})
		}
	}
	j.unknown = slices.DeleteFunc(j.unknown, func(n string) bool { return slices.Contains(tv.Changed, n) })
	check := changedNow
	if !j.started {
		j.unknown, check = nil, tv.View.Members
	}
	for _, m := range check {
		if m.Current && m.ID != "" && m.Generation == spec.NoGeneration && !m.Owns.IsEmpty() {
			j.unknown = append(j.unknown, m.Name)
		}
	}
	j.prev, j.started = tv, true
}

// scope returns next restricted to the resources whose verdict the step
// can change (every member's Owns and Revoking cut down to them, and the
// members left owning none of them dropped: every state law is about what
// a member owns), and those resources: for each changed process (before
// holds their previous views, in order), what it gained or lost, and
// everything it owns before or after when its standing changed (Current,
// and so Fenced; its subscription or what it is revoking).
// The view and the set it returns live in j's buffers, until the next
// call.
func (j *Judger) scope(before []spec.MemberView, next spec.View, changed []string) (spec.View, spec.Set) {
	rs := j.rs[:0]
	for i, name := range changed {
		p := before[i]
		n, _ := next.Member(name)
		// Fenced is !Current in every view made here.
		if p.Current != n.Current || !slices.Equal(p.Subscription, n.Subscription) || !p.Revoking.Equal(n.Revoking) {
			rs = append(append(rs, p.Owns...), n.Owns...)
			continue
		}
		rs = symmetricDifference(rs, p.Owns, n.Owns)
	}
	slices.SortFunc(rs, spec.Resource.Compare)
	in := spec.Set(slices.Compact(rs))
	j.rs = rs
	// Only the members that own one of in now (j.owners, kept up to date
	// by View) are left after the cut.
	names := j.names[:0]
	for _, r := range in {
		names = append(names, j.owners[r]...)
	}
	slices.Sort(names)
	j.names = slices.Compact(names)
	out := next
	out.Members = j.members[:0]
	for _, name := range j.names {
		m, _ := next.Member(name)
		if m.Owns, m.Revoking = cut(m.Owns, in), cut(m.Revoking, in); !m.Owns.IsEmpty() {
			out.Members = append(out.Members, m)
		}
	}
	j.members = out.Members
	return out, in
}

// own brings j.owners up to the step from before (the changed processes'
// previous views, in order) to next.
func (j *Judger) own(before []spec.MemberView, next spec.View, changed []string) {
	for i, name := range changed {
		n, _ := next.Member(name)
		a, b := before[i].Owns, n.Owns
		for x, y := 0, 0; x < len(a) || y < len(b); {
			switch {
			case y == len(b) || x < len(a) && a[x].Compare(b[y]) < 0: // given up
				j.owners[a[x]] = slices.DeleteFunc(j.owners[a[x]], func(o string) bool { return o == name })
				x++
			case x == len(a) || a[x].Compare(b[y]) > 0: // taken
				j.owners[b[y]] = append(j.owners[b[y]], name)
				y++
			default:
				x++
				y++
			}
		}
	}
}

// only returns the members of v named in names (sorted), in j's buffer
// until the next call.
func (j *Judger) only(v spec.View, names []string) []spec.MemberView {
	j.changed = j.changed[:0]
	for _, n := range names {
		if m, ok := v.Member(n); ok {
			j.changed = append(j.changed, m)
		}
	}
	return j.changed
}

// symmetricDifference appends to dst what is in one of a and b and not
// the other.
func symmetricDifference(dst []spec.Resource, a, b spec.Set) []spec.Resource {
	i, k := 0, 0
	for i < len(a) || k < len(b) {
		switch {
		case k == len(b) || i < len(a) && a[i].Compare(b[k]) < 0:
			dst = append(dst, a[i])
			i++
		case i == len(a) || a[i].Compare(b[k]) > 0:
			dst = append(dst, b[k])
			k++
		default:
			i++
			k++
		}
	}
	return dst
}

// cut returns s ∩ in, looking up each of in (a few resources) in s.
func cut(s, in spec.Set) spec.Set {
	if len(s) == 0 || len(in) == 0 {
		return nil
	}
	var out spec.Set
	for _, r := range in {
		if _, ok := slices.BinarySearchFunc(s, r, spec.Resource.Compare); ok {
			out = append(out, r)
		}
	}
	return out
}

// End judges the convergence laws at the end of h, when h has a Quiet
// observation, and returns every violation found.
func (j *Judger) End(h spec.History) []Violation {
	out := j.out
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
	if j.started {
		last = j.prev.View
	}
	for _, x := range append(spec.CheckCoverage(last), j.balance(last)...) {
		out = append(out, Violation{x, end, quiet})
	}
	return out
}

// makeView builds the view of the processes names (sorted), with their
// sorted subscriptions subs: a process that is down
// has no id, NoGeneration and owns nothing; a live one is Current when the
// coordinator was not observed or counts its id.
func makeView(h spec.History, names []string, subs map[string][]string, procs map[string]*process, joined map[spec.MemberID]bool, coord bool) spec.View {
	v := spec.View{Topics: h.Topics, Members: make([]spec.MemberView, 0, len(names))}
	for _, n := range names {
		v.Members = append(v.Members, memberView(n, subs, procs, joined, coord))
	}
	return v.Sort()
}

// memberView is the view of process n (see makeView).
func memberView(n string, subs map[string][]string, procs map[string]*process, joined map[spec.MemberID]bool, coord bool) spec.MemberView {
	m := spec.MemberView{Name: n, Generation: spec.NoGeneration, Subscription: subs[n]}
	if p := procs[n]; p != nil {
		m.Subscription = p.sub
	}
	if p := procs[n]; p != nil && p.live {
		m.ID, m.Generation, m.Owns, m.Revoking = p.id, p.gen, p.owns, p.revoking
		m.Current = !coord || (p.id != "" && joined[p.id])
	}
	m.Fenced = !m.Current
	return m
}
