package nextgen

import (
	"errors"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/model/assign"
	"github.com/rebalance-ref/rebalance/spec"
)

// named is an assignor of the caller's: a function with a name.
type named struct {
	name string
	f    func(assign.Group) (spec.Assignment, error)
}

func (a named) Name() string                                   { return a.name }
func (a named) Assign(g assign.Group) (spec.Assignment, error) { return a.f(g) }

// TestServerAssignorValues: an assignor value of the caller's is supported
// under its name, is the default when Assignors is empty, and replaces a
// built-in of the same name.
func TestServerAssignorValues(t *testing.T) {
	topics := spec.Topics{"foo": 2, "bar": 2}
	mine := named{"mine", assign.ServerRange().Assign}
	h := newHarness(t, CoordinatorConfig{Topics: topics, ServerAssignors: []assign.Assignor{mine}})
	h.step(0, Receive{From: "A", Msg: join("A", "foo", "bar")})
	h.step(10, Receive{From: "B", Msg: join("B", "foo", "bar")})
	if got := h.Node.Target().String(); got != "A:{bar-0 foo-0} B:{bar-1 foo-1}" {
		t.Fatalf("target %s, want mine's (range's)", got)
	}
	// A value named "uniform" replaces the built-in uniform.
	r := newHarness(t, CoordinatorConfig{Topics: topics, Assignors: []string{"uniform"}, ServerAssignors: []assign.Assignor{named{"uniform", assign.ServerRange().Assign}}})
	r.step(0, Receive{From: "A", Msg: join("A", "foo", "bar")})
	r.step(10, Receive{From: "B", Msg: join("B", "foo", "bar")})
	if got := r.Node.Target().String(); got != "A:{bar-0 foo-0} B:{bar-1 foo-1}" {
		t.Fatalf("target %s, want the replacement's (range's)", got)
	}
}

// TestBadServerAssignorIsContained: an assignor that panics, fails, gives
// an illegal assignment or writes to its input fails the heartbeat that
// needed it with UNKNOWN_SERVER_ERROR and changes nothing in the
// coordinator; the next heartbeat that does not ask for it goes through.
func TestBadServerAssignorIsContained(t *testing.T) {
	for _, bad := range []named{
		{"panics", func(assign.Group) (spec.Assignment, error) { panic("boom") }},
		{"fails", func(assign.Group) (spec.Assignment, error) { return nil, errors.New("no") }},
		{"twice", func(g assign.Group) (spec.Assignment, error) {
			out := spec.Assignment{}
			for _, m := range g.Members {
				out[m.ID] = spec.NewSet(spec.TP("foo", 0))
			}
			return out, nil
		}},
		{"unsubscribed", func(g assign.Group) (spec.Assignment, error) {
			return spec.Assignment{g.Members[0].ID: spec.NewSet(spec.TP("bar", 0))}, nil
		}},
		{"writes-its-input", func(g assign.Group) (spec.Assignment, error) {
			g.Topics["foo"] = 99
			delete(g.Topics, "bar")
			return nil, errors.New("and fails")
		}},
	} {
		t.Run(bad.name, func(t *testing.T) {
			h := newHarness(t, CoordinatorConfig{Topics: spec.Topics{"foo": 2, "bar": 2}, Assignors: []string{"uniform", bad.name}, ServerAssignors: []assign.Assignor{bad}})
			h.step(0, Receive{From: "A", Msg: join("A", "foo")})
			before := h.Node.String()
			r := join("B", "foo")
			r.ServerAssignor = ptr(bad.name)
			out := h.step(10, Receive{From: "B", Msg: r})
			resp := out.Messages[0].Msg.(HeartbeatResponse)
			if resp.Error != spec.UnknownServerError || !strings.Contains(resp.ErrorMessage, "Failed to compute a new target assignment") {
				t.Fatalf("response %s, want UNKNOWN_SERVER_ERROR", resp)
			}
			if after := h.Node.String(); after != before {
				t.Fatalf("the failed heartbeat changed the coordinator:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if len(out.Timers) != 0 {
				t.Fatalf("the failed heartbeat touched timers: %v", out.Timers)
			}
			out = h.step(20, Receive{From: "B", Msg: join("B", "foo")})
			if resp := out.Messages[0].Msg.(HeartbeatResponse); resp.Error != spec.None {
				t.Fatalf("B's next join: %s", resp)
			}
			if got := h.Node.Target().String(); got != "A:{foo-0} B:{foo-1}" && got != "A:{foo-1} B:{foo-0}" {
				t.Fatalf("target %s after the good join", got)
			}
		})
	}
}

// TestServerAssignorConfigErrors: nonsensical assignor values are refused.
func TestServerAssignorConfigErrors(t *testing.T) {
	good := named{"mine", assign.ServerRange().Assign}
	for _, tc := range []struct {
		name string
		cfg  CoordinatorConfig
		want string
	}{
		{"nil", CoordinatorConfig{ServerAssignors: []assign.Assignor{nil}}, "ServerAssignors[0] is nil"},
		{"unnamed", CoordinatorConfig{ServerAssignors: []assign.Assignor{named{" ", good.f}}}, "empty name"},
		{"twice", CoordinatorConfig{ServerAssignors: []assign.Assignor{good, good}}, `two ServerAssignors are named "mine"`},
		{"unlisted", CoordinatorConfig{Assignors: []string{"uniform"}, ServerAssignors: []assign.Assignor{good}}, "which Assignors does not list"},
		{"unknown name", CoordinatorConfig{Assignors: []string{"yours"}, ServerAssignors: []assign.Assignor{good}}, `unknown server assignor "yours" (known: uniform, range, mine)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.GroupID = "g"
			_, err := NewCoordinator(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
