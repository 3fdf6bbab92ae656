package ownership

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/rebalance-ref/rebalance/spec"
)

// OpKind is the kind of a porcupine operation of the ownership model.
type OpKind uint8

// The operations (see the package documentation for their legality).
const (
	// Acquire: Process takes Resource under membership Membership of
	// Member (an Assigned callback).
	Acquire OpKind = iota + 1
	// Release: Process gives Resource up (a Revoked or Lost callback).
	Release
	// Crash: Process drops whatever it holds (a Crashed observation).
	Crash
	// Fence: membership Membership of Member is fenced (a Removed
	// observation).
	Fence
)

var opNames = [...]string{"?", "acquire", "release", "crash", "fence"}

// String names the kind ("acquire", "release", "crash", "fence").
func (k OpKind) String() string {
	if int(k) < len(opNames) {
		return opNames[k]
	}
	return fmt.Sprintf("op(%d)", uint8(k))
}

// Input is the input of one porcupine operation, boxed as a *Input;
// operations have no output (nil). Fields that do not apply to Kind are
// zero.
type Input struct {
	Kind OpKind
	// Process is the process that acquires, releases or crashes.
	Process string
	// Member and Membership name the membership that acquires or is
	// fenced: Membership counts the Joined observations of Member that
	// followed a Removed of it before the operation (0 for the id's first
	// membership).
	Member     spec.MemberID
	Membership int
	// Resource is what Acquire and Release are about.
	Resource spec.Resource
}

// membership is one membership of one member id.
type membership struct {
	member spec.MemberID
	n      int
}

func (m membership) String() string {
	if m.n == 0 {
		return string(m.member)
	}
	return fmt.Sprintf("%s#%d", m.member, m.n+1)
}

func compareMembership(a, b membership) int {
	return cmp.Or(strings.Compare(string(a.member), string(b.member)), cmp.Compare(a.n, b.n))
}

// holding is one process holding the resource under a membership.
type holding struct {
	process string
	by      membership
}

// state is the model state of one resource. It is immutable: step returns a
// new state and never writes to the slices of the one it was given.
// holdings is sorted by process (a process holds a resource at most once);
// fenced is sorted.
type state struct {
	holdings []holding
	fenced   []membership
}

func (s state) isFenced(m membership) bool {
	_, ok := slices.BinarySearchFunc(s.fenced, m, compareMembership)
	return ok
}

func (s state) holder(process string) (int, bool) {
	return slices.BinarySearchFunc(s.holdings, process, func(h holding, p string) int { return strings.Compare(h.process, p) })
}

// step applies in to s: whether it is legal, and the state after it.
func step(s state, in Input) (bool, state) {
	switch in.Kind {
	case Acquire:
		by := membership{in.Member, in.Membership}
		i, held := s.holder(in.Process)
		if held {
			return false, s
		}
		if !s.isFenced(by) {
			for _, h := range s.holdings {
				if !s.isFenced(h.by) {
					return false, s
				}
			}
		}
		return true, state{holdings: slices.Insert(slices.Clone(s.holdings), i, holding{in.Process, by}), fenced: s.fenced}
	case Release, Crash:
		i, held := s.holder(in.Process)
		if !held {
			return in.Kind == Crash, s
		}
		return true, state{holdings: slices.Delete(slices.Clone(s.holdings), i, i+1), fenced: s.fenced}
	case Fence:
		m := membership{in.Member, in.Membership}
		i, done := slices.BinarySearchFunc(s.fenced, m, compareMembership)
		if done {
			return true, s
		}
		return true, state{holdings: s.holdings, fenced: slices.Insert(slices.Clone(s.fenced), i, m)}
	}
	return false, s
}

func (s state) equal(o state) bool {
	return slices.Equal(s.holdings, o.holdings) && slices.Equal(s.fenced, o.fenced)
}

// String prints the holdings, fenced ones marked, then the fenced
// memberships: "A as A-1, B as B-1 (fenced) | fenced: B-1"; "free" when
// nothing is held or fenced.
func (s state) String() string {
	var parts []string
	for _, h := range s.holdings {
		p := h.process + " as " + h.by.String()
		if s.isFenced(h.by) {
			p += " (fenced)"
		}
		parts = append(parts, p)
	}
	out := strings.Join(parts, ", ")
	if out == "" {
		out = "free"
	}
	if len(s.fenced) > 0 {
		var f []string
		for _, m := range s.fenced {
			f = append(f, m.String())
		}
		out += " | fenced: " + strings.Join(f, " ")
	}
	return out
}

func describe(in Input) string {
	m := membership{in.Member, in.Membership}
	switch in.Kind {
	case Acquire:
		return fmt.Sprintf("%s acquires %s as %s", in.Process, in.Resource, m)
	case Release:
		return fmt.Sprintf("%s releases %s", in.Process, in.Resource)
	case Crash:
		return in.Process + " crashes"
	case Fence:
		return "coordinator fences " + m.String()
	}
	return in.Kind.String()
}

// Model returns the porcupine model of partition ownership. Its Partition
// splits a history of [Operations] by resource (sorted), copying each crash
// and fence into the sub-histories where it can matter; Init and Step are
// per resource and pure; DescribeOperation, DescribeState and
// DescribeOperationMetadata (the observation an operation came from) make
// the visualization readable.
func Model() porcupine.Model {
	return porcupine.Model{
		Partition: partition,
		Init:      func() any { return state{} },
		Step: func(s, in, _ any) (bool, any) {
			return step(s.(state), *in.(*Input))
		},
		Equal:                     func(a, b any) bool { return a.(state).equal(b.(state)) },
		DescribeOperation:         func(in, _ any) string { return describe(*in.(*Input)) },
		DescribeState:             func(s any) string { return s.(state).String() },
		DescribeOperationMetadata: describeMetadata,
	}
}

func describeMetadata(md any) string {
	if o, ok := md.(*spec.Observation); ok {
		return o.String()
	}
	return ""
}

// partition returns the sub-histories of ops that porcupine checks one by
// one: each resource's (byResource), cut at its free instants (split), in
// resource order, then time order.
func partition(ops []porcupine.Operation) [][]porcupine.Operation {
	var out [][]porcupine.Operation
	for _, part := range byResource(ops) {
		out = append(out, split(part, minPiece)...)
	}
	return out
}

// minPiece is the fewest operations split leaves in a piece before it
// cuts: a piece of that length costs porcupine little, and fewer pieces
// cost less to start.
const minPiece = 64

// split cuts one resource's sub-history at its free instants: before an
// operation that is called after every earlier one (by call) returned,
// when no process holds the resource after those. A process's operations
// never overlap (else nothing is cut), so every legal linearization of
// what comes before reaches the same state there: the processes whose
// last operation is an acquire hold it, here none, and the fences before
// it have fenced their memberships. So each piece can start from Init,
// with the earlier fences of the memberships that acquire in it carried
// into it (they are points before its operations, so porcupine orders
// them first). Short pieces keep porcupine's work, whose cache grows
// with the square of a sub-history's length, small on long traces.
// Pieces have at least min operations, but the last.
func split(part []porcupine.Operation, min int) [][]porcupine.Operation {
	ops := slices.Clone(part)
	slices.SortStableFunc(ops, func(a, b porcupine.Operation) int { return cmp.Compare(a.Call, b.Call) })
	lastReturn := map[string]int64{}
	holding := map[string]bool{}
	var cuts []int
	maxReturn := int64(math.MinInt64)
	from := 0
	for i, op := range ops {
		in := op.Input.(*Input)
		if i-from >= min && op.Call > maxReturn && len(holding) == 0 {
			cuts = append(cuts, i)
			from = i
		}
		maxReturn = max(maxReturn, op.Return)
		if in.Kind == Fence {
			continue
		}
		if r, ok := lastReturn[in.Process]; ok && op.Call <= r {
			return [][]porcupine.Operation{part} // overlapping operations of one process
		}
		lastReturn[in.Process] = op.Return
		if in.Kind == Acquire {
			holding[in.Process] = true
		} else {
			delete(holding, in.Process)
		}
	}
	if len(cuts) == 0 {
		return [][]porcupine.Operation{part}
	}
	var pieces [][]porcupine.Operation
	var fences []porcupine.Operation // before the piece
	from = 0
	for _, to := range append(cuts, len(ops)) {
		piece := ops[from:to:to]
		acquirers := map[membership]bool{}
		for _, op := range piece {
			if in := op.Input.(*Input); in.Kind == Acquire {
				acquirers[membership{in.Member, in.Membership}] = true
			}
		}
		var carried []porcupine.Operation
		for _, f := range fences {
			if in := f.Input.(*Input); acquirers[membership{in.Member, in.Membership}] {
				carried = append(carried, f)
			}
		}
		pieces = append(pieces, append(carried, piece...))
		for _, op := range piece {
			if op.Input.(*Input).Kind == Fence {
				fences = append(fences, op)
			}
		}
		from = to
	}
	return pieces
}

// byResource returns one sub-history per resource, in resource order, each
// keeping the order of ops. A crash goes to the sub-histories of the
// resources its process acquires or releases anywhere in ops, a fence to
// those its membership acquires. It takes one pass to index and one to
// place, so that long histories split in linear time.
func byResource(ops []porcupine.Operation) [][]porcupine.Operation {
	index := map[spec.Resource]int{}
	byProcess := map[string][]int{}        // the partitions a process touches
	byMembership := map[membership][]int{} // the partitions a membership acquires
	type processIn struct {
		process string
		i       int
	}
	type membershipIn struct {
		m membership
		i int
	}
	seenP, seenM := map[processIn]bool{}, map[membershipIn]bool{}
	var resources []spec.Resource
	for _, op := range ops {
		in := op.Input.(*Input)
		if in.Kind != Acquire && in.Kind != Release {
			continue
		}
		i, ok := index[in.Resource]
		if !ok {
			i = len(resources)
			index[in.Resource] = i
			resources = append(resources, in.Resource)
		}
		if k := (processIn{in.Process, i}); !seenP[k] {
			seenP[k] = true
			byProcess[in.Process] = append(byProcess[in.Process], i)
		}
		if k := (membershipIn{membership{in.Member, in.Membership}, i}); in.Kind == Acquire && !seenM[k] {
			seenM[k] = true
			byMembership[k.m] = append(byMembership[k.m], i)
		}
	}
	sizes := make([]int, len(resources))
	for _, op := range ops {
		if in := op.Input.(*Input); in.Kind == Acquire || in.Kind == Release {
			sizes[index[in.Resource]]++
		}
	}
	parts := make([][]porcupine.Operation, len(resources))
	for i, n := range sizes {
		parts[i] = make([]porcupine.Operation, 0, n)
	}
	for _, op := range ops {
		in := op.Input.(*Input)
		switch in.Kind {
		case Acquire, Release:
			i := index[in.Resource]
			parts[i] = append(parts[i], op)
		case Crash:
			for _, i := range byProcess[in.Process] {
				parts[i] = append(parts[i], op)
			}
		case Fence:
			for _, i := range byMembership[membership{in.Member, in.Membership}] {
				parts[i] = append(parts[i], op)
			}
		}
	}
	order := make([]int, len(resources))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return resources[a].Compare(resources[b]) })
	out := make([][]porcupine.Operation, len(order))
	for k, i := range order {
		out[k] = parts[i]
	}
	return out
}

// Operations returns the porcupine operations of h (see the package
// documentation), in the order of h.Observations, one per resource of each
// callback. Each operation's Input is a *Input; its ClientId is its
// process's index in
// h.Processes() (fences: one past the last process) and its Metadata
// points to the spec.Observation of h it came from. h should Validate;
// observations of unknown kinds are skipped.
func Operations(h spec.History) []porcupine.Operation {
	procs := h.Processes()
	client := func(p string) int {
		i, _ := slices.BinarySearch(procs, p)
		return i
	}
	ms := numberMemberships(h)
	n := 0
	for _, o := range h.Observations {
		switch o.Kind {
		case spec.Assigned, spec.Revoked, spec.Lost:
			n += len(o.Resources)
		case spec.Crashed, spec.Removed:
			n++
		}
	}
	// The inputs live in one array, each boxed by its address: a million
	// operations are one allocation, not a million.
	inputs := make([]Input, 0, n)
	ops := make([]porcupine.Operation, 0, n)
	for i := range h.Observations {
		o := &h.Observations[i]
		op := func(in Input) porcupine.Operation {
			id := len(procs)
			if in.Kind != Fence {
				id = client(o.Process)
			}
			inputs = append(inputs, in)
			return porcupine.Operation{ClientId: id, Input: &inputs[len(inputs)-1], Call: int64(o.Call), Return: int64(o.Return), Metadata: o}
		}
		switch o.Kind {
		case spec.Assigned, spec.Revoked, spec.Lost:
			for _, r := range o.Resources {
				in := Input{Kind: Release, Process: o.Process, Resource: r}
				if o.Kind == spec.Assigned {
					in = Input{Kind: Acquire, Process: o.Process, Member: o.Member, Membership: ms.at(o.Member, o.Call), Resource: r}
				}
				ops = append(ops, op(in))
			}
		case spec.Crashed:
			ops = append(ops, op(Input{Kind: Crash, Process: o.Process}))
		case spec.Removed:
			ops = append(ops, op(Input{Kind: Fence, Member: o.Member, Membership: ms.removes[i]}))
		}
	}
	return ops
}

// memberships numbers the memberships of each member id from the Joined and
// Removed observations of a history.
type memberships struct {
	// events holds each id's Joined and Removed, by Call, Removed first
	// within an instant, then by index.
	events map[spec.MemberID][]memberEvent
	// removes holds, for each Removed (by observation index), the
	// membership it ends.
	removes map[int]int
}

type memberEvent struct {
	at      spec.Nanos
	removed bool
	index   int
}

func numberMemberships(h spec.History) memberships {
	ms := memberships{events: map[spec.MemberID][]memberEvent{}, removes: map[int]int{}}
	for i, o := range h.Observations {
		if o.Kind == spec.Joined || o.Kind == spec.Removed {
			ms.events[o.Member] = append(ms.events[o.Member], memberEvent{o.Call, o.Kind == spec.Removed, i})
		}
	}
	for _, evs := range ms.events {
		slices.SortFunc(evs, func(a, b memberEvent) int {
			return cmp.Or(cmp.Compare(a.at, b.at), -compareBool(a.removed, b.removed), cmp.Compare(a.index, b.index))
		})
		n, ended := 0, false
		for _, e := range evs {
			switch {
			case e.removed:
				ms.removes[e.index] = n
				ended = true
			case ended:
				n, ended = n+1, false
			}
		}
	}
	return ms
}

// at returns the membership of id at instant t, after everything at t: the
// current one, or the last one ended if the id was removed and has not
// joined again (a zombie's).
func (ms memberships) at(id spec.MemberID, t spec.Nanos) int {
	n, ended := 0, false
	for _, e := range ms.events[id] {
		if e.at > t {
			break
		}
		switch {
		case e.removed:
			ended = true
		case ended:
			n, ended = n+1, false
		}
	}
	return n
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	default:
		return -1
	}
}
