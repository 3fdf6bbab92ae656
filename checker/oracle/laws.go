package oracle

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/checker/ownership"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	"github.com/rebalance-ref/rebalance/spec"
	"github.com/rebalance-ref/rebalance/spec/trace"
)

// judge holds what the laws are judged over.
type judge struct {
	tr       *trace.Trace
	hdr      trace.Header
	h        spec.History
	c        trace.Carried
	found    []ownership.Violation // every violation, for the pictures
	existing []ownership.Violation // ExistingOnly's, against the universe as it grew
	balance  string                // the assignor whose balance is judged, "" when none
	grown    []growth              // the topic events, in time order
	ordered  []edge                // edges(), once computed
}

// growth is a topic event: topic has partitions from at on.
type growth struct {
	at         spec.Nanos
	topic      string
	partitions int32
}

func newJudge(tr *trace.Trace, h spec.History, c trace.Carried) *judge {
	hdr := tr.Header
	j := &judge{tr: tr, hdr: hdr, h: h, c: c}
	for _, e := range tr.Events {
		if e.Kind == trace.Topic {
			j.grown = append(j.grown, growth{tr.Nanos(e.T), e.Topic, e.Partitions})
		}
	}
	j.balance = hdr.Assignor
	if j.balance == "" {
		j.balance = defaultAssignor[hdr.Protocol]
	}
	return j
}

// defaultAssignor is each protocol's default assignor: Kafka's consumer
// default for eager (range) and cooperative (cooperative-sticky), Kafka
// Connect's for Designs II and III, the coordinator's for next-gen.
var defaultAssignor = map[string]string{"eager": "range", "cooperative": "cooperative-sticky", "deferred": "connect", "incremental": "connect", "nextgen": "uniform"}

// balanceLaws maps an assignor to the balance its documentation promises.
var balanceLaws = map[string]func(spec.View) []spec.Violation{
	"range":              spec.CheckTopicBalance,
	"roundrobin":         spec.CheckTopicBalance,
	"sticky":             spec.CheckBalance,
	"cooperative-sticky": spec.CheckBalance,
	"uniform":            spec.CheckBalance,
	"connect":            spec.CheckConnectKindBalance,
}

// notJudged are the laws no trace is judged by, with the reason.
var notJudged = []Verdict{
	{Law: spec.AssignedOnce, Detail: "a trace carries no assignment rounds (what a leader or the coordinator decided is not an event); ExclusiveOwnership judges what members did with them"},
	{Law: spec.KnownMembersOnly, Detail: "a trace carries no assignment rounds"},
	{Law: spec.StableWhenBalanced, Detail: "a trace carries no assignment rounds, so not what each member claimed in one"},
	{Law: spec.NoNeedlessWait, Detail: "a trace carries no coordinator target assignment"},
	{Law: spec.EventuallyConverged, Detail: "a liveness law over every path of a state graph; a trace is one run (Coverage and Balance at its quiet point are its form here)"},
	{Law: spec.Stability, Detail: "a liveness law over every path of a state graph; a trace is one run"},
	{Law: spec.Timely, Detail: "needs the members' session and heartbeat settings and what the network lost, which a trace does not carry"},
	{Law: spec.NoSpuriousLoss, Detail: "needs what the network lost, duplicated and held up, which a trace does not carry"},
}

// laws returns the verdicts of every law but linearizability, and how
// many views were judged.
func (j *judge) laws() ([]Verdict, int) {
	var balance func(spec.View) []spec.Violation
	if f, ok := balanceLaws[j.balance]; ok {
		balance = f
	}
	views := 0
	if j.c.Ownership {
		views, j.found = ownership.JudgeSeq(j.h, func(v spec.View) []spec.Violation {
			if balance == nil {
				return nil
			}
			return balance(v)
		}, j.existingJudge())
		if j.c.Universe {
			// ExistingOnly is judged against the topics as they were at
			// each instant, not as they ended.
			j.found = slices.DeleteFunc(j.found, func(v ownership.Violation) bool { return v.Violation.Law == spec.ExistingOnly })
			j.found = append(j.found, j.existing...)
		}
	}
	byLaw := map[spec.Law][]ownership.Violation{}
	for _, v := range j.found {
		byLaw[v.Violation.Law] = append(byLaw[v.Violation.Law], v)
	}
	from := func(law spec.Law, held string) Verdict {
		vs := byLaw[law]
		if len(vs) == 0 {
			return Verdict{Law: law, Status: Held, Detail: held}
		}
		return Verdict{Law: law, Status: Broken, Line: line(vs[0]), Count: len(vs), Detail: vs[0].Violation.String()}
	}
	needs := func(law spec.Law, why []string, held string) Verdict {
		if len(why) > 0 {
			return Verdict{Law: law, Status: NotJudged, Detail: strings.Join(why, "; ")}
		}
		return from(law, held)
	}
	noOwnership := "no ownership events (assigned, revoked, lost)"
	var own, subs, universe, quiet, gens []string
	if !j.c.Ownership {
		own = []string{noOwnership}
	}
	if len(j.c.Unsubscribed) > 0 {
		subs = []string{fmt.Sprintf("no subscription (join or restart with topics) for %s", strings.Join(j.c.Unsubscribed, ", "))}
	}
	if !j.c.Universe {
		universe = []string{"no topic events, so what exists is not known"}
	}
	if j.c.Quiet == 0 {
		quiet = []string{"no quiet event: the group was never due to converge"}
	}
	if !j.c.Generations {
		gens = []string{"no event carries a generation or member epoch"}
	}
	exclusive := "every view: no resource owned by two members that count"
	if !j.h.CoordinatorObserved {
		exclusive += " (the coordinator is not in the trace, so every live process counts: no zombie is tolerated)"
	} else {
		exclusive += " (a member the coordinator removed is a fenced zombie, tolerated)"
	}
	out := []Verdict{
		needs(spec.ExclusiveOwnership, own, exclusive),
		needs(spec.SubscribedOnly, join(own, subs), "every view: members own only what they subscribe to, or are revoking after a subscription change"),
		needs(spec.ExistingOnly, join(own, universe), "every view, against the topics as they grow"),
		needs(spec.MonotonicGeneration, join(own, gens), "every step: a membership's generation or epoch never went backwards"),
		j.handoff(),
		needs(spec.Coverage, join(own, quiet, subs, universe), "at the end, after the quiet point: every subscribed resource owned by exactly one current member"),
	}
	var noBalance []string
	if balance == nil {
		noBalance = []string{"no balance guarantee known for " + j.assignorName()}
	}
	out = append(out, needs(spec.Balance, join(own, quiet, subs, noBalance), "at the end, after the quiet point, as "+j.assignorName()+" promises"))
	out = append(out, j.rounds(join(own, quiet, gens)))
	for _, v := range notJudged {
		v.Status = NotJudged
		out = append(out, v)
	}
	out = append(out, j.delivery()...)
	return out, views
}

// assignorName names the assignor judged and where it comes from.
func (j *judge) assignorName() string {
	switch {
	case j.hdr.Assignor != "":
		return fmt.Sprintf("assignor %q", j.hdr.Assignor)
	case j.balance != "":
		return fmt.Sprintf("assignor %q (the %s protocol's default)", j.balance, j.hdr.Protocol)
	}
	return "an assignor the trace does not name"
}

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// existingJudge returns a function that judges ExistingOnly on each
// view in turn, against the universe the topic events had made by its
// instant, and adds each violation to j.existing at the instant it
// begins. Between two views in which the universe did not grow, only the
// changed processes are judged again.
func (j *judge) existingJudge() func(ownership.TimedView) {
	universe := spec.Topics{}
	next := 0
	ongoing := map[string]map[string]bool{} // member → violations that last
	var members []spec.MemberView           // reused from view to view
	first := true
	return func(tv ownership.TimedView) {
		grew := first
		for next < len(j.grown) && j.grown[next].at <= tv.At {
			universe[j.grown[next].topic] = j.grown[next].partitions
			next++
			grew = true
		}
		first = false
		v := spec.View{Topics: universe, Members: members[:0]}
		for _, m := range tv.View.Members {
			if !grew && !slices.Contains(tv.Changed, m.Name) {
				continue
			}
			if len(ongoing[m.Name]) == 0 && within(m.Owns, universe) {
				continue // nothing begins or ends
			}
			v.Members = append(v.Members, m)
		}
		members = v.Members
		now := map[string]map[string]bool{}
		for _, m := range v.Members {
			now[m.Name] = map[string]bool{}
		}
		for _, x := range spec.CheckExistingOnly(v) {
			name, key := x.Members[0], x.String()
			now[name][key] = true
			if !ongoing[name][key] {
				j.existing = append(j.existing, ownership.Violation{Violation: x, At: tv.At, Observations: slices.Clone(tv.Observations)})
			}
		}
		maps.Copy(ongoing, now)
	}
}

// within reports whether every resource of rs is in universe.
func within(rs spec.Set, universe spec.Topics) bool {
	for _, r := range rs {
		if !universe.Has(r) {
			return false
		}
	}
	return true
}

// line is the trace line of a violation: the first event of the instant
// it happened at (its Quiet event for a convergence law).
func line(v ownership.Violation) int {
	first := 0
	for _, o := range v.Observations {
		if o.Source > 0 && (first == 0 || o.Source < first) {
			first = o.Source
		}
	}
	return first
}

// handoff judges CooperativeHandoff from the callbacks: a resource goes
// to a new owner only once its previous owner released it (its revoked or
// lost returned, it crashed, or the coordinator removed it), and, in the
// classic cooperative protocols, not in the generation it was revoked in
// (the revoking member must rejoin first: KIP-429).
func (j *judge) handoff() Verdict {
	v := Verdict{Law: spec.CooperativeHandoff}
	switch {
	case !j.c.Ownership:
		v.Status, v.Detail = NotJudged, "no ownership events (assigned, revoked, lost)"
		return v
	case j.hdr.Protocol == "":
		v.Status, v.Detail = NotJudged, "the header names no protocol"
		return v
	case j.hdr.Protocol == "eager":
		v.Status, v.Detail = NotJudged, "a law of the cooperative protocols: eager revokes everything before every round (ExclusiveOwnership judges it)"
		return v
	}
	sameGeneration := j.hdr.Protocol != "nextgen"
	type holding struct {
		process string
		member  spec.MemberID
		line    int
	}
	type revocation struct {
		process string
		gen     spec.Generation
		line    int
	}
	holders := map[spec.Resource][]holding{}
	revoked := map[spec.Resource]revocation{}
	removed := map[spec.MemberID]bool{}
	var broken []string
	first := 0
	for _, e := range j.edges() {
		o := &j.h.Observations[e.i]
		switch {
		case o.Kind == spec.Removed && e.call:
			removed[o.Member] = true
		case o.Kind == spec.Joined && e.call:
			removed[o.Member] = false
		case o.Kind == spec.Crashed:
			for r, hs := range holders {
				holders[r] = slices.DeleteFunc(hs, func(h holding) bool { return h.process == o.Process })
			}
		case (o.Kind == spec.Revoked || o.Kind == spec.Lost) && e.call:
			for _, r := range o.Resources {
				if o.Kind == spec.Revoked && o.Generation != spec.NoGeneration {
					revoked[r] = revocation{o.Process, o.Generation, o.Source}
				}
			}
		case (o.Kind == spec.Revoked || o.Kind == spec.Lost) && !e.call:
			for _, r := range o.Resources {
				holders[r] = slices.DeleteFunc(holders[r], func(h holding) bool { return h.process == o.Process })
			}
		case o.Kind == spec.Assigned && e.call:
			for _, r := range o.Resources {
				for _, h := range holders[r] {
					if h.process != o.Process && !removed[h.member] {
						broken = append(broken, fmt.Sprintf("%s given to %s at line %d while %s (line %d) still held it", r, o.Process, o.Source, h.process, h.line))
						first = cmp.Or(first, o.Source)
					}
				}
				if rv, ok := revoked[r]; sameGeneration && ok && rv.process != o.Process && rv.gen == o.Generation && o.Generation != spec.NoGeneration {
					broken = append(broken, fmt.Sprintf("%s given to %s at line %d in generation %d, the generation %s revoked it in (line %d)", r, o.Process, o.Source, o.Generation, rv.process, rv.line))
					first = cmp.Or(first, o.Source)
				}
				holders[r] = append(holders[r], holding{o.Process, o.Member, o.Source})
			}
		}
	}
	if len(broken) == 0 {
		v.Status, v.Detail = Held, "every resource was given to a new owner only after its previous owner released it"
		if sameGeneration {
			v.Detail += ", and never in the generation it was revoked in"
		}
		return v
	}
	v.Status, v.Line, v.Count, v.Detail = Broken, first, len(broken), broken[0]
	return v
}

// edge is a call or a return of an observation (its index in the
// history).
type edge struct {
	i    int32
	call bool
}

// edges returns the calls and returns of the history in time order: at
// one instant the coordinator's first, then returns before calls (a
// release returning as its resource is given again is a hand-off), then
// in trace order. It is computed once.
func (j *judge) edges() []edge {
	if j.ordered != nil {
		return j.ordered
	}
	obs := j.h.Observations
	out := make([]edge, 0, 2*len(obs))
	for i, o := range obs {
		out = append(out, edge{int32(i), true})
		if o.Kind == spec.Assigned || o.Kind == spec.Revoked || o.Kind == spec.Lost {
			out = append(out, edge{int32(i), false})
		}
	}
	at := func(e edge) spec.Nanos {
		if e.call {
			return obs[e.i].Call
		}
		return obs[e.i].Return
	}
	rank := func(e edge) int {
		switch k := obs[e.i].Kind; {
		case k == spec.Removed || k == spec.Joined:
			return 0
		case !e.call:
			return 1
		}
		return 2
	}
	slices.SortFunc(out, func(a, b edge) int {
		// A callback's call and return differ in time or in rank, so
		// the history's order (the trace's) settles every other tie.
		return cmp.Or(cmp.Compare(at(a), at(b)), cmp.Compare(rank(a), rank(b)), cmp.Compare(a.i, b.i))
	})
	j.ordered = out
	return out
}

// rounds judges BoundedRounds after the last quiet point: classic, the
// generations reached after it (each is a round), against the protocol's
// RoundBound for the group's shape at the end; next-gen, the member
// epoch bumps after it, against the header's MaxRounds only.
func (j *judge) rounds(why []string) Verdict {
	v := Verdict{Law: spec.BoundedRounds}
	bound, unit := j.hdr.MaxRounds, "round"
	if j.hdr.Protocol == "nextgen" {
		unit = "member epoch bump"
	}
	if bound == 0 {
		switch j.hdr.Protocol {
		case "":
			why = append(why, "the header names no protocol and states no max_rounds")
		case "nextgen":
			why = append(why, "the next-gen bound depends on what the environment did before the quiet point, which a trace need not say: state it as max_rounds in the header")
		default:
			p, err := policy.Default(j.hdr.Protocol)
			rb, ok := p.(classic.RoundBounder)
			if err != nil || !ok {
				why = append(why, fmt.Sprintf("protocol %s states no round bound", j.hdr.Protocol))
				break
			}
			bound = rb.RoundBound(classic.GroupShape{Members: len(j.h.Processes()), Resources: j.resources()})
		}
	}
	if len(why) > 0 {
		v.Status, v.Detail = NotJudged, strings.Join(why, "; ")
		return v
	}
	lines := j.countRounds()
	count := len(lines)
	if count <= bound {
		v.Status, v.Detail = Held, fmt.Sprintf("%s after the quiet point; at most %d", plural(count, unit), bound)
		return v
	}
	v.Status, v.Line, v.Count = Broken, lines[bound], count-bound
	v.Detail = fmt.Sprintf("%s after the quiet point; %s promises at most %d", plural(count, unit), j.hdr.Protocol, bound)
	if j.hdr.MaxRounds > 0 {
		v.Detail = fmt.Sprintf("%s after the quiet point; the header states at most %d", plural(count, unit), bound)
	}
	return v
}

// plural prints "1 round", "2 rounds".
func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// resources counts the universe's resources.
func (j *judge) resources() int {
	n := 0
	for _, p := range j.h.Topics {
		n += int(p)
	}
	return n
}

// countRounds returns the lines of the rounds after the last Quiet, in
// order: classic, each distinct generation above the highest reached
// before it (each is a round); next-gen, each epoch bump of a process
// (joining included, as MaxRoundsOf counts them).
func (j *judge) countRounds() []int {
	quiet := spec.Nanos(-1)
	for _, o := range j.h.Observations {
		if o.Kind == spec.Quiet {
			quiet = max(quiet, o.Call)
		}
	}
	nextgen := j.hdr.Protocol == "nextgen"
	last := map[string]spec.Generation{}
	top := spec.NoGeneration
	gens := map[spec.Generation]bool{}
	var lines []int
	for _, e := range j.edges() {
		o := &j.h.Observations[e.i]
		if !e.call || o.Generation == spec.NoGeneration || o.Process == "" {
			continue
		}
		if o.Call <= quiet {
			last[o.Process] = max(last[o.Process], o.Generation)
			top = max(top, o.Generation)
			continue
		}
		switch {
		case nextgen && o.Generation > last[o.Process]:
			last[o.Process] = o.Generation
			lines = append(lines, o.Source)
		case !nextgen && o.Generation > top && !gens[o.Generation]:
			gens[o.Generation] = true
			lines = append(lines, o.Source)
		}
	}
	return lines
}
