package kwire

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kmsg"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// carriedJoinGroup is what a JoinGroupRequest at version v keeps of j
// when it comes back through FromKafka with testClient as the sender.
func carriedJoinGroup(v int16, j JoinGroup) JoinGroup {
	r := &j.Request
	r.Seq = 0
	r.ClientID, r.ClientHost = testClient.ID, testClient.Host
	r.RequireKnownMemberID = v >= 4
	if v < 1 {
		r.RebalanceTimeout = 0
	}
	if v < 5 {
		r.InstanceID = ""
	}
	if v < 8 {
		j.Reason = nil
	}
	r.Protocols = nilIfEmpty(r.Protocols)
	return j
}

func genJoinGroup(t *rapid.T) JoinGroup {
	var ps []classic.ProtocolMetadata
	for i := range rapid.IntRange(0, 3).Draw(t, "protocols") {
		ps = append(ps, classic.ProtocolMetadata{Name: genString(t, "name"), Metadata: genMetadata(t, "metadata")})
		_ = i
	}
	return JoinGroup{
		Group: genString(t, "group"),
		Request: classic.JoinGroupRequest{
			Seq: rapid.Uint64().Draw(t, "seq"), MemberID: genMemberID(t, "member"), InstanceID: genString(t, "instance"),
			ClientID: genString(t, "client"), ClientHost: genString(t, "host"), ProtocolType: genString(t, "type"), Protocols: ps,
			SessionTimeout:       classic.Millis(rapid.Int32().Draw(t, "session")),
			RebalanceTimeout:     classic.Millis(rapid.Int32().Draw(t, "rebalance")),
			RequireKnownMemberID: rapid.Bool().Draw(t, "require"),
		},
		Reason: genOptString(t, "reason"),
	}
}

func TestJoinGroupRequestRoundTrip(t *testing.T) {
	forEachVersion(t, maxJoinGroup, func(t *rapid.T, v int16) {
		j := genJoinGroup(t)
		k, err := JoinGroupRequestToKafka(v, j)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := JoinGroupRequestFromKafka(throughBytes(t, v, k, new(kmsg.JoinGroupRequest)), testClient)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "JoinGroupRequest", v, carriedJoinGroup(v, j), got)
	})
}

func carriedJoinGroupResponse(v int16, r classic.JoinGroupResponse) classic.JoinGroupResponse {
	r.Seq = 0
	if v < 7 {
		r.ProtocolType = ""
	}
	if v < 9 {
		r.SkipAssignment = false
	}
	var ms []classic.JoinedMember
	for _, m := range r.Members {
		if v < 5 {
			m.InstanceID = ""
		}
		ms = append(ms, m)
	}
	r.Members = ms
	return r
}

func genJoinGroupResponse(t *rapid.T) classic.JoinGroupResponse {
	var ms []classic.JoinedMember
	for range rapid.IntRange(0, 3).Draw(t, "members") {
		ms = append(ms, classic.JoinedMember{MemberID: genMemberID(t, "id"), InstanceID: genString(t, "instance"), Metadata: genMetadata(t, "md")})
	}
	return classic.JoinGroupResponse{
		Seq: rapid.Uint64().Draw(t, "seq"), Error: genCode(t, "error"), Generation: spec.Generation(rapid.Int32().Draw(t, "gen")),
		ProtocolType: genString(t, "type"), ProtocolName: genString(t, "name"), Leader: genMemberID(t, "leader"),
		MemberID: genMemberID(t, "member"), SkipAssignment: rapid.Bool().Draw(t, "skip"), Members: ms,
	}
}

func TestJoinGroupResponseRoundTrip(t *testing.T) {
	forEachVersion(t, maxJoinGroup, func(t *rapid.T, v int16) {
		resp := genJoinGroupResponse(t)
		k, err := JoinGroupResponseToKafka(v, resp)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := JoinGroupResponseFromKafka(throughBytes(t, v, k, new(kmsg.JoinGroupResponse)))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "JoinGroupResponse", v, carriedJoinGroupResponse(v, resp), got)
	})
}

func carriedSyncGroup(v int16, s SyncGroup) SyncGroup {
	s.Request.Seq = 0
	if v < 3 {
		s.Request.InstanceID = ""
	}
	if v < 5 {
		s.Request.ProtocolType, s.Request.ProtocolName = nil, nil
	}
	s.Request.Assignments = nilIfEmpty(s.Request.Assignments)
	return s
}

func TestSyncGroupRequestRoundTrip(t *testing.T) {
	forEachVersion(t, maxSyncGroup, func(t *rapid.T, v int16) {
		var as []classic.MemberAssignment
		for range rapid.IntRange(0, 3).Draw(t, "assignments") {
			as = append(as, classic.MemberAssignment{MemberID: genMemberID(t, "id"), Assignment: genMetadata(t, "a")})
		}
		s := SyncGroup{Group: genString(t, "group"), Request: classic.SyncGroupRequest{
			Seq: rapid.Uint64().Draw(t, "seq"), MemberID: genMemberID(t, "member"), InstanceID: genString(t, "instance"),
			Generation: spec.Generation(rapid.Int32().Draw(t, "gen")), Assignments: as,
			ProtocolType: genOptString(t, "type"), ProtocolName: genOptString(t, "name"),
		}}
		k, err := SyncGroupRequestToKafka(v, s)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := SyncGroupRequestFromKafka(throughBytes(t, v, k, new(kmsg.SyncGroupRequest)))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "SyncGroupRequest", v, carriedSyncGroup(v, s), got)
	})
}

func carriedSyncGroupResponse(v int16, r classic.SyncGroupResponse) classic.SyncGroupResponse {
	r.Seq = 0
	if v < 5 {
		r.ProtocolType, r.ProtocolName = "", ""
	}
	return r
}

func TestSyncGroupResponseRoundTrip(t *testing.T) {
	forEachVersion(t, maxSyncGroup, func(t *rapid.T, v int16) {
		resp := classic.SyncGroupResponse{Seq: rapid.Uint64().Draw(t, "seq"), Error: genCode(t, "error"), Assignment: genMetadata(t, "a"),
			ProtocolType: genString(t, "type"), ProtocolName: genString(t, "name")}
		k, err := SyncGroupResponseToKafka(v, resp)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := SyncGroupResponseFromKafka(throughBytes(t, v, k, new(kmsg.SyncGroupResponse)))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "SyncGroupResponse", v, carriedSyncGroupResponse(v, resp), got)
	})
}

func carriedHeartbeat(v int16, h Heartbeat) Heartbeat {
	h.Request.Seq = 0
	if v < 3 {
		h.Request.InstanceID = ""
	}
	return h
}

func TestHeartbeatRoundTrip(t *testing.T) {
	forEachVersion(t, maxHeartbeat, func(t *rapid.T, v int16) {
		h := Heartbeat{Group: genString(t, "group"), Request: classic.HeartbeatRequest{Seq: rapid.Uint64().Draw(t, "seq"),
			MemberID: genMemberID(t, "member"), InstanceID: genString(t, "instance"), Generation: spec.Generation(rapid.Int32().Draw(t, "gen"))}}
		k, err := HeartbeatRequestToKafka(v, h)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := HeartbeatRequestFromKafka(throughBytes(t, v, k, new(kmsg.HeartbeatRequest)))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "HeartbeatRequest", v, carriedHeartbeat(v, h), got)

		resp := classic.HeartbeatResponse{Seq: rapid.Uint64().Draw(t, "rseq"), Error: genCode(t, "error")}
		kr, err := HeartbeatResponseToKafka(v, resp)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		gotr, err := HeartbeatResponseFromKafka(throughBytes(t, v, kr, new(kmsg.HeartbeatResponse)))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "HeartbeatResponse", v, classic.HeartbeatResponse{Error: resp.Error}, gotr)
	})
}

// carriedLeaveGroup is what a LeaveGroupRequest at v keeps of lg (which
// has exactly one member below v3).
func carriedLeaveGroup(v int16, lg LeaveGroup) LeaveGroup {
	var ms []classic.LeaveGroupRequest
	for _, m := range lg.Members {
		m.Seq = 0
		if v < 3 {
			m.InstanceID = ""
		}
		ms = append(ms, m)
	}
	lg.Members = ms
	switch {
	case v < 5 || len(ms) == 0:
		lg.Reasons = nil
	case lg.Reasons == nil:
		lg.Reasons = make([]*string, len(ms))
	}
	return lg
}

func genLeaveMembers(t *rapid.T, v int16) []classic.LeaveGroupRequest {
	n := 1
	if v >= 3 {
		n = rapid.IntRange(0, 3).Draw(t, "members")
	}
	var ms []classic.LeaveGroupRequest
	for range n {
		ms = append(ms, classic.LeaveGroupRequest{Seq: rapid.Uint64().Draw(t, "seq"), MemberID: genMemberID(t, "id"), InstanceID: genString(t, "instance")})
	}
	return ms
}

func TestLeaveGroupRoundTrip(t *testing.T) {
	forEachVersion(t, maxLeaveGroup, func(t *rapid.T, v int16) {
		lg := LeaveGroup{Group: genString(t, "group"), Members: genLeaveMembers(t, v)}
		if rapid.Bool().Draw(t, "reasons") {
			for range lg.Members {
				lg.Reasons = append(lg.Reasons, genOptString(t, "reason"))
			}
		}
		k, err := LeaveGroupRequestToKafka(v, lg)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		got, err := LeaveGroupRequestFromKafka(throughBytes(t, v, k, new(kmsg.LeaveGroupRequest)))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "LeaveGroupRequest", v, carriedLeaveGroup(v, lg), got)

		var results []classic.LeaveGroupResponse
		for range lg.Members {
			results = append(results, classic.LeaveGroupResponse{Seq: 9, Error: genCode(t, "error")})
		}
		kr, err := LeaveGroupResponseToKafka(v, lg.Members, results)
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		gotr, err := LeaveGroupResponseFromKafka(throughBytes(t, v, kr, new(kmsg.LeaveGroupResponse)))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		same(t, "LeaveGroupResponse", v, carriedLeaveGroupResponse(v, lg.Members, results), gotr)
	})
}

// carriedLeaveGroupResponse is what a LeaveGroupResponse at v keeps.
func carriedLeaveGroupResponse(v int16, members []classic.LeaveGroupRequest, results []classic.LeaveGroupResponse) LeaveGroupResult {
	if v < 3 {
		return LeaveGroupResult{Error: results[0].Error, Results: []classic.LeaveGroupResponse{{Error: results[0].Error}}}
	}
	var res LeaveGroupResult
	for i, m := range members {
		res.Members = append(res.Members, classic.LeaveGroupRequest{MemberID: m.MemberID, InstanceID: m.InstanceID})
		res.Results = append(res.Results, classic.LeaveGroupResponse{Error: results[i].Error})
	}
	return res
}

// TestClassicFieldMapping pins the mapping at chosen versions: v0, the
// first version of each field, the last.
func TestClassicFieldMapping(t *testing.T) {
	t.Run("JoinGroup request", func(t *testing.T) {
		j := JoinGroup{Group: "g", Reason: ptr("why"), Request: classic.JoinGroupRequest{
			MemberID: "m", InstanceID: "i", ProtocolType: "consumer", SessionTimeout: 10000, RebalanceTimeout: 30000,
			Protocols: []classic.ProtocolMetadata{{Name: "range", Metadata: "md1"}, {Name: "sticky", Metadata: ""}},
		}}
		for _, tc := range []struct {
			v                 int16
			rebalance         classic.Millis
			instance          string
			requireKnown      bool
			reason            *string
			wireInstanceIsNil bool
		}{
			{0, 0, "", false, nil, true},
			{1, 30000, "", false, nil, true},
			{4, 30000, "", true, nil, true},
			{5, 30000, "i", true, nil, false},
			{8, 30000, "i", true, ptr("why"), false},
			{9, 30000, "i", true, ptr("why"), false},
		} {
			k, err := JoinGroupRequestToKafka(tc.v, j)
			if err != nil {
				t.Fatal(err)
			}
			if (k.InstanceID == nil) != tc.wireInstanceIsNil {
				t.Errorf("v%d: wire instance id %v", tc.v, k.InstanceID)
			}
			got, err := JoinGroupRequestFromKafka(throughBytes(t, tc.v, k, new(kmsg.JoinGroupRequest)), Client{ID: "cid", Host: "/h"})
			if err != nil {
				t.Fatal(err)
			}
			want := classic.JoinGroupRequest{MemberID: "m", InstanceID: tc.instance, ClientID: "cid", ClientHost: "/h", ProtocolType: "consumer",
				Protocols: j.Request.Protocols, SessionTimeout: 10000, RebalanceTimeout: tc.rebalance, RequireKnownMemberID: tc.requireKnown}
			if d := cmp.Diff(JoinGroup{Group: "g", Request: want, Reason: tc.reason}, got); d != "" {
				t.Errorf("v%d (-want +got):\n%s", tc.v, d)
			}
		}
	})
	t.Run("JoinGroup response nullable names", func(t *testing.T) {
		for _, tc := range []struct {
			v                      int16
			typ, name              string
			wantType, wantProtocol *string
		}{
			{6, "", "", nil, ptr("")}, // no type field; the name is a plain string
			{6, "consumer", "range", nil, ptr("range")},
			{7, "", "", nil, nil}, // what Kafka sends on errors
			{7, "consumer", "range", ptr("consumer"), ptr("range")},
			{9, "consumer", "", ptr("consumer"), nil},
		} {
			k, err := JoinGroupResponseToKafka(tc.v, classic.JoinGroupResponse{ProtocolType: tc.typ, ProtocolName: tc.name})
			if err != nil {
				t.Fatal(err)
			}
			k = throughBytes(t, tc.v, k, new(kmsg.JoinGroupResponse))
			if !cmp.Equal(tc.wantType, k.ProtocolType) || !cmp.Equal(tc.wantProtocol, k.Protocol) {
				t.Errorf("v%d type %q name %q: wire type %v name %v", tc.v, tc.typ, tc.name, k.ProtocolType, k.Protocol)
			}
		}
	})
	t.Run("MEMBER_ID_REQUIRED carries the member id", func(t *testing.T) {
		k, err := JoinGroupResponseToKafka(4, classic.JoinGroupResponse{Error: spec.MemberIDRequired, MemberID: "c-3", Generation: -1})
		if err != nil {
			t.Fatal(err)
		}
		if k.ErrorCode != int16(spec.MemberIDRequired) || k.MemberID != "c-3" || k.Generation != -1 {
			t.Fatalf("got %+v", k)
		}
	})
	t.Run("SyncGroup protocol names from v5", func(t *testing.T) {
		s := SyncGroup{Group: "g", Request: classic.SyncGroupRequest{MemberID: "m", Generation: 3, ProtocolType: ptr(""), ProtocolName: ptr("range")}}
		k4, _ := SyncGroupRequestToKafka(4, s)
		k5, _ := SyncGroupRequestToKafka(5, s)
		if k4.ProtocolType != nil || k4.Protocol != nil {
			t.Errorf("v4 carries protocol names: %v %v", k4.ProtocolType, k4.Protocol)
		}
		if k5.ProtocolType == nil || *k5.ProtocolType != "" || k5.Protocol == nil || *k5.Protocol != "range" {
			t.Errorf("v5: sent-empty type or name lost: %v %v", k5.ProtocolType, k5.Protocol)
		}
		r5, _ := SyncGroupResponseToKafka(5, classic.SyncGroupResponse{Error: spec.RebalanceInProgress})
		if r5.ProtocolType != nil || r5.Protocol != nil {
			t.Errorf("v5 error response: want null names, got %v %v", r5.ProtocolType, r5.Protocol)
		}
	})
	t.Run("LeaveGroup v2 and v3", func(t *testing.T) {
		k2, err := LeaveGroupRequestToKafka(2, LeaveGroup{Group: "g", Members: []classic.LeaveGroupRequest{{MemberID: "m", InstanceID: "i"}}})
		if err != nil || k2.MemberID != "m" || len(k2.Members) != 0 {
			t.Fatalf("v2: %v %+v", err, k2)
		}
		members := []classic.LeaveGroupRequest{{MemberID: "m"}, {InstanceID: "i"}}
		results := []classic.LeaveGroupResponse{{Error: spec.None}, {Error: spec.UnknownMemberID}}
		r3, err := LeaveGroupResponseToKafka(3, members, results)
		if err != nil {
			t.Fatal(err)
		}
		if r3.ErrorCode != 0 || len(r3.Members) != 2 || r3.Members[0].InstanceID != nil || r3.Members[1].MemberID != "" ||
			deref(r3.Members[1].InstanceID) != "i" || r3.Members[1].ErrorCode != int16(spec.UnknownMemberID) {
			t.Fatalf("v3: %+v", r3)
		}
		r2, err := LeaveGroupResponseToKafka(2, members[:1], []classic.LeaveGroupResponse{{Error: spec.UnknownMemberID}})
		if err != nil || r2.ErrorCode != int16(spec.UnknownMemberID) {
			t.Fatalf("v2: %v %+v", err, r2)
		}
		e, err := LeaveGroupErrorToKafka(5, spec.NotCoordinator)
		if err != nil || e.ErrorCode != int16(spec.NotCoordinator) || e.Members != nil {
			t.Fatalf("group error: %v %+v", err, e)
		}
	})
}

// TestClassicBadInput: nil values, versions kmsg does not know, shapes a
// version cannot carry, timeouts that do not fit.
func TestClassicBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil join", func() error { _, err := JoinGroupRequestFromKafka(nil, Client{}); return err }(), "nil request"},
		{"nil join response", func() error { _, err := JoinGroupResponseFromKafka(nil); return err }(), "nil response"},
		{"nil sync", func() error { _, err := SyncGroupRequestFromKafka(nil); return err }(), "nil request"},
		{"nil sync response", func() error { _, err := SyncGroupResponseFromKafka(nil); return err }(), "nil response"},
		{"nil heartbeat", func() error { _, err := HeartbeatRequestFromKafka(nil); return err }(), "nil request"},
		{"nil heartbeat response", func() error { _, err := HeartbeatResponseFromKafka(nil); return err }(), "nil response"},
		{"nil leave", func() error { _, err := LeaveGroupRequestFromKafka(nil); return err }(), "nil request"},
		{"nil leave response", func() error { _, err := LeaveGroupResponseFromKafka(nil); return err }(), "nil response"},
		{"join v10", func() error {
			r := kmsg.NewPtrJoinGroupRequest()
			r.Version = 10
			_, err := JoinGroupRequestFromKafka(r, Client{})
			return err
		}(), "UNSUPPORTED_VERSION"},
		{"join v-1", func() error {
			r := kmsg.NewPtrJoinGroupRequest()
			r.Version = -1
			_, err := JoinGroupRequestFromKafka(r, Client{})
			return err
		}(), "UNSUPPORTED_VERSION"},
		{"join response v99", func() error {
			r := kmsg.NewPtrJoinGroupResponse()
			r.Version = 99
			_, err := JoinGroupResponseFromKafka(r)
			return err
		}(), "version 99"},
		{"join to v10", func() error { _, err := JoinGroupRequestToKafka(10, JoinGroup{}); return err }(), "version 10"},
		{"session timeout too big", func() error {
			_, err := JoinGroupRequestToKafka(3, JoinGroup{Request: classic.JoinGroupRequest{SessionTimeout: 1 << 40}})
			return err
		}(), "SessionTimeout"},
		{"rebalance timeout too small", func() error {
			_, err := JoinGroupRequestToKafka(3, JoinGroup{Request: classic.JoinGroupRequest{RebalanceTimeout: -1 << 40}})
			return err
		}(), "RebalanceTimeout"},
		{"sync to v6", func() error { _, err := SyncGroupRequestToKafka(6, SyncGroup{}); return err }(), "version 6"},
		{"heartbeat to v5", func() error { _, err := HeartbeatResponseToKafka(5, classic.HeartbeatResponse{}); return err }(), "version 5"},
		{"leave v2 two members", func() error {
			_, err := LeaveGroupRequestToKafka(2, LeaveGroup{Members: make([]classic.LeaveGroupRequest, 2)})
			return err
		}(), "one member, not 2"},
		{"leave v1 no member", func() error { _, err := LeaveGroupRequestToKafka(1, LeaveGroup{}); return err }(), "one member, not 0"},
		{"leave reasons mismatch", func() error {
			_, err := LeaveGroupRequestToKafka(5, LeaveGroup{Members: make([]classic.LeaveGroupRequest, 2), Reasons: make([]*string, 1)})
			return err
		}(), "1 reasons for 2 members"},
		{"leave results mismatch", func() error {
			_, err := LeaveGroupResponseToKafka(4, make([]classic.LeaveGroupRequest, 2), nil)
			return err
		}(), "0 results for 2 members"},
		{"leave response v0 two members", func() error {
			_, err := LeaveGroupResponseToKafka(0, make([]classic.LeaveGroupRequest, 2), make([]classic.LeaveGroupResponse, 2))
			return err
		}(), "one member, not 2"},
		{"leave error to v6", func() error { _, err := LeaveGroupErrorToKafka(6, spec.NotCoordinator); return err }(), "version 6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := mustFail(t, tc.name, tc.err); !strings.Contains(msg, tc.want) {
				t.Fatalf("error %q does not say %q", msg, tc.want)
			}
		})
	}
	t.Run("request errors carry a Kafka code", func(t *testing.T) {
		r := kmsg.NewPtrHeartbeatRequest()
		r.Version = 5
		_, err := HeartbeatRequestFromKafka(r)
		var re *RequestError
		if !errors.As(err, &re) || re.Code != spec.UnsupportedVersion {
			t.Fatalf("got %v", err)
		}
	})
}
