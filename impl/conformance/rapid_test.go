package conformance

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// defaultSeed makes the generated sequences the same on every run unless
// -rapid.seed says otherwise (kfake's member ids are random, but they are
// mapped away).
const defaultSeed = 20261202

// rapidDefaults sets rapid's seed, number of checks and fail file to the
// suite's defaults unless the command line set them, and returns the seed.
func rapidDefaults(t *testing.T, checks int) string {
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	defaults := map[string]string{
		"rapid.seed":       fmt.Sprint(defaultSeed),
		"rapid.checks":     fmt.Sprint(checks),
		"rapid.nofailfile": "true", // no testdata/rapid leftovers
	}
	for name, v := range defaults {
		if !set[name] {
			if err := flag.Set(name, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	seed := flag.Lookup("rapid.seed").Value.String()
	t.Logf("rapid seed %s, %s checks; reproduce with: go test ./impl/conformance -run '^%s$' -rapid.seed=%s -v",
		seed, flag.Lookup("rapid.checks").Value.String(), t.Name(), seed)
	return seed
}

// tally counts what the generated sequences compared.
type tally struct {
	sequences, requests, stopped int
	seen                         map[string]int
}

func (s *tally) report(t *testing.T) {
	t.Logf("%d sequences, %d requests compared; %d sequences stopped early at a leader the two chose differently; expected differences seen: %v",
		s.sequences, s.requests, s.stopped, s.seen)
}

// TestClassicRapid drives both classic coordinators with generated
// sequences from three members: new members (MEMBER_ID_REQUIRED, then the
// join with the id, as one action), rejoins, subscription changes,
// SyncGroups (the leader assigns to every member it was told of),
// heartbeats of the current or a wrong generation or of an unknown member,
// and leaves. Any difference that no row of expectedDiffs explains fails
// the test.
func TestClassicRapid(t *testing.T) {
	rapidDefaults(t, 25)
	f := newFake(t)
	st := &tally{seen: map[string]int{}}
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		r := newClassicRun(ctx, rt, f, fmt.Sprintf("classic-rapid-%d", n), "a", "b", "c")
		member := rapid.SampledFrom(r.order)
		rt.Repeat(map[string]func(*rapid.T){
			"new": func(rt *rapid.T) {
				m := r.members[member.Draw(rt, "member")]
				if m.k.id != "" || m.o.id != "" {
					rt.Skip("has an id")
				}
				r.join(m.name)
				r.join(m.name)
			},
			"rejoin": func(rt *rapid.T) {
				m := r.members[member.Draw(rt, "member")]
				if m.k.id == "" {
					rt.Skip("no id")
				}
				if rapid.Bool().Draw(rt, "new subscription") {
					m.meta++
				}
				r.join(m.name)
			},
			"sync": func(rt *rapid.T) {
				m := r.members[member.Draw(rt, "member")]
				if m.k.id == "" {
					rt.Skip("no id")
				}
				r.sync(m.name)
			},
			"heartbeat": func(rt *rapid.T) {
				m := r.members[member.Draw(rt, "member")]
				if m.k.id == "" {
					rt.Skip("no id")
				}
				r.heartbeat(m.name, rapid.SampledFrom([]int32{0, 0, 0, 1, -1}).Draw(rt, "generation delta"))
			},
			"unknown": func(rt *rapid.T) {
				r.heartbeatAs(member.Draw(rt, "member"), "nobody")
			},
			"leave": func(rt *rapid.T) {
				m := r.members[member.Draw(rt, "member")]
				if m.k.id == "" {
					rt.Skip("no id")
				}
				r.leave(m.name)
			},
			"": func(rt *rapid.T) {
				if r.stopped != "" {
					rt.Skip("stopped")
				}
				if _, unknown := classify(r.diffs); len(unknown) > 0 {
					rt.Fatalf("new difference: %s", unknown[0])
				}
			},
		})
		r.finish()
		ids, unknown := classify(r.diffs)
		for _, d := range unknown {
			rt.Errorf("new difference: %s", d)
		}
		st.sequences++
		st.requests += r.requests
		if r.stopped != "" {
			st.stopped++
			rt.Logf("stopped: %s", r.stopped)
		}
		for _, id := range ids {
			st.seen[id]++
		}
	})
	st.report(t)
}
