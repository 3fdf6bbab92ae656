package conformance

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// defaultSeed makes the generated sequences the same on every run unless
// -rapid.seed says otherwise (kfake's member ids are random, but they are
// mapped away).
const defaultSeed = 20261202

// userFlags are the flags the command line set, read before the suite
// sets any.
var userFlags struct {
	once sync.Once
	set  map[string]bool
}

// rapidDefaults sets rapid's seed, number of checks and fail file to the
// suite's defaults unless the command line set them, and returns the seed.
func rapidDefaults(t *testing.T, checks int) string {
	userFlags.once.Do(func() {
		userFlags.set = map[string]bool{}
		flag.Visit(func(f *flag.Flag) { userFlags.set[f.Name] = true })
	})
	set := userFlags.set
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

// tally counts what the sequences compared.
type tally struct {
	sequences, requests, describes int
	// stopped counts the sequences that stopped comparing early, by
	// reason: "leader" (the two chose different leaders, the protocol's
	// freedom) or the id of an expected row with Stops.
	stopped map[string]int
	seen    map[string]int
}

func newTally() *tally { return &tally{stopped: map[string]int{}, seen: map[string]int{}} }

// add counts one sequence that sent requests and described the group
// describes times: every difference it found is an expected row (t errs
// on a new one) and, when want is not nil, exactly the rows want names.
func (s *tally) add(t harnessT, diffs []diff, want []string, requests, describes int) {
	t.Helper()
	checkDiffs(t, diffs, want)
	ids, _ := classify(diffs)
	for _, id := range ids {
		s.seen[id]++
	}
	s.sequences++
	s.requests += requests
	s.describes += describes
}

func (s *tally) report(t *testing.T) {
	t.Logf("%d sequences, %d requests sent to both and their answers compared, %d state comparisons; sequences stopped early, by reason: %v; expected differences seen (in how many sequences): %v",
		s.sequences, s.requests, s.describes, s.stopped, s.seen)
}

// TestClassicRapid drives both classic coordinators with generated
// sequences from three members: new members (MEMBER_ID_REQUIRED, then the
// join with the id, as one action), rejoins, subscription changes,
// SyncGroups (the leader assigns to every member it was told of),
// heartbeats of the current or a wrong generation or of an unknown member,
// and leaves. Any difference that no row of expectedDiffs explains fails
// the test.
func TestClassicRapid(t *testing.T) {
	rapidDefaults(t, 30)
	f := newFake(t)
	st := newTally()
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		r := newClassicRun(ctx, rt, f, fmt.Sprintf("classic-rapid-%d", n), "a", "b", "c")
		r.static("c", "instance-c")
		rt.Repeat(map[string]func(*rapid.T){
			"step": func(rt *rapid.T) {
				if r.stopped != "" {
					return
				}
				// Every move valid now: a new member joins (its
				// MEMBER_ID_REQUIRED and its join with the id, as one
				// move, so that no id handed out waits while others join;
				// the static member c joins at once); a member with an id
				// rejoins (perhaps with a new subscription), syncs,
				// heartbeats (its generation, one above or one below) or
				// leaves; c restarts under its instance id, and its old
				// incarnation heartbeats; anyone sends a heartbeat with an
				// id nobody has.
				var moves []string
				for _, name := range r.order {
					m := r.members[name]
					if m.k.id == "" && m.o.id == "" {
						moves = append(moves, "new "+name)
						continue
					}
					if m.k.id == "" || m.o.id == "" {
						continue // the two disagree: only a difference got here
					}
					for _, mv := range []string{"rejoin", "resubscribe", "sync", "heartbeat", "heartbeat", "heartbeat+1", "heartbeat-1", "leave"} {
						moves = append(moves, mv+" "+name)
					}
					if m.instance != "" {
						moves = append(moves, "restart "+name)
						if m.oldK.id != "" && m.oldO.id != "" {
							moves = append(moves, "heartbeat-old "+name)
						}
					}
				}
				moves = append(moves, "unknown a")
				move, name, _ := strings.Cut(rapid.SampledFrom(moves).Draw(rt, "move"), " ")
				switch move {
				case "new":
					r.join(name)
					if r.members[name].instance == "" {
						r.join(name)
					}
				case "restart":
					r.restart(name)
				case "heartbeat-old":
					r.heartbeatOld(name)
				case "resubscribe":
					r.members[name].meta++
					r.join(name)
				case "rejoin":
					r.join(name)
				case "sync":
					r.sync(name)
				case "heartbeat":
					r.heartbeat(name, 0)
				case "heartbeat+1":
					r.heartbeat(name, 1)
				case "heartbeat-1":
					r.heartbeat(name, -1)
				case "leave":
					r.leave(name)
				case "unknown":
					r.heartbeatAs(name, "nobody")
				}
				if id := stopper(r.diffs); id != "" && r.stopped == "" {
					r.stopped = "after " + id
				}
			},
			"": func(rt *rapid.T) {
				if _, unknown := classify(r.diffs); len(unknown) > 0 {
					rt.Fatalf("new difference: %s", unknown[0])
				}
			},
		})
		r.finish()
		st.add(rt, r.diffs, nil, r.requests, r.describes)
		switch {
		case strings.HasPrefix(r.stopped, "after "):
			st.stopped[strings.TrimPrefix(r.stopped, "after ")]++
		case r.stopped != "":
			st.stopped["leader"]++
			rt.Logf("stopped: %s", r.stopped)
		}
	})
	st.report(t)
}

// TestNextGenRapid drives both KIP-848 coordinators with generated
// sequences from three members (the third static): joins, full and
// keep-alive heartbeats, subscription changes, heartbeats at the previous,
// an older or a future epoch, leaves (-1), static leaves (-2) and a member
// nobody knows. Half the sequences use the range assignor, deterministic
// on both sides, and compare assignments exactly; the others leave the
// assignor to the coordinators (kfake's own sticky "uniform", Kafka's
// uniform here) and compare the ownership properties only.
func TestNextGenRapid(t *testing.T) {
	rapidDefaults(t, 100)
	f := newFake(t)
	st := newTally()
	n := 0
	subsets := [][]string{{"orders"}, {"payments"}, {"orders", "payments"}}
	rapid.Check(t, func(rt *rapid.T) {
		n++
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		r := newNGRun(ctx, rt, f, fmt.Sprintf("nextgen-rapid-%d", n), 0)
		assignor := ""
		if rapid.Bool().Draw(rt, "range") {
			assignor, r.deterministic = "range", true
		}
		for _, name := range []string{"a", "b", "c"} {
			instance := ""
			if name == "c" {
				instance = "instance-c"
			}
			r.member(name, instance, assignor, rapid.SampledFrom(subsets).Draw(rt, "subscription "+name)...)
		}
		stopped := ""
		rt.Repeat(map[string]func(*rapid.T){
			"step": func(rt *rapid.T) {
				if stopped != "" {
					return
				}
				// Every move valid now: a member out of the group joins;
				// a member in it sends a full or keep-alive heartbeat,
				// changes its subscription, sends a heartbeat at the
				// previous (from epoch 2) or an older (from 3) epoch
				// (under range only), at a future
				// epoch, leaves, or (static) leaves for a while; anyone
				// sends a heartbeat with an id nobody has.
				var moves []string
				for _, name := range []string{"a", "b", "c"} {
					m := r.members[name]
					switch {
					case !m.k.in && !m.o.in:
						moves = append(moves, "join "+name)
					case m.k.in && m.o.in:
						for _, mv := range []string{"full", "full", "keepalive", "keepalive", "subscribe", "future", "leave"} {
							moves = append(moves, mv+" "+name)
						}
						// Whether the previous epoch is accepted depends on
						// the member's state, which depends on its target:
						// only where the targets are the same.
						if r.deterministic && m.k.epoch >= 2 && m.o.epoch >= 2 {
							moves = append(moves, "stale "+name)
						}
						if r.deterministic && m.k.epoch >= 3 && m.o.epoch >= 3 {
							moves = append(moves, "older "+name)
						}
						if m.instance != "" {
							moves = append(moves, "static-leave "+name)
						}
					}
				}
				moves = append(moves, "unknown a")
				move, name, _ := strings.Cut(rapid.SampledFrom(moves).Draw(rt, "move"), " ")
				kind := map[string]hbKind{"join": hbJoin, "full": hbFull, "keepalive": hbKeepAlive, "subscribe": hbFull,
					"future": hbFuture, "leave": hbLeave, "stale": hbStale, "older": hbOlder, "static-leave": hbStaticLeave, "unknown": hbUnknown}[move]
				if move == "subscribe" {
					r.members[name].subs = rapid.SampledFrom(subsets).Draw(rt, "subscription")
				}
				r.hb(name, kind)
				if id := stopper(r.diffs); id != "" {
					stopped = "after " + id
				}
			},
			"": func(rt *rapid.T) {
				if _, unknown := classify(r.diffs); len(unknown) > 0 {
					rt.Fatalf("new difference: %s", unknown[0])
				}
			},
		})
		st.add(rt, r.diffs, nil, r.requests, r.describes)
		if stopped != "" {
			st.stopped[strings.TrimPrefix(stopped, "after ")]++
		}
	})
	st.report(t)
}
