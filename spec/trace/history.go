package trace

import (
	"maps"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// Carried says what a trace carries, which decides which laws can be
// judged from it.
type Carried struct {
	// Ownership: the trace has callbacks (assigned, revoked, lost).
	Ownership bool
	// Generations: some callback or generation event carries a generation.
	Generations bool
	// Universe: the trace declares its topics (topic events), so what
	// exists is known.
	Universe bool
	// Unsubscribed lists the processes whose subscription the trace does
	// not give (no join or restart with topics before their first
	// callback), sorted.
	Unsubscribed []string
	// Quiet is the line of the last quiet event, 0 if none.
	Quiet int
	// Wire counts request and response events.
	Wire int
	// Processed and Commits count the delivery events (processed,
	// commit): Trace.Deliveries returns them.
	Processed int
	Commits   int
}

// Nanos converts a time of t (in its header's unit) to nanoseconds.
func (t *Trace) Nanos(v int64) spec.Nanos { return spec.Nanos(v * Units[t.Header.Unit]) }

// History returns the spec.History that t describes, and what t carries.
// Each observation's Source is its event's line.
//
//   - assigned, revoked, lost → the callbacks, called at Call (T when
//     absent) and returning at T;
//   - crash → Crashed; generation → Reached; subscribe → Subscribed;
//     joined, removed → Joined, Removed; quiet → Quiet;
//   - join and restart give a process's subscription: the first is
//     Subscriptions, a later one that differs a Subscribed;
//   - topic events make the universe (History.Topics is the last);
//     without them the universe is what the callbacks name (every topic
//     with its highest partition), and Carried.Universe is false;
//   - a process whose subscription the trace does not give subscribes, for
//     the laws, to every topic, and is listed in Carried.Unsubscribed;
//   - processed and commit carry no observation: the delivery laws read
//     them from Deliveries, and Carried counts them;
//   - leave, fenced, revoking, request and response carry no observation:
//     they are evidence for a reader of the trace, not for the laws.
//
// t must come from Read (or have been written by a Recorder).
func (t *Trace) History() (spec.History, Carried) {
	at := t.Nanos
	h := spec.History{Topics: spec.Topics{}, Subscriptions: map[string][]string{}, CoordinatorObserved: t.Header.Coordinator,
		Observations: make([]spec.Observation, 0, len(t.Events))}
	var c Carried
	seen := map[string]bool{} // processes with an observation or a subscription
	unsubscribed := map[string]bool{}
	named := spec.Topics{} // the universe the callbacks name
	subscribe := func(e Event) {
		switch cur, ok := h.Subscriptions[e.Process]; {
		case !ok && !seen[e.Process]:
			h.Subscriptions[e.Process] = slices.Sorted(slices.Values(e.Topics))
		case !ok:
			// Its callbacks came first: the subscription is unknown
			// until now.
			h.Subscriptions[e.Process] = nil
			unsubscribed[e.Process] = true
			fallthrough
		case !slices.Equal(cur, slices.Sorted(slices.Values(e.Topics))):
			h.Observations = append(h.Observations, spec.Observation{Kind: spec.Subscribed, Process: e.Process, Generation: spec.NoGeneration,
				Topics: slices.Sorted(slices.Values(e.Topics)), Call: at(e.T), Return: at(e.T), Source: e.Line})
		}
		seen[e.Process] = true
	}
	for _, e := range t.Events {
		o := spec.Observation{Process: e.Process, Member: spec.MemberID(e.Member), Generation: spec.NoGeneration,
			Call: at(e.T), Return: at(e.T), Source: e.Line}
		if e.Generation != nil {
			o.Generation = spec.Generation(*e.Generation)
			c.Generations = true
		}
		switch e.Kind {
		case Join, Restart:
			if len(e.Topics) > 0 {
				subscribe(e)
			}
			continue
		case Subscribe:
			subscribe(e)
			continue
		case Assigned, Revoked, Lost:
			o.Kind = map[Kind]spec.ObservationKind{Assigned: spec.Assigned, Revoked: spec.Revoked, Lost: spec.Lost}[e.Kind]
			o.Resources = e.set
			if e.Call != nil {
				o.Call = at(*e.Call)
			}
			c.Ownership = true
			for _, r := range e.set {
				named[r.Topic] = max(named[r.Topic], r.Partition+1)
			}
		case Crash:
			o.Kind = spec.Crashed
		case GenerationReached:
			o.Kind = spec.Reached
		case Joined:
			o.Kind, o.Process = spec.Joined, ""
		case Removed:
			o.Kind, o.Process = spec.Removed, ""
		case Quiet:
			o.Kind = spec.Quiet
			c.Quiet = e.Line
		case Topic:
			h.Topics[e.Topic] = e.Partitions
			c.Universe = true
			continue
		case Request, Response:
			c.Wire++
			continue
		case Processed:
			c.Processed++
			continue
		case Commit:
			c.Commits++
			continue
		default: // leave, fenced, revoking
			continue
		}
		if o.Process != "" && !seen[o.Process] {
			seen[o.Process] = true
			unsubscribed[o.Process] = true
		}
		h.Observations = append(h.Observations, o)
	}
	if !c.Universe {
		h.Topics = named
	}
	all := slices.Sorted(maps.Keys(h.Topics))
	for p := range unsubscribed {
		if h.Subscriptions[p] == nil {
			h.Subscriptions[p] = all
		}
		c.Unsubscribed = append(c.Unsubscribed, p)
	}
	slices.Sort(c.Unsubscribed)
	return h, c
}

// Delivery is a processed or a commit event as the delivery laws read
// it (spec/delivery.go): what a process's application did with the
// records of its partitions.
type Delivery struct {
	// Line is the event's line; Kind is Processed or Commit.
	Line int
	Kind Kind
	// Process, Member and Generation are the event's (Generation
	// NoGeneration when absent).
	Process    string
	Member     spec.MemberID
	Generation spec.Generation
	// Call and At bound when it happened: a commit was sent at Call and
	// answered at At, so the coordinator judged it in between; a
	// processed event has Call == At.
	Call, At spec.Nanos
	// Resource, From and To are a processed event's: it processed the
	// records From to To-1 of Resource.
	Resource spec.Resource
	From, To int64
	// Commit is a commit event as spec.CheckCommit reads it, but for
	// Fenced, which only the coordinator's events can tell (the judge
	// sets it); Offsets are its offsets.
	Commit  spec.Commit
	Offsets map[spec.Resource]int64
}

// Deliveries returns the processed and commit events of t in trace
// order. t must come from Read (or have been written by a Recorder). A
// spec.History carries no records, so FromHistory writes no delivery
// events.
func (t *Trace) Deliveries() []Delivery {
	var out []Delivery
	for _, e := range t.Events {
		if e.Kind != Processed && e.Kind != Commit {
			continue
		}
		d := Delivery{Line: e.Line, Kind: e.Kind, Process: e.Process, Member: spec.MemberID(e.Member), Generation: spec.NoGeneration,
			Call: t.Nanos(e.T), At: t.Nanos(e.T)}
		if e.Generation != nil {
			d.Generation = spec.Generation(*e.Generation)
		}
		if e.Kind == Processed {
			d.Resource, d.From, d.To = e.res, *e.Offset, *e.Offset+1
			if e.Count != nil {
				d.To = *e.Offset + *e.Count
			}
			out = append(out, d)
			continue
		}
		if e.Call != nil {
			d.Call = t.Nanos(*e.Call)
		}
		d.Commit = spec.Commit{Member: e.Member, Partitions: e.offsets, Error: spec.ErrorCode(*e.Error), Refused: e.refused}
		d.Offsets = make(map[spec.Resource]int64, len(e.Offsets))
		for k, v := range e.Offsets {
			r, _ := spec.ParseResource(k) // parsed by Read
			d.Offsets[r] = v
		}
		out = append(out, d)
	}
	return out
}
