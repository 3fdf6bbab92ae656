// Package cost runs the pure protocol cores through workloads a real
// group goes through (a rolling restart, scaling out and in, a crash, a
// long pause, a subscription change, partitions added) in simulated
// time, and measures what each protocol costs: how long resources go
// unprocessed, how many move, how many rounds, heartbeats and messages
// it takes, how long until the group is quiet again. It reads no clock
// and draws no randomness of its own: the seed is part of the
// configuration, and the same configuration gives the same result.
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
