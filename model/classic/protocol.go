package classic

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rebalance-ref/rebalance/spec"
)

// Protocol is an embedded rebalance protocol run over the membership
// protocol: eager, cooperative (Design I, KIP-429), deferred (Design II,
// KIP-415) or incremental (Design III). Implementations live in package
// model/classic/policy. A Protocol is a pure value: Assign must not keep or
// modify its input. The model checker permutes members that run equal
// protocols (==); it leaves alone members whose protocol values cannot be
// compared (they hold a slice, a map or a function), which costs it
// states, not soundness.
type Protocol interface {
	// Name is the protocol name members advertise in JoinGroup and the
	// coordinator selects among.
	Name() string
	// Cooperative reports whether members keep what they own across a
	// rebalance. When false (eager), a member revokes everything before it
	// joins. A member is eager if any protocol it is configured with is.
	Cooperative() bool
	// Assign computes the leader's assignment for one round. It returns an
	// error for input it cannot assign (for example a subscription to a
	// topic the leader has no metadata for is not an error, but a
	// malformed input is). The member node validates the result with
	// spec.CheckRound before sending anything.
	Assign(in LeaderInput) (LeaderResult, error)
}

// GroupShape is what a protocol's round bound depends on: how many members
// the group can have and how many resources they share.
type GroupShape struct {
	// Members is the most members the group has at once.
	Members int
	// Resources is the most resources the members share.
	Resources int
}

// RoundBounder is a Protocol that states its bounded-rounds law: the most
// assignment rounds a leader sends, failed rounds included, after the
// environment's last action (or after the group learns of it: a session
// or request timeout) in a group of that shape whose network delivers
// every message before any timer fires. The model checker reports
// spec.BoundedRounds when a path needs more. A protocol that does not
// state one is checked with an explicit bound (rebalance check
// --max-rounds).
type RoundBounder interface {
	RoundBound(g GroupShape) int
}

// DelayBounder is a Protocol whose leader holds work back on purpose
// (Designs II and III): DelayBound is the most time its delays (scheduled
// delays, back-offs, step delays) add up to, once the environment has
// fallen quiet, over the RoundBound rounds of a group of that shape.
// Timely's time clause adds it to the rounds' heartbeat intervals. A
// protocol that takes no delays need not implement it.
type DelayBounder interface {
	DelayBound(g GroupShape) Millis
}

// Balancer is a Protocol that states the balance its assignments promise
// once the group has converged: Balance returns the violations of that
// promise in view v (none when it holds). The closed world judges it,
// with Coverage, on a group that converged (EventuallyConverged); a
// protocol that states none is judged on Coverage alone.
type Balancer interface {
	Balance(v spec.View) []spec.Violation
}

// ClaimResolver is a Protocol whose assignor settles claims that conflict
// by the generation each claimant reports (assign.ResolveClaims): the
// protocols for which the generation a member puts in its subscription
// (MemberConfig.ClaimGeneration) changes what it is assigned.
// ResolvesClaimsByGeneration reports whether it does.
type ClaimResolver interface {
	ResolvesClaimsByGeneration() bool
}

// ConnectAssigner is a Protocol that runs Kafka Connect's assignor
// (Designs II and III): it assigns a group's connectors and tasks, which
// the consumer assignors leave unowned. AssignsConnectors reports whether
// it does.
type ConnectAssigner interface {
	AssignsConnectors() bool
}

// StickyProtocol is a Protocol that may claim stickiness: when KeepsClaims
// reports true, given claims that do not conflict and one subscription for
// everyone, a round keeps as many claims as a balanced assignment can. The
// leader marks such a protocol's rounds spec.Round.Sticky, and the closed
// world judges spec.StableWhenBalanced on them.
type StickyProtocol interface {
	Protocol
	KeepsClaims() bool
}

// Subscription is the embedded-protocol metadata a member sends in
// JoinGroup: the seed design's subscription fields.
type Subscription struct {
	// Topics is the sorted subscription.
	Topics []string
	// Owned is what the member owns now (cooperative protocols; eager
	// members revoked everything and send an empty set).
	Owned spec.Set
	// Generation is the generation the member last joined, which is at
	// least the one Owned was assigned in (Kafka's subscription
	// GenerationId; NoGeneration for a member that never joined or was
	// reset). Claims are resolved by it.
	Generation spec.Generation
	// Leader is the leader of the generation Owned was assigned in, ""
	// when unknown; a new leader uses it to tell a leader change from a
	// departed member (Design II).
	Leader spec.MemberID
}

// Assignment is the embedded-protocol metadata the leader sends each member
// in SyncGroup: the seed design's assignment fields.
type Assignment struct {
	// Assigned is everything the member owns once it has applied this
	// assignment (what it keeps plus what is new).
	Assigned spec.Set
	// Revoked is what the member must give up now; under the cooperative
	// designs a member with a non-empty Revoked rejoins at once.
	Revoked spec.Set
	// Delay is the scheduled rebalance delay (Designs II, III): when
	// positive the member rejoins after Delay.
	Delay Millis `canon:"duration"`
	// Leader is the member id of the leader that computed the assignment.
	Leader spec.MemberID
	// Error is non-zero when the leader could not assign (its assignor
	// returned an illegal result): the member keeps what it owns.
	Error spec.ErrorCode
}

// Joined is one member of a round as the leader sees it, its metadata
// decoded.
type Joined struct {
	ID           spec.MemberID
	InstanceID   string
	Subscription Subscription
}

// LeaderInput is everything the leader's Protocol.Assign may use.
type LeaderInput struct {
	Now        Millis          `canon:"instant"`
	Generation spec.Generation // the generation being assigned
	Leader     spec.MemberID
	// LastCompletedGeneration is the last generation this process
	// completed a SyncGroup in (Connect's lastCompletedGenerationId).
	LastCompletedGeneration spec.Generation
	Members                 []Joined // sorted by ID
	Topics                  spec.Topics
	// Memory is what this process remembers from rounds it led; it is the
	// zero value for a process that never led (or restarted).
	Memory LeaderMemory
	Faults Faults
}

// LeaderResult is the leader's output for one round.
type LeaderResult struct {
	Assignments map[spec.MemberID]Assignment
	// Memory replaces the leader's memory once the round's SyncGroup is
	// sent.
	Memory LeaderMemory
	// Held is what the round starts holding back, assigned to nobody,
	// under a scheduled rebalance delay that it starts (Designs II and
	// III: the lost work of departed members, kept for them to come back
	// to, KIP-415); empty when it starts no such delay. Work that waits for
	// a delay already pending is not in it. The leader reports it in
	// spec.Round.Held.
	Held spec.Set
}

// LeaderMemory is the state a leader keeps between the rounds it leads
// (Designs II and III; Connect's IncrementalCooperativeAssignor fields).
// Its zero value is "no history".
type LeaderMemory struct {
	// Generation is the generation of the last round this process led.
	Generation spec.Generation
	// Assignment is the complete assignment that round produced, revoked
	// resources excluded (Connect's previousAssignment).
	Assignment spec.Assignment
	// Members is the members of that round, sorted.
	Members []spec.MemberID
	// ScheduledAt is the deadline of the pending scheduled rebalance delay,
	// 0 when none is pending.
	ScheduledAt Millis `canon:"instant"`
	// Lost is what the leader holds back while the delay runs.
	Lost spec.Set
	// Candidates are the members that stayed empty while the delay ran,
	// sorted; the lost resources go to them when it expires.
	Candidates []spec.MemberID
	// SuccessiveRevokingRounds counts consecutive rounds that revoked for
	// balance; it drives the exponential back-off (KAFKA-12495).
	SuccessiveRevokingRounds int
	// Revoked reports that the previous round revoked something.
	Revoked bool
	// Revocation is everything that round told its members to revoke
	// (Connect's previousRevocation): the next round takes the members'
	// claims as the previous assignment when one of them still claims
	// any of it, as a revocation that did not take effect.
	Revocation spec.Set
}

// Clone returns a copy of m that shares no mutable state with it.
func (m LeaderMemory) Clone() LeaderMemory {
	m.Assignment = m.Assignment.Clone()
	m.Members = slices.Clone(m.Members)
	m.Candidates = slices.Clone(m.Candidates)
	return m
}

// Encode renders s as Metadata:
//
//	topics=[a b];owned={a-0};gen=3;leader=A-1
func (s Subscription) Encode() Metadata {
	return s.encode(&printedSet{})
}

// encode is Encode, printing Owned through the memo owned (memo.go).
func (s Subscription) encode(owned *printedSet) Metadata {
	// Built in one buffer rather than formatted: every member encodes what
	// it owns at every join, and a leader's group can be large.
	var b strings.Builder
	// The set grows it for itself, unless the memo has its text.
	size := 48 + len(s.Leader) + owned.known(s.Owned)
	for _, t := range s.Topics {
		size += len(t) + 1
	}
	b.Grow(size)
	b.WriteString("topics=[")
	for i, t := range s.Topics {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	b.WriteString("];owned=")
	owned.print(&b, s.Owned)
	b.WriteString(";gen=")
	b.WriteString(strconv.Itoa(int(s.Generation)))
	b.WriteString(";leader=")
	b.WriteString(idOrDash(s.Leader))
	return Metadata(b.String())
}

// Encode renders a as Metadata:
//
//	assigned={a-0};revoked={};delay=0;leader=A-1;error=0
func (a Assignment) Encode() Metadata {
	return a.encode(&printedSet{})
}

// encode is Encode, printing Assigned through the memo assigned (memo.go).
func (a Assignment) encode(assigned *printedSet) Metadata {
	var b strings.Builder
	// The sets grow it for themselves, unless the memo has Assigned's text.
	b.Grow(64 + len(a.Leader) + assigned.known(a.Assigned))
	b.WriteString("assigned=")
	assigned.print(&b, a.Assigned)
	b.WriteString(";revoked=")
	a.Revoked.BuildString(&b)
	b.WriteString(";delay=")
	b.WriteString(strconv.FormatInt(int64(a.Delay), 10))
	b.WriteString(";leader=")
	b.WriteString(idOrDash(a.Leader))
	b.WriteString(";error=")
	b.WriteString(strconv.Itoa(int(a.Error)))
	return Metadata(b.String())
}

// fields splits "k=v;k=v" into its values and checks it has exactly the
// keys want, in that order: value i, want[i]'s, is written to dst[i] (dst
// is at least as long as want). It cuts md in place rather than splitting
// it into a new slice, and counts its fields only to report an error (a
// count of the whole text, which holds a set or two, at every decode cost
// more than the cuts): members decode metadata at every round.
func fields(dst []string, md Metadata, what string, want ...string) error {
	rest := string(md)
	for i := range want {
		p, after, found := strings.Cut(rest, ";")
		if found != (i < len(want)-1) {
			// No separator before the last field, or one after it.
			return fieldCountError(md, what, want)
		}
		rest = after
		k, v, ok := strings.Cut(p, "=")
		if !ok || k != want[i] {
			if err := fieldCountError(md, what, want); err != nil {
				return err
			}
			return fmt.Errorf("%s %q: field %d: want key %q", what, md, i+1, want[i])
		}
		dst[i] = v
	}
	return nil
}

// fieldCountError reports md as having other than len(want) fields, nil
// when it has that many: a wrong count is reported before a wrong key.
func fieldCountError(md Metadata, what string, want []string) error {
	if n := strings.Count(string(md), ";") + 1; n != len(want) {
		// A copy of want: want itself, kept off the heap, stays on the
		// callers' stacks.
		return fmt.Errorf("%s %q: want %d fields %v, got %d", what, md, len(want), slices.Clone(want), n)
	}
	return nil
}

func parseID(s string) spec.MemberID {
	if s == "-" {
		return ""
	}
	return spec.MemberID(s)
}

// DecodeSubscription parses Metadata written by Subscription.Encode. A
// malformed input gives an error saying what is wrong and where.
func DecodeSubscription(md Metadata) (Subscription, error) {
	return decodeSubscription(md, &subscriptionMemo{}, nil)
}

// decodeSubscription is DecodeSubscription, reading Topics and Owned
// through memo and Owned through printed too, the set the reader last
// printed for the member (memo.go; nil for none).
func decodeSubscription(md Metadata, memo *subscriptionMemo, printed *printedSet) (Subscription, error) {
	var f [4]string
	if err := fields(f[:], md, "subscription", "topics", "owned", "gen", "leader"); err != nil {
		return Subscription{}, err
	}
	var s Subscription
	var err error
	if s.Topics, err = memo.topics.parse(f[0]); err != nil {
		return Subscription{}, fmt.Errorf("subscription %q: %v", md, err)
	}
	if s.Owned, err = memo.owned.parse(f[1], printed); err != nil {
		return Subscription{}, fmt.Errorf("subscription %q: owned: %v", md, err)
	}
	g, err := strconv.ParseInt(f[2], 10, 32)
	if err != nil || g < int64(spec.NoGeneration) {
		return Subscription{}, fmt.Errorf("subscription %q: gen: want an integer >= -1", md)
	}
	s.Generation = spec.Generation(g)
	s.Leader = parseID(f[3])
	return s, nil
}

// parseTopics reads a subscription's topics field, "[t1 t2 ...]", sorted
// and distinct.
func parseTopics(f string) ([]string, error) {
	t, ok := strings.CutPrefix(f, "[")
	if ok {
		t, ok = strings.CutSuffix(t, "]")
	}
	if !ok {
		return nil, errors.New("topics: want [t1 t2 ...]")
	}
	ts := strings.Fields(t)
	for i := 1; i < len(ts); i++ {
		if ts[i-1] >= ts[i] {
			return nil, errors.New("topics must be sorted and distinct")
		}
	}
	return ts, nil
}

// DecodeAssignment parses Metadata written by Assignment.Encode. A malformed
// input gives an error saying what is wrong and where.
func DecodeAssignment(md Metadata) (Assignment, error) {
	return decodeAssignment(md, &parsedSet{}, nil)
}

// decodeAssignment is DecodeAssignment, reading Assigned through the memo
// assigned and through printed, the set the reader last printed (memo.go;
// nil for none).
func decodeAssignment(md Metadata, assigned *parsedSet, printed *printedSet) (Assignment, error) {
	var f [5]string
	if err := fields(f[:], md, "assignment", "assigned", "revoked", "delay", "leader", "error"); err != nil {
		return Assignment{}, err
	}
	var a Assignment
	var err error
	if a.Assigned, err = assigned.parse(f[0], printed); err != nil {
		return Assignment{}, fmt.Errorf("assignment %q: assigned: %v", md, err)
	}
	if a.Revoked, err = spec.ParseSet(f[1]); err != nil {
		return Assignment{}, fmt.Errorf("assignment %q: revoked: %v", md, err)
	}
	if x := a.Assigned.Intersect(a.Revoked); !x.IsEmpty() {
		return Assignment{}, fmt.Errorf("assignment %q: %s both assigned and revoked", md, x)
	}
	d, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || d < 0 {
		return Assignment{}, fmt.Errorf("assignment %q: delay: want an integer >= 0", md)
	}
	a.Delay = Millis(d)
	a.Leader = parseID(f[3])
	e, err := strconv.ParseInt(f[4], 10, 16)
	if err != nil {
		return Assignment{}, fmt.Errorf("assignment %q: error: want an integer", md)
	}
	a.Error = spec.ErrorCode(e)
	return a, nil
}
