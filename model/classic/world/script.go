package world

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	"github.com/rebalance-ref/rebalance/model/script"
	"github.com/rebalance-ref/rebalance/spec"
)

// Arg is one argument of a script command (see package script).
type Arg = script.Arg

// Script runs the scenario language of the classic family on a world. It is
// what the scenario files in testdata/ are written in, and what the model
// checker prints counterexamples in. Each command returns its output text;
// an error is printed as the output too, so scenario files record rejected
// commands.
type Script struct {
	W *World
}

// stabilizeLimit bounds the deliveries of one stabilize, so a livelock shows
// as an error instead of a hang.
const stabilizeLimit = 100000

// Run executes one command. The verbs:
//
//	group topics=(T:4,U:2) [session-min=N] [session-max=N] [max-size=N] [faults=(name,...)] [verbose]
//	add-member A protocols=(cooperative,eager) topics=(T) [instance=a] [assignor=range] [delay=N] [moves=N] [step-delay=N] [leader-failover=reassign-immediately|delay-if-departed] [backoff=N] [session=N] [rebalance=N] [heartbeat=N] [faults=(...)]
//	stabilize            deliver every message in flight, in order
//	tick N               advance the clock N ms, firing timers in order (messages are instant)
//	crash A | restart A | leave A | rejoin A | isolate A | heal A
//	bounce A [protocols=(...) and add-member's protocol options]   leave gracefully and start again
//	subscribe A topics=(T,U)
//	deliver [i] | drop [i|all] | dup i | fire [i]
//	ownership | coordinator | in-flight | timers | rounds | check
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
			err = fmt.Errorf("stabilize: still %d messages in flight after %d deliveries", len(s.W.InFlight), stabilizeLimit)
		}
	case "tick":
		var n int64
		if n, err = script.Int(args, 0, "tick"); err == nil {
			if n < 0 {
				err = fmt.Errorf("tick: negative duration %d", n)
			} else if !s.W.Advance(classic.Millis(n)) {
				err = fmt.Errorf("tick: network did not drain")
			}
		}
	case "crash", "restart", "leave", "rejoin", "isolate", "heal":
		err = s.memberVerb(cmd, args)
	case "bounce":
		err = s.bounce(args)
	case "subscribe":
		var name string
		if name, err = script.Name(args, cmd); err == nil {
			err = s.W.Subscribe(name, script.Vals(args, "topics"))
		}
	case "deliver", "drop", "dup", "fire":
		err = script.NetworkVerb(s.W, cmd, args)
	case "ownership":
		return s.W.Ownership(), nil
	case "coordinator":
		return s.W.Coordinator.String(), nil
	case "in-flight":
		var b strings.Builder
		for i, m := range s.W.InFlight {
			fmt.Fprintf(&b, "%d: %s\n", i, m)
		}
		return b.String(), nil
	case "timers":
		var b strings.Builder
		for i, t := range s.W.Timers {
			fmt.Fprintf(&b, "%d: %s\n", i, t)
		}
		return b.String(), nil
	case "rounds":
		var b strings.Builder
		for _, r := range s.W.Rounds {
			b.WriteString(r.String() + "\n")
		}
		return b.String(), nil
	case "check":
		if len(s.W.Violations) == 0 {
			return "no violations\n", nil
		}
		var b strings.Builder
		for _, v := range s.W.Violations {
			b.WriteString(v.String() + "\n")
		}
		return b.String(), nil
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
	cfg := classic.CoordinatorConfig{GroupID: "group"}
	var err error
	if cfg.MinSessionTimeout, err = millisArg(args, "session-min"); err != nil {
		return err
	}
	if cfg.MaxSessionTimeout, err = millisArg(args, "session-max"); err != nil {
		return err
	}
	size, err := millisArg(args, "max-size")
	if err != nil {
		return err
	}
	cfg.MaxSize = int(size)
	if cfg.Faults, err = faultsArg(args); err != nil {
		return err
	}
	w, err := New(cfg, topics)
	if err != nil {
		return err
	}
	w.Verbose = script.Has(args, "verbose")
	s.W = w
	return nil
}

// ProtocolOptions configures the embedded protocols a scripted member is
// given; the zero value is every protocol's defaults.
type ProtocolOptions struct {
	Assignor       string // eager's assignor: range (default), roundrobin, sticky
	MaxDelay       classic.Millis
	MaxMoves       int
	StepDelay      classic.Millis
	LeaderFailover string         // reassign-immediately (default) or delay-if-departed
	Backoff        classic.Millis // deferred's back-off multiplier; 0 is Connect's 40
}

// Protocols builds the named protocols with the options.
func Protocols(names []string, o ProtocolOptions) ([]classic.Protocol, error) {
	var lf policy.LeaderFailover
	switch o.LeaderFailover {
	case "", "reassign-immediately":
		lf = policy.ReassignImmediately
	case "delay-if-departed":
		lf = policy.DelayIfDeparted
	default:
		return nil, fmt.Errorf("leader-failover %q: want reassign-immediately or delay-if-departed", o.LeaderFailover)
	}
	var out []classic.Protocol
	for _, n := range names {
		switch n {
		case "eager":
			var a assign.Assignor
			switch o.Assignor {
			case "", "range":
				a = assign.Range()
			case "roundrobin":
				a = assign.RoundRobin()
			case "sticky":
				a = assign.Sticky()
			default:
				return nil, fmt.Errorf("assignor %q: want range, roundrobin or sticky", o.Assignor)
			}
			out = append(out, policy.Eager(a))
		case "cooperative":
			out = append(out, policy.Cooperative())
		case "deferred":
			out = append(out, policy.Deferred(policy.DeferredConfig{MaxDelay: o.MaxDelay, LeaderFailover: lf, BackoffMultiplier: o.Backoff}))
		case "incremental":
			out = append(out, policy.Incremental(policy.IncrementalConfig{MaxDelay: o.MaxDelay, MaxMovesPerRound: o.MaxMoves, StepDelay: o.StepDelay, LeaderFailover: lf}))
		default:
			return nil, fmt.Errorf("protocol %q: want eager, cooperative, deferred or incremental", n)
		}
	}
	return out, nil
}

func (s *Script) addMember(args []Arg) error {
	name, err := script.Name(args, "add-member")
	if err != nil {
		return err
	}
	o, err := protocolOptions(args)
	if err != nil {
		return err
	}
	names := script.Vals(args, "protocols")
	if len(names) == 0 {
		return fmt.Errorf("add-member %s: protocols=(...) is required", name)
	}
	protos, err := Protocols(names, o)
	if err != nil {
		return fmt.Errorf("add-member %s: %v", name, err)
	}
	cfg := classic.MemberConfig{
		Name:       name,
		InstanceID: script.Val(args, "instance"),
		Topics:     slices.Sorted(slices.Values(script.Vals(args, "topics"))),
		Protocols:  protos,
		Metadata:   maps.Clone(s.W.Topics),
	}
	if cfg.SessionTimeout, err = millisArg(args, "session"); err != nil {
		return err
	}
	if cfg.RebalanceTimeout, err = millisArg(args, "rebalance"); err != nil {
		return err
	}
	if cfg.HeartbeatInterval, err = millisArg(args, "heartbeat"); err != nil {
		return err
	}
	if cfg.Faults, err = faultsArg(args); err != nil {
		return err
	}
	return s.W.AddMember(cfg)
}

func (s *Script) bounce(args []Arg) error {
	name, err := script.Name(args, "bounce")
	if err != nil {
		return err
	}
	var protos []classic.Protocol
	if names := script.Vals(args, "protocols"); len(names) > 0 {
		o, err := protocolOptions(args)
		if err != nil {
			return err
		}
		if protos, err = Protocols(names, o); err != nil {
			return fmt.Errorf("bounce %s: %v", name, err)
		}
	}
	return s.W.Bounce(name, protos)
}

func protocolOptions(args []Arg) (ProtocolOptions, error) {
	var o ProtocolOptions
	var err error
	o.Assignor = script.Val(args, "assignor")
	o.LeaderFailover = script.Val(args, "leader-failover")
	if o.MaxDelay, err = millisArg(args, "delay"); err != nil {
		return o, err
	}
	if o.StepDelay, err = millisArg(args, "step-delay"); err != nil {
		return o, err
	}
	if o.Backoff, err = millisArg(args, "backoff"); err != nil {
		return o, err
	}
	moves, err := millisArg(args, "moves")
	o.MaxMoves = int(moves)
	return o, err
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
	case "rejoin":
		return s.W.RequestRejoin(name, "scripted")
	case "isolate":
		return s.W.Isolate(name, true)
	default: // heal
		return s.W.Isolate(name, false)
	}
}

func millisArg(args []Arg, key string) (classic.Millis, error) {
	n, err := script.NonNegative(args, key)
	return classic.Millis(n), err
}

func faultsArg(args []Arg) (classic.Faults, error) {
	var f classic.Faults
	for _, n := range script.Vals(args, "faults") {
		x, err := classic.ParseFault(n)
		if err != nil {
			return 0, err
		}
		f |= x
	}
	return f, nil
}
