package message

import (
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestString: every message prints on one line, its correlation id as #n
// (nothing when unset), a null field as null and an empty one as empty,
// an error response its code and message only.
func TestString(t *testing.T) {
	str := func(s string) *string { return &s }
	id := spec.MemberID("A-1")
	owned, err := spec.ParseSet("{T-0}")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m    Message
		want string
	}{
		{HeartbeatRequest{Seq: 2, MemberID: "A-1", MemberEpoch: 3, RebalanceTimeoutMs: -1},
			"Heartbeat#2 member=A-1 epoch=3 instance=null rack=null rebalance-timeout=-1 subscription=null assignor=null owned=null"},
		{HeartbeatRequest{MemberID: "A-1", InstanceID: str("a"), RackID: str(""), RebalanceTimeoutMs: 300,
			SubscribedTopicNames: []string{"T", "U"}, SubscriptionSent: true, ServerAssignor: str("uniform"), OwnedSent: true},
			`Heartbeat member=A-1 epoch=0 instance="a" rack="" rebalance-timeout=300 subscription=[T U] assignor="uniform" owned={}`},
		{HeartbeatRequest{SubscriptionSent: true}, // sent empty, not null
			"Heartbeat member= epoch=0 instance=null rack=null rebalance-timeout=0 subscription=[] assignor=null owned=null"},
		{HeartbeatResponse{Seq: 4, Error: spec.FencedMemberEpoch, ErrorMessage: "boom", MemberID: "A-1", MemberEpoch: 3},
			"HeartbeatResponse#4 error=FENCED_MEMBER_EPOCH boom"},
		{HeartbeatResponse{MemberID: "A-1", MemberEpoch: 3}, "HeartbeatResponse member=A-1 epoch=3 assignment=null"},
		{HeartbeatResponse{MemberID: "A-1", MemberEpoch: 3, Assignment: owned, AssignmentSent: true},
			"HeartbeatResponse member=A-1 epoch=3 assignment={T-0}"},
		{OffsetCommitRequest{Seq: 5, GroupID: "g", MemberID: "A-1", MemberEpoch: 2, Version: 9, Partitions: owned},
			"OffsetCommit#5 member=A-1 epoch=2 instance=null version=9 partitions={T-0}"},
		{OffsetFetchRequest{Seq: 6, MemberID: &id, MemberEpoch: 2}, "OffsetFetch#6 member=A-1 epoch=2"},
		{OffsetFetchRequest{MemberEpoch: -1}, "OffsetFetch member=null epoch=-1"},
		{OffsetResponse{Seq: 7, Error: spec.StaleMemberEpoch, ErrorMessage: "stale"}, "OffsetResponse#7 error=STALE_MEMBER_EPOCH stale"},
		{OffsetResponse{StalePartitions: owned}, "OffsetResponse error=NONE stale={T-0}"},
		{OffsetResponse{}, "OffsetResponse error=NONE"},
		{Classic{Msg: classic.HeartbeatRequest{Seq: 3, MemberID: "A-1", Generation: 2}}, "classic Heartbeat#3 member=A-1 gen=2"},
		{Classic{}, "classic <nil>"},
	} {
		if got := c.m.String(); got != c.want {
			t.Errorf("%T.String() = %q, want %q", c.m, got, c.want)
		}
	}
}
