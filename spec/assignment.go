package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Assignment maps members to the resources given to them. It is a plain map;
// functions in this module that return an Assignment return a fresh one the
// caller owns, and never write to one they were given.
type Assignment map[MemberID]Set

// Members returns the members of a in sorted order, nil when a is empty.
func (a Assignment) Members() []MemberID { return sortedKeys(a) }

// sortedKeys returns the keys of m in sorted order, nil when m is empty:
// slices.Sorted(maps.Keys(m)) in one allocation of the right size instead
// of an iterator's and a growing slice's (leaders and the model checker's
// law checks call it at every round).
func sortedKeys[K ~string, V any](m map[K]V) []K {
	if len(m) == 0 {
		return nil
	}
	return AppendSortedKeys(make([]K, 0, len(m)), m)
}

// AppendSortedKeys appends the keys of m to dst in sorted order and
// returns the result: slices.Sorted(maps.Keys(m)) into a buffer of the
// caller's (the nodes' steps keep theirs on the stack). What dst held
// before stays in front, unsorted.
func AppendSortedKeys[K ~string, V any](dst []K, m map[K]V) []K {
	start := len(dst)
	for k := range m {
		dst = append(dst, k)
	}
	slices.Sort(dst[start:])
	return dst
}

// AppendMembers appends the members of a to dst in sorted order and
// returns the result: Members into a buffer of the caller's, for the laws
// checked at every round, which a group of a few members fits on the
// stack.
func (a Assignment) AppendMembers(dst []MemberID) []MemberID { return AppendSortedKeys(dst, a) }

// All returns the union of every member's resources.
func (a Assignment) All() Set {
	var out Set
	for _, m := range a.Members() {
		out = out.Union(a[m])
	}
	return out
}

// Owner returns the members that hold r, in sorted order.
func (a Assignment) Owner(r Resource) []MemberID {
	var out []MemberID
	for _, m := range a.Members() {
		if a[m].Contains(r) {
			out = append(out, m)
		}
	}
	return out
}

// Clone returns a copy of a that shares no map with it (sets are immutable
// and are shared).
func (a Assignment) Clone() Assignment {
	if a == nil {
		return nil
	}
	return maps.Clone(a)
}

// Equal reports whether a and o give every member the same resources,
// treating a missing member and an empty set alike.
func (a Assignment) Equal(o Assignment) bool {
	for m, s := range a {
		if !s.Equal(o[m]) {
			return false
		}
	}
	for m, s := range o {
		if !s.Equal(a[m]) {
			return false
		}
	}
	return true
}

// String prints a as "member:{...} member:{...}" in member order.
func (a Assignment) String() string {
	var b strings.Builder
	for i, m := range a.Members() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(m))
		b.WriteByte(':')
		b.WriteString(a[m].String())
	}
	return b.String()
}

// Topics is the resource universe: the number of partitions of each topic
// (or tasks of each connector). A topic with count n has resources
// topic-0 .. topic-(n-1). A Kafka Connect connector named c is a topic c
// whose count is its number of tasks, marked as a connector by the entry
// ConnectorKey(c) (count 0, so it names no partition): it has the resource
// c/connector (spec.Connector(c)) besides its tasks c-0 .. c-(n-1). Use
// AddConnector to add one.
type Topics map[string]int32

// NumberedTopics returns a universe of n topics of partitions partitions
// each, topic i (from 0) named fmt.Sprintf(format, i) (format "t%02d"
// names t00, t01, ...), and the names in the order of i.
func NumberedTopics(format string, n int, partitions int32) (Topics, []string) {
	t := make(Topics, n)
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf(format, i)
		t[names[i]] = partitions
	}
	return t, names
}

// connectorSuffix ends the key that marks a topic as a connector; it is
// how spec.Connector resources print.
const connectorSuffix = "/connector"

// ConnectorKey is the key of the entry that marks the topic name as a Kafka
// Connect connector in a Topics: "name/connector", with count 0.
func ConnectorKey(name string) string { return name + connectorSuffix }

// AddConnector adds to t the connector name with tasks tasks: the topic
// name with count tasks and its marker ConnectorKey(name). It changes t in
// place and returns it.
func (t Topics) AddConnector(name string, tasks int32) Topics {
	t[name] = tasks
	t[ConnectorKey(name)] = 0
	return t
}

// IsConnector reports whether the topic name is a connector of t (t has
// both the topic and its marker).
func (t Topics) IsConnector(name string) bool {
	if _, ok := t[name]; !ok {
		return false
	}
	_, ok := t[ConnectorKey(name)]
	return ok
}

// Connectors returns the connectors of t in sorted order.
func (t Topics) Connectors() []string {
	var out []string
	for _, n := range t.Names() {
		if t.IsConnector(n) {
			out = append(out, n)
		}
	}
	return out
}

// Resources returns every resource of the topics named in names that exist
// in t, in sorted order: each topic's partitions, and a connector's
// c/connector before its tasks. Unknown names are skipped.
func (t Topics) Resources(names ...string) Set {
	var out Set
	for _, n := range slices.Sorted(slices.Values(names)) {
		c, ok := t[n]
		if !ok || (len(out) > 0 && out[len(out)-1].Topic == n) {
			continue
		}
		if t.IsConnector(n) {
			out = append(out, Connector(n))
		}
		out = append(out, Range(n, 0, c-1)...)
	}
	return out
}

// Names returns the keys of t in sorted order: the topics, and the markers
// of the connectors among them.
func (t Topics) Names() []string { return sortedKeys(t) }

// Existing returns a new set of the resources of s that t has (Has), in
// order, nil when there are none: s.Filter(t.Has), looking each topic up
// once for each run of its resources, which a sorted set keeps together.
func (t Topics) Existing(s Set) Set {
	var topic string
	var count int32
	known := false
	var out Set
	for i, r := range s {
		if i == 0 || !SameTopic(r.Topic, topic) {
			topic = r.Topic
			count, known = t[topic]
		}
		has := known && r.Partition >= 0 && r.Partition < count
		if r.IsConnector() {
			has = t.Has(r)
		}
		if has {
			if out == nil {
				out = make(Set, 0, len(s)-i)
			}
			out = append(out, r)
		}
	}
	return out
}

// Has reports whether r is a partition of a topic of t, or the connector
// resource of a connector of t.
func (t Topics) Has(r Resource) bool {
	if r.IsConnector() {
		return t.IsConnector(r.Topic)
	}
	c, ok := t[r.Topic]
	return ok && r.Partition >= 0 && r.Partition < c
}
