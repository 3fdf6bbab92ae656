// Package assign holds the assignors: pure functions from a group (members,
// their subscriptions and what they own) to an assignment. The classic
// protocols' leaders and the next-gen coordinator call them; users plug in
// their own by implementing Assignor.
//
// Every assignor is deterministic (the same Group gives the same
// Assignment), never modifies its input, and returns an error, never a panic,
// for a Group that ValidateGroup rejects: ValidateGroup's error, wrapping
// ErrInvalidGroup and naming the problem (a member owning a partition that
// does not exist, duplicate or unsorted members, a negative partition count,
// an empty member ID or topic name, ...), and no assignment. A subscription
// to a topic that is not in the universe is not an error: it is ignored.
// The Connect functions (LeastLoaded and the Connect* helpers) take their
// own input, checked by ValidateConnect and LeastLoadedOrError.
//
// Each assignor's doc comment states its guarantees; in short:
//
//	assignor            balance                             sticky       co-partitioning  racks (KIP-881)
//	Range               per topic, within one               no           yes              yes
//	ServerRange         per topic, within one               no           yes              no
//	RoundRobin          within one if all subscribe alike   no           no               no
//	Sticky              optimal (least Σ load²)             optimal¹     no               yes¹
//	CooperativeSticky   Sticky's, within 2 rounds           as Sticky    no               as Sticky
//	Uniform             within one if all subscribe alike;  yes, but     no               opt-in²
//	                    else per topic once converged       not minimal
//	LeastLoaded         least loaded first, per kind        adds only    no               no
//
// ¹ With racks, the sticky assignors put rack alignment before stickiness
// (never before balance): exactly among members that subscribe alike (the
// whole group, or a component of it: sticky_components.go), within the
// flow's per-topic counts otherwise.
//
// ² UniformOptions.RackAware, for the homogeneous builder only, after
// KAFKA-19909 (not in a Kafka release: Kafka's UniformAssignor ignores
// racks, and so does Uniform() by default).
//
// The rack-aware assignors read Member.Rack and Group.ReplicaRacks, and
// apply them only under KIP-881's rule (useRackAware: some member rack
// holds a replica, and not every partition is on every replica rack);
// otherwise their result is the rack-blind one, unchanged. The others
// ignore racks.
// TestGuarantees and the Test*Properties* tests check each stated guarantee
// on random groups, and sticky_racks_test.go the sticky assignors' racks.
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
	// Rack is the member's rack, "" when unknown. Range, Sticky and
	// CooperativeSticky read it, together with Group.ReplicaRacks, and so
	// does Uniform with UniformOptions.RackAware.
	Rack string
}

// Group is the input of one assignment.
type Group struct {
	// Members is sorted by ID, with distinct IDs.
	Members []Member
	// Topics is the universe: partitions per topic.
	Topics spec.Topics
	// ReplicaRacks, when set, gives the racks of each partition's replicas
	// (Kafka's PartitionInfo.replicas, rack by rack): ReplicaRacks[t][p]
	// lists the racks of the brokers holding a replica of partition p of
	// topic t, in any order. A topic missing from it has partitions whose
	// racks are unknown. Range, Sticky and CooperativeSticky read it
	// (KIP-881), and so does Uniform with UniformOptions.RackAware; nil, the
	// usual case, means no rack is known.
	ReplicaRacks map[string][][]string
}

// StickyAssignor is an Assignor that may claim stickiness: when
// KeepsClaims reports true, given one subscription for every member and
// claims that do not conflict, it keeps as many claims as a balanced
// assignment can keep (spec.StableWhenBalanced, judged by
// spec.CheckStableWhenBalanced). Observers judge the law only on assignors
// that claim it.
type StickyAssignor interface {
	Assignor
	KeepsClaims() bool
}

// BalancedAssignor is an Assignor that states the balance its assignments
// promise, as a law over the owners' view once the group has converged
// (spec.View): Balance returns how v breaks it. Range promises each topic
// spread over its subscribers within one (spec.CheckTopicBalance); Sticky,
// CooperativeSticky and the server-side Uniform promise the members'
// totals (spec.CheckBalance, Kafka's AbstractStickyAssignorTest
// verifyValidityAndBalance).
type BalancedAssignor interface {
	Assignor
	Balance(v spec.View) []spec.Violation
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
