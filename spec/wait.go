package spec

import (
	"fmt"
	"slices"
)

// Withholding is what a next-gen coordinator decided for one member on one
// heartbeat when it kept part of the member's target from it (Kafka's
// UNRELEASED_PARTITIONS): the partitions withheld, and for each the
// members the coordinator records as holding it (assigned or pending
// revocation), the member itself included when it does.
type Withholding struct {
	Member   MemberID
	Withheld Set
	HeldBy   map[Resource][]MemberID
}

// CheckNoNeedlessWait judges NoNeedlessWait on one decision: it reports
// every withheld partition that no member other than w.Member holds. Such
// a partition could have been given at once: nobody else works on it, so
// giving it cannot make two owners.
func CheckNoNeedlessWait(w Withholding) []Violation {
	var out []Violation
	for _, p := range w.Withheld {
		held := w.HeldBy[p]
		if slices.ContainsFunc(held, func(h MemberID) bool { return h != w.Member }) {
			continue
		}
		why := "nobody holds it"
		if len(held) > 0 {
			why = "only " + string(w.Member) + " itself holds it"
		}
		out = append(out, Violation{Law: NoNeedlessWait, Resource: p, Members: []string{string(w.Member)},
			Detail: fmt.Sprintf("withheld from %s's target although %s", w.Member, why)})
	}
	return out
}

// CheckHeldBack judges Timely's delay clause on one round: a leader may
// start a scheduled delay that holds resources back (r.Held) only when a
// member has departed, for the delay exists so that a departed member can
// come back to its work (KIP-415). Work that waits for a delay already
// running (a departed member's, or a pacing one such as Connect's
// revocation back-off) is not judged: it is handed out when that delay
// ends. departed is the observer's truth, not the leader's belief: whether
// some member id the group has ever had is missing from the round. A round
// that holds anything while departed is false is reported once, naming
// what it held. KAFKA-9848 broke it: Connect's leader took work it had
// assigned in a round that never reached the workers for the work of
// departed ones, and held it for the delay although every worker was still
// there.
func CheckHeldBack(r Round, departed bool) []Violation {
	if departed || r.Held.IsEmpty() {
		return nil
	}
	return []Violation{{Law: Timely,
		Detail: fmt.Sprintf("the round holds %s back for a scheduled delay although no member has departed", r.Held)}}
}
