package kafkaserver

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rebalance-ref/rebalance/impl/kgotest"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestNextGenZombieCommitIsRejected: on the wire, the next-gen
// coordinator refuses the commit of a zombie (a kgo consumer that crashed
// and was removed when its session expired, committing under its old
// member id and epoch: UNKNOWN_MEMBER_ID), and the offset is not stored.
// This is what spec.ZombieCommitRejected asks of the coordinator. A live
// member's commits are judged by KIP-1251's rule: at an epoch newer than
// its own, refused; at an older epoch, refused for a partition it was
// assigned after that epoch (the zombie's, taken over when it was
// fenced) and accepted for one it held since; at its own epoch,
// accepted.
func TestNextGenZombieCommitIsRejected(t *testing.T) {
	topics := spec.Topics{"t": 4}
	rec := kgotest.NewRecorder("ng", topics).ObservesCoordinator()
	e := newEnvTopics(t, viaFront, envConfig{observer: rec}, topics)
	live := adminMember(t, rec, e.seeds, "ng", "n0", true)
	defer live.Leave()
	zombie := adminMember(t, rec, e.seeds, "ng", "n1", true)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	// epochs returns each member's epoch at the coordinator once the group
	// is stable with want members.
	epochs := func(want int) (map[spec.MemberID]spec.Epoch, error) {
		out := map[spec.MemberID]spec.Epoch{}
		g := e.server.NextGen("ng")
		if g == nil {
			return nil, fmt.Errorf("no group ng yet")
		}
		var state nextgen.GroupState
		err := g.Inspect(ctx, func(c *nextgen.Coordinator) {
			state = c.State()
			for _, id := range c.Members() {
				m, _ := c.Member(id)
				out[id] = m.Epoch
			}
		})
		if err == nil && (state != nextgen.GroupStable || len(out) != want) {
			err = fmt.Errorf("group %s with %d members, want STABLE with %d", state, len(out), want)
		}
		return out, err
	}
	var before map[spec.MemberID]spec.Epoch
	eventually(t, "two members stable", func() (err error) { before, err = epochs(2); return err })
	zombieID, _ := zombie.Client.GroupMetadata()
	liveID, _ := live.Client.GroupMetadata()
	zombieEpoch, ok := before[spec.MemberID(zombieID)]
	if !ok {
		t.Fatalf("member %q of the crashing client not in the group %v", zombieID, before)
	}

	zombie.Crash()
	var after map[spec.MemberID]spec.Epoch
	eventually(t, "the crashed member removed", func() (err error) { after, err = epochs(1); return err })
	liveEpoch := after[spec.MemberID(liveID)]
	// The live member's partitions by the epoch it was assigned them at:
	// the zombie's at liveEpoch, its own from before.
	var taken, kept spec.Resource
	var keptAt spec.Epoch
	if err := e.server.NextGen("ng").Inspect(ctx, func(c *nextgen.Coordinator) {
		m, _ := c.Member(spec.MemberID(liveID))
		for _, a := range m.AssignmentEpochs {
			if a.Epoch == liveEpoch {
				taken = a.Partition
			} else {
				kept, keptAt = a.Partition, a.Epoch
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if taken.Topic == "" || kept.Topic == "" || keptAt >= liveEpoch {
		t.Fatalf("the live member at epoch %d: want a partition assigned then and one assigned before (got %s and %s@%d)", liveEpoch, taken, kept, keptAt)
	}

	cl, err := kgo.NewClient(kgo.SeedBrokers(e.seeds...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	commit := func(member string, epoch spec.Epoch, p spec.Resource, offset int64) spec.ErrorCode {
		t.Helper()
		req := kmsg.NewPtrOffsetCommitRequest()
		req.Group, req.MemberID, req.Generation = "ng", member, int32(epoch)
		req.Topics = []kmsg.OffsetCommitRequestTopic{{Topic: p.Topic, TopicID: e.cluster.TopicInfo(p.Topic).TopicID,
			Partitions: []kmsg.OffsetCommitRequestTopicPartition{{Partition: int32(p.Partition), Offset: offset}}}}
		resp, err := cl.Request(ctx, req)
		return spec.ErrorCode(errCodeOf(t, resp, err))
	}
	stored := func(p spec.Resource) int64 {
		t.Helper()
		o, err := e.server.NextGen("ng").Offsets(ctx, []spec.Resource{p})
		if err != nil {
			t.Fatal(err)
		}
		return o[p].Offset
	}
	for _, c := range []struct {
		name      string
		member    string
		epoch     spec.Epoch
		partition spec.Resource
		offset    int64
		want      spec.ErrorCode
	}{
		{"the zombie, at the epoch it last knew", zombieID, zombieEpoch, taken, 1_000_001, spec.UnknownMemberID},
		{"the live member, a newer epoch than its own", liveID, liveEpoch + 1, kept, 1_000_002, spec.StaleMemberEpoch},
		{"the live member, a partition it was assigned after the epoch sent", liveID, liveEpoch - 1, taken, 1_000_003, spec.StaleMemberEpoch},
		{"the live member, a partition it held at the older epoch sent", liveID, keptAt, kept, 1_000_004, spec.None},
		{"the live member at its epoch", liveID, liveEpoch, taken, 1_000_005, spec.None},
	} {
		if got := commit(c.member, c.epoch, c.partition, c.offset); got != c.want {
			t.Errorf("%s (epoch %d, %s): got %s, want %s", c.name, c.epoch, c.partition, got, c.want)
		}
		if got := stored(c.partition); (got == c.offset) != (c.want == spec.None) {
			t.Errorf("%s: the stored offset of %s is %d after a commit of %d answered %s", c.name, c.partition, got, c.offset, c.want)
		}
	}
}
