package kafkaserver

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/impl/kgotest"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// frameOf builds a request frame: the size, key, version, correlation id
// 7, the client id "bad", empty header tags where the version is flexible,
// then body.
func frameOf(key, version int16, body []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint16(b, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(version))
	b = binary.BigEndian.AppendUint32(b, 7)
	b = binary.BigEndian.AppendUint16(b, 3)
	b = append(b, "bad"...)
	if r := kmsg.RequestForKey(key); r != nil {
		r.SetVersion(version)
		if version >= 0 && version <= r.MaxVersion() && r.IsFlexible() {
			b = append(b, 0)
		}
	}
	b = append(b, body...)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// closedByServer reports whether the server closes the connection after
// raw was written (it must neither answer nor hang).
func closedByServer(t *testing.T, addr string, raw []byte) bool {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(raw); err != nil {
		return true
	}
	if tc, ok := c.(*net.TCPConn); ok && len(raw) >= 4 && int(binary.BigEndian.Uint32(raw)) > len(raw)-4 {
		tc.CloseWrite() // a truncated frame: the body never comes
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := c.Read(make([]byte, 1))
	return n == 0 && (errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err))
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}

// TestBadFramesCloseTheConnection: a frame the front cannot read closes
// that connection, as a Kafka broker does, and nothing else happens: the
// server keeps serving, and a stable group keeps its state. The unknown
// API key is the frame that panics kfake's own listener.
func TestBadFramesCloseTheConnection(t *testing.T) {
	rec := kgotest.NewRecorder("g", clientTopics).ObservesCoordinator()
	e := newEnvTopics(t, viaFront, envConfig{observer: rec}, clientTopics)
	g := &clientGroup{t: t, topics: clientTopics, e: e, rec: rec, protocol: kgotest.Cooperative, members: map[string]*kgotest.Member{}, static: map[string]string{}}
	g.start("a", "")
	g.start("b", "")
	g.waitConverged("two join")
	before := describe(t, e)
	observed := len(rec.History().Observations)

	hb := kmsg.NewPtrHeartbeatRequest()
	hb.Group, hb.MemberID, hb.Generation = "g", "nobody", 1
	cases := []struct {
		name string
		raw  []byte
	}{
		{"size prefix only", []byte{0, 0, 0, 40}},
		{"truncated body", frameOf(int16(kmsg.Heartbeat), 3, hb.AppendTo(nil))[:20]},
		{"truncated header", []byte{0, 0, 0, 3, 0, 12, 0}},
		{"negative size", []byte{0xff, 0xff, 0xff, 0xf0, 1, 2, 3, 4}},
		{"size beyond the limit", []byte{0x7f, 0xff, 0xff, 0xff}},
		{"unknown api key", frameOf(9999, 0, nil)},
		{"unknown version", frameOf(int16(kmsg.JoinGroup), 99, []byte{0, 1, 'g'})},
		{"negative version", frameOf(int16(kmsg.Heartbeat), -1, hb.AppendTo(nil))},
		{"garbage body", frameOf(int16(kmsg.JoinGroup), 5, []byte{0xff, 0xff, 0xff, 0xff, 1, 2})},
	}
	for _, tc := range cases {
		if !closedByServer(t, e.seeds[0], tc.raw) {
			t.Errorf("%s: the connection was not closed", tc.name)
		}
	}
	// ApiVersions at a version kmsg does not know: a v0 answer with
	// UNSUPPORTED_VERSION (KIP-511), not a closed connection.
	c, err := net.Dial("tcp", e.seeds[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(frameOf(int16(kmsg.ApiVersions), 99, nil))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := readFrame(c)
	if err != nil {
		t.Fatalf("ApiVersions v99: %v", err)
	}
	av := kmsg.NewPtrApiVersionsResponse()
	av.Version = 0
	if err := av.ReadFrom(resp.body[4:]); err != nil || av.ErrorCode != int16(spec.UnsupportedVersion) {
		t.Fatalf("ApiVersions v99 answered %+v (%v)", av, err)
	}

	if after := describe(t, e); !bytes.Equal([]byte(after), []byte(before)) {
		t.Fatalf("bad frames changed the group:\nbefore: %s\nafter: %s", before, after)
	}
	if n := len(rec.History().Observations); n != observed {
		t.Fatalf("bad frames made the members' callbacks run: %v", rec.History().Observations[observed:])
	}
	if ok, why := g.converged(t.Context()); !ok {
		t.Fatalf("the group is no longer converged: %s", why)
	}
}

// describe prints the classic group's state (generation, leader, members
// with their metadata and stored assignments).
func describe(t *testing.T, e *env) string {
	t.Helper()
	var s string
	if err := e.server.Classic("g").Inspect(t.Context(), func(c *classic.Coordinator) {
		if err := c.CheckInvariants(); err != nil {
			t.Error(err)
		}
		d := c.Describe()
		var b bytes.Buffer
		b.WriteString(d.State.String() + " " + string(d.Leader))
		for _, m := range d.Members {
			b.WriteString(" " + string(m.ID) + "=" + string(m.Assignment))
		}
		s = b.String() + " gen=" + strconv.Itoa(int(d.Generation))
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWrongRequestsGetKafkasErrors: well-formed requests that make no
// sense for the group (nonsense member ids, a stale generation, another
// protocol type, another group, the other family's API) get Kafka's error
// codes and change nothing: the stable group keeps its state and its
// members see no callback.
func TestWrongRequestsGetKafkasErrors(t *testing.T) {
	rec := kgotest.NewRecorder("g", clientTopics).ObservesCoordinator()
	e := newEnvTopics(t, viaFront, envConfig{observer: rec}, clientTopics)
	g := &clientGroup{t: t, topics: clientTopics, e: e, rec: rec, protocol: kgotest.Cooperative, members: map[string]*kgotest.Member{}, static: map[string]string{}}
	g.start("a", "")
	g.start("b", "")
	g.waitConverged("two join")
	before := describe(t, e)
	observed := len(rec.History().Observations)
	d, err := e.server.Classic("g").Describe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	gen, member := int32(d.Generation), string(d.Members[0].ID)

	cl, err := kgo.NewClient(kgo.SeedBrokers(e.seeds...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	type check struct {
		name string
		req  kmsg.Request
		want spec.ErrorCode
	}
	hbNobody := kmsg.NewPtrHeartbeatRequest()
	hbNobody.Group, hbNobody.MemberID, hbNobody.Generation = "g", "nobody-1", gen
	hbStale := kmsg.NewPtrHeartbeatRequest()
	hbStale.Group, hbStale.MemberID, hbStale.Generation = "g", member, gen-1
	hbOther := kmsg.NewPtrHeartbeatRequest()
	hbOther.Group, hbOther.MemberID, hbOther.Generation = "elsewhere", member, gen
	syncNobody := kmsg.NewPtrSyncGroupRequest()
	syncNobody.Group, syncNobody.MemberID, syncNobody.Generation = "g", "nobody-2", gen
	joinConnect := kmsg.NewPtrJoinGroupRequest()
	joinConnect.Group, joinConnect.ProtocolType, joinConnect.SessionTimeoutMillis, joinConnect.RebalanceTimeoutMillis = "g", "connect", 10000, 10000
	joinConnect.Protocols = []kmsg.JoinGroupRequestProtocol{{Name: "sessioned", Metadata: []byte{0}}}
	joinUnknown := kmsg.NewPtrJoinGroupRequest()
	joinUnknown.Group, joinUnknown.MemberID, joinUnknown.ProtocolType, joinUnknown.SessionTimeoutMillis = "g", "nobody-3", "consumer", 10000
	joinUnknown.Protocols = []kmsg.JoinGroupRequestProtocol{{Name: "cooperative-sticky", Metadata: []byte{0}}}
	leaveNobody := kmsg.NewPtrLeaveGroupRequest()
	leaveNobody.Group = "g"
	leaveNobody.Members = []kmsg.LeaveGroupRequestMember{{MemberID: "nobody-4"}}
	commitStale := kmsg.NewPtrOffsetCommitRequest()
	commitStale.Group, commitStale.MemberID, commitStale.Generation = "g", member, gen-1
	commitStale.Topics = []kmsg.OffsetCommitRequestTopic{{Topic: "orders", TopicID: e.cluster.TopicInfo("orders").TopicID, Partitions: []kmsg.OffsetCommitRequestTopicPartition{{Partition: 0, Offset: 3}}}}
	consumerHB := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	consumerHB.Group, consumerHB.MemberID, consumerHB.RebalanceTimeoutMillis = "g", "x", 10000
	consumerHB.SubscribedTopicNames, consumerHB.Topics = []string{"orders"}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	for _, tc := range []check{
		{"heartbeat from a nonsense member id", hbNobody, spec.UnknownMemberID},
		{"heartbeat at a stale generation", hbStale, spec.IllegalGeneration},
		{"heartbeat for another group", hbOther, spec.UnknownMemberID},
		{"sync from a nonsense member id", syncNobody, spec.UnknownMemberID},
		{"join with the protocol type connect", joinConnect, spec.InconsistentGroupProtocol},
		{"join with a nonsense member id", joinUnknown, spec.UnknownMemberID},
		{"leave of a nonsense member id", leaveNobody, spec.UnknownMemberID},
		{"commit at a stale generation", commitStale, spec.IllegalGeneration},
		{"ConsumerGroupHeartbeat to a classic group", consumerHB, spec.GroupIDNotFound},
	} {
		resp, err := cl.Request(ctx, tc.req)
		if got := errCodeOf(t, resp, err); got != int16(tc.want) {
			t.Errorf("%s: got %s, want %s", tc.name, spec.ErrorCode(got), tc.want)
		}
	}
	if after := describe(t, e); after != before {
		t.Fatalf("wrong requests changed the group:\nbefore: %s\nafter: %s", before, after)
	}
	if n := len(rec.History().Observations); n != observed {
		t.Fatalf("wrong requests made the members' callbacks run: %v", rec.History().Observations[observed:])
	}
}

// errCodeOf returns a group response's error code (the first member's or
// partition's where the response has no top-level code that is set).
func errCodeOf(t *testing.T, resp kmsg.Response, err error) int16 {
	t.Helper()
	if err != nil {
		t.Fatalf("request failed: %v", err)
	}
	switch r := resp.(type) {
	case *kmsg.HeartbeatResponse:
		return r.ErrorCode
	case *kmsg.SyncGroupResponse:
		return r.ErrorCode
	case *kmsg.JoinGroupResponse:
		return r.ErrorCode
	case *kmsg.LeaveGroupResponse:
		if r.ErrorCode != 0 || len(r.Members) == 0 {
			return r.ErrorCode
		}
		return r.Members[0].ErrorCode
	case *kmsg.OffsetCommitResponse:
		return r.Topics[0].Partitions[0].ErrorCode
	case *kmsg.ConsumerGroupHeartbeatResponse:
		return r.ErrorCode
	}
	t.Fatalf("unexpected response %T", resp)
	return 0
}
