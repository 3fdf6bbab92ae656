package mixed

import (
	"fmt"
	"maps"
	"slices"

	"github.com/rebalance-ref/rebalance/model/classic"
	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/nextgen/validate"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/script"
	core "github.com/rebalance-ref/rebalance/model/world"
)

// Group runs "group topics=(T:2,U:2) [policy=bidirectional|upgrade|
// downgrade|disabled] [session=N] [heartbeat=N] [session-min=N]
// [assignors=(uniform)] [max-size=N] [upgrade-keeps-claims] [verbose]":
// a mixed coordinator whose group does not exist yet (the first member's
// protocol makes it), under the migration policy
// (group.consumer.migration.policy, bidirectional by default), with the
// consumer group's session timeout and heartbeat interval and the classic
// group's smallest session timeout (group.min.session.timeout.ms).
// upgrade-keeps-claims turns on the fix this project proposes for the
// upgrade of a classic group whose stored assignments leave out what
// members still own (nextgen.CoordinatorConfig.UpgradeKeepsClaims).
func (Family) Group(s *Script, args []core.Arg) error {
	topics, err := script.Topics(args, "group")
	if err != nil {
		return err
	}
	cfg := Config{
		Classic:  classic.CoordinatorConfig{GroupID: "group"},
		Consumer: nextgen.CoordinatorConfig{GroupID: "group", Topics: topics, Assignors: script.Vals(args, "assignors"), UpgradeKeepsClaims: script.Has(args, "upgrade-keeps-claims")},
	}
	if p := script.Val(args, "policy"); p != "" {
		if cfg.Consumer.Migration, err = validate.ParseMigrationPolicy(p); err != nil {
			return fmt.Errorf("group: %v", err)
		}
	}
	if err := script.Durations(args, map[string]*node.Millis{
		"session": &cfg.Consumer.SessionTimeout, "heartbeat": &cfg.Consumer.HeartbeatInterval, "session-min": &cfg.Classic.MinSessionTimeout,
	}); err != nil {
		return err
	}
	size, err := script.NonNegative(args, "max-size")
	if err != nil {
		return err
	}
	cfg.Consumer.MaxSize, cfg.Classic.MaxSize = int(size), int(size)
	w, err := New(cfg)
	return s.Start(w, err, args)
}

// AddMember runs "add-member A protocol=classic|consumer
// protocols=(cooperative) topics=(T,U) [instance=a] [session=N]
// [rebalance=N] [heartbeat=N] [request=N] [assignor=uniform] [slow]": a
// process configured for both protocols (the classic protocols it offers
// in JoinGroup, and the consumer protocol's server assignor), running the
// one protocol= names, that starts at once. session and heartbeat are the
// classic member's; rebalance is both protocols'; request the next-gen
// member's request timeout.
func (Family) AddMember(s *Script, args []core.Arg) error {
	name, err := script.Name(args, "add-member")
	if err != nil {
		return err
	}
	p, err := ParseProtocol(script.Val(args, "protocol"))
	if err != nil {
		return fmt.Errorf("add-member %s: %v", name, err)
	}
	names := script.Vals(args, "protocols")
	if len(names) == 0 {
		return fmt.Errorf("add-member %s: protocols=(...) is required: the classic protocols the member offers", name)
	}
	protos, err := classicworld.Protocols(names, classicworld.ProtocolOptions{})
	if err != nil {
		return fmt.Errorf("add-member %s: %v", name, err)
	}
	c := classic.MemberConfig{
		Name:       name,
		InstanceID: script.Val(args, "instance"),
		Topics:     slices.Sorted(slices.Values(script.Vals(args, "topics"))),
		Protocols:  protos,
		Metadata:   maps.Clone(s.W.Topics),
	}
	n := nextgen.MemberConfig{ServerAssignor: script.Val(args, "assignor")}
	if err := script.Durations(args, map[string]*node.Millis{
		"session": &c.SessionTimeout, "rebalance": &c.RebalanceTimeout, "heartbeat": &c.HeartbeatInterval, "request": &n.RequestTimeout,
	}); err != nil {
		return err
	}
	n.RebalanceTimeout = c.RebalanceTimeout
	cfg, err := NewMemberConfig(p, c, n)
	if err != nil {
		return err
	}
	if err := s.W.AddMember(cfg); err != nil {
		return err
	}
	return s.W.SetSlow(name, script.Has(args, "slow"))
}

// Verb runs the mixed family's own scenario commands:
//
//	upgrade A            A, running the classic protocol, is bounced onto the consumer protocol
//	downgrade A          A, running the consumer protocol, is bounced back onto the classic one
//	rejoin A             a classic member asks to rejoin
//
// and the shared ones (model/world's Script).
func (Family) Verb(s *Script, cmd string, args []core.Arg) (bool, error) {
	switch cmd {
	case "upgrade", "downgrade":
		name, err := script.Name(args, cmd)
		if err != nil {
			return true, err
		}
		p := s.W.Process(name)
		if p == nil {
			return true, fmt.Errorf("%s: no member %s", cmd, name)
		}
		want := map[string]Protocol{"upgrade": ClassicProtocol, "downgrade": ConsumerProtocol}[cmd]
		if p.Config().Protocol != want {
			return true, fmt.Errorf("%s %s: the member runs the %s protocol", cmd, name, p.Config().Protocol)
		}
		return true, s.W.Migrate(name)
	case "rejoin":
		name, err := script.Name(args, cmd)
		if err != nil {
			return true, err
		}
		return true, s.W.Event(name, classic.RequestRejoin{Reason: "scripted"})
	}
	return false, nil
}
