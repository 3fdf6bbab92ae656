package nextgen

import (
	"reflect"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/node/nodetest"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestEncodersCoverEveryField fails when a field is added to a type whose
// canonical encoder is written by hand: the encoder must then be updated
// (EncodeMessage, EncodeTimer, EncodeConfig, Member.EncodeCanon), and the
// count here with it.
func TestEncodersCoverEveryField(t *testing.T) {
	enc := func(typ reflect.Type, encoder string, handled int, left ...string) nodetest.Encoded {
		return nodetest.Encoded{Type: typ, Encoder: encoder, Handled: handled, LeftOut: left}
	}
	nodetest.CheckEncoders(t,
		enc(reflect.TypeFor[HeartbeatRequest](), "EncodeMessage", 12),
		enc(reflect.TypeFor[HeartbeatResponse](), "EncodeMessage", 8),
		enc(reflect.TypeFor[OffsetCommitRequest](), "EncodeMessage", 7),
		enc(reflect.TypeFor[OffsetFetchRequest](), "EncodeMessage", 4),
		enc(reflect.TypeFor[OffsetResponse](), "EncodeMessage", 4),
		enc(reflect.TypeFor[Classic](), "EncodeMessage", 1),
		enc(reflect.TypeFor[Timer](), "EncodeTimer", 3),
		enc(reflect.TypeFor[MemberConfig](), "EncodeConfig", 9),
		enc(reflect.TypeFor[Member](), "Member.EncodeCanon", 17, "seq"),
	)
}

// TestMemberEncoding: members that differ in a field the encoding keeps
// encode differently; members that differ only in their issued-id counter,
// or by renumbered correlation ids and a shifted clock, encode alike.
func TestMemberEncoding(t *testing.T) {
	newMember := func() *Member {
		m, err := NewMember(MemberConfig{Name: "A", GroupID: "g", MemberID: "A-1", Topics: []string{"T"}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	enc := func(now int64, m *Member) string {
		e := &canon.Encoder{Now: now}
		m.EncodeCanon(e)
		return string(e.Finish())
	}
	base := newMember()
	base.seq, base.awaitSeq = 4, 4
	base.timers[RequestTimer].Armed, base.timers[RequestTimer].At = true, 1500
	base.owned = spec.Set{{Topic: "T", Partition: 0}}
	want := enc(1000, base)

	same := base.Clone()
	same.seq, same.awaitSeq = 9, 9
	same.timers[RequestTimer].At = 2500
	if enc(2000, same) != want {
		t.Errorf("renumbered ids and a shifted clock encode differently")
	}
	for name, change := range map[string]func(m *Member){
		"owned":     func(m *Member) { m.owned = spec.Set{{Topic: "T", Partition: 1}} },
		"epoch":     func(m *Member) { m.epoch++ },
		"timer":     func(m *Member) { m.timers[RequestTimer].At = 1600 },
		"hasTarget": func(m *Member) { m.hasTarget = !m.hasTarget },
		"topics":    func(m *Member) { m.topics = []string{"U"} },
		"awaitSeq":  func(m *Member) { m.awaitSeq = 0 },
	} {
		m := base.Clone()
		change(m)
		if enc(1000, m) == want {
			t.Errorf("changing %s leaves the encoding the same", name)
		}
	}
}

// TestOffsetFetchEncoding: an OffsetFetch without a member id (an admin
// fetch) and one with an empty member id encode differently, and print
// differently.
func TestOffsetFetchEncoding(t *testing.T) {
	empty := spec.MemberID("")
	none, blank := OffsetFetchRequest{Seq: 2, GroupID: "g"}, OffsetFetchRequest{Seq: 2, GroupID: "g", MemberID: &empty}
	var a, b canon.Encoder
	EncodeMessage(&a, none)
	EncodeMessage(&b, blank)
	if string(a.Buf) == string(b.Buf) {
		t.Errorf("a null and an empty member id encode alike: %x", a.Buf)
	}
	if got := none.String(); got != "OffsetFetch#2 member=null epoch=0" {
		t.Errorf("String() = %q", got)
	}
	if got := blank.String(); got != "OffsetFetch#2 member= epoch=0" {
		t.Errorf("String() = %q", got)
	}
}
