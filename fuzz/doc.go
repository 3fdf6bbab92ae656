// Package fuzz checks a rebalance policy of your own (an assignor, or a
// whole embedded protocol) against the laws of package spec and the
// guarantees you say it has, in a few lines of your own go test, and
// reports the shortest failing input it finds.
//
// # Assignors
//
// An assignor is a model/assign.Assignor: Name, and Assign from a group
// (members with subscriptions and what they own) to an assignment. Check
// one with
//
//	func TestMyAssignor(t *testing.T) {
//		fuzz.Assignor(t, mine(), fuzz.Options{
//			Guarantees: []fuzz.Guarantee{fuzz.Complete, fuzz.Balanced, fuzz.Sticky},
//		})
//	}
//
// Assignor draws groups with rapid (pgregory.net/rapid): heterogeneous or
// common subscriptions, subscriptions to a topic that does not exist yet,
// static members, racks (Options.Racks), and owned claims: for a
// client-side assignor (Options.Side ClientSide, what a classic group's
// leader runs) claims at stale generations, at NoGeneration and claimed
// twice; for a server-side one (ServerSide, what a KIP-848 coordinator
// runs) the previous target. It runs the assignor over successive rounds,
// each result fed back as the members' claims, with up to Options.Changes
// changes of the group between rounds (a member joins, leaves, changes its
// subscription, restarts with or without a static instance ID, claims at a
// stale generation; a topic grows or is created), and then lets the group
// settle until a fixed point.
//
// Every round is judged on validity, which every assignor must have: each
// partition given at most once, only to members of the group, only of
// topics the member subscribes to and that exist, every member present in
// the result, no error and no panic for a valid group, no call longer than
// Options.Timeout, the input left unmodified, and the same result for the
// same group (unless Options.Nondeterministic). Then each declared
// Guarantee: Complete, Balanced, TopicBalanced, Sticky, CoPartitioned,
// RackAligned, NoBackAndForth, CooperativeHandoff, ConvergesWithin(n), or
// one of your own (Property). Completeness and balance are judged on
// settled rounds only (Round.Settled): a cooperative assignor leaves what
// moves unassigned for a round.
//
// A failure names the guarantee and why, the round and what came before
// it, and prints the group in a text form that ParseGroup reads:
//
//	fuzz: assignor first-subscriber breaks Balanced in round 2: Balance: a-0 [m00 n01]: m00 owns 2 and n01 owns 0; a-0 could move
//	before it:
//	  round 1 assigned m00:{a-0 a-1}
//	  then n01 joined, subscribing to [a]
//	the group of round 2 (fuzz.ParseGroup reads it):
//	  topics a:2
//	  member m00 generation=1 topics=a owned=a-0,a-1
//	  member n01 generation=-1 topics=a
//	assigned: m00:{a-0 a-1} n01:{}
//
// rapid shrinks the case first and prints its seed and the command that
// replays it (-rapid.seed, -rapid.failfile). Pin a counterexample in a
// table test with ParseGroup and Judge. FuzzAssignor is the same check as
// a native fuzz target (go test -fuzz), AssignorProperty the rapid
// property to compose with your own, and Find returns the failure instead
// of failing a test (for tools, and for tests that expect one).
//
// # Protocols
//
// Protocol runs a classic embedded protocol of yours (model/classic
// Protocol: what every member's leader runs each round, Designs I to III
// are ones) in the closed worlds this project checks its own protocols in,
// every member running it over the classic group membership protocol:
// first the model checker explores a small world exhaustively (Bounds.Check:
// members joining, crashing and leaving, lost messages; every safety law,
// convergence and the bounded-rounds law), then rapid walks a larger one
// at random (Bounds.Random), judging every step and, once the environment
// falls quiet, convergence. CoordinatorAssignor does the same for a
// server-side assignor run by the next-gen (KIP-848) coordinator. Each law
// broken is written as a scenario file under Bounds.Dir (by default
// testdata/rebalance): commit it, and ReplayProtocol or ReplayAssignor
// replays it as a regression test. FindProtocol and FindCoordinatorAssignor
// return the failures instead. An assignor can run as a protocol with
// model/classic/policy: policy.Eager(a), or policy.CooperativeWith(a).
//
// Package fuzz/franzgo adapts franz-go's kgo.GroupBalancers to assignors
// (and the project's assignors and protocols to kgo balancers); its tests
// run franz-go's four balancers through this package. docs/fuzzing.md has
// what they found and a worked example of a new policy.
package fuzz
