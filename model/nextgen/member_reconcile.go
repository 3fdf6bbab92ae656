package nextgen

import (
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file is the member's reconciliation (Kafka's
// AbstractMembershipManager.maybeReconcile and revokeAndAssign) and its
// reaction to its application: revocations completing, subscription
// changes and leaving.

// reconciles reports whether the member reconciles assignments in its
// state (Kafka's canHandleNewAssignment).
func (m *Member) reconciles() bool {
	switch m.state {
	case MemberJoining, MemberReconciling, MemberAcknowledging, MemberStable:
		return true
	}
	return false
}

// reconcile moves the member towards its target (the last accepted
// assignment), revoking first:
//
//	revoke = owned − target (not already being revoked): Revoke callback
//	wait until every revocation is done (RevocationDone)
//	add    = target − owned: Assigned callback, owned = target,
//	         the member holds it at the target's epoch
//
// and, when owned changed since it was last reported, moves to
// Acknowledging so that the next heartbeat, sent at once, reports it. The
// revoked partitions stay in owned, and so in every heartbeat that reports
// owned, until their RevocationDone: the coordinator must not see them
// released before the application has committed and stopped.
//
// With the StraightToTarget fault the member does not wait: the revoked
// partitions leave owned at once (the application keeps working on them
// until RevocationDone), the new ones are assigned and the new owned set is
// acknowledged at the target's epoch while the revocation is still running.
func (m *Member) reconcile(now Millis, out *Output) {
	if !m.hasTarget || !m.reconciles() {
		return
	}
	straight := m.cfg.Faults.Has(StraightToTarget)
	// One walk of owned and target finds both differences. What the
	// revocation below changes does not change the second: it takes from
	// owned only what the target does not hold.
	_, give, gain := spec.Split(m.owned, m.target)
	if rv := give.Minus(m.revoking); !rv.IsEmpty() {
		m.become(MemberReconciling)
		node.Notify(out, Revoke, rv, m.ownedEpoch, "")
		m.revoking = m.revoking.Union(rv)
		if straight {
			m.setOwned(m.owned.Minus(rv))
		}
	}
	if !straight && !m.revoking.IsEmpty() {
		m.become(MemberReconciling)
		return
	}
	if add := gain.Minus(m.revoking); !add.IsEmpty() {
		m.become(MemberReconciling)
		node.Notify(out, Assigned, add, m.targetEpoch, "")
		m.setOwned(m.owned.Union(add))
	}
	// A later response without an assignment may already have moved the
	// epoch of what the member holds past the target's; it never goes back.
	m.ownedEpoch = max(m.ownedEpoch, m.targetEpoch)
	switch {
	case !m.ownedReported:
		m.become(MemberReconciling)
		m.become(MemberAcknowledging)
	case m.state == MemberJoining || m.state == MemberReconciling:
		m.become(MemberStable)
	}
}

// revocationDone handles the application's RevocationDone: the named
// resources the member is revoking leave Revoking and owned (resources it
// is not revoking are ignored: a revocation overtaken by a fence, say).
// Reconciliation then goes on; a member preparing to leave sends its leave
// heartbeat once everything is revoked.
func (m *Member) revocationDone(now Millis, rs spec.Set, out *Output) {
	done := spec.NewSet(rs...).Intersect(m.revoking)
	if done.IsEmpty() {
		return
	}
	m.revoking = m.revoking.Minus(done)
	m.setOwned(m.owned.Minus(done))
	switch {
	case m.state == MemberPrepareLeaving:
		if m.revoking.IsEmpty() {
			m.sendLeave(now, out)
		}
	case m.reconciles():
		m.reconcile(now, out)
		m.schedule(now, out)
	}
}

// subscribe changes the subscription. Before Start it is only recorded; a
// member in the group sends it in a heartbeat at once (after the awaited
// one, if any). It does not revoke anything itself: as in Kafka's
// consumer, the coordinator revokes what the new subscription drops. A
// member that is leaving ignores it. The same subscription again is a
// no-op.
func (m *Member) subscribe(now Millis, topics []string, out *Output) {
	ts, err := memberTopics(topics)
	if err != nil {
		panic("nextgen: member " + m.cfg.Name + ": Subscribe: " + err.Error())
	}
	switch {
	case m.state == MemberUnsubscribed:
		m.topics = ts
	case m.reconciles():
		m.topics = ts
		m.schedule(now, out)
	}
}

// leave is Kafka's leaveGroup: the member gives up its reconciliation,
// asks the application to revoke everything it works on (one Revoke
// callback for what is not already being revoked) and keeps heartbeating
// in PrepareLeaving until the revocation is done; then it drops its
// assignment and sends the leave heartbeat (sendLeave). With nothing to
// revoke it sends it at once. A member that never started is done at once.
func (m *Member) leave(now Millis, out *Output) {
	switch {
	case m.state == MemberUnsubscribed:
		m.become(MemberLeft)
		return
	case !m.reconciles():
		return // already leaving
	}
	m.become(MemberPrepareLeaving)
	m.target, m.targetEpoch, m.hasTarget = nil, 0, false
	if rv := m.owned.Minus(m.revoking); !rv.IsEmpty() {
		node.Notify(out, Revoke, rv, m.ownedEpoch, "")
		m.revoking = m.revoking.Union(rv)
	}
	if m.revoking.IsEmpty() {
		m.sendLeave(now, out)
		return
	}
	m.schedule(now, out)
}

// sendLeave is Kafka's transitionToSendingLeaveGroup: the assignment is
// dropped, the epoch becomes the leave epoch (-2 for a static member,
// which leaves temporarily, -1 otherwise) and the leave heartbeat goes at
// once, even if another heartbeat is awaited (whose answer is then
// ignored: only the leave heartbeat's Seq is awaited). The member is Left
// when the leave heartbeat is answered, whatever the answer.
func (m *Member) sendLeave(now Millis, out *Output) {
	m.setOwned(nil)
	m.ownedEpoch = 0
	m.become(MemberLeaving)
	m.epoch = spec.LeaveEpoch
	if m.cfg.InstanceID != "" {
		m.epoch = spec.StaticLeaveEpoch
	}
	m.sendHeartbeat(now, out)
}
