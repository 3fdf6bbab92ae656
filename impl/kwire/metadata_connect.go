package kwire

import (
	"errors"
	"fmt"
	"math"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// The Kafka Connect embedded protocol (protocol type "connect"):
// kmsg.ConnectMemberMetadata in JoinGroup and kmsg.ConnectMemberAssignment
// in SyncGroup, over classic.Subscription and classic.Assignment.
//
// Versions (Kafka's ConnectProtocol and IncrementalCooperativeConnectProtocol):
// 0 is eager ("default"): the assignment lists the worker's whole set. 1
// ("compatible", KIP-415) and 2 ("sessioned", KIP-507; the same layout)
// are incremental: the metadata carries the worker's current assignment,
// and an assignment lists only what is newly assigned, with what to revoke
// and a scheduled delay.
//
// Resources: connector C is spec.Connector(C) (task id -1, Kafka's
// CONNECTOR_TASK), its task i is spec.Task(C, i).
//
// WARNING: kmsg v1.15.1 declares the task ids as int16
// (ConnectMemberAssignmentAssignment.Tasks []int16), while Kafka's schema
// (ConnectProtocol.CONNECTOR_ASSIGNMENT_V0) has ArrayOf(INT32). The bytes
// here are kmsg's, so they are NOT what a Kafka Connect worker writes or
// reads: an assignment or a v1+ metadata encoded here cannot be read by
// a real worker, and a real worker's bytes do not decode here (or decode
// wrong). Task ids above 32767 cannot be encoded at all. The mapping is
// correct; the byte layout is kmsg's.

// maxConnectProtocol is the highest Connect protocol version Kafka
// defines (2, sessioned).
const maxConnectProtocol int16 = 2

// Connect's assignment error codes (ConnectProtocol.Assignment), a code
// space of their own.
const (
	connectNoError        int16 = 0
	connectConfigMismatch int16 = 1
)

// ConnectWorker is what a Connect worker's JoinGroup metadata carries
// beyond classic.Subscription: the protocol version (0–2), the worker's
// REST URL and the config-topic offset it has read up to.
type ConnectWorker struct {
	Version      int16
	URL          string
	ConfigOffset int64
}

// ConnectAssignmentExtras is what a Connect assignment carries beyond
// classic.Assignment: the protocol version (0–2), the leader's REST URL
// and the config offset the assignment was computed at.
type ConnectAssignmentExtras struct {
	Version      int16
	LeaderURL    string
	ConfigOffset int64
}

// connectSet reads Connect's connector → task-id lists as a set.
func connectSet(what string, names []string, tasks [][]int16) (spec.Set, error) {
	var rs []spec.Resource
	for i, name := range names {
		if name == "" {
			return nil, fmt.Errorf("kwire: %s: empty connector name", what)
		}
		for _, t := range tasks[i] {
			if int32(t) < spec.ConnectorTask {
				return nil, fmt.Errorf("kwire: %s: connector %q: task id %d is below -1", what, name, t)
			}
			rs = append(rs, spec.Task(name, int32(t)))
		}
	}
	return spec.NewSet(rs...), nil
}

// connectLists writes a set as Connect's connector → task-id lists, in set
// order (the connector itself, -1, first).
func connectLists(what string, s spec.Set) ([]string, [][]int16, error) {
	if err := s.Validate(); err != nil {
		return nil, nil, fmt.Errorf("kwire: %s: %w", what, err)
	}
	names, parts := byTopic(s)
	tasks := make([][]int16, len(parts))
	for i, ps := range parts {
		for _, p := range ps {
			if p > math.MaxInt16 {
				return nil, nil, fmt.Errorf("kwire: %s: task %s does not fit kmsg's int16 task id", what, spec.Task(names[i], p))
			}
			tasks[i] = append(tasks[i], int16(p))
		}
	}
	return names, tasks, nil
}

// ConnectSubscriptionToKafka maps s and w onto a ConnectMemberMetadata at
// w.Version (0–2): Url and ConfigOffset from w; from v1 CurrentAssignment,
// the worker's current assignment as Connect keeps it (a whole
// ConnectMemberAssignment at w.Version: Leader = s.Leader, Assignment =
// s.Owned, no revocations, LeaderUrl "", ConfigOffset = w.ConfigOffset),
// or null when s owns nothing and names no leader (Kafka sends null until
// the first assignment). Dropped: s.Topics (Connect has no subscriptions:
// every worker may run every connector) and s.Generation (Connect's
// metadata has none); Owned and Leader below v1. Errors: a version
// outside 0–2, an invalid owned set, a task id above 32767.
func ConnectSubscriptionToKafka(s classic.Subscription, w ConnectWorker) (*kmsg.ConnectMemberMetadata, error) {
	if w.Version < 0 || w.Version > maxConnectProtocol {
		return nil, fmt.Errorf("kwire: connect metadata: version %d is not 0 to %d", w.Version, maxConnectProtocol)
	}
	m := new(kmsg.ConnectMemberMetadata)
	m.Default()
	m.Version = w.Version
	m.URL = w.URL
	m.ConfigOffset = w.ConfigOffset
	if w.Version >= 1 && (!s.Owned.IsEmpty() || s.Leader != "") {
		cur := new(kmsg.ConnectMemberAssignment)
		cur.Default()
		cur.Version = w.Version
		cur.Leader = string(s.Leader)
		cur.ConfigOffset = w.ConfigOffset
		names, tasks, err := connectLists("connect metadata: current assignment", s.Owned)
		if err != nil {
			return nil, err
		}
		for i, n := range names {
			a := kmsg.NewConnectMemberAssignmentAssignment()
			a.Connector, a.Tasks = n, tasks[i]
			cur.Assignment = append(cur.Assignment, a)
		}
		m.CurrentAssignment = cur.AppendTo(nil)
	}
	return m, nil
}

// ConnectSubscriptionFromKafka maps a ConnectMemberMetadata onto the
// core: from v1 a non-null CurrentAssignment (itself a versioned
// ConnectMemberAssignment, read as DecodeConnectAssignment reads one)
// gives Owned (its connectors and tasks: Connect keeps the worker's whole
// set there) and Leader; Topics is nil and Generation NoGeneration (not
// carried). The current assignment's error, leader URL, offset,
// revocations and delay are not read (Kafka's leader does not use them).
// Errors: a negative version, an undecodable current assignment.
func ConnectSubscriptionFromKafka(m *kmsg.ConnectMemberMetadata) (classic.Subscription, ConnectWorker, error) {
	if m == nil {
		return classic.Subscription{}, ConnectWorker{}, errors.New("kwire: connect metadata: nil metadata")
	}
	if m.Version < 0 {
		return classic.Subscription{}, ConnectWorker{}, fmt.Errorf("kwire: connect metadata: version %d is negative", m.Version)
	}
	s := classic.Subscription{Generation: spec.NoGeneration}
	w := ConnectWorker{Version: m.Version, URL: m.URL, ConfigOffset: m.ConfigOffset}
	if m.Version >= 1 && m.CurrentAssignment != nil {
		cur := new(kmsg.ConnectMemberAssignment)
		cur.Default()
		if err := readEmbedded("connect metadata: current assignment", classic.Metadata(m.CurrentAssignment), cur.ReadFrom,
			func() int { return len(cur.AppendTo(nil)) }, &cur.Version, maxConnectProtocol); err != nil {
			return classic.Subscription{}, ConnectWorker{}, err
		}
		names, tasks := assignmentLists(cur.Assignment)
		owned, err := connectSet("connect metadata: current assignment", names, tasks)
		if err != nil {
			return classic.Subscription{}, ConnectWorker{}, err
		}
		s.Owned = owned
		s.Leader = spec.MemberID(cur.Leader)
	}
	return s, w, nil
}

// EncodeConnectSubscription returns the bytes of
// ConnectSubscriptionToKafka(s, w) as Metadata.
func EncodeConnectSubscription(s classic.Subscription, w ConnectWorker) (classic.Metadata, error) {
	m, err := ConnectSubscriptionToKafka(s, w)
	if err != nil {
		return "", err
	}
	return classic.Metadata(m.AppendTo(nil)), nil
}

// DecodeConnectSubscription reads md with kmsg's ReadFrom and maps it with
// ConnectSubscriptionFromKafka. Errors name what is wrong: truncated
// bytes, a negative version, trailing bytes after a version up to 2, bad
// content.
func DecodeConnectSubscription(md classic.Metadata) (classic.Subscription, ConnectWorker, error) {
	m := new(kmsg.ConnectMemberMetadata)
	m.Default()
	if err := readEmbedded("connect metadata", md, m.ReadFrom, func() int { return len(m.AppendTo(nil)) }, &m.Version, maxConnectProtocol); err != nil {
		return classic.Subscription{}, ConnectWorker{}, err
	}
	return ConnectSubscriptionFromKafka(m)
}

// ConnectAssignmentToKafka maps a, for a worker that owns owned now, onto
// a ConnectMemberAssignment at x.Version (0–2):
//
//   - Leader = a.Leader; LeaderUrl and ConfigOffset from x;
//   - Error: NONE (0) when a.Error is NONE, otherwise CONFIG_MISMATCH
//     (1), Connect's only failure code (the worker then applies nothing
//     and rejoins, as the core's member keeps what it owns); which core
//     code it was is lost;
//   - v0 (eager): Assignment = a.Assigned, the whole set; owned, Revoked
//     and Delay are not carried;
//   - v1+: Assignment = a.Assigned − owned (only what is new: Connect's
//     incremental assignment), Revoked = a.Revoked, ScheduledDelay =
//     a.Delay.
//
// Errors: a version outside 0–2; at v1+ an assignment the incremental
// form cannot say (a.Assigned must hold owned − a.Revoked, and nothing
// both assigned and revoked), a delay outside 0..MaxInt32; invalid sets;
// a task id above 32767.
func ConnectAssignmentToKafka(a classic.Assignment, owned spec.Set, x ConnectAssignmentExtras) (*kmsg.ConnectMemberAssignment, error) {
	const what = "connect assignment"
	if x.Version < 0 || x.Version > maxConnectProtocol {
		return nil, fmt.Errorf("kwire: %s: version %d is not 0 to %d", what, x.Version, maxConnectProtocol)
	}
	m := new(kmsg.ConnectMemberAssignment)
	m.Default()
	m.Version = x.Version
	m.Leader = string(a.Leader)
	m.LeaderURL = x.LeaderURL
	m.ConfigOffset = x.ConfigOffset
	if a.Error != spec.None {
		m.Error = connectConfigMismatch
	}
	assigned := a.Assigned
	if x.Version >= 1 {
		if err := owned.Validate(); err != nil {
			return nil, fmt.Errorf("kwire: %s: owned: %w", what, err)
		}
		if both := a.Assigned.Intersect(a.Revoked); !both.IsEmpty() {
			return nil, fmt.Errorf("kwire: %s: %s both assigned and revoked", what, both)
		}
		if kept := owned.Minus(a.Revoked).Minus(a.Assigned); !kept.IsEmpty() {
			return nil, fmt.Errorf("kwire: %s: %s owned, neither assigned nor revoked: an incremental assignment cannot drop it", what, kept)
		}
		if a.Delay < 0 || a.Delay > math.MaxInt32 {
			return nil, fmt.Errorf("kwire: %s: delay %d does not fit ScheduledDelay (0 to %d)", what, a.Delay, math.MaxInt32)
		}
		m.ScheduledDelay = int32(a.Delay)
		assigned = a.Assigned.Minus(owned)
		names, tasks, err := connectLists(what+": revoked", a.Revoked)
		if err != nil {
			return nil, err
		}
		for i, n := range names {
			r := kmsg.NewConnectMemberAssignmentRevoked()
			r.Connector, r.Tasks = n, tasks[i]
			m.Revoked = append(m.Revoked, r)
		}
	}
	names, tasks, err := connectLists(what, assigned)
	if err != nil {
		return nil, err
	}
	for i, n := range names {
		as := kmsg.NewConnectMemberAssignmentAssignment()
		as.Connector, as.Tasks = n, tasks[i]
		m.Assignment = append(m.Assignment, as)
	}
	return m, nil
}

// ConnectAssignmentFromKafka maps a ConnectMemberAssignment received by a
// worker that owns owned onto the core, the inverse of
// ConnectAssignmentToKafka: v0 Assigned is the listed set; v1+ Assigned =
// owned − Revoked + the listed set, Revoked and Delay (ScheduledDelay)
// as sent; Leader as sent; Error NONE for Connect's 0 and
// UNKNOWN_SERVER_ERROR for CONFIG_MISMATCH (the core only tells NONE from
// not NONE). LeaderUrl and ConfigOffset go to the extras. Errors: a
// negative version, an error code Connect does not define, an empty
// connector name, a task id below -1, a negative delay, something both
// assigned and revoked, an invalid owned set.
func ConnectAssignmentFromKafka(m *kmsg.ConnectMemberAssignment, owned spec.Set) (classic.Assignment, ConnectAssignmentExtras, error) {
	const what = "connect assignment"
	if m == nil {
		return classic.Assignment{}, ConnectAssignmentExtras{}, fmt.Errorf("kwire: %s: nil assignment", what)
	}
	if m.Version < 0 {
		return classic.Assignment{}, ConnectAssignmentExtras{}, fmt.Errorf("kwire: %s: version %d is negative", what, m.Version)
	}
	if err := owned.Validate(); err != nil {
		return classic.Assignment{}, ConnectAssignmentExtras{}, fmt.Errorf("kwire: %s: owned: %w", what, err)
	}
	a := classic.Assignment{Leader: spec.MemberID(m.Leader)}
	switch m.Error {
	case connectNoError:
	case connectConfigMismatch:
		a.Error = spec.UnknownServerError
	default:
		return classic.Assignment{}, ConnectAssignmentExtras{}, fmt.Errorf("kwire: %s: error code %d is not Connect's (0 NONE, 1 CONFIG_MISMATCH)", what, m.Error)
	}
	names, tasks := assignmentLists(m.Assignment)
	listed, err := connectSet(what, names, tasks)
	if err != nil {
		return classic.Assignment{}, ConnectAssignmentExtras{}, err
	}
	a.Assigned = listed
	if m.Version >= 1 {
		var rnames []string
		var rtasks [][]int16
		for _, r := range m.Revoked {
			rnames = append(rnames, r.Connector)
			rtasks = append(rtasks, r.Tasks)
		}
		if a.Revoked, err = connectSet(what+": revoked", rnames, rtasks); err != nil {
			return classic.Assignment{}, ConnectAssignmentExtras{}, err
		}
		if m.ScheduledDelay < 0 {
			return classic.Assignment{}, ConnectAssignmentExtras{}, fmt.Errorf("kwire: %s: scheduled delay %d is negative", what, m.ScheduledDelay)
		}
		a.Delay = classic.Millis(m.ScheduledDelay)
		a.Assigned = owned.Minus(a.Revoked).Union(listed)
		if both := a.Assigned.Intersect(a.Revoked); !both.IsEmpty() {
			return classic.Assignment{}, ConnectAssignmentExtras{}, fmt.Errorf("kwire: %s: %s both assigned and revoked", what, both)
		}
	}
	return a, ConnectAssignmentExtras{Version: m.Version, LeaderURL: m.LeaderURL, ConfigOffset: m.ConfigOffset}, nil
}

// EncodeConnectAssignment returns the bytes of ConnectAssignmentToKafka(a,
// owned, x) as Metadata.
func EncodeConnectAssignment(a classic.Assignment, owned spec.Set, x ConnectAssignmentExtras) (classic.Metadata, error) {
	m, err := ConnectAssignmentToKafka(a, owned, x)
	if err != nil {
		return "", err
	}
	return classic.Metadata(m.AppendTo(nil)), nil
}

// DecodeConnectAssignment reads md with kmsg's ReadFrom and maps it with
// ConnectAssignmentFromKafka for a worker that owns owned. Errors name
// what is wrong: truncated bytes, a negative version, trailing bytes
// after a version up to 2, bad content.
func DecodeConnectAssignment(md classic.Metadata, owned spec.Set) (classic.Assignment, ConnectAssignmentExtras, error) {
	m := new(kmsg.ConnectMemberAssignment)
	m.Default()
	if err := readEmbedded("connect assignment", md, m.ReadFrom, func() int { return len(m.AppendTo(nil)) }, &m.Version, maxConnectProtocol); err != nil {
		return classic.Assignment{}, ConnectAssignmentExtras{}, err
	}
	return ConnectAssignmentFromKafka(m, owned)
}

// assignmentLists splits kmsg's assignment entries into names and task
// lists.
func assignmentLists(as []kmsg.ConnectMemberAssignmentAssignment) ([]string, [][]int16) {
	names := make([]string, len(as))
	tasks := make([][]int16, len(as))
	for i, a := range as {
		names[i], tasks[i] = a.Connector, a.Tasks
	}
	return names, tasks
}
