package world

import "github.com/rebalance-ref/rebalance/model/node"

// DeliveryFault is a fault switch of the applications' delivery, the same
// in both families: it breaks what an application does with its records,
// so that the checker can show the delivery laws catch it. Each comment
// says the law reported.
type DeliveryFault uint32

// The delivery fault switches.
const (
	// CommitAfterRelease: an application gives a partition up without
	// committing first, and commits what it processed of it later, in a
	// step of its own (commit A). The partition's next owner may start
	// from the old committed offset before the commit lands. Reported as
	// ExactlyOnceWhenClean.
	CommitAfterRelease DeliveryFault = 1 << iota
	// OwnPosition: an application that gains a partition starts from its
	// own last position in it, where it stopped when it last gave it up,
	// instead of the committed offset. Reported as ExactlyOnceWhenClean
	// once another member processed and committed past that position.
	OwnPosition
)

// DeliveryFaultList is every delivery fault switch, for --list-faults and
// the tests that turn each one on.
var DeliveryFaultList = node.Switches[DeliveryFault]{
	{Fault: CommitAfterRelease, Name: "commit-after-release", Doc: "applications commit a partition only after giving it up, in a later step (ExactlyOnceWhenClean, with records)"},
	{Fault: OwnPosition, Name: "start-from-own-position", Doc: "an application regaining a partition starts from its own last position, not the committed offset (ExactlyOnceWhenClean, with --records 2)"},
}

// Has reports whether every fault of x is in f.
func (f DeliveryFault) Has(x DeliveryFault) bool { return node.Has(f, x) }

// String lists the names of the faults in f, "none" for the empty set.
func (f DeliveryFault) String() string { return DeliveryFaultList.String(f) }

// ParseDeliveryFault returns the delivery fault named name, or an error
// naming every delivery fault.
func ParseDeliveryFault(name string) (DeliveryFault, error) { return DeliveryFaultList.Parse(name) }
