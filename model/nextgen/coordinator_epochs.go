package nextgen

import (
	"fmt"
	"strings"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/nextgen/reconcile"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
)

// assignmentEpochs returns the assignment epochs (KIP-1251) of a member
// whose current assignment becomes next, given prev, those of its current
// assignment before (sorted by partition): a partition it held before
// (assigned or pending revocation) keeps the epoch it was assigned at; a
// partition new to it was assigned at next's epoch. A partition it no
// longer holds is forgotten, so one it is given back later counts from
// then. prev itself is returned when the member holds the same partitions,
// so a heartbeat that changes nothing copies nothing.
//
// was is the member prev was computed for (the zero Member for a nil
// prev): when next holds the sets was held (at once when they are the
// same slices, as a heartbeat that moves nothing leaves them), prev is
// returned without a look at its partitions.
func assignmentEpochs(prev []validate.AssignmentEpoch, was, next reconcile.Member) []validate.AssignmentEpoch {
	if was.Assigned.Equal(next.Assigned) && was.PendingRevocation.Equal(next.PendingRevocation) {
		return prev
	}
	holds := next.Assigned.Union(next.PendingRevocation)
	if len(holds) == len(prev) {
		same := true
		for i, r := range holds {
			if !prev[i].Partition.Same(r) {
				same = false
				break
			}
		}
		if same {
			return prev
		}
	}
	out := make([]validate.AssignmentEpoch, 0, len(holds))
	i := 0
	for _, r := range holds {
		at := next.Epoch
		// Skip what the member no longer holds; a kept partition (the
		// usual case) is found by Same, without ordering the two.
		for ; i < len(prev); i++ {
			if p := prev[i].Partition; p.Same(r) {
				at = prev[i].Epoch
				break
			} else if !p.Less(r) {
				break
			}
		}
		out = append(out, validate.AssignmentEpoch{Partition: r, Epoch: at})
	}
	return out
}

// assignedAtMatches reports whether m's assignment epochs name exactly the
// partitions it holds (assigned or pending revocation, which a valid
// member keeps disjoint), in order: what assignmentEpochs keeps, and what
// its shortcut for unchanged sets relies on. It does not allocate.
func assignedAtMatches(m *member) bool {
	a, p := m.cur.Assigned, m.cur.PendingRevocation
	if len(m.assignedAt) != len(a)+len(p) {
		return false
	}
	for i, at := range m.assignedAt {
		if i > 0 && !m.assignedAt[i-1].Partition.Less(at.Partition) {
			return false
		}
		switch {
		case len(a) > 0 && at.Partition == a[0]:
			a = a[1:]
		case len(p) > 0 && at.Partition == p[0]:
			p = p[1:]
		default:
			return false
		}
	}
	return true
}

// assignedAtString prints assignment epochs as "T-0@3 T-1@5", in
// partition order.
func assignedAtString(as []validate.AssignmentEpoch) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = fmt.Sprintf("%s@%d", a.Partition, a.Epoch)
	}
	return strings.Join(parts, " ")
}

// encodeAssignmentEpochs writes the assignment epochs, only when the
// encoded world sends commits (canon.Encoder.Commits): nothing else reads
// them.
func encodeAssignmentEpochs(e *canon.Encoder, as []validate.AssignmentEpoch) {
	if !e.Commits {
		return
	}
	e.Len(len(as))
	for _, a := range as {
		e.String(a.Partition.Topic)
		e.Int(int64(a.Partition.Partition))
		e.Int(int64(a.Epoch))
	}
}
