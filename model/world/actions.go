package world

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// ActionKind is one kind of step the world can take.
type ActionKind uint8

// The actions. Deliver, FireNext, CompleteRevocation, Consume and
// CommitLate are the protocol's own steps (an application finishing a
// revocation, processing a record or committing is part of the member);
// the rest are the environment's, each bounded by Bounds.
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
	BounceLeader
	// Consume: an application processes the next record of a partition
	// its member owns (only in a world with records, World.Records).
	Consume
	// CommitLate: an application commits the offsets of partitions it
	// gave up without committing (only with the CommitAfterRelease fault).
	CommitLate
	// Overrun: an application overruns the revocation it has pending
	// (Process.Overrun): timers fire while it revokes, so the rebalance
	// timeout may fence its member while it still works.
	Overrun
	// Migrate: a process is bounced onto the other group protocol (a step
	// of a rolling upgrade or of its rollback): it leaves gracefully and
	// starts again at once with the configuration the family's Migrator
	// gives. Only in a family that implements Migrator.
	Migrate
)

var actionNames = [...]string{"?", "deliver", "fire", "revoked", "drop", "dup", "add-member", "crash", "restart", "leave", "subscribe", "add-partition", "bounce", "consume", "commit", "overrun", "migrate"}

// String names the action kind as the scenario language does.
func (k ActionKind) String() string {
	if int(k) < len(actionNames) {
		return actionNames[k]
	}
	return fmt.Sprintf("action(%d)", k)
}

// Own reports whether k is one of the protocol's own steps.
func (k ActionKind) Own() bool {
	return k == Deliver || k == FireNext || k == CompleteRevocation || k == Consume || k == CommitLate
}

// Action is one step of the world.
type Action struct {
	Kind   ActionKind
	Index  int      // Deliver, Drop, Duplicate: the message's index in flight
	Member string   // Join, Crash, Restart, Leave, Resubscribe, CompleteRevocation, BounceLeader, Consume, CommitLate, Overrun, Migrate
	Topics []string // Resubscribe
	Topic  string   // AddPartition, Consume (with Index the partition)
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
	case AddPartition:
		return "add-partition " + a.Topic
	case Consume:
		return fmt.Sprintf("consume %s %s", a.Member, a.resource())
	default:
		return fmt.Sprintf("%s %s", a.Kind, a.Member)
	}
}

// resource is a Consume action's partition.
func (a Action) resource() spec.Resource {
	return spec.Resource{Topic: a.Topic, Partition: int32(a.Index)}
}

// Bounds limits the environment actions of a run, so that every run is
// finite in everything but the protocol's own steps. Zero means none.
type Bounds[P any] struct {
	// Members are the processes that may join, with their configurations,
	// sorted by name; each joins at most once (Join) and may then crash,
	// restart, leave.
	Members []P
	// Crashes, Restarts, Leaves, Resubscribes, Drops, Duplicates,
	// AddPartitions, Overruns and Migrations cap each environment action
	// over the whole run.
	Crashes, Restarts, Leaves, Resubscribes, Drops, Duplicates, AddPartitions, Overruns, Migrations int
	// TopicChoices are the subscriptions Resubscribe may switch to.
	TopicChoices [][]string
	// Prompt makes the network faster than every timer: a timer fires
	// only when no message is in flight. Without it a message may stay in
	// flight while any number of timers fire, so a slow network alone
	// expires sessions and the generations grow without bound. With it, a
	// message that arrives too late is modelled by losing it (Drop).
	Prompt bool
	// PromptApps makes the applications of processes that are not Slow
	// faster than every timer: a timer fires only when none of them has a
	// revocation pending. Without it an application may take any time to
	// revoke, so the rebalance timeout may fence one revoking member after
	// another forever. With it, an application that overruns the
	// rebalance timeout is a Slow process, or one revocation of it an
	// Overrun action.
	PromptApps bool
}

// PromptNetwork returns b with the network Timely's time clause judges:
// in order (the family's own), faster than every timer, and losing and
// duplicating nothing.
func (b Bounds[P]) PromptNetwork() Bounds[P] {
	b.Prompt, b.Drops, b.Duplicates, b.Overruns = true, 0, 0, 0
	return b
}

// Used counts the environment actions a run has taken.
type Used struct {
	Crashes, Restarts, Leaves, Resubscribes, Drops, Duplicates, AddPartitions, Overruns, Migrations int
	// LeaderBounces counts BounceLeader actions (the model checker's).
	LeaderBounces int
}

// deliverable returns the indexes of the messages that may be delivered
// next under the family's network.
func (w *World[M, T, C, P]) deliverable(out []int) []int {
	switch w.Family.Network() {
	case Connections:
		for i, e := range w.InFlight {
			if !slices.ContainsFunc(w.InFlight[:i], func(f node.Envelope[M]) bool { return f.From == e.From && f.To == e.To }) {
				out = append(out, i)
			}
		}
	default:
		var senderBuf [16]string
		senders := senderBuf[:0]
		for i, e := range w.InFlight {
			if e.To == node.CoordinatorNode {
				if slices.Contains(senders, e.From) {
					continue
				}
				senders = append(senders, e.From)
			}
			out = append(out, i)
		}
	}
	return out
}

// Enabled returns every action enabled in w under the bounds b given what
// was already used, in a deterministic order: deliveries, the next timer,
// completed revocations, lost and duplicated messages, grown topics, then
// each member's joins, restarts, crashes, leaves and subscription
// changes.
func (w *World[M, T, C, P]) Enabled(b Bounds[P], u Used) []Action { return w.AppendEnabled(nil, b, u) }

// AppendEnabled appends the actions Enabled returns to out.
func (w *World[M, T, C, P]) AppendEnabled(out []Action, b Bounds[P], u Used) []Action {
	var headBuf [16]int
	heads := w.deliverable(headBuf[:0])
	for _, i := range heads {
		out = append(out, Action{Kind: Deliver, Index: i})
	}
	if len(w.Timers) > 0 && (!b.Prompt || len(w.InFlight) == 0) && (!b.PromptApps || !w.promptRevoking()) {
		out = append(out, Action{Kind: FireNext})
	}
	for i, p := range w.procs {
		if p.Node != nil && !p.Revoking.IsEmpty() {
			out = append(out, Action{Kind: CompleteRevocation, Member: w.names[i]})
		}
	}
	if w.Records > 0 {
		for _, name := range w.Names() {
			for _, r := range w.consumable(name) {
				out = append(out, Action{Kind: Consume, Member: name, Topic: r.Topic, Index: int(r.Partition)})
			}
		}
		for _, name := range w.committing() {
			out = append(out, Action{Kind: CommitLate, Member: name})
		}
	}
	connections := w.Family.Network() == Connections
	if u.Drops < b.Drops {
		if connections {
			for _, i := range heads {
				out = append(out, Action{Kind: Drop, Index: i})
			}
		} else {
			for i := range w.InFlight {
				out = append(out, Action{Kind: Drop, Index: i})
			}
		}
	}
	if u.Duplicates < b.Duplicates {
		if connections {
			for _, i := range heads {
				out = append(out, Action{Kind: Duplicate, Index: i})
			}
		} else {
			for i, env := range w.InFlight {
				if env.From == node.CoordinatorNode {
					out = append(out, Action{Kind: Duplicate, Index: i})
				}
			}
		}
	}
	if u.AddPartitions < b.AddPartitions {
		for _, t := range w.Topics.Names() {
			out = append(out, Action{Kind: AddPartition, Topic: t})
		}
	}
	for _, cfg := range b.Members {
		name := w.Family.MemberName(cfg)
		p := w.Process(name)
		switch {
		case p == nil:
			out = append(out, Action{Kind: Join, Member: name})
		case p.Node == nil:
			if u.Restarts < b.Restarts {
				out = append(out, Action{Kind: Restart, Member: name})
			}
		default:
			ph := p.Node.Phase()
			if ph == Left && w.Family.RestartLeft() && u.Restarts < b.Restarts {
				// A process that left may start again: for a static member
				// this is the bounce under the same instance id.
				out = append(out, Action{Kind: Restart, Member: name})
			}
			if ph.Done() {
				continue
			}
			if u.Crashes < b.Crashes {
				out = append(out, Action{Kind: Crash, Member: name})
			}
			if u.Leaves < b.Leaves {
				out = append(out, Action{Kind: Leave, Member: name})
			}
			if u.Overruns < b.Overruns && !p.Revoking.IsEmpty() && !p.Slow && !p.Overrun {
				out = append(out, Action{Kind: Overrun, Member: name})
			}
			if u.Migrations < b.Migrations {
				if _, ok := w.migrated(*p.config); ok {
					out = append(out, Action{Kind: Migrate, Member: name})
				}
			}
			if u.Resubscribes < b.Resubscribes {
				for _, ts := range b.TopicChoices {
					if !slices.Equal(ts, w.Family.MemberTopics(*p.config)) {
						out = append(out, Action{Kind: Resubscribe, Member: name, Topics: ts})
					}
				}
			}
		}
	}
	return out
}

// Migrator is a family whose processes can move between two group
// protocols (model/mixed: the classic protocol and KIP-848's): Migrated
// returns the configuration of cfg's process on the other protocol, ok
// false where it has none. The world's Migrate action and the scenario
// verbs that bounce a process onto the other protocol use it.
type Migrator[P any] interface {
	Migrated(cfg P) (P, bool)
}

// migrated is the family's Migrated of cfg, ok false for a family that
// is no Migrator.
func (w *World[M, T, C, P]) migrated(cfg P) (P, bool) {
	if m, ok := w.Family.(Migrator[P]); ok {
		return m.Migrated(cfg)
	}
	return cfg, false
}

// Migrate bounces the live process name onto the other protocol of a
// Migrator family (a Migrate action): the old incarnation leaves
// gracefully, its application finishing what it revokes (and committing
// it) before the process stops, and one on the other protocol starts at
// once.
func (w *World[M, T, C, P]) Migrate(name string) error {
	p, err := w.live(name)
	if err != nil {
		return err
	}
	cfg, ok := w.migrated(*p.config)
	if !ok {
		return fmt.Errorf("member %s cannot migrate: the %s family has one protocol", name, w.Family.Name())
	}
	w.stepMember(name, node.Leave{})
	if p := w.Process(name); !p.Revoking.IsEmpty() && p.Node != nil && !p.Node.Phase().Done() {
		if err := w.CompleteRevocation(name); err != nil {
			return err
		}
	}
	return w.restartAs(name, cfg)
}

// promptRevoking reports whether a live process whose application is not
// Slow has a revocation pending.
func (w *World[M, T, C, P]) promptRevoking() bool {
	for _, p := range w.procs {
		if p.Node != nil && !p.Slow && !p.Overrun && !p.Revoking.IsEmpty() {
			return true
		}
	}
	return false
}

// Apply takes action a, counting environment actions in u. An
// environment action also sets ActedMidRound (a lost or duplicated
// message too: a run with one is not judged on time at all).
func (w *World[M, T, C, P]) Apply(a Action, b Bounds[P], u *Used) error {
	if !a.Kind.Own() {
		w.ActedMidRound = w.rebalancing()
	}
	switch a.Kind {
	case Deliver:
		return w.Deliver(a.Index)
	case FireNext:
		return w.FireTimer(0)
	case CompleteRevocation:
		return w.CompleteRevocation(a.Member)
	case Consume:
		return w.Consume(a.Member, a.resource())
	case CommitLate:
		return w.CommitReleased(a.Member)
	case Drop:
		u.Drops++
		return w.Drop(a.Index)
	case Duplicate:
		u.Duplicates++
		return w.Duplicate(a.Index)
	case AddPartition:
		if _, ok := w.Topics[a.Topic]; !ok {
			return fmt.Errorf("no topic %s", a.Topic)
		}
		u.AddPartitions++
		t := maps.Clone(w.Topics)
		t[a.Topic]++
		return w.UpdateMetadata(t)
	case Join:
		for _, cfg := range b.Members {
			if w.Family.MemberName(cfg) == a.Member {
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
	case Overrun:
		u.Overruns++
		return w.OverrunRevocation(a.Member)
	case Resubscribe:
		u.Resubscribes++
		return w.Subscribe(a.Member, a.Topics)
	case Migrate:
		u.Migrations++
		return w.Migrate(a.Member)
	case BounceLeader:
		if w.LeaderProcess() != a.Member {
			return fmt.Errorf("%s does not lead the group", a.Member)
		}
		u.LeaderBounces++
		return w.Bounce(a.Member, *w.Process(a.Member).config)
	}
	return fmt.Errorf("unknown action %d", a.Kind)
}

// Pick chooses one of acts with choose (an index in [0, n)): three times in
// four one of the protocol's own steps when any is enabled, otherwise an
// environment action, then uniformly within the group. Random walks use it
// to get through whole rebalances between environment events.
func Pick(acts []Action, choose func(n int) int) Action {
	var own, env []Action
	for _, a := range acts {
		if a.Kind.Own() {
			own = append(own, a)
		} else {
			env = append(env, a)
		}
	}
	group := own
	if len(own) == 0 || (len(env) > 0 && choose(4) == 0) {
		group = env
	}
	return group[choose(len(group))]
}
