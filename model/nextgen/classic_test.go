package nextgen

import (
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/classic"
)

// TestClassicMessage: a classic message carried to a consumer-group
// coordinator prints as "classic " and the classic message, and encodes
// apart from every next-gen message and from the bare classic message.
func TestClassicMessage(t *testing.T) {
	hb := classic.HeartbeatRequest{Seq: 3, MemberID: "A-1", Generation: 2}
	m := Classic{Msg: hb}
	if got, want := m.String(), "classic Heartbeat#3 member=A-1 gen=2"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := (Classic{}).String(); got != "classic <nil>" {
		t.Errorf("String() of an empty Classic = %q", got)
	}
	var _ Message = m
	enc := func(f func(e *canon.Encoder)) string {
		e := &canon.Encoder{}
		f(e)
		return string(e.Finish())
	}
	carried := enc(func(e *canon.Encoder) { EncodeMessage(e, m) })
	bare := enc(func(e *canon.Encoder) { classic.EncodeMessage(e, hb) })
	if carried == bare || carried[1:] != bare {
		t.Errorf("carried %q, want one kind byte then the classic encoding %q", carried, bare)
	}
	other := enc(func(e *canon.Encoder) {
		EncodeMessage(e, Classic{Msg: classic.HeartbeatRequest{Seq: 3, MemberID: "A-1", Generation: 3}})
	})
	if other == carried {
		t.Errorf("classic messages that differ encode alike")
	}
	ng := enc(func(e *canon.Encoder) { EncodeMessage(e, HeartbeatRequest{Seq: 3, MemberID: "A-1", MemberEpoch: 2}) })
	if ng == carried {
		t.Errorf("a classic and a next-gen heartbeat encode alike")
	}
}
