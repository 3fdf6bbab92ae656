package fuzz

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// Limits bound the generated groups.
type Limits struct {
	// Members is the most members a group starts with (at least 1).
	Members int
	// Topics is the most topics in the universe (at least 1).
	Topics int
	// Partitions is the most partitions a topic has.
	Partitions int
}

// DefaultLimits are the limits of a zero Options: small groups, where
// shrunk counterexamples are short and most bugs already show.
var DefaultLimits = Limits{Members: 8, Topics: 4, Partitions: 8}

// drawnOne is how many resources a group may have before claims and
// replica racks are no longer drawn one by one but from a seeded
// generator (rapid then shrinks the seed and the densities, not each
// claim): one draw per resource is what makes large groups slow.
const drawnOne = 64

// topicName names the i-th topic: a, b, ..., z, then t26, t27, ...
func topicName(i int) string {
	if i < 26 {
		return string(rune('a' + i))
	}
	return fmt.Sprintf("t%d", i)
}

// ghostTopic is a topic members may subscribe to that is not in the
// universe yet (a topic being created); a change may create it.
const ghostTopic = "zz"

// generator draws groups and changes for one Options.
type generator struct {
	o      Options
	joined int // members that joined through changes, for fresh IDs
}

// group draws a valid group: heterogeneous or common subscriptions
// (sometimes naming a topic that does not exist yet), static members,
// racks when Options.Racks, and claims: for a client-side assignor an
// earlier exclusive assignment plus double claims, at generations that
// may be stale or NoGeneration; for a server-side one a previous target
// (exclusive, generation 0).
func (gen *generator) group(t *rapid.T) assign.Group {
	l := gen.o.Limits
	names := make([]string, rapid.IntRange(1, l.Topics).Draw(t, "topics"))
	g := assign.Group{Topics: spec.Topics{}}
	// Sometimes every topic has the same number of partitions, so that
	// co-partitioning has something to show.
	equal := rapid.IntRange(0, 3).Draw(t, "equal-partitions") == 0
	common := int32(-1)
	for i := range names {
		names[i] = topicName(i)
		if !equal || common < 0 {
			common = int32(rapid.IntRange(0, l.Partitions).Draw(t, "partitions"))
		}
		g.Topics[names[i]] = common
	}
	homogeneous := gen.o.CommonSubscription || rapid.Bool().Draw(t, "homogeneous")
	subscription := gen.subscription(t, names)
	baseGen := spec.Generation(rapid.IntRange(1, 3).Draw(t, "generation"))
	// Members are drawn as a slice, so that shrinking can delete one
	// whole member; each choice shrinks towards the plain case (dynamic,
	// current generation).
	type draft struct {
		topics  []string
		static  bool
		genKind int
	}
	drafts := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) draft {
		d := draft{topics: subscription}
		if !homogeneous {
			d.topics = gen.subscription(t, names)
		}
		d.static = rapid.IntRange(0, 2).Draw(t, "static") == 2
		if gen.o.Side == ClientSide {
			d.genKind = rapid.IntRange(0, 5).Draw(t, "generation-kind")
		}
		return d
	}), 1, l.Members).Draw(t, "members")
	g.Members = make([]assign.Member, len(drafts))
	for i, d := range drafts {
		m := assign.Member{ID: spec.MemberID(fmt.Sprintf("m%02d", i)), Generation: baseGen, Topics: slices.Clone(d.topics)}
		if d.static {
			m.InstanceID = fmt.Sprintf("i%02d", i)
		}
		switch {
		case gen.o.Side == ServerSide:
			m.Generation = 0
		case d.genKind == 4:
			m.Generation = baseGen - 1 // stale
		case d.genKind == 5:
			m.Generation = spec.NoGeneration
		}
		g.Members[i] = m
	}
	all := g.Topics.Resources(names...)
	if len(all) <= drawnOne {
		gen.claimsOneByOne(t, &g, all)
	} else {
		gen.claimsSeeded(t, &g, all)
	}
	if gen.o.Racks {
		gen.racks(t, &g, names)
	}
	return g
}

// subscription draws a sorted subscription over names, sometimes with the
// ghost topic.
func (gen *generator) subscription(t *rapid.T, names []string) []string {
	var subs []string
	if len(names) <= 16 {
		mask := rapid.IntRange(0, 1<<len(names)-1).Draw(t, "subscription")
		for i, name := range names {
			if mask&(1<<i) != 0 {
				subs = append(subs, name)
			}
		}
	} else {
		for _, name := range names {
			if rapid.Bool().Draw(t, "subscribes") {
				subs = append(subs, name)
			}
		}
	}
	if !slices.Contains(names, ghostTopic) && rapid.IntRange(0, 9).Draw(t, "ghost") == 9 {
		subs = append(subs, ghostTopic)
	}
	slices.Sort(subs)
	return subs
}

// claimsOneByOne gives each resource an owner (or none) and, client side,
// sometimes a second claimant, one draw each.
func (gen *generator) claimsOneByOne(t *rapid.T, g *assign.Group, all spec.Set) {
	owned := make([][]spec.Resource, len(g.Members))
	n := len(g.Members)
	for _, r := range all {
		if o := rapid.IntRange(-1, n-1).Draw(t, "owner"); o >= 0 {
			owned[o] = append(owned[o], r)
		}
		if gen.o.Side == ClientSide && rapid.IntRange(0, 7).Draw(t, "double-claim") == 7 {
			o := rapid.IntRange(0, n-1).Draw(t, "second-claimant")
			owned[o] = append(owned[o], r)
		}
	}
	for i := range g.Members {
		g.Members[i].Owned = spec.NewSet(owned[i]...)
	}
}

// claimsSeeded is claimsOneByOne for large groups: the fraction of
// unclaimed resources and of double claims are drawn, the claims
// themselves come from a generator seeded by a drawn seed.
func (gen *generator) claimsSeeded(t *rapid.T, g *assign.Group, all spec.Set) {
	unclaimed := rapid.IntRange(0, 4).Draw(t, "unclaimed-quarters") // 0..4 quarters
	doubles := 0
	if gen.o.Side == ClientSide {
		doubles = rapid.IntRange(0, 3).Draw(t, "double-claims") // none, 1/32, 1/8, 1/4
	}
	rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "claims-seed"), 0))
	n := len(g.Members)
	owned := make([][]spec.Resource, n)
	for _, r := range all {
		if rng.IntN(4) >= unclaimed {
			o := rng.IntN(n)
			owned[o] = append(owned[o], r)
		}
		if doubles > 0 && rng.IntN([]int{0, 32, 8, 4}[doubles]) == 0 {
			o := rng.IntN(n)
			owned[o] = append(owned[o], r)
		}
	}
	for i := range g.Members {
		g.Members[i].Owned = spec.NewSet(owned[i]...)
	}
}

// racks gives members racks (some none) and partitions replica racks
// (some unknown).
func (gen *generator) racks(t *rapid.T, g *assign.Group, names []string) {
	racks := []string{"", "r0", "r1", "r2"}[:rapid.IntRange(2, 4).Draw(t, "racks")]
	if rapid.Bool().Draw(t, "racks-known") {
		racks = racks[1:] // every member has a rack, every partition's racks are known
	}
	for i := range g.Members {
		g.Members[i].Rack = rapid.SampledFrom(racks).Draw(t, "member-rack")
	}
	g.ReplicaRacks = map[string][][]string{}
	seeded := len(g.Topics.Resources(names...)) > drawnOne
	var rng *rand.Rand
	if seeded {
		rng = rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "racks-seed"), 1))
	}
	for _, name := range names {
		parts := make([][]string, g.Topics[name])
		for p := range parts {
			var k int
			if seeded {
				k = rng.IntN(len(racks))
			} else {
				k = rapid.IntRange(0, len(racks)-1).Draw(t, "replica-rack")
			}
			if racks[k] != "" {
				parts[p] = []string{racks[k]}
			}
		}
		g.ReplicaRacks[name] = parts
	}
}

// change draws one change of the group between two rounds and applies it
// to g (already the follow-up group: every member claims what it was
// given, at generation next). It returns what changed, for messages.
func (gen *generator) change(t *rapid.T, g *assign.Group, next spec.Generation) string {
	names := g.Topics.Names()
	kinds := []string{"leave", "join", "resubscribe", "grow", "stale", "static-bounce"}
	if gen.o.Side == ServerSide {
		kinds = kinds[:4]
	}
	var common []string // the subscription of all, under CommonSubscription
	if gen.o.CommonSubscription && len(g.Members) > 0 {
		common = g.Members[0].Topics
	}
	switch kind := rapid.SampledFrom(kinds).Draw(t, "change"); kind {
	case "leave":
		if len(g.Members) == 1 {
			return "nothing (the last member stays)"
		}
		i := rapid.IntRange(0, len(g.Members)-1).Draw(t, "leaver")
		id := g.Members[i].ID
		g.Members = slices.Delete(g.Members, i, i+1)
		return fmt.Sprintf("%s left", id)
	case "join":
		gen.joined++
		m := assign.Member{ID: spec.MemberID(fmt.Sprintf("n%02d", gen.joined)), Topics: gen.subscription(t, names), Generation: spec.NoGeneration}
		if gen.o.CommonSubscription && len(g.Members) > 0 {
			m.Topics = slices.Clone(common)
		}
		if gen.o.Side == ServerSide {
			m.Generation = 0
		}
		if gen.o.Racks {
			m.Rack = rapid.SampledFrom([]string{"", "r0", "r1"}).Draw(t, "joiner-rack")
		}
		g.Members = append(g.Members, m)
		slices.SortFunc(g.Members, byID)
		return fmt.Sprintf("%s joined, subscribing to %v", m.ID, m.Topics)
	case "resubscribe":
		if gen.o.CommonSubscription {
			subs := gen.subscription(t, names)
			for i := range g.Members {
				g.Members[i].Topics = slices.Clone(subs)
			}
			return fmt.Sprintf("every member now subscribes to %v", subs)
		}
		i := rapid.IntRange(0, len(g.Members)-1).Draw(t, "resubscriber")
		g.Members[i].Topics = gen.subscription(t, names)
		return fmt.Sprintf("%s now subscribes to %v", g.Members[i].ID, g.Members[i].Topics)
	case "grow":
		if _, ok := g.Topics[ghostTopic]; !ok && rapid.Bool().Draw(t, "create-ghost") {
			g.Topics = maps.Clone(g.Topics)
			g.Topics[ghostTopic] = int32(rapid.IntRange(1, max(1, gen.o.Limits.Partitions)).Draw(t, "ghost-partitions"))
			if g.ReplicaRacks != nil {
				g.ReplicaRacks = maps.Clone(g.ReplicaRacks)
				g.ReplicaRacks[ghostTopic] = make([][]string, g.Topics[ghostTopic])
			}
			return fmt.Sprintf("topic %s was created with %s", ghostTopic, partitions(g.Topics[ghostTopic]))
		}
		name := rapid.SampledFrom(names).Draw(t, "grown")
		by := int32(rapid.IntRange(1, max(1, gen.o.Limits.Partitions)).Draw(t, "added"))
		g.Topics = maps.Clone(g.Topics)
		g.Topics[name] += by
		if parts, ok := g.ReplicaRacks[name]; ok {
			g.ReplicaRacks = maps.Clone(g.ReplicaRacks)
			g.ReplicaRacks[name] = append(slices.Clone(parts), make([][]string, by)...)
		}
		return fmt.Sprintf("topic %s grew by %s", name, partitions(by))
	case "stale":
		i := rapid.IntRange(0, len(g.Members)-1).Draw(t, "stale-member")
		g.Members[i].Generation = next - 1
		return fmt.Sprintf("%s claims at the stale generation %d", g.Members[i].ID, next-1)
	default: // static-bounce: a restarted member, new member ID, same instance and claims
		i := rapid.IntRange(0, len(g.Members)-1).Draw(t, "bouncer")
		old := g.Members[i]
		gen.joined++
		m := old
		m.ID = spec.MemberID(fmt.Sprintf("n%02d", gen.joined))
		if m.InstanceID == "" {
			m.Owned, m.Generation = nil, spec.NoGeneration
		}
		g.Members[i] = m
		slices.SortFunc(g.Members, byID)
		return fmt.Sprintf("%s restarted as %s", old.ID, m.ID)
	}
}

// byID orders members by member ID, as assign.Group wants them.
func byID(x, y assign.Member) int { return strings.Compare(string(x.ID), string(y.ID)) }

// followUp is the group of the next round: every member claims what a
// gave it, at generation next (client side) or as its previous target
// (server side, generation 0).
func followUp(g assign.Group, a spec.Assignment, next spec.Generation, side Side) assign.Group {
	out := assign.Group{Topics: g.Topics, ReplicaRacks: g.ReplicaRacks, Members: make([]assign.Member, len(g.Members))}
	for i, m := range g.Members {
		m.Owned = a[m.ID]
		m.Generation = next
		if side == ServerSide {
			m.Generation = 0
		}
		out.Members[i] = m
	}
	return out
}

// partitions says "1 partition" or "n partitions".
func partitions(n int32) string {
	if n == 1 {
		return "1 partition"
	}
	return fmt.Sprintf("%d partitions", n)
}
