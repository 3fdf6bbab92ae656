package world

import (
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/classic"
	"github.com/rebalance-ref/rebalance/model/classic/policy"
)

// TestCheckWorldOptions: each built-in protocol's checked members carry
// the settings of exactly the options it takes, and an option a protocol
// does not take, or a setting whose effect the protocol does not have, is
// refused with the built-in protocols that do take it, listed from what
// they state of themselves.
func TestCheckWorldOptions(t *testing.T) {
	for _, c := range []struct {
		protocol string
		set      func(*CheckOptions)
		want     string // a member's settings, or the error
	}{
		{"eager", nil, "rebalance=3000\n"},
		{"cooperative", nil, "rebalance=3000\n"},
		{"deferred", nil, "rebalance=3000 delay=3000 backoff=1000\n"},
		{"incremental", nil, "rebalance=3000 delay=3000 moves=1 step-delay=1000\n"},
		{"incremental", func(o *CheckOptions) { o.MaxDelay = -1 }, "rebalance=3000 delay=off moves=1 step-delay=1000\n"},
		{"deferred", func(o *CheckOptions) { o.MaxDelay = 500; o.LeaderFailover = "delay-if-departed" }, "rebalance=3000 delay=500 backoff=1000 leader-failover=delay-if-departed\n"},
		{"cooperative", func(o *CheckOptions) { o.ClaimGeneration = "assigned" }, "rebalance=3000 claim-generation=assigned\n"},
		{"eager", func(o *CheckOptions) { o.MaxDelay = 500 }, "max-delay: protocol eager has no scheduled delay (deferred and incremental only)"},
		{"cooperative", func(o *CheckOptions) { o.LeaderFailover = "delay-if-departed" }, "leader-failover: protocol cooperative has no leader failover rule (deferred and incremental only)"},
		{"deferred", func(o *CheckOptions) { o.ClaimGeneration = "assigned" }, "protocol deferred settles no claims by generation (cooperative only)"},
		{"cooperative", func(o *CheckOptions) { o.Connectors, o.Tasks = 1, 1 }, "connectors = 1: protocol cooperative does not run Kafka Connect's assignor; connectors and tasks are for deferred and incremental"},
		{"sticky", nil, `protocol "sticky": want eager, cooperative, deferred or incremental`},
	} {
		o := DefaultCheckOptions()
		if c.set != nil {
			c.set(&o)
		}
		cfg, err := CheckWorld(c.protocol, o)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			// The first member's line: its settings after the timeouts.
			line := cfg.Setup[1]
			got = line[strings.Index(line, "rebalance="):] + "\n"
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.protocol, got, c.want)
		}
	}
}

// TestProtocolFacts: of the built-in protocols only cooperative settles
// claims by generation, and only the two Connect designs assign
// connectors; a custom cooperative protocol states neither.
func TestProtocolFacts(t *testing.T) {
	var got []string
	for _, b := range builtins {
		p, err := b.build(ProtocolOptions{}, policy.ReassignImmediately)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b.name+":"+yesNo(resolvesClaims(p))+yesNo(assignsConnectors(p)))
	}
	if g := strings.Join(got, " "); g != "eager:-- cooperative:y- deferred:-y incremental:-y" {
		t.Errorf("claims, connectors: %s", g)
	}
	custom := policy.CooperativeWith(nil)
	if resolvesClaims(custom) || assignsConnectors(custom) {
		t.Error("a custom cooperative protocol states facts it never declared")
	}
	if _, ok := custom.(classic.ClaimResolver); ok {
		t.Error("CooperativeWith is a ClaimResolver")
	}
	// A protocol may implement the interfaces and answer no.
	if p := (declines{custom}); resolvesClaims(p) || assignsConnectors(p) {
		t.Error("a protocol that declines is taken at its type, not its word")
	}
	// The lists: "and" for some, "or" for all of them.
	for want, keep := range map[string]func(builtin) bool{
		"eager, deferred and incremental":             func(b builtin) bool { return b.name != "cooperative" },
		"eager, cooperative, deferred or incremental": func(builtin) bool { return true },
		"deferred": func(b builtin) bool { return b.name == "deferred" },
		"":         func(builtin) bool { return false },
	} {
		if got := builtinNames(keep); got != want {
			t.Errorf("builtinNames = %q, want %q", got, want)
		}
	}
}

// declines is a protocol that implements ClaimResolver and ConnectAssigner
// and answers no to both.
type declines struct{ classic.Protocol }

func (declines) ResolvesClaimsByGeneration() bool { return false }
func (declines) AssignsConnectors() bool          { return false }

func yesNo(b bool) string {
	if b {
		return "y"
	}
	return "-"
}
