package nextgen

import (
	"fmt"
	"slices"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file is the member's heartbeat machinery (Kafka's
// ConsumerHeartbeatRequestManager and its HeartbeatState): what a request
// carries, when one is sent, which responses are taken, and the reactions
// to error codes.
//
// Sending. The join (Start, and the rejoin after a fence) goes at once;
// afterwards a heartbeat goes when HeartbeatTimer fires (the interval of the
// last response after it), or at once when the member has something to
// report: an acknowledgement (MemberAcknowledging) or a subscription the
// coordinator has not seen. At most one heartbeat is awaited; the leave
// heartbeat alone goes out even while another is awaited (as Kafka's
// LEAVING does), and replaces it.
//
// Matching. Every request carries a fresh Seq (the transport's correlation
// id), which the coordinator echoes. The member takes only the response
// whose Seq is the one it awaits, from CoordinatorNode, for its own member
// id (an error response may name none); everything else is stale or
// duplicated and ignored: the answer to a heartbeat that timed out (Kafka
// drops the connection, so it never reaches the client), the answer to the
// heartbeat the leave heartbeat replaced, a second answer to a duplicated
// request, a duplicated answer.

// join starts (or restarts, after a fence) the membership: state Joining,
// epoch 0, and a full heartbeat at once.
func (m *Member) join(now Millis, out *Output) {
	m.become(MemberJoining)
	m.epoch = 0
	m.full = true
	m.sendHeartbeat(now, out)
}

// heartbeating reports whether the member sends heartbeats in its state.
func (m *Member) heartbeating() bool {
	switch m.state {
	case MemberJoining, MemberReconciling, MemberAcknowledging, MemberStable, MemberPrepareLeaving:
		return true
	}
	return false
}

// urgent reports whether the member has something to report at once.
func (m *Member) urgent() bool {
	switch m.state {
	case MemberAcknowledging:
		return true
	case MemberJoining, MemberReconciling, MemberStable:
		return !slices.Equal(m.topics, m.sentTopics)
	}
	return false
}

// schedule decides the next heartbeat when none is awaited: at once when
// the member has something to report, else when HeartbeatTimer fires
// (armed if it is not).
func (m *Member) schedule(now Millis, out *Output) {
	if m.awaitSeq != 0 || !m.heartbeating() {
		return
	}
	if m.urgent() {
		m.sendHeartbeat(now, out)
		return
	}
	if !m.timers[HeartbeatTimer].Armed {
		m.arm(HeartbeatTimer, now+m.interval, out)
	}
}

// buildRequest builds the next heartbeat as Kafka's
// HeartbeatState.buildRequestData does: GroupId, MemberId, MemberEpoch and
// InstanceId always; everything else on a full request (while Joining, and
// after an error or a lost request), otherwise only what changed:
// SubscribedTopicNames when the subscription differs from the one last
// sent, TopicPartitions when the local assignment changed since it was
// last sent, RebalanceTimeoutMs (-1 otherwise) and ServerAssignor only on
// full requests (they never change here). It records what it sends.
func (m *Member) buildRequest() HeartbeatRequest {
	full := m.full || m.state == MemberJoining
	r := HeartbeatRequest{
		GroupID:            m.cfg.GroupID,
		MemberID:           m.cfg.MemberID,
		MemberEpoch:        m.epoch,
		RebalanceTimeoutMs: -1,
	}
	if m.cfg.InstanceID != "" {
		id := m.cfg.InstanceID
		r.InstanceID = &id
	}
	if full {
		r.RebalanceTimeoutMs = int32(m.cfg.RebalanceTimeout)
		if m.cfg.ServerAssignor != "" {
			a := m.cfg.ServerAssignor
			r.ServerAssignor = &a
		}
	}
	if full || !slices.Equal(m.topics, m.sentTopics) {
		r.SubscribedTopicNames, r.SubscriptionSent = slices.Clone(m.topics), true
		m.sentTopics = slices.Clone(m.topics)
	}
	if full || !m.ownedReported {
		r.TopicPartitions, r.OwnedSent = m.owned, true
		m.ownedReported = true
	}
	m.full = false
	return r
}

// sendHeartbeat sends a heartbeat built by buildRequest with a fresh Seq,
// awaits its response (and no other; RequestTimer) and, if it acknowledges a reconciliation, moves
// Acknowledging -> Stable (Kafka's onHeartbeatRequestGenerated).
func (m *Member) sendHeartbeat(now Millis, out *Output) {
	r := m.buildRequest()
	m.seq++
	r.Seq, m.awaitSeq = m.seq, m.seq
	out.Send(m.cfg.Name, CoordinatorNode, r)
	m.cancel(HeartbeatTimer, out)
	m.arm(RequestTimer, now+m.cfg.RequestTimeout, out)
	if m.state == MemberAcknowledging {
		m.become(MemberStable)
	}
}

// timerFired handles a TimerFired: only an armed member timer that is due
// acts; any other firing is stale (the timer was cancelled or re-armed
// later) and ignored.
func (m *Member) timerFired(now Millis, t Timer, out *Output) {
	if t.Member != "" || !node.FireSlot(m.timers[:], t.Kind, now) {
		return
	}
	switch t.Kind {
	case HeartbeatTimer:
		if m.awaitSeq == 0 && m.heartbeating() {
			m.sendHeartbeat(now, out)
		}
	case RequestTimer:
		// The heartbeat got no response in time: it is lost. Kafka resets
		// its HeartbeatState on a failed request, so the next one is full
		// and repeats whatever the lost one reported (an acknowledgement
		// included); the leave heartbeat is sent again as it was.
		if m.awaitSeq != 0 && (m.heartbeating() || m.state == MemberLeaving) {
			m.full = m.state != MemberLeaving
			m.sendHeartbeat(now, out)
		}
	}
}

// receive dispatches a message; only the awaited heartbeat's response is
// looked at (see Matching above).
func (m *Member) receive(now Millis, e Receive, out *Output) {
	r, ok := e.Msg.(HeartbeatResponse)
	if !ok {
		panic(fmt.Sprintf("nextgen: member %s: cannot handle %T", m.cfg.Name, e.Msg))
	}
	if e.From != CoordinatorNode || m.awaitSeq == 0 || r.Seq != m.awaitSeq {
		return
	}
	if r.MemberID != m.cfg.MemberID && (r.Error == spec.None || r.MemberID != "") {
		return
	}
	m.awaitSeq = 0
	m.cancel(RequestTimer, out)
	switch {
	case m.state == MemberLeaving:
		// Whatever the answer, the member has left (Kafka sends the leave
		// heartbeat once and ignores its response).
		m.cancelAll(out)
		m.become(MemberLeft)
	case r.Error != spec.None:
		m.onError(now, r, out)
	default:
		m.onSuccess(now, r, out)
	}
}

// onSuccess handles a success response. It adopts the epoch and the
// interval at once (Kafka's updateMemberEpoch); an assignment is reconciled
// (ignored while preparing to leave, as Kafka's canHandleNewAssignment); a
// response without one only moves the epoch, and, for a stable member, the
// epoch of what it holds. An answer with an epoch below 1 (a coordinator
// bug; franz-go ignores negative epochs) changes nothing.
func (m *Member) onSuccess(now Millis, r HeartbeatResponse, out *Output) {
	if e := r.MemberEpoch; e > 0 {
		m.epoch = e
		if r.HeartbeatIntervalMs > 0 {
			m.interval = Millis(r.HeartbeatIntervalMs)
		}
		switch {
		case m.state == MemberPrepareLeaving:
		case r.AssignmentSent:
			m.target, m.targetEpoch, m.hasTarget = spec.NewSet(r.Assignment...), e, true
			m.reconcile(now, out)
		case m.state == MemberStable:
			m.ownedEpoch = e
		}
	}
	m.schedule(now, out)
}

// onError handles an error response to the awaited heartbeat, as Kafka's
// AbstractHeartbeatRequestManager.onErrorResponse does (the next request
// is a full one whatever the error):
//
//   - FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID: fenced (see fence); a member
//     preparing to leave reports everything lost and is done (Kafka's
//     transitionToFenced from PREPARE_LEAVING);
//   - NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE: retried after the
//     heartbeat interval;
//   - anything else (INVALID_REQUEST, GROUP_MAX_SIZE_REACHED,
//     UNSUPPORTED_ASSIGNOR, UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID,
//     unknown codes): fatal.
func (m *Member) onError(now Millis, r HeartbeatResponse, out *Output) {
	m.full = true
	switch r.Error {
	case spec.FencedMemberEpoch, spec.UnknownMemberID:
		if m.state == MemberPrepareLeaving {
			m.loseAll(out)
			m.cancelAll(out)
			m.become(MemberLeaving)
			m.become(MemberLeft)
			return
		}
		m.fence(now, out)
	case spec.NotCoordinator, spec.CoordinatorNotAvailable:
		m.arm(HeartbeatTimer, now+m.interval, out)
	default:
		detail := "ConsumerGroupHeartbeat: " + r.Error.String()
		if r.ErrorMessage != "" {
			detail += ": " + r.ErrorMessage
		}
		m.fail(detail, out)
	}
}

// fence is Kafka's transitionToFenced then transitionToJoining: everything
// the member works on (owned and revoking) is reported Lost, the epoch goes
// back to 0, the member id is kept, and the member rejoins with a full
// heartbeat. The rejoin goes at once, except when the rejected heartbeat
// was itself a join (epoch 0): then it waits for the heartbeat interval, so
// a coordinator that keeps fencing joins (before KAFKA-19233) is not
// flooded and time can pass until it drops the old membership.
func (m *Member) fence(now Millis, out *Output) {
	wasJoin := m.epoch == 0
	m.become(MemberFenced)
	m.loseAll(out)
	m.target, m.targetEpoch, m.hasTarget = nil, 0, false
	m.become(MemberJoining)
	m.epoch = 0
	m.full = true
	if wasJoin {
		m.arm(HeartbeatTimer, now+m.interval, out)
		return
	}
	m.sendHeartbeat(now, out)
}

// loseAll reports everything the application works on as Lost and forgets
// it: the member no longer holds any assignment.
func (m *Member) loseAll(out *Output) {
	if all := m.owned.Union(m.revoking); !all.IsEmpty() {
		node.Notify(out, Lost, all, m.ownedEpoch, "")
	}
	m.setOwned(nil)
	m.revoking = nil
	m.ownedEpoch = 0
}

// fail stops the member for good: what it works on is lost, a Fatal
// callback says why, every timer is cancelled and the member moves to
// MemberFatal.
func (m *Member) fail(detail string, out *Output) {
	m.loseAll(out)
	node.Notify(out, Fatal, nil, m.epoch, detail)
	m.cancelAll(out)
	m.awaitSeq = 0
	m.hasTarget = false
	m.become(MemberFatal)
}
