package world

import (
	"reflect"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/spec"
)

// TestSameConfig: two configurations built alike are the same but for
// their names, whichever built-in protocols they run (each built apart,
// as each scripted member's are); a change to any other field makes them
// differ; a protocol whose value cannot be compared makes them differ
// without a panic.
func TestSameConfig(t *testing.T) {
	// SameConfig names every field; one added to classic.MemberConfig must
	// be compared there before this count is raised.
	if n := reflect.TypeOf(classic.MemberConfig{}).NumField(); n != 12 {
		t.Fatalf("classic.MemberConfig has %d fields; SameConfig compares 12 (Name by leaving it out)", n)
	}
	memo := &classic.RoundMemo{}
	build := func(name string, protocols ...string) classic.MemberConfig {
		ps, err := Protocols(protocols, ProtocolOptions{MaxDelay: 3000, MaxMoves: 1})
		if err != nil {
			t.Fatal(err)
		}
		return classic.MemberConfig{Name: name, Topics: []string{"T"}, Protocols: ps, SessionTimeout: 2000,
			Metadata: spec.Topics{"T": 2}, Memo: memo}
	}
	f := Family{}
	for _, b := range builtins {
		if !f.SameConfig(build("A", b.name), build("B", b.name)) {
			t.Errorf("%s: two members built alike differ", b.name)
		}
	}
	base := build("A", "cooperative", "eager")
	for name, change := range map[string]func(*classic.MemberConfig){
		"InstanceID":        func(c *classic.MemberConfig) { c.InstanceID = "a" },
		"ProtocolType":      func(c *classic.MemberConfig) { c.ProtocolType = "connect" },
		"Topics":            func(c *classic.MemberConfig) { c.Topics = []string{"U"} },
		"Protocols":         func(c *classic.MemberConfig) { c.Protocols = c.Protocols[:1] },
		"protocol order":    func(c *classic.MemberConfig) { c.Protocols = []classic.Protocol{c.Protocols[1], c.Protocols[0]} },
		"protocol options":  func(c *classic.MemberConfig) { *c = build("A", "cooperative", "deferred") },
		"SessionTimeout":    func(c *classic.MemberConfig) { c.SessionTimeout++ },
		"RebalanceTimeout":  func(c *classic.MemberConfig) { c.RebalanceTimeout++ },
		"HeartbeatInterval": func(c *classic.MemberConfig) { c.HeartbeatInterval++ },
		"Metadata":          func(c *classic.MemberConfig) { c.Metadata = spec.Topics{"T": 3} },
		"ClaimGeneration":   func(c *classic.MemberConfig) { c.ClaimGeneration = classic.ClaimAtAssigned },
		"Faults":            func(c *classic.MemberConfig) { c.Faults = classic.SkipGenerationCheck },
		"Memo":              func(c *classic.MemberConfig) { c.Memo = &classic.RoundMemo{} },
	} {
		other := build("B", "cooperative", "eager")
		change(&other)
		if f.SameConfig(base, other) || f.SameConfig(other, base) {
			t.Errorf("%s differs, yet the configurations are the same", name)
		}
	}
	delayed := func(d classic.Millis) classic.MemberConfig {
		ps, _ := Protocols([]string{"deferred"}, ProtocolOptions{MaxDelay: d})
		return classic.MemberConfig{Protocols: ps}
	}
	if f.SameConfig(delayed(1000), delayed(2000)) {
		t.Error("deferred protocols with different delays are the same")
	}
	empty := classic.MemberConfig{Topics: []string{}, Protocols: []classic.Protocol{}, Metadata: spec.Topics{}}
	if !f.SameConfig(empty, classic.MemberConfig{}) {
		t.Error("an empty list or map differs from none")
	}
	odd := classic.MemberConfig{Protocols: []classic.Protocol{uncomparable{table: []int{1}}}}
	if f.SameConfig(odd, odd) {
		t.Error("a protocol that cannot be compared is the same as itself")
	}
}

// uncomparable is a protocol whose value == cannot compare (it holds a
// slice).
type uncomparable struct {
	classic.Protocol
	table []int
}
