package node

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

type testState uint8

const (
	stateA testState = iota
	stateB
	stateC
)

var testStates = Machine[testState]{
	Enum:   Enum[testState]{Type: "state", Names: []string{"a", "b", "c"}},
	Owner:  "test: node",
	Moves:  []uint32{stateA: 1 << stateB, stateB: 1<<stateA | 1<<stateC},
	Phases: []Phase{stateA: Rebalancing, stateB: Left},
}

func (s testState) String() string { return testStates.Name(s) }

// TestMachine: names, allowed moves, final states, phases, and the panic of an
// impossible move.
func TestMachine(t *testing.T) {
	if got := fmt.Sprint(stateA, stateC, testState(7)); got != "a c state(7)" {
		t.Errorf("names: %q", got)
	}
	for _, m := range []struct {
		from, to testState
		ok       bool
	}{{stateA, stateB, true}, {stateB, stateC, true}, {stateA, stateC, false}, {stateC, stateA, false}, {7, stateA, false}, {stateA, 40, false}} {
		if got := testStates.Allows(m.from, m.to); got != m.ok {
			t.Errorf("Allows(%s, %s) = %t", m.from, m.to, got)
		}
	}
	if testStates.Final(stateA) || !testStates.Final(stateC) || !testStates.Final(7) {
		t.Error("Final: want only c (and states past the table) final")
	}
	for s, want := range map[testState]Phase{stateA: Rebalancing, stateB: Left, stateC: Active, 7: Active} {
		if got := testStates.Phase(s); got != want {
			t.Errorf("Phase(%s) = %s, want %s", s, got, want)
		}
	}
	for p, done := range map[Phase]bool{Active: false, Rebalancing: false, Settled: false, Left: true, Failed: true} {
		if p.Done() != done {
			t.Errorf("%s: Done = %t", p, !done)
		}
	}
	if got := testStates.Move("x", stateA, stateB, nil); got != stateB {
		t.Errorf("Move = %s", got)
	}
	for _, tc := range []struct {
		name    string
		context fmt.Stringer
		want    string
	}{
		{"x", nil, "test: node x: invalid transition [a -> c]"},
		{"", stateB, "test: node: invalid transition [a -> c]\nb"},
	} {
		func() {
			defer func() {
				if r := recover(); r != tc.want {
					t.Errorf("panic %q, want %q", r, tc.want)
				}
			}()
			testStates.Move(tc.name, stateA, stateC, tc.context)
		}()
	}
}

type testFault uint32

var testFaults = Switches[testFault]{{Fault: 1, Name: "one", Doc: "first"}, {Fault: 4, Name: "three", Doc: "third"}}

// TestSwitches: a fault set prints, parses and tests its bits through
// its table.
func TestSwitches(t *testing.T) {
	if testFaults.All() != 5 {
		t.Errorf("All = %d", testFaults.All())
	}
	if !Has(testFault(5), 4) || Has(testFault(5), 2) || Has(testFault(5), 0) {
		t.Error("Has")
	}
	for f, want := range map[testFault]string{0: "none", 1: "one", 5: "one,three", 2: "none"} {
		if got := testFaults.String(f); got != want {
			t.Errorf("String(%d) = %q, want %q", f, got, want)
		}
	}
	if f, err := testFaults.Parse("three"); f != 4 || err != nil {
		t.Errorf("Parse(three) = %d, %v", f, err)
	}
	if _, err := testFaults.Parse("two"); err == nil || err.Error() != `unknown fault "two" (known: one, three)` {
		t.Errorf("Parse(two): %v", err)
	}
	if f, err := testFaults.ParseAll([]string{"three", "one"}); f != 5 || err != nil {
		t.Errorf("ParseAll = %d, %v", f, err)
	}
	if f, err := testFaults.ParseAll(nil); f != 0 || err != nil {
		t.Errorf("ParseAll(nil) = %d, %v", f, err)
	}
	if _, err := testFaults.ParseAll([]string{"one", "two"}); err == nil {
		t.Error("ParseAll with an unknown name: no error")
	}
}

// TestSubscription: sorted, without duplicates, sharing nothing with its
// argument; an empty name is an error.
func TestSubscription(t *testing.T) {
	in := []string{"U", "T", "U"}
	got, err := Subscription(in)
	if err != nil || !slices.Equal(got, []string{"T", "U"}) || !slices.Equal(in, []string{"U", "T", "U"}) {
		t.Fatalf("Subscription = %v, %v (input now %v)", got, err, in)
	}
	got[0] = "X"
	if in[1] != "T" {
		t.Error("the result shares the input's array")
	}
	if got, err := Subscription(nil); err != nil || len(got) != 0 {
		t.Errorf("Subscription(nil) = %v, %v", got, err)
	}
	if _, err := Subscription([]string{"T", ""}); err == nil || !strings.Contains(err.Error(), "empty topic name") {
		t.Errorf("empty name: %v", err)
	}
}

type testKind uint8

func (k testKind) String() string { return [...]string{"?", "hb", "req"}[k] }

func (testTimer) NodeEvent()           {}
func (t testTimer) String() string     { return "t" + t.k.String() }
func (m testMsg) String() string       { return string(m) }
func (c testCallback) String() string  { return string(c) }
func slotsString(s []TimerSlot) string { return SlotsString[testKind](s) }
func outString(o Output[testMsg, testTimer, testCallback]) string {
	return strings.TrimSpace(o.String())
}

type (
	testTimer    struct{ k testKind }
	testMsg      string
	testCallback string
)

// TestSlots: arming, cancelling and firing a member's own timers, and
// their listing.
func TestSlots(t *testing.T) {
	var slots [3]TimerSlot
	var out Output[testMsg, testTimer, testCallback]
	if got := slotsString(slots[:]); got != " none" {
		t.Errorf("no timers: %q", got)
	}
	ArmSlot(slots[:], testKind(1), testTimer{1}, 100, &out)
	ArmSlot(slots[:], testKind(2), testTimer{2}, 50, &out)
	CancelSlot(slots[:], testKind(2), testTimer{2}, &out)
	CancelSlot(slots[:], testKind(2), testTimer{2}, &out) // not armed: nothing
	out.Send("A", "coordinator", "hello")
	if got, want := outString(out), "send A->coordinator hello\nset thb@100\nset treq@50\ncancel treq"; got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	if got := slotsString(slots[:]); got != " hb@100" {
		t.Errorf("timers: %q", got)
	}
	for _, f := range []struct {
		k    testKind
		now  Millis
		want bool
	}{{1, 99, false}, {2, 200, false}, {3, 200, false}, {7, 200, false}, {1, 100, true}, {1, 200, false}} {
		if got := FireSlot(slots[:], f.k, f.now); got != f.want {
			t.Errorf("FireSlot(%d, %d) = %t, want %t", f.k, f.now, got, f.want)
		}
	}
	if slots[1] != (TimerSlot{}) {
		t.Errorf("a fired slot is not zero: %+v", slots[1])
	}
}

// TestCallbackString: kind, resources and round, labelled by the round's
// type, and the detail only when there is one.
func TestCallbackString(t *testing.T) {
	res := spec.NewSet(spec.Resource{Topic: "T", Partition: 1})
	gen := Callback[testState, spec.Generation]{Kind: stateB, Resources: res, Round: 3}
	if got, want := gen.String(), "b "+res.String()+" gen=3"; got != want {
		t.Errorf("generation callback = %q, want %q", got, want)
	}
	epoch := Callback[testState, spec.Epoch]{Kind: stateB, Resources: res, Round: 3, Detail: "why"}
	if got, want := epoch.String(), "b "+res.String()+" epoch=3: why"; got != want {
		t.Errorf("epoch callback = %q, want %q", got, want)
	}
}

// TestPhaseString: every phase has its name, and a value past them prints
// with its number.
func TestPhaseString(t *testing.T) {
	if got := fmt.Sprint(Active, Rebalancing, Settled, Left, Failed, Phase(9)); got != "active rebalancing settled left failed phase(9)" {
		t.Errorf("phases print %q", got)
	}
}
