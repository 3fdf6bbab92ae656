package crosscheck

import (
	"reflect"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestClassicSnapshots checks the accessors the classic projection reads
// (classic.Coordinator.Snapshot, classic.Member.Snapshot) on a group of
// two members driven message by message to a stable generation: after
// every step they agree with the nodes' other accessors, and they are
// copies (scribbling over one changes neither the node nor the next
// snapshot).
func TestClassicSnapshots(t *testing.T) {
	c, err := classic.NewCoordinator(classic.CoordinatorConfig{GroupID: "g"})
	if err != nil {
		t.Fatal(err)
	}
	members := map[string]*classic.Member{}
	for _, name := range []string{"A", "B"} {
		m, err := classic.NewMember(classic.MemberConfig{Name: name, Topics: []string{"T"},
			Protocols: []classic.Protocol{policy.Cooperative()}, Metadata: spec.Topics{"T": 2}})
		if err != nil {
			t.Fatal(err)
		}
		members[name] = m
	}
	var inflight []classic.Envelope
	step := func(name string, in classic.Input) {
		var out classic.Output
		if name == classic.CoordinatorNode {
			out = c.Step(in)
		} else {
			out = members[name].Step(in)
		}
		inflight = append(inflight, out.Messages...)
	}
	sawParked, sawLastSync := false, false
	check := func() {
		t.Helper()
		cs, before := c.Snapshot(), c.Snapshot()
		d := c.Describe()
		var ids []spec.MemberID
		for i, m := range cs.Members {
			ids = append(ids, m.ID)
			md := d.Members[i]
			if m.ID != md.ID || m.Node != c.MemberNode(m.ID) || m.Assignment != md.Assignment ||
				!slices.Equal(m.Protocols, md.Protocols) || m.Join.Parked != md.AwaitingJoin || m.Sync.Parked != md.AwaitingSync {
				t.Fatalf("coordinator snapshot of %s %+v disagrees with Describe %+v", m.ID, m, md)
			}
			for _, p := range []classic.ParkedRequest{m.Join, m.Sync} {
				if !p.Parked && p != (classic.ParkedRequest{}) {
					t.Fatalf("%s: a request not parked has fields: %+v", m.ID, p)
				}
				sawParked = sawParked || p.Parked
			}
		}
		if !slices.Equal(ids, c.Members()) || len(cs.Instances) != 0 || cs.Instances == nil {
			t.Fatalf("coordinator snapshot %+v: members %v", cs, c.Members())
		}
		for _, m := range cs.Members {
			for i := range m.Protocols {
				m.Protocols[i].Metadata = "scribbled"
			}
		}
		cs.Instances["x"] = "X-1"
		if !reflect.DeepEqual(c.Snapshot(), before) {
			t.Fatal("scribbling over a coordinator snapshot changes the coordinator")
		}
		for name, m := range members {
			ms := m.Snapshot()
			v := m.View()
			if ms.OwnedGeneration != v.Generation || !m.Owned().Union(ms.Kept).Equal(v.Owns) || len(ms.Kept) != 0 {
				t.Fatalf("%s: snapshot %+v disagrees with view %+v", name, ms, v)
			}
			if ms.LastSync.Seq != 0 {
				t.Fatalf("%s: the stored SyncGroup has Seq %d", name, ms.LastSync.Seq)
			}
			want := m.Snapshot()
			ms.Kept = append(ms.Kept, spec.Resource{Topic: "scribbled"})
			for i := range ms.LastSync.Assignments {
				sawLastSync = true
				ms.LastSync.Assignments[i].Assignment = "scribbled"
			}
			if !reflect.DeepEqual(m.Snapshot(), want) {
				t.Fatalf("%s: scribbling over a member snapshot changes the member", name)
			}
		}
	}
	step("A", classic.Input{Event: classic.Start{}})
	step("B", classic.Input{Event: classic.Start{}})
	check()
	for i := 0; len(inflight) > 0; i++ {
		if i == 100 {
			t.Fatal("no quiet after 100 deliveries")
		}
		e := inflight[0]
		inflight = inflight[1:]
		step(e.To, classic.Input{Event: classic.Receive{From: e.From, Msg: e.Msg}})
		check()
	}
	for name, m := range members {
		if m.State() != classic.Stable {
			t.Fatalf("%s ends %s", name, m.State())
		}
		if ms := m.Snapshot(); ms.Leader != c.Leader() || ms.OwnedLeader != c.Leader() || ms.JoinSeq != 0 || ms.SyncSeq != 0 {
			t.Fatalf("%s ends with snapshot %+v, coordinator leader %s", name, ms, c.Leader())
		}
	}
	if !sawParked || !sawLastSync {
		t.Fatalf("the run parked no request (%t) or stored no leader's SyncGroup (%t)", sawParked, sawLastSync)
	}
}
