package trace

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/rebalance-ref/rebalance/spec"
)

// FromHistory writes h as a trace with header hdr (its Unit must be
// nanoseconds, h's unit; Coordinator is h.CoordinatorObserved): a topic
// event for each topic of h.Topics and a join event for each process's
// subscription at time 0, then the observations in the order they
// returned, each callback with its call time, and a restart before the
// first observation of a process after its crash. A callback on nothing
// (a trace has none) becomes a generation event, or nothing without a
// member id and a generation: the views see the same. What it returns
// reads back (Read) to the same history but for those, the order of the
// observations and their Source lines. It returns an error for a history that does not
// Validate or whose times go below 0.
func FromHistory(h spec.History, hdr Header) (*Trace, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	if hdr.Unit != "" && hdr.Unit != "ns" {
		return nil, fmt.Errorf("trace: a history's times are nanoseconds, not %s", hdr.Unit)
	}
	hdr.Coordinator = h.CoordinatorObserved
	var buf bytes.Buffer
	r, err := NewRecorder(&buf, hdr, nil)
	if err != nil {
		return nil, err
	}
	var events []Event
	for _, t := range slices.Sorted(maps.Keys(h.Topics)) {
		events = append(events, Event{Kind: Topic, Topic: t, Partitions: h.Topics[t]})
	}
	for _, p := range h.Processes() {
		events = append(events, Event{Kind: Join, Process: p, Topics: h.Subscriptions[p]})
	}
	obs := slices.Clone(h.Observations)
	slices.SortStableFunc(obs, func(a, b spec.Observation) int { return cmp.Compare(a.Return, b.Return) })
	down := map[string]bool{}
	for _, o := range obs {
		e := Event{T: int64(o.Return), Process: o.Process, Member: string(o.Member)}
		if o.Generation != spec.NoGeneration {
			e.Generation = Int32(int32(o.Generation))
		}
		switch o.Kind {
		case spec.Assigned, spec.Revoked, spec.Lost:
			if o.Resources.IsEmpty() {
				// A callback on nothing: what it tells the views is the
				// member id and generation it was called at.
				if o.Member == "" || o.Generation < 0 {
					continue
				}
				e.Kind = GenerationReached
				break
			}
			e.Kind = map[spec.ObservationKind]Kind{spec.Assigned: Assigned, spec.Revoked: Revoked, spec.Lost: Lost}[o.Kind]
			e.Call = Int64(int64(o.Call))
			for _, res := range o.Resources {
				e.Resources = append(e.Resources, res.String())
			}
		case spec.Crashed:
			e.Kind, e.Member, e.Generation = Crash, "", nil
		case spec.Joined:
			e.Kind, e.Process, e.Generation = Joined, "", nil
		case spec.Removed:
			e.Kind, e.Process, e.Generation = Removed, "", nil
		case spec.Quiet:
			e.Kind, e.Generation = Quiet, nil
		case spec.Subscribed:
			e.Kind, e.Member, e.Generation, e.Topics = Subscribe, "", nil, o.Topics
		case spec.Reached:
			e.Kind = GenerationReached
		}
		if down[o.Process] && o.Kind != spec.Joined && o.Kind != spec.Removed {
			events = append(events, Event{T: e.T, Kind: Restart, Process: o.Process, Topics: h.Subscriptions[o.Process]})
			down[o.Process] = false
		}
		if o.Kind == spec.Crashed {
			down[o.Process] = true
		}
		events = append(events, e)
	}
	for _, e := range events {
		if err := r.Record(e); err != nil {
			return nil, err
		}
	}
	return Read(&buf, Limits{})
}
