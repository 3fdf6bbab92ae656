package spec

import (
	"fmt"
	"slices"
	"strings"
)

// CheckConnectBalance is the balance law of Kafka Connect's protocols
// (the deferred and incremental designs), in three parts:
//
//   - connectors: CheckBalance over the connector resources alone;
//   - tasks: CheckBalance over everything else (tasks, and partitions of
//     plain topics) alone. Connect's IncrementalCooperativeAssignor
//     balances the two kinds separately (assignConnectors, assignTasks,
//     and one loadBalancingRevocations per kind), so a member may not make
//     up for fewer tasks with more connectors;
//   - per connector: for each connector of v.Topics, the numbers of its
//     tasks that any two current members subscribed to it run differ by
//     at most one. KAFKA-17049 broke this: Connect's load-balancing
//     revocations took the first tasks of a worker's allocation, which is
//     grouped by connector, so a worker that joined got all the tasks of
//     one connector and none of another, with the totals balanced.
//
// Violations carry the law Balance, so a protocol that uses this law
// reports it through EventuallyConverged like CheckBalance. When
// v.Topics has no connector and no current member owns a connector
// resource, the result is exactly CheckBalance(v): with topic-partitions
// only, the task kind is every resource and there is no connector.
func CheckConnectBalance(v View) []Violation {
	// Without connectors in v.Topics the per-connector part finds none.
	return append(CheckConnectKindBalance(v), checkPerConnector(v)...)
}

// CheckConnectKindBalance is CheckConnectBalance without its per-connector
// part: connectors and tasks each balanced on their own. It is what Kafka
// Connect's placement promises in every quiet group: new and lost tasks go
// to the least loaded members by total whatever their connector
// (assignTasks), so a crash can leave one connector's tasks uneven while
// the kinds stay balanced. The random runs with connectors converge to it;
// the model checker judges the whole of CheckConnectBalance.
func CheckConnectKindBalance(v View) []Violation {
	if !hasConnectors(v) {
		return CheckBalance(v)
	}
	var out []Violation
	for _, kind := range []struct {
		label string
		keep  func(Resource) bool
	}{
		{"connectors", Resource.IsConnector},
		{"tasks", func(r Resource) bool { return !r.IsConnector() }},
	} {
		kv := View{Topics: v.Topics, Members: make([]MemberView, len(v.Members))}
		for i, m := range v.Members {
			m.Owns = m.Owns.Filter(kind.keep)
			kv.Members[i] = m
		}
		for _, x := range CheckBalance(kv) {
			x.Detail = kind.label + ": " + x.Detail
			out = append(out, x)
		}
	}
	return out
}

// hasConnectors reports whether v.Topics has a connector or a current
// member owns a connector resource.
func hasConnectors(v View) bool {
	for _, m := range v.Members {
		if m.Current && slices.ContainsFunc(m.Owns, Resource.IsConnector) {
			return true
		}
	}
	for k := range v.Topics {
		if name, ok := strings.CutSuffix(k, connectorSuffix); ok && v.Topics.IsConnector(name) {
			return true
		}
	}
	return false
}

// checkPerConnector reports, for each connector of v.Topics, the most and
// the least loaded of its current subscribers (by member name among equal
// counts) when they run task counts of it that differ by more than one.
func checkPerConnector(v View) []Violation {
	var out []Violation
	for _, c := range v.Topics.Connectors() {
		var hi, lo string
		var nHi, nLo int
		for _, m := range v.Members {
			if !m.Current || !m.Subscribes(c) {
				continue
			}
			n := 0
			for _, r := range m.Owns {
				if r.Topic == c && !r.IsConnector() {
					n++
				}
			}
			if hi == "" || n > nHi {
				hi, nHi = m.Name, n
			}
			if lo == "" || n < nLo {
				lo, nLo = m.Name, n
			}
		}
		if nHi > nLo+1 {
			out = append(out, Violation{Law: Balance, Members: []string{hi, lo}, Detail: fmt.Sprintf("connector %s: %s runs %d of its tasks and %s runs %d", c, hi, nHi, lo, nLo)})
		}
	}
	return out
}
