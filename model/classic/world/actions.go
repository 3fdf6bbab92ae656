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
	BounceLeader
)

var actionNames = [...]string{"?", "deliver", "fire", "drop", "dup", "add-member", "crash", "restart", "leave", "subscribe", "bounce"}

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
	// FIFO makes every connection (a sender and a receiver address)
	// deliver in order, as TCP does: only the oldest message of each
	// connection may be delivered, lost or duplicated. Without it any
	// message in flight may be. The model checker sets it: Kafka's
	// clients and coordinator talk over TCP, and the orders it rules out
	// multiply the state space without adding behaviours Kafka has.
	FIFO bool
	// Prompt makes the network faster than every timer: a timer fires
	// only when no message is in flight. Without it a message may stay
	// in flight while any number of timers fire, so a slow network alone
	// expires sessions and the generations grow without bound. With it,
	// a message that arrives too late is modelled by losing it (Drop).
	Prompt bool
}

// Used counts the environment actions a run has taken.
type Used struct {
	Crashes, Restarts, Leaves, Resubscribes, Drops, Duplicates int
	// LeaderBounces counts BounceLeader actions (the model checker's).
	LeaderBounces int
}

// Enabled returns every action enabled in w under the bounds b given what
// was already used, in a deterministic order.
func (w *World) Enabled(b Bounds, u Used) []Action {
	var out []Action
	heads := w.deliverable(b.FIFO)
	for _, i := range heads {
		out = append(out, Action{Kind: Deliver, Index: i})
	}
	if len(w.Timers) > 0 && (!b.Prompt || len(w.InFlight) == 0) {
		out = append(out, Action{Kind: FireNext})
	}
	if u.Drops < b.Drops {
		for _, i := range heads {
			out = append(out, Action{Kind: Drop, Index: i})
		}
	}
	if u.Duplicates < b.Duplicates {
		for _, i := range heads {
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

// deliverable returns the indexes of the messages that may be delivered
// next: every message, or with fifo the oldest of each connection.
func (w *World) deliverable(fifo bool) []int {
	out := make([]int, 0, len(w.InFlight))
	for i, e := range w.InFlight {
		if fifo && slices.ContainsFunc(w.InFlight[:i], func(f classic.Envelope) bool { return f.From == e.From && f.To == e.To }) {
			continue
		}
		out = append(out, i)
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
	case BounceLeader:
		if w.leaderProcess() != a.Member {
			return fmt.Errorf("%s does not lead the group", a.Member)
		}
		u.LeaderBounces++
		return w.Bounce(a.Member, nil)
	}
	return fmt.Errorf("unknown action %d", a.Kind)
}

// leaderProcess returns the name of the live process whose member id leads
// the coordinator's current generation, "" when none does.
func (w *World) leaderProcess() string {
	id := w.Coordinator.Leader()
	if id == "" || !w.Coordinator.IsMember(id) {
		return ""
	}
	addr := w.Coordinator.MemberNode(id)
	p, ok := w.Processes[processName(addr)]
	if !ok || p.Node == nil || p.Address() != addr {
		return ""
	}
	return p.Config.Name
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
