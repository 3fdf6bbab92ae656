package classic

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file is the member inside a generation: the SyncGroup response that
// installs its assignment, the heartbeat responses that tell it to rejoin,
// and Kafka's reactions to being fenced.

// syncResponse handles the response to the SyncGroup the member waits for.
func (m *Member) syncResponse(now Millis, r SyncGroupResponse, out *Output) {
	if m.state != AwaitingSync || r.Seq != m.syncSeq {
		return
	}
	m.syncSeq = 0
	switch r.Error {
	case spec.None:
		m.synced(now, r.Assignment, out)
	case spec.RebalanceInProgress, spec.CoordinatorNotAvailable, spec.NotCoordinator:
		// A new rebalance began before this one completed (or the
		// coordinator moved): rejoin, keeping what we own; an eager member
		// revokes it in prepareJoin. (Kafka 3.3 briefly reset the
		// generation here, which declares everything lost: KAFKA-13891,
		// reverted by KAFKA-14016; the fault switch restores it.)
		if r.Error == spec.RebalanceInProgress && m.cfg.Faults.Has(SyncRebalanceResetsGeneration) {
			m.lose(out)
			m.resetGeneration(false)
		}
		m.joinGroup(now, out)
	case spec.IllegalGeneration:
		m.lose(out)
		m.resetGeneration(m.cfg.Faults.Has(IllegalGenerationResetsMemberID))
		m.joinGroup(now, out)
	case spec.UnknownMemberID:
		m.lose(out)
		m.resetGeneration(true)
		m.joinGroup(now, out)
	default:
		// FENCED_INSTANCE_ID (KIP-345) and anything unexpected.
		m.fail("SyncGroup: "+r.Error.String(), out)
	}
}

// synced installs the assignment of the generation (Kafka's
// ConsumerCoordinator.onJoinComplete, Connect's
// WorkerCoordinator.onJoinComplete and DistributedHerder).
//
//	revoked = (owned − Assigned) ∪ (Revoked ∩ owned)
//	added   = Assigned − owned
//	owned   = Assigned
//
// Revoked runs before Assigned. Under the cooperative protocols a non-empty
// revocation is followed by an immediate rejoin, so that the freed
// resources are handed out in a follow-up round (KIP-429); a positive Delay
// arms the scheduled rebalance (KIP-415). An assignment carrying an Error
// (the leader's assignor failed) changes nothing, and so does one that
// gives the member a topic it no longer subscribes to: the member rejoins.
func (m *Member) synced(now Millis, md Metadata, out *Output) {
	memo := m.codec()
	a, err := decodeAssignment(md, &memo.assigned, &memo.owned)
	subscribed := err == nil && a.Error == spec.None && m.onlySubscribed(a.Assigned)
	if subscribed {
		memo.subscribed, memo.subscribedTo = a.Assigned, m.topics
	}
	m.remember(memo)
	if err != nil {
		m.fail(fmt.Sprintf("SyncGroup: %v", err), out)
		return
	}
	m.cancel(RequestTimer, out)
	m.become(Stable)
	if a.Error == spec.None {
		if !subscribed {
			// Kafka's ConsumerCoordinator.onJoinComplete: an assignment that
			// does not match the current subscription was computed for an
			// older one (the subscription changed after the member joined,
			// or a static member was replaced without a rebalance). It is
			// not applied; the member rejoins with its current subscription.
			m.joinGroup(now, out)
			return
		}
	}
	followUp := false
	if a.Error == spec.None {
		revoked := m.owned.Minus(a.Assigned).Union(a.Revoked.Intersect(m.owned))
		added := a.Assigned.Minus(m.owned)
		if !revoked.IsEmpty() {
			if m.cfg.Faults.Has(KeepRevoked) {
				m.kept = m.kept.Union(revoked)
			} else {
				node.Notify(out, Revoked, revoked, m.ownedGen, "")
			}
		}
		// A kept resource handed back is owned again.
		m.kept = m.kept.Minus(a.Assigned)
		if !added.IsEmpty() {
			node.Notify(out, Assigned, added, m.generation, "")
		}
		m.owned = a.Assigned
		m.ownedGen, m.ownedLeader = m.generation, m.leader
		m.lastCompleted = m.generation
		if a.Delay > 0 {
			// Connect's DistributedHerder: scheduledRebalance = now + delay.
			// A later assignment without a delay does not cancel it here;
			// Connect's onAssigned does (docs/protocols/classic.md).
			m.arm(ScheduledRebalanceTimer, now+a.Delay, out)
		}
		// KIP-429: the local mode decides, as in Kafka's onJoinComplete;
		// an eager member revoked everything before joining. A revocation
		// in the assignment asks for the follow-up round even when the
		// member no longer holds what it names (Connect's herder rejoins on
		// any revocation): a static member that restarted during the
		// revoking round gets the stored assignment, owns none of it, and
		// is the only member that would start the round handing it out.
		followUp = !m.eager && (!revoked.IsEmpty() || !a.Revoked.IsEmpty())
	}
	if followUp || m.rejoinAfterSync {
		m.joinGroup(now, out)
	}
}

// heartbeatResponse handles the response to the member's latest heartbeat,
// and, while that one is outstanding, the response to any earlier
// heartbeat of the member's generation: the heartbeat timer sends at
// every interval whether or not the last heartbeat has been answered (as
// Kafka's heartbeat thread does: Heartbeat.shouldHeartbeat is the timer
// alone), so over a round trip of an interval or more every response is
// overtaken by a newer heartbeat, and Kafka's client handles each one for
// the generation it was sent in (AbstractCoordinator's
// HeartbeatResponseHandler). Reading only the latest, a member never saw
// a REBALANCE_IN_PROGRESS and never rejoined (the scenario
// heartbeat_response_overtaken.txt). Responses to heartbeats sent before
// the member last started to join are stale and ignored (joinGroup
// forgets heartbeatSeq; the state is checked first), as is a response
// once the latest heartbeat has been answered (a duplicate) and one with
// Seq 0, which names no request of the member's (the cost simulator's
// stand-in for Kafka's heartbeat thread sends such heartbeats while a
// revocation callback runs).
//
// Under the model checker's prompt network a heartbeat is sent only when
// nothing is in flight, so at most one heartbeat of a member is ever
// outstanding there and only the first clause applies: Classic.tla's
// HeartbeatResponse (its cur flag) is that case.
func (m *Member) heartbeatResponse(now Millis, r HeartbeatResponse, out *Output) {
	if r.Seq == 0 || m.heartbeatSeq == 0 || (m.state != AwaitingSync && m.state != Stable) {
		return
	}
	latest := r.Seq == m.heartbeatSeq
	if !latest && r.Generation != m.generation {
		return
	}
	if latest {
		m.heartbeatSeq = 0
	}
	switch r.Error {
	case spec.None, spec.CoordinatorNotAvailable, spec.NotCoordinator:
		// Nothing to do; a lost coordinator is retried by the next
		// heartbeat.
	case spec.RebalanceInProgress:
		m.requestRejoin(now, false, out)
	case spec.IllegalGeneration:
		m.lose(out)
		m.resetGeneration(m.cfg.Faults.Has(IllegalGenerationResetsMemberID))
		m.joinGroup(now, out)
	case spec.UnknownMemberID:
		m.lose(out)
		m.resetGeneration(true)
		m.joinGroup(now, out)
	default:
		// FENCED_INSTANCE_ID (KIP-345) and anything unexpected.
		m.fail("Heartbeat: "+r.Error.String(), out)
	}
}

// lose gives up everything the member works on as lost (Kafka's
// onPartitionsLost): the coordinator no longer counts its generation or
// membership, so the resources may already belong to someone else and must
// not be committed.
func (m *Member) lose(out *Output) {
	if all := m.owned.Union(m.kept); !all.IsEmpty() {
		node.Notify(out, Lost, all, m.ownedGen, "")
	}
	m.owned, m.kept = nil, nil
	m.ownedGen, m.ownedLeader = spec.NoGeneration, ""
}

// resetGeneration forgets the member's generation (Kafka's
// resetGenerationOnResponseError) and, if memberID, its member id too.
func (m *Member) resetGeneration(memberID bool) {
	m.generation, m.leader, m.protocol = spec.NoGeneration, "", ""
	if memberID {
		m.id = ""
	}
}

// fail stops the member for good: what it owns is lost, a Fatal callback
// says why, every timer is cancelled and the member moves to Failed.
func (m *Member) fail(detail string, out *Output) {
	m.lose(out)
	node.Notify(out, Fatal, nil, m.generation, detail)
	m.cancelAll(out)
	m.joinSeq, m.syncSeq, m.heartbeatSeq = 0, 0, 0
	m.rejoinAfterSync = false
	m.become(Failed)
}
