package policy

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// equivFaults are the fault switches the Designs II and III leader honours.
var equivFaults = []classic.Fault{
	classic.CooperativeNoWithholding, classic.DisabledDelayHoldsLost, classic.LostToFirstCandidate,
	classic.UndeliveredAssignmentHeld, classic.NoConsecutiveRevocation, classic.RevocationIgnoresConnectors,
}

// equivProtocols draws the Deferred and Incremental configurations the
// equivalence test runs.
func equivProtocols(t *rapid.T) []connectPolicy {
	moves := rapid.IntRange(1, 4).Draw(t, "max-moves")
	step := classic.Millis(rapid.IntRange(1, 3).Draw(t, "step") * 1000)
	mult := classic.Millis(rapid.SampledFrom([]int{0, 2, 40, 1000}).Draw(t, "backoff"))
	var out []connectPolicy
	for _, d := range []classic.Millis{propMaxDelay, -1} {
		for _, f := range []LeaderFailover{ReassignImmediately, DelayIfDeparted} {
			out = append(out,
				Deferred(DeferredConfig{MaxDelay: d, LeaderFailover: f, BackoffMultiplier: mult}).(connectPolicy),
				Incremental(IncrementalConfig{MaxDelay: d, LeaderFailover: f, MaxMovesPerRound: moves, StepDelay: step}).(connectPolicy))
		}
	}
	return out
}

// drawFaults draws a set of equivFaults.
func drawFaults(t *rapid.T) classic.Faults {
	var f classic.Faults
	if rapid.IntRange(0, 2).Draw(t, "faulty") == 0 {
		for _, x := range subsetOf(t, "fault", equivFaults) {
			f |= x
		}
	}
	return f
}

// sameResult fails t unless the current leader and the frozen reference
// (reference_test.go) give the same answer for in, bit for bit (nil and
// empty sets are told apart).
func sameResult(t *rapid.T, p connectPolicy, in classic.LeaderInput) classic.LeaderResult {
	want, werr := refPolicy{p}.Assign(cloneInput(in))
	got, gerr := p.Assign(cloneInput(in))
	if fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Fatalf("%s: error %v, reference %v\ninput: %s", protoName(p), gerr, werr, describeInput(in))
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%s differs from the reference (-reference +current):\n%s\ninput: %s", protoName(p), cmp.Diff(want, got), describeInput(in))
	}
	return got
}

// genLarger draws a bigger round than genInput: up to 5 topics (some of
// them connectors) of up to 40 partitions, up to 14 members with equal or
// random subscriptions, claims drawn as a mostly exclusive assignment with
// some conflicts, gaps and resources that do not exist, and a leader memory
// that is absent, of the last completed generation, or stale.
func genLarger(t *rapid.T) classic.LeaderInput {
	topics := spec.Topics{}
	var names []string
	for i := range rapid.IntRange(1, 5).Draw(t, "topics") {
		name := fmt.Sprintf("t%d", i)
		n := int32(rapid.IntRange(0, 40).Draw(t, "partitions"))
		if rapid.IntRange(0, 3).Draw(t, "connector") == 0 {
			topics.AddConnector(name, n)
		} else {
			topics[name] = n
		}
		names = append(names, name)
	}
	if rapid.IntRange(0, 4).Draw(t, "nometa") == 0 {
		names = append(names, "zz-nometa")
	}
	n := rapid.IntRange(1, 14).Draw(t, "members")
	ids := make([]spec.MemberID, n)
	for i := range ids {
		ids[i] = spec.MemberID(fmt.Sprintf("m%02d", i))
	}
	homogeneous := rapid.IntRange(0, 2).Draw(t, "homogeneous") > 0
	subs := make([][]string, n)
	for i := range subs {
		subs[i] = names
		if !homogeneous {
			subs[i] = subsetOf(t, "topic", names)
		}
	}
	universe := topics.Resources(names...)
	claimable := append(slices.Clone(universe), spec.TP("t0", 99), spec.TP("gone", 3), spec.Connector("t0"))
	owned := make([][]spec.Resource, n)
	memOwned := map[spec.MemberID][]spec.Resource{}
	var lost []spec.Resource
	skew := rapid.IntRange(0, n-1).Draw(t, "skew")
	for _, x := range claimable {
		switch rapid.IntRange(0, 9).Draw(t, "claim") {
		case 0: // nobody
		case 1: // two claimants
			a, b := rapid.IntRange(0, n-1).Draw(t, "c1"), rapid.IntRange(0, n-1).Draw(t, "c2")
			owned[a] = append(owned[a], x)
			if b != a {
				owned[b] = append(owned[b], x)
			}
		case 2, 3: // the skewed member
			owned[skew] = append(owned[skew], x)
		default:
			o := rapid.IntRange(0, n-1).Draw(t, "owner")
			owned[o] = append(owned[o], x)
		}
		switch rapid.IntRange(0, 5).Draw(t, "memory-claim") {
		case 0:
			lost = append(lost, x)
		case 1:
		default:
			m := rapid.SampledFrom(append(slices.Clone(ids), "x0", "x1")).Draw(t, "memory-owner")
			memOwned[m] = append(memOwned[m], x)
		}
	}
	in := classic.LeaderInput{
		Now:                     classic.Millis(rapid.IntRange(0, 30000).Draw(t, "now")),
		Generation:              5,
		LastCompletedGeneration: spec.Generation(rapid.IntRange(3, 4).Draw(t, "last-completed")),
		Topics:                  topics,
		Faults:                  drawFaults(t),
	}
	in.Leader = rapid.SampledFrom(ids).Draw(t, "leader")
	for i, id := range ids {
		s := spec.NewSet(owned[i]...)
		gen, leader := spec.NoGeneration, spec.MemberID("")
		if !s.IsEmpty() {
			gen = 4
			leader = rapid.SampledFrom([]spec.MemberID{in.Leader, "gone-leader", ""}).Draw(t, "owned-leader")
		}
		in.Members = append(in.Members, classic.Joined{ID: id, Subscription: classic.Subscription{
			Topics: subs[i], Owned: s, Generation: gen, Leader: leader,
		}})
	}
	if rapid.IntRange(0, 3).Draw(t, "memory") > 0 {
		mem := classic.LeaderMemory{
			Generation:               spec.Generation(rapid.IntRange(3, 4).Draw(t, "memory-gen")),
			Assignment:               spec.Assignment{},
			Lost:                     spec.NewSet(lost...),
			Revoked:                  rapid.Bool().Draw(t, "memory-revoked"),
			SuccessiveRevokingRounds: rapid.IntRange(0, 4).Draw(t, "memory-successive"),
			Revocation:               spec.NewSet(subsetOf(t, "memory-revocation", claimable[:min(len(claimable), 6)])...),
		}
		for m, xs := range memOwned {
			mem.Assignment[m] = spec.NewSet(xs...)
			mem.Members = append(mem.Members, m)
		}
		mem.Members = append(mem.Members, subsetOf(t, "memory-member", ids)...)
		slices.Sort(mem.Members)
		mem.Members = slices.Compact(mem.Members)
		if rapid.Bool().Draw(t, "memory-scheduled") {
			mem.ScheduledAt = classic.Millis(rapid.IntRange(1, 60000).Draw(t, "memory-scheduled-at"))
		}
		mem.Candidates = subsetOf(t, "memory-candidate", append(slices.Clone(ids), "x0"))
		in.Memory = mem
	}
	return in
}

// step applies res to in as the members would and changes the group at
// random for the next round: time passes (to the delay's end, by 1 ms, or
// not at all), a member leaves, a new member joins empty, a member does not
// apply its assignment, or the leader changes and forgets.
func step(t *rapid.T, in classic.LeaderInput, res classic.LeaderResult) classic.LeaderInput {
	out := cloneInput(in)
	out.Members = nil
	for _, j := range in.Members {
		a := res.Assignments[j.ID]
		j.Subscription.Owned = a.Assigned
		j.Subscription.Generation = in.Generation
		j.Subscription.Leader = in.Leader
		out.Members = append(out.Members, j)
	}
	out.Memory = res.Memory.Clone()
	out.LastCompletedGeneration = in.Generation
	out.Generation = in.Generation + 1
	var delay classic.Millis
	for _, a := range res.Assignments {
		delay = a.Delay
	}
	switch rapid.IntRange(0, 3).Draw(t, "time") {
	case 0:
		out.Now += delay
	case 1:
		out.Now++
	case 2:
		out.Now = max(out.Now, res.Memory.ScheduledAt)
	}
	switch rapid.IntRange(0, 7).Draw(t, "event") {
	case 0:
		if len(out.Members) > 1 {
			i := rapid.IntRange(0, len(out.Members)-1).Draw(t, "leaving")
			out.Members = slices.Delete(out.Members, i, i+1)
		}
	case 1:
		id := spec.MemberID(fmt.Sprintf("n%02d", in.Generation))
		subs := out.Members[rapid.IntRange(0, len(out.Members)-1).Draw(t, "like")].Subscription.Topics
		out.Members = append(out.Members, classic.Joined{ID: id, Subscription: classic.Subscription{Topics: slices.Clone(subs), Generation: spec.NoGeneration}})
	case 2:
		i := rapid.IntRange(0, len(out.Members)-1).Draw(t, "stale")
		out.Members[i].Subscription = in.Members[min(i, len(in.Members)-1)].Subscription
	case 3:
		out.Memory = classic.LeaderMemory{}
	}
	if !slices.ContainsFunc(out.Members, func(j classic.Joined) bool { return j.ID == out.Leader }) {
		out.Leader = out.Members[0].ID
		out.Memory = classic.LeaderMemory{}
	}
	return out
}

// TestConnectEquivalence: the Designs II and III leader gives, for every
// input, the result the frozen implementation of reference_test.go gives,
// bit for bit: on genInput's small rounds with every corner (connectors,
// claims of resources that do not exist, conflicts, stale memories), and on
// genLarger's bigger ones followed by a few rounds of a changing group.
func TestConnectEquivalence(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genInput(t)
		in.Faults = drawFaults(t)
		switch rapid.IntRange(0, 9).Draw(t, "malformed") {
		case 0:
			in.Now = -1
		case 1:
			j := &in.Members[rapid.IntRange(0, len(in.Members)-1).Draw(t, "unsorted")].Subscription
			j.Owned = append(slices.Clone(j.Owned), spec.TP("a", 0))
		case 2:
			in.Leader = "not-a-member"
		}
		for _, p := range equivProtocols(t) {
			sameResult(t, p, in)
		}
	})
	rapid.Check(t, func(t *rapid.T) {
		ps := equivProtocols(t)
		p := ps[rapid.IntRange(0, len(ps)-1).Draw(t, "protocol")]
		in := genLarger(t)
		for range rapid.IntRange(1, 6).Draw(t, "rounds") {
			res := sameResult(t, p, in)
			if len(res.Assignments) == 0 {
				return
			}
			in = step(t, in, res)
		}
	})
}

// TestConnectEquivalenceBench: the rounds of BenchmarkConnectRound, at a
// smaller scale, agree with the reference.
func TestConnectEquivalenceBench(t *testing.T) {
	for _, p := range []connectPolicy{Deferred(DeferredConfig{}).(connectPolicy), Incremental(IncrementalConfig{}).(connectPolicy)} {
		for name, in := range benchRounds(t, p, 60, 3, 100) {
			want, _ := refPolicy{p}.Assign(in)
			got, err := p.Assign(in)
			if err != nil || !reflect.DeepEqual(want, got) {
				t.Errorf("%s %s: differs from the reference (err %v):\n%s", p.name, name, err, cmp.Diff(want, got))
			}
		}
	}
}
