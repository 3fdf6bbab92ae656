package cost

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// small is a group of members over one topic of partitions, with the
// default timing.
func small(protocol string, members, partitions int, w Workload) Config {
	return Config{Protocol: protocol, Members: members, Topics: 1, Partitions: partitions, Workload: w}
}

func mustRun(t *testing.T, cfg Config) Result {
	t.Helper()
	r, err := Run(cfg)
	if err != nil {
		t.Fatalf("Run(%s, %s): %v", cfg.Protocol, cfg.Workload.Kind, err)
	}
	return r
}

// checkMetrics compares a run's metrics with hand-computed ones, but for
// the heartbeat and message counts, which the hand computations leave out.
func checkMetrics(t *testing.T, got, want Metrics) {
	t.Helper()
	got.Heartbeats, got.Messages = 0, 0
	if got != want {
		t.Errorf("metrics\n got %+v\nwant %+v", got, want)
	}
}

// checkTraceHas reports every line of want that the trace lines lack.
func checkTraceHas(t *testing.T, lines []string, want ...string) {
	t.Helper()
	for _, l := range want {
		if !slices.Contains(lines, l) {
			t.Errorf("the trace has no line %q", l)
		}
	}
}

// mustRunTraced is mustRun, returning the run's trace lines (Config.trace)
// too.
func mustRunTraced(t *testing.T, cfg Config) (Result, []string) {
	t.Helper()
	var lines []string
	cfg.trace = func(s string) { lines = append(lines, s) }
	return mustRun(t, cfg), lines
}

// The bring-up of two classic members over t00-0..3, with 1 ms latency
// and no initial rebalance delay (the model's coordinator has none):
//
//	0   both start and send JoinGroup without a member id
//	1   the coordinator hands out m0001-1 and m0002-2 (MEMBER_ID_REQUIRED)
//	2   m0001's JoinGroup with its id arrives... m0001 alone completes
//	    generation 1 (it arms its heartbeat for 2+3000)
//	3-6 m0002's join starts generation 2; m0001's SyncGroup of
//	    generation 1 is answered REBALANCE_IN_PROGRESS, it rejoins, and
//	    both get their JoinGroupResponse of generation 2 at 6 (m0002 arms
//	    its heartbeat for 6+3000)
//	8   both get their assignments: m0001 t00-0,1, m0002 t00-2,3
//
// so the group converges at 8 and, after the 30 s margin, the workload
// starts at 30008; m0001's heartbeats reach the coordinator at
// 3000k+3 and m0002's at 3000k+7. (TestBringUpPhases pins these.)
const classicStart = node.Millis(30008)

// TestBringUpPhases pins the classic bring-up the hand-computed cases
// below start from.
func TestBringUpPhases(t *testing.T) {
	r, lines := mustRunTraced(t, small("eager", 2, 4, Workload{Kind: Crash, Member: "m0002"}))
	if r.Start != classicStart {
		t.Errorf("Start = %d, want %d", r.Start, classicStart)
	}
	log := strings.Join(lines, "\n")
	for _, want := range []string{
		"8 m0001: callback assigned {t00-0 t00-1} gen=2",
		"8 m0002: callback assigned {t00-2 t00-3} gen=2",
		"30003 coordinator: receive from m0001: Heartbeat",
		"30007 coordinator: receive from m0002: Heartbeat",
	} {
		if !strings.Contains(log, "\n"+want) {
			t.Errorf("the trace has no line %q", want)
		}
	}
}

// TestEagerCrash: eager, two members over four partitions, m0002 crashes
// at the workload's start S = 30008 (Session 44000 so that no heartbeat
// lands on the expiry's millisecond).
//
//	m0002's last heartbeat reached the coordinator at 30007, so its
//	session expires at 30007 + 44000 = 74007.
//	m0001's next heartbeat reaches the coordinator at 75003 and is
//	answered REBALANCE_IN_PROGRESS at 75004: m0001 revokes t00-0 and
//	t00-1 (2 x 10 ms) and sends its JoinGroup at 75024; it arrives at
//	75025 and completes the round at once (m0001 is the only member);
//	JoinGroupResponse 75026, SyncGroup 75027, SyncGroupResponse 75028:
//	m0001 takes all four.
//
// So t00-2 and t00-3 are out from 30008 to 75028 (45020 ms each) and
// t00-0 and t00-1 from 75004 to 75028 (24 ms each): 90.088
// resource-seconds, the longest outage 45020 ms (t00-2, the first of
// the two), two moves, a lower bound of two (m0002's share).
func TestEagerCrash(t *testing.T) {
	cfg := small("eager", 2, 4, Workload{Kind: Crash, Member: "m0002"})
	cfg.Timing.Session = 44000
	r := mustRun(t, cfg)
	if r.Start != classicStart {
		t.Fatalf("Start = %d, want %d", r.Start, classicStart)
	}
	want := Metrics{
		UnavailableResourceSeconds: 90.088,
		LongestOutage:              45020,
		OutageResource:             spec.TP("t00", 2),
		Moves:                      2,
		MovesLowerBound:            2,
		Rounds:                     1,
		ConvergedAt:                75028,
		Converged:                  true,
	}
	checkMetrics(t, r.Metrics, want)
	wantSamples := []Sample{{30008, 2}, {75004, 4}, {75028, 0}}
	if !reflect.DeepEqual(r.Unavailable, wantSamples) {
		t.Errorf("Unavailable = %v, want %v", r.Unavailable, wantSamples)
	}
	if r.End != 75028+30000 {
		t.Errorf("End = %d, want the convergence plus the 30 s margin", r.End)
	}
}

// TestNextgenRevocationTime: a next-gen member revokes after its
// callback returns, one batch taking Revocation per resource, and
// acknowledges when the batch is done. In the bring-up of two members
// over t00-0..3, m0001 gets all four at 2, is told at 4 to revoke t00-2
// and t00-3, and its heartbeat with what it still owns reaches the
// coordinator at 4 + 2r + 1; m0002 gets them at its first heartbeat's
// answer after that (its heartbeats are answered at 5004, 10006, 15008),
// which is when the group has converged and, 30 s later, the workload
// starts.
func TestNextgenRevocationTime(t *testing.T) {
	for _, c := range []struct {
		revocation node.Millis
		ack        node.Millis // the acknowledging heartbeat reaches the coordinator
		assigned   node.Millis // m0002 takes t00-2 and t00-3
	}{{10, 25, 5004}, {6000, 12005, 15008}} {
		t.Run(fmt.Sprint(c.revocation), func(t *testing.T) {
			cfg := small("nextgen", 2, 4, Workload{Kind: Crash, Member: "m0002"})
			cfg.Timing.Revocation = c.revocation
			r, lines := mustRunTraced(t, cfg)
			ack := fmt.Sprintf("%d coordinator: receive from m0001: Heartbeat#", c.ack)
			if !slices.ContainsFunc(lines, func(l string) bool {
				return strings.HasPrefix(l, ack) && strings.Contains(l, "owned={t00-0 t00-1}")
			}) {
				t.Errorf("no acknowledgement of m0001's revocation reaches the coordinator at %d", c.ack)
			}
			checkTraceHas(t, lines, fmt.Sprintf("%d m0002: callback assigned {t00-2 t00-3} epoch=2", c.assigned))
			if r.Start != c.assigned+30000 {
				t.Errorf("Start = %d, want %d + the 30 s margin", r.Start, c.assigned)
			}
		})
	}
}

// TestEagerRevocationPastSession: eager, two members over four partitions
// and one joining at S = 30008, each resource taking 60 s to revoke, so a
// member's revocation (two resources, 120 s) outlasts its 45 s session.
//
//	m0001's heartbeat is answered REBALANCE_IN_PROGRESS at 33004 and
//	m0002's at 33008: each revokes its two partitions, busy until 153004
//	and 153008, its JoinGroup held back until then (it arrives at 153005
//	and 153009). Meanwhile each one's heartbeat thread heartbeats every
//	3 s, from 36004 (36008) to 150004 (150008), each reaching the
//	coordinator 1 ms later: 39 heartbeats each, which keep both in the
//	group. The barrier falls at 153009 and every member is assigned at
//	153012 (m0003 takes t00-3).
//
// t00-0 and t00-1 are out from 33004 to 153012, t00-2 and t00-3 from
// 33008: 480.024 resource-seconds, one round, one move.
func TestEagerRevocationPastSession(t *testing.T) {
	cfg := small("eager", 2, 4, Workload{Kind: ScaleOut, Count: 1})
	cfg.Timing.Revocation = 60000
	r, lines := mustRunTraced(t, cfg)
	want := Metrics{
		UnavailableResourceSeconds: 480.024,
		LongestOutage:              120008,
		OutageResource:             spec.TP("t00", 0),
		Moves:                      1,
		MovesLowerBound:            1,
		Rounds:                     1,
		ConvergedAt:                153012,
		Converged:                  true,
	}
	checkMetrics(t, r.Metrics, want)
	for _, c := range []struct {
		member      string
		first, last node.Millis
	}{{"m0001", 36004, 150004}, {"m0002", 36008, 150008}} {
		var at []node.Millis
		for _, l := range lines {
			if strings.Contains(l, " "+c.member+": heartbeat thread sends Heartbeat#0 ") {
				n, _ := strconv.Atoi(strings.Fields(l)[0])
				at = append(at, node.Millis(n))
			}
		}
		if len(at) != 39 || at[0] != c.first || at[len(at)-1] != c.last {
			t.Errorf("%s's heartbeat thread sent at %v, want 39 heartbeats from %d to %d", c.member, at, c.first, c.last)
		}
	}
	checkTraceHas(t, lines,
		"36005 coordinator: receive from m0001: Heartbeat#0 member=m0001-1 gen=2",
		"153005 coordinator: receive from m0001: JoinGroup#16 member=m0001-1 protocols=[eager=topics=[t00];owned={};gen=2;leader=m0001-1]",
		"153012 m0003: callback assigned {t00-3} gen=3",
	)
}

// TestEagerLeaveRevocationPastSession: eager, two members over four
// partitions, m0002 leaving at S = 30008, each resource taking 60 s to
// revoke. Kafka's consumer closes its heartbeat thread before it revokes
// on leaving (AbstractCoordinator.close), so the leaving member sends no
// heartbeat while it revokes, unlike a rejoining one:
//
//	m0002 revokes t00-2 and t00-3 from 30008 until 150008; its last
//	heartbeat reached the coordinator at 30007, so its session expires at
//	75007 and the group rebalances without it, long before its LeaveGroup
//	(150009). m0001 hears of the rebalance at its heartbeat at 78004,
//	revokes its two partitions until 198004, its heartbeat thread keeping
//	it in the group, and takes all four at 198008.
//
// t00-2 and t00-3 are out from 30008 to 198008, t00-0 and t00-1 from
// 78004: 576.008 resource-seconds, one round, two moves.
func TestEagerLeaveRevocationPastSession(t *testing.T) {
	cfg := small("eager", 2, 4, Workload{Kind: ScaleIn, Count: 1})
	cfg.Timing.Revocation = 60000
	r, lines := mustRunTraced(t, cfg)
	checkMetrics(t, r.Metrics, Metrics{
		UnavailableResourceSeconds: 576.008,
		LongestOutage:              168000,
		OutageResource:             spec.TP("t00", 2),
		Moves:                      2,
		MovesLowerBound:            2,
		Rounds:                     1,
		ConvergedAt:                198008,
		Converged:                  true,
	})
	for _, l := range lines {
		if strings.Contains(l, " m0002: heartbeat thread ") {
			t.Errorf("the leaving member's heartbeat thread sends: %s", l)
		}
	}
	checkTraceHas(t, lines,
		"75007 coordinator: timer session(m0002-2) fired",
		"81004 m0001: heartbeat thread sends Heartbeat#0 member=m0001-1 gen=2",
		"198008 m0001: callback assigned {t00-0 t00-1 t00-2 t00-3} gen=3",
	)
}

// TestCooperativeScaleOut: cooperative, two members over four partitions
// (the cooperative-sticky assignor gives m0001 t00-0,2 and m0002
// t00-1,3), one member joins at S = 30008.
//
//	m0003's JoinGroup starts a round; m0001 and m0002 rejoin from their
//	next heartbeats (answered at 33004 and 33008), the barrier falls at
//	33009, SyncGroupResponses at 33012: m0002 must revoke t00-3. It does
//	(10 ms) and rejoins at once (JoinGroup arrives 33023): the follow-up
//	round waits for m0001 (its heartbeat is answered at 36004) and
//	m0003 (its heartbeat timer, armed when it joined at 33010, fires at
//	36010, answered 36012, JoinGroup arrives 36013): JoinGroupResponse
//	36014, SyncGroup 36015, SyncGroupResponse 36016: m0003 takes t00-3.
//
// Only t00-3 is ever out, from 33012 to 36016: 3.004 resource-seconds,
// one move, the lower bound one, two rounds.
func TestCooperativeScaleOut(t *testing.T) {
	r := mustRun(t, small("cooperative", 2, 4, Workload{Kind: ScaleOut, Count: 1}))
	want := Metrics{
		UnavailableResourceSeconds: 3.004,
		LongestOutage:              3004,
		OutageResource:             spec.TP("t00", 3),
		Moves:                      1,
		MovesLowerBound:            1,
		Rounds:                     2,
		ConvergedAt:                36016,
		Converged:                  true,
	}
	checkMetrics(t, r.Metrics, want)
	if r.Members != 3 {
		t.Errorf("Members = %d, want 3", r.Members)
	}
}

// TestStaticRollingRestart: static members restarted within the session
// timeout come back to their own assignment: no round, no move; each
// member's two partitions are out while it is down and rejoining. A
// classic member revokes and stops at once (it sends nothing: static),
// starts again 10000 ms later, and its JoinGroup (1 ms), the stored
// assignment (skip-assignment, 1 ms), its SyncGroup and the answer (2
// ms) bring them back 10004 ms after it stopped; the next member stops
// then. A next-gen member's heartbeat and its answer take 2 ms: 10002.
func TestStaticRollingRestart(t *testing.T) {
	for _, c := range []struct {
		protocol string
		outage   node.Millis
	}{{"eager", 10004}, {"cooperative", 10004}, {"deferred", 10004}, {"incremental", 10004}, {"nextgen", 10002}} {
		t.Run(c.protocol, func(t *testing.T) {
			cfg := small(c.protocol, 2, 4, Workload{Kind: RollingRestart})
			cfg.Static = true
			r := mustRun(t, cfg)
			m := r.Metrics
			if m.Rounds != 0 || m.Moves != 0 || m.MovesLowerBound != 0 || !m.Converged {
				t.Errorf("rounds %d, moves %d (bound %d), converged %v; want no round, no move, converged", m.Rounds, m.Moves, m.MovesLowerBound, m.Converged)
			}
			if m.LongestOutage != c.outage {
				t.Errorf("LongestOutage = %d, want %d", m.LongestOutage, c.outage)
			}
			if want := float64(4*c.outage) / 1000; m.UnavailableResourceSeconds != want {
				t.Errorf("UnavailableResourceSeconds = %v, want %v (2 members x 2 partitions x %d ms)", m.UnavailableResourceSeconds, want, c.outage)
			}
			if m.ConvergedAt != r.Start+2*c.outage {
				t.Errorf("ConvergedAt = %d, want Start %d + 2 x %d", m.ConvergedAt, r.Start, c.outage)
			}
		})
	}
}

// workloads is one of each workload at small size.
func workloads() []Workload {
	return []Workload{
		{Kind: RollingRestart},
		{Kind: ScaleOut, Count: 2},
		{Kind: ScaleIn, Count: 1},
		{Kind: Crash},
		{Kind: Pause, Pause: 20000},
		{Kind: Pause, Pause: 90000},
		{Kind: Resubscribe},
		{Kind: Resubscribe, Count: 3},
		{Kind: AddPartitions, Count: 2},
	}
}

// TestEveryProtocolConverges runs every protocol through every workload,
// dynamic and static, at small size, with Kafka's timing and with timings
// that move the timers against each other (a short session, a heartbeat
// just under the session, a short rebalance timeout, a short Connect
// delay, a slow revocation well inside the session, a round trip longer
// than the heartbeat interval): each converges, no
// resource is held by two running processes at once (but a paused
// zombie's, below), the step function integrates to the metric, and
// moves are at least their lower bound where the assignment after is
// balanced.
func TestEveryProtocolConverges(t *testing.T) {
	timings := []struct {
		name string
		set  func(*Timing)
	}{
		{"default", func(*Timing) {}},
		{"short-session", func(x *Timing) { x.Session, x.NextgenSession = 4000, 6000 }},
		{"heartbeat-near-session", func(x *Timing) {
			x.Heartbeat, x.Session, x.NextgenHeartbeat, x.NextgenSession = 14000, 15000, 14000, 15000
		}},
		{"short-rebalance-timeout", func(x *Timing) { x.Rebalance = 5000 }},
		{"short-connect-delay", func(x *Timing) { x.ConnectDelay = 1000 }},
		{"slow-revocation", func(x *Timing) { x.Revocation = 1000 }},
		// A round trip past the heartbeat interval: every heartbeat's
		// response arrives after the next heartbeat was sent.
		{"slow-network", func(x *Timing) { x.Latency = 2000 }},
		// A member revoking four resources takes two minutes, past the
		// 45 s session: its heartbeat thread keeps it in the group. A
		// restarted process is down longer than that (one restarted while
		// it still revokes is TestStaticRestartKilledMidRevocation's).
		{"revocation-past-session", func(x *Timing) { x.Revocation, x.Restart = 30000, 150000 }},
	}
	for _, p := range Protocols() {
		for _, w := range workloads() {
			for _, static := range []bool{false, true} {
				for _, tm := range timings {
					name := fmt.Sprintf("%s/%s-%d-%d/static=%v/%s", p, w.Kind, w.Count, w.Pause, static, tm.name)
					t.Run(name, func(t *testing.T) {
						cfg := Config{Protocol: p, Members: 3, Topics: 2, Partitions: 6, Static: static, Workload: w, Seed: 7, KeepOwnership: true}
						tm.set(&cfg.Timing)
						r := mustRun(t, cfg)
						if !r.Metrics.Converged {
							t.Fatalf("did not converge: %+v", r.Metrics)
						}
						checkIntegral(t, r)
						checkExclusive(t, r, w)
					})
				}
			}
		}
	}
}

// checkIntegral: the step function Unavailable integrates to
// UnavailableResourceSeconds, and the intervals cover what it says is
// available.
func checkIntegral(t *testing.T, r Result) {
	t.Helper()
	var area float64
	for i, s := range r.Unavailable {
		end := r.End
		if i+1 < len(r.Unavailable) {
			end = r.Unavailable[i+1].At
		}
		area += float64(s.Unavailable) * float64(end-s.At)
	}
	if got := area / 1000; got != r.Metrics.UnavailableResourceSeconds {
		t.Errorf("the samples integrate to %v, the metric is %v", got, r.Metrics.UnavailableResourceSeconds)
	}
	if len(r.Unavailable) == 0 || r.Unavailable[0].At != r.Start {
		t.Errorf("Unavailable does not start at Start %d: %v", r.Start, r.Unavailable)
	}
}

// checkExclusive: no resource is held by two running processes at once,
// except by a paused member that resumed after its session expired: it
// works on until its first heartbeat after the pause tells it it was
// fenced (a zombie whose commits the coordinator rejects), so its
// holdings from the resume on may overlap the new owner's.
func checkExclusive(t *testing.T, r Result, w Workload) {
	t.Helper()
	resumed := r.Start + w.Pause
	for i := 1; i < len(r.Ownership); i++ {
		a, b := r.Ownership[i-1], r.Ownership[i]
		if a.Resource != b.Resource || b.From >= a.To {
			continue
		}
		zombie := func(x Interval) bool { return w.Kind == Pause && x.From == resumed }
		if zombie(a) || zombie(b) {
			continue
		}
		t.Errorf("%s held twice: %+v and %+v", a.Resource, a, b)
	}
}

// TestDeterministic: the same Config gives the same Result.
func TestDeterministic(t *testing.T) {
	for _, p := range Protocols() {
		for _, w := range []Workload{{Kind: RollingRestart}, {Kind: Pause, Pause: 50000}, {Kind: Crash}} {
			cfg := Config{Protocol: p, Members: 4, Topics: 3, Partitions: 5, Workload: w, Seed: 3, KeepOwnership: true}
			a, b := mustRun(t, cfg), mustRun(t, cfg)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s %s: two runs differ:\n%+v\n%+v", p, w.Kind, a, b)
			}
		}
	}
}

// TestSeedPicksVictim: the seed picks the member that crashes (different
// seeds reach different members), Workload.Member overrides it.
func TestSeedPicksVictim(t *testing.T) {
	resources := map[spec.Resource]bool{}
	for seed := range uint64(8) {
		cfg := Config{Protocol: "eager", Members: 4, Topics: 1, Partitions: 4, Workload: Workload{Kind: Crash}, Seed: seed}
		resources[mustRun(t, cfg).Metrics.OutageResource] = true
	}
	if len(resources) < 2 {
		t.Errorf("8 seeds crashed the same member: %v", resources)
	}
}

// TestNamedMemberResubscribes: a resubscribe workload of one member
// changes the member it names, whichever the seed would pick. Three
// members over two topics; the named one drops the last topic: at the
// end it holds nothing of t01, and the other two hold all of it.
func TestNamedMemberResubscribes(t *testing.T) {
	for _, p := range Protocols() {
		for _, name := range []string{"m0001", "m0002", "m0003"} {
			t.Run(p+"/"+name, func(t *testing.T) {
				cfg := Config{Protocol: p, Members: 3, Topics: 2, Partitions: 6, Workload: Workload{Kind: Resubscribe, Member: name}, Seed: 7, KeepOwnership: true}
				r := mustRun(t, cfg)
				if !r.Metrics.Converged {
					t.Fatalf("did not converge: %+v", r.Metrics)
				}
				held := map[string]int{} // t01 partitions held at the end, by owner
				for _, iv := range r.Ownership {
					if iv.To == r.End && iv.Resource.Topic == "t01" {
						held[iv.Owner]++
					}
				}
				if held[name] != 0 || held["m0001"]+held["m0002"]+held["m0003"] != 6 {
					t.Errorf("t01 held at the end by %v; want all 6 held, none by %s", held, name)
				}
			})
		}
	}
}

// TestInvalidConfigs: a Config that makes no sense is an error naming
// what is wrong.
func TestInvalidConfigs(t *testing.T) {
	ok := Config{Protocol: "eager", Members: 3, Topics: 2, Partitions: 4, Workload: Workload{Kind: Crash}}
	if _, err := Run(ok); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	// The smallest group: one member, one topic of one partition.
	if _, err := Run(Config{Protocol: "eager", Members: 1, Topics: 1, Partitions: 1, Workload: Workload{Kind: RollingRestart}}); err != nil {
		t.Fatalf("one member over one partition: %v", err)
	}
	for _, c := range []struct {
		change func(*Config)
		want   string
	}{
		{func(c *Config) { c.Protocol = "sticky" }, "unknown protocol"},
		{func(c *Config) { c.Members = 0 }, "at least one member"},
		{func(c *Config) { c.Partitions = -1 }, "Partitions -1"},
		{func(c *Config) { c.Timing.Latency = -1 }, "Timing.Latency -1 is negative"},
		{func(c *Config) { c.Timing.Heartbeat = 45000 }, "Timing.Heartbeat 45000 must be below"},
		{func(c *Config) { c.Timing.NextgenHeartbeat = 50000 }, "Timing.NextgenHeartbeat 50000 must be below"},
		{func(c *Config) { c.Timing.NextgenHeartbeat = 45000 }, "Timing.NextgenHeartbeat 45000 must be below"},
		{func(c *Config) { c.Members, c.Workload.Member = 1, "m0002" }, "not a member"},
		{func(c *Config) { c.Workload.Kind = "reboot" }, "unknown workload"},
		{func(c *Config) { c.Workload = Workload{Kind: ScaleIn, Count: 3} }, "below the group's 3 members"},
		{func(c *Config) { c.Workload = Workload{Kind: ScaleOut} }, "scale-out needs Workload.Count"},
		{func(c *Config) { c.Workload = Workload{Kind: Resubscribe, Count: 4} }, "the group has 3"},
		{func(c *Config) { c.Workload = Workload{Kind: Resubscribe, Topics: []string{"nope"}} }, `"nope", which is not a topic`},
		{func(c *Config) { c.Workload.Member = "m0009" }, "not a member"},
		{func(c *Config) { c.Workload.Pause = -5 }, "negative Workload"},
		{func(c *Config) { c.Horizon = -1 }, "negative Horizon"},
		{func(c *Config) { c.MaxMovesPerRound = -2 }, "MaxMovesPerRound -2 is negative"},
		{func(c *Config) { c.Timing.StepDelay = -1 }, "Timing.StepDelay -1 is negative"},
	} {
		cfg := ok
		c.change(&cfg)
		_, err := Run(cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
}

// TestHorizon: a run cut by the horizon reports that it did not converge.
func TestHorizon(t *testing.T) {
	cfg := small("deferred", 3, 6, Workload{Kind: Crash})
	cfg.Horizon = 60000
	r := mustRun(t, cfg)
	if r.Metrics.Converged || r.End != 60000 {
		t.Errorf("converged %v at end %d; want not converged, end 60000", r.Metrics.Converged, r.End)
	}
}

// TestStaticRestartKilledMidRevocation: a run in which every member
// stops for good ends at its horizon, not converged, without an error. A
// static next-gen member that leaves revokes its four partitions (6 s
// each, 24 s) and is still revoking when its restart comes 10 s later:
// the old process is killed before its leave (member epoch -2) is sent,
// and the new one, with a new member id, is refused the instance id the
// old one still holds (UNRELEASED_INSTANCE_ID, fatal to Kafka's
// consumer). So with each member in turn, until none is left and the
// coordinator, its sessions expired, waits for nothing: nothing happens
// again, and every resource stays out.
func TestStaticRestartKilledMidRevocation(t *testing.T) {
	cfg := Config{Protocol: "nextgen", Members: 3, Topics: 2, Partitions: 6, Static: true, Workload: Workload{Kind: RollingRestart}, Horizon: 400000}
	cfg.Timing.Revocation = 6000
	r, lines := mustRunTraced(t, cfg)
	if r.Metrics.Converged || r.End != cfg.Horizon {
		t.Errorf("converged %v, end %d; want not converged, ended at the horizon %d", r.Metrics.Converged, r.End, cfg.Horizon)
	}
	if last := r.Unavailable[len(r.Unavailable)-1]; last.Unavailable != 12 {
		t.Errorf("%d resources out at the end, want all 12", last.Unavailable)
	}
	log := strings.Join(lines, "\n")
	for _, m := range []string{"m0001@2", "m0002@2", "m0003@2"} {
		if !strings.Contains(log, m+": callback fatal {} epoch=0: ConsumerGroupHeartbeat: UNRELEASED_INSTANCE_ID") {
			t.Errorf("%s was not refused its instance id", m)
		}
	}
}

// TestMovesLowerBound: three members over two topics of six partitions
// (range gives each two of each topic). The bound is the smaller of the
// moves to a balanced assignment overall and per topic.
func TestMovesLowerBound(t *testing.T) {
	for _, c := range []struct {
		w    Workload
		want int
	}{
		// Overall 12 over 4 members needs 3 moves (4,4,4 -> 3 each); per
		// topic 6 over 4 needs 1 (2,2,2 -> 2,2,1,1) per topic: 2.
		{Workload{Kind: ScaleOut, Count: 1}, 2},
		// The leaver's four must move; 2,2 per topic over two is balanced.
		{Workload{Kind: ScaleIn, Count: 1}, 4},
		{Workload{Kind: Crash, Member: "m0002"}, 4},
		{Workload{Kind: RollingRestart}, 0},
		{Workload{Kind: Pause}, 0},
		// New partitions go to whoever has fewest: nothing need move.
		{Workload{Kind: AddPartitions, Count: 2}, 0},
		// One member drops t01: its two partitions of t01 must move.
		{Workload{Kind: Resubscribe, Topics: []string{"t00"}}, 2},
		// Everyone drops t01: nothing of t00 need move, t01 no longer counts.
		{Workload{Kind: Resubscribe, Count: 3, Topics: []string{"t00"}}, 0},
	} {
		r := mustRun(t, Config{Protocol: "eager", Members: 3, Topics: 2, Partitions: 6, Workload: c.w})
		if got := r.Metrics.MovesLowerBound; got != c.want {
			t.Errorf("%s %d: MovesLowerBound = %d, want %d", c.w.Kind, c.w.Count, got, c.want)
		}
		if r.Metrics.Moves < r.Metrics.MovesLowerBound {
			t.Errorf("%s %d: %d moves, below the bound %d", c.w.Kind, c.w.Count, r.Metrics.Moves, r.Metrics.MovesLowerBound)
		}
	}
}

// TestExcess: the fewest resources some members must give up so that the
// total spreads over all of them with loads differing by at most one.
func TestExcess(t *testing.T) {
	for _, c := range []struct {
		counts []int
		total  int
		want   int
	}{
		{nil, 0, 0},
		{[]int{4, 4, 4}, 12, 0},
		{[]int{5, 3, 0}, 8, 2},     // to 3,3,2: the first gives up 2
		{[]int{6, 0, 0}, 6, 4},     // to 2,2,2
		{[]int{3, 3, 0}, 6, 2},     // to 2,2,2: each full member gives up 1
		{[]int{4, 4, 0}, 8, 2},     // to 3,3,2: 3 may stay with two of them
		{[]int{7, 1, 1, 1}, 10, 4}, // to 3,3,2,2
	} {
		if got := excess(c.counts, c.total); got != c.want {
			t.Errorf("excess(%v, %d) = %d, want %d", c.counts, c.total, got, c.want)
		}
	}
}

// TestDesignIIIBound: incremental's bound (Config.MaxMovesPerRound)
// reaches its policy. Two members join four over t00-0..39, so 12
// resources must move (10 each to 7,7,7,7,6,6). Whatever the bound k,
// the group makes exactly those 12 moves; no round revokes more than k
// (the revocation callbacks of one generation, from the workload's
// start); there are ⌈12/k⌉ revoking rounds (the policy's bound for a
// quiet group); the default is k = 1; and with a bound that covers every
// move, Design III is Design II: the same metrics as deferred. With one
// move a round, the steps are at least Timing.StepDelay apart: the group
// converges no sooner than 11 steps after the first.
func TestDesignIIIBound(t *testing.T) {
	const needed = 12
	workload := Workload{Kind: ScaleOut, Count: 2}
	run := func(protocol string, k int, step node.Millis) (Metrics, map[int]int) {
		t.Helper()
		cfg := small(protocol, 4, 40, workload)
		cfg.MaxMovesPerRound, cfg.Timing.StepDelay = k, step
		r, lines := mustRunTraced(t, cfg)
		revoked := map[int]int{} // generation -> resources revoked in it
		for _, l := range lines {
			var at int64
			var addr, set string
			var gen int
			if _, err := fmt.Sscanf(l, "%d %s callback revoked {%s", &at, &addr, &set); err != nil || node.Millis(at) < r.Start {
				continue
			}
			body, genText, ok := strings.Cut(l[strings.Index(l, "{")+1:], "} gen=")
			if _, err := fmt.Sscan(genText, &gen); !ok || err != nil {
				t.Fatalf("unreadable revocation line %q", l)
			}
			revoked[gen] += len(strings.Fields(body))
		}
		m := r.Metrics
		m.ConvergedAt -= r.Start
		return m, revoked
	}
	deferred, _ := run("deferred", 0, 0)
	one, _ := run("incremental", 1, 0)
	for _, step := range []node.Millis{1000, 5000} {
		if m, _ := run("incremental", 1, step); m.ConvergedAt < (needed-1)*step {
			t.Errorf("StepDelay %d: converged %d ms after the start, before %d steps", step, m.ConvergedAt, needed-1)
		}
	}
	for _, k := range []int{0, 1, 2, 5, needed, 100} {
		m, revoked := run("incremental", k, 0)
		bound := max(k, 1)
		total := 0
		for gen, n := range revoked {
			total += n
			if n > bound {
				t.Errorf("k=%d: generation %d revokes %d resources, above the bound", k, gen, n)
			}
		}
		if m.Moves != needed || m.MovesLowerBound != needed || total != needed {
			t.Errorf("k=%d: %d moves, lower bound %d, %d revoked; want %d each", k, m.Moves, m.MovesLowerBound, total, needed)
		}
		if want := (needed + bound - 1) / bound; len(revoked) != want {
			t.Errorf("k=%d: %d revoking rounds %v, want ⌈%d/%d⌉ = %d", k, len(revoked), revoked, needed, bound, want)
		}
		if k == 0 && m != one {
			t.Errorf("the default bound gives %+v, k=1 %+v", m, one)
		}
		if k >= needed && m != deferred {
			t.Errorf("k=%d covers every move: %+v, want deferred's %+v", k, m, deferred)
		}
	}
}

// TestDesignIIIBoundRollingRestart pins what docs/costs.md shows of the
// bound in the rolling restart of 30 members over 4 topics of 64: with a
// bound of a member's share or more (K = 8), incremental's run is
// deferred's, every sample and holding; with K = 1 no resource waits
// Connect's delay (the longest outage is a heartbeat round, where
// deferred's is the delay).
func TestDesignIIIBoundRollingRestart(t *testing.T) {
	cfg := Config{Protocol: "deferred", Members: 30, Topics: 4, Partitions: 64, Workload: Workload{Kind: RollingRestart}, KeepOwnership: true}
	deferred := mustRun(t, cfg)
	cfg.Protocol = "incremental"
	cfg.MaxMovesPerRound = 8
	share := mustRun(t, cfg)
	share.Protocol = deferred.Protocol
	if !reflect.DeepEqual(share, deferred) {
		t.Errorf("K = 8 differs from deferred: %+v against %+v", share.Metrics, deferred.Metrics)
	}
	cfg.MaxMovesPerRound = 1
	one := mustRun(t, cfg).Metrics
	delay := DefaultTiming().ConnectDelay
	if one.LongestOutage >= delay || deferred.Metrics.LongestOutage < delay {
		t.Errorf("longest outage: K = 1 %d ms, deferred %d ms; want below and above Connect's delay %d ms", one.LongestOutage, deferred.Metrics.LongestOutage, delay)
	}
}
