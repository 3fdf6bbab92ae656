package nextgen

import (
	"slices"

	"github.com/rebalance-ref/rebalance/model/nextgen/reconcile"
	"github.com/rebalance-ref/rebalance/spec"
)

// CheckInvariants returns an error naming the first broken invariant of
// c's state, or nil. Step keeps every invariant; tests call this after
// every step. With the AssignBeforeRelease fault a partition may have
// several holders (that is the fault; the ownership laws report it). With
// the PerSetEpochUpdate fault the owner map is not checked against what
// the members hold, for the same reason.
//
// The model checker runs it after every step that changes the
// coordinator, so it first decides without allocating whether every
// invariant holds (invariantsHold) and builds the report (checkInvariants)
// only when one does not.
func (c *Coordinator) CheckInvariants() error {
	if c.invariantsHold() {
		return nil
	}
	return c.checkInvariants()
}

// invariantsHold reports whether checkInvariants would return nil, without
// allocating when it does: the same checks, with the owner map compared to
// the members' holdings by counting instead of by building the map of
// holders (every holding is in its partition's slot, and the slots hold
// no more holders than there are holdings), and the subscription metadata
// compared in place.
func (c *Coordinator) invariantsHold() bool {
	if c.state != c.derivedState() || c.targetEpoch < 0 || c.groupEpoch < c.targetEpoch ||
		!c.exists && (len(c.members) > 0 || c.groupEpoch != 0) {
		return false
	}
	if c.members.Ordered() != nil || keyedRight(c.members) != nil { // Ordered allocates only when the table is broken
		return false
	}
	perSet := c.cfg.Faults.Has(PerSetEpochUpdate)
	statics, holdings := 0, 0
	for _, row := range c.members {
		m := row.Rec
		id := m.id
		if m.instanceID != "" {
			statics++
			if c.instances[m.instanceID] != id {
				return false
			}
		}
		if m.cur.Validate() != nil || !assignedAtMatches(m) {
			return false
		}
		e := m.cur.Epoch
		switch {
		case e == spec.StaticLeaveEpoch:
			if m.instanceID == "" || !m.cur.PendingRevocation.IsEmpty() {
				return false
			}
		case e < 0, e > c.targetEpoch, m.cur.PreviousEpoch > e:
			return false
		}
		for i := 1; i < len(m.subscription); i++ {
			if m.subscription[i-1] >= m.subscription[i] {
				return false
			}
		}
		wantRebalance := m.cur.State == reconcile.UnrevokedPartitions && e >= 0 && !m.cl.use
		if !m.sessionArmed || m.rebalanceArmed != wantRebalance || (m.rebalanceArmed && m.rebalanceEpoch != e) || m.cl.check() != nil {
			return false
		}
		tgt, ok := c.target[id]
		if !ok || !m.cl.use && !c.withinSubscription(tgt, m.subscription) {
			return false
		}
		if !perSet {
			// Assigned and PendingRevocation are disjoint (Validate).
			for _, set := range [2]spec.Set{m.cur.Assigned, m.cur.PendingRevocation} {
				for _, p := range set {
					if c.owners.get(p).index(id) < 0 {
						return false
					}
				}
				holdings += len(set)
			}
		}
	}
	if statics != len(c.instances) || len(c.target) != len(c.members) {
		return false
	}
	var buf [32]spec.Resource
	targeted := buf[:0]
	for _, rs := range c.target {
		targeted = append(targeted, rs...)
	}
	if spec.Duplicated(targeted) {
		return false
	}
	if !perSet && !c.ownersMatch(holdings) {
		return false
	}
	return c.metadataExpired || c.subscriptionMetadataCurrent()
}

// ownersMatch reports whether the owner map's slots, each of which holds
// every member's holdings of its partition (invariantsHold checked that),
// hold nothing else: holdings holders in all, each a member, sorted by
// member id, stored without an epoch, and one per partition unless the
// AssignBeforeRelease fault lets several share it.
func (c *Coordinator) ownersMatch(holdings int) bool {
	several := c.cfg.Faults.Has(AssignBeforeRelease)
	n := 0
	for _, row := range c.owners.topics {
		for _, s := range row {
			if s.empty() {
				continue
			}
			if len(s.rest) > 0 && !several {
				return false
			}
			prev := holder{}
			for i := range s.count() {
				h := s.at(i)
				if h.epoch != 0 || !c.members.Has(h.member) || i > 0 && compareHolders(prev, h) >= 0 {
					return false
				}
				prev = h
				n++
			}
		}
	}
	return n == holdings
}

// subscriptionMetadataCurrent reports whether the subscription metadata is
// what subscriptionMetadata computes for the members' subscriptions, without
// computing it: every subscribed topic that exists is in it with its
// partition count, and every topic in it exists with that count and is
// subscribed.
func (c *Coordinator) subscriptionMetadataCurrent() bool {
	for _, row := range c.members {
		m := row.Rec
		for _, t := range m.subscription {
			if n, ok := c.topics[t]; ok {
				if v, ok := c.subscribed[t]; !ok || v != n {
					return false
				}
			}
		}
	}
	for t, v := range c.subscribed {
		if n, ok := c.topics[t]; !ok || n != v || !c.subscribes(t) {
			return false
		}
	}
	return true
}

// subscribes reports whether a member subscribes to topic t.
func (c *Coordinator) subscribes(t string) bool {
	for _, row := range c.members {
		m := row.Rec
		if _, ok := slices.BinarySearch(m.subscription, t); ok {
			return true
		}
	}
	return false
}
