package crosscheck

import (
	"fmt"
	"strings"

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
