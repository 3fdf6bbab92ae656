package nextgen

import (
	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// EncodeCanon writes the coordinator's canonical encoding (package canon):
// its group state, the members as a multiset (member ids may be renamed),
// instants relative to the clock. The configuration and the assignors are
// left out: they are fixed when the coordinator is made and never change,
// so they are the same in every state a model compares.
//
// So is what the coordinator's invariants (CheckInvariants) make a
// function of the rest, since two coordinators equal in the rest are then
// equal in it too: the instance ids (exactly the members' own), the
// subscription metadata while it has not expired (what the members'
// subscriptions and the metadata image give), and the owner map except
// under the PerSetEpochUpdate fault (exactly the members' holdings, at
// their epochs). The model checker checks the invariants after every step
// that changes the coordinator, so a state that broke one is reported
// before anything could be merged with it.
//
// A coordinator that has generated no classic member id, and whose members
// all use the consumer protocol, writes no classic field: the classic
// member id counter is written only once it is not 0 (as 2 or 3 where
// exists is written as 0 or 1, then the counter), and a member's classic
// record only for a classic member (after its other fields, inside its
// length-prefixed entry).
func (c *Coordinator) EncodeCanon(e *canon.Encoder) {
	if c.classicIDs == 0 {
		e.Bool(c.exists)
	} else {
		e.Len(2 + boolInt(c.exists))
		e.Counter(c.classicIDs)
	}
	e.Int(int64(c.state))
	e.Int(int64(c.groupEpoch))
	e.Int(int64(c.targetEpoch))
	e.Topics(c.topics)
	e.Bool(c.metadataExpired)
	if c.metadataExpired {
		e.Topics(c.subscribed)
	}
	e.Topics(c.targetTopics)

	c.members.Encode(e, func(m *member) { m.encode(e) })
	// instances: left out (canon:"-"), a function of the members' records.
	e.Assignment(c.target)

	if !c.cfg.Faults.Has(PerSetEpochUpdate) {
		return // owners: a function of the members' records
	}
	// Resources are never renamed, so the owners are written in resource
	// order.
	e.Len(c.owners.len())
	c.owners.each(func(r spec.Resource, s slot) {
		e.String(r.Topic)
		e.Int(int64(r.Partition))
		e.Len(s.count())
		for i := range s.count() {
			h := s.at(i)
			e.Name(string(h.member))
			e.Int(int64(h.epoch))
		}
	})
}

// encode writes every field of the member record (the assignment epochs
// only in a world with commits: see encodeAssignmentEpochs).
func (m member) encode(e *canon.Encoder) {
	e.Name(string(m.id))
	e.String(m.instanceID)
	e.String(m.rack)
	e.String(m.assignor)
	e.Int(int64(m.rebalanceTimeout))
	e.Strings(m.subscription)
	e.Address(m.node)
	e.Int(int64(m.cur.Epoch))
	e.Int(int64(m.cur.PreviousEpoch))
	e.Int(int64(m.cur.State))
	e.Set(m.cur.Assigned)
	e.Set(m.cur.PendingRevocation)
	encodeAssignmentEpochs(e, m.assignedAt)
	e.Int(int64(m.targetMemberEpoch))
	e.Bool(m.sessionArmed)
	e.Instant(int64(m.sessionAt))
	e.Bool(m.rebalanceArmed)
	e.Int(int64(m.rebalanceEpoch))
	e.Instant(int64(m.rebalanceAt))
	if m.cl.use {
		m.cl.encode(e)
	}
}

// encode writes every field of a classic member's record.
func (cm classicMember) encode(e *canon.Encoder) {
	e.Bool(cm.use)
	e.Int(int64(cm.sessionTimeout))
	classic.EncodeProtocols(e, cm.protocols)
	e.Name(cm.clientID)
	e.String(cm.clientHost)
	e.Bool(cm.joinArmed)
	e.Instant(int64(cm.joinAt))
	e.Bool(cm.syncArmed)
	e.Instant(int64(cm.syncAt))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
