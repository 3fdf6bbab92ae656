// Package trace is the oracle's input: a record of what an implementation
// of a rebalance protocol did, written by anyone (a Kafka client's
// rebalance callbacks, a broker's coordinator, a hand-written test) and
// judged by this project's laws (package checker/oracle, `rebalance trace
// check`). docs/oracle.md is the reference of the format; this package is
// its definition.
//
// A trace is newline-delimited JSON. The first line is a Header; every
// other line is one Event, in the order the events happened: their times
// (T) never go backwards. Times are integers in the header's Unit
// (nanoseconds by default) on one clock the trace chooses (for example
// from the start of a test).
//
// Read refuses malformed input whole, with the line and what is wrong
// with it; History turns a trace into the spec.History the laws judge,
// with each observation's Source set to its line.
package trace

import (
	"fmt"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// Format is the Header's format name; Version is the only version this
// package reads and writes.
const (
	Format  = "rebalance-trace"
	Version = 1
)

// Header is a trace's first line: what the trace is and which promises
// it can be judged against.
type Header struct {
	// Format is always Format, Version always Version.
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Group is the consumer group or Connect cluster (free text).
	Group string `json:"group,omitempty"`
	// Protocol is the rebalance protocol the group ran: "eager",
	// "cooperative", "deferred", "incremental" or "nextgen"; "" when the
	// trace does not say, and then the laws that depend on the protocol
	// (hand-off, bounded rounds, the default balance law) are not judged.
	Protocol string `json:"protocol,omitempty"`
	// Assignor names the assignor whose balance guarantee is judged at a
	// quiet point ("range", "roundrobin", "sticky", "cooperative-sticky",
	// "uniform", "connect"); "" means the protocol's default.
	Assignor string `json:"assignor,omitempty"`
	// Coordinator claims that every membership change the coordinator
	// made (joined and removed events) is in the trace, from before the
	// first process started. Only then is a removed member's work
	// tolerated as a fenced zombie; joined and removed events are refused
	// without it.
	Coordinator bool `json:"coordinator,omitempty"`
	// Clean claims that the run was clean as far as the trace cannot
	// see: the network lost, duplicated and held up no message of the
	// group's (no fault was injected). The oracle judges
	// ExactlyOnceWhenClean only with it, with Coordinator, and when the
	// trace shows the rest of a clean run: no crash, no fenced or lost
	// event, no member removed while it owned something.
	Clean bool `json:"clean,omitempty"`
	// Unit is the unit of every time in the trace: "ns" (the default when
	// empty), "us", "ms" or "s".
	Unit string `json:"unit,omitempty"`
	// MaxRounds, when positive, is the bounded-rounds law to judge after a
	// quiet point, overriding the protocol's own bound (the next-gen
	// protocol's bound depends on what the environment did, which a trace
	// need not say, so it is judged only with MaxRounds).
	MaxRounds int `json:"max_rounds,omitempty"`
}

// Units maps each unit a header may name to its length in nanoseconds.
var Units = map[string]int64{"": 1, "ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}

// Kind is what an event records.
type Kind string

// The event kinds, by what they are about. Membership events are the
// process's (join, restart, leave, crash, fenced, subscribe, generation)
// or the coordinator's (joined, removed); ownership events are the
// rebalance callbacks (assigned, revoking, revoked, lost); delivery
// events are the records processed and the offsets committed (processed,
// commit); wire events are group API messages (request, response);
// environment events are topic and quiet.
const (
	// Join: Process starts and joins the group, with its Client name,
	// Instance id (static membership) and Topics (its subscription). A
	// process also starts implicitly with its first event, its
	// subscription then unknown.
	Join Kind = "join"
	// Restart: Process, crashed, starts again (a new incarnation); Topics
	// as for join.
	Restart Kind = "restart"
	// Leave: Process leaves of its own accord (informational: what it
	// gives up is in its revoked events).
	Leave Kind = "leave"
	// Crash: Process dies: it owns nothing from T on, and has no event
	// until a restart.
	Crash Kind = "crash"
	// Fenced: Process learnt that Member was fenced or unknown to the
	// coordinator (informational: a lost event says what it drops).
	Fenced Kind = "fenced"
	// Subscribe: Process subscribes to Topics from T on.
	Subscribe Kind = "subscribe"
	// GenerationReached: Process reached Generation (classic) or member
	// epoch (next-gen) under Member at T.
	GenerationReached Kind = "generation"
	// Joined: the coordinator counts Member from T on (needs
	// Header.Coordinator).
	Joined Kind = "joined"
	// Removed: the coordinator stops counting Member at T: it left, its
	// session or rebalance timeout expired, or it was replaced (needs
	// Header.Coordinator).
	Removed Kind = "removed"
	// Assigned: Process's callback was given Resources (called at Call,
	// returned at T), at Generation under Member.
	Assigned Kind = "assigned"
	// Revoking: Process was told at T to give up Resources
	// (informational: it owns them until its revoked event returns).
	Revoking Kind = "revoking"
	// Revoked: Process gave up Resources after finishing its work on them
	// (called at Call, returned at T).
	Revoked Kind = "revoked"
	// Lost: Process declared Resources lost: they were already taken from
	// it (called at Call, returned at T).
	Lost Kind = "lost"
	// Processed: Process's application processed the records of Resource
	// (a partition) from Offset on, Count of them (1 when absent), under
	// Member at Generation. Offsets count from the start of the
	// partition's log. A trace with processed events claims it has them
	// all: a record no event processed was skipped.
	Processed Kind = "processed"
	// Commit: Process's OffsetCommit of Offsets (partition → the offset
	// of the next record to process) as Member at Generation (classic) or
	// member epoch (next-gen), sent at Call (T when absent) and answered
	// at T: the coordinator judged it in between. Error is the answer to
	// the whole request (0: judged partition by partition) and Refused
	// the partitions refused one by one (next-gen under KIP-1251:
	// STALE_MEMBER_EPOCH), only with Error 0; the committed offsets move
	// for the others.
	Commit Kind = "commit"
	// Request and Response: a group API message (API) seen on the wire,
	// from or to Member (or Process), with the response's Error code and
	// the Generation or member epoch it carries. Carried as evidence; no
	// law reads them.
	Request  Kind = "request"
	Response Kind = "response"
	// Topic: the topic Topic exists with Partitions partitions from T on
	// (created or grown; topics never shrink).
	Topic Kind = "topic"
	// Quiet: from T on nothing changes outside the group (no process
	// starts, stops or crashes, no subscription or topic changes), so the
	// group must converge: coverage, balance and the round bound are
	// judged at the end of the trace.
	Quiet Kind = "quiet"
)

// Kinds lists every event kind, in the order docs/oracle.md lists them.
var Kinds = []Kind{Join, Restart, Leave, Crash, Fenced, Subscribe, GenerationReached, Joined, Removed,
	Assigned, Revoking, Revoked, Lost, Processed, Commit, Request, Response, Topic, Quiet}

// APIs lists the group APIs a request or response event may name.
var APIs = []string{"JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup", "OffsetCommit", "OffsetFetch",
	"DescribeGroups", "ConsumerGroupHeartbeat", "ConsumerGroupDescribe", "FindCoordinator"}

// Event is one line of a trace after the header. Which fields an event
// may carry depends on its Kind (see the kinds and docs/oracle.md); Read
// refuses a field an event's kind does not carry.
type Event struct {
	// T is when the event happened, or when a callback returned.
	T int64 `json:"t"`
	// Call is when a callback (assigned, revoked, lost) was called, or a
	// commit sent; T when absent. Call <= T.
	Call *int64 `json:"call,omitempty"`
	Kind Kind   `json:"kind"`
	// Process is the stable name of the member process: it survives
	// restarts and new member ids.
	Process string `json:"process,omitempty"`
	// Member is the member id (Kafka's member.id) the event is about.
	Member string `json:"member,omitempty"`
	// Instance is the static membership id (group.instance.id).
	Instance string `json:"instance,omitempty"`
	// Client is the client's name (client.id, or the library).
	Client string `json:"client,omitempty"`
	// Generation is the generation (classic) or member epoch (next-gen).
	Generation *int32 `json:"generation,omitempty"`
	// Resources are resources as "topic-N" (a partition or a Connect
	// task) or "name/connector", distinct; an empty list is no list (a
	// callback on nothing is not recorded).
	Resources []string `json:"resources,omitempty"`
	// Resource is a processed event's partition ("topic-N").
	Resource string `json:"resource,omitempty"`
	// Offset is the offset of the first record a processed event is
	// about, 0 or more.
	Offset *int64 `json:"offset,omitempty"`
	// Count is how many records from Offset on a processed event is
	// about, 1 or more; 1 when absent.
	Count *int64 `json:"count,omitempty"`
	// Offsets are a commit's offsets, partition ("topic-N") → the offset
	// of the next record to process (0 or more); an empty map is no map.
	Offsets map[string]int64 `json:"offsets,omitempty"`
	// Topics is a subscription (join, restart, subscribe), distinct; an
	// empty list is no list (a process that subscribes to nothing
	// leaves).
	Topics []string `json:"topics,omitempty"`
	// Topic and Partitions are a topic event's.
	Topic      string `json:"topic,omitempty"`
	Partitions int32  `json:"partitions,omitempty"`
	// API names a request's or response's group API (see APIs).
	API string `json:"api,omitempty"`
	// Error is a response's or a commit's error code (0 for none).
	Error *int16 `json:"error,omitempty"`
	// Refused are the partitions of a commit the coordinator refused one
	// by one, distinct, each among Offsets, only with Error 0; an empty
	// list is no list.
	Refused []string `json:"refused,omitempty"`

	// Line is the event's line in the file it was read from (the header
	// is line 1); 0 for an event not read from a file.
	Line int `json:"-"`
	// set is Resources parsed, by Read; res, offsets and refused are
	// Resource, Offsets and Refused parsed.
	set     spec.Set
	res     spec.Resource
	offsets spec.Set
	refused spec.Set
}

// field names an Event field and says whether e carries it.
type field struct {
	name string
	set  func(e Event) bool
}

var fields = []field{
	{"call", func(e Event) bool { return e.Call != nil }},
	{"process", func(e Event) bool { return e.Process != "" }},
	{"member", func(e Event) bool { return e.Member != "" }},
	{"instance", func(e Event) bool { return e.Instance != "" }},
	{"client", func(e Event) bool { return e.Client != "" }},
	{"generation", func(e Event) bool { return e.Generation != nil }},
	{"resources", func(e Event) bool { return len(e.Resources) > 0 }},
	{"topics", func(e Event) bool { return len(e.Topics) > 0 }},
	{"topic", func(e Event) bool { return e.Topic != "" }},
	{"partitions", func(e Event) bool { return e.Partitions != 0 }},
	{"api", func(e Event) bool { return e.API != "" }},
	{"error", func(e Event) bool { return e.Error != nil }},
	{"resource", func(e Event) bool { return e.Resource != "" }},
	{"offset", func(e Event) bool { return e.Offset != nil }},
	{"count", func(e Event) bool { return e.Count != nil }},
	{"offsets", func(e Event) bool { return len(e.Offsets) > 0 }},
	{"refused", func(e Event) bool { return len(e.Refused) > 0 }},
}

// carries lists, for each kind, the fields it may carry beyond t and
// kind; required lists those it must carry.
var (
	callback = []string{"call", "process", "member", "generation", "resources"}
	carries  = map[Kind][]string{
		Join:              {"process", "member", "instance", "client", "topics"},
		Restart:           {"process", "member", "instance", "client", "topics"},
		Leave:             {"process", "member"},
		Crash:             {"process"},
		Fenced:            {"process", "member", "generation"},
		Subscribe:         {"process", "topics"},
		GenerationReached: {"process", "member", "generation"},
		Joined:            {"process", "member", "instance"},
		Removed:           {"process", "member"},
		Assigned:          callback,
		Revoking:          {"process", "member", "generation", "resources"},
		Revoked:           callback,
		Lost:              callback,
		Processed:         {"process", "member", "generation", "resource", "offset", "count"},
		Commit:            {"call", "process", "member", "generation", "offsets", "error", "refused"},
		Request:           {"process", "member", "instance", "generation", "api"},
		Response:          {"process", "member", "generation", "api", "error"},
		Topic:             {"topic", "partitions"},
		Quiet:             nil,
	}
	required = map[Kind][]string{
		Join:              {"process"},
		Restart:           {"process"},
		Leave:             {"process"},
		Crash:             {"process"},
		Fenced:            {"process"},
		Subscribe:         {"process", "topics"},
		GenerationReached: {"process", "member", "generation"},
		Joined:            {"member"},
		Removed:           {"member"},
		Assigned:          {"process", "resources"},
		Revoking:          {"process", "resources"},
		Revoked:           {"process", "resources"},
		Lost:              {"process", "resources"},
		Processed:         {"process", "resource", "offset"},
		Commit:            {"process", "member", "offsets", "error"},
		Request:           {"api"},
		Response:          {"api", "error"},
		Topic:             {"topic", "partitions"},
	}
)

// shape returns what is wrong with the fields e carries for its kind,
// or "" when nothing is.
func (e Event) shape() string {
	allowed, ok := carries[e.Kind]
	if !ok {
		return fmt.Sprintf("unknown event kind %q (known: %v)", e.Kind, Kinds)
	}
	for _, f := range fields {
		has := f.set(e)
		switch {
		case has && !slices.Contains(allowed, f.name):
			return fmt.Sprintf("a %s event carries no %q", e.Kind, f.name)
		case !has && slices.Contains(required[e.Kind], f.name):
			return fmt.Sprintf("a %s event needs %q", e.Kind, f.name)
		}
	}
	return ""
}

// Trace is a whole trace: its header and its events in file order.
type Trace struct {
	Header Header
	Events []Event
}

// Int64 returns a pointer to v, for writing events by hand (as do Int32
// and Int16).
func Int64(v int64) *int64 { return &v }

// Int32 returns a pointer to v.
func Int32(v int32) *int32 { return &v }

// Int16 returns a pointer to v.
func Int16(v int16) *int16 { return &v }
