package kwire

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// The tests' topic-id table: a, b and c have ids; "orphan" has none; the
// ghost id names no topic.
var (
	idA     = [16]byte{0xa}
	idB     = [16]byte{0xb}
	idC     = [16]byte{0xc}
	ghostID = [16]byte{0xde, 0xad}
	testIDs = mustIDs(map[string][16]byte{"a": idA, "b": idB, "c": idC})
)

func mustIDs(m map[string][16]byte) TopicIDMap {
	ids, err := NewTopicIDMap(m)
	if err != nil {
		panic(err)
	}
	return ids
}

// testClient is the sender every round trip passes to FromKafka.
var testClient = Client{ID: "client-1", Host: "/10.0.0.1"}

// wire is what the round trips need of a kmsg value.
type wire interface {
	AppendTo([]byte) []byte
	ReadFrom([]byte) error
}

// versioned is a kmsg request or response: its version is not in its
// bytes, so a fresh value must be told it before ReadFrom.
type versioned interface {
	wire
	SetVersion(int16)
}

// fatalf is what *testing.T and *rapid.T share.
type fatalf interface {
	Helper()
	Fatalf(format string, args ...any)
}

// throughBytes encodes m with kmsg's AppendTo and reads the bytes back
// into fresh (set to version first) with kmsg's ReadFrom.
func throughBytes[M versioned](t fatalf, version int16, m, fresh M) M {
	t.Helper()
	b := m.AppendTo(nil)
	fresh.SetVersion(version)
	if err := fresh.ReadFrom(b); err != nil {
		t.Fatalf("v%d: kmsg cannot read back its own encoding (%d bytes): %v", version, len(b), err)
	}
	return fresh
}

// same fails t with a diff when got differs from want.
func same(t fatalf, what string, version int16, want, got any) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("%s v%d: round trip differs from what the version carries (-want +got):\n%s", what, version, d)
	}
}

// Generators. Strings are short and ASCII; the empty string is common,
// so "" versus null is exercised on every nullable field.

func genString(t *rapid.T, label string) string {
	return rapid.StringMatching(`[a-z0-9._-]{0,5}`).Draw(t, label)
}

func genOptString(t *rapid.T, label string) *string {
	if rapid.Bool().Draw(t, label+"-null") {
		return nil
	}
	s := genString(t, label)
	return &s
}

func genBytes(t *rapid.T, label string) []byte {
	if rapid.IntRange(0, 4).Draw(t, label+"-kind") == 0 {
		return nil
	}
	return rapid.SliceOfN(rapid.Byte(), 0, 6).Draw(t, label)
}

func genMetadata(t *rapid.T, label string) classic.Metadata {
	return classic.Metadata(rapid.SliceOfN(rapid.Byte(), 0, 6).Draw(t, label))
}

func genMemberID(t *rapid.T, label string) spec.MemberID {
	return spec.MemberID(rapid.SampledFrom([]string{"", "m-1", "m-2", "consumer-7a"}).Draw(t, label))
}

func genCode(t *rapid.T, label string) spec.ErrorCode {
	return spec.ErrorCode(rapid.OneOf(rapid.SampledFrom([]int16{0, 0, 16, 22, 25, 27, 69, 79, 82, 110}), rapid.Int16()).Draw(t, label))
}

// forEachVersion checks prop with rapid at every version from 0 to max,
// each as its own subtest (rapid prints how to reproduce a failure).
func forEachVersion(t *testing.T, max int16, prop func(t *rapid.T, v int16)) {
	for v := int16(0); v <= max; v++ {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) { prop(rt, v) })
		})
	}
}

// genSet draws topic-partitions of a, b, c and orphan (partitions 0–5).
func genSet(t *rapid.T, label string) spec.Set {
	rs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) spec.Resource {
		return spec.TP(rapid.SampledFrom([]string{"a", "b", "c", "orphan"}).Draw(t, "topic"), rapid.Int32Range(0, 5).Draw(t, "partition"))
	}), 0, 6).Draw(t, label)
	return spec.NewSet(rs...)
}

// withIDs keeps the resources of s whose topic testIDs resolves.
func withIDs(s spec.Set) spec.Set {
	return s.Filter(func(r spec.Resource) bool { _, ok := testIDs.TopicID(r.Topic); return ok })
}

// nilIfEmpty normalizes a decoded list: kmsg reads an empty
// non-nullable array as nil.
func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// mustNot fails t when err is nil, and returns the error's text.
func mustFail(t *testing.T, what string, err error) string {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	return err.Error()
}
