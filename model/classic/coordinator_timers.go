package classic

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/spec"
)

// coordTimers are the coordinator's armed timers with their deadlines,
// sorted by timer (kind, then member), each timer at most once. A group
// arms one timer a member and a join timer at most, so a sorted slice
// serves as the map, and a fork copies it in one allocation (ownTimers)
// where a map took several. Written in place only by the coordinator
// that owns it.
type coordTimers []armedTimer

// armedTimer is a timer and its deadline.
type armedTimer struct {
	timer Timer
	at    Millis
	// prefix is memberPrefix(timer.Member), for find.
	prefix uint64
}

// memberPrefix is the first eight bytes of id, big-endian, the missing
// ones zero. Two ids whose prefixes differ compare as their prefixes do
// (a byte compares the same inside a number as in the string, and an id
// that ends first pads with zeros, which sort first as its end does);
// equal prefixes say nothing, and find then compares the ids. It lets
// find's binary search compare numbers held in the slice instead of
// calling the string comparison and following each id to its bytes
// elsewhere in memory: in a group of a thousand members every heartbeat
// searched about ten levels of ids (docs/costs.md, tenth pass).
func memberPrefix(id spec.MemberID) uint64 {
	var b [8]byte
	copy(b[:], id)
	return binary.BigEndian.Uint64(b[:])
}

// compareTimers orders timers by kind, then member.
func compareTimers(a, b Timer) int {
	if a.Kind != b.Kind {
		return cmp.Compare(a.Kind, b.Kind)
	}
	return strings.Compare(string(a.Member), string(b.Member))
}

// find returns where t is, or would be inserted, and whether it is armed.
func (ts coordTimers) find(t Timer) (int, bool) {
	// A binary search with the order written out (compareTimers) rather
	// than slices.BinarySearchFunc with a comparison function: every
	// heartbeat re-arms a session timer, and the function call at each of
	// a thousand-member group's eleven levels cost more than the
	// comparing.
	p := memberPrefix(t.Member)
	lo, hi := 0, len(ts)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		a := &ts[mid]
		if a.timer.Kind < t.Kind || (a.timer.Kind == t.Kind && (a.prefix < p || (a.prefix == p && a.timer.Member < t.Member))) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(ts) && ts[lo].timer.Kind == t.Kind && ts[lo].timer.Member == t.Member
}

// get returns t's deadline and whether t is armed.
func (ts coordTimers) get(t Timer) (Millis, bool) {
	if i, ok := ts.find(t); ok {
		return ts[i].at, true
	}
	return 0, false
}

// set arms t to fire at at, in place.
func (ts *coordTimers) set(t Timer, at Millis) {
	i, ok := ts.find(t)
	ts.setAt(i, ok, t, at)
}

// setAt is set where find(t) returned i and ok.
func (ts *coordTimers) setAt(i int, ok bool, t Timer, at Millis) {
	if ok {
		(*ts)[i].at = at
		return
	}
	*ts = slices.Insert(*ts, i, armedTimer{timer: t, at: at, prefix: memberPrefix(t.Member)})
}

// remove disarms t, in place; nothing when t is not armed.
func (ts *coordTimers) remove(t Timer) {
	if i, ok := ts.find(t); ok {
		ts.removeAt(i)
	}
}

// removeAt disarms the timer at i, where find returned i and true.
func (ts *coordTimers) removeAt(i int) { *ts = slices.Delete(*ts, i, i+1) }

// encodeCoordTimers writes the armed timers as a list, each timer
// (EncodeTimer) then its deadline, in the order of kind, then member as
// written: the member as renamed when e renames (the model checker's
// symmetry reduction), so that the list is the same for every state that
// differs by a renaming; the slice's own order otherwise. The deadlines
// are written at the level of the list, not inside items of a canon
// collection, so a recording of the coordinator replays under a later
// clock (canon.Encoder.ReplayKept).
func encodeCoordTimers(e *canon.Encoder, ts coordTimers) {
	if e.Rename != nil {
		ts = slices.Clone(ts)
		slices.SortFunc(ts, func(a, b armedTimer) int {
			return cmp.Or(cmp.Compare(a.timer.Kind, b.timer.Kind),
				strings.Compare(e.Rename(string(a.timer.Member)), e.Rename(string(b.timer.Member))))
		})
	}
	e.Len(len(ts))
	for _, t := range ts {
		EncodeTimer(e, t.timer)
		e.Instant(int64(t.at))
	}
}
