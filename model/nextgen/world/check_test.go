package world

import (
	"testing"

	core "github.com/rebalance-ref/rebalance/model/world"
)

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
	if _, err := NewModel(core.CheckConfig{Setup: []string{"group topics=(T:1)"}}); err == nil {
		t.Error("NewModel accepted max-rounds 0")
	}
	if _, err := NewModel(core.CheckConfig{MaxRounds: 1, Setup: []string{"group topics=(T:1)"}, Joiners: []string{"crash A"}}); err == nil {
		t.Error("NewModel accepted a joiner that is not an add-member command")
	}
}
