package node

// Phase is where a member node is, as the closed world (model/world) needs
// to know it: whether it rebalances, holds a settled assignment, or is done.
// A member reads its phase off its state machine (Machine.Phases), so the
// phase of each state is written once, beside the state's moves.
type Phase uint8

// The phases.
const (
	// Active: in the group, or on its way in, and not between a JoinGroup
	// and the end of its SyncGroup (or the family has no such phase).
	Active Phase = iota
	// Rebalancing: between sending a JoinGroup and the end of its
	// SyncGroup (the classic protocol); the group is not quiet.
	Rebalancing
	// Settled: in the group with an assignment, not rebalancing.
	Settled
	// Left: the member left the group and does nothing more.
	Left
	// Failed: the member gave up (a fatal error) and does nothing more.
	Failed
)

// Done reports whether a member in phase p never acts again.
func (p Phase) Done() bool { return p == Left || p == Failed }

var phaseNames = Enum[Phase]{Type: "phase", Names: []string{"active", "rebalancing", "settled", "left", "failed"}}

// String names the phase.
func (p Phase) String() string { return phaseNames.Name(p) }
