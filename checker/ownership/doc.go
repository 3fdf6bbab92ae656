// Package ownership judges an ownership history ([spec.History]) recorded
// from real processes: Kafka clients' rebalance callbacks with wall-clock
// call and return times, their deaths, and the coordinator's membership
// changes. [Check] judges a history in two independent ways, and both must
// pass.
//
// # A. Linearizability (porcupine)
//
// [Operations] turns the observations into porcupine operations, one
// sub-history per resource ([Model] partitions by resource):
//
//   - Assigned → acquire(process, member) of each of its resources over
//     [Call, Return];
//   - Revoked, Lost → release(process) of each of its resources over
//     [Call, Return];
//   - Crashed → crash(process) at Call: the process drops whatever it holds;
//   - Removed → fence(member) at Call: the membership it ends is fenced, so
//     every holding under it, now or later, is a fenced zombie;
//   - Joined, Quiet, Subscribed and Reached are not operations. A Joined
//     only numbers the memberships of a member id: a Joined after a Removed starts the id's
//     next membership (Kafka's next-gen members rejoin under the same id),
//     which a fence of an earlier membership does not touch. Each acquire
//     and fence names the membership current at its Call (Removed before
//     Joined within one instant).
//
// Crash and fence are points; each is copied into every resource's
// sub-history where it can matter (the resources the process, or the
// membership, acquires); in any other it would leave the state unchanged.
// A long sub-history is checked in pieces, cut where nobody holds the
// resource (each piece of 64 operations or more, with the earlier fences
// of the memberships that acquire in it), which every legal linearization
// passes through in the same state.
//
// The state of one resource is its set of holdings {process, member,
// membership} and the fenced memberships. acquire is legal iff the process
// holds nothing of the resource and, unless its own membership is already
// fenced, no other process holds it under an unfenced membership; release is
// legal iff the process holds it; crash and fence are always legal. So a
// legal history never has two unfenced holders: Kafka tolerates fenced
// zombies (their commits are rejected) and nothing else.
//
// # B. The laws over derived views
//
// [Views] derives the [spec.View] the history passes through: one view per
// instant at which a view can change (a callback's Call, a Revoked or Lost
// Return, a Crashed, Joined or Removed), the state after everything at that
// instant. Nothing is seen between two events of one instant, so a hand-off
// whose release and acquisition share an instant is no overlap (porcupine,
// too, takes closed intervals that touch as concurrent). Within an instant
// the coordinator's observations apply first, Removed before Joined; then
// each process's, in the order of its observations (by Call, then Return,
// then history order). The rules:
//
//   - A process owns a resource from the Call of the Assigned that gave it
//     until the Return of the Revoked or Lost that took it (conservative: a
//     revocation callback still works on what it revokes). So a revocation
//     returning at the instant its process is assigned the resource again
//     (eager) applies first and the process keeps it; a zero-length Assigned
//     and Revoked at one instant apply in history order.
//   - Crashed at Call empties the process: it owns nothing, has no member id
//     and NoGeneration, and is down (not Current, Fenced) until its next
//     callback, which starts its next incarnation. A process with no callback
//     yet is down too.
//   - A live process's ID and Generation are those of its latest callback
//     or Reached (by Call, at or before the instant, since its latest
//     crash) that names a member; "" and NoGeneration if none does. A Joined that starts a new
//     membership of the ID (one after a Removed of it) resets the
//     Generation to NoGeneration until the process's next callback: the
//     generations of an earlier membership do not carry over.
//   - With coordinator observations (History.CoordinatorObserved), a
//     live process is Current iff its ID has a Joined at or before the
//     instant and no Removed after that Joined, at or before the instant.
//     Without them (a history recorded from client callbacks only), every live
//     process is Current: the strictest reading, in which no zombie can be
//     told apart; [Result.CoordinatorObserved] says which reading was used.
//   - A Subscribed gives the process its subscription from its Call on;
//     what it then owns of a topic it dropped is Revoking until released.
//   - Fenced = not Current. Subscription comes from
//     History.Subscriptions until a Subscribed, Topics from History.Topics. Joined and Removed match
//     member ids only; their Process is not used.
//
// [spec.CheckState] judges every view and [spec.CheckStep] every pair of
// successive views. A state violation is reported at the instant it begins
// (not again while it lasts); a step violation at the instant of the later
// view. If the history has a Quiet observation, the view at the end of the
// history is judged by [spec.CheckCoverage] and the balance law
// ([Options.Balance]).
//
// # Where the two checks differ
//
// They read the same history differently on purpose, and each catches what
// the other cannot:
//
//   - Porcupine may place a callback's effect anywhere within [Call, Return];
//     the laws take the conservative reading above. A new owner's Assigned
//     that overlaps the old owner's Revoked is linearizable (the release can
//     be placed first) but breaks ExclusiveOwnership in the views.
//   - Porcupine rejects a release of what the process does not hold and a
//     second acquire of what it already holds; the laws do not look at that.
//   - Porcupine ignores Joined (except to number memberships) and
//     generations: a member the coordinator never counted is unfenced for
//     porcupine but not Current for the laws, and MonotonicGeneration,
//     SubscribedOnly, ExistingOnly and the convergence laws are the laws'
//     alone.
package ownership
