package fuzz

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// Round is one assignment the harness judges: the group the assignor was
// given and what it returned.
type Round struct {
	// Number counts the rounds of one generated case from 1.
	Number int
	// Group is the assignor's input. For a client-side assignor
	// Member.Owned is what each member claims at its Generation; for a
	// server-side one it is the member's previous target.
	Group assign.Group
	// Assigned is the assignor's result, with an entry (possibly empty)
	// for every member of Group.
	Assigned spec.Assignment
	// Settled reports that the round is one the group could stay at: for
	// an assignor that hands over cooperatively (CooperativeHandoff), every
	// member keeps every claim it made on a resource that exists; for any
	// other assignor, every round. Completeness and balance are judged on
	// settled rounds only, since a cooperative round leaves what moves
	// unassigned until the follow-up round.
	Settled bool
	// Changed reports that the group changed (a member joined, left or
	// changed its subscription, a topic grew, ...) just before this round.
	Changed bool
}

// Guarantee is one property an assignor may declare, judged by Assignor
// and Judge on every round (or every settled round) of every generated
// case. The predefined guarantees are the package's variables and
// ConvergesWithin; Property makes one of your own. A Guarantee is a value:
// compare them by Name.
type Guarantee struct {
	name  string
	about string
	// settledOnly limits judge to settled rounds.
	settledOnly bool
	judge       func(Round) error
	// series marks the guarantees the harness judges over successive
	// rounds itself (NoBackAndForth, ConvergesWithin, CooperativeHandoff).
	series seriesKind
	rounds int // ConvergesWithin's bound
}

type seriesKind int

const (
	notSeries seriesKind = iota
	noBackAndForth
	convergesWithin
	cooperativeHandoff
)

// Name is the guarantee's name, as failure messages print it.
func (g Guarantee) Name() string { return g.name }

// String is the name and what the guarantee promises.
func (g Guarantee) String() string { return g.name + ": " + g.about }

// The guarantees an assignor may declare. Validity (every partition given
// at most once, only to members of the group, only of topics the member
// subscribes to and that exist, every member present in the result, the
// same result for the same input, the input left unmodified, no error and
// no panic for a valid group) is not declared: every assignor must have it.
var (
	// Complete: on every settled round, every partition of a topic some
	// member subscribes to is assigned (spec.CheckCoverage).
	Complete = Guarantee{
		name:        "Complete",
		about:       "on a settled round every partition of a subscribed topic is assigned",
		settledOnly: true,
		judge:       func(r Round) error { return violations(spec.CheckCoverage(assign.ViewOf(r.Group, r.Assigned))) },
	}
	// Balanced: on every settled round, no member holds two or more
	// partitions more than another member while holding one the other
	// subscribes to: no single move improves the balance (spec.CheckBalance,
	// the meaning Kafka's sticky assignor tests use).
	Balanced = Guarantee{
		name:        "Balanced",
		about:       "on a settled round no member holds 2+ more than another while holding a partition the other could take",
		settledOnly: true,
		judge:       func(r Round) error { return violations(spec.CheckBalance(assign.ViewOf(r.Group, r.Assigned))) },
	}
	// TopicBalanced: on every settled round, each topic is spread over its
	// subscribers within one (spec.CheckTopicBalance): what the range
	// assignor promises.
	TopicBalanced = Guarantee{
		name:        "TopicBalanced",
		about:       "on a settled round each topic's subscribers hold within one partition of it of each other",
		settledOnly: true,
		judge:       func(r Round) error { return violations(spec.CheckTopicBalance(assign.ViewOf(r.Group, r.Assigned))) },
	}
	// Sticky: when every member subscribes to the same topics and no
	// partition is claimed twice, the members keep as many of their claims
	// as a balanced assignment can keep (spec.CheckStableWhenBalanced).
	Sticky = Guarantee{
		name:  "Sticky",
		about: "with one subscription for all and no conflicting claims, as many claims are kept as a balanced assignment can keep",
		judge: func(r Round) error {
			return violations(spec.CheckStableWhenBalanced(assign.RoundOf(r.Group, r.Assigned, false)))
		},
	}
	// CoPartitioned: two topics with the same number of partitions and the
	// same subscribers give each subscriber the same partition numbers of
	// both (what range promises for joins across topics).
	CoPartitioned = Guarantee{name: "CoPartitioned", about: "topics with equal partition counts and subscribers give each member the same partition numbers", judge: checkCoPartitioned}
	// RackAligned: for each topic whose racks are fully known (every
	// subscriber has a rack and every partition's replica racks are known)
	// and on which KIP-881's rule makes an assignor rack-aware (some
	// subscriber's rack holds a replica, and not every partition has
	// replicas on all of the topic's replica racks), no swap of two of its
	// partitions between their holders puts more of them on a rack of their
	// replicas. A swap changes no member's load, of the topic or in all, so
	// every assignment that aligns as many partitions of each topic as its
	// per-topic counts allow has it. Where racks are partly unknown Kafka's
	// assignors differ on purpose (the range assignor lets a member with no
	// rack match any partition, the sticky ones count it as matching none),
	// and the guarantee says nothing there.
	RackAligned = Guarantee{name: "RackAligned", about: "where KIP-881 makes a topic rack-aware, no swap of two of its partitions puts more of them on a rack of their replicas", judge: checkRackAligned}
	// NoBackAndForth: once the group stops changing, no partition moves
	// back to a member it moved away from, over the rounds that follow.
	NoBackAndForth = Guarantee{name: "NoBackAndForth", about: "after the last change no partition returns to a member it left", series: noBackAndForth}
	// CooperativeHandoff: every round passes spec.CheckRound with the
	// cooperative rule (KIP-429): no partition is given to a member while
	// another member of the round claims it; a moving partition is first
	// revoked and handed out in a later round. Client-side assignors only.
	CooperativeHandoff = Guarantee{name: "CooperativeHandoff", about: "no partition is given to a member while another member claims it", series: cooperativeHandoff}
)

// ConvergesWithin returns the guarantee that, once the group stops
// changing, the rounds reach a fixed point within n rounds: the n-th round
// after the last change is settled, and feeding its result back as the
// members' claims (at the next generation) gives the same assignment.
// Kafka's eager assignors converge within 1, the cooperative-sticky
// assignor within 2.
func ConvergesWithin(n int) Guarantee {
	return Guarantee{
		name:   fmt.Sprintf("ConvergesWithin(%d)", n),
		about:  fmt.Sprintf("after the last change, a fixed point within %d rounds", n),
		series: convergesWithin,
		rounds: n,
	}
}

// Property returns a guarantee of your own: check is called on every round
// (or, with settledOnly, on every settled round) and returns an error
// saying what is wrong, or nil.
func Property(name string, settledOnly bool, check func(Round) error) Guarantee {
	return Guarantee{name: name, about: "a property of the caller's", settledOnly: settledOnly, judge: check}
}

// violations joins spec violations into one error.
func violations(vs []spec.Violation) error {
	if len(vs) == 0 {
		return nil
	}
	const most = 4
	var b strings.Builder
	for i, v := range vs {
		if i == most {
			fmt.Fprintf(&b, "; and %d more", len(vs)-most)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return fmt.Errorf("%s", b.String())
}

// checkCoPartitioned judges CoPartitioned. Only pairs of topics with the
// same partition count and the same subscribers are compared, and each
// member's partition numbers are gathered once a topic.
func checkCoPartitioned(r Round) error {
	subscribers := map[string][]spec.MemberID{}
	for _, m := range r.Group.Members {
		for _, t := range m.Topics {
			if _, ok := r.Group.Topics[t]; ok {
				subscribers[t] = append(subscribers[t], m.ID)
			}
		}
	}
	type pair struct{ x, y string }
	var pairs []pair
	names := slices.Sorted(maps.Keys(subscribers))
	for i, x := range names {
		for _, y := range names[i+1:] {
			if r.Group.Topics[x] == r.Group.Topics[y] && slices.Equal(subscribers[x], subscribers[y]) {
				pairs = append(pairs, pair{x, y})
			}
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	numbers := map[spec.MemberID]map[string][]int32{}
	for _, m := range r.Group.Members {
		byTopic := map[string][]int32{}
		for _, x := range r.Assigned[m.ID] {
			byTopic[x.Topic] = append(byTopic[x.Topic], x.Partition)
		}
		numbers[m.ID] = byTopic
	}
	for _, p := range pairs {
		for _, m := range subscribers[p.x] {
			if nx, ny := numbers[m][p.x], numbers[m][p.y]; !slices.Equal(nx, ny) {
				return fmt.Errorf("%s and %s have %d partitions and the same subscribers, but %s gets %s partitions %v and %s partitions %v", p.x, p.y, r.Group.Topics[p.x], m, p.x, nx, p.y, ny)
			}
		}
	}
	return nil
}

// checkRackAligned judges RackAligned.
func checkRackAligned(r Round) error {
	g := r.Group
	if len(g.ReplicaRacks) == 0 {
		return nil
	}
	holders := map[spec.Resource]assign.Member{}
	byID := map[spec.MemberID]assign.Member{}
	for _, m := range g.Members {
		byID[m.ID] = m
	}
	for id, set := range r.Assigned {
		for _, x := range set {
			holders[x] = byID[id]
		}
	}
	racksOf := func(x spec.Resource) []string {
		parts := g.ReplicaRacks[x.Topic]
		if int(x.Partition) < len(parts) {
			return parts[x.Partition]
		}
		return nil
	}
	on := func(m assign.Member, x spec.Resource) bool {
		return m.Rack != "" && slices.Contains(racksOf(x), m.Rack)
	}
	for _, t := range g.Topics.Names() {
		if !rackAwareTopic(g, t) {
			continue
		}
		parts := g.Topics.Resources(t)
		for i, x := range parts {
			hx, okx := holders[x]
			if !okx {
				continue
			}
			for _, y := range parts[i+1:] {
				hy, oky := holders[y]
				if !oky || hx.ID == hy.ID {
					continue
				}
				now := b2i(on(hx, x)) + b2i(on(hy, y))
				swapped := b2i(on(hy, x)) + b2i(on(hx, y))
				if swapped > now {
					return fmt.Errorf("topic %s is rack-aware (KIP-881), but swapping %s (held by %s, rack %q, replicas on %v) and %s (held by %s, rack %q, replicas on %v) puts %d of them on a rack of their replicas instead of %d",
						t, x, hx.ID, hx.Rack, racksOf(x), y, hy.ID, hy.Rack, racksOf(y), swapped, now)
				}
			}
		}
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rackAwareTopic reports whether RackAligned judges topic: its racks are
// fully known (every subscriber has a rack, every partition has known
// replica racks) and KIP-881's rule (Kafka's useRackAwareAssignment) holds
// over it: some rack of a subscriber holds a replica, and some partition
// has replicas on fewer racks than all of the topic's replica racks.
func rackAwareTopic(g assign.Group, topic string) bool {
	memberRacks := map[string]bool{}
	for _, m := range g.Members {
		if slices.Contains(m.Topics, topic) {
			if m.Rack == "" {
				return false
			}
			memberRacks[m.Rack] = true
		}
	}
	all := map[string]bool{}
	fewest := -1
	parts := g.ReplicaRacks[topic]
	for p := range int(g.Topics[topic]) {
		var racks []string
		if p < len(parts) {
			racks = parts[p]
		}
		if len(racks) == 0 {
			return false
		}
		distinct := map[string]bool{}
		for _, r := range racks {
			distinct[r] = true
			all[r] = true
		}
		if fewest < 0 || len(distinct) < fewest {
			fewest = len(distinct)
		}
	}
	if fewest < 0 || fewest >= len(all) {
		return false
	}
	for r := range memberRacks {
		if all[r] {
			return true
		}
	}
	return false
}
