package world

import (
	"fmt"
	"github.com/rebalance-ref/rebalance/model/sim"
	"maps"
	"strings"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/script"
	"github.com/rebalance-ref/rebalance/spec"
)

// Arg is one argument of a script command (see package script).
type Arg = script.Arg

// Script runs a family's scenario language on a world. It is what the
// scenario files are written in and what the model checker prints
// counterexamples in. Each command returns its output text (the world's
// log lines, or what a query prints); an error is printed as the output
// too, so scenario files record rejected commands.
type Script[M fmt.Stringer, T sim.Timer, C fmt.Stringer, P any] struct {
	Family Family[M, T, C, P]
	W      *World[M, T, C, P]
}

// Run executes one command. The verbs every family shares:
//
//	stabilize            deliver every message in flight (and complete prompt revocations)
//	tick N               advance the clock N ms, firing timers in order (messages are instant)
//	crash A | restart A | leave A | isolate A | heal A
//	subscribe A topics=(T,U)
//	deliver [i] | drop [i|all] | dup i | fire [i]
//	records N [on=(T-0,...)] [faults=(...)]  give every partition (or those named) a log of N records (delivery, before anything is processed), with delivery fault switches
//	consume A T-0        A's application processes the next record of T-0
//	commit A             A's application commits what it gave up uncommitted (commit-after-release)
//	overrun A            A's application overruns its pending revocation (timers fire meanwhile)
//	migrate A            A is bounced onto the other group protocol (a family with two: model/mixed)
//	slow A | prompt A    A's application revokes only when told (revoked A), or at once
//	revoked A            A's application has finished revoking
//	add-partition T      one more partition for T (a family whose coordinator takes metadata)
//	ownership | coordinator | in-flight | timers | rounds | check
//
// "group" and "add-member" and any other verb are the family's (see its
// Script documentation).
func (s *Script[M, T, C, P]) Run(cmd string, args []Arg) (string, error) {
	if cmd != "group" && s.W == nil {
		return "", fmt.Errorf("%s: no group yet; start with group topics=(...)", cmd)
	}
	var err error
	switch cmd {
	case "group":
		err = s.Family.Group(s, args)
	case "add-member":
		err = s.Family.AddMember(s, args)
	case "stabilize":
		if !s.W.Stabilize(StabilizeLimit) {
			err = fmt.Errorf("stabilize: still %d messages in flight after %d steps", len(s.W.InFlight), StabilizeLimit)
		}
	case "tick":
		var n int64
		if n, err = script.Int(args, 0, "tick"); err == nil {
			if n < 0 {
				err = fmt.Errorf("tick: negative duration %d", n)
			} else if !s.W.Advance(node.Millis(n)) {
				err = fmt.Errorf("tick: the network did not settle")
			}
		}
	case "crash", "restart", "leave", "isolate", "heal":
		err = s.memberVerb(cmd, args)
	case "subscribe":
		var name string
		if name, err = script.Name(args, cmd); err == nil {
			err = s.W.Subscribe(name, script.Vals(args, "topics"))
		}
	case "deliver", "drop", "dup", "fire":
		err = script.NetworkVerb(s.W, cmd, args)
	case "records":
		var n int64
		if n, err = script.Int(args, 0, "records"); err == nil {
			var on spec.Set
			if names := script.Vals(args, "on"); len(names) > 0 {
				on, err = spec.ParseSet("{" + strings.Join(names, " ") + "}")
			}
			if err == nil {
				err = s.W.SetRecords(int(n), on)
			}
			if err == nil {
				s.W.DeliveryFaults, err = DeliveryFaultList.ParseAll(script.Vals(args, "faults"))
			}
		}
	case "consume":
		err = s.consume(args)
	case "commit":
		var name string
		if name, err = script.Name(args, "commit"); err == nil {
			err = s.W.CommitReleased(name)
		}
	case "overrun":
		var name string
		if name, err = script.Name(args, "overrun"); err == nil {
			err = s.W.OverrunRevocation(name)
		}
	case "slow", "prompt", "revoked":
		var name string
		if name, err = script.Name(args, cmd); err == nil {
			switch cmd {
			case "slow", "prompt":
				err = s.W.SetSlow(name, cmd == "slow")
			default:
				err = s.W.CompleteRevocation(name)
			}
		}
	case "add-partition":
		var topic string
		if topic, err = script.Name(args, cmd); err == nil {
			if _, ok := s.W.Topics[topic]; !ok {
				err = fmt.Errorf("add-partition: no topic %s", topic)
			} else {
				t := maps.Clone(s.W.Topics)
				t[topic]++
				err = s.W.UpdateMetadata(t)
			}
		}
	case "migrate":
		var name string
		if name, err = script.Name(args, "migrate"); err == nil {
			err = s.W.Migrate(name)
		}
	case "ownership":
		return s.W.Ownership(), nil
	case "coordinator":
		return s.W.Coordinator.String(), nil
	case "in-flight":
		return script.Numbered(s.W.InFlight), nil
	case "timers":
		return script.Numbered(s.W.Timers), nil
	case "rounds":
		return rounds(s.W.Rounds), nil
	case "check":
		return script.Violations(s.W.Violations), nil
	default:
		var handled bool
		handled, err = s.Family.Verb(s, cmd, args)
		if !handled {
			return "", fmt.Errorf("unknown command %q", cmd)
		}
	}
	var b strings.Builder
	if s.W != nil {
		for _, l := range s.W.DrainLog() {
			b.WriteString(l + "\n")
		}
	}
	return b.String(), err
}

// Start ends a family's "group" command: it makes w, built by the family
// with error err, the script's world, verbose when the command says so.
func (s *Script[M, T, C, P]) Start(w *World[M, T, C, P], err error, args []Arg) error {
	if err != nil {
		return err
	}
	w.Verbose = script.Has(args, "verbose")
	s.W = w
	return nil
}

func rounds(rs []RoundRecord) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.String() + "\n")
	}
	return b.String()
}

// consume runs "consume A T-0": A's application processes the next record
// of T-0.
func (s *Script[M, T, C, P]) consume(args []Arg) error {
	name, err := script.Name(args, "consume")
	if err != nil {
		return err
	}
	if len(args) != 2 || len(args[1].Vals) != 0 {
		return fmt.Errorf("consume: want consume MEMBER TOPIC-PARTITION")
	}
	r, err := spec.ParseResource(args[1].Key)
	if err != nil {
		return fmt.Errorf("consume: %v", err)
	}
	return s.W.Consume(name, r)
}

func (s *Script[M, T, C, P]) memberVerb(cmd string, args []Arg) error {
	name, err := script.Name(args, cmd)
	if err != nil {
		return err
	}
	switch cmd {
	case "crash":
		return s.W.Crash(name)
	case "restart":
		return s.W.Restart(name)
	case "leave":
		return s.W.Leave(name)
	case "isolate":
		return s.W.Isolate(name, true)
	default: // heal
		return s.W.Isolate(name, false)
	}
}
