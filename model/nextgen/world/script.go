package world

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/nextgen/coordinator"
	"github.com/rebalance-ref/rebalance/model/script"
	"github.com/rebalance-ref/rebalance/spec"
)

// Arg is one argument of a script command (see package script).
type Arg = script.Arg

// Script runs the next-gen scenario language on a world; scenario files in
// testdata/scenarios are written in it. Errors are printed as output, so
// files record rejected commands too.
type Script struct {
	W *World
}

// Run executes one command. The verbs:
//
//	group topics=(foo:3,bar:2) [session=N] [heartbeat=N] [assignors=(uniform,range)] [max-size=N] [before=(kafka-19233,kafka-19449,kafka-18688)] [faults=(...)] [verbose]
//	add-member A topics=(foo) [instance=a] [rebalance=N] [request=N] [assignor=uniform] [slow] [faults=(...)]
//	stabilize          deliver every message and complete prompt applications' revocations
//	tick N             advance the clock N ms, firing timers in order
//	crash A | restart A | leave A | isolate A | heal A | slow A | prompt A | revoked A
//	subscribe A topics=(foo,bar)
//	add-partition foo  one more partition for foo (the coordinator sees new metadata)
//	deliver [i] | drop [i|all] | dup i | fire [i]
//	ownership | coordinator | in-flight | timers | check
func (s *Script) Run(cmd string, args []Arg) (string, error) {
	if cmd != "group" && s.W == nil {
		return "", fmt.Errorf("%s: no group yet; start with group topics=(...)", cmd)
	}
	var err error
	switch cmd {
	case "group":
		err = s.group(args)
	case "add-member":
		err = s.addMember(args)
	case "stabilize":
		if !s.W.Stabilize(stabilizeLimit) {
			err = fmt.Errorf("stabilize: did not settle after %d steps", stabilizeLimit)
		}
	case "tick":
		var n int64
		if n, err = script.Int(args, 0, "tick"); err == nil {
			if n < 0 {
				err = fmt.Errorf("tick: negative duration %d", n)
			} else if !s.W.Advance(nextgen.Millis(n)) {
				err = fmt.Errorf("tick: did not settle")
			}
		}
	case "crash", "restart", "leave", "isolate", "heal", "slow", "prompt", "revoked":
		err = s.memberVerb(cmd, args)
	case "subscribe":
		var name string
		if name, err = script.Name(args, cmd); err == nil {
			err = s.W.Subscribe(name, script.Vals(args, "topics"))
		}
	case "add-partition":
		var topic string
		if topic, err = script.Name(args, cmd); err == nil {
			if _, ok := s.W.Topics[topic]; !ok {
				err = fmt.Errorf("add-partition: no topic %s", topic)
			} else {
				t := maps.Clone(s.W.Topics)
				t[topic]++
				s.W.UpdateMetadata(t)
			}
		}
	case "deliver", "drop", "dup", "fire":
		err = script.NetworkVerb(s.W, cmd, args)
	case "ownership":
		return s.W.Ownership(), nil
	case "coordinator":
		return s.W.Coordinator.String(), nil
	case "in-flight":
		return script.Numbered(s.W.InFlight), nil
	case "timers":
		return script.Numbered(s.W.Timers), nil
	case "check":
		return script.Violations(s.W.Violations), nil
	default:
		return "", fmt.Errorf("unknown command %q", cmd)
	}
	var b strings.Builder
	if s.W != nil {
		for _, l := range s.W.DrainLog() {
			b.WriteString(l + "\n")
		}
	}
	return b.String(), err
}

func millis(args []Arg, key string) (nextgen.Millis, error) {
	n, err := script.NonNegative(args, key)
	return nextgen.Millis(n), err
}

func faults(args []Arg) (nextgen.Fault, error) {
	var f nextgen.Fault
	for _, n := range script.Vals(args, "faults") {
		x, err := nextgen.ParseFault(n)
		if err != nil {
			return 0, err
		}
		f |= x
	}
	return f, nil
}

func (s *Script) group(args []Arg) error {
	topics := spec.Topics{}
	for _, t := range script.Vals(args, "topics") {
		name, count, ok := strings.Cut(t, ":")
		n, err := strconv.ParseInt(count, 10, 32)
		if !ok || err != nil || n < 0 || name == "" {
			return fmt.Errorf("group: topic %q: want name:partitions", t)
		}
		topics[name] = int32(n)
	}
	cfg := coordinator.CoordinatorConfig{GroupID: "group", Topics: topics, Assignors: script.Vals(args, "assignors")}
	var err error
	if cfg.SessionTimeout, err = millis(args, "session"); err != nil {
		return err
	}
	if cfg.HeartbeatInterval, err = millis(args, "heartbeat"); err != nil {
		return err
	}
	size, err := script.NonNegative(args, "max-size")
	if err != nil {
		return err
	}
	cfg.MaxSize = int(size)
	for _, b := range script.Vals(args, "before") {
		switch b {
		case "kafka-19233":
			cfg.Semantics.BeforeKafka19233 = true
		case "kafka-19449":
			cfg.Semantics.BeforeKafka19449 = true
		case "kafka-18688":
			cfg.Semantics.BeforeKafka18688 = true
		default:
			return fmt.Errorf("group: before=%q: want kafka-19233, kafka-19449 or kafka-18688", b)
		}
	}
	if cfg.Faults, err = faults(args); err != nil {
		return err
	}
	w, err := New(cfg)
	if err != nil {
		return err
	}
	w.Verbose = script.Has(args, "verbose")
	s.W = w
	return nil
}

func (s *Script) addMember(args []Arg) error {
	name, err := script.Name(args, "add-member")
	if err != nil {
		return err
	}
	cfg := nextgen.MemberConfig{
		Name:           name,
		InstanceID:     script.Val(args, "instance"),
		Topics:         slices.Sorted(slices.Values(script.Vals(args, "topics"))),
		ServerAssignor: script.Val(args, "assignor"),
	}
	if cfg.RebalanceTimeout, err = millis(args, "rebalance"); err != nil {
		return err
	}
	if cfg.RequestTimeout, err = millis(args, "request"); err != nil {
		return err
	}
	if cfg.Faults, err = faults(args); err != nil {
		return err
	}
	if err := s.W.AddMember(cfg); err != nil {
		return err
	}
	return s.W.SetSlow(name, script.Has(args, "slow"))
}

func (s *Script) memberVerb(cmd string, args []Arg) error {
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
	case "heal":
		return s.W.Isolate(name, false)
	case "slow":
		return s.W.SetSlow(name, true)
	case "prompt":
		return s.W.SetSlow(name, false)
	default: // revoked
		return s.W.CompleteRevocation(name)
	}
}
