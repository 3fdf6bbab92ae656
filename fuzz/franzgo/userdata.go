package franzgo

import (
	"encoding/json"
	"fmt"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// userDataVersion marks the JSON user data this package writes; user data
// without it (another client's, or none) is not ours and is ignored.
const userDataVersion = 1

// subscriptionData is what a subscription's UserData carries beyond the
// consumer protocol: the leader of the member's last assignment.
type subscriptionData struct {
	V      int    `json:"rebalance_ref"`
	Leader string `json:"leader,omitempty"`
}

// assignmentData is what an assignment's UserData carries beyond the
// consumer protocol's partition list.
type assignmentData struct {
	V int `json:"rebalance_ref"`
	// Generation is the generation the leader assigned.
	Generation int32  `json:"generation"`
	Leader     string `json:"leader,omitempty"`
	// Revoked maps topic to partitions, as kgo's maps.
	Revoked map[string][]int32 `json:"revoked,omitempty"`
	DelayMs int64              `json:"delay_ms,omitempty"`
	Error   int16              `json:"error,omitempty"`
}

func encodeSubscriptionData(leader spec.MemberID) []byte {
	if leader == "" {
		return nil
	}
	b, _ := json.Marshal(subscriptionData{V: userDataVersion, Leader: string(leader)})
	return b
}

// decodeSubscriptionData returns the leader a subscription's user data
// names, "" when the user data is not ours.
func decodeSubscriptionData(ud []byte) spec.MemberID {
	var d subscriptionData
	if len(ud) == 0 || json.Unmarshal(ud, &d) != nil || d.V != userDataVersion {
		return ""
	}
	return spec.MemberID(d.Leader)
}

func encodeAssignmentData(gen spec.Generation, a classic.Assignment) []byte {
	d := assignmentData{V: userDataVersion, Generation: int32(gen), Leader: string(a.Leader), DelayMs: int64(a.Delay), Error: int16(a.Error)}
	if !a.Revoked.IsEmpty() {
		d.Revoked = fromSet(a.Revoked)
	}
	b, _ := json.Marshal(d)
	return b
}

// decodeAssignmentData fills a's Revoked, Delay, Leader and Error from an
// assignment's user data and returns the generation it names; ok is false
// when the user data is not ours (a is then unchanged). Ours but malformed
// (a negative delay, a bad revoked set) is an error.
func decodeAssignmentData(ud []byte, a *classic.Assignment) (gen spec.Generation, ok bool, err error) {
	var d assignmentData
	if len(ud) == 0 || json.Unmarshal(ud, &d) != nil || d.V != userDataVersion {
		return 0, false, nil
	}
	if d.DelayMs < 0 {
		return 0, true, fmt.Errorf("franzgo: assignment user data: negative delay %d ms", d.DelayMs)
	}
	revoked, err := toSet(d.Revoked)
	if err != nil {
		return 0, true, fmt.Errorf("franzgo: assignment user data: revoked: %w", err)
	}
	a.Revoked = revoked
	a.Delay = classic.Millis(d.DelayMs)
	a.Leader = spec.MemberID(d.Leader)
	a.Error = spec.ErrorCode(d.Error)
	return spec.Generation(d.Generation), true, nil
}
