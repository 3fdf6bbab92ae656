package node_test

// An external test: package nodetest, which this test uses, imports
// package node.

import (
	"reflect"
	"testing"

	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/node/nodetest"
)

// TestTimerSlotEncoded: both families' member encoders write a TimerSlot
// field by field (their timer loops in EncodeCanon); a field added here
// must be written there.
func TestTimerSlotEncoded(t *testing.T) {
	nodetest.CheckEncoders(t, nodetest.Encoded{
		Type:    reflect.TypeFor[node.TimerSlot](),
		Encoder: "the timer loop of classic's and nextgen's Member.EncodeCanon",
		Handled: 2,
	})
}
