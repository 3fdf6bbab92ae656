// Package capacity is a worked example of a new assignment policy checked
// with package fuzz: a client-side assignor that is not in Kafka,
// "capacity-aware least movement". docs/fuzzing.md, "Tutorial" tells how it
// was written and what the harness found.
//
// Every member has a capacity, the most partitions it may hold (Config
// says how capacities are given). Assign computes the new assignment in
// four steps:
//
//  1. Keep. The claims are resolved as assign.ResolveClaims resolves them
//     (a partition claimed by several members goes to the claimant of the
//     highest generation; on a tie at that generation nobody keeps it). A
//     member keeps the claims it wins on partitions of topics that exist
//     and that it subscribes to; when that is more than its capacity, it
//     drops the excess, last in resource order (topic name, then partition
//     number) first.
//  2. Fill. Every partition of a subscribed topic that nobody kept, in
//     resource order, goes to the least-loaded member that subscribes to
//     its topic and has capacity left (ties: the lowest member ID). A
//     partition no such member can take stays unassigned.
//  3. Make room. For every partition still unassigned, in resource order,
//     the shortest chain of moves that makes room for it, if there is one:
//     it goes to a subscriber that is full, which passes one of its
//     partitions to another subscriber of that partition's topic, and so
//     on, up to a member with capacity left (breadth first; members by ID,
//     each member's partitions in resource order). This is an augmenting
//     path of a maximum flow, and a partition with no such chain never
//     gets one by the later ones (as in Kuhn's matching algorithm):
//     afterwards no assignment within the capacities assigns more
//     partitions.
//  4. Balance. While some member lo holds at least two partitions fewer
//     than another member hi, lo has capacity left, and hi holds a
//     partition of a topic lo subscribes to, one such partition moves from
//     hi to lo: the pair with the largest gap (ties: hi, then lo, by lowest
//     member ID), and of hi's partitions lo could take, the last in
//     resource order among those hi did not keep as claims, else the last
//     of its kept claims. Every move lowers the sum of the squared loads,
//     so the loop ends; no move changes how many partitions are assigned.
//
// Guarantees, beyond the validity every assign.Assignor has (deterministic,
// input left unmodified, assign.ValidateGroup's error for an invalid
// group, every member in the result, a partition to at most one member
// and only to a subscriber):
//
//   - WithinCapacity: no member holds more partitions than its capacity.
//   - MostAssigned: no assignment within the capacities assigns more
//     partitions (step 3). In particular CompleteWhenCapacitySuffices:
//     when some assignment within the capacities covers every partition
//     of every subscribed topic, the result does; and NoIdleCapacity: a
//     partition of a subscribed topic stays unassigned only when every
//     member subscribing to its topic is at capacity.
//   - BalancedWithinCapacity: the result satisfies the balance rule of
//     step 4: no member lo holds two or more partitions fewer than a
//     member hi while lo has capacity left and hi holds a partition of a
//     topic lo subscribes to.
//   - ConvergesWithin(1): fed back as the members' claims, the result is
//     assigned again unchanged; hence also NoBackAndForth.
//   - Sticky when capacities do not bind: when every member subscribes to
//     the same topics, no partition is claimed twice, and every capacity
//     is at least ⌈P/M⌉ (P partitions of the subscription, M members), the
//     members keep as many claims as any balanced assignment can keep
//     (spec.CheckStableWhenBalanced, fuzz.Sticky). With binding capacities
//     this does not hold, and the assignor does not declare fuzz.Sticky:
//     when m1, of capacity 1, claims a-0 and a-1, and m2 claims a-2 and
//     a-3, m1 keeps one claim, where a balanced assignment (two each)
//     keeps all four.
//
// It is not Complete in general: when the capacities of a topic's
// subscribers are used up, its remaining partitions stay unassigned.
//
// The code is written to be read, not for speed: each balancing move
// looks at every pair of members and sorts what the donors hold, and each
// chain of moves searches all members' partitions, so a group of M
// members and P partitions may take O(M²+P·log P) steps a move (a few
// tenths of a second for 100 members and 1000 partitions all claimed by
// one member).
package capacity

import (
	"maps"
	"strings"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// Unlimited is the capacity of a member that may hold any number of
// partitions. Any negative capacity in a Config means Unlimited.
const Unlimited = -1

// Config says how many partitions each member may hold. A member's
// capacity is, in order: Instances[InstanceID] for a static member its
// InstanceID names; else Prefixes[p] for the longest p that its member ID
// starts with (Kafka's member IDs of dynamic members are the client.id, a
// dash and a UUID, so a client.id followed by "-" is the natural prefix);
// else Default. A capacity of 0 gives the member nothing; a negative one
// is Unlimited. The zero Config gives every member capacity 0: set Default
// (to Unlimited for members with no limit).
type Config struct {
	// Default is the capacity of a member neither map names.
	Default int
	// Instances gives static members' capacities by InstanceID.
	Instances map[string]int
	// Prefixes gives capacities by member ID prefix; the longest matching
	// prefix wins.
	Prefixes map[string]int

	// bug selects a deliberately broken variant, for the package's tests.
	bug bug
}

// bug names a deliberately broken variant of the assignor. The tests
// build each one and check that the harness catches it.
type bug int

const (
	noBug bug = iota
	// bugCapacityOffByOne lets every member hold one partition more than
	// its capacity (a <= where a < belongs).
	bugCapacityOffByOne
	// bugUnresolvedClaims lets every claimant keep a contested claim.
	bugUnresolvedClaims
	// bugLazyBalance only balances gaps of three partitions or more.
	bugLazyBalance
	// bugFirstPair balances the first pair (by member ID) whose gap is
	// two or more instead of the pair with the largest gap.
	bugFirstPair
	// bugGreedyFill skips step 3: the assignor as first written, before
	// the harness showed partitions left unassigned that a few moves
	// would have placed.
	bugGreedyFill
)

// Assignor is the capacity-aware least-movement assignor the package doc
// describes. Build it with New; it is safe for concurrent use.
type Assignor struct {
	def       int
	instances map[string]int
	prefixes  map[string]int
	bug       bug
}

// New returns the assignor with the capacities c gives. It copies c's
// maps: changing them afterwards does not change the assignor.
func New(c Config) *Assignor {
	return &Assignor{def: norm(c.Default), instances: maps.Clone(c.Instances), prefixes: maps.Clone(c.Prefixes), bug: c.bug}
}

func norm(c int) int {
	if c < 0 {
		return Unlimited
	}
	return c
}

// Name is the protocol name, "capacity-least-movement".
func (a *Assignor) Name() string { return "capacity-least-movement" }

// Capacity returns the most partitions m may hold, by the rules of Config:
// a number from 0, or Unlimited.
func (a *Assignor) Capacity(m assign.Member) int {
	if m.InstanceID != "" {
		if c, ok := a.instances[m.InstanceID]; ok {
			return norm(c)
		}
	}
	best, found := "", false
	for p := range a.prefixes {
		if strings.HasPrefix(string(m.ID), p) && (!found || len(p) > len(best)) {
			best, found = p, true
		}
	}
	if found {
		return norm(a.prefixes[best])
	}
	return a.def
}

// Assign computes the assignment of g by the steps of the package doc. It
// returns assign.ValidateGroup's error, and no assignment, for an invalid
// g. g is not modified.
func (a *Assignor) Assign(g assign.Group) (spec.Assignment, error) {
	if err := assign.ValidateGroup(g); err != nil {
		return nil, err
	}
	s := newState(a, g)
	s.keep()
	s.fill()
	if s.a.bug != bugGreedyFill {
		s.augment()
	}
	s.balance()
	out := make(spec.Assignment, len(g.Members))
	for i, m := range g.Members {
		out[m.ID] = s.held(i)
	}
	return out, nil
}

// state is one assignment in the making.
type state struct {
	a     *Assignor
	g     assign.Group
	limit []int             // each member's capacity, Unlimited as a number no load reaches
	subs  []map[string]bool // each member's subscription
	holds []map[spec.Resource]bool
	kept  []map[spec.Resource]bool // the claims each member kept in step 1
	load  []int
	// holder is the holder of every assigned partition (with
	// bugUnresolvedClaims, one of its holders).
	holder map[spec.Resource]int
}

func newState(a *Assignor, g assign.Group) *state {
	n := len(g.Members)
	total := 0
	for _, t := range g.Topics.Names() {
		total += int(g.Topics[t])
	}
	s := &state{a: a, g: g, limit: make([]int, n), subs: make([]map[string]bool, n), holds: make([]map[spec.Resource]bool, n),
		kept: make([]map[spec.Resource]bool, n), load: make([]int, n), holder: map[spec.Resource]int{}}
	for i, m := range g.Members {
		c := a.Capacity(m)
		if c == Unlimited {
			c = total + 1
		}
		s.limit[i] = c
		s.subs[i] = map[string]bool{}
		for _, t := range m.Topics {
			if _, ok := g.Topics[t]; ok {
				s.subs[i][t] = true
			}
		}
		s.holds[i] = map[spec.Resource]bool{}
		s.kept[i] = map[spec.Resource]bool{}
	}
	return s
}

// room reports whether member i may take one more partition.
func (s *state) room(i int) bool {
	if s.a.bug == bugCapacityOffByOne {
		return s.load[i] <= s.limit[i]
	}
	return s.load[i] < s.limit[i]
}

func (s *state) give(x spec.Resource, i int) {
	s.holds[i][x] = true
	s.load[i]++
	s.holder[x] = i
}

func (s *state) take(x spec.Resource, i int) {
	delete(s.holds[i], x)
	s.load[i]--
	delete(s.holder, x)
}

// held is what member i holds, sorted.
func (s *state) held(i int) spec.Set {
	xs := make([]spec.Resource, 0, len(s.holds[i]))
	for x := range s.holds[i] {
		xs = append(xs, x)
	}
	return spec.NewSet(xs...)
}

// keep is step 1.
func (s *state) keep() {
	won := assign.ResolveClaims(s.g).Won
	for i, m := range s.g.Members {
		claims := won[m.ID]
		if s.a.bug == bugUnresolvedClaims {
			claims = m.Owned
		}
		for _, x := range claims {
			if !s.subs[i][x.Topic] || !s.g.Topics.Has(x) || !s.room(i) {
				continue // claims are sorted: the ones dropped for capacity come last
			}
			s.give(x, i)
			s.kept[i][x] = true
		}
	}
}

// fill is step 2.
func (s *state) fill() {
	subscribed := map[string]bool{}
	for i := range s.g.Members {
		for t := range s.subs[i] {
			subscribed[t] = true
		}
	}
	var topics []string
	for _, t := range s.g.Topics.Names() {
		if subscribed[t] {
			topics = append(topics, t)
		}
	}
	for _, x := range s.g.Topics.Resources(topics...) {
		if _, ok := s.holder[x]; ok {
			continue
		}
		best := -1
		for i := range s.g.Members {
			if s.subs[i][x.Topic] && s.room(i) && (best < 0 || s.load[i] < s.load[best]) {
				best = i
			}
		}
		if best >= 0 {
			s.give(x, best)
		}
	}
}

// augment is step 3: for every partition still unassigned, in resource
// order, the shortest chain of moves (found breadth-first, members by ID,
// each member's partitions in resource order) that ends at a member with
// capacity left.
func (s *state) augment() {
	topics := s.g.Topics.Names()
	for _, x := range s.g.Topics.Resources(topics...) {
		if _, ok := s.holder[x]; !ok {
			s.place(x)
		}
	}
}

// place finds a chain of moves that makes room for x and applies it. It
// reports whether it found one.
func (s *state) place(x spec.Resource) bool {
	type step struct {
		from  int // the member the partition moves from, -1 for x
		moved spec.Resource
	}
	n := len(s.g.Members)
	prev := make([]step, n)
	seen := make([]bool, n)
	var queue []int
	for i := range n {
		if s.subs[i][x.Topic] {
			seen[i], prev[i] = true, step{-1, x}
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if s.room(u) {
			for v := u; ; {
				st := prev[v]
				if st.from >= 0 {
					s.take(st.moved, st.from)
				}
				s.give(st.moved, v)
				if st.from < 0 {
					return true
				}
				v = st.from
			}
		}
		for _, y := range s.held(u) {
			for v := range n {
				if !seen[v] && s.subs[v][y.Topic] {
					seen[v], prev[v] = true, step{u, y}
					queue = append(queue, v)
				}
			}
		}
	}
	return false
}

// balance is step 4.
func (s *state) balance() {
	gap := 2
	if s.a.bug == bugLazyBalance {
		gap = 3
	}
	for {
		hi, lo := -1, -1
		var moved spec.Resource
		for h := range s.g.Members {
			var held spec.Set // h's partitions, sorted once a pass
			for l := range s.g.Members {
				d := s.load[h] - s.load[l]
				if d < gap || !s.room(l) || (hi >= 0 && (d <= s.load[hi]-s.load[lo] || s.a.bug == bugFirstPair)) {
					continue
				}
				if held == nil {
					held = s.held(h)
				}
				if x, ok := s.movable(h, l, held); ok {
					hi, lo, moved = h, l, x
				}
			}
		}
		if hi < 0 {
			return
		}
		s.take(moved, hi)
		s.give(moved, lo)
	}
}

// movable returns the partition of h (which holds held) to move to l: the
// last in resource order of those l subscribes to that h did not keep as
// claims, else the last of those it kept.
func (s *state) movable(h, l int, held spec.Set) (spec.Resource, bool) {
	for _, keptToo := range []bool{false, true} {
		for k := len(held) - 1; k >= 0; k-- {
			x := held[k]
			if s.subs[l][x.Topic] && s.kept[h][x] == keptToo {
				return x, true
			}
		}
	}
	return spec.Resource{}, false
}
