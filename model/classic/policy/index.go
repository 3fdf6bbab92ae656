package policy

import (
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// The Designs II and III leader works on the round's configured resources
// (Connect's "configured" set: every resource of every topic some member
// subscribes to) by index. Steps 4 to 7 only ever hold, hand out and take
// back configured resources (what is not configured is deleted and revoked
// in step 4), so an assignment is a sorted []int32 of indices per member
// position (the position of the member in the round's sorted IDs), and
// index order is resource order (spec.Resource.Less). That turns the set
// operations of a round over R resources and W members into merges of
// integers and array lookups, instead of sorting resources and hashing
// their topic strings, which at Connect's scale (W = 1,000, R = 100,000)
// was almost all of a round's time. Sets go back to spec.Set only at the
// edges: the input's claims and memory, and the result.

// universe is the configured resources of a round, indexed: index i
// names resource(i), and index order is resource order. The resources
// themselves are not stored: an index's topic run gives it.
type universe struct {
	// size is the number of configured resources.
	size int
	// topics are the topics with at least one configured resource, in
	// order of their names (position finds one by name).
	topics []topicSpan
	// topicOf is the position in topics of each index's topic.
	topicOf []int32
	// connectors reports that some configured resource is a connector.
	connectors bool
}

// topicSpan is one topic's run of indices: start+k is the resource of the
// topic with partition lo+k, for 0 <= k < n (lo is spec.ConnectorTask for
// a connector, whose connector resource comes before its tasks, and 0
// otherwise).
type topicSpan struct {
	name     string
	start    int32
	lo, n    int32
	hasTasks bool
}

// newUniverse indexes the resources that topics.Resources(names...) of
// every member's subscription returns: every partition of every
// subscribed topic with metadata, and a connector's connector resource
// before its tasks. subs are the sorted subscriptions; members that share
// one subscription slice are looked at once.
func newUniverse(topics spec.Topics, subs [][]string) *universe {
	names := subscribedTopics(subs)
	u := &universe{topics: make([]topicSpan, 0, len(names))}
	for _, n := range names {
		c, ok := topics[n]
		if !ok {
			continue
		}
		sp := topicSpan{name: n, start: int32(u.size), n: max(c, 0), hasTasks: c > 0}
		if topics.IsConnector(n) {
			sp.lo = spec.ConnectorTask
			sp.n++
			u.connectors = true
		}
		if sp.n == 0 {
			continue
		}
		u.size += int(sp.n)
		u.topics = append(u.topics, sp)
	}
	u.topicOf = make([]int32, u.size)
	for t, sp := range u.topics {
		for k := range sp.n {
			u.topicOf[sp.start+k] = int32(t)
		}
	}
	return u
}

// subscribedTopics returns the sorted union of the sorted subscriptions
// subs, only to be read: the first subscription itself when every member
// subscribes to the same topics (or subs has one), a new slice otherwise.
// Members decode their subscriptions into slices of their own, equal in a
// real group: comparing each with the one before costs a few string
// comparisons a member, where sorting all their topics together cost a
// thousand-member leader a sort of ten thousand names every round.
func subscribedTopics(subs [][]string) []string {
	distinct := 0
	for i, s := range subs {
		if i == 0 || !sameTopics(s, subs[i-1]) {
			distinct++
		}
	}
	if distinct <= 1 {
		if len(subs) == 0 {
			return nil
		}
		return subs[0]
	}
	var names []string
	for i, s := range subs {
		if i == 0 || !sameTopics(s, subs[i-1]) {
			names = append(names, s...)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// position returns the position in u.topics of the topic called name, and
// whether it has configured resources.
func (u *universe) position(name string) (int32, bool) {
	t, ok := slices.BinarySearchFunc(u.topics, name, func(sp topicSpan, name string) int { return strings.Compare(sp.name, name) })
	return int32(t), ok
}

// resource returns the resource index i names.
func (u *universe) resource(i int32) spec.Resource {
	sp := &u.topics[u.topicOf[i]]
	return spec.Resource{Topic: sp.name, Partition: sp.lo + i - sp.start}
}

// sameSlice reports whether a and b are the same slice (one subscription
// shared by several members).
func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// sameTopics reports whether a and b hold the same topics: the same slice
// at once, or equal ones.
func sameTopics(a, b []string) bool { return sameSlice(a, b) || slices.Equal(a, b) }

// sameSet reports whether a and b are the same slice (a member's claims
// and the memory's record of them, when nothing changed in between).
func sameSet(a, b spec.Set) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// sameIdx reports whether a and b are the same non-empty index list.
func sameIdx(a, b []int32) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}

// locator finds resources of a sorted set in a universe, looking each
// topic up once for each run of its resources.
type locator struct {
	u     *universe
	valid bool
	topic string
	t     int32 // position in u.topics, -1 when the topic has none (or before the first)
	// start, lo and n are topics[t]'s (n is 0 when t is -1), copied so
	// that index, called for every resource of every member's claims in
	// every round, reads them from the locator instead of following u
	// into the universe's topics; seek, out of line, moves them at a new
	// topic.
	start, lo, n int32
}

func (u *universe) locator() locator { return locator{u: u, t: -1} }

// index returns the index of x and whether x is configured.
func (l *locator) index(x spec.Resource) (int32, bool) {
	if !l.valid || !spec.SameTopic(x.Topic, l.topic) {
		l.seek(x.Topic)
	}
	k := x.Partition - l.lo
	if k < 0 || k >= l.n {
		return -1, false
	}
	return l.start + k, true
}

// seek moves the locator to the topic called name. It tries the
// universe's topic after the last one found before it searches: a
// member's set is sorted by topic, as the universe is, and its next run is
// most often of the next topic.
func (l *locator) seek(name string) {
	l.valid, l.topic = true, name
	if next := l.t + 1; int(next) < len(l.u.topics) && l.u.topics[next].name == name {
		l.t = next
	} else if t, ok := l.u.position(name); ok {
		l.t = t
	} else {
		l.t, l.start, l.lo, l.n = -1, 0, 0, 0
		return
	}
	sp := &l.u.topics[l.t]
	l.start, l.lo, l.n = sp.start, sp.lo, sp.n
}

// index returns the index of x and whether x is configured.
func (u *universe) index(x spec.Resource) (int32, bool) {
	l := u.locator()
	return l.index(x)
}

// count returns the number of configured resources of kind k.
func (u *universe) count(k assign.ConnectKind) int {
	connectors := 0
	for _, sp := range u.topics {
		if sp.lo == spec.ConnectorTask {
			connectors++
		}
	}
	if k == assign.ConnectorKind {
		return connectors
	}
	return u.size - connectors
}

// indices returns the indices of the configured resources of s, in order.
func (u *universe) indices(s spec.Set) []int32 {
	out := make([]int32, 0, len(s))
	l := u.locator()
	for _, x := range s {
		if i, ok := l.index(x); ok {
			out = append(out, i)
		}
	}
	return out
}

// resources returns the set of the resources of xs (sorted indices); nil
// when xs is empty, as every spec.Set operation returns an empty set.
func (u *universe) resources(xs []int32) spec.Set {
	if len(xs) == 0 {
		return nil
	}
	out := make(spec.Set, len(xs))
	for k, i := range xs {
		out[k] = u.resource(i)
	}
	return out
}

// isConnector reports whether index i is a connector resource.
func (u *universe) isConnector(i int32) bool {
	sp := &u.topics[u.topicOf[i]]
	return sp.lo == spec.ConnectorTask && i == sp.start
}

// mergeIdx returns the sorted union of the sorted index lists a and b, a
// new slice (or one of them when the other is empty).
func mergeIdx(a, b []int32) []int32 {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// minusIdx returns the sorted list a without the elements of the sorted
// list b, a new slice (or a itself when b is empty).
func minusIdx(a, b []int32) []int32 {
	if len(b) == 0 || len(a) == 0 {
		return a
	}
	out := make([]int32, 0, len(a))
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			continue
		}
		out = append(out, x)
	}
	return out
}

// sortedIdx sorts xs in place, drops repeats and returns it.
func sortedIdx(xs []int32) []int32 {
	slices.Sort(xs)
	return slices.Compact(xs)
}

// containsIdx reports whether the sorted list xs holds i.
func containsIdx(xs []int32, i int32) bool {
	_, ok := slices.BinarySearch(xs, i)
	return ok
}
