package world

import (
	"fmt"
	core "github.com/rebalance-ref/rebalance/model/world"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/nextgen/coordinator"
	"github.com/rebalance-ref/rebalance/model/script"
)

// Verb runs the next-gen family's own scenario commands:
//
//	slow A | prompt A    the application revokes only when told (revoked A), or at once
//	revoked A            the application has finished revoking
//	add-partition foo    one more partition for foo (the coordinator sees new metadata)
func (Family) Verb(s *Script, cmd string, args []core.Arg) (bool, error) {
	switch cmd {
	case "slow", "prompt", "revoked":
		name, err := script.Name(args, cmd)
		if err != nil {
			return true, err
		}
		switch cmd {
		case "slow":
			return true, s.W.SetSlow(name, true)
		case "prompt":
			return true, s.W.SetSlow(name, false)
		}
		return true, s.W.CompleteRevocation(name)
	case "add-partition":
		topic, err := script.Name(args, cmd)
		if err != nil {
			return true, err
		}
		if _, ok := s.W.Topics[topic]; !ok {
			return true, fmt.Errorf("add-partition: no topic %s", topic)
		}
		t := maps.Clone(s.W.Topics)
		t[topic]++
		return true, s.W.UpdateMetadata(t)
	}
	return false, nil
}

func faults(args []core.Arg) (nextgen.Fault, error) {
	return nextgen.FaultList.ParseAll(script.Vals(args, "faults"))
}

// Group runs "group topics=(foo:3,bar:2) [session=N] [heartbeat=N]
// [assignors=(uniform,range)] [max-size=N]
// [before=(kafka-19233,kafka-19449,kafka-18688)] [faults=(...)]
// [verbose]": a next-gen coordinator over the topics.
func (f Family) Group(s *Script, args []core.Arg) error {
	topics, err := script.Topics(args, "group")
	if err != nil {
		return err
	}
	cfg := coordinator.CoordinatorConfig{GroupID: "group", Topics: topics, Assignors: script.Vals(args, "assignors")}
	for _, a := range f.Assignors {
		if len(cfg.Assignors) == 0 || slices.Contains(cfg.Assignors, a.Name()) {
			cfg.ServerAssignors = append(cfg.ServerAssignors, a)
		}
	}
	if cfg.SessionTimeout, err = script.Millis(args, "session"); err != nil {
		return err
	}
	if cfg.HeartbeatInterval, err = script.Millis(args, "heartbeat"); err != nil {
		return err
	}
	size, err := script.NonNegative(args, "max-size")
	if err != nil {
		return err
	}
	cfg.MaxSize = int(size)
	for _, b := range script.Vals(args, "before") {
		sel, ok := selectors[b]
		if !ok {
			return fmt.Errorf("group: before=%q: want one of %s", b, strings.Join(slices.Sorted(maps.Keys(selectors)), ", "))
		}
		sel.set(&cfg.Semantics)
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

// AddMember runs "add-member A topics=(foo) [instance=a] [rebalance=N]
// [request=N] [assignor=uniform] [slow] [faults=(...)]": a member that
// starts at once.
func (Family) AddMember(s *Script, args []core.Arg) error {
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
	if cfg.RebalanceTimeout, err = script.Millis(args, "rebalance"); err != nil {
		return err
	}
	if cfg.RequestTimeout, err = script.Millis(args, "request"); err != nil {
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
