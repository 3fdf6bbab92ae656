package franzgo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rebalance-ref/rebalance/spec"
)

// kfakeMember is one kgo consumer in the test and what it owns by its own
// callbacks.
type kfakeMember struct {
	name string
	bal  *KgoBalancer
	cl   *kgo.Client
	done chan struct{}
}

// ownership is what every member owns by its callbacks, and the first
// time two live members owned one partition at once.
type ownership struct {
	mu      sync.Mutex
	owns    map[string]spec.Set
	overlap string
}

func (o *ownership) change(name string, ps map[string][]int32, add bool) {
	var rs []spec.Resource
	for t, parts := range ps {
		for _, p := range parts {
			rs = append(rs, spec.TP(t, p))
		}
	}
	s := spec.NewSet(rs...)
	o.mu.Lock()
	defer o.mu.Unlock()
	if !add {
		o.owns[name] = o.owns[name].Minus(s)
		return
	}
	for other, os := range o.owns {
		if x := os.Intersect(s); other != name && !x.IsEmpty() && o.overlap == "" {
			o.overlap = fmt.Sprintf("%s was assigned %s while %s owned it", name, x, other)
		}
	}
	o.owns[name] = o.owns[name].Union(s)
}

// exact reports whether the members named own every partition of want
// exactly once between them, and describes what they own.
func (o *ownership) exact(names []string, want spec.Set) (bool, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var all spec.Set
	n := 0
	var desc []string
	for _, name := range names {
		all = all.Union(o.owns[name])
		n += o.owns[name].Len()
		desc = append(desc, fmt.Sprintf("%s:%s", name, o.owns[name]))
	}
	return all.Equal(want) && n == want.Len(), strings.Join(desc, " ")
}

// TestKgoOnKfake runs each of our balancers in three real kgo consumers on
// a kfake cluster (loopback): once every partition is owned exactly once
// by the members' own callbacks and the members agree on the generation,
// a member that is not the leader leaves, and the other two must own
// everything exactly once again. No two members may own a partition at
// once at any time. Deferred and incremental must hold the leaver's
// partitions back (a round with LeaderResult.Held) and hand them out after
// their delay, which only the attached client's ForceRebalance can end.
func TestKgoOnKfake(t *testing.T) {
	start := time.Now()
	t.Cleanup(func() { t.Logf("whole test: %v", time.Since(start).Round(time.Millisecond)) })
	for _, c := range ourBalancers() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runKfake(t, c.name, c.make)
		})
	}
}

func runKfake(t *testing.T, name string, mk func() *KgoBalancer) {
	const topic, parts, group = "t", 12, "g"
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(parts, topic), kfake.GroupMinSessionTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	own := &ownership{owns: map[string]spec.Set{}}
	want := spec.Range(topic, 0, parts-1)

	var members []*kfakeMember
	for _, mname := range []string{"A", "B", "C"} {
		m := &kfakeMember{name: mname, bal: mk(), done: make(chan struct{})}
		opts := []kgo.Opt{
			kgo.SeedBrokers(c.ListenAddrs()...),
			kgo.ClientID(mname),
			kgo.ConsumerGroup(group),
			kgo.ConsumeTopics(topic),
			kgo.Balancers(m.bal),
			kgo.DisableAutoCommit(),
			kgo.FetchMaxWait(100 * time.Millisecond),
			kgo.SessionTimeout(6 * time.Second),
			kgo.HeartbeatInterval(100 * time.Millisecond),
			kgo.RebalanceTimeout(5 * time.Second),
			kgo.RetryBackoffFn(func(int) time.Duration { return 100 * time.Millisecond }),
			kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { own.change(mname, ps, true) }),
			kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { own.change(mname, ps, false) }),
			kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { own.change(mname, ps, false) }),
		}
		if os.Getenv("FRANZGO_KGO_LOG") != "" {
			// Debugging: kgo's own log of the group's life, per member.
			opts = append(opts, kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelInfo, func() string {
				return fmt.Sprintf("%s %s %s: ", time.Now().Format("15:04:05.000"), name, mname)
			})))
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			t.Fatal(err)
		}
		m.cl = cl
		m.bal.AttachClient(cl)
		go func() {
			defer close(m.done)
			for !cl.PollFetches(ctx).IsClientClosed() && ctx.Err() == nil {
			}
		}()
		members = append(members, m)
	}
	defer func() {
		for _, m := range members {
			m.bal.AttachClient(nil)
			m.cl.Close()
			<-m.done
		}
	}()

	names := func(ms []*kfakeMember) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.name)
		}
		return out
	}
	// settled polls until the members own want exactly once and agree on
	// their generation, both for 500 ms on end.
	settled := func(ms []*kfakeMember, what string) time.Time {
		t.Helper()
		var since time.Time
		for {
			ok, desc := own.exact(names(ms), want)
			gens := map[int32]bool{}
			for _, m := range ms {
				_, g := m.cl.GroupMetadata()
				gens[g] = true
			}
			ok = ok && len(gens) == 1
			switch {
			case !ok:
				since = time.Time{}
			case since.IsZero():
				since = time.Now()
			case time.Since(since) >= 500*time.Millisecond:
				return since
			}
			select {
			case <-ctx.Done():
				t.Fatalf("%s: %s: not settled in time: %s; generations %v", name, what, desc, gens)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	settled(members, "three members")

	// Leave with a member that is not the leader, so that the leader
	// keeps its memory.
	leader := members[0].bal.leaderID()
	victim := -1
	for i, m := range members {
		if id, _ := m.cl.GroupMetadata(); spec.MemberID(id) != leader {
			victim = i
			break
		}
	}
	if victim < 0 {
		t.Fatalf("no member other than the leader %q", leader)
	}
	var lb *KgoBalancer
	for _, m := range members {
		if id, _ := m.cl.GroupMetadata(); spec.MemberID(id) == leader {
			lb = m.bal
		}
	}
	if lb == nil {
		t.Fatalf("the leader %q is none of the members", leader)
	}
	heldBefore := lb.stats().heldRounds
	v := members[victim]
	v.bal.AttachClient(nil)
	stopped := time.Now()
	// Close revokes (the callback), leaves the group and shuts the client
	// down, which takes longer than the leave; watch the others meanwhile.
	closed := make(chan time.Duration, 1)
	go func() {
		v.cl.Close()
		<-v.done
		closed <- time.Since(stopped)
	}()
	rest := append(append([]*kfakeMember(nil), members[:victim]...), members[victim+1:]...)
	members = rest // the deferred close skips the victim
	took := settled(rest, "after "+v.name+" left").Sub(stopped)
	closing := <-closed
	st := lb.stats()
	t.Logf("%s: %s left (Close took %v); the other two owned all %d partitions again %v after the Close began; leader: %d rounds, %d holding back since the leave; delays armed by the leader's member: %d",
		name, v.name, closing.Round(time.Millisecond), parts, took.Round(time.Millisecond), st.rounds, st.heldRounds-heldBefore, st.delays)
	if name == "deferred" || name == "incremental" {
		if st.heldRounds == heldBefore {
			t.Errorf("%s: no round held the leaver's partitions back", name)
		}
		if took < time.Second {
			t.Errorf("%s: covered again %v after the leave, before the 1.5 s delay could run out", name, took)
		}
	}
	own.mu.Lock()
	overlap := own.overlap
	own.mu.Unlock()
	if overlap != "" {
		t.Errorf("%s: two members owned a partition at once: %s", name, overlap)
	}
}

// leaderID is the leader of the last assignment b parsed.
func (b *KgoBalancer) leaderID() spec.MemberID {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.leader
}

type balancerStats struct{ rounds, heldRounds, delays int }

func (b *KgoBalancer) stats() balancerStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return balancerStats{b.rounds, b.heldRounds, b.delays}
}

// TestKgoBalanceErrorOnKfake: a protocol that cannot assign makes the
// leader's BalanceOrError fail; kgo must hand that error to the
// application (PollFetches, as a *kgo.ErrGroupSession) and nobody may own
// anything.
func TestKgoBalanceErrorOnKfake(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "t"), kfake.GroupMinSessionTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	own := &ownership{owns: map[string]spec.Set{}}
	got := make(chan error, 16)
	var clients []*kgo.Client
	var wg sync.WaitGroup
	for _, name := range []string{"A", "B"} {
		cl, err := kgo.NewClient(
			kgo.SeedBrokers(c.ListenAddrs()...),
			kgo.ConsumerGroup("g"),
			kgo.ConsumeTopics("t"),
			kgo.Balancers(ProtocolBalancer(badProtocol{"error"})),
			kgo.DisableAutoCommit(),
			kgo.SessionTimeout(6*time.Second),
			kgo.HeartbeatInterval(100*time.Millisecond),
			kgo.RetryBackoffFn(func(int) time.Duration { return 200 * time.Millisecond }),
			kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { own.change(name, ps, true) }),
		)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, cl)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				fs := cl.PollFetches(ctx)
				if fs.IsClientClosed() || ctx.Err() != nil {
					return
				}
				for _, fe := range fs.Errors() {
					select {
					case got <- fe.Err:
					default:
					}
				}
			}
		}()
	}
	defer func() {
		for _, cl := range clients {
			cl.Close()
		}
		wg.Wait()
	}()
	select {
	case err := <-got:
		var gs *kgo.ErrGroupSession
		if !errors.As(err, &gs) || !strings.Contains(err.Error(), "cannot assign") {
			t.Errorf("PollFetches error %v (%T), want an ErrGroupSession with the protocol's error", err, err)
		}
		t.Logf("the application sees: %v", err)
	case <-ctx.Done():
		t.Fatal("no error reached PollFetches")
	}
	if ok, desc := own.exact([]string{"A", "B"}, nil); !ok {
		t.Errorf("partitions owned although no round succeeded: %s", desc)
	}
}
