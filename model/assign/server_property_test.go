package assign

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/spec"
)

// Subscription shapes srvGenGroup draws.
const (
	srvIdentical = iota // everybody subscribes to the same topics
	srvClasses          // any two subscriptions are identical or disjoint
	srvRandom           // anything
)

// srvGenGroup draws a valid group for the server-side assignors: 1-10
// members, 1-5 topics of 0-12 partitions, subscriptions of the given shape
// (sometimes naming a topic that does not exist), random static instance
// IDs, and a random previous target: each partition of the universe,
// subscribed or not, targeted to a random member or to nobody, now and then
// to a second member as well.
func srvGenGroup(t *rapid.T, shape int) Group {
	names := []string{"t0", "t1", "t2", "t3", "t4"}[:rapid.IntRange(1, 5).Draw(t, "topics")]
	g := Group{Topics: spec.Topics{}}
	for _, n := range names {
		g.Topics[n] = int32(rapid.IntRange(0, 12).Draw(t, "partitions-"+n))
	}
	n := rapid.IntRange(1, 10).Draw(t, "members")
	random := func() []string {
		var subs []string
		for _, name := range names {
			if rapid.Bool().Draw(t, "subscribe") {
				subs = append(subs, name)
			}
		}
		return subs
	}
	// For srvClasses: topics are split into classes, each member takes one
	// class (or nothing).
	classes := make([]int, len(names))
	for i := range classes {
		classes[i] = rapid.IntRange(0, 2).Draw(t, "class")
	}
	common := random()
	instances := rapid.Permutation([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}).Draw(t, "instances")
	g.Members = make([]Member, n)
	for i := range g.Members {
		m := Member{ID: spec.MemberID(fmt.Sprintf("m%d", i))}
		switch shape {
		case srvIdentical:
			m.Topics = slices.Clone(common)
		case srvClasses:
			c := rapid.IntRange(-1, 2).Draw(t, "member-class")
			for k, name := range names {
				if classes[k] == c {
					m.Topics = append(m.Topics, name)
				}
			}
		default:
			m.Topics = random()
		}
		if rapid.IntRange(0, 9).Draw(t, "ghost") == 0 {
			m.Topics = append(m.Topics, "zz-missing")
		}
		if rapid.IntRange(0, 2).Draw(t, "static") == 0 {
			m.InstanceID = fmt.Sprintf("i%d", instances[i])
		}
		g.Members[i] = m
	}
	owned := make([][]spec.Resource, n)
	if rapid.IntRange(0, 3).Draw(t, "previous-target") > 0 {
		for _, r := range g.Topics.Resources(names...) {
			if o := rapid.IntRange(-1, n-1).Draw(t, "owner"); o >= 0 {
				owned[o] = append(owned[o], r)
			}
			if rapid.IntRange(0, 15).Draw(t, "overlap") == 0 {
				o := rapid.IntRange(0, n-1).Draw(t, "second-owner")
				owned[o] = append(owned[o], r)
			}
		}
	}
	for i := range g.Members {
		g.Members[i].Owned = spec.NewSet(owned[i]...)
	}
	if err := ValidateGroup(g); err != nil {
		t.Fatalf("generator made an invalid group: %v\n%s", err, srvGroupString(g))
	}
	return g
}

// srvAnyGroup draws a group of any shape.
func srvAnyGroup(t *rapid.T) Group {
	return srvGenGroup(t, rapid.IntRange(srvIdentical, srvRandom).Draw(t, "shape"))
}

// srvClone deep-copies g.
func srvClone(g Group) Group {
	out := Group{Topics: spec.Topics{}, Members: make([]Member, len(g.Members))}
	for t, n := range g.Topics {
		out.Topics[t] = n
	}
	for i, m := range g.Members {
		m.Topics = slices.Clone(m.Topics)
		m.Owned = slices.Clone(m.Owned)
		out.Members[i] = m
	}
	return out
}

// srvFeedBack returns g with a as every member's previous target.
func srvFeedBack(g Group, a spec.Assignment) Group {
	out := srvClone(g)
	for i := range out.Members {
		out.Members[i].Owned = a[out.Members[i].ID]
	}
	return out
}

// srvDisjointOrIdentical reports whether any two members' live
// subscriptions are identical or disjoint.
func srvDisjointOrIdentical(g Group) bool {
	for _, a := range g.Members {
		for _, b := range g.Members {
			sa, sb := serverSubscription(g, a), serverSubscription(g, b)
			if !slices.Equal(sa, sb) && slices.ContainsFunc(sa, func(t string) bool { return slices.Contains(sb, t) }) {
				return false
			}
		}
	}
	return true
}

// srvTopicSpread returns, for each live subscribed topic, the spread
// between the largest and smallest load (over all topics) among its
// subscribers.
func srvTopicSpread(g Group, a spec.Assignment) map[string]int {
	out := map[string]int{}
	for _, t := range g.Topics.Names() {
		if !serverLive(g.Topics, t) {
			continue
		}
		lo, hi := -1, -1
		for _, m := range g.Members {
			if inSubscription(m, t) {
				n := a[m.ID].Len()
				if lo < 0 || n < lo {
					lo = n
				}
				hi = max(hi, n)
			}
		}
		if hi >= 0 {
			out[t] = hi - lo
		}
	}
	return out
}

// TestServerPropertiesCommon: for every server-side assignor on random
// groups, the result is deterministic, leaves the input alone, names every
// member and nobody else, passes spec.CheckRound (eager: the coordinator's
// reconciliation, not the assignor, handles hand-offs) and spec.CheckCoverage
// (every partition of every subscribed topic is assigned, once, to a
// subscriber).
func TestServerPropertiesCommon(t *testing.T) {
	for i, as := range srvAssignors() {
		t.Run(srvLabels[i], func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := srvAnyGroup(t)
				before := srvClone(g)
				a := srvAssign(t, as, g)
				if d := cmp.Diff(before, g, cmpopts.EquateEmpty()); d != "" {
					t.Fatalf("input modified:\n%s", d)
				}
				if b := srvAssign(t, as, srvClone(g)); !a.Equal(b) {
					t.Fatalf("not deterministic:\n%s\n%s", a, b)
				}
				if len(a) != len(g.Members) {
					t.Fatalf("%d members in %s, want %d", len(a), a, len(g.Members))
				}
				for _, m := range g.Members {
					if _, ok := a[m.ID]; !ok {
						t.Fatalf("%s missing from %s", m.ID, a)
					}
					if err := a[m.ID].Validate(); err != nil {
						t.Fatalf("%s: %v", m.ID, err)
					}
				}
				if vs := spec.CheckRound(RoundOf(g, a, false)); len(vs) > 0 {
					t.Fatalf("invalid round: %v\n%s\nassigned: %s", vs, srvGroupString(g), a)
				}
				if vs := spec.CheckCoverage(ViewOf(g, a)); len(vs) > 0 {
					t.Fatalf("incomplete: %v\n%s\nassigned: %s", vs, srvGroupString(g), a)
				}
			})
		})
	}
}

// srvResolvedPrevious is each member's previous target as the homogeneous
// builder reads it: partitions of live subscribed topics not listed by an
// earlier member that already counts them.
func srvResolvedPrevious(g Group) []spec.Set {
	seen := map[spec.Resource]bool{}
	out := make([]spec.Set, len(g.Members))
	for i, m := range g.Members {
		out[i] = m.Owned.Filter(func(r spec.Resource) bool {
			if !inSubscription(m, r.Topic) || seen[r] {
				return false
			}
			seen[r] = true
			return true
		})
	}
	return out
}

// srvOverlaps reports whether two members' previous targets share a
// partition.
func srvOverlaps(g Group) bool {
	seen := map[spec.Resource]bool{}
	for _, m := range g.Members {
		for _, r := range m.Owned {
			if seen[r] {
				return true
			}
			seen[r] = true
		}
	}
	return false
}

// TestServerPropertiesUniformHomogeneous: on homogeneous groups both
// variants give ⌊P/M⌋ or ⌈P/M⌉ partitions each, exactly P mod M members
// the larger size, and a result fed back as the previous target comes back
// unchanged. When no two previous targets overlap, the default variant
// keeps, for every member, at least min(⌊P/M⌋, its previous target)
// partitions of it, and keeps ⌈P/M⌉ for as many members that held more than
// ⌊P/M⌋ as there are extra slots.
func TestServerPropertiesUniformHomogeneous(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := srvGenGroup(t, srvIdentical)
		topics, ok := serverHomogeneous(g)
		if !ok {
			t.Fatalf("not homogeneous:\n%s", srvGroupString(g))
		}
		total := g.Topics.Resources(topics...).Len()
		members := len(g.Members)
		minQuota := total / members
		for _, before := range []bool{false, true} {
			as := UniformWith(UniformOptions{BeforeKafka18688: before})
			a := srvAssign(t, as, g)
			larger := 0
			for _, n := range srvLoads(g, a) {
				switch n {
				case minQuota:
				case minQuota + 1:
					larger++
				default:
					t.Fatalf("before=%v: size %d, want %d or %d\n%s\n%s", before, n, minQuota, minQuota+1, srvGroupString(g), a)
				}
			}
			if larger != total%members {
				t.Fatalf("before=%v: %d members above %d, want %d\n%s", before, larger, minQuota, total%members, a)
			}
			if again := srvAssign(t, as, srvFeedBack(g, a)); !again.Equal(a) {
				t.Fatalf("before=%v: not a fixed point\nfirst  %s\nsecond %s", before, a, again)
			}
			if before || srvOverlaps(g) {
				continue
			}
			prev := srvResolvedPrevious(g)
			extras := 0
			for i, m := range g.Members {
				kept := prev[i].Intersect(a[m.ID]).Len()
				if kept < min(minQuota, prev[i].Len()) {
					t.Fatalf("%s kept %d of %s, want at least %d\n%s", m.ID, kept, prev[i], min(minQuota, prev[i].Len()), a)
				}
				if kept > minQuota {
					extras++
				}
			}
			held := 0
			for _, p := range prev {
				if p.Len() > minQuota {
					held++
				}
			}
			if want := min(held, total%members); extras != want {
				t.Fatalf("%d members kept an extra partition, want %d\n%s\n%s", extras, want, srvGroupString(g), a)
			}
		}
	})
}

// srvGenBalanced draws a homogeneous group whose previous target is
// complete, exclusive and balanced: ⌊P/M⌋ or ⌈P/M⌉ each, with the larger
// members chosen at random.
func srvGenBalanced(t *rapid.T) Group {
	names := []string{"t0", "t1", "t2", "t3"}[:rapid.IntRange(1, 4).Draw(t, "topics")]
	g := Group{Topics: spec.Topics{}}
	for _, n := range names {
		g.Topics[n] = int32(rapid.IntRange(0, 12).Draw(t, "partitions-"+n))
	}
	n := rapid.IntRange(1, 10).Draw(t, "members")
	all := g.Topics.Resources(names...)
	deal := rapid.Permutation(all).Draw(t, "deal")
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
		g.Members[i] = Member{ID: spec.MemberID(fmt.Sprintf("m%d", i)), Topics: slices.Clone(names), Owned: spec.NewSet(deal[next : next+size]...)}
		next += size
	}
	return g
}

// TestServerPropertiesUniformBalancedNeverMoves: with KAFKA-18688 a group
// whose previous target is complete, exclusive and balanced keeps it. Before
// the fix it moves partitions exactly when the members holding ⌈P/M⌉ are
// not the first P mod M members.
func TestServerPropertiesUniformBalancedNeverMoves(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := srvGenBalanced(t)
		a := srvAssign(t, Uniform(), g)
		if moved := srvMoved(g, a); moved > 0 {
			t.Fatalf("%d partitions moved in a balanced group\n%s\n%s", moved, srvGroupString(g), a)
		}
		old := srvAssign(t, UniformWith(UniformOptions{BeforeKafka18688: true}), g)
		total, members := 0, len(g.Members)
		for _, m := range g.Members {
			total += m.Owned.Len()
		}
		firstAreLarger := true
		for i, m := range g.Members {
			if (i < total%members) != (m.Owned.Len() > total/members) {
				firstAreLarger = false
			}
		}
		if moved := srvMoved(g, old); (moved > 0) == firstAreLarger {
			t.Fatalf("before KAFKA-18688: %d moved, larger members first: %v\n%s\n%s", moved, firstAreLarger, srvGroupString(g), old)
		}
	})
}

// TestServerPropertiesUniformHeterogeneous runs the heterogeneous builder
// directly on random groups of every shape. Always: a valid, complete round.
// When any two subscriptions are identical or disjoint: it converges and the
// loads of each topic's subscribers are within one (so within one overall
// when everybody shares the subscription). When it converges: the result fed
// back as the previous target comes back unchanged.
func TestServerPropertiesUniformHeterogeneous(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := srvAnyGroup(t)
		a, converged, err := uniformHeterogeneous(g)
		if err != nil {
			t.Fatalf("%v\n%s", err, srvGroupString(g))
		}
		if vs := append(spec.CheckRound(RoundOf(g, a, false)), spec.CheckCoverage(ViewOf(g, a))...); len(vs) > 0 {
			t.Fatalf("%v\n%s\nassigned: %s", vs, srvGroupString(g), a)
		}
		if srvDisjointOrIdentical(g) {
			if !converged {
				t.Fatalf("did not converge\n%s\n%s", srvGroupString(g), a)
			}
			for topic, spread := range srvTopicSpread(g, a) {
				if spread > 1 {
					t.Fatalf("topic %s: subscriber loads spread %d\n%s\n%s", topic, spread, srvGroupString(g), a)
				}
			}
		}
		if !converged {
			return
		}
		again, _, err := uniformHeterogeneous(srvFeedBack(g, a))
		if err != nil || !again.Equal(a) {
			t.Fatalf("not a fixed point (%v)\nfirst  %s\nsecond %s\n%s", err, a, again, srvGroupString(g))
		}
	})
}

// TestServerPropertiesUniformSticky: through Uniform (either builder), a
// result fed back as the previous target comes back unchanged whenever the
// heterogeneous builder converged, and with identical-or-disjoint
// subscriptions every topic's subscribers are within one of each other.
func TestServerPropertiesUniformSticky(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := srvAnyGroup(t)
		a := srvAssign(t, Uniform(), g)
		if srvDisjointOrIdentical(g) {
			for topic, spread := range srvTopicSpread(g, a) {
				if spread > 1 {
					t.Fatalf("topic %s: subscriber loads spread %d\n%s\n%s", topic, spread, srvGroupString(g), a)
				}
			}
		}
		if _, homogeneous := serverHomogeneous(g); !homogeneous {
			if _, converged, _ := uniformHeterogeneous(g); !converged {
				return
			}
		}
		if again := srvAssign(t, Uniform(), srvFeedBack(g, a)); !again.Equal(a) {
			t.Fatalf("not a fixed point\nfirst  %s\nsecond %s\n%s", a, again, srvGroupString(g))
		}
	})
}

// TestServerPropertiesRange: the server range assignor equals the
// client-side Range without racks, gives per topic contiguous ranges in
// Kafka's member order whose sizes differ by at most one, larger first, and
// co-partitions: with identical subscriptions every member gets the same
// partition numbers of all topics of equal size.
func TestServerPropertiesRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := srvAnyGroup(t)
		a := srvAssign(t, ServerRange(), g)
		if client := srvAssign(t, Range(), g); !client.Equal(a) {
			t.Fatalf("server %s\nclient %s", a, client)
		}
		numbers := func(m Member, topic string) []int32 {
			var out []int32
			for _, r := range a[m.ID] {
				if r.Topic == topic {
					out = append(out, r.Partition)
				}
			}
			return out
		}
		for _, topic := range g.Topics.Names() {
			next, prev := int32(0), -1
			for _, i := range kafkaOrder(g.Members) {
				m := g.Members[i]
				if !inSubscription(m, topic) {
					continue
				}
				got := numbers(m, topic)
				for k, p := range got {
					if p != next+int32(k) {
						t.Fatalf("topic %s: %s got %v, want a range from %d\n%s", topic, m.ID, got, next, a)
					}
				}
				next += int32(len(got))
				if prev >= 0 && (len(got) > prev || prev-len(got) > 1) {
					t.Fatalf("topic %s: %s got %d after %d\n%s", topic, m.ID, len(got), prev, a)
				}
				prev = len(got)
			}
		}
		if _, ok := serverHomogeneous(g); !ok {
			return
		}
		for _, m := range g.Members {
			for _, x := range serverSubscription(g, m) {
				for _, y := range serverSubscription(g, m) {
					if g.Topics[x] == g.Topics[y] && !slices.Equal(numbers(m, x), numbers(m, y)) {
						t.Fatalf("%s: %s %v but %s %v\n%s", m.ID, x, numbers(m, x), y, numbers(m, y), a)
					}
				}
			}
		}
	})
}

// TestServerPropertiesCoPartitioningExample: the co-partitioning property on
// a fixed group with static and dynamic members.
func TestServerPropertiesCoPartitioningExample(t *testing.T) {
	g := Group{Topics: spec.Topics{"clicks": 7, "views": 7, "other": 3}, Members: []Member{
		srvMember(t, "a", "clicks other views", "{}"),
		srvStatic(t, "b", "z", "clicks other views", "{}"),
		srvMember(t, "c", "clicks other views", "{}"),
	}}
	a := srvAssign(t, ServerRange(), g)
	srvCheck(t, "server range", a, srvWant(t, map[string]string{
		"b": "{clicks-0 clicks-1 clicks-2 other-0 views-0 views-1 views-2}",
		"a": "{clicks-3 clicks-4 other-1 views-3 views-4}",
		"c": "{clicks-5 clicks-6 other-2 views-5 views-6}",
	}))
}

// TestServerPropertiesNeverPanic: on arbitrary, often invalid groups every
// server-side assignor returns ValidateGroup's error or a result, and never
// panics.
func TestServerPropertiesNeverPanic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := srvAnyGroup(t)
		switch rapid.IntRange(0, 6).Draw(t, "damage") {
		case 0:
			g.Topics["t0"] = -int32(rapid.IntRange(1, 3).Draw(t, "negative"))
		case 1:
			g.Members = rapid.Permutation(g.Members).Draw(t, "shuffled")
		case 2:
			i := rapid.IntRange(0, len(g.Members)-1).Draw(t, "who")
			g.Members[i].Owned = spec.Set{spec.TP("t0", int32(rapid.IntRange(-2, 20).Draw(t, "partition")))}
		case 3:
			i := rapid.IntRange(0, len(g.Members)-1).Draw(t, "who")
			g.Members[i].Topics = append(g.Members[i].Topics, "")
		case 4:
			g.Members = append(g.Members, g.Members[0])
		case 5:
			delete(g.Topics, "t0")
		}
		for _, as := range srvAssignors() {
			a, err := as.Assign(g)
			want := ValidateGroup(g)
			if (err == nil) != (want == nil) || (err != nil && a != nil) {
				t.Fatalf("%s: got %v, %v; ValidateGroup says %v", as.Name(), a, err, want)
			}
		}
	})
}
