package spec

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Nanos is a point on an observer's monotonic clock, in nanoseconds from an
// origin the history chooses (for example the start of a test). Histories
// compare Nanos of different processes, so every observation of one history
// must come from one clock.
type Nanos int64

// ObservationKind says what an Observation records.
type ObservationKind uint8

// The observations. The first four are what a member process reports
// (Kafka's ConsumerRebalanceListener callbacks, and its death); Joined and
// Removed are what the group coordinator reports; Quiet is what the
// environment reports.
const (
	// Assigned: Process was given Resources (onPartitionsAssigned, called
	// at Call and returned at Return). It owns them from Call on.
	Assigned ObservationKind = iota + 1
	// Revoked: Process gave Resources up after finishing its work on them
	// (onPartitionsRevoked: it commits, then returns). It owns them until
	// Return.
	Revoked
	// Lost: Process learnt that Resources were already taken from it and
	// dropped them without committing (onPartitionsLost). It owns them
	// until Return.
	Lost
	// Crashed: Process died at Call (Return equals Call). It owns nothing
	// from then on; observations of the same Process after it belong to its
	// next incarnation.
	Crashed
	// Joined: the coordinator counts Member as a member of the group from
	// Call on (Return equals Call). Process is "" when the coordinator
	// does not know which process holds the id.
	Joined
	// Removed: the coordinator stopped counting Member at Call (it left,
	// its session or rebalance timeout expired, or another incarnation
	// replaced it). From then on the protocol fences its work: commits
	// under its generation or epoch are rejected.
	Removed
	// Quiet: from Call on nothing changes outside the group (no process
	// starts, stops or crashes, no subscription or topic changes), so the
	// group must converge: the convergence laws are judged at the end of
	// the history.
	Quiet
	// Subscribed: Process subscribes to Topics from Call on (a
	// subscription change; History.Subscriptions holds each process's
	// first). What it owns of a topic it no longer subscribes to counts
	// as being revoked (spec.MemberView.Revoking) until it releases it.
	Subscribed
	// Reached: Process reached Generation (classic) or member epoch
	// (next-gen) under Member at Call: a JoinGroup or heartbeat response
	// that the client acted on, with no callback of its own (a member
	// whose assignment did not change). It sets the process's member id
	// and generation as a callback's call does.
	Reached
)

var observationNames = [...]string{"?", "assigned", "revoked", "lost", "crashed", "joined", "removed", "quiet", "subscribed", "reached"}

// String names the kind ("assigned", "revoked", ...).
func (k ObservationKind) String() string {
	if int(k) < len(observationNames) {
		return observationNames[k]
	}
	return fmt.Sprintf("observation(%d)", uint8(k))
}

// Observation is one thing seen about a group at a real time: a process's
// rebalance callback (with the times it was called and returned), its
// death, a membership change the coordinator made, or the environment
// falling quiet.
type Observation struct {
	Kind ObservationKind
	// Process is the stable name of the member process (it survives
	// restarts and new member ids); "" for Quiet and, where unknown, for
	// Joined and Removed.
	Process string
	// Member is the member id the process held when the observation was
	// made (Assigned, Revoked, Lost), or the id the coordinator counts or
	// stops counting (Joined, Removed). "" where unknown.
	Member MemberID
	// Generation is the process's generation (classic) or member epoch
	// (next-gen) when the callback was called; NoGeneration where unknown.
	Generation Generation
	// Resources is what Assigned, Revoked or Lost is about; empty for the
	// other kinds.
	Resources Set
	// Topics is the subscription a Subscribed observation starts (any
	// order; empty for none); empty for the other kinds.
	Topics []string
	// Call and Return bound the observation: Call <= Return. Point events
	// (Crashed, Joined, Removed, Quiet, Subscribed, Reached) have Call ==
	// Return.
	Call, Return Nanos
	// Source says where the observation was read from (a trace's line
	// number), 0 when nowhere. The checks carry it into their reports and
	// never judge by it.
	Source int
}

// String prints the observation on one line:
//
//	[1200..1350] A assigned {t-0 t-1} member=A-1 gen=2
func (o Observation) String() string {
	var b strings.Builder
	if o.Call == o.Return {
		fmt.Fprintf(&b, "[%d]", o.Call)
	} else {
		fmt.Fprintf(&b, "[%d..%d]", o.Call, o.Return)
	}
	if o.Process != "" {
		b.WriteString(" " + o.Process)
	}
	b.WriteString(" " + o.Kind.String())
	if o.Kind == Subscribed {
		b.WriteString(" [" + strings.Join(o.Topics, " ") + "]")
	}
	if !o.Resources.IsEmpty() {
		b.WriteString(" " + o.Resources.String())
	}
	if o.Member != "" {
		b.WriteString(" member=" + string(o.Member))
	}
	if o.Generation != NoGeneration && (o.Kind <= Lost || o.Kind == Reached) {
		fmt.Fprintf(&b, " gen=%d", o.Generation)
	}
	return b.String()
}

// History is everything observed about one group: the universe, what each
// process subscribes to, and the observations.
type History struct {
	// Topics is the resource universe at the end of the history. Topics
	// may be created or grow within a history, never shrink; the laws
	// judge every view against this final universe.
	Topics Topics
	// Subscriptions holds each process's subscribed topics (it does not
	// change within one history).
	Subscriptions map[string][]string
	// CoordinatorObserved says that Observations hold every membership
	// change the coordinator made (Joined and Removed) since before the
	// first process started. Only then can a fenced zombie be told apart
	// from a second owner; a history recorded from client callbacks alone
	// leaves it false and has no Joined or Removed.
	CoordinatorObserved bool
	// Observations in any order across processes; the checks order them
	// by time. The observations of one process must be listed in the
	// order they happened, which decides between events of one process at
	// the same instant.
	Observations []Observation
}

// Validate returns an error naming every malformed observation (by its
// index): an unknown kind, Return before Call, a point event with
// Return != Call, a callback without a process or with an invalid
// resource set, resources on an observation that is not a callback, a
// generation below NoGeneration, a Joined or Removed without a member or
// in a history that does not claim CoordinatorObserved, a Subscribed
// without a process, a Reached without a process, member or generation,
// topics on an observation that is not a Subscribed, a process with no
// subscription. A history that validates can be checked; one that does not
// is refused whole rather than judged in part.
func (h History) Validate() error {
	var errs []error
	bad := func(i int, o Observation, format string, args ...any) {
		errs = append(errs, fmt.Errorf("observation %d (%s): %s", i, o, fmt.Sprintf(format, args...)))
	}
	for i, o := range h.Observations {
		switch o.Kind {
		case Assigned, Revoked, Lost:
			if o.Process == "" {
				bad(i, o, "a callback needs a process")
			}
			if err := o.Resources.Validate(); err != nil {
				bad(i, o, "%v", err)
			}
		case Crashed:
			if o.Process == "" {
				bad(i, o, "a crash needs a process")
			}
		case Joined, Removed:
			if o.Member == "" {
				bad(i, o, "a membership change needs a member id")
			}
			if !h.CoordinatorObserved {
				bad(i, o, "a membership change in a history that does not claim CoordinatorObserved")
			}
		case Subscribed:
			if o.Process == "" {
				bad(i, o, "a subscription change needs a process")
			}
		case Reached:
			if o.Process == "" || o.Member == "" {
				bad(i, o, "a generation reached needs a process and a member id")
			}
			if o.Generation < 0 {
				bad(i, o, "a generation reached needs a generation")
			}
		case Quiet:
		default:
			bad(i, o, "unknown kind")
			continue
		}
		if o.Kind > Lost && !o.Resources.IsEmpty() {
			bad(i, o, "only a callback is about resources")
		}
		if o.Kind != Subscribed && len(o.Topics) > 0 {
			bad(i, o, "only a subscription change has topics")
		}
		if o.Generation < NoGeneration {
			bad(i, o, "generation %d is below %d", o.Generation, NoGeneration)
		}
		if o.Return < o.Call {
			bad(i, o, "returns at %d before it is called at %d", o.Return, o.Call)
		}
		if o.Kind >= Crashed && o.Return != o.Call {
			bad(i, o, "a point event must have Return == Call")
		}
		if o.Process != "" && o.Kind != Joined && o.Kind != Removed {
			if _, ok := h.Subscriptions[o.Process]; !ok {
				bad(i, o, "process %q has no subscription", o.Process)
			}
		}
	}
	return errors.Join(errs...)
}

// Processes returns the names of the processes with a subscription,
// sorted.
func (h History) Processes() []string {
	return slices.Sorted(maps.Keys(h.Subscriptions))
}
