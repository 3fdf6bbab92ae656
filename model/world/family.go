// Package world is the closed world of every protocol family, written once:
// one group coordinator, member processes (each a configuration that
// survives crashes and a node that does not), the messages in flight
// between them, the timers they armed, the applications' pending
// revocations and a clock, driven by explicit actions (deliver, drop or
// duplicate a message, fire a timer, an application finishing a
// revocation; a member joining, crashing, restarting, leaving, changing its
// subscription; a topic growing; a leader bouncing). It is deterministic:
// the same actions on the same world give the same world.
//
// A family (model/classic/world, model/nextgen/world) plugs its nodes in
// through the Family, Coordinator and Member interfaces and says what is
// its own: how a member starts, how its network delivers, which events its
// nodes take, how its rebalance rounds are counted and what balance its
// assignors promise. Everything else (the network, the timers, the
// incarnations, the environment's actions and their bounds, the
// copy-on-write fork, the laws after every action, the model the checker
// explores, the scenario language) is here.
//
// The world maps every state to a spec.View and checks the laws: the state
// laws after every action, the step laws across every action, the round
// laws on every assignment round a node reports, and the coordinator's own
// invariants.
package world

import (
	"fmt"
	"github.com/rebalance-ref/rebalance/model/sim"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// Phase is where a member is, as the world needs to know it (node.Phase:
// a member reads it off its state machine).
type Phase = node.Phase

// The phases (node.Phase's).
const (
	Active      = node.Active
	Rebalancing = node.Rebalancing
	Settled     = node.Settled
	Left        = node.Left
	Failed      = node.Failed
)

// Coordinator is a family's group coordinator as the world drives it. M, T
// and C are the family's message, timer and callback types.
type Coordinator[M fmt.Stringer, T sim.Timer, C fmt.Stringer] interface {
	// StepInto applies one input (see the family's coordinator), writing
	// what the coordinator asks for into *out, which it empties first. It
	// keeps no reference to out or its lists: the world steps every node
	// into buffers it reuses (World.stepOutputs).
	StepInto(node.Input, *node.Output[M, T, C])
	// CloneCoordinator returns a deep copy that shares nothing mutable.
	CloneCoordinator() Coordinator[M, T, C]
	// IsMember reports whether id is a current member.
	IsMember(spec.MemberID) bool
	// MemberNode is the node a member's last accepted request came from.
	MemberNode(spec.MemberID) string
	// IsMemberAt reports IsMember(id) && MemberNode(id) == node, in one
	// lookup: the world asks it for every live process at every step
	// that changed the coordinator.
	IsMemberAt(id spec.MemberID, node string) bool
	// Leader is the member that assigns, "" when there is none (always
	// "" where the coordinator assigns itself).
	Leader() spec.MemberID
	// Stable reports whether the group is between rebalances.
	Stable() bool
	// Summary prints the coordinator's state on one line, for Ownership.
	Summary() string
	// Protocol names the embedded protocol selected, for round records
	// ("" where there is none).
	Protocol() string
	// CheckInvariants returns the first broken invariant, or nil.
	CheckInvariants() error
	// Encode writes the coordinator's canonical encoding.
	Encode(e *canon.Encoder)
	// String prints the whole state.
	String() string
}

// Forker is a coordinator that can also fork: copy itself for a world
// that will not change the original while the copy is in use, sharing
// what the copy has not written yet (cheaper than CloneCoordinator).
type Forker[M fmt.Stringer, T sim.Timer, C fmt.Stringer] interface {
	ForkCoordinator() Coordinator[M, T, C]
}

// Member is a family's member node as the world drives it.
type Member[M fmt.Stringer, T sim.Timer, C fmt.Stringer] interface {
	// StepInto applies one input (see the family's member), as the
	// coordinator's StepInto does.
	StepInto(node.Input, *node.Output[M, T, C])
	// CloneMember returns a deep copy that shares nothing mutable. into,
	// when not nil, is a member of the same family that nothing uses any
	// more (a discarded world's, Model.Discard): the copy may take its
	// memory.
	CloneMember(into Member[M, T, C]) Member[M, T, C]
	// View is the member as the laws see it (Current and Fenced are the
	// world's to fill).
	View() spec.MemberView
	// Phase is where the member is.
	Phase() Phase
	// ID is the member's current member id, "" when it has none.
	ID() spec.MemberID
	// Generation is the generation (or epoch) the member is at now, which
	// a round it reports assigns.
	Generation() spec.Generation
	// Encode writes the member's canonical encoding.
	Encode(e *canon.Encoder)
	// String prints the whole state.
	String() string
}

// Network says which messages in flight may be delivered, lost or
// duplicated next, and so how the network is encoded.
type Network uint8

// The networks.
const (
	// Connections: every (sender, receiver) pair is a connection that
	// delivers in order, as TCP does; only the oldest message of each may
	// be delivered, lost or duplicated (the classic family).
	Connections Network = iota + 1
	// Requests: each member's requests reach the coordinator in the order
	// sent and are never duplicated; any message may be lost; responses
	// may be delivered in any order and duplicated (the next-gen family,
	// whose members take only the response to the request they wait for).
	Requests
)

// Family is one protocol family: everything the world, its model and its
// scenario language need to know about it. M, T and C are the family's
// message, timer and callback types; P is its member configuration.
type Family[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any] interface {
	// Name names the family ("classic", "nextgen").
	Name() string
	// Network is how the family's messages travel.
	Network() Network
	// NewMember starts incarnation k (1 for the first) of the process with
	// configuration cfg in a group over topics.
	NewMember(cfg P, k int, topics spec.Topics) (Member[M, T, C], error)
	// MemberName, MemberTopics and MemberInstance read a configuration;
	// WithTopics returns it with another subscription.
	MemberName(cfg P) string
	MemberTopics(cfg P) []string
	MemberInstance(cfg P) string
	WithTopics(cfg P, topics []string) P
	// EncodeConfig writes what of a configuration may differ between two
	// states of one model (its subscription), for the encoding.
	// SameConfig reports whether a and b are the same configuration but
	// for their names, for symmetry: the model checker may permute members
	// so configured. It must not report true of two configurations that
	// may behave differently; false where it cannot tell is safe (the
	// members are then not permuted).
	EncodeConfig(e *canon.Encoder, cfg P)
	SameConfig(a, b P) bool
	// EncodeMessage and EncodeTimer write a message's and a timer's
	// canonical encodings: every field, abstracted as its canon tag says
	// (correlation ids with Seq, instants with Instant, generations with
	// Generation), and the message's kind first.
	EncodeMessage(e *canon.Encoder, m M)
	EncodeTimer(e *canon.Encoder, t T)
	// RestartLeft reports whether a process that left may start again
	// (next-gen: a static member's bounce), besides a crashed one.
	RestartLeft() bool
	// CoordinatorTakesMetadata reports whether the coordinator takes
	// MetadataUpdate events (it computes assignments itself).
	CoordinatorTakesMetadata() bool
	// RemembersCoordinatorSteps reports whether the model checker keeps a
	// memo of the coordinator's steps (stepMemo): for a coordinator whose
	// step costs more than the memo's key, its lookup and the
	// coordinators it keeps alive.
	RemembersCoordinatorSteps() bool
	// RevocationDone is the event telling a member its application has
	// finished revoking rs; nil for a family whose revocations complete
	// within the callback.
	RevocationDone(rs spec.Set) node.Event
	// RevokeCallback classifies a callback for the application: the
	// resources the application must now revoke (and later report done),
	// or that it must forget a pending revocation (the member was fenced
	// or failed). A family whose revocations complete within the callback
	// returns nothing.
	RevokeCallback(cb C) (revoke spec.Set, forget bool)
	// LogTimer returns a line to log when a node arms t at at (now is the
	// world's clock), or "" for none.
	LogTimer(node string, t node.TimerCmd[T], now node.Millis) string
	// AdjustView lets the family correct a live member's view before the
	// world fills in Current and Fenced.
	AdjustView(mv spec.MemberView) spec.MemberView
	// Detects reports whether firing t is how the group learns of an
	// environment action (for the bounded-rounds count: see Model.Step).
	Detects(t T) bool
	// SessionExpiry reports whether t, fired at the coordinator, expires
	// the session of the member with id id (the Timely law).
	SessionExpiry(t T) (id spec.MemberID, ok bool)
	// Removes reports whether t, fired at the coordinator, takes member
	// id out of the group because it did not answer in time: its session,
	// or a next-gen member's rebalance timeout. Timely's time clause
	// discounts such a wait (World.CheckTimeBound).
	Removes(t T) (id spec.MemberID, ok bool)
	// TimeBound is Timely's time clause for the group as it is: c its
	// coordinator, members the configurations of its live processes,
	// topics the world's topics. ok is false for a protocol that states
	// none, which is then not judged.
	TimeBound(c Coordinator[M, T, C], members []P, topics spec.Topics) (b spec.TimeBound, ok bool)
	// LossesBeforeSessionExpiry is how many lost messages a run must have
	// before the Timely law tolerates a live member's session expiring:
	// spec.LostBeforeSessionExpiry, or fewer where the family's model of a
	// lost message says why.
	LossesBeforeSessionExpiry() int
	// LostCallback reports whether cb tells the application that the
	// member's resources are lost (the NoSpuriousLoss law).
	LostCallback(cb C) bool
	// Revoked returns the resources cb tells the application to give up
	// (it commits what it processed of them first), nil for any other
	// callback.
	Revoked(cb C) spec.Set
	// CommitRequest is the OffsetCommit request (its fencing half) that
	// member m, configured by cfg, sends to commit what it processed of
	// partitions: its member id and generation or epoch as it knows them
	// now. ok is false where the member has nothing to commit with (no
	// member id yet).
	CommitRequest(cfg P, m Member[M, T, C], partitions spec.Set) (req M, ok bool)
	// CommitError reads the coordinator's answer to a CommitRequest: the
	// verdict on the whole request and the partitions refused one by one
	// (next-gen, KIP-1251); ok is false for any other message.
	CommitError(m M) (code spec.ErrorCode, refused spec.Set, ok bool)
	// Rounds returns how many rebalance rounds (the unit of the family's
	// bounded-rounds law) a step took: assignment rounds sent (classic),
	// or member epoch bumps between the views before and after
	// (next-gen).
	Rounds(sent int, prev, next spec.View) int
	// RoundUnit names the unit for the law's detail ("assignment rounds",
	// "member epoch bumps").
	RoundUnit() string
	// Group runs the scenario command "group": it makes the group's world
	// from the family's options and sets s.W. AddMember runs "add-member":
	// it adds and starts a member configured by the family's options.
	Group(s *Script[M, T, C, P], args []Arg) error
	AddMember(s *Script[M, T, C, P], args []Arg) error
	// Verb runs a scenario command that is the family's own; handled is
	// false for a command the family does not know.
	Verb(s *Script[M, T, C, P], cmd string, args []Arg) (handled bool, err error)
}

// GenerationBumps counts the members of next whose generation is higher
// than in prev (a member missing from prev counts from NoGeneration): the
// unit of the bounded-rounds law of a family whose members move epoch by
// epoch (next-gen, and a mixed group).
func GenerationBumps(prev, next spec.View) int {
	n := 0
	for i := range next.Members {
		mv, old := &next.Members[i], spec.NoGeneration
		if p := prev.Find(mv.Name); p != nil {
			old = p.Generation
		}
		if mv.Generation > old {
			n++
		}
	}
	return n
}
