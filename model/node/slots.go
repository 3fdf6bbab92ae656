package node

import (
	"fmt"
	"strings"
)

// TimerSlot is a member node's record of one of its own timers (a member
// keeps one slot per timer kind, indexed by the kind). Invariant: At is 0
// while the timer is not armed.
type TimerSlot struct {
	// Armed reports whether the timer is armed.
	Armed bool
	// At is the instant the armed timer falls due.
	At Millis `canon:"instant"`
}

// ArmSlot arms the timer of kind k (slots[k]) to fall due at at and
// appends the command that arms timer, its name, to out.
func ArmSlot[K ~uint8, M, T, C fmt.Stringer](slots []TimerSlot, k K, timer T, at Millis, out *Output[M, T, C]) {
	slots[k] = TimerSlot{Armed: true, At: at}
	out.Timers = append(out.Timers, TimerCmd[T]{Timer: timer, At: at})
}

// CancelSlot disarms the timer of kind k (slots[k]) if it is armed, and
// then appends the command that cancels timer, its name, to out.
func CancelSlot[K ~uint8, M, T, C fmt.Stringer](slots []TimerSlot, k K, timer T, out *Output[M, T, C]) {
	if slots[k].Armed {
		slots[k] = TimerSlot{}
		out.Timers = append(out.Timers, TimerCmd[T]{Timer: timer, Cancel: true})
	}
}

// SlotsString lists the armed timers of slots as " kind@deadline" each,
// in kind order, or " none" when no timer is armed: a member dump's timer
// list.
func SlotsString[K interface {
	~uint8
	fmt.Stringer
}](slots []TimerSlot) string {
	var b strings.Builder
	for k := range slots {
		if slots[k].Armed {
			fmt.Fprintf(&b, " %s@%d", K(k), slots[k].At)
		}
	}
	if b.Len() == 0 {
		return " none"
	}
	return b.String()
}

// FireSlot reports whether a firing at now of the member's own timer of
// kind k acts, and disarms it if so: only a timer that is armed and due
// acts. Any other firing (a kind the member has no slot for, a timer
// cancelled, or re-armed to a later deadline) is stale and ignored.
func FireSlot[K ~uint8](slots []TimerSlot, k K, now Millis) bool {
	if int(k) >= len(slots) {
		return false
	}
	if !slots[k].Armed || now < slots[k].At {
		return false
	}
	slots[k] = TimerSlot{}
	return true
}
