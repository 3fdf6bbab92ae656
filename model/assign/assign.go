// Package assign holds the assignors: pure functions from a group (members,
// their subscriptions and what they own) to an assignment. The classic
// protocols' leaders and the next-gen coordinator call them; users plug in
// their own by implementing Assignor.
//
// Every assignor is deterministic (the same Group gives the same
// Assignment), never modifies its input, and returns an error, never a panic,
// for a Group that ValidateGroup rejects.
package assign

import (
	"github.com/rebalance-ref/rebalance/spec"
)

// Member is one member's input to an assignor.
type Member struct {
	ID spec.MemberID
	// InstanceID is the static membership id, "" for a dynamic member.
	InstanceID string
	// Topics is the subscription, sorted and distinct.
	Topics []string
	// Owned is what the member claims to own (cooperative protocols), at
	// Generation. Eager members claim nothing.
	Owned      spec.Set
	Generation spec.Generation
	// Rack is the member's rack, "" when unknown.
	Rack string
}

// Group is the input of one assignment.
type Group struct {
	// Members is sorted by ID, with distinct IDs.
	Members []Member
	// Topics is the universe: partitions per topic.
	Topics spec.Topics
}

// Assignor computes an assignment for a group.
type Assignor interface {
	// Name is the assignor's protocol name ("range", "roundrobin",
	// "sticky", "cooperative-sticky", ...).
	Name() string
	// Assign returns the whole new assignment: every member of g appears
	// in the result (possibly with an empty set).
	Assign(g Group) (spec.Assignment, error)
}
