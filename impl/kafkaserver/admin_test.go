package kafkaserver

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rebalance-ref/rebalance/checker/ownership"
	"github.com/rebalance-ref/rebalance/impl"
	"github.com/rebalance-ref/rebalance/impl/kgotest"
	"github.com/rebalance-ref/rebalance/spec"
)

// multiObserver tells every observer.
type multiObserver []impl.Observer

func (m multiObserver) Membership(group string, member spec.MemberID, joined bool, at time.Time) {
	for _, o := range m {
		o.Membership(group, member, joined, at)
	}
}

// adminMember starts a recorded consumer in group over topic t: classic
// with kgo's range balancer, or next-gen (KIP-848) asking the coordinator
// for its server-side range assignor.
func adminMember(t *testing.T, rec *kgotest.Recorder, seeds []string, group, name string, nextgen bool) *kgotest.Member {
	t.Helper()
	cfg := kgotest.MemberConfig{Name: name, Seeds: seeds, Group: group, Topics: []string{"t"}, Protocol: kgotest.Eager,
		SessionTimeout: 3 * time.Second, HeartbeatInterval: 200 * time.Millisecond, Opts: []kgo.Opt{kgo.ClientID("raw-" + group)}}
	if nextgen {
		cfg.Protocol = kgotest.NextGen
		cfg.Opts = append(cfg.Opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()))
	}
	m, err := kgotest.Start(rec, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// eventually polls cond every 50 ms for up to 30 s.
func eventually(t *testing.T, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		if err = cond(); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: %v", what, err)
}

// TestAdminAPIs drives the administrative group APIs with franz-go's admin
// client against a classic group and a consumer group (the latter asking
// for the server-side range assignor): ListGroups, DescribeGroups,
// ConsumerGroupDescribe (each family refused by the other's API),
// commits from outside group management to a new "simple" group, and
// DeleteGroups of a non-empty and of an empty group.
func TestAdminAPIs(t *testing.T) {
	topics := spec.Topics{"t": 4}
	recs := map[string]*kgotest.Recorder{"cg": kgotest.NewRecorder("cg", topics).ObservesCoordinator(), "ng": kgotest.NewRecorder("ng", topics).ObservesCoordinator()}
	e := newEnvTopics(t, viaFront, envConfig{observer: multiObserver{recs["cg"], recs["ng"]}}, topics)
	adm, err := kgo.NewClient(kgo.SeedBrokers(e.seeds...))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	ac := kadm.NewClient(adm)
	ctx := t.Context()

	members := []*kgotest.Member{
		adminMember(t, recs["cg"], e.seeds, "cg", "c0", false), adminMember(t, recs["cg"], e.seeds, "cg", "c1", false),
		adminMember(t, recs["ng"], e.seeds, "ng", "n0", true), adminMember(t, recs["ng"], e.seeds, "ng", "n1", true),
	}

	eventually(t, "both groups listed as Stable", func() error {
		listed, err := ac.ListGroups(ctx)
		if err != nil {
			return err
		}
		if listed["cg"].State != "Stable" || listed["ng"].State != "Stable" || listed["cg"].ProtocolType != "consumer" || listed["ng"].ProtocolType != "consumer" {
			return errors.New("not yet: " + listed["cg"].State + "/" + listed["ng"].State)
		}
		return nil
	})
	eventually(t, "the classic group described with every partition assigned once", func() error {
		ds, err := ac.DescribeGroups(ctx, "cg")
		if err != nil {
			return err
		}
		d := ds["cg"]
		if d.Err != nil || d.State != "Stable" || d.Protocol != "range" || len(d.Members) != 2 {
			return errors.New("not yet")
		}
		for _, m := range d.Members {
			if m.ClientID != "raw-cg" || m.ClientHost != "/127.0.0.1" {
				return errors.New("client id or host missing: " + m.ClientID + " " + m.ClientHost)
			}
		}
		if got := d.AssignedPartitions().Sorted(); len(got) != 1 || len(got[0].Partitions) != 4 {
			return errors.New("assignment does not cover t")
		}
		return nil
	})
	eventually(t, "the consumer group described with the server's range assignor", func() error {
		ds, err := ac.DescribeConsumerGroups(ctx, "ng")
		if err != nil {
			return err
		}
		d := ds["ng"]
		if d.Err != nil || d.State != "Stable" || d.AssignorName != "range" || len(d.Members) != 2 || d.Epoch < 1 {
			return errors.New("not yet: " + d.State + " " + d.AssignorName)
		}
		if got := d.AssignedPartitions().Sorted(); len(got) != 1 || len(got[0].Partitions) != 4 {
			return errors.New("assignment does not cover t")
		}
		for _, m := range d.Members {
			if m.ClientID != "raw-ng" || len(m.Assignment["t"]) != 2 {
				return errors.New("a member's client id or assignment is wrong")
			}
		}
		return nil
	})
	// Each family's describe API refuses the other family's group.
	if ds, _ := ac.DescribeGroups(ctx, "ng"); !errors.Is(ds["ng"].Err, kerr.GroupIDNotFound) {
		t.Errorf("DescribeGroups of a consumer group: %v", ds["ng"].Err)
	}
	if ds, _ := ac.DescribeConsumerGroups(ctx, "cg"); !errors.Is(ds["cg"].Err, kerr.GroupIDNotFound) {
		t.Errorf("ConsumerGroupDescribe of a classic group: %v", ds["cg"].Err)
	}

	// A commit from outside group management creates a simple group.
	os := kadm.Offsets{}
	os.Add(kadm.Offset{Topic: "t", Partition: 1, At: 7, LeaderEpoch: -1})
	if resp, err := ac.CommitOffsets(ctx, "simple", os); err != nil || resp.Error() != nil {
		t.Fatalf("simple commit: %v %v", err, resp.Error())
	}
	fetched, err := ac.FetchOffsets(ctx, "simple")
	if err != nil || fetched.Error() != nil {
		t.Fatalf("fetch: %v %v", err, fetched.Error())
	}
	if o, ok := fetched.Lookup("t", 1); !ok || o.At != 7 {
		t.Fatalf("fetched %+v", fetched)
	}
	// A committed offset of a live group is refused to an outsider.
	if resp, err := ac.CommitOffsets(ctx, "cg", os); err == nil && resp.Error() == nil {
		t.Fatal("an outsider's commit to a live classic group was accepted")
	}

	// Both groups' histories, judged while they are quiet and converged.
	for group, rec := range recs {
		rec.Quiet()
		balance := spec.CheckBalance
		if group == "cg" {
			balance = spec.CheckTopicBalance
		}
		ownership.Require(t, rec.History(), ownership.Options{Name: t.Name() + "-" + group, Balance: balance, HTMLDir: artifacts()})
	}

	// DeleteGroups: refused while the group has members, done once empty.
	if resp, err := ac.DeleteGroup(ctx, "cg"); err == nil && resp.Err == nil {
		t.Fatal("a group with members was deleted")
	}
	for _, m := range members {
		m.Leave()
	}
	eventually(t, "the empty groups deleted", func() error {
		resps, err := ac.DeleteGroups(ctx, "cg", "ng", "simple")
		if err != nil {
			return err
		}
		return resps.Error()
	})
	if listed, _ := ac.ListGroups(ctx); len(listed) != 0 {
		t.Fatalf("groups left after deletion: %v", listed)
	}
}
