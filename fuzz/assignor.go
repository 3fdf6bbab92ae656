package fuzz

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/impl"
	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// Side says which protocol an assignor serves, which decides what its
// input means and which groups the harness generates for it.
type Side int

const (
	// ClientSide is an assignor a classic group's leader runs (Kafka's
	// ConsumerPartitionAssignor): Member.Owned is what the member claims,
	// at Member.Generation; claims may be stale, conflicting or on
	// partitions that no longer belong to the subscription.
	ClientSide Side = iota
	// ServerSide is an assignor a KIP-848 coordinator runs (Kafka's
	// ConsumerGroupPartitionAssignor): Member.Owned is the member's previous
	// target, exclusive, and Member.Generation is 0.
	ServerSide
)

// String names the side.
func (s Side) String() string {
	switch s {
	case ClientSide:
		return "client-side"
	case ServerSide:
		return "server-side"
	}
	return fmt.Sprintf("Side(%d)", int(s))
}

// Options say which groups to generate and which guarantees to judge. The
// zero value generates client-side groups within DefaultLimits, with up to
// DefaultChanges changes between rounds, and judges validity only.
type Options struct {
	// Side is the assignor's side (default ClientSide).
	Side Side
	// Guarantees are what the assignor declares, beyond validity. Each
	// is judged on every round (or every settled round) of every case;
	// declaring one the assignor does not have fails with the
	// guarantee's name, the reason and the shortest group rapid finds.
	Guarantees []Guarantee
	// Limits bound the generated groups; zero fields take DefaultLimits'.
	Limits Limits
	// CommonSubscription makes every member subscribe to the same topics,
	// in every round, for assignors whose guarantees hold only then
	// (round-robin's balance, the sticky assignors' exact rack alignment).
	CommonSubscription bool
	// Racks gives the members racks and the partitions replica racks
	// (Group.ReplicaRacks), for rack-aware assignors (KIP-881).
	Racks bool
	// Changes is the most changes of the group (a member joins, leaves,
	// changes its subscription, restarts, claims at a stale generation, a
	// topic grows or is created) between successive rounds before the
	// group settles. 0 means DefaultChanges; negative means none.
	Changes int
	// SettleRounds is how many rounds the harness runs after the last
	// change looking for a fixed point (0 means DefaultSettleRounds; it
	// is raised to one more than any ConvergesWithin bound).
	SettleRounds int
	// Nondeterministic accepts an assignor that may give two different
	// results for the same group (franz-go's sticky balancers iterate Go
	// maps): validity then does not include determinism, and every other
	// rule and guarantee is judged on the result each call gave.
	Nondeterministic bool
	// Timeout bounds one call of the assignor (0 means DefaultTimeout,
	// negative means no bound). A call that takes longer fails the case;
	// the call itself cannot be stopped and runs on in its goroutine.
	Timeout time.Duration
}

// Defaults of a zero Options.
const (
	DefaultChanges      = 3
	DefaultSettleRounds = 6
	DefaultTimeout      = 10 * time.Second
)

// normalized fills in defaults and returns an error for options that make
// no sense.
func (o Options) normalized() (Options, error) {
	var errs []error
	if o.Side != ClientSide && o.Side != ServerSide {
		errs = append(errs, fmt.Errorf("unknown side %d", int(o.Side)))
	}
	def := DefaultLimits
	if o.Limits.Members == 0 {
		o.Limits.Members = def.Members
	}
	if o.Limits.Topics == 0 {
		o.Limits.Topics = def.Topics
	}
	if o.Limits.Partitions == 0 {
		o.Limits.Partitions = def.Partitions
	}
	if o.Limits.Members < 1 || o.Limits.Topics < 1 || o.Limits.Partitions < 0 {
		errs = append(errs, fmt.Errorf("limits %+v: want at least 1 member and 1 topic, and no negative partition count", o.Limits))
	}
	if o.Limits.Members > 999 || o.Limits.Topics > 1000 || o.Limits.Partitions > 1<<20 {
		errs = append(errs, fmt.Errorf("limits %+v: at most 999 members, 1000 topics and 2^20 partitions a topic", o.Limits))
	}
	switch {
	case o.Changes == 0:
		o.Changes = DefaultChanges
	case o.Changes < 0:
		o.Changes = 0
	}
	if o.SettleRounds == 0 {
		o.SettleRounds = DefaultSettleRounds
	}
	if o.SettleRounds < 0 {
		errs = append(errs, fmt.Errorf("SettleRounds %d is negative", o.SettleRounds))
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	seen := map[string]bool{}
	for _, g := range o.Guarantees {
		switch {
		case g.name == "":
			errs = append(errs, errors.New("a zero Guarantee (use the package's guarantees, ConvergesWithin or Property)"))
		case seen[g.name]:
			errs = append(errs, fmt.Errorf("guarantee %s declared twice", g.name))
		case g.series == cooperativeHandoff && o.Side == ServerSide:
			errs = append(errs, errors.New("CooperativeHandoff is a client-side guarantee: a server-side assignor computes a target, and the coordinator hands partitions over"))
		case g.series == convergesWithin && g.rounds < 1:
			errs = append(errs, fmt.Errorf("%s: a fixed point needs at least one round", g.name))
		case g.series == notSeries && g.judge == nil:
			errs = append(errs, fmt.Errorf("guarantee %s has no check", g.name))
		}
		seen[g.name] = true
		if g.series == convergesWithin {
			o.SettleRounds = max(o.SettleRounds, g.rounds+1)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return o, fmt.Errorf("fuzz: invalid options: %w", err)
	}
	return o, nil
}

// declares reports whether o declares a guarantee of kind k, and it.
func (o Options) declares(k seriesKind) (Guarantee, bool) {
	for _, g := range o.Guarantees {
		if g.series == k {
			return g, true
		}
	}
	return Guarantee{}, false
}

// Validity is the name failures of validity carry in Failure.Guarantee.
const Validity = "Validity"

// Failure is what the harness reports: the guarantee broken (Validity for
// the rules every assignor must keep), why, and the round and group that
// show it. Its Error prints the group in the form ParseGroup reads.
type Failure struct {
	Assignor  string
	Guarantee string
	Why       string
	Round     Round
	// History says what happened before the round: earlier rounds and the
	// changes between them.
	History []string
}

// Error prints the failure with its round's group and result.
func (f *Failure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fuzz: assignor %s breaks %s in round %d: %s\n", f.Assignor, f.Guarantee, f.Round.Number, f.Why)
	if len(f.History) > 0 {
		b.WriteString("before it:\n")
		for _, h := range f.History {
			fmt.Fprintf(&b, "  %s\n", h)
		}
	}
	fmt.Fprintf(&b, "the group of round %d (fuzz.ParseGroup reads it):\n%s", f.Round.Number, indent(FormatGroup(f.Round.Group)))
	if f.Round.Assigned != nil {
		fmt.Fprintf(&b, "assigned: %s\n", f.Round.Assigned)
	}
	return b.String()
}

func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString("  " + l)
		}
	}
	return b.String()
}

// Assignor checks a against every generated case: validity and the
// guarantees o declares, over successive rounds in which each result is
// fed back as the members' claims, the group changes a few times and then
// settles. On failure it reports the guarantee, the reason and the
// shortest group rapid's shrinking finds, with the seed and the command
// that reproduces it (rapid's -rapid.seed and -rapid.failfile). The
// number of cases is rapid's (-rapid.checks, 100 by default). Options
// that make no sense fail the test at once.
func Assignor(t *testing.T, a assign.Assignor, o Options) {
	t.Helper()
	prop, err := AssignorProperty(a, o)
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, prop)
}

// FuzzAssignor is Assignor as a native fuzz target: go test -fuzz runs it
// with a corpus (under testdata/fuzz/<FuzzName>/), each input a byte
// string rapid reads its choices from, eight bytes a choice (an input too
// short for the choices a case needs is skipped, so seeds of a few bytes
// test nothing: seed with a few hundred random bytes). Give -fuzztime as
// a count (-fuzztime 50000x): with a duration, Go 1.26 may end the run
// with a spurious "context deadline exceeded" (golang/go#75804).
//
//	func FuzzMyAssignor(f *testing.F) { fuzz.FuzzAssignor(f, mine(), opts) }
func FuzzAssignor(f *testing.F, a assign.Assignor, o Options) {
	f.Helper()
	prop, err := AssignorProperty(a, o)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(rapid.MakeFuzz(prop))
}

// AssignorProperty returns the property Assignor checks, for use with
// rapid directly (rapid.Check, rapid.MakeFuzz, or inside a property of
// your own), or an error for options that make no sense.
func AssignorProperty(a assign.Assignor, o Options) (func(*rapid.T), error) {
	return property(a, o, nil)
}

// property is AssignorProperty, calling failed (when not nil) with each
// failure before the case fails.
func property(a assign.Assignor, o Options, failed func(*Failure)) (func(*rapid.T), error) {
	if a == nil {
		return nil, errors.New("fuzz: nil assignor")
	}
	o, err := o.normalized()
	if err != nil {
		return nil, err
	}
	return func(t *rapid.T) {
		gen := &generator{o: o}
		s := newSession(a, o)
		if f := s.run(t, gen); f != nil {
			if failed != nil {
				failed(f)
			}
			t.Fatal(f.Error())
		}
	}, nil
}

// Judge runs a from the group g with no changes: rounds until a fixed
// point (Options.SettleRounds), judging validity and o's guarantees. It
// returns a *Failure, an error for nonsensical options or an invalid g,
// or nil. Use it to pin a counterexample in a table test.
func Judge(a assign.Assignor, o Options, g assign.Group) error {
	if a == nil {
		return errors.New("fuzz: nil assignor")
	}
	o, err := o.normalized()
	if err != nil {
		return err
	}
	if err := assign.ValidateGroup(g); err != nil {
		return fmt.Errorf("fuzz: %w", err)
	}
	s := newSession(a, o)
	if f := s.settle(g, 0, false); f != nil {
		return f
	}
	return nil
}

// session runs the rounds of one case.
type session struct {
	a assign.Assignor
	// bounded is a with its panics and errors made messages and, unless
	// Options.Timeout is negative, each call bounded by it.
	bounded     assign.Assignor
	o           Options
	cooperative bool
	converge    int // ConvergesWithin's bound, 0 when not declared
	backForth   bool
	history     []string
	checked     bool // determinism and immutability checked once a case
}

func newSession(a assign.Assignor, o Options) *session {
	s := &session{a: a, o: o, bounded: recovering{a}}
	if o.Timeout > 0 {
		// The same bound a driver on real time puts on a coordinator's
		// assignor; a late call runs on in its goroutine.
		s.bounded, _ = impl.BoundedAssignor(recovering{a}, o.Timeout)
	}
	_, s.cooperative = o.declares(cooperativeHandoff)
	if g, ok := o.declares(convergesWithin); ok {
		s.converge = g.rounds
	}
	_, s.backForth = o.declares(noBackAndForth)
	return s
}

// run draws a group, runs rounds with changes between them, then lets the
// group settle.
func (s *session) run(t *rapid.T, gen *generator) *Failure {
	g := gen.group(t)
	if err := assign.ValidateGroup(g); err != nil {
		t.Fatalf("fuzz: the generator made an invalid group (a bug of the harness): %v\n%s", err, FormatGroup(g))
	}
	next := maxGeneration(g) + 1
	number := 0
	changed := false
	for range rapid.IntRange(0, s.o.Changes).Draw(t, "changes") {
		number++
		r, f := s.round(g, number, changed)
		if f != nil {
			return f
		}
		s.history = append(s.history, fmt.Sprintf("round %d assigned %s", number, r.Assigned))
		g = followUp(g, r.Assigned, next, s.o.Side)
		next++
		what := gen.change(t, &g, next)
		s.history = append(s.history, "then "+what)
		if err := assign.ValidateGroup(g); err != nil {
			t.Fatalf("fuzz: a change made an invalid group (a bug of the harness): %v\n%s", err, FormatGroup(g))
		}
		changed = true
	}
	return s.settle(g, number, changed)
}

// settle runs rounds from g, each result fed back, until a fixed point or
// SettleRounds, judging NoBackAndForth and ConvergesWithin on the way.
func (s *session) settle(g assign.Group, number int, changed bool) *Failure {
	owners := map[spec.Resource][]spec.MemberID{}
	if s.backForth {
		won := assign.ResolveClaims(g).Won
		for _, m := range g.Members {
			for _, x := range won[m.ID].Filter(g.Topics.Has) {
				owners[x] = []spec.MemberID{m.ID}
			}
		}
	}
	next := maxGeneration(g) + 1
	var prev, first *Round
	before := len(s.history) // the history up to the first settling round
	convergence := func(why string) *Failure {
		f := s.fail(conv(s.converge), why, *first)
		f.History = f.History[:before]
		return f
	}
	for k := 1; k <= s.o.SettleRounds+1; k++ {
		number++
		r, f := s.round(g, number, changed && k == 1)
		if f != nil {
			return f
		}
		if first == nil {
			first = &r
		}
		if s.backForth {
			if f := s.recordOwners(owners, r); f != nil {
				return f
			}
		}
		if prev != nil && prev.Settled && r.Assigned.Equal(prev.Assigned) {
			if s.converge > 0 && k-1 > s.converge {
				// The round reported is the first after the last change:
				// Judge on its group replays the rounds that follow.
				return convergence(fmt.Sprintf("the fixed point came %d rounds after the last change, in round %d", k-1, prev.Number))
			}
			return nil
		}
		s.history = append(s.history, fmt.Sprintf("round %d assigned %s", number, r.Assigned))
		prev = &r
		g = followUp(g, r.Assigned, next, s.o.Side)
		next++
	}
	if s.converge > 0 {
		return convergence(fmt.Sprintf("no fixed point %d rounds after the last change", s.o.SettleRounds))
	}
	return nil
}

func conv(n int) string { return ConvergesWithin(n).name }

// recordOwners adds r's holders to owners and fails when a partition goes
// back to a member it left.
func (s *session) recordOwners(owners map[spec.Resource][]spec.MemberID, r Round) *Failure {
	for _, m := range r.Assigned.Members() {
		for _, x := range r.Assigned[m] {
			h := owners[x]
			if len(h) > 0 && h[len(h)-1] == m {
				continue
			}
			if slices.Contains(h, m) {
				return s.fail(NoBackAndForth.name, fmt.Sprintf("%s moves back to %s (its holders since the last change: %v)", x, m, h), r)
			}
			owners[x] = append(h, m)
		}
	}
	return nil
}

// round runs the assignor on g and judges the result.
func (s *session) round(g assign.Group, number int, changed bool) (Round, *Failure) {
	r := Round{Number: number, Group: g, Changed: changed}
	var before string
	first := !s.checked
	if first {
		before = FormatGroup(g)
	}
	a, err := s.call(g)
	if err != nil {
		return r, s.fail(Validity, err.Error(), r)
	}
	r.Assigned = a
	if first {
		s.checked = true
		if after := FormatGroup(g); after != before {
			return r, s.fail(Validity, "it modified its input; before the call the group was:\n"+indent(before), r)
		}
		if !s.o.Nondeterministic {
			again, err := s.call(g)
			if err != nil {
				return r, s.fail(Validity, "called again on the same group: "+err.Error(), r)
			}
			if !again.Equal(a) {
				return r, s.fail(Validity, fmt.Sprintf("not deterministic: called again on the same group it assigned %s (Options.Nondeterministic accepts that)", again), r)
			}
		}
	}
	for _, m := range g.Members {
		if _, ok := a[m.ID]; !ok {
			return r, s.fail(Validity, fmt.Sprintf("the result has no entry for member %s (every member must appear, with an empty set if it gets nothing)", m.ID), r)
		}
	}
	var invalid, handoff []spec.Violation
	for _, v := range spec.CheckRound(assign.RoundOf(g, a, s.cooperative)) {
		if v.Law == spec.CooperativeHandoff {
			handoff = append(handoff, v)
		} else {
			invalid = append(invalid, v)
		}
	}
	if len(invalid) > 0 {
		return r, s.fail(Validity, violations(invalid).Error(), r)
	}
	r.Settled = s.settled(g, a)
	if len(handoff) > 0 {
		return r, s.fail(CooperativeHandoff.name, violations(handoff).Error(), r)
	}
	for _, q := range s.o.Guarantees {
		if q.judge == nil || q.settledOnly && !r.Settled {
			continue
		}
		if err := q.judge(r); err != nil {
			return r, s.fail(q.name, err.Error(), r)
		}
	}
	return r, nil
}

// settled reports whether a keeps every existing claim of every member
// (always true unless the assignor hands over cooperatively).
func (s *session) settled(g assign.Group, a spec.Assignment) bool {
	if !s.cooperative {
		return true
	}
	for _, m := range g.Members {
		for _, x := range m.Owned {
			if g.Topics.Has(x) && !a[m.ID].Contains(x) {
				return false
			}
		}
	}
	return true
}

// call runs the assignor once, turning a panic or a call longer than the
// timeout into an error.
func (s *session) call(g assign.Group) (spec.Assignment, error) {
	out, err := s.bounded.Assign(g)
	if errors.Is(err, impl.ErrAssignorTimeout) {
		return nil, fmt.Errorf("it did not return within %v", s.o.Timeout)
	}
	return out, err
}

// recovering is an assignor whose panics and errors are errors saying so.
type recovering struct{ a assign.Assignor }

func (r recovering) Name() string { return r.a.Name() }

func (r recovering) Assign(g assign.Group) (out spec.Assignment, err error) {
	defer func() {
		if p := recover(); p != nil {
			// The place of the panic, not the whole stack: the same panic
			// then prints the same message every time, as rapid needs to
			// shrink it (a stack names goroutines and argument words).
			out, err = nil, fmt.Errorf("it panicked on a valid group: %v (at %s)", p, panicSite())
		}
	}()
	out, err = r.a.Assign(g)
	if err != nil {
		return nil, fmt.Errorf("it returned an error for a valid group: %w", err)
	}
	return out, nil
}

func (s *session) fail(guarantee, why string, r Round) *Failure {
	return &Failure{Assignor: s.a.Name(), Guarantee: guarantee, Why: why, Round: r, History: slices.Clone(s.history)}
}

// maxGeneration is the highest generation of g's members (at least 0).
func maxGeneration(g assign.Group) spec.Generation {
	gen := spec.Generation(0)
	for _, m := range g.Members {
		gen = max(gen, m.Generation)
	}
	return gen
}

// panicSite is the function, file and line a recovered panic was raised
// at: the first frame outside the runtime above the deferred call.
func panicSite() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") {
			return fmt.Sprintf("%s, %s:%d", f.Function, f.File, f.Line)
		}
		if !more {
			return "an unknown place"
		}
	}
}
