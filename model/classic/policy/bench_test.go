package policy

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// benchGroup is a balanced Connect-style group at the scale of model/cost's
// large rolling restart: members m0000, m0001, ... all subscribed to topics
// t00, t01, ... of partitions partitions each, resource i of the universe
// held by member i mod members (what least-loaded placement gives an empty
// group), as the leader m0000 remembers it at generation 4.
func benchGroup(members, topics int, partitions int32) classic.LeaderInput {
	universe, names := spec.NumberedTopics("t%02d", topics, partitions)
	ids := make([]spec.MemberID, members)
	owned := make([][]spec.Resource, members)
	for i := range ids {
		ids[i] = spec.MemberID(fmt.Sprintf("m%04d", i))
	}
	for i, x := range universe.Resources(names...) {
		owned[i%members] = append(owned[i%members], x)
	}
	in := classic.LeaderInput{
		Now: 1000, Generation: 5, LastCompletedGeneration: 4, Leader: ids[0], Topics: universe,
		Memory: classic.LeaderMemory{Generation: 4, Members: ids, Assignment: spec.Assignment{}},
	}
	for i, id := range ids {
		in.Members = append(in.Members, classic.Joined{ID: id, Subscription: classic.Subscription{
			Topics: names, Owned: spec.Set(owned[i]), Generation: 4, Leader: ids[0],
		}})
		in.Memory.Assignment[id] = spec.Set(owned[i])
	}
	return in
}

// nextInput is the input of the round after in when every member applied
// res, at time now, with the members of keep (by ID) and the new empty
// members of join.
func nextInput(in classic.LeaderInput, res classic.LeaderResult, now classic.Millis, keep func(spec.MemberID) bool, join ...spec.MemberID) classic.LeaderInput {
	out := classic.LeaderInput{
		Now: now, Generation: in.Generation + 1, LastCompletedGeneration: in.Generation, Leader: in.Leader,
		Topics: in.Topics, Memory: res.Memory.Clone(),
	}
	names := in.Members[0].Subscription.Topics
	for _, j := range in.Members {
		if keep(j.ID) {
			a := res.Assignments[j.ID]
			out.Members = append(out.Members, classic.Joined{ID: j.ID, Subscription: classic.Subscription{
				Topics: names, Owned: a.Assigned, Generation: in.Generation, Leader: in.Leader,
			}})
		}
	}
	for _, id := range join {
		out.Members = append(out.Members, classic.Joined{ID: id, Subscription: classic.Subscription{Topics: names, Generation: spec.NoGeneration}})
	}
	slices.SortFunc(out.Members, func(a, b classic.Joined) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// benchRounds returns the leader inputs of the rounds of one member's
// restart in a group of benchGroup's shape under p: "leave" (m0500 left,
// its resources lost), "rejoin" (it came back as a new member, inside the
// delay), "expire" (the delay ran out), and "join" (a new member joins the
// balanced group, so that balance revokes).
func benchRounds(tb testing.TB, p classic.Protocol, members, topics int, partitions int32) map[string]classic.LeaderInput {
	run := func(in classic.LeaderInput) classic.LeaderResult {
		res, err := p.Assign(in)
		if err != nil {
			tb.Fatal(err)
		}
		return res
	}
	all := func(spec.MemberID) bool { return true }
	gone := spec.MemberID(fmt.Sprintf("m%04d", members/2))
	back := gone + "-b"
	out := map[string]classic.LeaderInput{}
	in := benchGroup(members, topics, partitions)
	res := run(in)
	out["leave"] = nextInput(in, res, 1000, func(m spec.MemberID) bool { return m != gone })
	res = run(out["leave"])
	out["rejoin"] = nextInput(out["leave"], res, 2000, all, back)
	res = run(out["rejoin"])
	out["expire"] = nextInput(out["rejoin"], res, out["rejoin"].Memory.ScheduledAt, all)
	out["join"] = nextInput(in, run(in), 1000, all, "zz-new")
	return out
}

// BenchmarkConnectRound is one leader round of Designs II and III in a
// group of 1,000 members over 10 topics of 10,000 partitions (the scale of
// model/cost's large rolling restart), for each round of one member's
// restart (see benchRounds):
//
//	go test -run '^$' -bench BenchmarkConnectRound -benchmem ./model/classic/policy/
func BenchmarkConnectRound(b *testing.B) {
	for _, p := range []classic.Protocol{Deferred(DeferredConfig{}), Incremental(IncrementalConfig{})} {
		rounds := benchRounds(b, p, 1000, 10, 10000)
		for _, name := range []string{"leave", "rejoin", "expire", "join"} {
			in := rounds[name]
			b.Run(p.Name()+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := p.Assign(in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
