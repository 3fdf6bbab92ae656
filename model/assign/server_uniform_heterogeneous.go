package assign

import (
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/spec"
)

// serverMaxBalancePasses bounds the balancing phase of the heterogeneous
// builder: the number of full passes over the topics (Kafka's
// UniformHeterogeneousAssignmentBuilder.MAX_ITERATION_COUNT). When every
// topic's subscribers share one subscription the phase converges in one pass
// and needs a second to notice; overlapping subscriptions can need more, and
// Kafka assumes each pass roughly halves the imbalance.
const serverMaxBalancePasses = 16

// uniformHeterogeneous is the heterogeneous builder documented on Uniform
// (Kafka's UniformHeterogeneousAssignmentBuilder after KAFKA-17710). It may
// run on any valid group, homogeneous or not. It also reports whether the
// balancing phase converged (a full pass over the topics moved nothing)
// rather than stopping at serverMaxBalancePasses; a converged result fed back
// as the previous target comes back unchanged.
//
// Members are numbered by their position in g.Members (member ID order), and
// every tie is broken by that number, so the result is deterministic.
//
// Guarantees, for the live topics (existing, with partitions) of the
// members' subscriptions: every partition is assigned to exactly one
// subscriber of its topic; a member loses a previously targeted partition
// only because it unsubscribed from its topic or to balance a topic (or
// because an earlier member listed it too); at convergence, for every topic
// with two or more subscribers, either their loads are within one of each
// other or the more loaded ones hold none of the topic's partitions; so the
// subscribers of a topic who all have the same subscription end within one
// of each other (the most loaded of them would otherwise give up a
// partition of some topic of that subscription).
func uniformHeterogeneous(g Group) (spec.Assignment, bool, error) {
	h := newServerHetero(g)
	if len(h.topics) == 0 {
		return emptyAssignment(g), true, nil
	}
	h.keepSubscribed()
	h.assignUnassigned()
	converged := h.balance()
	a, err := h.owners.collect(g, h.topics)
	return a, converged, err
}

// serverHetero is the state of one run of the heterogeneous builder.
type serverHetero struct {
	g Group
	// topics are the live topics someone subscribes to, sorted by name.
	topics []string
	// subscribers lists, per topic, the indexes of its subscribers,
	// ascending.
	subscribers map[string][]int
	owners      serverOwners
	// loads is each member's number of partitions in the target being
	// built, over all topics.
	loads []int
	// ladder is reused across topics.
	ladder serverLadder
}

func newServerHetero(g Group) *serverHetero {
	h := &serverHetero{g: g, subscribers: map[string][]int{}, loads: make([]int, len(g.Members))}
	for i, m := range g.Members {
		for _, t := range m.Topics {
			if serverLive(g.Topics, t) {
				h.subscribers[t] = append(h.subscribers[t], i)
			}
		}
	}
	for t := range h.subscribers {
		h.topics = append(h.topics, t)
	}
	slices.Sort(h.topics)
	h.owners = newServerOwners(g, h.topics)
	h.ladder.loads = h.loads
	return h
}

// keepSubscribed is step 1: every member keeps its previously targeted
// partitions of the topics it still subscribes to.
func (h *serverHetero) keepSubscribed() {
	for i, m := range h.g.Members {
		for _, r := range m.Owned {
			row, ok := h.owners[r.Topic]
			if !ok || row[r.Partition] >= 0 || !inSubscription(m, r.Topic) {
				continue
			}
			row[r.Partition] = int32(i)
			h.loads[i]++
		}
	}
}

// compareTopics orders topics as Kafka's topicComparator does: partitions
// per subscriber, descending (compared exactly, by cross-multiplying), then
// subscriber count, ascending, then name.
func (h *serverHetero) compareTopics(a, b string) int {
	pa, pb := int64(h.g.Topics[a]), int64(h.g.Topics[b])
	na, nb := int64(len(h.subscribers[a])), int64(len(h.subscribers[b]))
	switch {
	case pa*nb > pb*na:
		return -1
	case pa*nb < pb*na:
		return 1
	case na != nb:
		if na < nb {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// assignUnassigned is step 2: topic by topic in compareTopics order, every
// unassigned partition, ascending, goes to the next least-loaded subscriber.
func (h *serverHetero) assignUnassigned() {
	var pending []string
	for _, t := range h.topics {
		if slices.Contains(h.owners[t], -1) {
			pending = append(pending, t)
		}
	}
	slices.SortFunc(pending, h.compareTopics)
	for _, t := range pending {
		h.ladder.reset(h.subscribers[t])
		for p, o := range h.owners[t] {
			if o < 0 {
				m := h.ladder.nextLeast()
				h.owners[t][p] = int32(m)
				h.loads[m]++
			}
		}
	}
}

// balance is step 3: passes over the topics with two or more subscribers,
// in compareTopics order, balancing each, until a full pass (counted from
// the last topic that moved anything, or from the first topic) moves
// nothing, at most serverMaxBalancePasses passes. It reports whether it
// converged.
func (h *serverHetero) balance() bool {
	var topics []string
	for _, t := range h.topics {
		if len(h.subscribers[t]) >= 2 {
			topics = append(topics, t)
		}
	}
	if len(topics) == 0 {
		return true
	}
	slices.SortFunc(topics, h.compareTopics)
	last := -1
	for range serverMaxBalancePasses {
		for k, t := range topics {
			if k == last {
				return true
			}
			if h.balanceTopic(t) > 0 || last < 0 {
				last = k
			}
		}
	}
	return false
}

// balanceTopic moves partitions of topic t from its most-loaded subscribers
// to its least-loaded ones while their loads differ by more than one, and
// returns the number moved. A giver gives up its highest-numbered partition
// of t that it held when the call began; a subscriber holding none of t is
// skipped as a giver.
func (h *serverHetero) balanceTopic(t string) int {
	l := &h.ladder
	if l.reset(h.subscribers[t]) <= 1 {
		return 0
	}
	row := h.owners[t]
	held := map[int][]int32{}
	for p, o := range row {
		held[int(o)] = append(held[int(o)], int32(p))
	}
	moved := 0
	for !l.balanced() {
		giver := l.nextMost()
		for giver >= 0 && len(held[giver]) == 0 {
			l.excludeMost()
			giver = l.nextMost()
		}
		if giver < 0 {
			break
		}
		ps := held[giver]
		p := ps[len(ps)-1]
		held[giver] = ps[:len(ps)-1]
		taker := l.nextLeast()
		if l.balanced() {
			break
		}
		row[p] = int32(taker)
		h.loads[giver]--
		h.loads[taker]++
		moved++
	}
	return moved
}

// serverLadder hands out, for one topic's subscribers, the next
// least-loaded member to give a partition to and the next most-loaded one
// to take a partition from, with the round-robin-within-a-level behaviour
// of Kafka's MemberAssignmentBalancer, so that results match Kafka's.
//
// order holds the subscribers sorted by (load, index) when reset was
// called. The least-loaded range is order[:lowEnd]: members that were all
// at lowLevel when the range last grew; lowNext walks it, and when it runs
// off the end every member of the range has received one more, so lowLevel
// rises by one and the range grows over the members now at that level. The
// most-loaded range order[highStart:highEnd] mirrors it from the top, walked
// downwards by highNext; excludeMost drops a member with nothing left to
// give by swapping it past highEnd. loads is shared with the builder and
// read live.
type serverLadder struct {
	loads []int
	order []int

	lowEnd, lowLevel, lowNext               int
	highStart, highEnd, highLevel, highNext int
}

// reset starts over on members (not empty) and returns the spread between
// the largest and smallest load among them.
func (l *serverLadder) reset(members []int) int {
	l.order = append(l.order[:0], members...)
	slices.SortFunc(l.order, func(a, b int) int {
		if c := l.loads[a] - l.loads[b]; c != 0 {
			return c
		}
		return a - b
	})
	n := len(l.order)
	lo, hi := l.loads[l.order[0]], l.loads[l.order[n-1]]
	l.lowEnd, l.lowLevel, l.lowNext = 0, lo-1, 0
	l.highStart, l.highEnd, l.highLevel, l.highNext = n, n, hi+1, n-1
	return hi - lo
}

// nextLeast returns the member to give the next partition to and assumes
// the caller gives it one.
func (l *serverLadder) nextLeast() int {
	if l.lowNext >= l.lowEnd {
		l.lowLevel++
		for l.lowEnd < len(l.order) && l.loads[l.order[l.lowEnd]] == l.lowLevel {
			l.lowEnd++
		}
		l.lowNext = 0
	}
	m := l.order[l.lowNext]
	l.lowNext++
	return m
}

// nextMost returns the member to take the next partition from, or -1 when
// every member was excluded, and assumes the caller takes one from it.
func (l *serverLadder) nextMost() int {
	if l.highNext < l.highStart {
		if l.highEnd <= l.highStart && l.highStart > 0 {
			// Every member of the range was excluded: restart the range
			// at the next member down, whatever its load.
			l.highLevel = l.loads[l.order[l.highStart-1]]
		} else {
			l.highLevel--
		}
		for l.highStart > 0 && l.loads[l.order[l.highStart-1]] == l.highLevel {
			l.highStart--
		}
		l.highNext = l.highEnd - 1
	}
	if l.highNext < 0 {
		return -1
	}
	m := l.order[l.highNext]
	l.highNext--
	return m
}

// excludeMost drops the member nextMost last returned from the most-loaded
// range.
func (l *serverLadder) excludeMost() {
	i := l.highNext + 1
	l.order[i], l.order[l.highEnd-1] = l.order[l.highEnd-1], l.order[i]
	l.highEnd--
}

// balanced reports whether the levels of the two ranges are within one.
func (l *serverLadder) balanced() bool { return l.highLevel-l.lowLevel <= 1 }
