package capacity_test

import (
	"fmt"

	"github.com/rebalance-ref/rebalance/fuzz/example/capacity"
	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// A group of three consumers: "big-1" may hold four partitions, the
// others two (Default), and the static member "audit" none.
func Example() {
	a := capacity.New(capacity.Config{
		Default:   2,
		Prefixes:  map[string]int{"big-": 4},
		Instances: map[string]int{"audit": 0},
	})
	both := []string{"orders", "payments"}
	g := assign.Group{
		Topics: spec.Topics{"orders": 6, "payments": 2},
		Members: []assign.Member{
			// big-1 claims three partitions and keeps them.
			{ID: "big-1", Topics: both, Generation: 4, Owned: spec.NewSet(spec.TP("orders", 0), spec.TP("orders", 1), spec.TP("orders", 2))},
			// small-1 claims three, one over its capacity: it keeps the
			// first two, and payments-0 goes to the least loaded member
			// with room, small-2, after orders-5. payments-1 then goes
			// to the only member with room left, big-1.
			{ID: "small-1", Topics: both, Generation: 4, Owned: spec.NewSet(spec.TP("orders", 3), spec.TP("orders", 4), spec.TP("payments", 0))},
			// small-2 has just joined; audit subscribes, and takes nothing.
			{ID: "small-2", Topics: both, Generation: -1},
			{ID: "small-3", InstanceID: "audit", Topics: both, Generation: 4},
		},
	}
	out, err := a.Assign(g)
	if err != nil {
		panic(err)
	}
	for _, m := range g.Members {
		fmt.Printf("%s (capacity %d): %s\n", m.ID, a.Capacity(m), out[m.ID])
	}
	// Output:
	// big-1 (capacity 4): {orders-0 orders-1 orders-2 payments-1}
	// small-1 (capacity 2): {orders-3 orders-4}
	// small-2 (capacity 2): {orders-5 payments-0}
	// small-3 (capacity 0): {}
}
