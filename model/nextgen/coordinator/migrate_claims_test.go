package coordinator

import (
	"reflect"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestKeptClaims: under UpgradeKeepsClaims, the upgrade of a classic group
// in PreparingRebalance takes the claims of members without a stored
// assignment; of two claims of a partition the later generation's stands,
// two of one generation leave it to neither, and a stored assignment
// outranks every claim. Without the option, or in another state, there
// are no claims (Kafka's conversion).
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
	g.State = classic.GroupStable
	if got := keptClaims(CoordinatorConfig{UpgradeKeepsClaims: true}, g); got != nil {
		t.Errorf("a stable group: claims %v, want none", got)
	}
}
