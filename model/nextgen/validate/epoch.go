package validate

import (
	"github.com/rebalance-ref/rebalance/model/nextgen/message"
	"github.com/rebalance-ref/rebalance/spec"
)

// MemberEpoch checks the member epoch of a regular heartbeat (epoch >= 0)
// against the member the coordinator knows. It models
// GroupMetadataManager.throwIfConsumerGroupMemberEpochIsInvalid:
//
//   - received epoch > info.Epoch: FENCED_MEMBER_EPOCH. This includes any
//     heartbeat to a static member that sits at -2 (temporarily left).
//   - received epoch < info.Epoch: FENCED_MEMBER_EPOCH, unless the received
//     epoch is info.PreviousEpoch and the request sent TopicPartitions and
//     every one of them is in info.Assigned. That exception covers a lost
//     response: the coordinator bumped the member's epoch, the response
//     carrying the bump never arrived, and the member heartbeats again with
//     its old epoch while owning nothing it should not. An empty owned list
//     is a subset; an owned list that was not sent (null) is not. Two or
//     more epochs behind is always fenced.
//   - equal epochs: accepted.
//
// Epoch 0 depends on sem. By default (upstream since KAFKA-19233) a
// received epoch of 0 is always accepted, so an existing member that was
// fenced on the client side rejoins at once. With sem.BeforeKafka19233 it
// goes through the rules above like any other epoch, so an existing member
// above epoch 0 is fenced unless its previous epoch is 0 (it owns nothing
// when it rejoins, so the subset test then passes).
//
// An accepted heartbeat with an older epoch is then handled like any other:
// the response carries the member's epoch after reconciliation, which hands
// the lost bump back to the member.
func MemberEpoch(info MemberInfo, r message.HeartbeatRequest, sem Semantics) Rejection {
	got := r.MemberEpoch
	if got == 0 && !sem.BeforeKafka19233 {
		return Rejection{}
	}
	switch {
	case got > info.Epoch:
		return reject(spec.FencedMemberEpoch,
			"The consumer group member has a greater member epoch (%d) than the one known by the group coordinator (%d). The member must abandon all its partitions and rejoin.",
			got, info.Epoch)
	case got < info.Epoch:
		if got != info.PreviousEpoch || !r.OwnedSent || !subset(r.TopicPartitions, info.Assigned) {
			return reject(spec.FencedMemberEpoch,
				"The consumer group member has a smaller member epoch (%d) than the one known by the group coordinator (%d). The member must abandon all its partitions and rejoin.",
				got, info.Epoch)
		}
	}
	return Rejection{}
}

// subset reports whether every resource of owned is in assigned. owned is
// outside input and need not be sorted; assigned must be a valid spec.Set.
func subset(owned, assigned spec.Set) bool {
	for _, p := range owned {
		if !assigned.Contains(p) {
			return false
		}
	}
	return true
}
