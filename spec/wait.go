package spec

import (
	"fmt"
	"slices"
	"time"
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

// TimeBound is Timely's time clause for one protocol in one group: once
// the environment has fallen quiet, the group stops changing within
// Rounds rounds of at most Round each (the heartbeat intervals a round
// may wait for its members to learn of it), plus Delays, the waits the
// protocol takes on purpose (Connect's scheduled delays, back-offs and
// step delays). A protocol states it (the closed world's
// Family.TimeBound); what the environment forced before or after falling
// quiet (a crashed member's session or rebalance timeout running out, a
// lost message's retry) is the observer's to discount, not the bound's.
type TimeBound struct {
	Rounds int
	Round  time.Duration
	Delays time.Duration
}

// Total is Rounds × Round + Delays.
func (b TimeBound) Total() time.Duration { return time.Duration(b.Rounds)*b.Round + b.Delays }

// String prints "4 rounds of 3s + 20s of delays = 32s" ("1 round"; the
// delays only when there are some).
func (b TimeBound) String() string {
	unit := "rounds"
	if b.Rounds == 1 {
		unit = "round"
	}
	s := fmt.Sprintf("%d %s of %s", b.Rounds, unit, b.Round)
	if b.Delays > 0 {
		s += fmt.Sprintf(" + %s of delays", b.Delays)
	}
	return s + " = " + b.Total().String()
}

// CheckTimeBound judges Timely's time clause: a group that last changed
// (an owner, a member, a generation or epoch) elapsed after it had
// fallen quiet, and after the last wait the environment forced, broke it
// when elapsed exceeds b.Total(). KAFKA-13419 broke it: a member that met
// ILLEGAL_GENERATION dropped its member id as well as its generation and
// rejoined as a new member, and the group waited for the old id until its
// session timed out.
func CheckTimeBound(elapsed time.Duration, b TimeBound) []Violation {
	if elapsed <= b.Total() {
		return nil
	}
	return []Violation{{Law: Timely,
		Detail: fmt.Sprintf("the group last changed %s after the environment fell quiet, beyond its bound of %s", elapsed, b)}}
}
