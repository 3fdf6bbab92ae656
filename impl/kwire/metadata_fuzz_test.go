package kwire

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// The embedded protocols' decoders read bytes a client (or a leader)
// chose. Each target below checks that the decoder never panics, and that
// whatever it accepts encodes again (at the version it was read as, a
// newer one read as the newest known) to bytes that decode to the same
// value: decode ∘ encode ∘ decode = decode.

func fuzzSets() []spec.Set {
	return []spec.Set{
		nil,
		spec.NewSet(spec.TP("a", 0), spec.TP("a", 1), spec.TP("b", 2)),
		spec.NewSet(spec.Connector("x"), spec.Task("x", 0), spec.Task("y", 1)),
	}
}

// FuzzDecodeConsumerSubscription: see above; the consumer protocol's
// JoinGroup metadata (versions 0–3).
func FuzzDecodeConsumerSubscription(f *testing.F) {
	for v := range maxConsumerProtocol + 1 {
		for _, s := range []classic.Subscription{
			{Topics: []string{"a"}, Generation: spec.NoGeneration},
			{Topics: []string{"a", "b"}, Owned: fuzzSets()[1], Generation: 5},
		} {
			md, err := EncodeConsumerSubscription(s, ConsumerExtras{Version: v, Rack: ptr("r1"), UserData: []byte("ud")})
			if err != nil {
				f.Fatal(err)
			}
			f.Add([]byte(md))
		}
	}
	f.Add([]byte{0, 9, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 2, 3}) // v9: read as v3, trailing bytes ignored
	f.Add([]byte{0xff, 0xff, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, x, err := DecodeConsumerSubscription(classic.Metadata(b))
		if err != nil {
			return
		}
		x.Version = min(x.Version, maxConsumerProtocol)
		md, err := EncodeConsumerSubscription(s, x)
		if err != nil {
			t.Fatalf("%x decoded as %+v %+v, which does not encode: %v", b, s, x, err)
		}
		s2, x2, err := DecodeConsumerSubscription(md)
		if err != nil {
			t.Fatalf("%x decoded as %+v %+v, whose encoding %x does not decode: %v", b, s, x, []byte(md), err)
		}
		if d := cmp.Diff(s, s2) + cmp.Diff(x, x2); d != "" {
			t.Fatalf("%x: decoded again differently (-first +second):\n%s", b, d)
		}
	})
}

// FuzzDecodeConsumerAssignment: see above; the consumer protocol's
// SyncGroup assignment.
func FuzzDecodeConsumerAssignment(f *testing.F) {
	for v := range maxConsumerProtocol + 1 {
		for _, s := range []spec.Set{nil, fuzzSets()[1]} {
			md, err := EncodeConsumerAssignment(classic.Assignment{Assigned: s}, ConsumerExtras{Version: v, UserData: []byte("ud")})
			if err != nil {
				f.Fatal(err)
			}
			f.Add([]byte(md))
		}
	}
	f.Add([]byte{0, 7, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 9})
	f.Add([]byte{0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		a, x, err := DecodeConsumerAssignment(classic.Metadata(b))
		if err != nil {
			return
		}
		x.Version = min(x.Version, maxConsumerProtocol)
		md, err := EncodeConsumerAssignment(a, x)
		if err != nil {
			t.Fatalf("%x decoded as %+v %+v, which does not encode: %v", b, a, x, err)
		}
		a2, x2, err := DecodeConsumerAssignment(md)
		if err != nil {
			t.Fatalf("%x decoded as %+v %+v, whose encoding %x does not decode: %v", b, a, x, []byte(md), err)
		}
		if d := cmp.Diff(a, a2) + cmp.Diff(x, x2); d != "" {
			t.Fatalf("%x: decoded again differently (-first +second):\n%s", b, d)
		}
	})
}

// FuzzDecodeConnectSubscription: see above; Kafka Connect's JoinGroup
// metadata (versions 0–2, with the current assignment nested from v1).
func FuzzDecodeConnectSubscription(f *testing.F) {
	for v := range maxConnectProtocol + 1 {
		for _, s := range []classic.Subscription{
			{Generation: spec.NoGeneration},
			{Owned: fuzzSets()[2], Leader: "w-1", Generation: spec.NoGeneration},
		} {
			md, err := EncodeConnectSubscription(s, ConnectWorker{Version: v, URL: "http://w:8083", ConfigOffset: 12})
			if err != nil {
				f.Fatal(err)
			}
			f.Add([]byte(md))
		}
	}
	f.Add([]byte{0, 5, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, w, err := DecodeConnectSubscription(classic.Metadata(b))
		if err != nil {
			return
		}
		w.Version = min(w.Version, maxConnectProtocol)
		md, err := EncodeConnectSubscription(s, w)
		if err != nil {
			t.Fatalf("%x decoded as %+v %+v, which does not encode: %v", b, s, w, err)
		}
		s2, w2, err := DecodeConnectSubscription(md)
		if err != nil {
			t.Fatalf("%x decoded as %+v %+v, whose encoding %x does not decode: %v", b, s, w, []byte(md), err)
		}
		if d := cmp.Diff(s, s2) + cmp.Diff(w, w2); d != "" {
			t.Fatalf("%x: decoded again differently (-first +second):\n%s", b, d)
		}
	})
}

// FuzzDecodeConnectAssignment: see above; Kafka Connect's SyncGroup
// assignment (versions 0–2) for a worker that owns the set the second
// input names (spec.ParseSet; an unreadable one is skipped). At v1+ the
// bytes list only what is new, so the re-encoding is taken against the
// same owned set.
func FuzzDecodeConnectAssignment(f *testing.F) {
	sets := fuzzSets()
	for v := range maxConnectProtocol + 1 {
		for _, c := range []struct {
			a     classic.Assignment
			owned spec.Set
		}{
			{classic.Assignment{Leader: "w-1"}, nil},
			{classic.Assignment{Assigned: sets[2], Leader: "w-1"}, spec.NewSet(spec.Connector("x"))},
			{classic.Assignment{Assigned: spec.NewSet(spec.Task("x", 0)), Revoked: spec.NewSet(spec.Task("y", 1)), Delay: 3000, Leader: "w-2", Error: spec.UnknownServerError}, sets[2].Minus(spec.NewSet(spec.Connector("x")))},
		} {
			md, err := EncodeConnectAssignment(c.a, c.owned, ConnectAssignmentExtras{Version: v, LeaderURL: "http://w:8083", ConfigOffset: 7})
			if err != nil {
				f.Fatal(err)
			}
			f.Add([]byte(md), c.owned.String())
		}
	}
	f.Add([]byte{0, 1, 0, 2}, "{}")
	f.Fuzz(func(t *testing.T, b []byte, ownedText string) {
		owned, err := spec.ParseSet(ownedText)
		if err != nil {
			return
		}
		a, x, err := DecodeConnectAssignment(classic.Metadata(b), owned)
		if err != nil {
			return
		}
		x.Version = min(x.Version, maxConnectProtocol)
		md, err := EncodeConnectAssignment(a, owned, x)
		if err != nil {
			t.Fatalf("%x (owning %s) decoded as %+v %+v, which does not encode: %v", b, owned, a, x, err)
		}
		a2, x2, err := DecodeConnectAssignment(md, owned)
		if err != nil {
			t.Fatalf("%x (owning %s) decoded as %+v %+v, whose encoding %x does not decode: %v", b, owned, a, x, []byte(md), err)
		}
		if d := cmp.Diff(a, a2) + cmp.Diff(x, x2); d != "" {
			t.Fatalf("%x (owning %s): decoded again differently (-first +second):\n%s", b, owned, d)
		}
	})
}
