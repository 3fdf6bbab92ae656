package world

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/nextgen"
)

// ActionKind is one kind of step the world can take.
type ActionKind uint8

// The actions. Deliver, FireNext and CompleteRevocation are the system's
// own steps (the application finishing a revocation counts as one); the
// rest are the environment's, each bounded by Bounds.
const (
	Deliver ActionKind = iota + 1
	FireNext
	CompleteRevocation
	Drop
	Duplicate
	Join
	Crash
	Restart
	Leave
	Resubscribe
	AddPartition
)

var actionNames = [...]string{"?", "deliver", "fire", "revoked", "drop", "dup", "add-member", "crash", "restart", "leave", "subscribe", "add-partition"}

// String names the action kind as the scenario language does.
func (k ActionKind) String() string {
	if int(k) < len(actionNames) {
		return actionNames[k]
	}
	return fmt.Sprintf("action(%d)", k)
}

// Action is one step of the world.
type Action struct {
	Kind   ActionKind
	Index  int      // Deliver, Drop, Duplicate
	Member string   // member actions
	Topics []string // Resubscribe
	Topic  string   // AddPartition
}

// String prints a as a line of the scenario language.
func (a Action) String() string {
	switch a.Kind {
	case Deliver, Drop, Duplicate:
		return fmt.Sprintf("%s %d", a.Kind, a.Index)
	case FireNext:
		return "fire"
	case Resubscribe:
		return fmt.Sprintf("subscribe %s topics=(%s)", a.Member, strings.Join(a.Topics, ","))
	case AddPartition:
		return "add-partition " + a.Topic
	default:
		return fmt.Sprintf("%s %s", a.Kind, a.Member)
	}
}

// Bounds limits the environment actions of a run.
type Bounds struct {
	Members                                                                   []nextgen.MemberConfig
	Crashes, Restarts, Leaves, Resubscribes, Drops, Duplicates, AddPartitions int
	TopicChoices                                                              [][]string
	// Prompt makes the network faster than every timer: a timer fires
	// only when no message is in flight. Without it a message may stay
	// in flight while any number of timers fire, so a slow network alone
	// expires sessions and the epochs grow without bound. With it, a
	// message that arrives too late is modelled by losing it (Drop). The
	// model checker sets it; random walks leave it off.
	Prompt bool
	// PromptApps makes the applications of processes that are not Slow
	// faster than every timer, as Advance does: a timer fires only when
	// none of them has a revocation pending. Without it an application may
	// take any time to revoke, so the rebalance timeout may fence one
	// revoking member after another forever (each fence and rejoin asks
	// another member to revoke) and the epochs grow without bound. With
	// it, an application that overruns the rebalance timeout is a Slow
	// process. The model checker sets it; random walks leave it off.
	PromptApps bool
}

// Used counts the environment actions a run has taken.
type Used struct {
	Crashes, Restarts, Leaves, Resubscribes, Drops, Duplicates, AddPartitions int
}

// Enabled returns every action enabled in w under b given u, in a
// deterministic order.
func (w *World) Enabled(b Bounds, u Used) []Action {
	var out []Action
	// Requests travel over a connection: each member's requests arrive in
	// the order sent and are never duplicated (TCP). Responses may be
	// delivered in any order, lost or duplicated; a member takes only the
	// answer to the request it waits for (by correlation id).
	sender := map[string]bool{}
	for i, env := range w.InFlight {
		if env.To == nextgen.CoordinatorNode {
			if sender[env.From] {
				continue
			}
			sender[env.From] = true
		}
		out = append(out, Action{Kind: Deliver, Index: i})
	}
	if len(w.Timers) > 0 && (!b.Prompt || len(w.InFlight) == 0) && (!b.PromptApps || !w.promptRevoking()) {
		out = append(out, Action{Kind: FireNext})
	}
	for _, name := range w.Names() {
		if p := w.Processes[name]; p.Node != nil && !p.Revoking.IsEmpty() {
			out = append(out, Action{Kind: CompleteRevocation, Member: name})
		}
	}
	if u.Drops < b.Drops {
		for i := range w.InFlight {
			out = append(out, Action{Kind: Drop, Index: i})
		}
	}
	if u.Duplicates < b.Duplicates {
		for i, env := range w.InFlight {
			if env.From == nextgen.CoordinatorNode {
				out = append(out, Action{Kind: Duplicate, Index: i})
			}
		}
	}
	if u.AddPartitions < b.AddPartitions {
		for _, t := range w.Topics.Names() {
			out = append(out, Action{Kind: AddPartition, Topic: t})
		}
	}
	for _, cfg := range b.Members {
		p, ok := w.Processes[cfg.Name]
		switch {
		case !ok:
			out = append(out, Action{Kind: Join, Member: cfg.Name})
		case p.Node == nil:
			if u.Restarts < b.Restarts {
				out = append(out, Action{Kind: Restart, Member: cfg.Name})
			}
		default:
			st := p.Node.State()
			if st == nextgen.MemberLeft && u.Restarts < b.Restarts {
				// A process that left may start again: for a static member
				// this is the bounce (-2, then a new member id under the same
				// instance id).
				out = append(out, Action{Kind: Restart, Member: cfg.Name})
			}
			if st == nextgen.MemberLeft || st == nextgen.MemberFatal {
				continue
			}
			if u.Crashes < b.Crashes {
				out = append(out, Action{Kind: Crash, Member: cfg.Name})
			}
			if u.Leaves < b.Leaves {
				out = append(out, Action{Kind: Leave, Member: cfg.Name})
			}
			if u.Resubscribes < b.Resubscribes {
				for _, ts := range b.TopicChoices {
					if !slices.Equal(ts, p.Config.Topics) {
						out = append(out, Action{Kind: Resubscribe, Member: cfg.Name, Topics: ts})
					}
				}
			}
		}
	}
	return out
}

// promptRevoking reports whether a live process whose application is not
// Slow has a revocation pending.
func (w *World) promptRevoking() bool {
	for _, p := range w.Processes {
		if p.Node != nil && !p.Slow && !p.Revoking.IsEmpty() {
			return true
		}
	}
	return false
}

// Apply takes action a, counting environment actions in u.
func (w *World) Apply(a Action, b Bounds, u *Used) error {
	switch a.Kind {
	case Deliver:
		return w.Deliver(a.Index)
	case FireNext:
		return w.FireTimer(0)
	case CompleteRevocation:
		return w.CompleteRevocation(a.Member)
	case Drop:
		u.Drops++
		return w.Drop(a.Index)
	case Duplicate:
		u.Duplicates++
		return w.Duplicate(a.Index)
	case AddPartition:
		u.AddPartitions++
		t := maps.Clone(w.Topics)
		t[a.Topic]++
		w.UpdateMetadata(t)
		return nil
	case Join:
		for _, cfg := range b.Members {
			if cfg.Name == a.Member {
				return w.AddMember(cfg)
			}
		}
		return fmt.Errorf("no member %s in the bounds", a.Member)
	case Crash:
		u.Crashes++
		return w.Crash(a.Member)
	case Restart:
		u.Restarts++
		return w.Restart(a.Member)
	case Leave:
		u.Leaves++
		return w.Leave(a.Member)
	case Resubscribe:
		u.Resubscribes++
		return w.Subscribe(a.Member, a.Topics)
	}
	return fmt.Errorf("unknown action %d", a.Kind)
}

// Pick chooses one of acts with choose (an index in [0, n)): three times in
// four one of the system's own steps when any is enabled, otherwise an
// environment action, then uniformly within the group.
func Pick(acts []Action, choose func(n int) int) Action {
	var own, env []Action
	for _, a := range acts {
		switch a.Kind {
		case Deliver, FireNext, CompleteRevocation:
			own = append(own, a)
		default:
			env = append(env, a)
		}
	}
	group := own
	if len(own) == 0 || (len(env) > 0 && choose(4) == 0) {
		group = env
	}
	return group[choose(len(group))]
}
