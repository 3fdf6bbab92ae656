package assign

import "github.com/rebalance-ref/rebalance/spec"

// RoundRobin returns Kafka's round-robin assignor, protocol name
// "roundrobin" (clients/.../consumer/RoundRobinAssignor.java).
//
// All partitions of the existing topics that some member subscribes to are
// taken in order (topic, then partition). Members form a circle in Kafka's
// member order (static members first by instance ID, then dynamic members by
// member ID, as for Range). Each partition goes to the next member of the
// circle that subscribes to its topic, skipping the others, and the circle
// moves past the member that took it.
//
// Guarantees:
//
//   - Completeness: every partition of every subscribed, existing topic is
//     assigned to exactly one of its subscribers.
//   - Balance: when all members subscribe to the same existing topics,
//     members' counts differ by at most one. With heterogeneous
//     subscriptions nothing is promised: the result can be unbalanced even
//     where a balanced one exists (Kafka's
//     testPoorRoundRobinAssignmentScenario).
//   - Co-partitioning: none.
//   - Determinism: the result is a function of the member IDs, instance
//     IDs, subscriptions and partition counts only.
//   - Stickiness: none; RoundRobin ignores Owned and Generation (an
//     unchanged group gets the same result again, so nothing moves back
//     and forth while nothing changes).
//   - Racks: RoundRobin is not rack-aware; it ignores Member.Rack.
func RoundRobin() Assignor { return roundRobinAssignor{} }

type roundRobinAssignor struct{}

func (roundRobinAssignor) Name() string { return "roundrobin" }

func (r roundRobinAssignor) Assign(g Group) (spec.Assignment, error) {
	if err := ValidateGroup(g); err != nil {
		return nil, err
	}
	return r.assignValid(g)
}

// assignValid is Assign on a group ValidateGroup accepted (AssignValid).
func (roundRobinAssignor) assignValid(g Group) (spec.Assignment, error) {
	got := make([][]spec.Resource, len(g.Members))
	order := kafkaOrder(g.Members)
	next := 0
	for _, t := range subscribedTopics(g) {
		for p := range g.Topics[t] {
			// Some member subscribes to t, so this stops within one turn.
			for !inSubscription(g.Members[order[next]], t) {
				next = (next + 1) % len(order)
			}
			i := order[next]
			got[i] = append(got[i], spec.TP(t, p))
			next = (next + 1) % len(order)
		}
	}
	out := make(spec.Assignment, len(g.Members))
	for i, m := range g.Members {
		// Partitions were appended in sorted order, so got[i] is a Set.
		out[m.ID] = spec.Set(got[i])
	}
	return out, nil
}
