package world

import (
	"fmt"
	core "github.com/rebalance-ref/rebalance/model/world"
	"maps"
	"slices"
	"strings"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/script"
)

// Verb runs the next-gen family's own scenario commands: it has none
// besides the shared ones (model/world's Script: slow, prompt, revoked,
// add-partition among them).
func (Family) Verb(*Script, string, []core.Arg) (bool, error) { return false, nil }

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
	cfg := nextgen.CoordinatorConfig{GroupID: "group", Topics: topics, Assignors: script.Vals(args, "assignors")}
	for _, a := range f.Assignors {
		if len(cfg.Assignors) == 0 || slices.Contains(cfg.Assignors, a.Name()) {
			cfg.ServerAssignors = append(cfg.ServerAssignors, a)
		}
	}
	if err := script.Durations(args, map[string]*node.Millis{"session": &cfg.SessionTimeout, "heartbeat": &cfg.HeartbeatInterval}); err != nil {
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
	return s.Start(w, err, args)
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
	if err := script.Durations(args, map[string]*node.Millis{"rebalance": &cfg.RebalanceTimeout, "request": &cfg.RequestTimeout}); err != nil {
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
