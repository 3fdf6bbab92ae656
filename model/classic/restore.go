package classic

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rebalance-ref/rebalance/spec"
)

// RestoreCoordinator returns the classic coordinator of a group rebuilt
// from plain data, and what the driver must do at once: the online
// downgrade of a consumer group to a classic group (KIP-848; Kafka's
// GroupMetadataManager.convertToClassicGroup with
// ClassicGroup.fromConsumerGroup), whose data
// nextgen.(*Coordinator).DowngradeTo gives.
//
// What it builds, as Kafka does:
//
//   - The group at g.Generation (the consumer group's epoch), protocol
//     type g.ProtocolType ("consumer"), state Stable, with one member per
//     g.Members entry: its id, instance id, node, client id and host,
//     session and rebalance timeouts (a RebalanceTimeout of 0 or less means
//     the session timeout), protocols with their metadata, and its stored
//     assignment (Assignment: what the member's SyncGroup at this
//     generation would get).
//   - The protocol: g.Protocol if every member supports it, otherwise the
//     vote (selectProtocol, as ClassicGroup.fromConsumerGroup runs it).
//   - The leader: g.Leader if it is a member, otherwise the first member
//     by id. Departure: Kafka's leader is the first member added, in the
//     consumer group's hash-map order.
//   - Member ids generated later are numbered from g.NextMemberID, and
//     past every restored id of the generated form <client>-<prefix><n>,
//     so that no generated id is ever one of the restored ones.
//   - Every member's session timer, armed at now plus its session timeout
//     (rescheduleClassicGroupMemberHeartbeat).
//   - If g.State is GroupPreparingRebalance, the rebalance Kafka starts at
//     once ("Downgrade group g from consumer to classic.", the downgrade
//     of a member that left or was fenced): the group moves to
//     PreparingRebalance and the JoinTimer is armed at now plus the largest
//     rebalance timeout, so every member rejoins. If g.State is
//     GroupStable the group stays Stable (the downgrade of a static member
//     replacement, which Kafka does without a rebalance).
//
// The other fields of g (Pending, the members' Join and Sync) must be
// empty: a consumer group has no parked classic request. g.Instances is
// ignored: the static members are those with an InstanceID.
//
// With no member, the group is Empty at g.Generation and nothing is armed
// (Kafka never downgrades an empty group; an empty group is replaced
// offline).
//
// RestoreCoordinator panics on a configuration NewCoordinator rejects and
// on data no coordinator could hold: a state other than the three above,
// members without a protocol type, a repeated member or instance id, an
// empty member id, a member without protocols, parked requests or pending
// ids, or no protocol every member supports. These are driver bugs.
func RestoreCoordinator(cfg CoordinatorConfig, g CoordinatorSnapshot, now Millis) (*Coordinator, Output) {
	c, err := NewCoordinator(cfg)
	if err != nil {
		panic(fmt.Sprintf("classic: RestoreCoordinator: %v", err))
	}
	fail := func(format string, args ...any) {
		panic(fmt.Sprintf("classic: RestoreCoordinator: "+format, args...))
	}
	s := &coordStep{now: now}
	c.generation = g.Generation
	c.nextMemberID = max(g.NextMemberID, 1)
	if len(g.Pending) > 0 {
		fail("pending member ids %v", g.Pending)
	}
	if len(g.Members) == 0 {
		if g.State != GroupEmpty {
			fail("state %s without members", g.State)
		}
		return c, s.out
	}
	if g.State != GroupStable && g.State != GroupPreparingRebalance {
		fail("state %s: a restored group is Stable or PreparingRebalance", g.State)
	}
	if g.ProtocolType == "" {
		fail("members without a protocol type")
	}
	c.protocolType = g.ProtocolType
	for _, ms := range g.Members {
		if ms.ID == "" {
			fail("a member with an empty id")
		}
		if c.members.Get(ms.ID) != nil {
			fail("member %s twice", ms.ID)
		}
		if len(ms.Protocols) == 0 {
			fail("member %s has no protocols", ms.ID)
		}
		if ms.Join.Parked || ms.Sync.Parked {
			fail("member %s has a parked request", ms.ID)
		}
		m := &coordMember{
			id: ms.ID, instanceID: ms.InstanceID, clientID: ms.ClientID, clientHost: ms.ClientHost,
			node: ms.Node, protocols: slices.Clone(ms.Protocols),
			sessionTimeout: ms.SessionTimeout, rebalanceTimeout: ms.RebalanceTimeout,
			assignment: ms.Assignment,
		}
		if m.rebalanceTimeout <= 0 {
			m.rebalanceTimeout = m.sessionTimeout
		}
		if m.instanceID != "" {
			if _, ok := c.instances[m.instanceID]; ok {
				fail("instance id %s twice", m.instanceID)
			}
			c.instances[m.instanceID] = m.id
		}
		c.members.Put(m.id, m)
		c.count(m, +1)
		if n, ok := generatedNumber(m.id, m.clientID, cfg.MemberIDPrefix); ok && n >= c.nextMemberID {
			c.nextMemberID = n + 1
		}
	}
	if len(c.candidates()) == 0 {
		fail("no protocol every member supports")
	}
	c.protocol = g.Protocol
	if !slices.Contains(c.candidates(), c.protocol) {
		c.protocol = c.selectProtocol()
	}
	c.leader = g.Leader
	if !c.IsMember(c.leader) {
		c.leader = c.sortedIDs()[0]
	}
	c.state = GroupStable
	for _, id := range c.sortedIDs() {
		c.armSession(s, c.members.Get(id))
	}
	if g.State == GroupPreparingRebalance {
		c.prepareRebalance(s)
	}
	return c, s.out
}

// generatedNumber returns n when id has the form of a member id this
// coordinator generates for clientID, <clientID>-<prefix><n>.
func generatedNumber(id spec.MemberID, clientID, prefix string) (uint64, bool) {
	rest, ok := strings.CutPrefix(string(id), clientID+"-"+prefix)
	if !ok || rest == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	return n, err == nil
}
