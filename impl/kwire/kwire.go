// Package kwire translates between Kafka's wire messages, as franz-go's
// kmsg package (github.com/twmb/franz-go/pkg/kmsg) defines them, and the
// message types of the pure cores (model/classic, model/nextgen).
//
// It never encodes a byte itself: bytes are always kmsg's (AppendTo,
// ReadFrom); this package only maps fields. For every message there are
// two functions:
//
//   - XFromKafka maps a decoded kmsg value onto the core's type, reading
//     the fields the value's Version carries;
//   - XToKafka maps a core value onto a kmsg value at a given version,
//     writing the fields that version carries and dropping the rest.
//
// What each version carries, and what is dropped on the way and why, is
// stated on each function and tabulated in docs/wire.md; the tests hold
// the same table as code (one "carried" function per message).
//
// Errors. A request's FromKafka reports bad input (an unsupported
// version, a field the cores cannot take) as a *RequestError carrying the
// Kafka error code the server answers with; any other error (a nil
// request, a nil TopicIDs where topic ids must be resolved) is the
// caller's bug. A response's FromKafka and every ToKafka return plain
// errors. Nothing here panics on any input.
//
// The package is pure: no goroutines, no clock, no network, no
// randomness.
package kwire

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/spec"
)

// UnknownTopicID is Kafka's UNKNOWN_TOPIC_ID (100): a topic id that names
// no topic. Package spec has no constant for it because the cores never
// see topic ids; the offset APIs from v10 answer it per partition.
const UnknownTopicID spec.ErrorCode = 100

// Client is what the transport knows of a request's sender: ID is the
// client id of the request header, Host the remote address (Kafka's
// clientAddress). Neither is in any request body; JoinGroupRequestFromKafka
// copies them into classic.JoinGroupRequest.ClientID and ClientHost.
type Client struct{ ID, Host string }

// TopicIDs resolves Kafka topic ids (UUIDs, 16 bytes) to topic names and
// back. The next-generation protocol (ConsumerGroupHeartbeat,
// ConsumerGroupDescribe) and the offset APIs from v10 name topics by id on
// the wire, while the cores name them. A name or id that does not resolve
// returns ok=false; an implementation that answers ok=true with an empty
// name or the zero id is treated as not resolving.
type TopicIDs interface {
	TopicID(name string) ([16]byte, bool)
	TopicName(id [16]byte) (string, bool)
}

// TopicIDMap is a TopicIDs over a fixed table. Its zero value resolves
// nothing. It is immutable once built and safe to share.
type TopicIDMap struct {
	byName map[string][16]byte
	byID   map[[16]byte]string
}

// NewTopicIDMap returns the TopicIDs of the table name → id. It returns
// an error for an empty name, the zero id (Kafka's Uuid.ZERO_UUID, which
// names no topic) or an id given to two names.
func NewTopicIDMap(ids map[string][16]byte) (TopicIDMap, error) {
	m := TopicIDMap{byName: make(map[string][16]byte, len(ids)), byID: make(map[[16]byte]string, len(ids))}
	var errs []error
	names := make([]string, 0, len(ids))
	for name := range ids {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		id := ids[name]
		switch other, dup := m.byID[id]; {
		case name == "":
			errs = append(errs, errors.New("kwire: topic id table: empty topic name"))
		case id == [16]byte{}:
			errs = append(errs, fmt.Errorf("kwire: topic id table: topic %q has the zero id", name))
		case dup:
			errs = append(errs, fmt.Errorf("kwire: topic id table: topics %q and %q share the id %x", other, name, id))
		default:
			m.byName[name] = id
			m.byID[id] = name
		}
	}
	if err := errors.Join(errs...); err != nil {
		return TopicIDMap{}, err
	}
	return m, nil
}

// TopicID returns the id of the topic name.
func (m TopicIDMap) TopicID(name string) ([16]byte, bool) {
	id, ok := m.byName[name]
	return id, ok
}

// TopicName returns the name of the topic with id.
func (m TopicIDMap) TopicName(id [16]byte) (string, bool) {
	name, ok := m.byID[id]
	return name, ok
}

// RequestError is a request this package cannot map onto a core request,
// with the Kafka error code the server answers it with (UNSUPPORTED_VERSION
// for a version kmsg does not know, INVALID_REQUEST for content the cores
// cannot take) and a message for the responses that carry one.
type RequestError struct {
	Code    spec.ErrorCode
	Message string
}

// Error prints the code and the message.
func (e *RequestError) Error() string { return fmt.Sprintf("kwire: %s: %s", e.Code, e.Message) }

func invalidRequest(format string, args ...any) *RequestError {
	return &RequestError{Code: spec.InvalidRequest, Message: fmt.Sprintf(format, args...)}
}

// requestVersion checks a request's version against kmsg's range for it.
func requestVersion(api string, r kmsg.Request) error {
	if v := r.GetVersion(); v < 0 || v > r.MaxVersion() {
		return &RequestError{Code: spec.UnsupportedVersion,
			Message: fmt.Sprintf("%s version %d is not supported (0 to %d)", api, v, r.MaxVersion())}
	}
	return nil
}

// kmsgVersion checks a version a ToKafka function is asked to write, or
// the version of a decoded response, against kmsg's range.
func kmsgVersion(api string, version, max int16) error {
	if version < 0 || version > max {
		return fmt.Errorf("kwire: %s: version %d is not one kmsg knows (0 to %d)", api, version, max)
	}
	return nil
}

// nullable maps "" to null and anything else to a fresh pointer: the
// cores use "" for what Kafka sends as null.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// deref maps null to "".
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// clonePtr returns a fresh pointer to a copy of *p, nil for nil, so no
// value returned here aliases its input.
func clonePtr(p *string) *string {
	if p == nil {
		return nil
	}
	s := *p
	return &s
}

// int32Millis converts a duration to an int32 wire field.
func int32Millis(api, field string, ms int64) (int32, error) {
	if ms < math.MinInt32 || ms > math.MaxInt32 {
		return 0, fmt.Errorf("kwire: %s: %s %d does not fit the int32 wire field", api, field, ms)
	}
	return int32(ms), nil
}

// resolveID returns the id of name, ok=false when ids is nil or does not
// resolve it.
func resolveID(ids TopicIDs, name string) ([16]byte, bool) {
	if ids == nil || name == "" {
		return [16]byte{}, false
	}
	id, ok := ids.TopicID(name)
	if !ok || id == [16]byte{} {
		return [16]byte{}, false
	}
	return id, true
}

// resolveName returns the name of id, ok=false when ids is nil or does
// not resolve it.
func resolveName(ids TopicIDs, id [16]byte) (string, bool) {
	if ids == nil || id == [16]byte{} {
		return "", false
	}
	name, ok := ids.TopicName(id)
	if !ok || name == "" {
		return "", false
	}
	return name, true
}

// byTopic groups the topic-partitions of s by topic, in s's (sorted)
// order. Connect resources (partition -1) are grouped like any other.
func byTopic(s spec.Set) (topics []string, partitions [][]int32) {
	for _, r := range s {
		if len(topics) == 0 || topics[len(topics)-1] != r.Topic {
			topics = append(topics, r.Topic)
			partitions = append(partitions, nil)
		}
		partitions[len(partitions)-1] = append(partitions[len(partitions)-1], r.Partition)
	}
	return topics, partitions
}
