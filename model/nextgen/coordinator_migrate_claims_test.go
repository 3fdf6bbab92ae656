package nextgen

import (
	"reflect"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestKeptClaims: under UpgradeKeepsClaims, the upgrade of a classic group
// in PreparingRebalance or Stable takes the members' claims; of two claims
// of a partition the later generation's stands, two of one generation
// leave it to neither, and a stored assignment outranks every claim.
// Without the option, or in CompletingRebalance, there are no claims
// (Kafka's conversion; FromClassicGroup's own rule for that state).
func TestKeptClaims(t *testing.T) {
	sub := func(gen spec.Generation, owned ...spec.Resource) []classic.ProtocolMetadata {
		md := classic.Subscription{Topics: []string{"T"}, Owned: spec.NewSet(owned...), Generation: gen}.Encode()
		return []classic.ProtocolMetadata{{Name: "cooperative", Metadata: md}}
	}
	t0, t1, t2, t3 := spec.TP("T", 0), spec.TP("T", 1), spec.TP("T", 2), spec.TP("T", 3)
	g := classic.CoordinatorSnapshot{
		State: classic.GroupPreparingRebalance, Generation: 3, ProtocolType: "consumer", Protocol: "cooperative",
		Members: []classic.CoordinatorMemberSnapshot{
			{ID: "A-1", Protocols: sub(2, t0, t1)}, // T-1 also claimed by B at 1: A's, later
			{ID: "B-2", Protocols: sub(1, t1, t2)}, // T-2 also claimed by C at 1: a tie
			{ID: "C-3", Protocols: sub(1, t2)},     //
			{ID: "D-4", Protocols: sub(2, t3)},     // T-3 is in E's stored assignment
			{ID: "E-5", Protocols: sub(2), Assignment: classic.Assignment{Assigned: spec.NewSet(t3)}.Encode()},
		},
	}
	want := map[spec.MemberID]spec.Set{"A-1": spec.NewSet(t0, t1)}
	if got := keptClaims(CoordinatorConfig{UpgradeKeepsClaims: true}, g); !reflect.DeepEqual(got, want) {
		t.Errorf("claims %v, want %v", got, want)
	}
	if got := keptClaims(CoordinatorConfig{}, g); got != nil {
		t.Errorf("without the option: claims %v, want none", got)
	}
	g.State = classic.GroupCompletingRebalance
	if got := keptClaims(CoordinatorConfig{UpgradeKeepsClaims: true}, g); got != nil {
		t.Errorf("a group completing its rebalance: claims %v, want none", got)
	}
	// A stable group: a member with a stored assignment keeps what it
	// claims beyond it that nobody's stored assignment has (the partition
	// a cooperative round told it to revoke and withheld from everybody).
	g = classic.CoordinatorSnapshot{
		State: classic.GroupStable, Generation: 2, ProtocolType: "consumer", Protocol: "cooperative",
		Members: []classic.CoordinatorMemberSnapshot{
			{ID: "C-1", Protocols: sub(1, t0, t1, t2, t3), Assignment: classic.Assignment{Assigned: spec.NewSet(t0, t1, t2)}.Encode()},
			{ID: "A-2", Protocols: sub(-1), Assignment: classic.Assignment{}.Encode()},
		},
	}
	want = map[spec.MemberID]spec.Set{"C-1": spec.NewSet(t3)}
	if got := keptClaims(CoordinatorConfig{UpgradeKeepsClaims: true}, g); !reflect.DeepEqual(got, want) {
		t.Errorf("a stable group: claims %v, want %v", got, want)
	}
}
