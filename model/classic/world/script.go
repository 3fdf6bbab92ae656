package world

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/script"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// Group runs "group topics=(T:4,U:2) [connectors=(C:2,...)]
// [session-min=N] [session-max=N] [max-size=N] [faults=(name,...)]
// [verbose]": a classic coordinator over the topics and the Kafka Connect
// connectors, each connector C:n a resource C/connector plus its n tasks
// C-0 .. C-(n-1) (members subscribe to C to run it). Only the deferred and
// incremental protocols (Connect's assignor) assign connector resources;
// the consumer assignors leave them unowned.
func (f Family) Group(s *Script, args []core.Arg) error {
	topics, err := script.Topics(args, "group")
	if err != nil {
		return err
	}
	if err := script.Connectors(args, "group", topics); err != nil {
		return err
	}
	cfg := classic.CoordinatorConfig{GroupID: "group"}
	if cfg.MinSessionTimeout, err = script.Millis(args, "session-min"); err != nil {
		return err
	}
	if cfg.MaxSessionTimeout, err = script.Millis(args, "session-max"); err != nil {
		return err
	}
	size, err := script.NonNegative(args, "max-size")
	if err != nil {
		return err
	}
	cfg.MaxSize = int(size)
	if cfg.Faults, err = faultsArg(args); err != nil {
		return err
	}
	w, err := f.NewWorld(cfg, topics)
	return s.Start(w, err, args)
}

// ProtocolOptions configures the embedded protocols a scripted member is
// given; the zero value is every protocol's defaults. Each option is for
// the built-in protocols that take it (builtins); the others ignore it.
type ProtocolOptions struct {
	Assignor       string         // eager's assignor: range (default), roundrobin, sticky
	MaxDelay       classic.Millis // as policy.DeferredConfig: 0 the default, negative disables delays
	MaxMoves       int
	StepDelay      classic.Millis
	LeaderFailover string         // reassign-immediately (default) or delay-if-departed
	Backoff        classic.Millis // deferred's back-off multiplier; 0 is Connect's 40
}

// Protocols builds the named protocols with the options.
func Protocols(names []string, o ProtocolOptions) ([]classic.Protocol, error) {
	return Family{}.Protocols(names, o)
}

// custom returns the family's custom protocol called name.
func (f Family) custom(name string) (classic.Protocol, bool) {
	for _, p := range f.Custom {
		if p != nil && p.Name() == name {
			return p, true
		}
	}
	return nil, false
}

// Protocols builds the named protocols with the options: the family's
// custom protocols as they are (the options are the built-in ones'), the
// built-in ones (builtins) configured by o.
func (f Family) Protocols(names []string, o ProtocolOptions) ([]classic.Protocol, error) {
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
		if p, ok := f.custom(n); ok {
			out = append(out, p)
			continue
		}
		b, ok := builtinNamed(n)
		if !ok {
			return nil, fmt.Errorf("protocol %q: want %s%s", n, builtinNames(func(builtin) bool { return true }), f.customNames())
		}
		p, err := b.build(o, lf)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// protocolOption is a set of the built-in protocols' options, one bit for
// each of ProtocolOptions' fields.
type protocolOption uint8

// The options.
const (
	takesAssignor protocolOption = 1 << iota
	takesDelay
	takesBackoff
	takesMoves
	takesStepDelay
	takesLeaderFailover
)

// builtin is a built-in protocol: its name, the options it takes (it
// ignores the others; CheckWorld refuses a scheduled delay or a leader
// failover rule for a protocol that does not take it), and how it is
// built from them.
type builtin struct {
	name  string
	takes protocolOption
	build func(o ProtocolOptions, lf policy.LeaderFailover) (classic.Protocol, error)
}

// builtins are the built-in protocols in the seed design's order: eager,
// then Designs I, II and III. Only here are they told apart by name.
var builtins = []builtin{
	{"eager", takesAssignor, func(o ProtocolOptions, _ policy.LeaderFailover) (classic.Protocol, error) {
		switch o.Assignor {
		case "", "range":
			return policy.Eager(assign.Range()), nil
		case "roundrobin":
			return policy.Eager(assign.RoundRobin()), nil
		case "sticky":
			return policy.Eager(assign.Sticky()), nil
		}
		return nil, fmt.Errorf("assignor %q: want range, roundrobin or sticky", o.Assignor)
	}},
	{"cooperative", 0, func(ProtocolOptions, policy.LeaderFailover) (classic.Protocol, error) {
		return policy.Cooperative(), nil
	}},
	{"deferred", takesDelay | takesBackoff | takesLeaderFailover, func(o ProtocolOptions, lf policy.LeaderFailover) (classic.Protocol, error) {
		return policy.Deferred(policy.DeferredConfig{MaxDelay: o.MaxDelay, LeaderFailover: lf, BackoffMultiplier: o.Backoff}), nil
	}},
	{"incremental", takesDelay | takesMoves | takesStepDelay | takesLeaderFailover, func(o ProtocolOptions, lf policy.LeaderFailover) (classic.Protocol, error) {
		return policy.Incremental(policy.IncrementalConfig{MaxDelay: o.MaxDelay, MaxMovesPerRound: o.MaxMoves, StepDelay: o.StepDelay, LeaderFailover: lf}), nil
	}},
}

// builtinNamed is the built-in protocol called name.
func builtinNamed(name string) (builtin, bool) {
	for _, b := range builtins {
		if b.name == name {
			return b, true
		}
	}
	return builtin{}, false
}

// builtinNames lists the built-in protocols for which keep holds, for an
// error message: "deferred and incremental", "eager, cooperative,
// deferred or incremental" (with "or" when every one is listed).
func builtinNames(keep func(builtin) bool) string {
	var names []string
	for _, b := range builtins {
		if keep(b) {
			names = append(names, b.name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	and := " and "
	if len(names) == len(builtins) {
		and = " or "
	}
	return strings.Join(names[:len(names)-1], ", ") + and + names[len(names)-1]
}

// AddMember runs "add-member A protocols=(cooperative,eager) topics=(T)
// [instance=a] [assignor=range] [delay=N|off] [moves=N] [step-delay=N]
// [leader-failover=reassign-immediately|delay-if-departed] [backoff=N]
// [session=N] [rebalance=N] [heartbeat=N] [claim-generation=joined|assigned]
// [faults=(...)]": a member that starts at once. claim-generation is the
// generation it reports for its claims (classic.ClaimGeneration; joined
// by default).
func (f Family) AddMember(s *Script, args []core.Arg) error {
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
	protos, err := f.Protocols(names, o)
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
	if err := script.Durations(args, map[string]*node.Millis{
		"session": &cfg.SessionTimeout, "rebalance": &cfg.RebalanceTimeout, "heartbeat": &cfg.HeartbeatInterval,
	}); err != nil {
		return err
	}
	if cfg.ClaimGeneration, err = classic.ParseClaimGeneration(script.Val(args, "claim-generation")); err != nil {
		return fmt.Errorf("add-member %s: %v", name, err)
	}
	if cfg.Faults, err = faultsArg(args); err != nil {
		return err
	}
	return s.W.AddMember(cfg)
}

func bounce(s *Script, args []core.Arg) error {
	name, err := script.Name(args, "bounce")
	if err != nil {
		return err
	}
	p := s.W.Process(name)
	if p == nil {
		return fmt.Errorf("no member %s", name)
	}
	cfg := p.Config()
	if names := script.Vals(args, "protocols"); len(names) > 0 {
		o, err := protocolOptions(args)
		if err != nil {
			return err
		}
		f, _ := s.Family.(Family)
		protos, err := f.Protocols(names, o)
		if err != nil {
			return fmt.Errorf("bounce %s: %v", name, err)
		}
		cfg.Protocols = protos
	}
	return s.W.Bounce(name, cfg)
}

func protocolOptions(args []core.Arg) (ProtocolOptions, error) {
	var o ProtocolOptions
	var err error
	o.Assignor = script.Val(args, "assignor")
	o.LeaderFailover = script.Val(args, "leader-failover")
	if script.Val(args, "delay") == "off" {
		// Scheduled delays disabled (Connect's
		// scheduled.rebalance.max.delay.ms = 0).
		o.MaxDelay = -1
	} else if o.MaxDelay, err = script.Millis(args, "delay"); err != nil {
		return o, err
	}
	if o.StepDelay, err = script.Millis(args, "step-delay"); err != nil {
		return o, err
	}
	if o.Backoff, err = script.Millis(args, "backoff"); err != nil {
		return o, err
	}
	moves, err := script.NonNegative(args, "moves")
	o.MaxMoves = int(moves)
	return o, err
}

func nameArg(args []core.Arg, cmd string) (string, error) { return script.Name(args, cmd) }

func faultsArg(args []core.Arg) (classic.Faults, error) {
	return classic.FaultList.ParseAll(script.Vals(args, "faults"))
}

// customNames lists the custom protocols' names for an error message, ""
// when there are none.
func (f Family) customNames() string {
	var names []string
	for _, p := range f.Custom {
		if p != nil {
			names = append(names, p.Name())
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (or one of the custom protocols " + strings.Join(names, ", ") + ")"
}
