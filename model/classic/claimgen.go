package classic

import (
	"fmt"
	"strings"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/spec"
)

// ClaimGeneration says which generation a member reports, in its JoinGroup
// subscription, for the resources it claims to own. It is not a fault:
// each value is how real Kafka consumers of some release behaved, and the
// assignors resolve conflicting claims by it (assign.ResolveClaims).
type ClaimGeneration uint8

const (
	// ClaimAtJoined reports the generation the member last joined (at least
	// the one its resources were assigned in): Kafka's ConsumerCoordinator
	// since KIP-792 (Kafka 3.4, KAFKA-13715), which puts generation().
	// generationId in the subscription's generationId field. The default.
	ClaimAtJoined ClaimGeneration = iota
	// ClaimAtAssigned reports the generation of the last assignment the
	// process applied (spec.NoGeneration before its first): Kafka's
	// CooperativeStickyAssignor before KIP-792, whose subscriptionUserData
	// encodes the generation onAssignment recorded (KAFKA-12984, Kafka 3.0
	// to 3.3). A member whose SyncGroup was cut short (REBALANCE_IN_PROGRESS)
	// then joins the next round claiming at an older generation than the
	// members that completed the last one.
	ClaimAtAssigned
)

var claimGenerations = node.Enum[ClaimGeneration]{Type: "claim-generation", Names: []string{"joined", "assigned"}}

// String is the value's name: "joined" or "assigned".
func (g ClaimGeneration) String() string { return claimGenerations.Name(g) }

// ParseClaimGeneration returns the ClaimGeneration named name; "" is the
// default, ClaimAtJoined. Any other name is an error that lists the valid
// ones.
func ParseClaimGeneration(name string) (ClaimGeneration, error) {
	if name == "" {
		return ClaimAtJoined, nil
	}
	for i, n := range claimGenerations.Names {
		if n == name {
			return ClaimGeneration(i), nil
		}
	}
	return 0, fmt.Errorf("claim-generation %q: want %s", name, strings.Join(claimGenerations.Names, " or "))
}

// claimGeneration is the generation the member reports for its claims, as
// cfg.ClaimGeneration says.
func (m *Member) claimGeneration() spec.Generation {
	if m.cfg.ClaimGeneration == ClaimAtAssigned {
		return m.lastCompleted
	}
	return max(m.generation, m.ownedGen)
}
