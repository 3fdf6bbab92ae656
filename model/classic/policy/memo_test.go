package policy

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// memoAgrees fails t unless p with memo gives, twice (once computed or
// remembered, once remembered), what p without it gives for in, bit for
// bit, and unless changing the first result it handed out leaves the
// second as it was.
func memoAgrees(t *rapid.T, p connectPolicy, memo *Memo, in classic.LeaderInput) classic.LeaderResult {
	want, werr := p.Assign(cloneInput(in))
	mp := WithMemo(p, memo)
	for i := range 2 {
		got, gerr := mp.Assign(cloneInput(in))
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("%s, call %d: error %v with the memo, %v without\ninput: %s", protoName(p), i, gerr, werr, describeInput(in))
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("%s, call %d: the memo's result differs (-without +with):\n%s\ninput: %s", protoName(p), i, cmp.Diff(want, got), describeInput(in))
		}
		// The caller owns what it got: scribbling on it must not reach
		// the memo.
		for m := range got.Assignments {
			got.Assignments[m] = classic.Assignment{Leader: "scribbled"}
		}
		if got.Memory.Assignment != nil {
			got.Memory.Assignment["scribbled"] = nil
		}
		for k := range got.Memory.Members {
			got.Memory.Members[k] = "scribbled"
		}
		for k := range got.Memory.Candidates {
			got.Memory.Candidates[k] = "scribbled"
		}
	}
	return want
}

// TestMemoAgrees: a protocol with a memo gives the results it gives
// without one, for every input, whether the memo computes or remembers
// them; one memo serves every configuration and every input of the test
// (a result is never given for another configuration or input) and rounds
// that follow one another.
func TestMemoAgrees(t *testing.T) {
	memo := &Memo{}
	rapid.Check(t, func(t *rapid.T) {
		in := genInput(t)
		in.Faults = drawFaults(t)
		if rapid.IntRange(0, 9).Draw(t, "malformed") == 0 {
			in.Now = -1
		}
		// A neighbour of in, asked after it: a key that missed the
		// changed field would give in's result for it.
		near := cloneInput(in)
		switch rapid.IntRange(0, 3).Draw(t, "neighbour") {
		case 0:
			near.Now += classic.Millis(rapid.IntRange(1, int(propMaxDelay)).Draw(t, "later"))
		case 1:
			near.Members[rapid.IntRange(0, len(near.Members)-1).Draw(t, "disowns")].Subscription.Owned = nil
		case 2:
			near.Memory = classic.LeaderMemory{}
		case 3:
			near.Faults ^= rapid.SampledFrom(equivFaults).Draw(t, "toggled")
		}
		for _, p := range equivProtocols(t) {
			memoAgrees(t, p, memo, in)
			memoAgrees(t, p, memo, near)
		}
	})
	rapid.Check(t, func(t *rapid.T) {
		ps := equivProtocols(t)
		p := ps[rapid.IntRange(0, len(ps)-1).Draw(t, "protocol")]
		in := genLarger(t)
		for range rapid.IntRange(1, 6).Draw(t, "rounds") {
			res := memoAgrees(t, p, memo, in)
			if len(res.Assignments) == 0 {
				return
			}
			in = step(t, in, res)
		}
	})
}

// TestWithMemo: Deferred's and Incremental's protocols with a memo keep
// each round's result in it, once per input and configuration; WithMemo
// leaves a protocol other than theirs, and any protocol given a nil memo,
// as it is.
func TestWithMemo(t *testing.T) {
	memo := &Memo{}
	kept := func() int {
		n := 0
		for _, byInput := range memo.results {
			n += len(byInput)
		}
		return n
	}
	in := newGroup(t, Deferred(DeferredConfig{}), spec.Topics{"a": 2}).join("A", []string{"a"}, "{}").newLeader("A").input()
	for k, p := range []classic.Protocol{Deferred(DeferredConfig{}), Incremental(IncrementalConfig{}), Incremental(IncrementalConfig{}), Cooperative()} {
		if _, err := WithMemo(p, memo).Assign(in); err != nil {
			t.Fatalf("%s: %v", p.Name(), err)
		}
		if got, want := kept(), min(k+1, 2); got != want {
			t.Errorf("after %d rounds, the memo keeps %d results, want %d", k+1, got, want)
		}
	}
	for _, p := range []classic.Protocol{Cooperative(), Deferred(DeferredConfig{})} {
		if got := WithMemo(p, nil); !reflect.DeepEqual(got, p) {
			t.Errorf("WithMemo(%s, nil) = %#v, want the protocol itself", p.Name(), got)
		}
	}
	if got := WithMemo(Cooperative(), &Memo{}); !reflect.DeepEqual(got, Cooperative()) {
		t.Errorf("WithMemo(cooperative, memo) = %#v, want the protocol itself", got)
	}
}

// TestInputKeyFields: changing any one field of a LeaderInput changes its
// key, nil told apart from empty; the field counts make a field added to
// the input fail here until the key writes it.
func TestInputKeyFields(t *testing.T) {
	for typ, want := range map[reflect.Type]int{
		reflect.TypeFor[classic.LeaderInput]():  8,
		reflect.TypeFor[classic.Joined]():       3,
		reflect.TypeFor[classic.Subscription](): 4,
		reflect.TypeFor[classic.LeaderMemory](): 9,
	} {
		if got := typ.NumField(); got != want {
			t.Errorf("%s has %d fields, appendInputKey writes %d", typ, got, want)
		}
	}
	base := func() classic.LeaderInput {
		return classic.LeaderInput{
			Now: 5, Generation: 3, Leader: "A", LastCompletedGeneration: 2,
			Members: []classic.Joined{{ID: "A", InstanceID: "a", Subscription: classic.Subscription{
				Topics: []string{"t"}, Owned: spec.Set{spec.TP("t", 0)}, Generation: 2, Leader: "A",
			}}},
			Topics: spec.Topics{"t": 2, "u": 1},
			Memory: classic.LeaderMemory{
				Generation: 2, Assignment: spec.Assignment{"A": {spec.TP("t", 0)}}, Members: []spec.MemberID{"A"},
				ScheduledAt: 7, Lost: spec.Set{spec.TP("t", 1)}, Candidates: []spec.MemberID{"A"},
				SuccessiveRevokingRounds: 1, Revoked: true, Revocation: spec.Set{spec.TP("u", 0)},
			},
			Faults: classic.LostToFirstCandidate,
		}
	}
	changes := map[string]func(*classic.LeaderInput){
		"now":                 func(in *classic.LeaderInput) { in.Now++ },
		"generation":          func(in *classic.LeaderInput) { in.Generation++ },
		"leader":              func(in *classic.LeaderInput) { in.Leader = "B" },
		"last completed":      func(in *classic.LeaderInput) { in.LastCompletedGeneration++ },
		"members nil":         func(in *classic.LeaderInput) { in.Members = nil },
		"members empty":       func(in *classic.LeaderInput) { in.Members = []classic.Joined{} },
		"member id":           func(in *classic.LeaderInput) { in.Members[0].ID = "B" },
		"instance id":         func(in *classic.LeaderInput) { in.Members[0].InstanceID = "" },
		"subscription nil":    func(in *classic.LeaderInput) { in.Members[0].Subscription.Topics = nil },
		"subscription empty":  func(in *classic.LeaderInput) { in.Members[0].Subscription.Topics = []string{} },
		"subscription topic":  func(in *classic.LeaderInput) { in.Members[0].Subscription.Topics[0] = "u" },
		"owned nil":           func(in *classic.LeaderInput) { in.Members[0].Subscription.Owned = nil },
		"owned empty":         func(in *classic.LeaderInput) { in.Members[0].Subscription.Owned = spec.Set{} },
		"owned topic":         func(in *classic.LeaderInput) { in.Members[0].Subscription.Owned[0].Topic = "u" },
		"owned partition":     func(in *classic.LeaderInput) { in.Members[0].Subscription.Owned[0].Partition = 1 },
		"claim generation":    func(in *classic.LeaderInput) { in.Members[0].Subscription.Generation++ },
		"claim leader":        func(in *classic.LeaderInput) { in.Members[0].Subscription.Leader = "" },
		"topics nil":          func(in *classic.LeaderInput) { in.Topics = nil },
		"topics empty":        func(in *classic.LeaderInput) { in.Topics = spec.Topics{} },
		"topic count":         func(in *classic.LeaderInput) { in.Topics["u"] = 2 },
		"topic name":          func(in *classic.LeaderInput) { delete(in.Topics, "u"); in.Topics["v"] = 1 },
		"memory generation":   func(in *classic.LeaderInput) { in.Memory.Generation++ },
		"memory nil":          func(in *classic.LeaderInput) { in.Memory.Assignment = nil },
		"memory empty":        func(in *classic.LeaderInput) { in.Memory.Assignment = spec.Assignment{} },
		"memory member":       func(in *classic.LeaderInput) { in.Memory.Assignment = spec.Assignment{"B": {spec.TP("t", 0)}} },
		"memory set":          func(in *classic.LeaderInput) { in.Memory.Assignment = spec.Assignment{"A": {spec.TP("t", 1)}} },
		"memory members":      func(in *classic.LeaderInput) { in.Memory.Members = []spec.MemberID{"B"} },
		"memory members nil":  func(in *classic.LeaderInput) { in.Memory.Members = nil },
		"scheduled at":        func(in *classic.LeaderInput) { in.Memory.ScheduledAt++ },
		"lost":                func(in *classic.LeaderInput) { in.Memory.Lost = nil },
		"candidates":          func(in *classic.LeaderInput) { in.Memory.Candidates = []spec.MemberID{} },
		"successive":          func(in *classic.LeaderInput) { in.Memory.SuccessiveRevokingRounds++ },
		"revoked":             func(in *classic.LeaderInput) { in.Memory.Revoked = false },
		"revocation":          func(in *classic.LeaderInput) { in.Memory.Revocation = spec.Set{spec.TP("u", 1)} },
		"faults":              func(in *classic.LeaderInput) { in.Faults = 0 },
		"strings split apart": func(in *classic.LeaderInput) { in.Leader, in.Members[0].ID = "", "AA" },
	}
	want := appendInputKey(nil, base())
	if !bytes.Equal(appendInputKey(nil, base()), want) {
		t.Fatal("two equal inputs have different keys")
	}
	for name, change := range changes {
		in := base()
		change(&in)
		if bytes.Equal(appendInputKey(nil, in), want) {
			t.Errorf("%s: the key did not change", name)
		}
	}
}
