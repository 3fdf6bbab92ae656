package crosscheck

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/sim"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
	"github.com/rebalance-ref/rebalance/tla/tlaval"
)

// GoGraph explores the Go closed world of the named configuration
// (tla/configs/<config>.cfg) and returns its graph as the spec of its
// family sees it: ClassicGraph for classic-* configurations, NextGenGraph
// for nextgen-* ones.
func GoGraph(config string) (*Graph, error) {
	switch {
	case strings.HasPrefix(config, "classic-"):
		return ClassicGraph(config)
	case strings.HasPrefix(config, "nextgen-"):
		return NextGenGraph(config)
	}
	return nil, fmt.Errorf("config %q: want a name starting classic- or nextgen-", config)
}

// Indices numbers the processes and topics of a Go world as both specs
// do: its processes in name order are 1, 2, ..., its topics in name order
// 1, 2, .... A member id is its process's name, '-' and a counter
// (world.Numbered), and the specs write it as an integer built from the
// two (Classic.tla 100*process+counter, NextGen.tla the process alone),
// so the specs' integer order must be Go's string order: NewIndices
// refuses names for which it would not be. Any names that pass are
// projected alike (TestProjectionIsNameFree).
type Indices struct {
	procs, topics map[string]int
}

// maxCounter is the largest member-id counter Classic.tla's
// 100*process+counter writes; the checked worlds' coordinators hand out
// fewer.
const maxCounter = 9

// NewIndices numbers processes and topics, each sorted by name and
// without repeats. It returns an error when there are 100 processes or
// more (the classic spec's coordinator is node 100), or when two process
// names a < b give member ids that do not sort as their indices do (an id
// of a, counter up to 9, at or after one of b: names "w" and "w-", whose
// ids w-1 and w--1 sort the other way, or "w" and "w!"; "w" and "w-x"
// pass).
func NewIndices(processes, topics []string) (*Indices, error) {
	for _, list := range []struct {
		what  string
		names []string
	}{{"process", processes}, {"topic", topics}} {
		for i := 1; i < len(list.names); i++ {
			if list.names[i-1] >= list.names[i] {
				return nil, fmt.Errorf("%s names %q: want them sorted, without repeats", list.what, list.names)
			}
		}
	}
	if len(processes) >= 100 {
		return nil, fmt.Errorf("%d processes: the specs number at most 99", len(processes))
	}
	for i := 1; i < len(processes); i++ {
		a, b := processes[i-1], processes[i]
		if last, first := fmt.Sprintf("%s-%d", a, maxCounter), b+"-1"; last >= first {
			return nil, fmt.Errorf("processes %q and %q: member id %s sorts at or after %s, unlike the specs' numbers", a, b, last, first)
		}
	}
	ix := &Indices{procs: map[string]int{}, topics: map[string]int{}}
	for i, n := range processes {
		ix.procs[n] = i + 1
	}
	for i, t := range topics {
		ix.topics[t] = i + 1
	}
	return ix, nil
}

// projection numbers the processes and topics of m's worlds (those of
// its configuration, Model.Processes, and of its initial world) and
// returns state with that numbering, for ClassicStates and NextGenStates.
func projection[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any](m *core.Model[M, T, C, P],
	state func(*Indices, *core.State[M, T, C, P]) tlaval.Value) (func(*core.State[M, T, C, P]) tlaval.Value, error) {
	ix, err := NewIndices(m.Processes(), slices.Sorted(maps.Keys(m.Init()[0].W.Topics)))
	if err != nil {
		return nil, err
	}
	return func(s *core.State[M, T, C, P]) tlaval.Value { return state(ix, s) }, nil
}

// process is the index of the process named name; it panics on a name
// the world was not numbered with.
func (ix *Indices) process(name string) int {
	n, ok := ix.procs[name]
	if !ok {
		panic(fmt.Sprintf("crosscheck: process %q is not numbered", name))
	}
	return n
}

// member splits a member id into its process's index and its counter,
// which must be 1 to 9; it panics on any other form.
func (ix *Indices) member(id spec.MemberID) (process, counter int) {
	name, k, ok := core.Numbered(string(id), '-', ix.procs)
	if !ok || k < 1 || k > maxCounter {
		panic(fmt.Sprintf("crosscheck: member id %q", id))
	}
	return ix.procs[name], int(k)
}

// topic is the index of a topic; it panics on a topic the world was not
// numbered with.
func (ix *Indices) topic(t string) int {
	n, ok := ix.topics[t]
	if !ok {
		panic(fmt.Sprintf("crosscheck: unknown topic %q", t))
	}
	return n
}

// resourceSet is the TLA+ set of the resources of s, each mapped by
// resource (the families write resources differently).
func resourceSet(s spec.Set, resource func(spec.Resource) tlaval.Value) tlaval.Value {
	vs := make([]tlaval.Value, 0, len(s))
	for _, r := range s {
		vs = append(vs, resource(r))
	}
	return tlaval.Set(vs...)
}

// environmentAction names the TLA+ action of a step both specs name
// alike (a timer firing, a process joining, crashing or leaving), or ""
// for a step whose name depends on the family.
func environmentAction(k core.ActionKind) string {
	switch k {
	case core.FireNext:
		return "Fire"
	case core.Join:
		return "Join"
	case core.Crash:
		return "Crash"
	case core.Leave:
		return "Leave"
	}
	return ""
}

// usedRecord is both specs' used variable: the environment budget spent
// on crashes, leaves and drops (the only ones the specs model).
func usedRecord(u core.Used) tlaval.Value {
	return tlaval.Rec("crashes", tlaval.Int(u.Crashes), "leaves", tlaval.Int(u.Leaves), "drops", tlaval.Int(u.Drops))
}

// record is the TLA+ record of the fields.
func record(fields map[string]tlaval.Value) tlaval.Value {
	kv := make([]any, 0, 2*len(fields))
	for k, v := range fields {
		kv = append(kv, k, v)
	}
	return tlaval.Rec(kv...)
}
