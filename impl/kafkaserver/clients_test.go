package kafkaserver

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rebalance-ref/rebalance/checker/ownership"
	"github.com/rebalance-ref/rebalance/impl/kgotest"
	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// The real-client tests: franz-go kgo consumers of both protocol families
// join groups answered by the reference coordinators, consume, commit,
// leave, crash, restart with a static instance id and roll through a
// restart of every member. Every callback and every membership change is
// recorded (kgotest), and every history is judged by porcupine and the
// laws (checker/ownership).

// clientTopics is the universe of the real-client groups: two topics.
var clientTopics = spec.Topics{"orders": 12, "payments": 6}

const records = 10 // per partition

// artifacts is where porcupine's visualizations of failing histories go
// (REBALANCE_ARTIFACTS, or the system's temporary directory).
func artifacts() string { return os.Getenv("REBALANCE_ARTIFACTS") }

// group is one test group: its recorder, environment and members.
type clientGroup struct {
	t        testing.TB
	topics   spec.Topics
	e        *env
	rec      *kgotest.Recorder
	protocol kgotest.Protocol
	members  map[string]*kgotest.Member
	static   map[string]string // process name -> instance id
	// consumed counts the records polled by incarnations that have ended.
	consumed int
}

func newClientGroup(t testing.TB, how endpoint, p kgotest.Protocol, cfg envConfig, topics spec.Topics) *clientGroup {
	rec := kgotest.NewRecorder("g", topics).ObservesCoordinator()
	cfg.observer = rec
	e := newEnvTopics(t, how, cfg, topics)
	for _, topic := range topics.Names() {
		e.produce(t, topic, records*int(topics[topic]))
	}
	return &clientGroup{t: t, topics: topics, e: e, rec: rec, protocol: p, members: map[string]*kgotest.Member{}, static: map[string]string{}}
}

// start starts process name (static when instance is not "").
func (g *clientGroup) start(name, instance string) {
	g.t.Helper()
	m, err := kgotest.Start(g.rec, kgotest.MemberConfig{
		Name: name, Seeds: g.e.seeds, Group: "g", Topics: g.topics.Names(), Protocol: g.protocol,
		InstanceID: instance, SessionTimeout: 3 * time.Second, HeartbeatInterval: 200 * time.Millisecond,
		RebalanceTimeout: 10 * time.Second, RevokeWork: 20 * time.Millisecond,
	})
	if err != nil {
		g.t.Fatal(err)
	}
	g.members[name] = m
	if instance != "" {
		g.static[name] = instance
	}
}

func (g *clientGroup) leave(name string) {
	g.members[name].Leave()
	g.consumed += g.members[name].Records()
	delete(g.members, name)
}

// polled is the records polled so far, by ended and live incarnations.
func (g *clientGroup) polled() int {
	n := g.consumed
	for _, m := range g.members {
		n += m.Records()
	}
	return n
}

func (g *clientGroup) crash(name string) {
	g.consumed += g.members[name].Records()
	g.members[name].Crash()
	delete(g.members, name)
}

// balance is the balance law of the group's assignor: range balances each
// topic, cooperative-sticky and the uniform assignor the members' totals.
func (g *clientGroup) balance() func(spec.View) []spec.Violation {
	if g.protocol == kgotest.Eager {
		return spec.CheckTopicBalance
	}
	return spec.CheckBalance
}

// converged reports whether the coordinator counts exactly the live
// members and is stable, and the members' callbacks say every partition
// is owned once, balanced by the assignor's law.
func (g *clientGroup) converged(ctx context.Context) (bool, string) {
	owned := g.rec.Owned()
	if !g.rec.Covered() {
		return false, fmt.Sprintf("not covered: %v", owned)
	}
	v := spec.View{Topics: g.topics}
	for name, set := range owned {
		v.Members = append(v.Members, spec.MemberView{Name: name, Current: true, Subscription: g.topics.Names(), Owns: set})
	}
	if bad := g.balance()(v.Sort()); len(bad) > 0 {
		return false, fmt.Sprintf("not balanced: %v", bad)
	}
	want := len(g.members)
	if c := g.e.server.Classic("g"); c != nil {
		d, err := c.Describe(ctx)
		if err != nil || d.State != classic.GroupStable || len(d.Members) != want {
			return false, fmt.Sprintf("classic group %s with %d members, want Stable with %d", d.State, len(d.Members), want)
		}
		return true, ""
	}
	if n := g.e.server.NextGen("g"); n != nil {
		var st nextgen.GroupState
		var members int
		n.Inspect(ctx, func(c *nextgen.Coordinator) {
			st = c.State()
			for _, id := range c.Members() {
				if c.IsMember(id) {
					members++
				}
			}
		})
		if st != nextgen.GroupStable || members != want {
			return false, fmt.Sprintf("consumer group %s with %d members, want STABLE with %d", st, members, want)
		}
		return true, ""
	}
	return false, "no group"
}

// waitConverged waits (at most a minute) for the group to converge.
func (g *clientGroup) waitConverged(step string) {
	g.t.Helper()
	ctx := g.t.Context()
	deadline := time.Now().Add(time.Minute)
	var why string
	for time.Now().Before(deadline) {
		var ok bool
		if ok, why = g.converged(ctx); ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	g.t.Fatalf("%s: the group did not converge in a minute: %s", step, why)
}

// judge records the quiet point and checks the history with porcupine and
// the laws.
func (g *clientGroup) judge() spec.History {
	g.t.Helper()
	g.rec.Quiet()
	h := g.rec.History()
	res, err := ownership.Check(h, ownership.Options{Name: g.t.Name(), Balance: g.balance(), HTMLDir: artifacts(), Timeout: time.Minute})
	if err != nil {
		g.t.Fatal(err)
	}
	if !res.OK() {
		g.t.Fatalf("the history breaks the laws:\n%s", res)
	}
	if !res.ConvergenceJudged || !res.CoordinatorObserved || res.Operations == 0 {
		g.t.Fatalf("the history was not fully judged: %+v", res)
	}
	g.t.Logf("history of %d observations: %d porcupine operations linearizable, %d views keep the laws, converged", len(h.Observations), res.Operations, res.Views)
	return h
}

// finish leaves every member (each commits in its revocation callback) and
// checks that everything produced was consumed and committed through the
// coordinator's commit fencing.
func (g *clientGroup) finish() {
	g.t.Helper()
	total := g.topics.Resources(g.topics.Names()...).Len() * records
	// The members poll on their own: on a loaded machine the group can
	// converge before they have polled everything, so give them (at most
	// a minute) to catch up before they leave.
	for deadline := time.Now().Add(time.Minute); g.polled() < total && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	for _, name := range slices.Sorted(maps.Keys(g.members)) {
		g.leave(name)
	}
	if g.consumed < total {
		g.t.Fatalf("%d records polled in all, fewer than the %d produced", g.consumed, total)
	}
	var offsets map[spec.Resource]int64
	ctx := g.t.Context()
	if c := g.e.server.Classic("g"); c != nil {
		o, _ := c.Offsets(ctx, nil)
		offsets = map[spec.Resource]int64{}
		for r, v := range o {
			offsets[r] = v.Offset
		}
	} else if n := g.e.server.NextGen("g"); n != nil {
		o, _ := n.Offsets(ctx, nil)
		offsets = map[spec.Resource]int64{}
		for r, v := range o {
			offsets[r] = v.Offset
		}
	}
	var missing []string
	for _, r := range g.topics.Resources(g.topics.Names()...) {
		if offsets[r] != records {
			missing = append(missing, fmt.Sprintf("%s=%d", r, offsets[r]))
		}
	}
	if len(missing) > 0 {
		g.t.Fatalf("committed offsets short of %d: %s", records, strings.Join(missing, " "))
	}
}

// TestRealClients runs each protocol family's kgo consumers through a
// group's life against the reference coordinators behind the Front
// (rebalance serve's path): five members join over two topics, consume
// and commit; one leaves, one crashes (its session expires), a static
// member restarts under its instance id, and every member restarts in
// turn. After each change the group must converge; at the end the whole
// history must be linearizable and keep the laws, and every record must be
// committed.
func TestRealClients(t *testing.T) {
	for _, p := range []kgotest.Protocol{kgotest.Eager, kgotest.Cooperative, kgotest.NextGen} {
		t.Run(p.String(), func(t *testing.T) {
			t.Parallel()
			g := newClientGroup(t, viaFront, p, envConfig{}, clientTopics)
			names := []string{"m0", "m1", "m2", "m3", "m4"}
			for _, n := range names {
				instance := ""
				if n == "m4" {
					instance = "static-m4"
				}
				g.start(n, instance)
			}
			g.waitConverged("five join")

			g.leave("m0")
			g.waitConverged("m0 leaves")

			g.crash("m1")
			g.waitConverged("m1 crashes")

			// A static member restarts under its instance id. Classic: its
			// new incarnation replaces the crashed one at once (KIP-345).
			// Next-gen: it leaves with epoch -2 and its replacement takes
			// its place (a crashed static member's instance would be held
			// until its session expired: UNRELEASED_INSTANCE_ID).
			if p == kgotest.NextGen {
				g.leave("m4")
			} else {
				g.crash("m4")
			}
			g.start("m4", "static-m4")
			g.waitConverged("static m4 restarts")

			g.start("m0", "")
			g.start("m1", "")
			g.waitConverged("m0 and m1 come back")

			// Rolling restart: each member in turn.
			for _, n := range names {
				g.leave(n)
				g.start(n, g.static[n])
				g.waitConverged("rolling restart of " + n)
			}
			g.judge()
			g.finish()
		})
	}
}

// TestRealClientsInstalled runs the same consumers against the
// coordinators installed in kfake's own listener through its control
// hooks: join, consume, commit and leave, with the history judged.
func TestRealClientsInstalled(t *testing.T) {
	for _, p := range []kgotest.Protocol{kgotest.Eager, kgotest.Cooperative, kgotest.NextGen} {
		t.Run(p.String(), func(t *testing.T) {
			t.Parallel()
			g := newClientGroup(t, viaInstall, p, envConfig{}, clientTopics)
			for _, n := range []string{"m0", "m1", "m2", "m3", "m4"} {
				g.start(n, "")
			}
			g.waitConverged("five join")
			g.leave("m2")
			g.waitConverged("m2 leaves")
			g.judge()
			g.finish()
		})
	}
}

// TestBrokenCoordinatorCaught proves the check can fail: with the
// coordinator's AssignBeforeRelease fault, a joining member is given
// partitions in the heartbeat that computes the new target, before their
// owner has even heard it must revoke them. Porcupine must reject the
// history and write its visualization.
func TestBrokenCoordinatorCaught(t *testing.T) {
	rec := kgotest.NewRecorder("g", clientTopics).ObservesCoordinator()
	dir := t.TempDir()
	e := newEnvTopics(t, viaFront, envConfig{observer: rec, nextgen: nextgen.CoordinatorConfig{Faults: nextgenAssignBeforeRelease}}, clientTopics)
	g := &clientGroup{t: t, topics: clientTopics, e: e, rec: rec, protocol: kgotest.NextGen, members: map[string]*kgotest.Member{}, static: map[string]string{}}
	g.start("m0", "")
	g.waitConverged("m0 joins")
	for _, n := range []string{"m1", "m2", "m3"} {
		g.start(n, "")
		time.Sleep(time.Second)
	}
	rec.Quiet()
	res, err := ownership.Check(rec.History(), ownership.Options{Name: "broken", HTMLDir: dir, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.Linearizable != "Illegal" {
		t.Fatalf("porcupine accepted a history of a coordinator that assigns before release:\n%s", res)
	}
	info, err := os.Stat(res.HTMLPath)
	if err != nil || info.Size() == 0 {
		t.Fatalf("no visualization written: %q %v", res.HTMLPath, err)
	}
	t.Logf("porcupine rejected the history (%d resources); visualization: %s", len(res.IllegalResources), res.HTMLPath)
}

// TestKgoStaticLeave pins what franz-go v1.22.3 does when a static
// next-gen member closes: its leave heartbeat has MemberEpoch -2 but no
// InstanceId (kgo's leave848 never sets it), which Kafka refuses
// (GroupMetadataManager.throwIfConsumerGroupHeartbeatRequestIsInvalid:
// "InstanceId can't be null.", in every release since KIP-848's static
// membership) and so does this coordinator. The member therefore stays
// at its epoch, holding its partitions, until its session expires,
// instead of parking at -2 for its replacement. If this test fails, kgo
// has changed: a static leave that parks the member is Kafka's intended
// behaviour, and the test should then assert that instead.
func TestKgoStaticLeave(t *testing.T) {
	g := newClientGroup(t, viaFront, kgotest.NextGen, envConfig{}, spec.Topics{"orders": 4})
	g.start("a", "static-a")
	g.start("b", "")
	g.waitConverged("two join")
	var id spec.MemberID
	var epoch spec.Epoch
	n := g.e.server.NextGen("g")
	n.Inspect(t.Context(), func(c *nextgen.Coordinator) {
		for _, m := range c.Members() {
			if s, _ := c.Member(m); s.InstanceID == "static-a" {
				id, epoch = m, s.Epoch
			}
		}
	})
	g.leave("a")
	var after nextgen.CoordinatorMemberSnapshot
	var found bool
	n.Inspect(t.Context(), func(c *nextgen.Coordinator) { after, found = c.Member(id) })
	if !found || after.Epoch != epoch {
		t.Fatalf("after kgo's static leave the member is %+v (found %t), want it still at epoch %d: kgo now leaves with its instance id", after, found, epoch)
	}
	// Its session (3 s) then expires, and the group converges without it.
	g.waitConverged("after the static member's session expired")
}

// TestPartitionsAdded: partitions added through the broker's API
// (CreatePartitions, by franz-go's admin client) reach the consumer
// group's coordinator, whose members are given them, whichever way the
// coordinators are put in front of kfake: the Front sees the request pass
// through, Install watches it with a control hook.
func TestPartitionsAdded(t *testing.T) {
	for _, how := range []endpoint{viaFront, viaInstall} {
		t.Run(how.String(), func(t *testing.T) {
			t.Parallel()
			grown := spec.Topics{"orders": 8}
			rec := kgotest.NewRecorder("g", spec.Topics{"orders": 4}).ObservesCoordinator()
			e := newEnvTopics(t, how, envConfig{observer: rec}, spec.Topics{"orders": 4})
			g := &clientGroup{t: t, topics: spec.Topics{"orders": 4}, e: e, rec: rec, protocol: kgotest.NextGen, members: map[string]*kgotest.Member{}, static: map[string]string{}}
			g.start("a", "")
			g.start("b", "")
			g.waitConverged("two join over 4 partitions")
			adm, err := kgo.NewClient(kgo.SeedBrokers(e.seeds...))
			if err != nil {
				t.Fatal(err)
			}
			defer adm.Close()
			if _, err := kadm.NewClient(adm).UpdatePartitions(t.Context(), 8, "orders"); err != nil {
				t.Fatal(err)
			}
			g.topics = grown
			rec.TopicsGrew(grown)
			g.waitConverged("the topic grew to 8 partitions")
			g.judge()
		})
	}
}
