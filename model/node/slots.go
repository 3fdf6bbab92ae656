package node

import (
	"fmt"
	"strings"
)

// Slot is a member node's record of one of its own timers (a member keeps
// one slot per timer kind, indexed by the kind): whether it is armed and
// when it falls due. Each family keeps its own slot type, whose fields its
// state encoder reads; P is the pointer to it, through which the timer
// helpers of this package read and write it.
type Slot[S any] interface {
	*S
	// Deadline reports whether the timer is armed and, if so, its
	// deadline.
	Deadline() (armed bool, at Millis)
	// Set arms the timer to fall due at at or, with armed false (and at
	// 0), disarms it.
	Set(armed bool, at Millis)
}

// ArmSlot arms the timer of kind k (slots[k]) to fall due at at and
// appends the command that arms timer, its name, to out.
func ArmSlot[S any, P Slot[S], K ~uint8, M, T, C fmt.Stringer](slots []S, k K, timer T, at Millis, out *Output[M, T, C]) {
	P(&slots[k]).Set(true, at)
	out.Timers = append(out.Timers, TimerCmd[T]{Timer: timer, At: at})
}

// CancelSlot disarms the timer of kind k (slots[k]) if it is armed, and
// then appends the command that cancels timer, its name, to out.
func CancelSlot[S any, P Slot[S], K ~uint8, M, T, C fmt.Stringer](slots []S, k K, timer T, out *Output[M, T, C]) {
	if armed, _ := P(&slots[k]).Deadline(); armed {
		P(&slots[k]).Set(false, 0)
		out.Timers = append(out.Timers, TimerCmd[T]{Timer: timer, Cancel: true})
	}
}

// SlotsString lists the armed timers of slots as " kind@deadline" each,
// in kind order, or " none" when no timer is armed: a member dump's timer
// list.
func SlotsString[S any, P Slot[S], K interface {
	~uint8
	fmt.Stringer
}](slots []S) string {
	var b strings.Builder
	for k := range slots {
		if armed, at := P(&slots[k]).Deadline(); armed {
			fmt.Fprintf(&b, " %s@%d", K(k), at)
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
func FireSlot[S any, P Slot[S], K ~uint8](slots []S, k K, now Millis) bool {
	if int(k) >= len(slots) {
		return false
	}
	if armed, at := P(&slots[k]).Deadline(); !armed || now < at {
		return false
	}
	P(&slots[k]).Set(false, 0)
	return true
}
