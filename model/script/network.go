package script

import (
	"fmt"
	"strings"

	"github.com/rebalance-ref/rebalance/spec"
)

// Network is what the network verbs need from a closed world: both worlds
// index their messages in flight and their armed timers from 0.
type Network interface {
	InFlightCount() int
	Deliver(i int) error
	Drop(i int) error
	Duplicate(i int) error
	FireTimer(i int) error
}

// NetworkVerb runs one of the shared network verbs on n:
//
//	deliver [i] | drop [i|all] | dup i | fire [i]
//
// The index defaults to 0.
func NetworkVerb(n Network, cmd string, args []Arg) error {
	if cmd == "drop" && Has(args, "all") {
		for n.InFlightCount() > 0 {
			if err := n.Drop(0); err != nil {
				return err
			}
		}
		return nil
	}
	i := int64(0)
	if len(args) > 0 {
		var err error
		if i, err = Int(args, 0, cmd); err != nil {
			return err
		}
	}
	switch cmd {
	case "deliver":
		return n.Deliver(int(i))
	case "drop":
		return n.Drop(int(i))
	case "dup":
		return n.Duplicate(int(i))
	case "fire":
		return n.FireTimer(int(i))
	}
	return fmt.Errorf("%q is not a network verb", cmd)
}

// Numbered prints items one per line as "i: item", the form the in-flight
// and timers verbs print and the indexes the network verbs take.
func Numbered[T fmt.Stringer](items []T) string {
	var b strings.Builder
	for i, x := range items {
		fmt.Fprintf(&b, "%d: %s\n", i, x)
	}
	return b.String()
}

// Violations prints what the check verb prints: "no violations", or one
// violation per line.
func Violations(vs []spec.Violation) string {
	if len(vs) == 0 {
		return "no violations\n"
	}
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(v.String() + "\n")
	}
	return b.String()
}
