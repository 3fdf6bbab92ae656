package classic

import (
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/spec"
)

// digestProtocol is a comparable eager protocol whose result depends on
// every field of its input: each resource of a subscribed topic goes to
// one of the members subscribing to it, picked by a hash of the whole
// input and the resource, and the memory it leaves carries the hash. A
// memo that gave one input's round for another (a key that misses a
// field) hands out another assignment or memory, almost surely.
type digestProtocol struct{ name string }

func (p digestProtocol) Name() string      { return p.name }
func (p digestProtocol) Cooperative() bool { return false }
func (p digestProtocol) Assign(in LeaderInput) (LeaderResult, error) {
	if in.Generation < 0 {
		return LeaderResult{}, errors.New("digest: negative generation")
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%#v", in)
	digest := h.Sum64()
	res := LeaderResult{Assignments: map[spec.MemberID]Assignment{}}
	for _, topic := range spec.AppendSortedKeys(nil, in.Topics) {
		var takers []spec.MemberID
		for _, j := range in.Members {
			if slices.Contains(j.Subscription.Topics, topic) {
				takers = append(takers, j.ID)
			}
		}
		if len(takers) == 0 {
			continue
		}
		for part := range in.Topics[topic] {
			id := takers[(digest+uint64(part)*31+uint64(len(topic)))%uint64(len(takers))]
			a := res.Assignments[id]
			a.Assigned = a.Assigned.Union(spec.NewSet(spec.TP(topic, part)))
			res.Assignments[id] = a
		}
	}
	res.Memory = LeaderMemory{
		Generation:               in.Generation,
		Members:                  []spec.MemberID{spec.MemberID(fmt.Sprint(digest))},
		ScheduledAt:              in.Now + Millis(digest%1000) + 1,
		SuccessiveRevokingRounds: int(digest % 7),
	}
	return res, nil
}

// leaderCase is what lead reads: the clock, the response, and the
// leader's state.
type leaderCase struct {
	now      Millis
	resp     JoinGroupResponse
	id       spec.MemberID
	faults   Faults
	last     spec.Generation
	metadata spec.Topics
	memory   *LeaderMemory
}

// genLeaderCase draws a round of two to four members over topics t and u.
func genLeaderCase(t *rapid.T) leaderCase {
	n := rapid.IntRange(2, 4).Draw(t, "members")
	c := leaderCase{
		now:      Millis(rapid.IntRange(0, 3).Draw(t, "now") * 1000),
		id:       "A-1",
		last:     spec.Generation(rapid.IntRange(0, 2).Draw(t, "last-completed")),
		metadata: spec.Topics{"t": int32(rapid.IntRange(1, 4).Draw(t, "t-partitions")), "u": int32(rapid.IntRange(0, 2).Draw(t, "u-partitions"))},
	}
	c.resp = JoinGroupResponse{Generation: spec.Generation(rapid.IntRange(1, 3).Draw(t, "generation")), Leader: c.id, MemberID: c.id, ProtocolName: "digest"}
	for i := range n {
		id := spec.MemberID(fmt.Sprintf("%c-1", 'A'+i))
		topics := rapid.SampledFrom([][]string{{"t"}, {"u"}, {"t", "u"}}).Draw(t, "topics")
		var owned spec.Set
		if rapid.Bool().Draw(t, "owns") {
			owned = spec.NewSet(spec.TP("t", 0))
		}
		sub := Subscription{Topics: topics, Owned: owned, Generation: c.resp.Generation - 1}
		c.resp.Members = append(c.resp.Members, JoinedMember{MemberID: id, Metadata: sub.Encode()})
	}
	if rapid.Bool().Draw(t, "faults") {
		c.faults = SkipLeaderValidation
	}
	if rapid.Bool().Draw(t, "memory") {
		c.memory = &LeaderMemory{
			Generation:  c.resp.Generation - 1,
			Assignment:  spec.Assignment{"A-1": spec.NewSet(spec.TP("t", 0))},
			Members:     []spec.MemberID{"A-1", "B-1"},
			ScheduledAt: Millis(rapid.IntRange(0, 2).Draw(t, "scheduled") * 500),
			Lost:        spec.NewSet(spec.TP("t", 1)),
			Candidates:  []spec.MemberID{"B-1"},
			Revoked:     rapid.Bool().Draw(t, "revoked"),
			Revocation:  spec.NewSet(spec.TP("u", 0)),
		}
	}
	return c
}

// neighbours returns c changed in one field that lead reads, one case per
// field (the memo must tell each apart from c).
func neighbours(c leaderCase) map[string]leaderCase {
	out := map[string]leaderCase{}
	change := func(name string, f func(*leaderCase)) {
		d := c
		d.resp.Members = slices.Clone(c.resp.Members)
		d.metadata = spec.Topics{}
		for k, v := range c.metadata {
			d.metadata[k] = v
		}
		if c.memory != nil {
			mem := c.memory.Clone()
			d.memory = &mem
		}
		f(&d)
		out[name] = d
	}
	change("now", func(d *leaderCase) { d.now++ })
	change("generation", func(d *leaderCase) { d.resp.Generation++ })
	change("leader id", func(d *leaderCase) { d.id, d.resp.Leader, d.resp.MemberID = "A-2", "A-2", "A-2" })
	change("own id alone", func(d *leaderCase) { d.id = "A-2" })
	change("response's leader alone", func(d *leaderCase) { d.resp.Leader = "A-2" })
	change("faults", func(d *leaderCase) { d.faults ^= SkipLeaderValidation })
	change("last completed", func(d *leaderCase) { d.last++ })
	change("member id", func(d *leaderCase) { d.resp.Members[1].MemberID = "Z-1" })
	change("instance id", func(d *leaderCase) { d.resp.Members[1].InstanceID = "z" })
	change("member id and instance id split elsewhere", func(d *leaderCase) {
		d.resp.Members[1].MemberID, d.resp.Members[1].InstanceID = "B-", "1"
	})
	change("metadata of a member", func(d *leaderCase) {
		sub, _ := DecodeSubscription(d.resp.Members[1].Metadata)
		sub.Generation++
		d.resp.Members[1].Metadata = sub.Encode()
	})
	change("one member fewer", func(d *leaderCase) { d.resp.Members = d.resp.Members[:len(d.resp.Members)-1] })
	change("partition count", func(d *leaderCase) { d.metadata["t"]++ })
	change("topic known", func(d *leaderCase) { d.metadata["v"] = 1 })
	change("topic renamed", func(d *leaderCase) { d.metadata["w"] = d.metadata["u"]; delete(d.metadata, "u") })
	change("no metadata, nil", func(d *leaderCase) { d.metadata = nil })
	change("no metadata, empty", func(d *leaderCase) { d.metadata = spec.Topics{} })
	change("no memory", func(d *leaderCase) { d.memory = nil })
	change("memory generation", func(d *leaderCase) { d.memory = memoryOr(d.memory); d.memory.Generation += 5 })
	change("memory assignment", func(d *leaderCase) {
		d.memory = memoryOr(d.memory)
		d.memory.Assignment = spec.Assignment{"B-1": spec.NewSet(spec.TP("t", 0))}
	})
	change("memory assignment's set", func(d *leaderCase) {
		d.memory = memoryOr(d.memory)
		d.memory.Assignment = spec.Assignment{"A-1": spec.NewSet(spec.TP("t", 1))}
	})
	change("memory assignment empty, not nil", func(d *leaderCase) {
		d.memory = memoryOr(d.memory)
		d.memory.Assignment = spec.Assignment{}
	})
	change("memory members", func(d *leaderCase) { d.memory = memoryOr(d.memory); d.memory.Members = []spec.MemberID{"C-1"} })
	change("memory scheduled", func(d *leaderCase) { d.memory = memoryOr(d.memory); d.memory.ScheduledAt += 7 })
	change("memory lost", func(d *leaderCase) { d.memory = memoryOr(d.memory); d.memory.Lost = spec.NewSet(spec.TP("u", 1)) })
	change("memory lost partition", func(d *leaderCase) { d.memory = memoryOr(d.memory); d.memory.Lost = spec.NewSet(spec.TP("t", 2)) })
	change("memory candidates", func(d *leaderCase) { d.memory = memoryOr(d.memory); d.memory.Candidates = []spec.MemberID{"C-1"} })
	change("memory successive", func(d *leaderCase) { d.memory = memoryOr(d.memory); d.memory.SuccessiveRevokingRounds++ })
	change("memory revoked", func(d *leaderCase) { d.memory = memoryOr(d.memory); d.memory.Revoked = !d.memory.Revoked })
	change("memory revocation", func(d *leaderCase) {
		d.memory = memoryOr(d.memory)
		d.memory.Revocation = spec.NewSet(spec.TP("t", 2))
	})
	change("memory members empty, not nil", func(d *leaderCase) {
		d.memory = memoryOr(d.memory)
		d.memory.Members = nil
		d.memory.Candidates = []spec.MemberID{}
	})
	return out
}

// memoryOr is mem, or a fresh zero memory for nil.
func memoryOr(mem *LeaderMemory) *LeaderMemory {
	if mem == nil {
		return &LeaderMemory{}
	}
	return mem
}

// led is what lead returns and leaves.
type led struct {
	Assignments []MemberAssignment
	Round       *spec.Round
	Memory      LeaderMemory
	Output      Output
}

// leadOnce runs lead for c on a fresh member configured with memo.
func leadOnce(t interface{ Fatal(...any) }, c leaderCase, proto Protocol, memo *RoundMemo) led {
	m, err := NewMember(testConfig(withProtocols(proto), withFaults(c.faults), withTopics("t", "u"), func(cfg *MemberConfig) { cfg.Memo = memo }))
	if err != nil {
		t.Fatal(err)
	}
	m.id, m.lastCompleted, m.metadata = c.id, c.last, c.metadata
	if c.memory != nil {
		m.memory = &keptMemory{LeaderMemory: c.memory.Clone()}
	}
	var out Output
	as, round := m.lead(c.now, proto, c.resp, &out)
	return led{Assignments: as, Round: round, Memory: m.LeaderMemory(), Output: out}
}

// TestRoundMemoAgrees: a member with a round memo leads every round as a
// member without one does (the assignments, the round, the memory it
// keeps, its output), whether the memo computes the round or remembers
// it; one memo serves every round of the test, and each of a round's
// neighbours, asked after it, gets its own result, not the round's.
func TestRoundMemoAgrees(t *testing.T) {
	memo := &RoundMemo{}
	proto := digestProtocol{name: "digest"}
	rapid.Check(t, func(t *rapid.T) {
		c := genLeaderCase(t)
		cases := map[string]leaderCase{"the round": c}
		for name, d := range neighbours(c) {
			cases[name] = d
		}
		names := spec.AppendSortedKeys(nil, cases)
		for _, pass := range []string{"computed or remembered", "remembered"} {
			for _, name := range names {
				d := cases[name]
				want := leadOnce(t, d, proto, nil)
				got := leadOnce(t, d, proto, memo)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s (%s): with the memo (-without +with):\n%s", name, pass, cmp.Diff(want, got, cmp.AllowUnexported(Output{})))
				}
			}
		}
	})
}

// TestRoundMemoKeeps: a round is remembered once per protocol and round
// key, and led again from the memo (the protocol is not asked again); a
// failed round and a protocol that cannot be a map key are not
// remembered, and still led as without a memo.
func TestRoundMemoKeeps(t *testing.T) {
	c := leaderCase{
		now: 1000, id: "A-1", metadata: spec.Topics{"t": 2},
		resp: JoinGroupResponse{Generation: 2, Leader: "A-1", MemberID: "A-1", ProtocolName: "digest", Members: []JoinedMember{
			{MemberID: "A-1", Metadata: Subscription{Topics: []string{"t"}}.Encode()},
			{MemberID: "B-1", Metadata: Subscription{Topics: []string{"t"}}.Encode()},
		}},
	}
	count := func(memo *RoundMemo) int {
		n := 0
		for _, byKey := range memo.rounds {
			n += len(byKey)
		}
		return n
	}
	memo := &RoundMemo{}
	var calls []LeaderInput
	record := func(in LeaderInput) (LeaderResult, error) { return digestProtocol{}.Assign(in) }
	uncomparable := fakeProtocol{name: "digest", assign: record, calls: &calls}
	digest := digestProtocol{name: "digest"}

	first := leadOnce(t, c, digest, memo)
	again := leadOnce(t, c, digest, memo)
	if n := count(memo); n != 1 {
		t.Fatalf("%d rounds remembered after leading one twice, want 1", n)
	}
	if again.Round != first.Round {
		t.Fatalf("the round led again is not the remembered one")
	}
	d := c
	d.resp.Generation = -1 // the digest protocol fails the round
	if failed := leadOnce(t, d, digest, memo); failed.Round != nil {
		t.Fatalf("a failed round sent %v", failed.Round)
	}
	if n := count(memo); n != 1 {
		t.Fatalf("%d rounds remembered after a failed one, want 1", n)
	}
	plain := leadOnce(t, c, uncomparable, nil)
	for range 2 {
		if got := leadOnce(t, c, uncomparable, memo); !reflect.DeepEqual(got, plain) {
			t.Fatalf("an uncomparable protocol led with the memo (-without +with):\n%s", cmp.Diff(plain, got, cmp.AllowUnexported(Output{})))
		}
	}
	if len(calls) != 3 || count(memo) != 1 {
		t.Fatalf("the uncomparable protocol was asked %d times (want 3) and the memo holds %d rounds (want 1)", len(calls), count(memo))
	}
}

// TestKeptMemoryEncoding: a kept memory's encoding is recorded by the
// first encoder that writes it and replayed by the next ones that may
// (the same settings, any clock), exactly as writing it again; encoders
// that rename, abstract identities or leave correlation ids out write it
// again and record nothing.
func TestKeptMemoryEncoding(t *testing.T) {
	fresh := func() *keptMemory { return testMember().memory }
	write := func(e *canon.Encoder, mem *keptMemory) []byte {
		encodeKeptMemory(e, mem)
		return slices.Clone(e.Finish())
	}
	settings := map[string]func(*canon.Encoder){
		"plain":      func(*canon.Encoder) {},
		"later":      func(e *canon.Encoder) { e.Now = 4000 },
		"due":        func(e *canon.Encoder) { e.Now = 6000 },
		"commits":    func(e *canon.Encoder) { e.Commits = true },
		"renamed":    func(e *canon.Encoder) { e.Rename = func(s string) string { return s + "'" } },
		"abstracted": func(e *canon.Encoder) { e.AbstractIdentities = func(v int64) int64 { return v % 2 } },
		"no seqs":    func(e *canon.Encoder) { e.SkipSeq = true },
	}
	for _, first := range spec.AppendSortedKeys(nil, settings) {
		for _, second := range spec.AppendSortedKeys(nil, settings) {
			mem := fresh()
			e := &canon.Encoder{Now: 1000}
			settings[first](e)
			write(e, mem)
			recorded := mem.encoding.Load() != nil
			if want := first != "renamed" && first != "abstracted" && first != "no seqs"; recorded != want {
				t.Errorf("%s: recorded=%v, want %v", first, recorded, want)
			}
			f := &canon.Encoder{Now: 1000}
			settings[second](f)
			got := write(f, mem)
			g := &canon.Encoder{Now: 1000}
			settings[second](g)
			want := write(g, fresh())
			if !slices.Equal(got, want) {
				t.Errorf("%s then %s: %x, want %x", first, second, got, want)
			}
		}
	}
	// The replay is used: a memory changed behind its recording (which
	// no one does) still encodes as it was recorded.
	mem := fresh()
	before := write(&canon.Encoder{Now: 1000}, mem)
	mem.Generation++
	if got := write(&canon.Encoder{Now: 1000}, mem); !slices.Equal(got, before) {
		t.Errorf("the second encoding was written again, not replayed")
	}
}
