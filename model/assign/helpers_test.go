package assign

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// tb is what the helpers need from *testing.T and *rapid.T alike.
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// allAssignors lists every assignor of the package.
func allAssignors() []Assignor {
	return []Assignor{Range(), RoundRobin(), Sticky(), CooperativeSticky()}
}

// mustSet parses a set in spec's printed form, e.g. "{t-0 t-1}".
func mustSet(t tb, s string) spec.Set {
	t.Helper()
	out, err := spec.ParseSet(s)
	if err != nil {
		t.Fatalf("bad set %q: %v", s, err)
	}
	return out
}

// mem builds a member: topics separated by spaces, owned in set form.
func mem(t tb, id string, gen spec.Generation, topics, owned string) Member {
	t.Helper()
	return Member{ID: spec.MemberID(id), Topics: strings.Fields(topics), Owned: mustSet(t, owned), Generation: gen}
}

// parseAssignment parses an expected assignment written as member → set.
func parseAssignment(t tb, w map[string]string) spec.Assignment {
	t.Helper()
	out := spec.Assignment{}
	for m, s := range w {
		out[spec.MemberID(m)] = mustSet(t, s)
	}
	return out
}

// mustAssign runs a on g and fails the test on an error.
func mustAssign(t tb, a Assignor, g Group) spec.Assignment {
	t.Helper()
	out, err := a.Assign(g)
	if err != nil {
		t.Fatalf("%s: Assign: %v\ngroup: %s", a.Name(), err, groupString(g))
	}
	return out
}

// assertAssignment fails when got differs from want (missing and empty
// members alike).
func assertAssignment(t tb, got, want spec.Assignment) {
	t.Helper()
	if !got.Equal(want) {
		t.Errorf("assignment mismatch (-want +got):\n%s", cmp.Diff(want.String(), got.String()))
	}
}

// groupString prints a group on a few lines for failure messages.
func groupString(g Group) string {
	var b strings.Builder
	fmt.Fprintf(&b, "topics:")
	for _, t := range g.Topics.Names() {
		fmt.Fprintf(&b, " %s=%d", t, g.Topics[t])
	}
	for _, m := range g.Members {
		fmt.Fprintf(&b, "\n  %s inst=%q gen=%d subs=[%s] owned=%s", m.ID, m.InstanceID, m.Generation, strings.Join(m.Topics, " "), m.Owned)
	}
	return b.String()
}

// cloneGroup deep-copies g, so tests can check that assignors leave their
// input alone.
func cloneGroup(g Group) Group {
	out := Group{Topics: spec.Topics{}, Members: make([]Member, len(g.Members))}
	for t, n := range g.Topics {
		out.Topics[t] = n
	}
	for i, m := range g.Members {
		m.Topics = slices.Clone(m.Topics)
		m.Owned = slices.Clone(m.Owned)
		out.Members[i] = m
	}
	if g.ReplicaRacks != nil {
		out.ReplicaRacks = map[string][][]string{}
		for t, parts := range g.ReplicaRacks {
			for _, racks := range parts {
				out.ReplicaRacks[t] = append(out.ReplicaRacks[t], slices.Clone(racks))
			}
			if parts != nil && out.ReplicaRacks[t] == nil {
				out.ReplicaRacks[t] = [][]string{}
			}
		}
	}
	return out
}

// sameGroup reports a difference between two groups, "" if none.
func sameGroup(a, b Group) string {
	return cmp.Diff(a, b, cmpopts.EquateEmpty())
}

// drawUniverse draws the universe of a random group: the first 1 to
// maxTopics (at most 6) of the topics a, b, c, ..., each with 0 to
// maxPartitions partitions.
func drawUniverse(t *rapid.T, maxTopics, maxPartitions int) ([]string, spec.Topics) {
	names := []string{"a", "b", "c", "d", "e", "f"}[:rapid.IntRange(1, maxTopics).Draw(t, "topics")]
	universe := spec.Topics{}
	for _, n := range names {
		universe[n] = int32(rapid.IntRange(0, maxPartitions).Draw(t, "partitions-"+n))
	}
	return names, universe
}

// limits bound the random groups.
type limits struct {
	maxMembers, maxTopics, maxPartitions int
}

// defaultLimits are the brief's: 1-8 members, 1-4 topics, 0-8 partitions.
var defaultLimits = limits{maxMembers: 8, maxTopics: 4, maxPartitions: 8}

// genGroup draws a valid group: random subscriptions (sometimes identical
// for all, sometimes naming a topic that does not exist), random static
// instance ids, random generations (including NoGeneration), and claims
// drawn from an earlier exclusive assignment plus extra claims, which give
// stale-generation and same-generation double claims.
func genGroup(t *rapid.T, l limits) Group {
	names, universe := drawUniverse(t, l.maxTopics, l.maxPartitions)
	g := Group{Topics: universe}
	n := rapid.IntRange(1, l.maxMembers).Draw(t, "members")
	subscription := func() []string {
		var subs []string
		for _, name := range names {
			if rapid.IntRange(0, 3).Draw(t, "subscribe") > 0 {
				subs = append(subs, name)
			}
		}
		if rapid.IntRange(0, 9).Draw(t, "ghost") == 0 {
			subs = append(subs, "zz-missing")
		}
		return subs
	}
	homogeneous := rapid.Bool().Draw(t, "homogeneous")
	common := subscription()
	instances := rapid.Permutation([]int{0, 1, 2, 3, 4, 5, 6, 7}).Draw(t, "instances")
	baseGen := spec.Generation(rapid.IntRange(1, 3).Draw(t, "generation"))
	g.Members = make([]Member, n)
	for i := range g.Members {
		m := Member{ID: spec.MemberID(fmt.Sprintf("m%d", i)), Generation: baseGen}
		if homogeneous {
			m.Topics = slices.Clone(common)
		} else {
			m.Topics = subscription()
		}
		if rapid.IntRange(0, 2).Draw(t, "static") == 0 {
			m.InstanceID = fmt.Sprintf("i%d", instances[i])
		}
		switch rapid.IntRange(0, 5).Draw(t, "generation-kind") {
		case 0:
			m.Generation = baseGen - 1 // stale
		case 1:
			m.Generation = spec.NoGeneration
		}
		g.Members[i] = m
	}
	drawOwned(t, &g, names, func() int { return rapid.IntRange(-1, n-1).Draw(t, "owner") }, 8)
	return g
}

// drawOwned gives the members of g their Owned sets and requires the
// result to be a valid group: every partition of the topics names goes to
// the member owner() returns (none when it returns -1), and one in
// doubleOneIn of them is claimed a second time, by a member drawn at random
// (possibly the same one, which the set then holds once).
func drawOwned(t *rapid.T, g *Group, names []string, owner func() int, doubleOneIn int) {
	owned := make([][]spec.Resource, len(g.Members))
	for _, r := range g.Topics.Resources(names...) {
		if o := owner(); o >= 0 {
			owned[o] = append(owned[o], r)
		}
		if rapid.IntRange(0, doubleOneIn-1).Draw(t, "double-claim") == 0 {
			o := rapid.IntRange(0, len(g.Members)-1).Draw(t, "second-claimant")
			owned[o] = append(owned[o], r)
		}
	}
	for i := range g.Members {
		g.Members[i].Owned = spec.NewSet(owned[i]...)
	}
	if err := ValidateGroup(*g); err != nil {
		t.Fatalf("generator made an invalid group: %v\n%s", err, groupString(*g))
	}
}

// genBalancedHomogeneous draws a homogeneous group whose members own, at one
// generation, a complete assignment with floor(P/M) or ceil(P/M) each: a
// balanced group with no stale or double claims.
func genBalancedHomogeneous(t *rapid.T) Group {
	names, universe := drawUniverse(t, 4, 8)
	g := Group{Topics: universe}
	n := rapid.IntRange(1, 8).Draw(t, "members")
	all := g.Topics.Resources(names...)
	perm := rapid.Permutation(all).Draw(t, "deal")
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	order = rapid.Permutation(order).Draw(t, "who-gets-more")
	g.Members = make([]Member, n)
	next := 0
	for k, i := range order {
		size := len(all) / n
		if k < len(all)%n {
			size++
		}
		g.Members[i] = Member{
			ID:         spec.MemberID(fmt.Sprintf("m%d", i)),
			Topics:     slices.Clone(names),
			Owned:      spec.NewSet(perm[next : next+size]...),
			Generation: 4,
		}
		next += size
	}
	return g
}

// sumSquares is Σ load² over the members of g under a.
func sumSquares(g Group, a spec.Assignment) int {
	s := 0
	for _, m := range g.Members {
		s += a[m.ID].Len() * a[m.ID].Len()
	}
	return s
}

// keptClaims counts the resources a gives to the member that won their
// claims.
func keptClaims(g Group, a spec.Assignment) int {
	won := ResolveClaims(g).Won
	n := 0
	for _, m := range g.Members {
		n += a[m.ID].Intersect(won[m.ID]).Len()
	}
	return n
}

// twoWayMoves returns, for a relative to the claims g's members won, every
// (member, topic) where the member both gives up a won partition of the topic
// and receives a partition of it it did not win. Such a member is one end of
// a 2-cycle or a longer movement cycle (Kafka's PartitionMovements.isSticky).
func twoWayMoves(g Group, a spec.Assignment) []string {
	won := ResolveClaims(g).Won
	var out []string
	for _, m := range g.Members {
		lost := won[m.ID].Minus(a[m.ID])
		gained := a[m.ID].Minus(won[m.ID])
		for _, t := range lost.Topics() {
			if slices.Contains(gained.Topics(), t) {
				out = append(out, fmt.Sprintf("%s loses %s and gains %s of topic %s", m.ID, lost, gained, t))
			}
		}
	}
	return out
}

// nextRound returns the group of the follow-up rebalance: every member owns
// what a gave it, at generation gen.
func nextRound(g Group, a spec.Assignment, gen spec.Generation) Group {
	out := Group{Topics: g.Topics, Members: make([]Member, len(g.Members))}
	for i, m := range g.Members {
		m.Owned = a[m.ID]
		m.Generation = gen
		out.Members[i] = m
	}
	return out
}

// maxGeneration is the highest generation of g's members (at least 0).
func maxGeneration(g Group) spec.Generation {
	gen := spec.Generation(0)
	for _, m := range g.Members {
		gen = max(gen, m.Generation)
	}
	return gen
}

// revokes reports whether a takes from some member of g a resource it owns.
func revokes(g Group, a spec.Assignment) bool {
	for _, m := range g.Members {
		if !m.Owned.Minus(a[m.ID]).IsEmpty() {
			return true
		}
	}
	return false
}

// converge runs cooperative rounds of as from g, feeding each result back
// at the next generation, until a round revokes nothing. It checks every
// round with spec.CheckRound (Cooperative) and returns the number of rounds,
// the last group and its assignment.
func converge(t tb, as Assignor, g Group) (int, Group, spec.Assignment) {
	t.Helper()
	gen := maxGeneration(g)
	for round := 1; ; round++ {
		a := mustAssign(t, as, g)
		if v := spec.CheckRound(RoundOf(g, a, true)); len(v) > 0 {
			t.Fatalf("round %d violates %v\ngroup: %s\nassigned: %s", round, v, groupString(g), a)
		}
		if !revokes(g, a) {
			return round, g, a
		}
		if round >= 10 {
			t.Fatalf("no convergence after %d rounds\ngroup: %s\nassigned: %s", round, groupString(g), a)
		}
		gen++
		g = nextRound(g, a, gen)
	}
}
