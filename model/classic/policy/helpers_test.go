package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// tb is what the helpers need of *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
}

func set(t tb, s string) spec.Set {
	t.Helper()
	out, err := spec.ParseSet(s)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// member is one member process of a simulated group, as the leader sees it
// through its subscription.
type member struct {
	topics []string
	owned  spec.Set
	gen    spec.Generation
	leader spec.MemberID
}

// group drives a protocol at the leader level: each round builds the
// LeaderInput from the members' state and the leader's memory, runs
// Assign, checks the round, and applies the result as the members would
// (owned = Assigned, at the new generation, by the round's leader).
type group struct {
	t      tb
	p      classic.Protocol
	topics spec.Topics
	now    classic.Millis
	gen    spec.Generation // last completed generation
	leader spec.MemberID
	mem    classic.LeaderMemory
	faults classic.Faults
	m      map[spec.MemberID]*member
	// last is the last round's result.
	last classic.LeaderResult
	// checkLaws is false for rounds run with a fault switch on.
	checkLaws bool
}

func newGroup(t tb, p classic.Protocol, topics spec.Topics) *group {
	return &group{t: t, p: p, topics: topics, gen: 0, m: map[spec.MemberID]*member{}, checkLaws: true}
}

// join adds a member owning owned (at the current generation and leader
// when owned is not empty).
func (g *group) join(id spec.MemberID, topics []string, owned string) *group {
	g.t.Helper()
	m := &member{topics: topics, owned: set(g.t, owned), gen: spec.NoGeneration}
	if !m.owned.IsEmpty() {
		m.gen, m.leader = g.gen, g.leader
	}
	g.m[id] = m
	return g
}

func (g *group) leave(id spec.MemberID) *group {
	delete(g.m, id)
	return g
}

// input is the LeaderInput of the next round.
func (g *group) input() classic.LeaderInput {
	in := classic.LeaderInput{
		Now:                     g.now,
		Generation:              g.gen + 1,
		Leader:                  g.leader,
		LastCompletedGeneration: g.gen,
		Topics:                  maps.Clone(g.topics),
		Memory:                  g.mem.Clone(),
		Faults:                  g.faults,
	}
	for _, id := range slices.Sorted(maps.Keys(g.m)) {
		m := g.m[id]
		in.Members = append(in.Members, classic.Joined{ID: id, Subscription: classic.Subscription{
			Topics: slices.Clone(m.topics), Owned: m.owned, Generation: m.gen, Leader: m.leader,
		}})
	}
	return in
}

// round runs one round and applies it.
func (g *group) round() classic.LeaderResult {
	g.t.Helper()
	in := g.input()
	res, err := g.p.Assign(in)
	if err != nil {
		g.t.Fatalf("round %d: %v", in.Generation, err)
	}
	if g.checkLaws {
		if vs := append(checkResult(in, res, g.p.Cooperative()), checkStable(g.p, in, res)...); len(vs) > 0 {
			g.t.Fatalf("round %d at %d:\ninput: %s\nresult: %s\nviolations:\n  %s", in.Generation, in.Now, describeInput(in), describeResult(res), strings.Join(vs, "\n  "))
		}
	}
	for id, a := range res.Assignments {
		m := g.m[id]
		m.owned, m.gen, m.leader = a.Assigned, in.Generation, in.Leader
	}
	g.gen = in.Generation
	g.mem = res.Memory.Clone()
	g.last = res
	return res
}

// newLeader makes id the leader, a process with no memory (the old leader
// crashed or left).
func (g *group) newLeader(id spec.MemberID) *group {
	g.leader, g.mem = id, classic.LeaderMemory{}
	return g
}

// assigned and revoked print the last round's sets as "A:{...} B:{...}".
func (g *group) assigned() string {
	a := spec.Assignment{}
	for id, x := range g.last.Assignments {
		a[id] = x.Assigned
	}
	return a.String()
}

func (g *group) revoked() string {
	a := spec.Assignment{}
	for id, x := range g.last.Assignments {
		if !x.Revoked.IsEmpty() {
			a[id] = x.Revoked
		}
	}
	return a.String()
}

// delay returns the last round's delay (checked equal for every member).
func (g *group) delay() classic.Millis {
	for _, x := range g.last.Assignments {
		return x.Delay
	}
	return 0
}

func (g *group) want(what, got, want string) {
	g.t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		g.t.Errorf("round %d %s (-want +got):\n%s", g.gen, what, d)
	}
}

// checkResult returns every problem with res as the result of in: the
// round's laws (spec.CheckRound, Cooperative as the protocol says), a
// missing or unknown member, a resource both assigned and revoked, a
// revocation of something the member did not claim, a claim neither kept
// nor revoked (cooperative protocols), members given different delays, a
// negative delay.
// checkStable judges spec.StableWhenBalanced on a round of p when p claims
// stickiness (classic.StickyProtocol), as the closed world does.
func checkStable(p classic.Protocol, in classic.LeaderInput, res classic.LeaderResult) []string {
	sp, ok := p.(classic.StickyProtocol)
	if !ok || !sp.KeepsClaims() {
		return nil
	}
	var out []string
	for _, v := range spec.CheckStableWhenBalanced(roundOf(in, res)) {
		out = append(out, v.String())
	}
	return out
}

// roundOf is the round a leader sends for in and res, as the member node
// builds it for spec.CheckRound.
func roundOf(in classic.LeaderInput, res classic.LeaderResult) spec.Round {
	round := spec.Round{
		Topics:        in.Topics,
		Subscriptions: map[spec.MemberID][]string{},
		Claims:        map[spec.MemberID]spec.Set{},
		Assigned:      spec.Assignment{},
	}
	for _, j := range in.Members {
		round.Subscriptions[j.ID] = j.Subscription.Topics
		round.Claims[j.ID] = j.Subscription.Owned
	}
	for id, a := range res.Assignments {
		round.Assigned[id] = a.Assigned
	}
	return round
}

func checkResult(in classic.LeaderInput, res classic.LeaderResult, cooperative bool) []string {
	var out []string
	round := roundOf(in, res)
	round.Cooperative = cooperative
	for _, v := range spec.CheckRound(round) {
		out = append(out, v.String())
	}
	delays := map[classic.Millis]bool{}
	for _, j := range in.Members {
		a, ok := res.Assignments[j.ID]
		if !ok {
			out = append(out, fmt.Sprintf("member %s has no assignment", j.ID))
			continue
		}
		delays[a.Delay] = true
		if a.Delay < 0 {
			out = append(out, fmt.Sprintf("member %s: negative delay %d", j.ID, a.Delay))
		}
		if a.Leader != in.Leader {
			out = append(out, fmt.Sprintf("member %s: leader %q, want %q", j.ID, a.Leader, in.Leader))
		}
		if err := a.Revoked.Validate(); err != nil {
			out = append(out, fmt.Sprintf("member %s: revoked: %v", j.ID, err))
		}
		if x := a.Assigned.Intersect(a.Revoked); !x.IsEmpty() {
			out = append(out, fmt.Sprintf("member %s: %s both assigned and revoked", j.ID, x))
		}
		if x := a.Revoked.Minus(j.Subscription.Owned); !x.IsEmpty() {
			out = append(out, fmt.Sprintf("member %s: revokes %s, which it does not claim", j.ID, x))
		}
		if cooperative {
			if x := j.Subscription.Owned.Minus(a.Assigned).Minus(a.Revoked); !x.IsEmpty() {
				out = append(out, fmt.Sprintf("member %s: claim %s neither kept nor revoked", j.ID, x))
			}
		}
	}
	if len(delays) > 1 {
		out = append(out, fmt.Sprintf("members given different delays: %v", slices.Sorted(maps.Keys(delays))))
	}
	for id := range res.Assignments {
		if !slices.ContainsFunc(in.Members, func(j classic.Joined) bool { return j.ID == id }) {
			out = append(out, fmt.Sprintf("assignment for %s, not a member", id))
		}
	}
	return out
}

func describeInput(in classic.LeaderInput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "now=%d gen=%d leader=%s last-completed=%d topics=%v", in.Now, in.Generation, in.Leader, in.LastCompletedGeneration, in.Topics)
	for _, j := range in.Members {
		fmt.Fprintf(&b, "\n  %s %s", j.ID, j.Subscription.Encode())
	}
	m := in.Memory
	fmt.Fprintf(&b, "\n  memory gen=%d members=%v assignment=%s scheduled-at=%d lost=%s candidates=%v successive=%d revoked=%v",
		m.Generation, m.Members, m.Assignment, m.ScheduledAt, m.Lost, m.Candidates, m.SuccessiveRevokingRounds, m.Revoked)
	return b.String()
}

func describeResult(res classic.LeaderResult) string {
	var b strings.Builder
	for _, id := range slices.Sorted(maps.Keys(res.Assignments)) {
		fmt.Fprintf(&b, "\n  %s %s", id, res.Assignments[id].Encode())
	}
	m := res.Memory
	fmt.Fprintf(&b, "\n  memory gen=%d members=%v assignment=%s scheduled-at=%d lost=%s candidates=%v successive=%d revoked=%v",
		m.Generation, m.Members, m.Assignment, m.ScheduledAt, m.Lost, m.Candidates, m.SuccessiveRevokingRounds, m.Revoked)
	return b.String()
}
