// Package cost runs the pure protocol cores through workloads a real
// group goes through (a rolling restart, scaling out and in, a crash, a
// long pause, a subscription change, partitions added) in simulated
// time, and measures what each protocol costs: how long resources go
// unprocessed, how many move, how many rounds, heartbeats and messages
// it takes, how long until the group is quiet again. It reads no clock
// and draws no randomness of its own: the seed is part of the
// configuration, and the same configuration gives the same result.
//
// # The engine
//
// Run drives the pure protocol cores, unchanged, with its own
// discrete-event loop (it does not use the closed world of model/world,
// which builds a view and checks every law after every step): one
// coordinator and member processes, and a queue of events ordered by
// time, then by the order they were scheduled. The classic protocols are
// the classic coordinator (model/classic) with members running one
// embedded protocol of model/classic/policy (eager with the range
// assignor, cooperative, deferred and incremental with Connect's delay
// Timing.ConnectDelay); nextgen is the KIP-848 coordinator
// (model/nextgen's coordinator, its default uniform assignor) with
// next-gen members (model/nextgen). The group first comes up (every
// member starts at time 0) and settles: the workload starts
// Config.Margin after it first converged (Result.Start); the run stops
// Config.Margin after it converged again once the workload is done
// (Result.End), or at Config.Horizon. Every metric counts from Start.
//
// What is modelled, and how:
//
//   - The network: every message arrives Timing.Latency after it is sent,
//     in the order sent; nothing is lost or duplicated. Messages to an
//     incarnation of a process that has ended are lost.
//   - Timers fire at their deadlines; a node's timers die with its
//     incarnation.
//   - Revocation takes Timing.Revocation per resource, one resource after
//     another. A resource is unavailable from the callback that revokes
//     it. Next-gen: the application revokes after the callback returns
//     and reports each batch done (RevocationDone) when it has finished;
//     the member goes on heartbeating meanwhile. Classic: the callback
//     runs on the polling thread, so the member sends nothing (its
//     JoinGroup, SyncGroup, LeaveGroup, heartbeats) until its revocations
//     are done: an eager member's JoinGroup leaves after it revoked
//     everything, a cooperative member's follow-up JoinGroup after it
//     revoked what it must give up. Assigning costs nothing: a resource is
//     available from the callback that assigns it. A lost resource is
//     dropped at once, committing nothing.
//   - A crash stops the process at once for good: what it held is
//     unavailable from that moment, although the coordinator learns of it
//     only when its session expires; messages to it are lost.
//   - A pause stops the process in place: its node takes no step, the
//     messages, timer firings and revocation completions due to it are
//     held and delivered, in order, when it resumes; what it holds is
//     unavailable meanwhile. If its session expired during the pause, it
//     resumes as a zombie, working on what it held until its first
//     exchange with the coordinator after the pause fences it (a few
//     Latency): the one time two running processes may hold one resource,
//     tolerated because the coordinator rejects the zombie's commits.
//   - A restart (rolling restart) shuts the member down gracefully: it
//     revokes everything and leaves. A dynamic member leaves the group
//     (classic LeaveGroup, next-gen leave heartbeat at epoch -1); a static
//     member (Config.Static, group.instance.id) does not: the classic
//     member sends nothing, the next-gen member sends KIP-848's temporary
//     leave (epoch -2), and the coordinator keeps its assignment for its
//     session. The process is down Timing.Restart after the shutdown
//     began, then a new incarnation starts with a new address: a dynamic
//     classic member gets a new member id from the coordinator, a next-gen
//     member makes its own (name-k); a static one keeps its instance id
//     and, inside the session timeout, gets its assignment back without a
//     rebalance.
//   - Scale-out starts new members; scale-in makes members leave for good,
//     as a dynamic restart's shutdown does.
//   - A subscription change is the Subscribe event to the members that
//     change; topics nobody subscribes to any more stop counting.
//   - New partitions: the next-gen coordinator gets a MetadataUpdate; every
//     classic member gets one at the same moment (as if every client's
//     metadata refresh, metadata.max.age.ms, came at once), and a member
//     in the group asks for a rebalance.
//   - Convergence: every resource of a subscribed topic held by exactly one
//     running member, the coordinator stable (classic: no rebalance in
//     progress; next-gen: every member at the target epoch), and every
//     live member settled (not joining, syncing, reconciling or revoking).
//     A rolling restart stops the next member once the group converged
//     after the last restart, or Workload.Wait after it started again.
//   - Moves are counted per resource when a different process than the one
//     that last held it takes it up; a process keeps its name across
//     restarts, so a member getting its own resources back is no move.
//   - Rounds: the classic leaders' assignment rounds (computed or failed),
//     the next-gen coordinator's new target assignments. Heartbeats: the
//     classic Heartbeat requests, and every next-gen heartbeat (its only
//     request, joining and leaving included). Messages: every request and
//     response.
//
// What is not modelled: message loss, duplication or reordering; latency
// that varies; the coordinator failing or moving; Kafka's
// group.initial.rebalance.delay.ms (the model's classic coordinator has
// none, so the first joiner completes a generation alone); the poll
// timer (max.poll.interval.ms) and processing itself (throughput, lag,
// fetching); a revocation's cost that does not grow with the number of
// resources (a batched commit); a classic member's heartbeat thread
// going on while its callback blocks the polling thread; the next-gen
// client's assignor or the classic protocols' server-side assignors.
package cost

import (
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// Sample is one step of a step function over simulated time: from At on
// (until the next sample), Unavailable resources are not being processed.
type Sample struct {
	At          node.Millis
	Unavailable int
}

// Interval is one member process's holding of one resource over
// [From, To): it owned the resource and was running (not crashed, not
// paused). Owner is the process's stable name ("m0001"), which survives
// restarts and new member IDs.
type Interval struct {
	Resource spec.Resource
	Owner    string
	From, To node.Millis
}

// Metrics are what one run of one protocol through one workload cost.
type Metrics struct {
	// UnavailableResourceSeconds is the integral of the unavailable
	// resources over the run, from the workload's start to the end: a
	// resource is unavailable while no running member process owns it
	// (nobody owns it, its owner crashed or is paused, or an eager member
	// revoked it for a round).
	UnavailableResourceSeconds float64
	// LongestOutage is the longest single stretch one resource was
	// unavailable, and OutageResource that resource.
	LongestOutage  node.Millis
	OutageResource spec.Resource
	// Moves counts the times a resource was taken up by a process other
	// than the one that last held it; MovesLowerBound is the fewest moves
	// any protocol needs for the workload's change (the resources whose
	// owner must differ between a balanced assignment before and after).
	Moves, MovesLowerBound int
	// Rounds counts assignment rounds (the classic leader's SyncGroup
	// rounds, or the next-gen coordinator's new target assignments);
	// Heartbeats the heartbeat requests; Messages every message sent.
	Rounds, Heartbeats, Messages int
	// ConvergedAt is when, after the workload's start, ownership last
	// changed and every subscribed resource was owned by exactly one
	// running member again; Converged is false when the run ended first.
	ConvergedAt node.Millis
	Converged   bool
}

// Result is one run: the protocol, the metrics, and the series the
// pictures draw.
type Result struct {
	Protocol string
	Workload string
	Metrics  Metrics
	// Start is when the workload began (the group settled before it);
	// End is when the run stopped. Both are on the run's clock.
	Start, End node.Millis
	// Unavailable is the number of unavailable resources over time,
	// starting at Start: a step function, one sample per change.
	Unavailable []Sample
	// Ownership is every holding of every resource from Start to End,
	// sorted by resource then From; only when Config.KeepOwnership is set
	// (it is as large as the number of moves plus resources).
	Ownership []Interval
	// Resources is how many resources the group shares (for scaling the
	// pictures); Members the most members it had at once.
	Resources, Members int
}
