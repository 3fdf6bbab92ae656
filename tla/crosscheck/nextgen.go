package crosscheck

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/model/nextgen"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
	"github.com/rebalance-ref/rebalance/tla/tlaval"
)

// This file projects the next-gen closed world (model/nextgen/world, the
// model `rebalance check --protocol nextgen` explores) onto the variables
// and actions of tla/NextGen.tla:
//
//	mem[n]      member process n (1 = A, 2 = B, ...): its node's state,
//	            epochs, sets, flags and its timers as ms until due (-1 =
//	            not armed); "absent" before it joins, "down" once crashed
//	groupEpoch, targetEpoch, cmem (member index -> the coordinator's
//	            record of it: reconcile.Member and its session and
//	            rebalance timers), ctarget (the target assignment)
//	reqs[n]     n's requests in flight, in send order
//	resps       the responses in flight, as a bag (response -> copies)
//	used        the environment budget used; rounds the epoch bumps since
//	            the environment's last action
//
// What the projection drops, and why no successor depends on it: the
// absolute clock (every timer is kept relative to it, as the checker's
// encoding does); correlation ids, replaced by cur (the message carries
// the Seq its member awaits), which is all a member looks at; the error
// message text of a rejection (no node reads it); the member's configured
// and sent subscription, the coordinator's subscription metadata, target
// metadata, group state and owner map (constant or functions of the rest
// in these worlds); the history (log, violations, previous view).
//
// The image is one-to-one: the checker's encoding numbers correlation ids
// per member (no node ever compares two members' Seqs), so whether a Seq
// of one member happens to equal a Seq of another is not part of a Go
// state either. TestEveryGoStateHasItsOwnImage checks it where such
// coincidences happen (the default world, where numbering ids across all
// nodes once made 104,574 Go states of 103,815 images).
//
// The projection reads member nodes through their accessors only.

// NextGenConfigs are the next-gen configurations with a TLC config
// tla/configs/<name>.cfg: the options world.CheckWorld builds the Go
// model from, the same as the rebalance check flags in the .cfg's header.
var NextGenConfigs = map[string]ngworld.CheckOptions{
	"nextgen-m2j1t1p2":       {Members: 2, Joins: 1, Topics: 1, Partitions: 2},
	"nextgen-m2j1t1p2c1":     {Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1},
	"nextgen-m2j1t1p2c1l1":   {Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1},
	"nextgen-m2j1t1p2c1l1d1": {Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1},
	"nextgen-m2j1t1p2c1l1d2": {Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 2},
	"nextgen-m2j1t1p2d2":     {Members: 2, Joins: 1, Topics: 1, Partitions: 2, Drops: 2},
	"nextgen-m3j1t1p2":       {Members: 3, Joins: 1, Topics: 1, Partitions: 2},
	"nextgen-m3j1t2p2c1l1d1": {Members: 3, Joins: 1, Topics: 2, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1},
	// Three settled members over two partitions: C holds nothing and its
	// target epoch (3) lags the group epoch (4); see NextGen.tla's Init.
	"nextgen-m4j1t1p2": {Members: 4, Joins: 1, Topics: 1, Partitions: 2},
}

// NextGenModel builds the checker model of the named configuration.
func NextGenModel(name string) (*ngworld.Model, error) {
	o, ok := NextGenConfigs[name]
	if !ok {
		return nil, fmt.Errorf("no next-gen config %q", name)
	}
	if err := nextGenSupported(o); err != nil {
		return nil, fmt.Errorf("config %s: %v", name, err)
	}
	cfg, err := ngworld.CheckWorld(o)
	if err != nil {
		return nil, err
	}
	return ngworld.NewModel(cfg)
}

// nextGenSupported rejects the options NextGen.tla does not model.
func nextGenSupported(o ngworld.CheckOptions) error {
	switch {
	case o.Restarts != 0, o.Resubscribes != 0, o.Duplicates != 0, o.AddPartitions != 0:
		return fmt.Errorf("the spec NextGen.tla models no restarts, resubscriptions, duplicates or added partitions")
	case o.Faults != 0:
		return fmt.Errorf("the spec NextGen.tla models no faults")
	case o.Members-o.Joins < 1:
		return fmt.Errorf("the spec NextGen.tla starts from at least one settled member")
	}
	return nil
}

// NextGenGraph explores the named configuration's Go model and returns
// the graph of its projection onto NextGen.tla, to compare with TLC's.
func NextGenGraph(name string) (*Graph, error) {
	m, err := NextGenModel(name)
	if err != nil {
		return nil, err
	}
	state, err := NextGenStates(m)
	if err != nil {
		return nil, fmt.Errorf("config %s: %v", name, err)
	}
	return FromModel[*ngworld.State, core.Action](m, state, NextGenAction, 0)
}

// NextGenStates returns NextGenState for the states of m, with m's
// processes and topics numbered in name order; an error when their names
// cannot be numbered so (NewIndices).
func NextGenStates(m *ngworld.Model) (func(*ngworld.State) tlaval.Value, error) {
	return projection(m, NextGenState)
}

// NextGenAction names the TLA+ action a Go step is.
func NextGenAction(s *ngworld.State, a core.Action) string {
	toCoordinator := func() bool { return s.W.InFlight[a.Index].To == nextgen.CoordinatorNode }
	switch a.Kind {
	case core.Deliver:
		if toCoordinator() {
			return "DeliverRequest"
		}
		return "DeliverResponse"
	case core.Drop:
		if toCoordinator() {
			return "DropRequest"
		}
		return "DropResponse"
	case core.CompleteRevocation:
		return "Revoked"
	}
	if name := environmentAction(a.Kind); name != "" {
		return name
	}
	panic(fmt.Sprintf("crosscheck: NextGen.tla has no action for %s", a))
}

// ngProj projects the parts of a next-gen world onto NextGen.tla's
// values, numbering processes and topics by ix.
type ngProj struct{ ix *Indices }

// resource is a resource's TLA+ value in NextGen.tla: <<topic, partition>>.
func (ng ngProj) resource(r spec.Resource) tlaval.Value {
	return tlaval.Seq(tlaval.Int(ng.ix.topic(r.Topic)), tlaval.Int(int(r.Partition)))
}

// member is the index of the process of a member id name-1 (NextGen.tla
// has no restarts, so every member id is its process's first).
func (ng ngProj) member(id spec.MemberID) int {
	n, k := ng.ix.member(id)
	if k != 1 {
		panic(fmt.Sprintf("crosscheck: member id %q is not a first incarnation", id))
	}
	return n
}

// ngNode is what NextGen.tla keeps of a member node beyond its state,
// epochs and sets.
type ngNode struct {
	interval    int
	reported    bool
	hasTarget   bool
	target      spec.Set
	targetEpoch int
	awaitSeq    uint64
	full        bool
}

func ngParseNode(m *nextgen.Member) ngNode {
	target, epoch, ok := m.Target()
	return ngNode{
		interval: int(m.Interval()), reported: m.OwnedReported(),
		hasTarget: ok, target: target, targetEpoch: int(epoch),
		awaitSeq: m.AwaitedSeq(), full: m.FullNext(),
	}
}

// ngNoNode is NextGen.tla's NoNode(st): a process without a node.
func ngNoNode(st string) map[string]tlaval.Value {
	return map[string]tlaval.Value{
		"state": tlaval.Str(st), "epoch": tlaval.Int(0), "interval": tlaval.Int(5000),
		"owned": tlaval.Set(), "ownedEpoch": tlaval.Int(0), "revoking": tlaval.Set(),
		"target": tlaval.Set(), "targetEpoch": tlaval.Int(0), "hasTarget": tlaval.Bool(false),
		"full": tlaval.Bool(false), "reported": tlaval.Bool(false), "awaiting": tlaval.Bool(false),
		"hb": tlaval.Int(-1), "req": tlaval.Int(-1),
	}
}

// NextGenState maps a Go state of a world whose processes and topics ix
// numbers to the record of NextGen.tla's variables.
func NextGenState(ix *Indices, s *ngworld.State) tlaval.Value {
	ng := ngProj{ix}
	members := len(ix.procs)
	w := s.W
	names := w.Names()
	if s.U.Restarts != 0 || s.U.Resubscribes != 0 || s.U.Duplicates != 0 || s.U.AddPartitions != 0 {
		panic("crosscheck: NextGen.tla models no restarts, resubscriptions, duplicates or added partitions")
	}
	await := map[string]uint64{} // name -> awaited Seq of a live node
	mems := map[int]tlaval.Value{}
	for _, name := range names {
		p := w.Process(name)
		if p.Node == nil {
			mems[ix.process(name)] = record(ngNoNode("down"))
			continue
		}
		if p.Incarnation != 1 || p.Isolated || p.Slow {
			panic(fmt.Sprintf("crosscheck: process %s: incarnation %d isolated %t slow %t", name, p.Incarnation, p.Isolated, p.Slow))
		}
		m := ngworld.MemberOf(p)
		nd := ngParseNode(m)
		if !p.Revoking.Equal(m.Revoking()) {
			panic(fmt.Sprintf("crosscheck: %s: the application revokes %s, the member %s", name, p.Revoking, m.Revoking()))
		}
		await[name] = nd.awaitSeq
		f := ngNoNode(m.State().String())
		f["epoch"] = tlaval.Int(int(m.Epoch()))
		f["interval"] = tlaval.Int(nd.interval)
		f["owned"] = resourceSet(m.Owned(), ng.resource)
		f["ownedEpoch"] = tlaval.Int(int(m.AssignmentEpoch()))
		f["revoking"] = resourceSet(m.Revoking(), ng.resource)
		f["target"] = resourceSet(nd.target, ng.resource)
		f["targetEpoch"] = tlaval.Int(nd.targetEpoch)
		f["hasTarget"] = tlaval.Bool(nd.hasTarget)
		f["full"] = tlaval.Bool(nd.full)
		f["reported"] = tlaval.Bool(nd.reported)
		f["awaiting"] = tlaval.Bool(nd.awaitSeq != 0)
		for _, t := range w.Timers {
			if t.Node != name {
				continue
			}
			due := tlaval.Int(int(t.At - w.Now))
			switch t.Timer.Kind {
			case nextgen.HeartbeatTimer:
				f["hb"] = due
			case nextgen.RequestTimer:
				f["req"] = due
			default:
				panic(fmt.Sprintf("crosscheck: member timer %s", t.Timer))
			}
		}
		mems[ix.process(name)] = record(f)
	}
	cur := func(name string, seq uint64) tlaval.Value {
		a, ok := await[name]
		return tlaval.Bool(ok && a != 0 && a == seq)
	}

	// The coordinator.
	c := ngworld.CoordinatorOf(w)
	session, rebalance := map[spec.MemberID]int{}, map[spec.MemberID]int{}
	for _, t := range w.Timers {
		if t.Node != nextgen.CoordinatorNode {
			continue
		}
		due := int(t.At - w.Now)
		switch t.Timer.Kind {
		case nextgen.SessionTimer:
			session[t.Timer.Member] = due
		case nextgen.RebalanceTimer:
			rebalance[t.Timer.Member] = due
		default:
			panic(fmt.Sprintf("crosscheck: coordinator timer %s", t.Timer))
		}
	}
	var cmem, ctarget []tlaval.Value
	for _, id := range c.Members() {
		ms, _ := c.Member(id)
		if ms.InstanceID != "" {
			panic("crosscheck: NextGen.tla models no static members")
		}
		ses, ok := session[id]
		if !ok {
			ses = -1
		}
		reb, ok := rebalance[id]
		if !ok {
			reb = -1
		}
		cmem = append(cmem, tlaval.Int(ng.member(id)), tlaval.Rec(
			"epoch", tlaval.Int(int(ms.Epoch)), "prev", tlaval.Int(int(ms.PreviousEpoch)),
			"state", tlaval.Str(ms.State.String()),
			"assigned", resourceSet(ms.Assigned, ng.resource), "pending", resourceSet(ms.PendingRevocation, ng.resource),
			"session", tlaval.Int(ses), "rebalance", tlaval.Int(reb)))
	}
	tgt := c.Target()
	for _, id := range tgt.Members() {
		ctarget = append(ctarget, tlaval.Int(ng.member(id)), resourceSet(tgt[id], ng.resource))
	}

	// The network.
	queues := map[int][]tlaval.Value{}
	copies := map[string]int{} // response text -> copies in flight
	byText := map[string]tlaval.Value{}
	for _, env := range w.InFlight {
		switch msg := env.Msg.(type) {
		case nextgen.HeartbeatRequest:
			if msg.InstanceID != nil || msg.ServerAssignor != nil || msg.RackID != nil {
				panic("crosscheck: NextGen.tla models no instance ids, server assignors or racks")
			}
			i := ix.process(env.From)
			queues[i] = append(queues[i], tlaval.Rec(
				"cur", cur(env.From, msg.Seq), "epoch", tlaval.Int(int(msg.MemberEpoch)),
				"full", tlaval.Bool(msg.RebalanceTimeoutMs != -1),
				"ownedSent", tlaval.Bool(msg.OwnedSent), "owned", resourceSet(msg.TopicPartitions, ng.resource)))
		case nextgen.HeartbeatResponse:
			r := tlaval.Rec(
				"to", tlaval.Int(ix.process(env.To)), "cur", cur(env.To, msg.Seq),
				"err", tlaval.Str(msg.Error.String()), "epoch", tlaval.Int(int(msg.MemberEpoch)),
				"asg", tlaval.Bool(msg.AssignmentSent), "assignment", resourceSet(msg.Assignment, ng.resource))
			copies[r.String()]++
			byText[r.String()] = r
		}
	}

	// The responses as a bag (Bags.tla): response -> copies.
	var resps []tlaval.Value
	for text, r := range byText {
		resps = append(resps, r, tlaval.Int(copies[text]))
	}
	var memPairs, reqPairs []tlaval.Value
	for i := 1; i <= members; i++ {
		v, ok := mems[i]
		if !ok {
			v = record(ngNoNode("absent"))
		}
		memPairs = append(memPairs, tlaval.Int(i), v)
		reqPairs = append(reqPairs, tlaval.Int(i), tlaval.Seq(queues[i]...))
	}
	return tlaval.Rec(
		"mem", tlaval.Fcn(memPairs...),
		"groupEpoch", tlaval.Int(int(c.GroupEpoch())),
		"targetEpoch", tlaval.Int(int(c.TargetEpoch())),
		"cmem", tlaval.Fcn(cmem...),
		"ctarget", tlaval.Fcn(ctarget...),
		"reqs", tlaval.Fcn(reqPairs...),
		"resps", tlaval.Fcn(resps...),
		"used", usedRecord(s.U),
		"rounds", tlaval.Int(s.Rounds),
	)
}
