package classic

import "github.com/rebalance-ref/rebalance/model/node"

// Fault is a named switch that deliberately breaks one rule of the
// protocol, so that the property tests and the model checker can show they
// catch the broken law. Faults are configuration; with none set the model
// is the protocol as specified.
type Fault uint32

// Faults is a set of Fault switches.
type Faults = Fault

// The fault switches of the classic family. Each comment says which law the
// tests report when it is on.
const (
	// EagerNoRevoke: an eager member keeps what it owns when it rejoins
	// instead of revoking everything first. Reported as ExclusiveOwnership:
	// the leader hands the resource to another member while the old owner
	// still works on it.
	EagerNoRevoke Fault = 1 << iota
	// CooperativeNoWithholding: the cooperative assignors give a resource
	// that changes owner to its new owner in the same round it is revoked
	// from the old one. Reported as CooperativeHandoff by the leader's
	// round check and, with the check off, as ExclusiveOwnership.
	CooperativeNoWithholding
	// SkipLeaderValidation: the leader sends its assignor's output without
	// checking it with spec.CheckRound.
	SkipLeaderValidation
	// KeepRevoked: a member that is told to revoke a resource keeps working
	// on it. Reported as ExclusiveOwnership once the resource is handed out.
	KeepRevoked
	// SameGenerationClaimsKept: when two members claim a resource in the
	// same generation, the cooperative assignors keep it with the first
	// claimant instead of taking it from both. A defence in depth (see
	// FaultList): two claims of one resource in one round need two owners,
	// which ExclusiveOwnership reports first; the assignor tests
	// (model/classic/policy) catch it.
	SameGenerationClaimsKept
	// SkipGenerationCheck: the coordinator accepts a SyncGroup or Heartbeat
	// from any generation. A defence in depth (see FaultList): a member
	// sends them only for the generation it joined, over a connection that
	// keeps its order, so only a duplicated JoinGroup lets an older
	// generation's request reach a newer generation, whose answer then fits
	// what the member owns; TestCoordinatorSkipGenerationCheck catches it.
	SkipGenerationCheck
	// SyncRebalanceResetsGeneration: a member whose SyncGroup is answered
	// REBALANCE_IN_PROGRESS resets its generation and declares everything
	// it owns lost before it rejoins (KAFKA-13891, reverted by KAFKA-14016).
	// Reported as NoSpuriousLoss: the member is still in the group.
	SyncRebalanceResetsGeneration
	// ZeroRebalanceTimeout: the coordinator takes every member's rebalance
	// timeout as 0, so the JoinGroup barrier falls as soon as it goes up
	// and removes every member that has not rejoined yet (a JoinGroup v0
	// against Kafka 2.3, whose missing field defaulted to 0: KAFKA-8653).
	// Reported as BoundedRounds (with the checked world's prompt network
	// the JoinGroups in flight reach the barrier before its timer fires,
	// so the group still converges in the end).
	ZeroRebalanceTimeout
	// UnknownMemberKeepsOwned: a member whose JoinGroup is answered
	// UNKNOWN_MEMBER_ID rejoins as a new member still owning (and
	// claiming) what it owned, instead of declaring it lost (KAFKA-12983:
	// resetStateAndRejoin did not rerun onJoinPrepare). Reported as
	// ExclusiveOwnership once the group has given those resources to
	// another member.
	UnknownMemberKeepsOwned
	// NoConsecutiveRevocation: Design II's round right after a revoking
	// round, or right after a round that sent a delay, may not revoke for
	// balance (Connect's canRevoke before KAFKA-12495: "canRevoke = delay
	// == 0 && canRevoke"), so a member that joined in between stays
	// under-loaded in a quiet group. Reported as Balance
	// (EventuallyConverged).
	NoConsecutiveRevocation
	// DisabledDelayHoldsLost: with scheduled delays disabled (Connect's
	// scheduled.rebalance.max.delay.ms = 0), a Design II/III leader that
	// finds resources of a departed member lost still takes the delay
	// branch: it holds them back with a delay of 0, which arms no member's
	// timer, so nothing hands them out until some unrelated rebalance
	// (Connect before KAFKA-15693). Reported as Coverage
	// (EventuallyConverged) in a quiet group.
	DisabledDelayHoldsLost
	// LostToFirstCandidate: when Design II's scheduled delay expires, every
	// lost resource goes to the first candidate member (Connect's
	// pickCandidateWorkerForReassignment with findFirst before KAFKA-10413)
	// instead of round-robin over all of them. Alone it is not caught: the
	// next rounds revoke for balance (KAFKA-12495's fix). With
	// NoConsecutiveRevocation too it is reported as Balance
	// (EventuallyConverged).
	LostToFirstCandidate
	// UndeliveredAssignmentHeld: a Design II/III leader trusts its memory
	// of the previous round even when that round never completed, and
	// holds back for the scheduled delay every resource that some member
	// was given but does not report, although no member departed (Connect
	// before KAFKA-9848: a lost SyncGroup response made the leader wait
	// scheduled.rebalance.max.delay.ms before reassigning the tasks).
	// Timely's delay clause reports it (spec.CheckHeldBack): the leader
	// starts a delay that holds work although no member has departed.
	UndeliveredAssignmentHeld
	// LeaveKeepsWorking: a member that leaves the group sends its
	// LeaveGroup but goes on working on what it owns, as a Connect worker
	// did when it left because its config had fallen behind and slept
	// worker.unsync.backoff.ms with its tasks running (KAFKA-9849; the
	// fix revokes them within the scheduled delay). Reported as
	// CooperativeHandoff by the round that gives them to another member
	// (the world counts a departed member's claims in every cooperative
	// round) and as ExclusiveOwnership once that member installs them: a
	// departed member is not fenced.
	LeaveKeepsWorking
	// StaleClaimsDropped: the cooperative assignors ignore every claim of a
	// member whose generation is below the highest in the round, even a
	// claim nobody else makes, and hand those resources out as unowned
	// (Kafka's AbstractStickyAssignor from KAFKA-12984 until KAFKA-14639).
	// A member reports a stale generation only with
	// MemberConfig.ClaimGeneration ClaimAtAssigned (the cooperative-sticky
	// user data before KIP-792). Reported as CooperativeHandoff by the
	// leader's round check, which fails the round, so the group never
	// converges (EventuallyConverged); with SkipLeaderValidation, as
	// CooperativeHandoff by the world.
	StaleClaimsDropped
	// RevocationIgnoresConnectors: Designs II and III's load-balancing
	// revocations take a member's resources in plain resource order,
	// which groups the tasks of each connector together, instead of
	// letting the connectors take turns. That is Kafka Connect's rule on
	// trunk (IncrementalCooperativeAssignor loadBalancingRevocations takes
	// the first tasks of the worker's allocation; KAFKA-17049, whose fix,
	// PR #16486, was closed unmerged): a worker that joins gets every task
	// of one connector and none of another. Reported as Balance
	// (EventuallyConverged) in a world with connectors: the per-connector
	// part of spec.CheckConnectBalance.
	RevocationIgnoresConnectors
	// IllegalGenerationResetsMemberID: a member whose SyncGroup or
	// Heartbeat is answered ILLEGAL_GENERATION forgets its member id as
	// well as its generation, and rejoins as a new member (Kafka's
	// AbstractCoordinator before KAFKA-13419, apache/kafka c219fba, 2021:
	// its resetGeneration reset the whole Generation). The coordinator
	// still counts the old id, so the group waits for it until its session
	// runs out. Reported as Timely (the time clause) by the random runs;
	// the model checker has no clock to see it by.
	IllegalGenerationResetsMemberID
	// AcceptStaleCommits: the coordinator accepts every OffsetCommit,
	// whatever its member id and generation. Reported as
	// ZombieCommitRejected in a world with records: a member removed from
	// the group commits what it processed, and the offset moves.
	AcceptStaleCommits
)

// FaultList is every fault switch of the classic family, for --list-faults
// and for tests that turn each one on.
var FaultList = node.Switches[Fault]{
	{Fault: EagerNoRevoke, Name: "eager-no-revoke", Doc: "eager members keep their resources when they rejoin (ExclusiveOwnership)"},
	{Fault: CooperativeNoWithholding, Name: "cooperative-no-withholding", Doc: "cooperative assignors hand a moving resource over in the round it is revoked (CooperativeHandoff, ExclusiveOwnership)"},
	{Fault: SkipLeaderValidation, Name: "skip-leader-validation", Doc: "the leader sends its assignor's output unchecked"},
	{Fault: KeepRevoked, Name: "keep-revoked", Doc: "members keep working on resources they were told to revoke (ExclusiveOwnership)"},
	{Fault: SameGenerationClaimsKept, Name: "same-generation-claims-kept", Doc: "a resource claimed twice in one generation stays with a claimant",
		Defence: "two members claim one resource in a round only if both own it, which ExclusiveOwnership reports first; the assignor tests catch it"},
	{Fault: StaleClaimsDropped, Name: "stale-claims-dropped", Doc: "cooperative assignors ignore the claims of members below the round's highest generation (KAFKA-14639, with --claim-generation assigned; CooperativeHandoff, EventuallyConverged)"},
	{Fault: SkipGenerationCheck, Name: "skip-generation-check", Doc: "the coordinator accepts SyncGroup and Heartbeat from any generation",
		Defence: "members send them only for the generation they joined, in order; after a duplicated JoinGroup the newer generation's answer fits what the member owns; coordinator unit tests catch it"},
	{Fault: ZeroRebalanceTimeout, Name: "zero-rebalance-timeout", Doc: "the JoinGroup barrier falls at once, removing every member not yet rejoined (KAFKA-8653; BoundedRounds)"},
	{Fault: UnknownMemberKeepsOwned, Name: "unknown-member-keeps-owned", Doc: "a JoinGroup answered UNKNOWN_MEMBER_ID leaves the member owning what it owned (KAFKA-12983; ExclusiveOwnership)"},
	{Fault: NoConsecutiveRevocation, Name: "no-consecutive-revocation", Doc: "deferred: the round after a revoking or delayed round may not revoke for balance (KAFKA-12495; EventuallyConverged)"},
	{Fault: DisabledDelayHoldsLost, Name: "disabled-delay-holds-lost", Doc: "deferred/incremental with max delay 0: a departed member's resources are held with no rebalance to hand them out (KAFKA-15693; EventuallyConverged)"},
	{Fault: LostToFirstCandidate, Name: "lost-to-first-candidate", Doc: "deferred/incremental: when the delay expires every lost resource goes to the first candidate (KAFKA-10413; EventuallyConverged with no-consecutive-revocation)"},
	{Fault: UndeliveredAssignmentHeld, Name: "undelivered-assignment-held", Doc: "deferred/incremental: resources a member never received are held for the scheduled delay although nobody departed (KAFKA-9848; Timely)"},
	{Fault: LeaveKeepsWorking, Name: "leave-keeps-working", Doc: "a member that leaves keeps working on what it owns (KAFKA-9849; CooperativeHandoff, ExclusiveOwnership)"},
	{Fault: IllegalGenerationResetsMemberID, Name: "illegal-generation-resets-member-id", Doc: "KAFKA-13419: a member answered ILLEGAL_GENERATION forgets its member id too and rejoins as a new member; the group waits out the old id's session (Timely, found by simulate)"},
	{Fault: RevocationIgnoresConnectors, Name: "revocation-ignores-connectors", Doc: "deferred/incremental: load-balancing revocations take a member's tasks connector by connector, not in turns (KAFKA-17049; EventuallyConverged with --connectors)"},
	{Fault: SyncRebalanceResetsGeneration, Name: "sync-rebalance-resets-generation", Doc: "a SyncGroup answered REBALANCE_IN_PROGRESS makes the member declare its resources lost (KAFKA-14016; NoSpuriousLoss)"},
	{Fault: AcceptStaleCommits, Name: "accept-stale-commits", Doc: "the coordinator accepts offset commits from any member and generation (ZombieCommitRejected, with records)",
		Defence: "a classic member commits in its revocation callback, before it rejoins, and learns of its removal as a loss (no commit), so no checked world has a zombie commit (--overruns has no classic revocation to overrun); TestCoordinatorOffsetCommitFencing catches it"},
}

// Has reports whether every fault of x is in f.
func (f Fault) Has(x Fault) bool { return node.Has(f, x) }

// String lists the names of the faults in f, "none" for the empty set.
func (f Fault) String() string { return FaultList.String(f) }

// ParseFault returns the fault named name, or an error naming every
// classic fault.
func ParseFault(name string) (Fault, error) { return FaultList.Parse(name) }
