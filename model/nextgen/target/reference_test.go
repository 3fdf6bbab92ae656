package target

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// buildReference is Build as it was first written: each previous target
// validated, then filtered resource by resource (Topics.Existing) into a
// copy, the group checked whole (assign.ValidateGroup) and checked again
// by the assignor's Assign, on a copy of the universe, each subscription
// sorted into a slice of its own, and the subscription type counted
// topic by topic (SubscriptionTypeOf). It is the reference Build is
// checked against.
func buildReference(in Input) (Result, error) {
	group, inherited, err := applyDeltas(in)
	if err != nil {
		return Result{}, err
	}
	topics := in.Topics
	if topics == nil {
		topics = spec.Topics{}
	}
	sorted := func(ts []string) []string {
		if len(ts) == 0 {
			return nil
		}
		return slices.Compact(slices.Sorted(slices.Values(ts)))
	}
	g := assign.Group{Topics: maps.Clone(topics), Members: make([]assign.Member, len(group))}
	subs := make(map[spec.MemberID][]string, len(group))
	for i, m := range group {
		from := m.ID
		if d, ok := inherited[m.ID]; ok {
			from = d
		}
		prev := in.Previous[from]
		if err := prev.Validate(); err != nil {
			return Result{}, fmt.Errorf("%w: previous target of %s: %v", ErrInvalidInput, from, err)
		}
		g.Members[i] = assign.Member{ID: m.ID, InstanceID: m.InstanceID, Topics: sorted(m.Topics), Owned: topics.Existing(prev), Rack: m.Rack}
		subs[m.ID] = g.Members[i].Topics
	}
	if err := assign.ValidateGroup(g); err != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	out, err := func() (out spec.Assignment, err error) {
		defer func() {
			if p := recover(); p != nil {
				out, err = nil, &PanicError{Value: p}
			}
		}()
		return in.Assignor.Assign(g)
	}()
	if err != nil {
		return Result{}, fmt.Errorf("%w (%s): %w", ErrAssignorFailed, in.Assignor.Name(), err)
	}
	if vs := spec.CheckRound(spec.Round{Topics: topics, Subscriptions: subs, Assigned: out}); len(vs) > 0 {
		return Result{}, &IllegalAssignmentError{Assignor: in.Assignor.Name(), Violations: vs}
	}
	res := Result{Target: make(spec.Assignment, len(group)), SubscriptionType: SubscriptionTypeOf(group)}
	res.Round = spec.Round{Topics: topics, Subscriptions: subs, Claims: make(map[spec.MemberID]spec.Set, len(group)), Assigned: res.Target}
	if s, ok := in.Assignor.(assign.StickyAssignor); ok {
		res.Round.Sticky = s.KeepsClaims()
	}
	for _, m := range g.Members {
		res.Round.Claims[m.ID] = m.Owned
	}
	for _, m := range group {
		next := out[m.ID]
		res.Target[m.ID] = next
		if prev, ok := in.Previous[m.ID]; !ok || !prev.Equal(next) {
			res.Changed = append(res.Changed, m.ID)
		}
	}
	return res, nil
}

// TestBuildMatchesReference: Build returns exactly what buildReference
// returns (reflect.DeepEqual) or the same error, with the built-in
// assignors and the fake sticky one, on random groups whose members often
// share a subscription (written in any order, with repeats), previous
// targets on existing, shrunk and deleted topics (and a connector), and
// random deltas.
func TestBuildMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		topics := spec.Topics{"a": 4, "b": 2}
		if rapid.Bool().Draw(t, "shrunk") {
			topics["a"] = 2
		}
		if rapid.Bool().Draw(t, "connector") {
			topics.AddConnector("k", 2)
		}
		subscription := func(label string) []string {
			if rapid.Bool().Draw(t, label+"-common") {
				return []string{"b", "a", "b"}
			}
			var ts []string
			for _, topic := range []string{"b", "a", "c", "k"} {
				if rapid.Bool().Draw(t, label+"-"+topic) {
					ts = append(ts, topic)
				}
			}
			return ts
		}
		var in Input
		for i := range rapid.IntRange(0, 5).Draw(t, "members") {
			m := Member{ID: spec.MemberID(fmt.Sprintf("m%d", i)), Topics: subscription("member")}
			if rapid.Bool().Draw(t, "static") {
				m.InstanceID = fmt.Sprintf("i%d", i)
			}
			in.Members = append(in.Members, m)
		}
		in.Previous = spec.Assignment{}
		all := spec.Topics{"a": 4, "b": 2, "gone": 1}.Resources("a", "b", "gone").Add(spec.Connector("k"))
		for _, r := range all {
			if i := rapid.IntRange(-1, 6).Draw(t, "owner"); i >= 0 {
				id := spec.MemberID(fmt.Sprintf("m%d", i))
				in.Previous[id] = in.Previous[id].Add(r)
			}
		}
		for range rapid.IntRange(0, 2).Draw(t, "upserts") {
			id := rapid.IntRange(0, 6).Draw(t, "upsert-id")
			m := Member{ID: spec.MemberID(fmt.Sprintf("m%d", id)), Topics: subscription("upsert")}
			if rapid.Bool().Draw(t, "upsert-static") {
				m.InstanceID = fmt.Sprintf("i%d", rapid.IntRange(0, 6).Draw(t, "upsert-instance"))
			}
			in.Upsert = append(in.Upsert, m)
		}
		for range rapid.IntRange(0, 2).Draw(t, "removes") {
			in.Remove = append(in.Remove, spec.MemberID(fmt.Sprintf("m%d", rapid.IntRange(0, 6).Draw(t, "remove-id"))))
		}
		in.Topics = topics
		in.Assignor = rapid.SampledFrom([]assign.Assignor{sticky{}, assign.Uniform(), assign.ServerRange(),
			assign.UniformWith(assign.UniformOptions{BeforeKafka18688: true})}).Draw(t, "assignor")

		got, err := Build(in)
		want, wantErr := buildReference(in)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("error %v, reference %v", err, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %+v\nreference %+v", got, want)
		}
	})
}
