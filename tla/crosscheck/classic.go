package crosscheck

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

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
//	procs[n]    member process n (1 = A, 2 = B, ...): "absent" before it
//	            joins, "down" once crashed, else its node's fields
//	reqs[n]     the requests in flight from n to the coordinator, in order
//	resps[n]    the responses in flight from the coordinator to n, in order
//	timers      <<node, kind, member id>> -> time until due, in seconds
//
// Member ids are 100*name+counter ("B-2" = 202), resources
// 100*topic+partition ("T-1" = 101, "U-0" = 200).
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
	members := ClassicConfigs[name].Options.Members
	state := func(s *world.State) tlaval.Value { return ClassicState(members, s) }
	return FromModel[*world.State, core.Action](m, state, ClassicAction, 0)
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

// clResource is a resource's TLA+ value in Classic.tla: 100*topic+partition.
func clResource(r spec.Resource) tlaval.Value {
	if r.Partition < 0 || r.Partition > 99 {
		panic(fmt.Sprintf("crosscheck: resource %s", r))
	}
	return tlaval.Int(100*topicIndex(r.Topic) + int(r.Partition))
}

// clID is a member id's TLA+ value: 100*name+counter, 0 for "". The
// counter must stay below 10 for TLA+'s integer order to be Go's string
// order.
func clID(id spec.MemberID) int {
	if id == "" {
		return 0
	}
	name, num, ok := strings.Cut(string(id), "-")
	k, err := strconv.Atoi(num)
	if !ok || err != nil || k < 1 || k > 9 {
		panic(fmt.Sprintf("crosscheck: member id %q", id))
	}
	return 100*processIndex(name) + k
}

func clIDv(id spec.MemberID) tlaval.Value { return tlaval.Int(clID(id)) }

// clSec converts a duration in ms to the spec's seconds.
func clSec(d classic.Millis) int {
	if d%1000 != 0 {
		panic(fmt.Sprintf("crosscheck: duration %d ms is not whole seconds", d))
	}
	return int(d / 1000)
}

// clSub is the metadata of a JoinGroup: [owned, gen, leader].
func clSub(md classic.Metadata) tlaval.Value {
	s, err := classic.DecodeSubscription(md)
	if err != nil {
		panic(fmt.Sprintf("crosscheck: subscription %q: %v", md, err))
	}
	if len(s.Topics) == 0 {
		panic("crosscheck: empty subscription")
	}
	return tlaval.Rec("owned", resourceSet(s.Owned, clResource), "gen", tlaval.Int(int(s.Generation)), "leader", clIDv(s.Leader))
}

// clAsg is an assignment's metadata as a record.
func clAsg(md classic.Metadata) tlaval.Value {
	a, err := classic.DecodeAssignment(md)
	if err != nil {
		panic(fmt.Sprintf("crosscheck: assignment %q: %v", md, err))
	}
	return tlaval.Rec("assigned", resourceSet(a.Assigned, clResource), "revoked", resourceSet(a.Revoked, clResource),
		"delay", tlaval.Int(clSec(a.Delay)), "leader", clIDv(a.Leader), "error", tlaval.Int(int(a.Error)))
}

// clOptAsg is a stored assignment: <<>> for none, <<Asg>> otherwise.
func clOptAsg(md classic.Metadata) tlaval.Value {
	if md == "" {
		return tlaval.Seq()
	}
	return tlaval.Seq(clAsg(md))
}

func clAsgs(as []classic.MemberAssignment) tlaval.Value {
	var pairs []tlaval.Value
	for _, a := range as {
		pairs = append(pairs, clIDv(a.MemberID), clAsg(a.Assignment))
	}
	return tlaval.Fcn(pairs...)
}

// clProc is what the spec keeps of a process and the Seqs it waits for.
type clProc struct {
	rec                  tlaval.Value
	joinSeq, syncSeq, hb uint64
	live                 bool
}

func clFresh(st string) map[string]tlaval.Value {
	return map[string]tlaval.Value{
		"st": tlaval.Str(st), "id": tlaval.Int(0), "gen": tlaval.Int(-1), "leader": tlaval.Int(0),
		"owned": tlaval.Set(), "ownedGen": tlaval.Int(-1), "ownedLeader": tlaval.Int(0),
		"lastCompleted": tlaval.Int(-1), "memory": clZeroMemory(),
		"wJoin": tlaval.Bool(false), "wSync": tlaval.Bool(false), "wHb": tlaval.Bool(false),
		"rejoin": tlaval.Bool(false),
		"sync":   tlaval.Rec("member", tlaval.Int(0), "gen", tlaval.Int(0), "asgs", tlaval.Seq()),
	}
}

func clZeroMemory() tlaval.Value {
	return clMemory(classic.LeaderMemory{}, 0)
}

// clMemory is a leader's memory; ScheduledAt is the time until it is due
// (0 when due), -1 for none (Go's instant 0).
func clMemory(mem classic.LeaderMemory, now classic.Millis) tlaval.Value {
	at := -1
	if mem.ScheduledAt != 0 {
		at = clSec(max(mem.ScheduledAt-now, 0))
	}
	var asg []tlaval.Value
	for _, id := range mem.Assignment.Members() {
		asg = append(asg, clIDv(id), resourceSet(mem.Assignment[id], clResource))
	}
	ids := func(xs []spec.MemberID) tlaval.Value {
		vs := make([]tlaval.Value, len(xs))
		for i, x := range xs {
			vs[i] = clIDv(x)
		}
		return tlaval.Seq(vs...)
	}
	return tlaval.Rec("gen", tlaval.Int(int(mem.Generation)), "assignment", tlaval.Fcn(asg...),
		"members", ids(mem.Members), "scheduledAt", tlaval.Int(at), "lost", resourceSet(mem.Lost, clResource),
		"candidates", ids(mem.Candidates), "successive", tlaval.Int(mem.SuccessiveRevokingRounds),
		"revoked", tlaval.Bool(mem.Revoked))
}

func clProcess(p *core.Process[classic.Message, classic.Timer, classic.Callback, classic.MemberConfig], now classic.Millis) clProc {
	// A fault switch is configuration, not state: the spec has none, and a
	// world with one on shows up as the states and steps it changes (the
	// cross-check's fault test relies on that).
	if p.Incarnation != 1 || p.Isolated || p.Config().InstanceID != "" {
		panic(fmt.Sprintf("crosscheck: process %s: incarnation %d isolated %t instance %q",
			p.Config().Name, p.Incarnation, p.Isolated, p.Config().InstanceID))
	}
	m := world.MemberOf(p)
	if m == nil {
		return clProc{rec: record(clFresh("down"))}
	}
	f := clFresh(m.State().String())
	switch m.State() {
	case classic.Left, classic.Failed:
		// The checker's encoding keeps only the state and the view.
		v := m.View()
		f["id"] = clIDv(v.ID)
		f["ownedGen"] = tlaval.Int(int(v.Generation))
		f["owned"] = resourceSet(v.Owns, clResource)
		return clProc{rec: record(f)}
	}
	ms := m.Snapshot()
	if len(ms.Kept) > 0 {
		panic("crosscheck: a member keeps revoked resources")
	}
	f["id"] = clIDv(m.ID())
	f["gen"] = tlaval.Int(int(m.Generation()))
	f["leader"] = clIDv(ms.Leader)
	f["owned"] = resourceSet(m.Owned(), clResource)
	f["ownedGen"] = tlaval.Int(int(ms.OwnedGeneration))
	f["ownedLeader"] = clIDv(ms.OwnedLeader)
	f["lastCompleted"] = tlaval.Int(int(m.LastCompletedGeneration()))
	f["memory"] = clMemory(m.LeaderMemory(), now)
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
	f["sync"] = tlaval.Rec("member", clIDv(sync.MemberID),
		"gen", tlaval.Int(int(sync.Generation)), "asgs", clAsgs(sync.Assignments))
	pr.rec = record(f)
	return pr
}

// ClassicState maps a Go state of a world with the given number of
// members (joiners included) to the record of Classic.tla's variables.
func ClassicState(members int, s *world.State) tlaval.Value {
	w := s.W
	u := s.U
	if u.Restarts != 0 || u.Resubscribes != 0 || u.Duplicates != 0 || u.LeaderBounces != 0 {
		panic("crosscheck: Classic.tla models no restarts, resubscriptions, duplicates or bounces")
	}
	procs := make([]tlaval.Value, members)
	info := map[int]clProc{}
	for i := range procs {
		procs[i] = record(clFresh("absent"))
	}
	for _, name := range w.Names() {
		pr := clProcess(w.Process(name), w.Now)
		procs[processIndex(name)-1] = pr.rec
		info[processIndex(name)] = pr
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
		n := processIndex(strings.SplitN(string(id), "-", 2)[0])
		if m.Node != string(id[:1]) {
			panic(fmt.Sprintf("crosscheck: member %s at node %s", id, m.Node))
		}
		if len(m.Protocols) != 1 {
			panic(fmt.Sprintf("crosscheck: member %s has %d protocols", id, len(m.Protocols)))
		}
		meta := clSub(m.Protocols[0].Metadata)
		park := func(p classic.ParkedRequest, kind string) tlaval.Value {
			if !p.Parked {
				return tlaval.Rec("ok", tlaval.Bool(false), "cur", tlaval.Bool(false))
			}
			if p.From != string(id[:1]) {
				panic(fmt.Sprintf("crosscheck: parked request of %s from %s", id, p.From))
			}
			return tlaval.Rec("ok", tlaval.Bool(true), "cur", curOf(n, kind, p.Seq))
		}
		if m.Join.Parked {
			order = append(order, parked{id, m.Join.Arrival})
		}
		cmem = append(cmem, clIDv(id), tlaval.Rec(
			"meta", meta,
			"asg", clOptAsg(m.Assignment),
			"join", park(m.Join, "join"),
			"sync", park(m.Sync, "sync")))
	}
	slices.SortFunc(order, func(a, b parked) int { return int(a.arrival) - int(b.arrival) })
	var orderv []tlaval.Value
	for _, p := range order {
		orderv = append(orderv, clIDv(p.id))
	}
	if c.NextMemberID() > 9 {
		panic(fmt.Sprintf("crosscheck: next member id %d: ids would not sort as integers", c.NextMemberID()))
	}
	coord := tlaval.Rec(
		"state", tlaval.Str(c.State().String()),
		"gen", tlaval.Int(int(c.Generation())),
		"leader", clIDv(c.Leader()),
		"nextId", tlaval.Int(int(c.NextMemberID())),
		"members", tlaval.Fcn(cmem...),
		"order", tlaval.Seq(orderv...))

	// The network.
	reqs := make([][]tlaval.Value, members)
	resps := make([][]tlaval.Value, members)
	for _, e := range w.InFlight {
		if e.To == classic.CoordinatorNode {
			n := processIndex(e.From)
			reqs[n-1] = append(reqs[n-1], clRequest(n, e.Msg, curOf))
		} else {
			if e.From != classic.CoordinatorNode {
				panic(fmt.Sprintf("crosscheck: message between members: %s", e))
			}
			n := processIndex(e.To)
			resps[n-1] = append(resps[n-1], clResponse(n, e.Msg, curOf))
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
			node = processIndex(t.Node)
		}
		kind := map[classic.TimerKind]int{
			classic.JoinTimer: 1, classic.SessionTimer: 2, classic.HeartbeatTimer: 3,
			classic.RequestTimer: 4, classic.ScheduledRebalanceTimer: 5,
		}[t.Timer.Kind]
		left := max(t.At-w.Now, 0)
		tpairs = append(tpairs, tlaval.Seq(tlaval.Int(node), tlaval.Int(kind), clIDv(t.Timer.Member)),
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

func clRequest(n int, msg classic.Message, cur clCur) tlaval.Value {
	switch r := msg.(type) {
	case classic.JoinGroupRequest:
		if len(r.Protocols) != 1 || r.InstanceID != "" {
			panic(fmt.Sprintf("crosscheck: JoinGroup %s", r))
		}
		return tlaval.Rec("type", tlaval.Str("JoinGroup"), "cur", cur(n, "join", r.Seq),
			"member", clIDv(r.MemberID), "meta", clSub(r.Protocols[0].Metadata))
	case classic.SyncGroupRequest:
		return tlaval.Rec("type", tlaval.Str("SyncGroup"), "cur", cur(n, "sync", r.Seq),
			"member", clIDv(r.MemberID), "gen", tlaval.Int(int(r.Generation)), "asgs", clAsgs(r.Assignments))
	case classic.HeartbeatRequest:
		return tlaval.Rec("type", tlaval.Str("Heartbeat"), "cur", cur(n, "hb", r.Seq),
			"member", clIDv(r.MemberID), "gen", tlaval.Int(int(r.Generation)))
	case classic.LeaveGroupRequest:
		return tlaval.Rec("type", tlaval.Str("LeaveGroup"), "member", clIDv(r.MemberID))
	}
	panic(fmt.Sprintf("crosscheck: request %T", msg))
}

func clResponse(n int, msg classic.Message, cur clCur) tlaval.Value {
	switch r := msg.(type) {
	case classic.JoinGroupResponse:
		if r.SkipAssignment {
			panic("crosscheck: SkipAssignment")
		}
		var ms []tlaval.Value
		for _, jm := range r.Members {
			ms = append(ms, clIDv(jm.MemberID), clSub(jm.Metadata))
		}
		return tlaval.Rec("type", tlaval.Str("JoinGroupResponse"), "cur", cur(n, "join", r.Seq),
			"error", tlaval.Int(int(r.Error)), "gen", tlaval.Int(int(r.Generation)),
			"leader", clIDv(r.Leader), "member", clIDv(r.MemberID), "members", tlaval.Fcn(ms...))
	case classic.SyncGroupResponse:
		return tlaval.Rec("type", tlaval.Str("SyncGroupResponse"), "cur", cur(n, "sync", r.Seq),
			"error", tlaval.Int(int(r.Error)), "asg", clOptAsg(r.Assignment))
	case classic.HeartbeatResponse:
		return tlaval.Rec("type", tlaval.Str("HeartbeatResponse"), "cur", cur(n, "hb", r.Seq),
			"error", tlaval.Int(int(r.Error)))
	case classic.LeaveGroupResponse:
		return tlaval.Rec("type", tlaval.Str("LeaveGroupResponse"), "error", tlaval.Int(int(r.Error)))
	}
	panic(fmt.Sprintf("crosscheck: response %T", msg))
}
