package impl

import (
	"slices"
	"time"

	"github.com/rebalance-ref/rebalance/spec"
)

// Observer is told about a group's membership as its coordinator decides
// it: the member ids the coordinator counts, from when to when. Tests turn
// it into the Joined and Removed observations of a spec.History, so the
// laws can tell a fenced zombie from a second owner.
//
// The drivers call it on their own goroutine, right after the step that
// made the change; it must return quickly and must not call the driver.
type Observer interface {
	// Membership reports that member started (joined) or stopped (left,
	// expired, fenced or replaced: !joined) being counted at at.
	Membership(group string, member spec.MemberID, joined bool, at time.Time)
}

// memberSet tracks the member ids a driver last reported to its Observer.
type memberSet map[spec.MemberID]bool

// diff reports the difference between the tracked ids and now to obs and
// makes now the tracked set. Removals are reported before additions, each
// in sorted order (now is sorted by the cores).
func (s memberSet) diff(obs Observer, group string, now []spec.MemberID, at time.Time) {
	if obs == nil {
		return
	}
	cur := make(map[spec.MemberID]bool, len(now))
	for _, id := range now {
		cur[id] = true
	}
	var gone []spec.MemberID
	for id := range s {
		if !cur[id] {
			gone = append(gone, id)
		}
	}
	slices.Sort(gone)
	for _, id := range gone {
		delete(s, id)
		obs.Membership(group, id, false, at)
	}
	for _, id := range now {
		if !s[id] {
			s[id] = true
			obs.Membership(group, id, true, at)
		}
	}
}

// nodeBase is what the steppers of both families keep besides their
// core: the clock, the observer and what it was last told, and the
// group's committed offsets. It is used only on the loop's goroutine.
type nodeBase struct {
	group   string
	clock   Clock
	obs     Observer
	members memberSet
	offsets Offsets
}

// newNodeBase returns the base of group's stepper; a nil clock is
// SystemClock, and offsets are copied.
func newNodeBase(group string, clock Clock, obs Observer, offsets Offsets) nodeBase {
	if clock == nil {
		clock = SystemClock()
	}
	b := nodeBase{group: group, clock: clock, obs: obs, members: memberSet{}, offsets: Offsets{}}
	for r, o := range offsets {
		b.offsets[r] = o
	}
	return b
}

// report tells the observer how the counted members (sorted) differ from
// what it was last told.
func (b *nodeBase) report(members []spec.MemberID) {
	b.members.diff(b.obs, b.group, members, b.clock.Now())
}
