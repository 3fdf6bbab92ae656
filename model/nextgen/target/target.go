// Package target computes the next-generation (KIP-848) target assignment:
// Kafka's TargetAssignmentBuilder (group-coordinator/.../modern/
// TargetAssignmentBuilder.java in apache/kafka) reduced to its contract.
//
// The coordinator recomputes the target whenever the group epoch moves past
// the target assignment epoch. It hands a server-side assignor every
// member's subscription, rack, instance id and previous TARGET assignment
// (never what members actually own: reconciliation, package reconcile, deals
// with that), applies the membership changes that caused the new epoch, and
// records a new target only for the members whose target changed.
//
// The package is pure: Build reads only its input, modifies none of it, and
// returns fresh maps and slices (sets are immutable and may be shared).
package target

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// Member is one member as the target assignment sees it: the member spec
// Kafka builds (MemberSubscriptionAndAssignmentImpl) minus the previous
// target, which comes from Input.Previous.
type Member struct {
	ID spec.MemberID
	// InstanceID is the static membership id, "" for a dynamic member.
	InstanceID string
	// Rack is the member's rack, "" when unknown.
	Rack string
	// Topics is the subscription, in any order; duplicates are ignored.
	// Topics that do not exist in Input.Topics are passed on and ignored by
	// the assignors.
	Topics []string
}

// Input is everything one target computation reads.
type Input struct {
	// Members is the group as it stands before the deltas (Kafka's
	// withMembers), including a static member that left temporarily
	// (epoch -2). IDs and non-empty InstanceIDs are distinct.
	Members []Member
	// Previous is the current target assignment (withTargetAssignment). A
	// member without an entry starts from nothing, and an entry for an id
	// that is not a member is ignored.
	Previous spec.Assignment
	// Topics is the universe (the subscription metadata): partitions per
	// topic.
	Topics spec.Topics
	// Assignor computes the new target.
	Assignor assign.Assignor
	// Upsert adds members or replaces members with the same ID (Kafka's
	// addOrUpdateMember): a member that joined, or changed its
	// subscription, rack or instance id. An updated member keeps its own
	// previous target.
	//
	// A static replacement is an Upsert whose InstanceID belongs, in
	// Members, to a different ID: the new member takes the place of the
	// departed one. The departed ID is removed, and the new member starts
	// from the departed member's previous target (Kafka's builder looks the
	// instance id up in its static-member map; GroupMetadataManager removes
	// the departed id in the same computation).
	Upsert []Member
	// Remove lists members that left or were fenced (removeMember).
	// Removing an ID that is not a member is a no-op, as in Kafka.
	Remove []spec.MemberID
}

// Result is a computed target assignment.
type Result struct {
	// Target is the new target: every member of the group after the
	// deltas, with an empty set for a member that gets nothing.
	Target spec.Assignment
	// Changed lists, sorted, the members that need a new target record:
	// those without an entry in Input.Previous (a new member, and the new
	// ID of a static replacement, even if its target is empty or equal to
	// what it inherited) and those whose set differs from it. Removed
	// members are not listed: deleting their target is part of removing
	// them.
	Changed []spec.MemberID
	// SubscriptionType is SubscriptionTypeOf the group after the deltas.
	SubscriptionType SubscriptionType
	// Round is the computation as an assignment round, for observers:
	// each member's subscription, its previous target as it was given to
	// the assignor (Claims), the new Target (Assigned), and Sticky when
	// the assignor claims stickiness (assign.StickyAssignor).
	Round spec.Round
}

// SubscriptionType says whether all members subscribe to the same topics:
// Kafka's SubscriptionType, which lets assignors take a faster path.
type SubscriptionType uint8

const (
	// Homogeneous: every member subscribes to the same topics, or no
	// member subscribes to anything.
	Homogeneous SubscriptionType = iota
	// Heterogeneous: some topic is subscribed by some members only.
	Heterogeneous
)

// String returns Kafka's name: HOMOGENEOUS or HETEROGENEOUS.
func (t SubscriptionType) String() string {
	switch t {
	case Homogeneous:
		return "HOMOGENEOUS"
	case Heterogeneous:
		return "HETEROGENEOUS"
	default:
		return fmt.Sprintf("SubscriptionType(%d)", uint8(t))
	}
}

// SubscriptionTypeOf classifies members as Kafka's
// ModernGroup.subscriptionType does: Homogeneous when nothing is subscribed
// or every subscribed topic has as many subscribers as there are members,
// Heterogeneous otherwise (a member that subscribes to nothing next to one
// that subscribes to something makes the group heterogeneous).
func SubscriptionTypeOf(members []Member) SubscriptionType {
	subscribers := map[string]int{}
	for _, m := range members {
		for _, t := range distinct(m.Topics) {
			subscribers[t]++
		}
	}
	for _, n := range subscribers {
		if n != len(members) {
			return Heterogeneous
		}
	}
	return Homogeneous
}

// ErrInvalidInput is wrapped by the errors Build returns for caller misuse:
// a nil assignor, an empty or repeated member ID, an ID both upserted and
// removed, a non-empty InstanceID shared by two members of Members or two
// Upserts, an invalid previous set, or a group that assign.ValidateGroup
// rejects.
var ErrInvalidInput = errors.New("target: invalid input")

// ErrAssignorFailed is wrapped, together with the assignor's own error, by
// the error Build returns when the assignor fails. The coordinator answers
// the heartbeat with UNKNOWN_SERVER_ERROR and keeps the previous target.
var ErrAssignorFailed = errors.New("target: the assignor failed")

// PanicError is the assignor's error, wrapped with ErrAssignorFailed, when
// the assignor panicked: Build recovers, so that an assignor of the
// caller's cannot take the coordinator down (Kafka's coordinator catches
// what the assignor throws in the same way).
type PanicError struct {
	// Value is what the assignor panicked with.
	Value any
}

// Error says that the assignor panicked, and with what.
func (e *PanicError) Error() string { return fmt.Sprintf("the assignor panicked: %v", e.Value) }

// callAssignor runs a on g (assign.AssignValid), turning a panic into a
// *PanicError.
func callAssignor(a assign.Assignor, g assign.ValidGroup) (out spec.Assignment, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, &PanicError{Value: p}
		}
	}()
	return assign.AssignValid(a, g)
}

// ErrIllegalAssignment is what an *IllegalAssignmentError unwraps to.
var ErrIllegalAssignment = errors.New("target: the assignor returned an illegal assignment")

// IllegalAssignmentError is the error Build returns when the assignor's
// result breaks spec.CheckRound without the cooperative rule: a partition
// given twice, to a member outside the group, of a topic the member does not
// subscribe to, or that does not exist. It unwraps to ErrIllegalAssignment.
type IllegalAssignmentError struct {
	// Assignor is the assignor's name.
	Assignor string
	// Violations are the broken laws, in spec.CheckRound's order.
	Violations []spec.Violation
}

// Error lists the violations.
func (e *IllegalAssignmentError) Error() string {
	vs := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		vs[i] = v.String()
	}
	return fmt.Sprintf("%v (%s): %s", ErrIllegalAssignment, e.Assignor, strings.Join(vs, "; "))
}

// Unwrap returns ErrIllegalAssignment.
func (e *IllegalAssignmentError) Unwrap() error { return ErrIllegalAssignment }

// Build computes the new target assignment, as TargetAssignmentBuilder.build
// does:
//
//	group'   = Members − Remove − {departed IDs of static replacements} ⊕ Upsert
//	owned(m) = Previous[departed] for the new ID of a static replacement,
//	           Previous[m] otherwise, keeping only partitions that exist
//	target   = Assignor(group' with owned as each member's Owned)
//	Changed  = {m ∈ group' : m ∉ Previous or Previous[m] ≠ target[m]}
//
// The assignor sees each member's previous target as assign.Member.Owned,
// all at one Generation (0): a target assigns each partition at most once,
// so there are no conflicting claims to resolve. Partitions of deleted
// topics are dropped from Owned because assignors reject them.
//
// A member the assignor leaves out of its result gets an empty target, as
// in Kafka. The result is checked with spec.CheckRound (not cooperative):
// each partition given at most once, only to members of the group, only of
// subscribed, existing topics.
//
// Errors: ErrInvalidInput (wrapped) for caller misuse; ErrAssignorFailed
// wrapping the assignor's error (a *PanicError when it panicked);
// *IllegalAssignmentError for an illegal
// result. On error the Result is the zero value and the previous target
// stands.
func Build(in Input) (Result, error) {
	group, inherited, err := applyDeltas(in)
	if err != nil {
		return Result{}, err
	}
	topics := in.Topics
	if topics == nil {
		topics = spec.Topics{}
	}

	// The group shares the universe and the previous sets with the input:
	// assign.AssignValid gives an assignor that is not one of package
	// assign's (which never write to their input) a copy of the group, so
	// none can reach the coordinator's metadata image or targets.
	g := assign.Group{Topics: topics, Members: make([]assign.Member, len(group))}
	subs := make(map[spec.MemberID][]string, len(group))
	homogeneous := true
	// pruned: every Owned set is a valid set of existing partitions, as
	// assign.ValidatePruned takes them; false when some previous target
	// named a partition that no longer exists.
	pruned := true
	for i, m := range group {
		from := m.ID
		if d, ok := inherited[m.ID]; ok {
			from = d
		}
		prev := in.Previous[from]
		// One pass validates prev and finds whether all of it exists
		// (then owned is prev itself).
		owned, err := assign.ValidPruned(topics, prev)
		if err != nil {
			return Result{}, fmt.Errorf("%w: previous target of %s: %v", ErrInvalidInput, from, err)
		}
		if len(owned) != len(prev) {
			// Some partition is gone: drop it as topics.Existing does
			// (which, unlike ValidPruned, keeps a connector of a connector
			// universe, for ValidateGroup to reject).
			owned, pruned = topics.Existing(prev), false
		}
		g.Members[i] = assign.Member{
			ID:         m.ID,
			InstanceID: m.InstanceID,
			Owned:      owned,
			Generation: 0,
			Rack:       m.Rack,
		}
		if i == 0 {
			g.Members[i].Topics = distinct(m.Topics)
		} else {
			// Members with the same subscription share one slice, as a
			// classic leader's decoded subscriptions do: the assignors
			// and ValidateGroup then compare and check it once.
			last := g.Members[i-1].Topics
			if slices.Equal(last, m.Topics) {
				// distinct(m.Topics) would be an equal copy.
				g.Members[i].Topics = last
			} else if topics := distinct(m.Topics); slices.Equal(last, topics) {
				g.Members[i].Topics = last
			} else {
				g.Members[i].Topics = topics
				homogeneous = false
			}
		}
		subs[m.ID] = g.Members[i].Topics
	}
	validate := assign.Validate
	if pruned {
		validate = assign.ValidatePruned
	}
	valid, err := validate(g)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}

	out, err := callAssignor(in.Assignor, valid)
	if err != nil {
		return Result{}, fmt.Errorf("%w (%s): %w", ErrAssignorFailed, in.Assignor.Name(), err)
	}
	if vs := spec.CheckRound(spec.Round{Topics: topics, Subscriptions: subs, Assigned: out}); len(vs) > 0 {
		return Result{}, &IllegalAssignmentError{Assignor: in.Assignor.Name(), Violations: vs}
	}

	// SubscriptionTypeOf(group): the members' distinct subscriptions are
	// all equal exactly when every subscribed topic has every member as a
	// subscriber.
	res := Result{Target: make(spec.Assignment, len(group)), SubscriptionType: Heterogeneous}
	if homogeneous {
		res.SubscriptionType = Homogeneous
	}
	res.Round = spec.Round{Topics: topics, Subscriptions: subs, Claims: make(map[spec.MemberID]spec.Set, len(group)), Assigned: res.Target}
	if s, ok := in.Assignor.(assign.StickyAssignor); ok {
		res.Round.Sticky = s.KeepsClaims()
	}
	for _, m := range g.Members {
		res.Round.Claims[m.ID] = m.Owned
	}
	for _, m := range group {
		// The assignor's set, even when it equals the previous one:
		// an assignor's sets may share one backing array (the uniform
		// assignor's heterogeneous and rack-aware builders cut them
		// so), so keeping a previous set instead would keep its
		// round's whole array alive for as long as the member's
		// target stays the same (tried: at 1,000 members over 100,000
		// partitions the next-gen simulation grew to 6 GB). The
		// homogeneous uniform builder hands a member whose target does
		// not change its previous set itself, and the others sets of
		// their own (assign's collectDense), so that comparing the two
		// below costs nothing and no array outlives its round.
		next := out[m.ID]
		res.Target[m.ID] = next
		if prev, ok := in.Previous[m.ID]; !ok || !prev.Equal(next) {
			res.Changed = append(res.Changed, m.ID)
		}
	}
	return res, nil
}

// applyDeltas returns the group after the deltas, sorted by ID, and for
// each static replacement the departed ID its new member inherits from.
func applyDeltas(in Input) ([]Member, map[spec.MemberID]spec.MemberID, error) {
	if in.Assignor == nil {
		return nil, nil, fmt.Errorf("%w: nil assignor", ErrInvalidInput)
	}
	byID := map[spec.MemberID]Member{}
	byInstance := map[string]spec.MemberID{}
	for _, m := range in.Members {
		if m.ID == "" {
			return nil, nil, fmt.Errorf("%w: a member has an empty ID", ErrInvalidInput)
		}
		if _, dup := byID[m.ID]; dup {
			return nil, nil, fmt.Errorf("%w: member %s listed twice", ErrInvalidInput, m.ID)
		}
		byID[m.ID] = m
		if m.InstanceID != "" {
			if other, dup := byInstance[m.InstanceID]; dup {
				return nil, nil, fmt.Errorf("%w: members %s and %s share instance id %q", ErrInvalidInput, other, m.ID, m.InstanceID)
			}
			byInstance[m.InstanceID] = m.ID
		}
	}

	removed := map[spec.MemberID]bool{}
	for _, id := range in.Remove {
		removed[id] = true
	}
	upserted := map[spec.MemberID]bool{}
	upsertInstance := map[string]spec.MemberID{}
	inherited := map[spec.MemberID]spec.MemberID{}
	for _, m := range in.Upsert {
		switch {
		case m.ID == "":
			return nil, nil, fmt.Errorf("%w: an upserted member has an empty ID", ErrInvalidInput)
		case upserted[m.ID]:
			return nil, nil, fmt.Errorf("%w: member %s upserted twice", ErrInvalidInput, m.ID)
		case removed[m.ID]:
			return nil, nil, fmt.Errorf("%w: member %s both upserted and removed", ErrInvalidInput, m.ID)
		}
		upserted[m.ID] = true
		if m.InstanceID == "" {
			continue
		}
		if other, dup := upsertInstance[m.InstanceID]; dup {
			return nil, nil, fmt.Errorf("%w: upserted members %s and %s share instance id %q", ErrInvalidInput, other, m.ID, m.InstanceID)
		}
		upsertInstance[m.InstanceID] = m.ID
		// A static member replacing a departed one with the same instance
		// id inherits its previous target, and the departed one goes.
		if departed, ok := byInstance[m.InstanceID]; ok && departed != m.ID {
			inherited[m.ID] = departed
			removed[departed] = true
		}
	}
	for _, m := range in.Upsert {
		if removed[m.ID] {
			return nil, nil, fmt.Errorf("%w: member %s is upserted and replaced by a static member", ErrInvalidInput, m.ID)
		}
	}

	for id := range removed {
		delete(byID, id)
	}
	for _, m := range in.Upsert {
		byID[m.ID] = m
	}
	group := make([]Member, 0, len(byID))
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		group = append(group, byID[id])
	}
	return group, inherited, nil
}

// distinct returns the topics sorted and without duplicates, in a new slice
// (nil for none).
func distinct(topics []string) []string {
	if len(topics) == 0 {
		return nil
	}
	if slices.IsSortedFunc(topics, func(a, b string) int { return cmp.Or(strings.Compare(a, b), -1) }) {
		return slices.Clone(topics) // already sorted and distinct
	}
	return slices.Compact(slices.Sorted(slices.Values(topics)))
}
