package world

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/classic"
)

// ActionKind is one kind of step the world can take.
type ActionKind uint8

// The actions. Deliver and FireNext are the protocol's own steps; the rest
// are the environment's, each bounded by Bounds.
const (
	Deliver ActionKind = iota + 1
	FireNext
	Drop
	Duplicate
	Join
	Crash
	Restart
	Leave
	Resubscribe
)

var actionNames = [...]string{"?", "deliver", "fire", "drop", "dup", "add-member", "crash", "restart", "leave", "subscribe"}

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
	Index  int      // Deliver, Drop, Duplicate: the message's index in flight
	Member string   // Join, Crash, Restart, Leave, Resubscribe
	Topics []string // Resubscribe
}

// Bounds limits the environment actions of a run, so that every run is
// finite in everything but the protocol's own steps. Zero means none.
type Bounds struct {
	// Members are the processes that may join, with their configurations;
	// each joins at most once (Join) and may then crash, restart, leave.
	Members []classic.MemberConfig
	// Crashes, Restarts, Leaves, Resubscribes, Drops and Duplicates cap
	// each environment action over the whole run.
	Crashes, Restarts, Leaves, Resubscribes, Drops, Duplicates int
	// TopicChoices are the subscriptions Resubscribe may switch to.
	TopicChoices [][]string
}

// Used counts the environment actions a run has taken.
type Used struct {
	Crashes, Restarts, Leaves, Resubscribes, Drops, Duplicates int
}

// Enabled returns every action enabled in w under the bounds b given what
// was already used, in a deterministic order.
func (w *World) Enabled(b Bounds, u Used) []Action {
	var out []Action
	for i := range w.InFlight {
		out = append(out, Action{Kind: Deliver, Index: i})
	}
	if len(w.Timers) > 0 {
		out = append(out, Action{Kind: FireNext})
	}
	if u.Drops < b.Drops {
		for i := range w.InFlight {
			out = append(out, Action{Kind: Drop, Index: i})
		}
	}
	if u.Duplicates < b.Duplicates {
		for i := range w.InFlight {
			out = append(out, Action{Kind: Duplicate, Index: i})
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
			if st == classic.Left || st == classic.Failed {
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

// Apply takes action a, counting environment actions in u.
func (w *World) Apply(a Action, b Bounds, u *Used) error {
	switch a.Kind {
	case Deliver:
		return w.Deliver(a.Index)
	case FireNext:
		return w.FireTimer(0)
	case Drop:
		u.Drops++
		return w.Drop(a.Index)
	case Duplicate:
		u.Duplicates++
		return w.Duplicate(a.Index)
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

// String prints a as a line of the scenario language. Member joins print
// the member's name only; a replayable file declares the members' options
// with add-member.
func (a Action) String() string {
	switch a.Kind {
	case Deliver, Drop, Duplicate:
		return fmt.Sprintf("%s %d", a.Kind, a.Index)
	case FireNext:
		return "fire"
	case Resubscribe:
		return fmt.Sprintf("subscribe %s topics=(%s)", a.Member, strings.Join(a.Topics, ","))
	default:
		return fmt.Sprintf("%s %s", a.Kind, a.Member)
	}
}
