package world

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/canon"
	"github.com/rebalance-ref/rebalance/model/nextgen"
	core "github.com/rebalance-ref/rebalance/model/world"
)

func defaultModel(t *testing.T, o CheckOptions) *Model {
	t.Helper()
	cfg, err := CheckWorld(o)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func encode(m *Model, s *State) []byte {
	e := &canon.Encoder{}
	m.Encode(e, s)
	return bytes.Clone(e.Finish())
}

// TestModelSetup checks that the default world builds: its initial state
// is converged and quiet, and the joiner may join.
func TestModelSetup(t *testing.T) {
	for _, faults := range []nextgen.Fault{0, nextgen.AssignBeforeRelease} {
		o := DefaultCheckOptions()
		o.Faults = faults
		m := defaultModel(t, o)
		s := m.Init()[0]
		if v := m.Converged(s); len(v) > 0 {
			t.Errorf("faults %s: initial state not converged: %v\n%s", faults, v, s.W.Ownership())
		}
		if len(s.W.InFlight) > 0 || len(s.W.Violations) > 0 || len(s.W.Log) > 0 {
			t.Errorf("faults %s: initial state has %d messages in flight, %d violations, %d log lines", faults, len(s.W.InFlight), len(s.W.Violations), len(s.W.Log))
		}
		if got := len(s.W.Processes); got != o.Members-o.Joins {
			t.Errorf("faults %s: %d processes, want %d", faults, got, o.Members-o.Joins)
		}
		joins := 0
		for _, a := range m.Actions(s, nil) {
			if a.Kind == Join {
				joins++
				if line := m.Line(s, a); !strings.HasPrefix(line, "add-member "+a.Member+" ") {
					t.Errorf("join line %q", line)
				}
			}
		}
		if joins != o.Joins {
			t.Errorf("faults %s: %d join actions, want %d", faults, joins, o.Joins)
		}
	}
}

// TestCheckWorldErrors checks that nonsensical options are refused.
func TestCheckWorldErrors(t *testing.T) {
	for name, change := range map[string]func(*CheckOptions){
		"no members":      func(o *CheckOptions) { o.Members = 0 },
		"too many":        func(o *CheckOptions) { o.Members = 20 },
		"joins > members": func(o *CheckOptions) { o.Joins = 4 },
		"negative joins":  func(o *CheckOptions) { o.Joins = -1 },
		"no topics":       func(o *CheckOptions) { o.Topics = 0 },
		"seven topics":    func(o *CheckOptions) { o.Topics = 7 },
		"no partitions":   func(o *CheckOptions) { o.Partitions = 0 },
		"negative crash":  func(o *CheckOptions) { o.Crashes = -1 },
		"negative drops":  func(o *CheckOptions) { o.Drops = -1 },
		"negative max":    func(o *CheckOptions) { o.MaxRounds = -1 },
		"unknown fault":   func(o *CheckOptions) { o.Faults = 1 << 20 },
	} {
		o := DefaultCheckOptions()
		change(&o)
		if _, err := CheckWorld(o); err == nil {
			t.Errorf("%s: CheckWorld(%+v) accepted", name, o)
		}
	}
	if _, err := NewModel(CheckConfig{Setup: []string{"group topics=(T:1)"}}); err == nil {
		t.Error("NewModel accepted max-rounds 0")
	}
	if _, err := NewModel(CheckConfig{MaxRounds: 1, Setup: []string{"group topics=(T:1)"}, Joiners: []string{"crash A"}}); err == nil {
		t.Error("NewModel accepted a joiner that is not an add-member command")
	}
}

// TestStepKeepsInput walks the default world breadth-first for a few
// thousand states and checks, on every step, that Step leaves its input
// state as it was (same encoding, same previous view), and that every
// action leaves the world's previous view equal to its view, which is
// what lets Encode leave the previous view out.
func TestStepKeepsInput(t *testing.T) {
	m := defaultModel(t, DefaultCheckOptions())
	init := m.Init()[0]
	if !reflect.DeepEqual(init.W.Prev(), init.W.View()) {
		t.Fatal("initial state: previous view differs from the view")
	}
	seen := map[string]bool{string(encode(m, init)): true}
	frontier := []*State{init}
	steps := 0
	for len(frontier) > 0 && len(seen) < 3000 {
		var next []*State
		for _, s := range frontier {
			for _, a := range m.Actions(s, nil) {
				before := encode(m, s)
				prev := s.W.Prev()
				t2, _ := m.Step(s, a)
				steps++
				if after := encode(m, s); !bytes.Equal(before, after) {
					t.Fatalf("Step %s changed its input state", m.Line(s, a))
				}
				if !reflect.DeepEqual(prev, s.W.Prev()) {
					t.Fatalf("Step %s changed its input's previous view", m.Line(s, a))
				}
				if !reflect.DeepEqual(t2.W.Prev(), t2.W.View()) {
					t.Fatalf("after %s: previous view differs from the view:\n%v\n%v", m.Line(s, a), t2.W.Prev(), t2.W.View())
				}
				if k := string(encode(m, t2)); !seen[k] {
					seen[k] = true
					next = append(next, t2)
				}
			}
		}
		frontier = next
	}
	if steps < 3000 {
		t.Fatalf("only %d steps taken", steps)
	}
}

// TestFairKeysDistinct checks that no two own actions of a state share a
// fairness key, including duplicated responses.
func TestFairKeysDistinct(t *testing.T) {
	o := DefaultCheckOptions()
	o.Duplicates = 1
	m := defaultModel(t, o)
	frontier := m.Init()
	seen := map[string]bool{}
	dups := 0
	for len(frontier) > 0 && len(seen) < 3000 {
		var next []*State
		for _, s := range frontier {
			keys := map[uint64]string{}
			for _, a := range m.Actions(s, nil) {
				if m.Kind(a) != core.Own {
					continue
				}
				k := m.FairKey(s, a)
				if other, ok := keys[k]; ok {
					t.Fatalf("%s and %s have the same fairness key", other, m.Line(s, a))
				}
				keys[k] = m.Line(s, a)
			}
			for i, e := range s.W.InFlight {
				for _, f := range s.W.InFlight[:i] {
					if reflect.DeepEqual(e, f) {
						dups++
					}
				}
			}
			for _, a := range m.Actions(s, nil) {
				t2, _ := m.Step(s, a)
				if k := string(encode(m, t2)); !seen[k] {
					seen[k] = true
					next = append(next, t2)
				}
			}
		}
		frontier = next
	}
	if dups == 0 {
		t.Error("no state with a duplicated message was met")
	}
}
