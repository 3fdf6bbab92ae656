// Package spec is the vocabulary of group rebalancing and its laws.
//
// It names what every protocol in this module shares: members, resources
// (topic-partitions, and Kafka Connect connectors and tasks encoded as
// topic-partitions), resource sets, assignments, generations and epochs, and
// the ownership view that any state of any protocol maps to. The laws of the
// design (no double ownership, subscribed resources only, cooperative
// hand-off, monotonic generations) are pure predicates over that view that
// return a [Violation] naming the law, the resource and the members.
//
// The package has no dependencies beyond the standard library, performs no
// I/O and reads no clock; every value it returns is freshly allocated or
// immutable, so callers may keep or share results freely.
package spec

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"unsafe"
)

// ConnectorTask is the task number that stands for a Kafka Connect connector
// instance itself, as Connect's IncrementalCooperativeConnectProtocol encodes
// it (CONNECTOR_TASK = -1).
const ConnectorTask int32 = -1

// Resource is one unit of work that exactly one member should own: a Kafka
// topic-partition, or a Kafka Connect connector (Partition == ConnectorTask)
// or task (Partition >= 0) of the connector named by Topic.
//
// Invariant for a valid resource: Topic is non-empty and Partition >= -1.
type Resource struct {
	Topic     string
	Partition int32
}

// TP returns the topic-partition resource topic-partition.
func TP(topic string, partition int32) Resource { return Resource{Topic: topic, Partition: partition} }

// Connector returns the resource that stands for the Kafka Connect connector
// instance named name.
func Connector(name string) Resource { return Resource{Topic: name, Partition: ConnectorTask} }

// Task returns the resource for task number task of the Kafka Connect
// connector named name.
func Task(name string, task int32) Resource { return Resource{Topic: name, Partition: task} }

// IsConnector reports whether r stands for a connector instance rather than
// a partition or task.
func (r Resource) IsConnector() bool { return r.Partition == ConnectorTask }

// SameTopic reports whether a and b are the same topic name (a == b),
// testing first, without a call, whether they are one string. A set holds
// one string for a run of one topic (ParseSet reads it once per run, the
// assignors build a topic's partitions from one name), and the walks over
// a set compare each resource's topic with the last one's; == calls the
// runtime for every such comparison of equal lengths, and tests whether
// the strings are one only inside the call.
func SameTopic(a, b string) bool {
	return oneString(a, b) || a == b
}

// oneString reports whether a and b are one string: the same bytes in
// memory (so equal), without a call. Equal strings held apart are not.
func oneString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// Less orders resources by topic, then partition. Every printer and every
// set in this module uses this order. Two resources of one topic string
// (see SameTopic) compare by partition at once.
func (r Resource) Less(o Resource) bool {
	if !oneString(r.Topic, o.Topic) && r.Topic != o.Topic {
		return r.Topic < o.Topic
	}
	return r.Partition < o.Partition
}

// Same reports whether r and o are one resource, as r == o does, but
// without a call into the runtime when their partitions differ or their
// topics are one string (SameTopic): == compares the topics' bytes first,
// in a call, whenever their lengths are equal.
func (r Resource) Same(o Resource) bool {
	return r.Partition == o.Partition && SameTopic(r.Topic, o.Topic)
}

// Compare returns -1, 0 or +1 as r sorts before, equal to or after o.
// Two resources of one topic string (see SameTopic) compare by partition
// at once.
func (r Resource) Compare(o Resource) int {
	if !oneString(r.Topic, o.Topic) {
		if c := strings.Compare(r.Topic, o.Topic); c != 0 {
			return c
		}
	}
	return cmp.Compare(r.Partition, o.Partition)
}

// String prints a topic-partition as "topic-N" and a connector as
// "topic/connector"; ParseResource reads both forms back.
func (r Resource) String() string {
	if r.IsConnector() {
		return r.Topic + "/connector"
	}
	return r.Topic + "-" + strconv.FormatInt(int64(r.Partition), 10)
}

// Validate returns an error when r cannot name a resource: an empty topic or
// a partition below ConnectorTask.
func (r Resource) Validate() error {
	if r.Topic == "" {
		return fmt.Errorf("resource %q: empty topic", r.String())
	}
	if r.Partition < ConnectorTask {
		return fmt.Errorf("resource %s: partition %d is negative", r.String(), r.Partition)
	}
	return nil
}

// ParseResource reads a resource in the form String prints: "topic-N" or
// "topic/connector". The topic may itself contain dashes; the number after
// the last dash is the partition.
func ParseResource(s string) (Resource, error) {
	if name, ok := strings.CutSuffix(s, "/connector"); ok {
		r := Connector(name)
		return r, r.Validate()
	}
	i := strings.LastIndexByte(s, '-')
	if i <= 0 || i == len(s)-1 {
		return Resource{}, fmt.Errorf("resource %q: want topic-N or name/connector", s)
	}
	n, ok := smallDecimal(s[i+1:])
	if !ok {
		m, err := strconv.ParseInt(s[i+1:], 10, 32)
		if err != nil {
			return Resource{}, fmt.Errorf("resource %q: partition: %v", s, err)
		}
		n = int32(m)
	}
	r := TP(s[:i], n)
	return r, r.Validate()
}

// smallDecimal reads 1 to 9 ASCII digits, the common partition number,
// without strconv's generality; false sends anything else (signs, long
// numbers, errors) to strconv.ParseInt, so both read the same numbers.
// It is partitionField's digits, which must be all of s.
func smallDecimal(s string) (int32, bool) {
	n, end, ok := partitionField(s, 0)
	return n, ok && end == len(s)
}
