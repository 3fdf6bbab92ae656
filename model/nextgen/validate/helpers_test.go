package validate

import (
	"testing"

	"github.com/rebalance-ref/rebalance/model/nextgen/message"
	"github.com/rebalance-ref/rebalance/spec"
)

func str(s string) *string { return &s }

// join is a valid first heartbeat (epoch 0) of a dynamic member.
func join(member spec.MemberID) message.HeartbeatRequest {
	return message.HeartbeatRequest{
		GroupID:              "g",
		MemberID:             member,
		MemberEpoch:          0,
		RebalanceTimeoutMs:   5000,
		SubscribedTopicNames: []string{"foo", "bar"},
		SubscriptionSent:     true,
		OwnedSent:            true,
	}
}

// beat is a valid regular heartbeat that sends nothing but its epoch.
func beat(member spec.MemberID, epoch spec.Epoch) message.HeartbeatRequest {
	return message.HeartbeatRequest{GroupID: "g", MemberID: member, MemberEpoch: epoch, RebalanceTimeoutMs: -1}
}

// owning returns r with TopicPartitions sent as owned.
func owning(r message.HeartbeatRequest, owned ...spec.Resource) message.HeartbeatRequest {
	r.OwnedSent = true
	r.TopicPartitions = owned
	return r
}

// static returns r as a static member's request with the instance id.
func static(r message.HeartbeatRequest, instance string) message.HeartbeatRequest {
	r.InstanceID = str(instance)
	return r
}

func with(r message.HeartbeatRequest, edit func(*message.HeartbeatRequest)) message.HeartbeatRequest {
	edit(&r)
	return r
}

func foo(ps ...int32) []spec.Resource {
	var out []spec.Resource
	for _, p := range ps {
		out = append(out, spec.TP("foo", p))
	}
	return out
}

// checkRejection compares a rejection with the expected code and, when
// wantMsg is not empty, the exact message.
func checkRejection(t *testing.T, got Rejection, wantCode spec.ErrorCode, wantMsg string) {
	t.Helper()
	if got.Code != wantCode {
		t.Fatalf("got %v, want code %s", got, wantCode)
	}
	if got.OK() != (wantCode == spec.None) {
		t.Fatalf("OK() = %v for %v", got.OK(), got)
	}
	if wantCode == spec.None && got.Message != "" {
		t.Fatalf("accepted with a message: %q", got.Message)
	}
	if wantMsg != "" && got.Message != wantMsg {
		t.Fatalf("message:\n got %q\nwant %q", got.Message, wantMsg)
	}
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	f()
}

func TestStrings(t *testing.T) {
	checks := []struct{ got, want string }{
		{Rejection{}.String(), "OK"},
		{Rejection{Code: spec.FencedMemberEpoch, Message: "m"}.String(), "FENCED_MEMBER_EPOCH: m"},
		{Decision{}.String(), "none"},
		{Decision{Kind: NewMember}.String(), "new-member"},
		{Decision{Kind: ExistingMember, Member: "m1"}.String(), "existing-member m1"},
		{Decision{Kind: ReplaceStatic, Member: "m3"}.String(), "replace-static m3"},
		{DecisionKind(9).String(), "DecisionKind(9)"},
		{LeaveDecision{}.String(), "none"},
		{LeaveDecision{Kind: Fence, Member: "m1"}.String(), "fence m1"},
		{LeaveDecision{Kind: StaticTemporaryLeave, Member: "m2"}.String(), "static-temporary-leave m2"},
		{LeaveKind(9).String(), "LeaveKind(9)"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	resp := Rejection{Code: spec.UnknownMemberID, Message: "x"}.Response()
	if resp.Error != spec.UnknownMemberID || resp.ErrorMessage != "x" {
		t.Errorf("Response() = %v", resp)
	}
	if !IsLeave(spec.LeaveEpoch) || !IsLeave(spec.StaticLeaveEpoch) || IsLeave(0) || IsLeave(-3) {
		t.Error("IsLeave is wrong")
	}
}
