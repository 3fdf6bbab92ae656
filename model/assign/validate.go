package assign

import (
	"errors"
	"fmt"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// ErrInvalidGroup is wrapped by every error ValidateGroup and ValidateConnect
// return, so callers can tell caller misuse (errors.Is(err,
// ErrInvalidGroup)) from anything else.
var ErrInvalidGroup = errors.New("assign: invalid group")

// ValidateGroup returns an error wrapping ErrInvalidGroup when g is not a
// well-formed assignor input, and nil otherwise. It never panics. It rejects,
// reporting the first problem in a fixed order (universe, then members in
// order, then each member's fields):
//
//   - a topic of the universe with an empty name or a negative partition count;
//   - a member with an empty ID, members not sorted by ID, or two members with
//     the same ID;
//   - two members with the same non-empty InstanceID (the coordinator would
//     have fenced one of them);
//   - a subscription with an empty topic name, or one that is not sorted or
//     lists a topic twice;
//   - an Owned set that is not a valid spec.Set (unsorted, duplicates, an
//     invalid Resource);
//   - an owned resource of a topic that is not in the universe, or whose
//     partition is out of range (this includes a Connect connector resource,
//     partition -1, which is never a topic-partition);
//   - a generation below spec.NoGeneration;
//   - replica racks (Group.ReplicaRacks) for a topic that is not in the
//     universe, for a number of partitions other than the topic's, or
//     naming an empty rack (checked right after the universe).
//
// A subscription may name topics that are not in the universe (metadata not
// yet known, or a deleted topic); assignors ignore them. A member may own
// resources of topics it no longer subscribes to; assignors take them away.
// Callers whose members may still claim partitions of deleted topics can
// drop those claims first with PruneOwned.
//
// Every assignor in this package calls ValidateGroup first and returns its
// error unchanged.
func ValidateGroup(g Group) error { return validateGroup(g, true) }

// ValidatePrunedGroup returns what ValidateGroup returns for a group that
// PruneOwned returned from a group whose Owned sets are all valid spec.Sets
// (spec.Set.Validate). Such a group's Owned sets pass ValidateGroup's
// checks of them (each keeps, in order, existing partitions of a valid
// set), so ValidatePrunedGroup skips those checks: a caller that validated
// and pruned every member's claims (a leader over a large group, in every
// round) saves two passes over them. On any other group it may accept an
// Owned set that ValidateGroup rejects.
func ValidatePrunedGroup(g Group) error { return validateGroup(g, false) }

// validateGroup is ValidateGroup, checking the Owned sets only when owned.
func validateGroup(g Group, owned bool) error {
	names := g.Topics.Names()
	counts := make([]int32, len(names))
	for k, t := range names {
		counts[k] = g.Topics[t]
		if t == "" {
			return fmt.Errorf("%w: the universe has a topic with an empty name", ErrInvalidGroup)
		}
		if n := counts[k]; n < 0 {
			return fmt.Errorf("%w: topic %q has a negative partition count %d", ErrInvalidGroup, t, n)
		}
	}
	if err := validateReplicaRacks(g); err != nil {
		return err
	}
	topicIx := newTopicIndex(names)
	instances := map[string]spec.MemberID{}
	// Members often share one subscription slice (a leader decodes each
	// subscription once); checking one slice once is enough.
	checked := map[*string]int{}
	for i, m := range g.Members {
		if m.ID == "" {
			return fmt.Errorf("%w: member %d has an empty member ID", ErrInvalidGroup, i)
		}
		if i > 0 {
			prev := g.Members[i-1].ID
			if prev == m.ID {
				return fmt.Errorf("%w: member ID %q appears twice", ErrInvalidGroup, m.ID)
			}
			if prev > m.ID {
				return fmt.Errorf("%w: members not sorted by ID: %q listed after %q", ErrInvalidGroup, m.ID, prev)
			}
		}
		if m.InstanceID != "" {
			if other, dup := instances[m.InstanceID]; dup {
				return fmt.Errorf("%w: members %q and %q share instance ID %q", ErrInvalidGroup, other, m.ID, m.InstanceID)
			}
			instances[m.InstanceID] = m.ID
		}
		if err := validateSubscription(m, checked); err != nil {
			return err
		}
		if owned {
			if err := validateOwned(topicIx, counts, m); err != nil {
				return err
			}
		}
		if m.Generation < spec.NoGeneration {
			return fmt.Errorf("%w: member %q has generation %d, below %d", ErrInvalidGroup, m.ID, m.Generation, spec.NoGeneration)
		}
	}
	return nil
}

// validateReplicaRacks checks that g.ReplicaRacks names only topics of the
// universe, each with one entry per partition, and no empty rack name.
func validateReplicaRacks(g Group) error {
	if len(g.ReplicaRacks) == 0 {
		return nil
	}
	topics := make([]string, 0, len(g.ReplicaRacks))
	for t := range g.ReplicaRacks {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	for _, t := range topics {
		n, ok := g.Topics[t]
		if !ok {
			return fmt.Errorf("%w: replica racks given for topic %q, which does not exist", ErrInvalidGroup, t)
		}
		if got := len(g.ReplicaRacks[t]); got != int(n) {
			return fmt.Errorf("%w: replica racks given for %d partitions of topic %q, which has %d", ErrInvalidGroup, got, t, n)
		}
		for p, racks := range g.ReplicaRacks[t] {
			if slices.Contains(racks, "") {
				return fmt.Errorf("%w: partition %s has a replica with an empty rack name", ErrInvalidGroup, spec.TP(t, int32(p)))
			}
		}
	}
	return nil
}

// validateSubscription checks that m's subscription names no empty topic
// and is sorted without repeats. checked holds the subscription slices (by
// their first element and length) already found valid, and gains m's.
func validateSubscription(m Member, checked map[*string]int) error {
	if len(m.Topics) == 0 {
		return nil
	}
	if n, ok := checked[&m.Topics[0]]; ok && n == len(m.Topics) {
		return nil
	}
	for j, t := range m.Topics {
		if t == "" {
			return fmt.Errorf("%w: member %q subscribes to a topic with an empty name", ErrInvalidGroup, m.ID)
		}
		if j > 0 {
			prev := m.Topics[j-1]
			if prev >= t {
				if prev == t {
					return fmt.Errorf("%w: member %q lists topic %q twice in its subscription", ErrInvalidGroup, m.ID, t)
				}
				return fmt.Errorf("%w: member %q subscription not sorted: %q listed after %q", ErrInvalidGroup, m.ID, t, prev)
			}
		}
	}
	checked[&m.Topics[0]] = len(m.Topics)
	return nil
}

// validateOwned checks that m's Owned set is a valid spec.Set of existing
// partitions of the universe whose sorted topic names topicIx indexes,
// counts[k] partitions for the k-th. It looks each topic up once per run of
// resources of that topic (a set is sorted by topic).
func validateOwned(topicIx *topicIndex, counts []int32, m Member) error {
	for k, r := range m.Owned {
		if r.Topic == "" || r.Partition < spec.ConnectorTask || (k > 0 && !m.Owned[k-1].Less(r)) {
			// Let spec.Set.Validate name the first problem.
			if err := m.Owned.Validate(); err != nil {
				return fmt.Errorf("%w: member %q owned set: %v", ErrInvalidGroup, m.ID, err)
			}
		}
	}
	var (
		topic string
		n     int32
		ok    bool
		at    = topicIx.cursor()
	)
	for k, r := range m.Owned {
		if k == 0 || !spec.SameTopic(r.Topic, topic) {
			topic = r.Topic
			var k int
			if k, ok = at.find(topic); ok {
				n = counts[k]
			}
		}
		if !ok {
			return fmt.Errorf("%w: member %q owns %s of topic %q, which does not exist", ErrInvalidGroup, m.ID, r, r.Topic)
		}
		if r.Partition < 0 || r.Partition >= n {
			return fmt.Errorf("%w: member %q owns %s, out of range for topic %q with %d partitions", ErrInvalidGroup, m.ID, r, r.Topic, n)
		}
	}
	return nil
}

// PruneOwned returns a copy of g in which every member's Owned set keeps only
// partitions that exist in g.Topics (a known topic, a partition in range;
// never a Kafka Connect connector resource, which no assignor of this
// package hands out, even of a connector of g.Topics). It
// is how a caller turns claims on deleted or shrunk topics, which
// ValidateGroup rejects, into what Kafka's assignors do with them: ignore
// them. g is not modified; the returned group shares no slice that PruneOwned
// wrote to.
func PruneOwned(g Group) Group {
	out := Group{Topics: g.Topics, Members: make([]Member, len(g.Members)), ReplicaRacks: g.ReplicaRacks}
	for i, m := range g.Members {
		m.Owned = pruneSet(g.Topics, m.Owned)
		out.Members[i] = m
	}
	return out
}

// pruneSet is s.Filter(func(r) bool { return !r.IsConnector() &&
// topics.Has(r) }) for a set sorted by topic: it looks each topic up once
// per run of its resources, and returns s itself when it keeps everything
// (sets are immutable), nil when it keeps nothing, as Filter does.
func pruneSet(topics spec.Topics, s spec.Set) spec.Set {
	out, _ := prune(topics, s, false)
	return out
}

// ValidPruned returns s.Validate()'s error when s is not a valid set, and
// otherwise s pruned as PruneOwned prunes a member's Owned set: the
// partitions of topics that exist, in range (s itself when it keeps them
// all, nil when it keeps none). It makes one pass over s instead of two:
// a classic leader validates and prunes every claim of its group in every
// round.
func ValidPruned(topics spec.Topics, s spec.Set) (spec.Set, error) {
	return prune(topics, s, true)
}

// prune is pruneSet, and with validate ValidPruned: at the first
// resource spec.Set.Validate rejects it returns Validate's error.
func prune(topics spec.Topics, s spec.Set, validate bool) (spec.Set, error) {
	if s.ValidIn(topics) {
		// Valid and in range: prune keeps all of it, with or without
		// validate (the common case, read a topic at a time).
		if len(s) == 0 {
			return nil, nil
		}
		return s, nil
	}
	var (
		topic string
		count int32
		known bool
		out   spec.Set
	)
	for i, r := range s {
		if validate && (r.Topic == "" || r.Partition < spec.ConnectorTask || (i > 0 && !s[i-1].Less(r))) {
			// Exactly what spec.Set.Validate rejects: let it name the
			// first problem.
			return nil, s.Validate()
		}
		if i == 0 || !spec.SameTopic(r.Topic, topic) {
			topic = r.Topic
			count, known = topics[topic]
		}
		keep := known && r.Partition >= 0 && r.Partition < count
		switch {
		case keep && out != nil:
			out = append(out, r)
		case !keep && out == nil:
			// The first resource dropped: keep what came before it.
			out = make(spec.Set, i, len(s)-1)
			copy(out, s[:i])
		}
	}
	switch {
	case out == nil && len(s) > 0:
		return s, nil
	case len(out) == 0:
		return nil, nil
	}
	return out, nil
}

// topicIndex maps sorted topic names to their positions, for topicCursor.
type topicIndex struct {
	names  []string
	byName map[string]int
}

// newTopicIndex indexes the sorted names.
func newTopicIndex(names []string) *topicIndex {
	ix := &topicIndex{names: names, byName: make(map[string]int, len(names))}
	for k, n := range names {
		ix.byName[n] = k
	}
	return ix
}

// cursor returns a cursor for walking the runs of one sorted set.
func (ix *topicIndex) cursor() topicCursor { return topicCursor{ix: ix, at: -1} }

// topicCursor finds the topics of the runs of a sorted resource set in a
// topicIndex. Successive runs are usually close successors in the sorted
// names (often the next one, or every other one when members own one
// partition of every other topic), so it compares the next few names
// before it hashes.
type topicCursor struct {
	ix *topicIndex
	// at is the index of the last name found, -1 before the first.
	at int
}

// find returns the index of topic in the names and whether it is there.
func (c *topicCursor) find(topic string) (int, bool) {
	names := c.ix.names
	for n := c.at + 1; n < len(names) && n <= c.at+3; n++ {
		if names[n] == topic {
			c.at = n
			return n, true
		}
	}
	t, ok := c.ix.byName[topic]
	if ok {
		c.at = t
	}
	return t, ok
}
