// Package franzgo adapts franz-go's group balancers
// (github.com/twmb/franz-go/pkg/kgo, kgo.GroupBalancer) to this project's
// assignors and protocols, both ways.
//
// # franz-go's balancers as assignors
//
// Assignor(b) is an assign.Assignor that runs a kgo.GroupBalancer exactly
// as a kgo group leader does (kgo's balanceGroup, group_balancer.go): each
// member's subscription, owned partitions and generation are encoded with
// b.JoinGroupMetadata into a kmsg.JoinGroupResponseMember, the members are
// sorted as kgo sorts them (instance ID first, then member ID), then
// b.MemberBalancer, BalanceOrError (or Balance) and IntoSyncAssignment run,
// and every member's bytes are read back with b.ParseSyncAssignment. Range,
// RoundRobin, Sticky and CooperativeSticky wrap franz-go's four balancers.
// The result is what franz-go gives, unjudged: the caller checks it (for
// example with spec.CheckRound), which is the point of a fuzzing adapter.
//
// What it cannot carry: racks. franz-go's built-in balancers balance by
// rack only inside a kgo client with the kgo.BalanceRacks option, from the
// rack of each partition's leader broker that the client puts into the
// unexported ConsumerBalancer fields (balanceGroup: cb.partitionRacks,
// cb.balanceRacks); nothing public sets them, so through Assignor they are
// rack-blind: Member.Rack and Group.ReplicaRacks are ignored. Connect
// connector resources (spec.Connector) cannot be assigned either: a
// connector's tasks are plain partitions to franz-go.
//
// # Our assignors and protocols as kgo balancers
//
// Balancer(a, cooperative) and ProtocolBalancer(p) are kgo.GroupBalancers
// for the "consumer" protocol type: JoinGroup metadata is Kafka's
// ConsumerProtocolSubscription and SyncGroup assignments are Kafka's
// ConsumerProtocolAssignment, encoded by impl/kwire, so any kgo code that
// parses them (kgo.ParseConsumerSyncAssignment, kadm) reads them. What the
// consumer protocol has no field for travels in its UserData, as JSON
// (userdata.go): in the subscription the leader of the member's last
// assignment (classic.Subscription.Leader); in the assignment the
// generation, the leader, Revoked, Delay and Error of classic.Assignment.
//
// What kgo carries and what it does not:
//
//   - Assigned: kgo applies the parsed set as the member's whole
//     assignment; a cooperative member (IsCooperative) revokes what it
//     owned and is no longer assigned, then rejoins at once by itself
//     (consumer_group.go: setupAssignedAndHeartbeat's diffAssigned and
//     prerevoke; revoke(revokeLastSession, ...) calls g.rejoin "after
//     revoking what we lost from a rebalance"). So Revoked needs no hook:
//     our protocols' Revoked is exactly what they own minus Assigned.
//   - Delay: kgo's balancer interface has no way to ask a member to rejoin
//     later, but kgo has (*kgo.Client).ForceRebalance. A balancer with a
//     client attached (AttachClient) arms a timer on every assignment with
//     a positive Delay, and ForceRebalance runs when it fires; a later
//     assignment replaces the timer. Without a client the delay is parsed
//     and dropped: held-back partitions then wait for the next rebalance
//     something else starts. Kafka (and kfake) rebalance on the rejoin of
//     the leader, or of a member whose metadata changed; a follower whose
//     metadata is unchanged would get its current assignment back, but the
//     subscription carries the generation kgo passes (that of the member's
//     last join), so every member's rejoin after a completed round changes
//     its metadata and starts a rebalance: the first timer to fire ends the
//     delay for the group.
//   - Leader memory (Designs II and III): kept in the balancer value, the
//     memory of the process that owns it, fed back as LeaderInput.Memory
//     and replaced by LeaderResult.Memory when the leader balances (kgo
//     gives no hook for "the SyncGroup was sent", so a round whose
//     SyncGroup fails still replaces it; the next round's generation check
//     against LastCompletedGeneration then discards it, as after any lost
//     round). One balancer value per client: memory, the last completed
//     generation, the last leader and the attached client are per process.
//   - Generation and leader: kgo gives them to a GroupMemberBalancerInfo
//     (BalanceInfo.Generation, BalanceInfo.LeaderID), which the member
//     balancer implements. LastCompletedGeneration is the generation of the
//     last assignment this process parsed (carried in its user data).
//   - Errors: a protocol or assignor error, a panic, or a result that fails
//     spec.CheckRound is returned from BalanceOrError. kgo then fails the
//     leader's join (balanceGroup returns the error, joinAndSync logs "join
//     group failed"), calls OnPartitionsLost, injects the error into the
//     next PollFetches (ErrGroupSession) and rejoins after its retry
//     backoff (manageFailWait); the leader's rejoin starts a new rebalance
//     (its metadata carries the new generation) and the followers' pending
//     SyncGroups fail with REBALANCE_IN_PROGRESS. An error that persists
//     makes the group go round once per retry backoff, a new generation
//     each time, nobody owning anything (observed on kfake;
//     TestKgoBalanceErrorOnKfake checks that the application sees the
//     error as a *kgo.ErrGroupSession from PollFetches). There is no way to
//     answer "keep what you own" as our classic leader does
//     (classic.Assignment.Error): an assignment carrying an Error is
//     refused by ParseSyncAssignment, which kgo handles the same way.
//   - Racks: kgo puts its client's rack (kgo.Rack) into the subscription;
//     Balancer passes it to the assignor as Member.Rack, but the replica
//     racks are not known (Group.ReplicaRacks is nil), so the rack-aware
//     assignors stay rack-blind (KIP-881's rule needs both).
package franzgo
