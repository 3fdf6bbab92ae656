package cost

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	"github.com/rebalance-ref/rebalance/model/node"
	"github.com/rebalance-ref/rebalance/model/sim"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestStepIntoIsStep: the engine steps every node into one Output it
// passes again and again (StepInto); a run whose nodes return a fresh
// output from Step at every step instead gives the same Result, for every
// protocol and workload, with slow revocations (so that callbacks and held
// sends interleave) and with the default timing. An output list that kept
// an element of the step before, or a Round or Target that outlived its
// step, would count a message, a timer or a round twice.
func TestStepIntoIsStep(t *testing.T) {
	for _, p := range Protocols() {
		for _, w := range workloads() {
			for _, slow := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s-%d/slow=%v", p, w.Kind, w.Count, slow), func(t *testing.T) {
					cfg := Config{Protocol: p, Members: 4, Topics: 2, Partitions: 6, Workload: w, Seed: 5, KeepOwnership: true}
					if slow {
						cfg.Timing.Revocation = 1500
					}
					want, err := runViaStep(cfg)
					if err != nil {
						t.Fatal(err)
					}
					got := mustRun(t, cfg)
					if !reflect.DeepEqual(got, want) {
						t.Errorf("StepInto and Step differ:\nStepInto %+v\nStep     %+v", got.Metrics, want.Metrics)
					}
				})
			}
		}
	}
}

// runViaStep is Run with every node stepped by Step (viaStep).
func runViaStep(cfg Config) (Result, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return Result{}, err
	}
	if cfg.Protocol == "nextgen" {
		return run[nextgen.Message, nextgen.Timer, nextgen.Callback](cfg, viaStep[nextgen.Message, nextgen.Timer, nextgen.Callback]{nextgenFamily{t: cfg.Timing}})
	}
	f, err := newClassicFamily(cfg.Protocol, cfg.Timing, cfg.MaxMovesPerRound)
	if err != nil {
		return Result{}, err
	}
	return run[classic.Message, classic.Timer, classic.Callback](cfg, viaStep[classic.Message, classic.Timer, classic.Callback]{f})
}

// viaStep is a family whose nodes' StepInto is their Step: each step's
// output gets lists of its own, as the closed world's do.
type viaStep[M fmt.Stringer, T sim.Timer, C fmt.Stringer] struct{ family[M, T, C] }

// stepper is a node's Step.
type stepper[M fmt.Stringer, T sim.Timer, C fmt.Stringer] interface {
	Step(node.Input) node.Output[M, T, C]
}

func (f viaStep[M, T, C]) newCoordinator(cfg Config, topics spec.Topics) (coordNode[M, T, C], error) {
	c, err := f.family.newCoordinator(cfg, topics)
	if err != nil {
		return nil, err
	}
	return stepCoord[M, T, C]{c}, nil
}

func (f viaStep[M, T, C]) newMember(name, instance string, topics []string, inc int, meta spec.Topics) (memberNode[M, T, C], error) {
	m, err := f.family.newMember(name, instance, topics, inc, meta)
	if err != nil {
		return nil, err
	}
	return stepMember[M, T, C]{m}, nil
}

type stepCoord[M fmt.Stringer, T sim.Timer, C fmt.Stringer] struct{ coordNode[M, T, C] }

func (c stepCoord[M, T, C]) StepInto(in node.Input, out *node.Output[M, T, C]) {
	*out = c.coordNode.(stepper[M, T, C]).Step(in)
}

type stepMember[M fmt.Stringer, T sim.Timer, C fmt.Stringer] struct{ memberNode[M, T, C] }

func (m stepMember[M, T, C]) StepInto(in node.Input, out *node.Output[M, T, C]) {
	*out = m.memberNode.(stepper[M, T, C]).Step(in)
}
