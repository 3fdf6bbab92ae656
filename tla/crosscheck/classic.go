package crosscheck

import (
	"fmt"
	"slices"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/world"
	core "github.com/rebalance-ref/rebalance/model/world"
	"github.com/rebalance-ref/rebalance/spec"
	"github.com/rebalance-ref/rebalance/tla/tlaval"
)

// This file projects the classic closed world (model/classic/world, the
// model `rebalance check --protocol eager|cooperative|...` explores) onto
// the variables and actions of tla/Classic.tla:
//
//	used        the environment budget used: [crashes, leaves, drops]
//	rounds      rounds sent since the environment's last action
//	coord       the coordinator: state, generation, leader, next member
//	            id counter, members (id -> subscription metadata, stored
//	            assignment, parked JoinGroup and SyncGroup) and the
//	            member ids of the parked JoinGroups in arrival order
//	procs[n]    member process n (Indices: 1 = A, 2 = B, ...): "absent" before it
//	            joins, "down" once crashed, else its node's fields
//	reqs[n]     the requests in flight from n to the coordinator, in order
//	resps[n]    the responses in flight from the coordinator to n, in order
//	timers      <<node, kind, member id>> -> time until due, in seconds
//
// Member ids are 100*process+counter ("B-2" = 202), resources
// 100*topic+partition ("T-1" = 101, "U-0" = 200), processes and topics
// numbered in name order (Indices).
//
// What the projection drops, and why no successor depends on it: the
// absolute clock (timers are kept relative to it, as the checker's
// encoding does); correlation ids, replaced by cur (the Seq is the one the
// member waits for) and the members' waiting flags (their Seq is not 0),
// which is all a member compares them with here, and a HeartbeatResponse's
// Generation (the member reads an older heartbeat's response of its
// generation while a newer heartbeat is outstanding, but under the
// checker's prompt network a heartbeat is sent only when nothing is in
// flight, so none is ever outstanding beside the newest); the
// configuration and its copies in the state (protocols, timeouts, client id, protocol type,
// subscription and metadata: constant in these worlds); the coordinator's
// node addresses (always the member's process: no restarts) and its
// protocol and protocol type (functions of its state); a member's
// selected protocol (a function of its generation) and kept set (empty
// without faults); the history (rounds log, violations, previous view).
// Members that left or failed keep only their state and view, as the
// checker's encoding does.
//
// The image is one-to-one: the checker's encoding numbers correlation ids
// per member (no node ever compares two members' Seqs), so whether a Seq
// of one member happens to equal a Seq of another is not part of a Go
// state either. TestEveryGoStateHasItsOwnImage checks it in worlds where
// such coincidences happen (with lost messages, or with 4 members and one
// crash), and TestProjectionKeepsEveryState compares the checker's own
// counts with the images'.
//
// The projection reads the nodes through their exported accessors only:
// classic.Coordinator.Snapshot and classic.Member.Snapshot for the state
// the others do not show (parked requests, the Seqs a member waits for).

// ClassicConfigs are the classic configurations with a TLC config
// tla/configs/<name>.cfg: the protocol and the options world.CheckWorld
// builds the Go model from, the same as the rebalance check flags in the
// .cfg's header.
var ClassicConfigs = map[string]ClassicConfig{
	"classic-eager-m2j1t1p2":             {"eager", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2}},
	"classic-eager-m2j1t1p2c1":           {"eager", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1}},
	"classic-eager-m2j1t1p2c1l1":         {"eager", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1}},
	"classic-eager-m2j1t1p2c1l1d1":       {"eager", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1}},
	"classic-cooperative-m2j1t1p2":       {"cooperative", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2}},
	"classic-cooperative-m2j1t1p2c1":     {"cooperative", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1}},
	"classic-cooperative-m2j1t1p2c1l1":   {"cooperative", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1}},
	"classic-cooperative-m2j1t1p2c1l1d1": {"cooperative", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1}},
	"classic-deferred-m2j1t1p2":          {"deferred", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2}},
	"classic-deferred-m2j1t1p2c1":        {"deferred", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1}},
	"classic-deferred-m2j1t1p2c1l1":      {"deferred", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1}},
	"classic-deferred-m2j1t1p2c1l1d1":    {"deferred", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1}},
	"classic-incremental-m2j1t1p2":       {"incremental", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2}},
	"classic-incremental-m2j1t1p2c1":     {"incremental", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1}},
	"classic-incremental-m2j1t1p2c1l1":   {"incremental", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1}},
	"classic-incremental-m2j1t1p2c1l1d1": {"incremental", world.CheckOptions{Members: 2, Joins: 1, Topics: 1, Partitions: 2, Crashes: 1, Leaves: 1, Drops: 1}},
	"classic-eager-m3j1t1p2":             {"eager", world.CheckOptions{Members: 3, Joins: 1, Topics: 1, Partitions: 2}},
	"classic-cooperative-m3j1t1p2":       {"cooperative", world.CheckOptions{Members: 3, Joins: 1, Topics: 1, Partitions: 2}},
	"classic-deferred-m3j1t1p2":          {"deferred", world.CheckOptions{Members: 3, Joins: 1, Topics: 1, Partitions: 2}},
	"classic-incremental-m3j1t1p2":       {"incremental", world.CheckOptions{Members: 3, Joins: 1, Topics: 1, Partitions: 2}},
	// The default bounds of rebalance check, without its records (the
	// specs have no delivery: rebalance check --records 0).
	"classic-eager-m3j1t2p2c1l1d1":       {"eager", world.DefaultCheckOptions()},
	"classic-cooperative-m3j1t2p2c1l1d1": {"cooperative", world.DefaultCheckOptions()},
	"classic-deferred-m3j1t2p2c1l1d1":    {"deferred", world.DefaultCheckOptions()},
	"classic-incremental-m3j1t2p2c1l1d1": {"incremental", world.DefaultCheckOptions()},
}

// ClassicConfig is one classic configuration: the embedded protocol and
// the closed world's options.
type ClassicConfig struct {
	Protocol string
	Options  world.CheckOptions
}

// ClassicModel builds the checker model of the named configuration.
func ClassicModel(name string) (*world.Model, error) {
	c, ok := ClassicConfigs[name]
	if !ok {
		return nil, fmt.Errorf("no classic config %q", name)
	}
	if err := classicSupported(c); err != nil {
		return nil, fmt.Errorf("config %s: %v", name, err)
	}
	cfg, err := world.CheckWorld(c.Protocol, c.Options)
	if err != nil {
		return nil, err
	}
	return world.NewModel(cfg)
}

// classicSupported rejects the options Classic.tla does not model.
func classicSupported(c ClassicConfig) error {
	o := c.Options
	switch {
	case o.Restarts != 0, o.Resubscribes != 0, o.Duplicates != 0, o.LeaderBounces != 0:
		return fmt.Errorf("the spec Classic.tla models no restarts, resubscriptions, duplicates or leader bounces")
	case o.Faults != 0, o.LeaderFailover != "", o.MaxDelay != 0, o.ClaimGeneration != "", o.MaxRounds != 0, o.EnvAnywhere:
		return fmt.Errorf("the spec Classic.tla models no faults, failover rules, scheduled delays, claim generations, round bounds or environment in flight")
	case o.Members-o.Joins < 1:
		return fmt.Errorf("the spec Classic.tla starts from at least one settled member")
	}
	return nil
}

// ClassicGraph explores the named configuration's Go model and returns the
// graph of its projection onto Classic.tla, to compare with TLC's.
func ClassicGraph(name string) (*Graph, error) {
	m, err := ClassicModel(name)
	if err != nil {
		return nil, err
	}
	state, err := ClassicStates(m)
	if err != nil {
		return nil, fmt.Errorf("config %s: %v", name, err)
	}
	return FromModel[*world.State, core.Action](m, state, ClassicAction, 0)
}

// ClassicStates returns ClassicState for the states of m, with m's
// processes and topics numbered in name order; an error when their names
// cannot be numbered so (NewIndices).
func ClassicStates(m *world.Model) (func(*world.State) tlaval.Value, error) {
	return projection(m, ClassicState)
}

// ClassicAction names the TLA+ action a Go step is.
func ClassicAction(_ *world.State, a core.Action) string {
	switch a.Kind {
	case core.Deliver:
		return "Deliver"
	case core.Drop:
		return "Drop"
	}
	if name := environmentAction(a.Kind); name != "" {
		return name
	}
	panic(fmt.Sprintf("crosscheck: Classic.tla has no action for %s", a))
}

// clProj projects the parts of a classic world onto Classic.tla's values,
// numbering processes and topics by ix.
type clProj struct{ ix *Indices }

// resource is a resource's TLA+ value in Classic.tla: 100*topic+partition.
func (cl clProj) resource(r spec.Resource) tlaval.Value {
	if r.Partition < 0 || r.Partition > 99 {
		panic(fmt.Sprintf("crosscheck: resource %s", r))
	}
	return tlaval.Int(100*cl.ix.topic(r.Topic) + int(r.Partition))
}

// id is a member id's TLA+ value: 100*process+counter, 0 for "". The
// counter must stay below 10 for TLA+'s integer order to be Go's string
// order (Indices.member panics otherwise).
func (cl clProj) id(id spec.MemberID) int {
	if id == "" {
		return 0
	}
	n, k := cl.ix.member(id)
	return 100*n + k
}

func (cl clProj) idv(id spec.MemberID) tlaval.Value { return tlaval.Int(cl.id(id)) }

// clSec converts a duration in ms to the spec's seconds.
func clSec(d classic.Millis) int {
	if d%1000 != 0 {
		panic(fmt.Sprintf("crosscheck: duration %d ms is not whole seconds", d))
	}
	return int(d / 1000)
}

// sub is the metadata of a JoinGroup: [owned, gen, leader].
func (cl clProj) sub(md classic.Metadata) tlaval.Value {
	s, err := classic.DecodeSubscription(md)
	if err != nil {
		panic(fmt.Sprintf("crosscheck: subscription %q: %v", md, err))
	}
	if len(s.Topics) == 0 {
		panic("crosscheck: empty subscription")
	}
	return tlaval.Rec("owned", resourceSet(s.Owned, cl.resource), "gen", tlaval.Int(int(s.Generation)), "leader", cl.idv(s.Leader))
}

// asg is an assignment's metadata as a record.
func (cl clProj) asg(md classic.Metadata) tlaval.Value {
	a, err := classic.DecodeAssignment(md)
	if err != nil {
		panic(fmt.Sprintf("crosscheck: assignment %q: %v", md, err))
	}
	return tlaval.Rec("assigned", resourceSet(a.Assigned, cl.resource), "revoked", resourceSet(a.Revoked, cl.resource),
		"delay", tlaval.Int(clSec(a.Delay)), "leader", cl.idv(a.Leader), "error", tlaval.Int(int(a.Error)))
}

// optAsg is a stored assignment: <<>> for none, <<Asg>> otherwise.
func (cl clProj) optAsg(md classic.Metadata) tlaval.Value {
	if md == "" {
		return tlaval.Seq()
	}
	return tlaval.Seq(cl.asg(md))
}

func (cl clProj) asgs(as []classic.MemberAssignment) tlaval.Value {
	var pairs []tlaval.Value
	for _, a := range as {
		pairs = append(pairs, cl.idv(a.MemberID), cl.asg(a.Assignment))
	}
	return tlaval.Fcn(pairs...)
}

// clProc is what the spec keeps of a process and the Seqs it waits for.
type clProc struct {
	rec                  tlaval.Value
	joinSeq, syncSeq, hb uint64
	live                 bool
}

func (cl clProj) fresh(st string) map[string]tlaval.Value {
	return map[string]tlaval.Value{
		"st": tlaval.Str(st), "id": tlaval.Int(0), "gen": tlaval.Int(-1), "leader": tlaval.Int(0),
		"owned": tlaval.Set(), "ownedGen": tlaval.Int(-1), "ownedLeader": tlaval.Int(0),
		"lastCompleted": tlaval.Int(-1), "memory": cl.zeroMemory(),
		"wJoin": tlaval.Bool(false), "wSync": tlaval.Bool(false), "wHb": tlaval.Bool(false),
		"rejoin": tlaval.Bool(false),
		"sync":   tlaval.Rec("member", tlaval.Int(0), "gen", tlaval.Int(0), "asgs", tlaval.Seq()),
	}
}

func (cl clProj) zeroMemory() tlaval.Value {
	return cl.memory(classic.LeaderMemory{}, 0)
}

// memory is a leader's memory; ScheduledAt is the time until it is due
// (0 when due), -1 for none (Go's instant 0).
func (cl clProj) memory(mem classic.LeaderMemory, now classic.Millis) tlaval.Value {
	at := -1
	if mem.ScheduledAt != 0 {
		at = clSec(max(mem.ScheduledAt-now, 0))
	}
	var asg []tlaval.Value
	for _, id := range mem.Assignment.Members() {
		asg = append(asg, cl.idv(id), resourceSet(mem.Assignment[id], cl.resource))
	}
	ids := func(xs []spec.MemberID) tlaval.Value {
		vs := make([]tlaval.Value, len(xs))
		for i, x := range xs {
			vs[i] = cl.idv(x)
		}
		return tlaval.Seq(vs...)
	}
	return tlaval.Rec("gen", tlaval.Int(int(mem.Generation)), "assignment", tlaval.Fcn(asg...),
		"members", ids(mem.Members), "scheduledAt", tlaval.Int(at), "lost", resourceSet(mem.Lost, cl.resource),
		"candidates", ids(mem.Candidates), "successive", tlaval.Int(mem.SuccessiveRevokingRounds),
		"revoked", tlaval.Bool(mem.Revoked))
}

func (cl clProj) process(p *core.Process[classic.Message, classic.Timer, classic.Callback, classic.MemberConfig], now classic.Millis) clProc {
	// A fault switch is configuration, not state: the spec has none, and a
	// world with one on shows up as the states and steps it changes (the
	// cross-check's fault test relies on that).
	if p.Incarnation != 1 || p.Isolated || p.Config().InstanceID != "" {
		panic(fmt.Sprintf("crosscheck: process %s: incarnation %d isolated %t instance %q",
			p.Config().Name, p.Incarnation, p.Isolated, p.Config().InstanceID))
	}
	m := world.MemberOf(p)
	if m == nil {
		return clProc{rec: record(cl.fresh("down"))}
	}
	f := cl.fresh(m.State().String())
	switch m.State() {
	case classic.Left, classic.Failed:
		// The checker's encoding keeps only the state and the view.
		v := m.View()
		f["id"] = cl.idv(v.ID)
		f["ownedGen"] = tlaval.Int(int(v.Generation))
		f["owned"] = resourceSet(v.Owns, cl.resource)
		return clProc{rec: record(f)}
	}
	ms := m.Snapshot()
	if len(ms.Kept) > 0 {
		panic("crosscheck: a member keeps revoked resources")
	}
	f["id"] = cl.idv(m.ID())
	f["gen"] = tlaval.Int(int(m.Generation()))
	f["leader"] = cl.idv(ms.Leader)
	f["owned"] = resourceSet(m.Owned(), cl.resource)
	f["ownedGen"] = tlaval.Int(int(ms.OwnedGeneration))
	f["ownedLeader"] = cl.idv(ms.OwnedLeader)
	f["lastCompleted"] = tlaval.Int(int(m.LastCompletedGeneration()))
	f["memory"] = cl.memory(m.LeaderMemory(), now)
	pr := clProc{
		joinSeq: ms.JoinSeq,
		syncSeq: ms.SyncSeq,
		hb:      ms.HeartbeatSeq,
		live:    true,
	}
	f["wJoin"] = tlaval.Bool(pr.joinSeq != 0)
	f["wSync"] = tlaval.Bool(pr.syncSeq != 0)
	f["wHb"] = tlaval.Bool(pr.hb != 0)
	f["rejoin"] = tlaval.Bool(ms.RejoinAfterSync)
	sync := ms.LastSync
	if sync.Seq != 0 || sync.InstanceID != "" {
		panic("crosscheck: stored SyncGroup with a Seq or an instance id")
	}
	f["sync"] = tlaval.Rec("member", cl.idv(sync.MemberID),
		"gen", tlaval.Int(int(sync.Generation)), "asgs", cl.asgs(sync.Assignments))
	pr.rec = record(f)
	return pr
}

// ClassicState maps a Go state of a world whose processes and topics ix
// numbers to the record of Classic.tla's variables.
func ClassicState(ix *Indices, s *world.State) tlaval.Value {
	cl := clProj{ix}
	members := len(ix.procs)
	w := s.W
	u := s.U
	if u.Restarts != 0 || u.Resubscribes != 0 || u.Duplicates != 0 || u.LeaderBounces != 0 {
		panic("crosscheck: Classic.tla models no restarts, resubscriptions, duplicates or bounces")
	}
	procs := make([]tlaval.Value, members)
	info := map[int]clProc{}
	for i := range procs {
		procs[i] = record(cl.fresh("absent"))
	}
	for _, name := range w.Names() {
		pr := cl.process(w.Process(name), w.Now)
		n := ix.process(name)
		procs[n-1] = pr.rec
		info[n] = pr
	}
	curOf := func(n int, kind string, seq uint64) tlaval.Value {
		pr, ok := info[n]
		if !ok || !pr.live || seq == 0 {
			return tlaval.Bool(false)
		}
		var want uint64
		switch kind {
		case "join":
			want = pr.joinSeq
		case "sync":
			want = pr.syncSeq
		case "hb":
			want = pr.hb
		}
		return tlaval.Bool(want != 0 && want == seq)
	}

	// The coordinator.
	c := world.CoordinatorOf(w)
	cs := c.Snapshot()
	if len(cs.Instances) != 0 {
		panic("crosscheck: Classic.tla models no static members")
	}
	type parked struct {
		id      spec.MemberID
		arrival uint64
	}
	var order []parked
	var cmem []tlaval.Value
	for _, m := range cs.Members {
		id := m.ID
		n, _ := ix.member(id)
		if ix.process(m.Node) != n {
			panic(fmt.Sprintf("crosscheck: member %s at node %s", id, m.Node))
		}
		if len(m.Protocols) != 1 {
			panic(fmt.Sprintf("crosscheck: member %s has %d protocols", id, len(m.Protocols)))
		}
		meta := cl.sub(m.Protocols[0].Metadata)
		park := func(p classic.ParkedRequest, kind string) tlaval.Value {
			if !p.Parked {
				return tlaval.Rec("ok", tlaval.Bool(false), "cur", tlaval.Bool(false))
			}
			if ix.process(p.From) != n {
				panic(fmt.Sprintf("crosscheck: parked request of %s from %s", id, p.From))
			}
			return tlaval.Rec("ok", tlaval.Bool(true), "cur", curOf(n, kind, p.Seq))
		}
		if m.Join.Parked {
			order = append(order, parked{id, m.Join.Arrival})
		}
		cmem = append(cmem, cl.idv(id), tlaval.Rec(
			"meta", meta,
			"asg", cl.optAsg(m.Assignment),
			"join", park(m.Join, "join"),
			"sync", park(m.Sync, "sync")))
	}
	slices.SortFunc(order, func(a, b parked) int { return int(a.arrival) - int(b.arrival) })
	var orderv []tlaval.Value
	for _, p := range order {
		orderv = append(orderv, cl.idv(p.id))
	}
	if c.NextMemberID() > 9 {
		panic(fmt.Sprintf("crosscheck: next member id %d: ids would not sort as integers", c.NextMemberID()))
	}
	coord := tlaval.Rec(
		"state", tlaval.Str(c.State().String()),
		"gen", tlaval.Int(int(c.Generation())),
		"leader", cl.idv(c.Leader()),
		"nextId", tlaval.Int(int(c.NextMemberID())),
		"members", tlaval.Fcn(cmem...),
		"order", tlaval.Seq(orderv...))

	// The network.
	reqs := make([][]tlaval.Value, members)
	resps := make([][]tlaval.Value, members)
	for _, e := range w.InFlight {
		if e.To == classic.CoordinatorNode {
			n := ix.process(e.From)
			reqs[n-1] = append(reqs[n-1], cl.request(n, e.Msg, curOf))
		} else {
			if e.From != classic.CoordinatorNode {
				panic(fmt.Sprintf("crosscheck: message between members: %s", e))
			}
			n := ix.process(e.To)
			resps[n-1] = append(resps[n-1], cl.response(n, e.Msg, curOf))
		}
	}
	reqv := make([]tlaval.Value, members)
	respv := make([]tlaval.Value, members)
	for i := range members {
		reqv[i] = tlaval.Seq(reqs[i]...)
		respv[i] = tlaval.Seq(resps[i]...)
	}

	// The timers.
	var tpairs []tlaval.Value
	for _, t := range w.Timers {
		node := 100
		if t.Node != classic.CoordinatorNode {
			node = ix.process(t.Node)
		}
		kind := map[classic.TimerKind]int{
			classic.JoinTimer: 1, classic.SessionTimer: 2, classic.HeartbeatTimer: 3,
			classic.RequestTimer: 4, classic.ScheduledRebalanceTimer: 5,
		}[t.Timer.Kind]
		left := max(t.At-w.Now, 0)
		tpairs = append(tpairs, tlaval.Seq(tlaval.Int(node), tlaval.Int(kind), cl.idv(t.Timer.Member)),
			tlaval.Int(clSec(left)))
	}

	return tlaval.Rec(
		"used", usedRecord(u),
		"rounds", tlaval.Int(s.Rounds),
		"coord", coord,
		"procs", tlaval.Seq(procs...),
		"reqs", tlaval.Seq(reqv...),
		"resps", tlaval.Seq(respv...),
		"timers", tlaval.Fcn(tpairs...))
}

type clCur func(n int, kind string, seq uint64) tlaval.Value

func (cl clProj) request(n int, msg classic.Message, cur clCur) tlaval.Value {
	switch r := msg.(type) {
	case classic.JoinGroupRequest:
		if len(r.Protocols) != 1 || r.InstanceID != "" {
			panic(fmt.Sprintf("crosscheck: JoinGroup %s", r))
		}
		return tlaval.Rec("type", tlaval.Str("JoinGroup"), "cur", cur(n, "join", r.Seq),
			"member", cl.idv(r.MemberID), "meta", cl.sub(r.Protocols[0].Metadata))
	case classic.SyncGroupRequest:
		return tlaval.Rec("type", tlaval.Str("SyncGroup"), "cur", cur(n, "sync", r.Seq),
			"member", cl.idv(r.MemberID), "gen", tlaval.Int(int(r.Generation)), "asgs", cl.asgs(r.Assignments))
	case classic.HeartbeatRequest:
		return tlaval.Rec("type", tlaval.Str("Heartbeat"), "cur", cur(n, "hb", r.Seq),
			"member", cl.idv(r.MemberID), "gen", tlaval.Int(int(r.Generation)))
	case classic.LeaveGroupRequest:
		return tlaval.Rec("type", tlaval.Str("LeaveGroup"), "member", cl.idv(r.MemberID))
	}
	panic(fmt.Sprintf("crosscheck: request %T", msg))
}

func (cl clProj) response(n int, msg classic.Message, cur clCur) tlaval.Value {
	switch r := msg.(type) {
	case classic.JoinGroupResponse:
		if r.SkipAssignment {
			panic("crosscheck: SkipAssignment")
		}
		var ms []tlaval.Value
		for _, jm := range r.Members {
			ms = append(ms, cl.idv(jm.MemberID), cl.sub(jm.Metadata))
		}
		return tlaval.Rec("type", tlaval.Str("JoinGroupResponse"), "cur", cur(n, "join", r.Seq),
			"error", tlaval.Int(int(r.Error)), "gen", tlaval.Int(int(r.Generation)),
			"leader", cl.idv(r.Leader), "member", cl.idv(r.MemberID), "members", tlaval.Fcn(ms...))
	case classic.SyncGroupResponse:
		return tlaval.Rec("type", tlaval.Str("SyncGroupResponse"), "cur", cur(n, "sync", r.Seq),
			"error", tlaval.Int(int(r.Error)), "asg", cl.optAsg(r.Assignment))
	case classic.HeartbeatResponse:
		return tlaval.Rec("type", tlaval.Str("HeartbeatResponse"), "cur", cur(n, "hb", r.Seq),
			"error", tlaval.Int(int(r.Error)))
	case classic.LeaveGroupResponse:
		return tlaval.Rec("type", tlaval.Str("LeaveGroupResponse"), "error", tlaval.Int(int(r.Error)))
	}
	panic(fmt.Sprintf("crosscheck: response %T", msg))
}
