package crosscheck

import (
	"fmt"
	"slices"
	"strings"

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

// processIndex is a process name's TLA+ index in both specs: A = 1, B = 2,
// and so on up to S.
func processIndex(name string) int {
	if len(name) != 1 || name[0] < 'A' || name[0] > 'S' {
		panic(fmt.Sprintf("crosscheck: process name %q", name))
	}
	return int(name[0]-'A') + 1
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

// checkedTopics are the checked worlds' topic names in both specs; a
// topic's TLA+ index is its position plus one.
var checkedTopics = []string{"T", "U", "V", "W", "X", "Y"}

// topicIndex is the TLA+ index of a topic of the checked worlds.
func topicIndex(topic string) int {
	t := slices.Index(checkedTopics, topic)
	if t < 0 {
		panic(fmt.Sprintf("crosscheck: unknown topic %q", topic))
	}
	return t + 1
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
