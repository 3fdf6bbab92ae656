package classic

import (
	"maps"
	"slices"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// This file is the member's reaction to time and to its application:
// timers, subscription changes, leaving, rejoin requests and metadata.

// timerFired handles a TimerFired: only an armed member timer that is due
// acts; any other firing is stale (the timer was cancelled or re-armed
// later) and ignored.
func (m *Member) timerFired(now Millis, t Timer, out *Output) {
	if t.Member != "" || !node.FireSlot(m.timers[:], t.Kind, now) {
		return
	}
	switch t.Kind {
	case HeartbeatTimer:
		// Kafka's heartbeat thread runs in COMPLETING_REBALANCE and STABLE
		// only; while joining, the JoinGroup in flight keeps the member
		// alive and the timer lapses until the next JoinGroupResponse.
		if m.state == AwaitingSync || m.state == Stable {
			m.heartbeatSeq = m.nextSeq()
			out.Send(m.cfg.Name, CoordinatorNode, HeartbeatRequest{Seq: m.heartbeatSeq, MemberID: m.id, InstanceID: m.cfg.InstanceID, Generation: m.generation})
			m.arm(HeartbeatTimer, now+m.cfg.HeartbeatInterval, out)
		}
	case RequestTimer:
		switch m.state {
		case Joining:
			m.sendJoin(now, out)
		case AwaitingSync:
			m.sendSync(now, out)
		}
	case ScheduledRebalanceTimer:
		// KIP-415: the scheduled rebalance delay has passed.
		m.requestRejoin(now, false, out)
	}
}

// requestRejoin asks for a new round. Stable: rejoin now. AwaitingSync:
// rejoin as soon as the SyncGroup completes (the round in flight must end
// first). Joining: the JoinGroup in flight is the rejoin; when fresh, the
// member's subscription changed since it sent it, and it rejoins with the
// new one once the round in flight ends, as Kafka's client does (it never
// has two JoinGroups in flight). Without an id, a second JoinGroup would
// make a second member, an orphan assigned work nobody does until its
// session expires. With one, two JoinGroups in flight may arrive in either
// order where the network reorders a member's requests: the stale one,
// arriving last, starts a round with claims the member no longer has, and
// a cooperative leader hands out what it still owns (ExclusiveOwnership;
// model/classic/world's finding_stale_join_overtaken scenario).
// Unjoined: nothing, Start will join.
func (m *Member) requestRejoin(now Millis, fresh bool, out *Output) {
	switch m.state {
	case Stable:
		m.joinGroup(now, out)
	case AwaitingSync:
		m.rejoinAfterSync = true
	case Joining:
		if fresh {
			m.rejoinAfterSync = true
		}
	}
}

// subscribe changes the subscription, then the member rejoins with it. A
// stable member revokes what it owns of dropped topics at once, as its
// rejoin's prepareJoin would (an eager one then revokes the rest there).
// A member with a round in flight (Joining or AwaitingSync) revokes
// nothing yet: it rejoins once the round ends (requestRejoin), and that
// rejoin's prepareJoin revokes the dropped topics, as Kafka's consumer
// does (KafkaConsumer.subscribe revokes nothing; onJoinComplete ignores
// an assignment made for the old subscription and rejoins; onJoinPrepare
// revokes the topics left, under a generation the group still has). Until
// then the member counts those resources as revoking (View). Revoking
// them at once, when the round in flight has already moved the group to
// a new generation, has the revocation's commit refused: the next owner
// processes the records again (a finding of TestLawsHold, the scenario
// finding_revoke_during_round.txt). The same subscription again is a
// no-op.
func (m *Member) subscribe(now Millis, topics []string, out *Output) {
	ts, err := node.Subscription(topics)
	if err != nil {
		panic("classic: member " + m.cfg.Name + ": Subscribe: " + err.Error())
	}
	if slices.Equal(ts, m.topics) {
		return
	}
	m.topics = ts
	if m.state == Unjoined {
		return
	}
	if m.state == Stable {
		m.revokeUnsubscribed(out)
	}
	m.requestRejoin(now, true, out)
}

// leave leaves the group for good: the member revokes everything it works
// on, a dynamic member that has a member id sends LeaveGroup, a static one
// sends nothing and is removed when its session times out (KIP-345), and
// every timer is cancelled. Under LeaveKeepsWorking it revokes nothing and
// goes on working on what it owns (KAFKA-9849).
func (m *Member) leave(out *Output) {
	if !m.cfg.Faults.Has(LeaveKeepsWorking) {
		if all := m.owned.Union(m.kept); !all.IsEmpty() {
			node.Notify(out, Revoked, all, m.ownedGen, "")
		}
		m.owned, m.kept = nil, nil
	}
	if m.cfg.InstanceID == "" && m.id != "" {
		out.Send(m.cfg.Name, CoordinatorNode, LeaveGroupRequest{Seq: m.nextSeq(), MemberID: m.id})
	}
	m.cancelAll(out)
	m.joinSeq, m.syncSeq, m.heartbeatSeq = 0, 0, 0
	m.rejoinAfterSync = false
	m.become(Left)
}

// metadataUpdate records new partition counts. If the count of a
// subscribed topic changed (or the topic appeared or disappeared), a member
// in the group asks for a new round. While Joining it does nothing more:
// the leader reads its metadata when the JoinGroupResponse arrives, and a
// non-leader's metadata does not enter the round.
func (m *Member) metadataUpdate(now Millis, topics spec.Topics, out *Output) {
	old := m.metadata
	m.metadata = maps.Clone(topics)
	changed := false
	for _, t := range m.topics {
		o, had := old[t]
		n, has := m.metadata[t]
		if had != has || o != n {
			changed = true
			break
		}
	}
	if changed {
		m.requestRejoin(now, false, out)
	}
}
