package world

import (
	"fmt"
	"strings"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// checkTiming is the checked world's timing (model/world.Timing); the
// scheduled delay of Designs II and III is longer than the session
// timeout, as the rebalance timeout is, and the step delay as short as a
// heartbeat interval.
var checkTiming = core.Timing{Heartbeat: 1000, Session: 2000, Rebalance: 3000}

const (
	checkDelay     = 3000
	checkStepDelay = 1000
)

// CheckOptions are the knobs of the closed world rebalance check explores
// (see model/world.CheckOptions). The classic family has no use for
// AddPartitions (its coordinator takes no metadata); LeaderBounces,
// LeaderFailover, MaxDelay and ClaimGeneration are its own.
type CheckOptions = core.CheckOptions[classic.Faults]

// DefaultCheckOptions is the world rebalance check explores by default
// (model/world.DefaultCheckOptions).
func DefaultCheckOptions() CheckOptions { return core.DefaultCheckOptions[classic.Faults]() }

// resolvesClaims reports whether p settles conflicting claims by
// generation (classic.ClaimResolver).
func resolvesClaims(p classic.Protocol) bool {
	r, ok := p.(classic.ClaimResolver)
	return ok && r.ResolvesClaimsByGeneration()
}

// assignsConnectors reports whether p runs Kafka Connect's assignor
// (classic.ConnectAssigner).
func assignsConnectors(p classic.Protocol) bool {
	c, ok := p.(classic.ConnectAssigner)
	return ok && c.AssignsConnectors()
}

// builtinsTaking lists the built-in protocols that take option, for an
// error message.
func builtinsTaking(option protocolOption) string {
	return builtinNames(func(b builtin) bool { return b.takes&option != 0 })
}

// builtinsThat lists the built-in protocols, with their default options,
// of which holds is true, for an error message.
func builtinsThat(holds func(classic.Protocol) bool) string {
	return builtinNames(func(b builtin) bool {
		p, err := b.build(ProtocolOptions{}, policy.ReassignImmediately)
		return err == nil && holds(p)
	})
}

// RoundBound is the bounded-rounds law of protocol p in the world with
// options o: the protocol's own statement (classic.RoundBounder) for the
// group's shape, every member of o at once sharing every partition. The
// reasons are on each protocol's RoundBound; measured maxima against the
// bounds are in docs/checker.md.
func RoundBound(p classic.Protocol, o CheckOptions) (int, error) {
	rb, ok := p.(classic.RoundBounder)
	if !ok {
		return 0, fmt.Errorf("protocol %s states no round bound (classic.RoundBounder): give one with max-rounds", p.Name())
	}
	return rb.RoundBound(classic.GroupShape{Members: o.Members, Resources: o.Resources()}), nil
}

// CheckWorld builds the CheckConfig of protocol with options o. It
// returns an error for options that make no sense.
func CheckWorld(protocol string, o CheckOptions) (core.CheckConfig, error) {
	return Family{}.CheckWorld(protocol, o)
}

// CheckWorld is the package's CheckWorld for a family that may run custom
// protocols. The options a protocol takes (a scheduled delay, a leader
// failover rule) are the built-in ones' (builtins; a custom protocol
// takes none); the settings whose effect a protocol must have are asked
// of the protocol itself: a claim generation of a classic.ClaimResolver,
// connectors of a classic.ConnectAssigner. Any other option set is
// refused. A custom protocol's balance law is spec.CheckBalance unless
// the caller replaces the returned CheckConfig's Balance.
func (f Family) CheckWorld(protocol string, o CheckOptions) (core.CheckConfig, error) {
	if err := o.Validate(); err != nil {
		return core.CheckConfig{}, err
	}
	if o.Migrations != 0 || o.MigrationPolicy != "" {
		return core.CheckConfig{}, fmt.Errorf("migrations and the migration policy apply to the mixed group only")
	}
	switch {
	case o.Restarts > o.Crashes:
		return core.CheckConfig{}, fmt.Errorf("restarts = %d: more than crashes (%d); only a crashed member restarts", o.Restarts, o.Crashes)
	case o.AddPartitions > 0:
		return core.CheckConfig{}, fmt.Errorf("add-partitions = %d: the classic coordinator takes no metadata (next-gen only)", o.AddPartitions)
	}
	if len(o.Semantics) > 0 {
		return core.CheckConfig{}, fmt.Errorf("semantics %s: the classic protocols have no behaviour selectors (next-gen only)", strings.Join(o.Semantics, ", "))
	}
	claimGen, err := classic.ParseClaimGeneration(o.ClaimGeneration)
	if err != nil {
		return core.CheckConfig{}, err
	}
	protos, err := f.Protocols([]string{protocol}, ProtocolOptions{LeaderFailover: o.LeaderFailover})
	if err != nil {
		return core.CheckConfig{}, err
	}
	// What the protocol takes: the options of a built-in one (none for a
	// custom one), and what it states of itself.
	var takes protocolOption
	if _, custom := f.custom(protocol); !custom {
		b, _ := builtinNamed(protocol)
		takes = b.takes
	}
	switch {
	case o.MaxDelay != 0 && takes&takesDelay == 0:
		return core.CheckConfig{}, fmt.Errorf("max-delay: protocol %s has no scheduled delay (%s only)", protocol, builtinsTaking(takesDelay))
	case o.LeaderFailover != "" && takes&takesLeaderFailover == 0:
		return core.CheckConfig{}, fmt.Errorf("leader-failover: protocol %s has no leader failover rule (%s only)", protocol, builtinsTaking(takesLeaderFailover))
	case claimGen != classic.ClaimAtJoined && !resolvesClaims(protos[0]):
		return core.CheckConfig{}, fmt.Errorf("claim-generation %s: the cooperative-sticky assignor's user data before KIP-792; protocol %s settles no claims by generation (%s only)", claimGen, protocol, builtinsThat(resolvesClaims))
	case o.Connectors > 0 && !assignsConnectors(protos[0]):
		return core.CheckConfig{}, fmt.Errorf("connectors = %d: protocol %s does not run Kafka Connect's assignor; connectors and tasks are for %s", o.Connectors, protocol, builtinsThat(assignsConnectors))
	}
	bound := o.MaxRounds
	if bound == 0 {
		if bound, err = RoundBound(protos[0], o); err != nil {
			return core.CheckConfig{}, err
		}
	}
	topicNames := o.TopicNames()
	// The universe: topics=(T:2,U:2), or connectors=(T:2,U:2) with tasks.
	kind, count := "topics", o.Partitions
	if o.Connectors > 0 {
		kind, count = "connectors", o.Tasks
	}
	var parts []string
	for _, t := range topicNames {
		parts = append(parts, fmt.Sprintf("%s:%d", t, count))
	}
	universe := fmt.Sprintf("%s=(%s)", kind, strings.Join(parts, ","))
	faults := core.FaultsArg(o.Faults)
	delay := fmt.Sprint(checkDelay)
	switch {
	case o.MaxDelay < 0:
		delay = "off"
	case o.MaxDelay > 0:
		delay = fmt.Sprint(o.MaxDelay)
	}
	// The settings of the options the protocol takes: a delay as long as
	// the rebalance timeout, back-offs a heartbeat long, one move per
	// round a heartbeat apart.
	opts := ""
	if takes&takesDelay != 0 {
		opts += " delay=" + delay
	}
	if takes&takesBackoff != 0 {
		opts += fmt.Sprintf(" backoff=%d", checkTiming.Heartbeat)
	}
	if takes&takesMoves != 0 {
		opts += " moves=1"
	}
	if takes&takesStepDelay != 0 {
		opts += fmt.Sprintf(" step-delay=%d", checkStepDelay)
	}
	if o.LeaderFailover != "" {
		opts += " leader-failover=" + o.LeaderFailover
	}
	if claimGen != classic.ClaimAtJoined {
		opts += " claim-generation=" + claimGen.String()
	}
	member := func(i int) string {
		return fmt.Sprintf("add-member %s protocols=(%s) topics=(%s) session=%d heartbeat=%d rebalance=%d%s%s",
			core.MemberName(i), protocol, strings.Join(topicNames, ","), checkTiming.Session, checkTiming.Heartbeat, checkTiming.Rebalance, opts, faults)
	}
	cfg := o.Config(protocol, bound, BalanceOf(protocol))
	cfg.Setup = []string{fmt.Sprintf("group %s session-min=1000%s", universe, faults)}
	for i := range o.Members - o.Joins {
		cfg.Setup = append(cfg.Setup, member(i))
	}
	cfg.Setup = append(cfg.Setup, "stabilize")
	for i := o.Members - o.Joins; i < o.Members; i++ {
		cfg.Joiners = append(cfg.Joiners, member(i))
	}
	return cfg, nil
}
