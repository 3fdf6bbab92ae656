package assign

import (
	"container/heap"
	"fmt"

	"github.com/rebalance-ref/rebalance/spec"
)

// This file is the arithmetic of Kafka Connect's incremental cooperative
// assignor (KIP-415; connect/runtime/.../distributed/
// IncrementalCooperativeAssignor.java): the least-loaded round-robin that
// hands out new and lost connectors and tasks (assignConnectors,
// assignTasks), and the balance targets its load-balancing revocations cut
// members down to (loadBalancingRevocations). The Designs II and III leaders
// in model/classic/policy are built on it; it works on any resource, with
// connectors (Partition == spec.ConnectorTask) and everything else (tasks,
// topic-partitions) counted separately.

// ConnectKind is the kind of resource Connect balances separately: connector
// instances, and tasks. A topic-partition counts as a task.
type ConnectKind uint8

const (
	// TaskKind is a Connect task or a topic-partition (Partition >= 0).
	TaskKind ConnectKind = iota
	// ConnectorKind is a Connect connector instance (Partition ==
	// spec.ConnectorTask).
	ConnectorKind
)

// ConnectKinds lists the kinds in the order Connect assigns them: connectors
// first, then tasks.
var ConnectKinds = [...]ConnectKind{ConnectorKind, TaskKind}

// String names the kind.
func (k ConnectKind) String() string {
	if k == ConnectorKind {
		return "connector"
	}
	return "task"
}

// KindOf returns the kind of r.
func KindOf(r spec.Resource) ConnectKind {
	if r.IsConnector() {
		return ConnectorKind
	}
	return TaskKind
}

// ConnectLoad is how many connectors and how many tasks a member holds (or should
// hold).
type ConnectLoad struct {
	Connectors int
	Tasks      int
}

// ConnectLoadOf counts the connectors and tasks of s.
func ConnectLoadOf(s spec.Set) ConnectLoad {
	var l ConnectLoad
	for _, r := range s {
		l.add(KindOf(r), 1)
	}
	return l
}

// Of returns the count of kind k.
func (l ConnectLoad) Of(k ConnectKind) int {
	if k == ConnectorKind {
		return l.Connectors
	}
	return l.Tasks
}

func (l *ConnectLoad) add(k ConnectKind, n int) {
	if k == ConnectorKind {
		l.Connectors += n
	} else {
		l.Tasks += n
	}
}

// ValidateConnect returns an error wrapping ErrInvalidGroup when current and
// resources are not a well-formed input of the Connect functions of this
// file (LeastLoaded, ConnectBalanceTargets, ConnectRevocations), and nil
// otherwise. It never panics. It rejects, reporting the first problem in a
// fixed order (members in member ID order, then resources):
//
//   - a member with an empty member ID;
//   - a member's set that is not a valid spec.Set (unsorted, a resource
//     twice, an empty topic name, a partition below spec.ConnectorTask);
//   - a resource held by two members (Connect's assignment is exclusive);
//   - an invalid resource in resources (toAssign, or the configured
//     resources); resources itself may be unsorted and repeat a resource,
//     as LeastLoaded tolerates.
//
// Member IDs cannot repeat: current is a map. The Connect functions assume a
// valid input and do not validate it themselves (the Designs II and III
// leaders build it); LeastLoadedOrError is LeastLoaded behind this check.
func ValidateConnect(current spec.Assignment, resources spec.Set) error {
	holder := map[spec.Resource]spec.MemberID{}
	for _, m := range current.Members() {
		if m == "" {
			return fmt.Errorf("%w: a member has an empty member ID", ErrInvalidGroup)
		}
		if err := current[m].Validate(); err != nil {
			return fmt.Errorf("%w: member %q holds an invalid set: %v", ErrInvalidGroup, m, err)
		}
		for _, r := range current[m] {
			if other, dup := holder[r]; dup {
				return fmt.Errorf("%w: %s is held by both %q and %q", ErrInvalidGroup, r, other, m)
			}
			holder[r] = m
		}
	}
	for _, r := range resources {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("%w: resource to assign: %v", ErrInvalidGroup, err)
		}
	}
	return nil
}

// LeastLoadedOrError is LeastLoaded for untrusted input: it returns
// ValidateConnect's error, and no assignment, when current and toAssign are
// not well formed, and LeastLoaded's result otherwise.
func LeastLoadedOrError(current spec.Assignment, eligible func(member spec.MemberID, r spec.Resource) bool, toAssign spec.Set) (spec.Assignment, error) {
	if err := ValidateConnect(current, toAssign); err != nil {
		return nil, err
	}
	return LeastLoaded(current, eligible, toAssign), nil
}

// LeastLoaded hands out toAssign over the members of current the way
// Connect's IncrementalCooperativeAssignor does (assignConnectors, then
// assignTasks): connectors first, then everything else, each kind in
// resource order (spec.Resource.Less), each resource to the member with the
// fewest resources of that kind (counting what it holds in current plus what
// this call already gave it), ties broken by member id.
//
// The members that may receive resources are exactly the keys of current
// (give a new member an empty set to include it). A resource goes only to a
// member for which eligible(member, resource) is true; a nil eligible means
// every member is eligible. A resource of toAssign that no member is
// eligible for, or that some member of current already holds, is left out:
// LeastLoaded never gives a resource to two members, so callers that need
// everything placed check the result.
//
// The result is a new, complete assignment: every member of current with
// what it had plus what it was given. current and toAssign are not
// modified. The result is deterministic.
//
// Tie-breaking differs from Java in one detail: Connect sorts the workers
// once by (load, worker id) and fills them in that order, so among members
// that became equally loaded during the call it prefers the one that was
// less loaded before; LeastLoaded always prefers the smaller member id.
// Counts, and so balance, are the same.
//
// Guarantees, for each kind separately (connectors, and tasks):
//
//   - Stickiness: nothing a member holds in current moves; LeastLoaded only
//     adds (taking resources away is ConnectRevocations' job), so no
//     resource moves between members, let alone back and forth.
//   - Balance: each resource goes to a least-loaded member among those
//     eligible for it at the moment it is given. With every member
//     eligible, a member that is given anything ends at most one above the
//     least-loaded member, and when current is empty or already within one
//     (per kind) the result is within one. With eligibility (heterogeneous
//     subscriptions) balance is only among each resource's eligible
//     members, and loads can end further apart.
//   - Completeness: every resource of toAssign that some member is eligible
//     for and nobody holds is given to exactly one member.
//   - Determinism: the same input gives the same output (no map order).
//   - Racks: LeastLoaded is not rack-aware (Connect has no racks).
//
// LeastLoaded assumes a valid input (ValidateConnect); LeastLoadedOrError
// checks it first.
//
// Cost: O(|toAssign| · log W) when every member is eligible, O(|toAssign| ·
// W · log W) in the worst case of sparse eligibility.
func LeastLoaded(current spec.Assignment, eligible func(member spec.MemberID, r spec.Resource) bool, toAssign spec.Set) spec.Assignment {
	members := current.Members()
	out := make(spec.Assignment, len(members))
	held := map[spec.Resource]bool{}
	for _, m := range members {
		out[m] = current[m]
		for _, r := range current[m] {
			held[r] = true
		}
	}
	if len(members) == 0 || len(toAssign) == 0 {
		return out
	}
	items := spec.NewSet(toAssign...) // tolerate an unsorted argument
	added := make([][]spec.Resource, len(members))
	for _, k := range ConnectKinds {
		h := make(connectHeap, len(members))
		for i, m := range members {
			h[i] = connectEntry{count: ConnectLoadOf(current[m]).Of(k), index: i}
		}
		heap.Init(&h)
		var skipped []connectEntry
		for _, r := range items {
			if KindOf(r) != k || held[r] {
				continue
			}
			skipped = skipped[:0]
			for h.Len() > 0 {
				e := heap.Pop(&h).(connectEntry)
				if eligible == nil || eligible(members[e.index], r) {
					added[e.index] = append(added[e.index], r)
					held[r] = true
					e.count++
					heap.Push(&h, e)
					break
				}
				skipped = append(skipped, e)
			}
			for _, e := range skipped {
				heap.Push(&h, e)
			}
		}
	}
	for i, m := range members {
		if len(added[i]) > 0 {
			out[m] = current[m].Union(spec.NewSet(added[i]...))
		}
	}
	return out
}

// connectEntry is one member in LeastLoaded's heap: its count of the kind being
// assigned and its index in the sorted member list (so ties go to the
// smaller member id).
type connectEntry struct {
	count int
	index int
}

type connectHeap []connectEntry

func (h connectHeap) Len() int { return len(h) }
func (h connectHeap) Less(i, j int) bool {
	if h[i].count != h[j].count {
		return h[i].count < h[j].count
	}
	return h[i].index < h[j].index
}
func (h connectHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *connectHeap) Push(x any)   { *h = append(*h, x.(connectEntry)) }
func (h *connectHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// ConnectBalanceTargets returns how many connectors and how many tasks each
// member of current should hold once the group is balanced, as Connect's
// load-balancing revocations count it (IncrementalCooperativeAssignor
// loadBalancingRevocations): for each kind, with N resources of that kind in
// configured and W members, every member gets ⌊N/W⌋ and N mod W members get
// one more. The extra slots go first to members that already hold more than
// ⌊N/W⌋, in member id order (Connect lets a worker that holds exactly one
// extra keep it while extra slots remain, and caps the rest at ⌊N/W⌋), then
// to the remaining members in member id order. So, for each kind, the
// targets sum to N, each is ⌊N/W⌋ or ⌊N/W⌋+1, and a member is never asked
// to shed a resource when the counts already have that shape.
//
// Every member of current gets an entry; a nil or empty current gives an
// empty map. Loads count every resource a member holds, configured or not.
func ConnectBalanceTargets(current spec.Assignment, configured spec.Set) map[spec.MemberID]ConnectLoad {
	members := current.Members()
	out := make(map[spec.MemberID]ConnectLoad, len(members))
	if len(members) == 0 {
		return out
	}
	total := ConnectLoadOf(configured)
	loads := make([]ConnectLoad, len(members))
	for i, m := range members {
		loads[i] = ConnectLoadOf(current[m])
	}
	targets := make([]ConnectLoad, len(members))
	for _, k := range ConnectKinds {
		n, w := total.Of(k), len(members)
		low, extras := n/w, n%w
		extra := make([]bool, w)
		for i := range members {
			if extras > 0 && loads[i].Of(k) > low {
				extra[i] = true
				extras--
			}
		}
		for i := range members {
			if extras > 0 && !extra[i] {
				extra[i] = true
				extras--
			}
		}
		for i := range members {
			t := low
			if extra[i] {
				t++
			}
			targets[i].add(k, t)
		}
	}
	for i, m := range members {
		out[m] = targets[i]
	}
	return out
}

// ConnectRevocations returns what Connect's load-balancing revocations take
// from each member of current (IncrementalCooperativeAssignor
// performLoadBalancingRevocations): for each kind, a member holding more
// than its ConnectBalanceTargets target gives up the excess. It revokes the
// resources that sort last (spec.Resource.Less) and keeps the first ones,
// as Kafka's sticky assignors keep the first owned partitions up to their
// quota; Java takes the first ones in its collection's order, which is
// arbitrary. Like Connect it revokes nothing when configured is empty.
//
// Rounds: Connect never hands a revoked resource out in the round that
// revokes it (the caller leaves it unassigned; it is "lost" and goes out
// least loaded in the follow-up round). With every member eligible, cutting
// every member to its target and then handing out everything unassigned
// with LeastLoaded leaves each kind within one, so a third round revokes
// nothing: once membership and configuration stop changing, at most two
// rounds revoke or hand out anything, and only the first revokes.
//
// The result holds only members that must give something up. current is
// not modified, and assumed valid (ValidateConnect).
func ConnectRevocations(current spec.Assignment, configured spec.Set) spec.Assignment {
	out := spec.Assignment{}
	if configured.IsEmpty() {
		return out
	}
	targets := ConnectBalanceTargets(current, configured)
	for _, m := range current.Members() {
		var revoke []spec.Resource
		for _, k := range ConnectKinds {
			excess := ConnectLoadOf(current[m]).Of(k) - targets[m].Of(k)
			for i := len(current[m]) - 1; i >= 0 && excess > 0; i-- {
				if r := current[m][i]; KindOf(r) == k {
					revoke = append(revoke, r)
					excess--
				}
			}
		}
		if len(revoke) > 0 {
			out[m] = spec.NewSet(revoke...)
		}
	}
	return out
}

// ConnectImbalance returns Σ count² over the members of a, separately for each
// kind: the potential the Connect policies decrease with every
// load-balancing move (moving one resource from a member holding c to one
// holding d ≤ c−2 lowers it by 2(c−d−1) ≥ 2).
func ConnectImbalance(a spec.Assignment) ConnectLoad {
	var out ConnectLoad
	for _, m := range a.Members() {
		l := ConnectLoadOf(a[m])
		out.Connectors += l.Connectors * l.Connectors
		out.Tasks += l.Tasks * l.Tasks
	}
	return out
}
