package assign

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// TestServerUniformHeterogeneousOracleLarge compares the heterogeneous
// builder with the oracle's (oldUniformHeterogeneous) on groups larger than
// the rapid properties draw: many members per subscription class, topics
// shared by several classes (so subscriber lists are shared and their
// sorted caches are reused across topics and passes), previous targets
// that leave loads far apart (so the builder's comparison-sort fallback
// runs), and a chain of recomputations feeding each result back.
func TestServerUniformHeterogeneousOracleLarge(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 17))
		g := srvRandomHeteroGroup(rng)
		if err := ValidateGroup(g); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for step := range 3 {
			got, gotConverged, gotErr := uniformHeterogeneous(g)
			want, wantConverged, wantErr := oldUniformHeterogeneous(g)
			if gotErr != nil || wantErr != nil {
				t.Fatalf("seed %d step %d: errors %v, %v", seed, step, gotErr, wantErr)
			}
			if gotConverged != wantConverged || !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d step %d: differs from the oracle (converged %v, oracle %v)", seed, step, gotConverged, wantConverged)
			}
			for i := range g.Members {
				g.Members[i].Owned = got[g.Members[i].ID]
			}
		}
	}
}

// srvRandomHeteroGroup draws a valid group of up to 300 members in up to 12
// subscriptions (most members share their subscription's slice, some have
// their own copy), over up to 40 topics,
// with previous targets drawn at random: a few members own a lot (loads
// spread over more levels than the members of a topic) and targets may
// overlap.
func srvRandomHeteroGroup(rng *rand.Rand) Group {
	g := Group{Topics: spec.Topics{}}
	topics := 1 + rng.IntN(40)
	var names []string
	for k := range topics {
		name := fmt.Sprintf("t%03d", k)
		names = append(names, name)
		g.Topics[name] = int32(rng.IntN(300)) // some topics have none
	}
	classes := make([][]string, 1+rng.IntN(12))
	for c := range classes {
		for _, name := range names {
			if rng.IntN(3) == 0 {
				classes[c] = append(classes[c], name)
			}
		}
	}
	members := 1 + rng.IntN(300)
	for i := range members {
		m := Member{ID: spec.MemberID(fmt.Sprintf("m%04d", i)), Topics: classes[rng.IntN(len(classes))], Generation: spec.NoGeneration}
		if rng.IntN(4) == 0 {
			m.Topics = slices.Clone(m.Topics) // same subscription, its own slice
		}
		greedy := rng.IntN(20) == 0
		var owned []spec.Resource
		for _, name := range names {
			n := int(g.Topics[name])
			for p := range n {
				if (greedy && rng.IntN(2) == 0) || rng.IntN(4*members+1) == 0 {
					owned = append(owned, spec.Resource{Topic: name, Partition: int32(p)})
				}
			}
		}
		m.Owned = spec.Set(owned)
		g.Members = append(g.Members, m)
	}
	return g
}
