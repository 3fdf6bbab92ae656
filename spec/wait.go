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
