package nextgen

import (
	"reflect"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestEncodersCoverEveryField fails when a field is added to a type whose
// canonical encoder is written by hand: the encoder must then be updated
// (EncodeMessage, EncodeTimer, EncodeConfig, Member.EncodeCanon), and the
// count here with it.
func TestEncodersCoverEveryField(t *testing.T) {
	for _, c := range []struct {
		typ     reflect.Type
		encoded int // fields written (left-out fields are named below)
		left    []string
	}{
		{reflect.TypeFor[HeartbeatRequest](), 12, nil},
		{reflect.TypeFor[HeartbeatResponse](), 8, nil},
		{reflect.TypeFor[OffsetCommitRequest](), 6, nil},
		{reflect.TypeFor[OffsetFetchRequest](), 4, nil},
		{reflect.TypeFor[OffsetResponse](), 3, nil},
		{reflect.TypeFor[Timer](), 3, nil},
		{reflect.TypeFor[MemberConfig](), 9, nil},
		{reflect.TypeFor[Member](), 16, []string{"seq"}},
		{reflect.TypeFor[memberTimer](), 2, nil},
	} {
		if got := c.typ.NumField(); got != c.encoded+len(c.left) {
			t.Errorf("%s has %d fields; its canonical encoder writes %d and leaves out %v: update the encoder", c.typ, got, c.encoded, c.left)
		}
		for _, name := range c.left {
			f, ok := c.typ.FieldByName(name)
			if !ok || f.Tag.Get("canon") != "-" {
				t.Errorf("%s.%s is left out of the encoding but not tagged canon:\"-\"", c.typ, name)
			}
		}
	}
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
	base.timers[RequestTimer] = memberTimer{armed: true, at: 1500}
	base.owned = spec.Set{{Topic: "T", Partition: 0}}
	want := enc(1000, base)

	same := base.Clone()
	same.seq, same.awaitSeq = 9, 9
	same.timers[RequestTimer].at = 2500
	if enc(2000, same) != want {
		t.Errorf("renumbered ids and a shifted clock encode differently")
	}
	for name, change := range map[string]func(m *Member){
		"owned":     func(m *Member) { m.owned = spec.Set{{Topic: "T", Partition: 1}} },
		"epoch":     func(m *Member) { m.epoch++ },
		"timer":     func(m *Member) { m.timers[RequestTimer].at = 1600 },
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
