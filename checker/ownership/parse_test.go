package ownership

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/rebalance-ref/rebalance/spec"
)

// parseHistory reads the test form of a history: a "topics" line
// (name=partitions ...), a "subs" line (process=topic,topic ...) and one
// observation per line in the form spec.Observation.String prints:
//
//	topics t=2
//	subs A=t B=t
//	[0] joined member=A-1
//	[1..3] A assigned {t-0 t-1} member=A-1 gen=1
//
// Blank lines and lines starting with '#' are skipped.
func parseHistory(text string) (spec.History, error) {
	h := spec.History{Topics: spec.Topics{}, Subscriptions: map[string][]string{}}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := parseLine(&h, line); err != nil {
			return spec.History{}, fmt.Errorf("line %d %q: %w", n+1, line, err)
		}
	}
	return h, nil
}

func parseLine(h *spec.History, line string) error {
	if rest, ok := strings.CutPrefix(line, "topics "); ok {
		for _, f := range strings.Fields(rest) {
			name, count, _ := strings.Cut(f, "=")
			c, err := strconv.ParseInt(count, 10, 32)
			if err != nil {
				return err
			}
			h.Topics[name] = int32(c)
		}
		return nil
	}
	if rest, ok := strings.CutPrefix(line, "subs "); ok {
		for _, f := range strings.Fields(rest) {
			name, topics, _ := strings.Cut(f, "=")
			h.Subscriptions[name] = strings.FieldsFunc(topics, func(r rune) bool { return r == ',' })
		}
		return nil
	}
	o, err := parseObservation(line)
	if err != nil {
		return err
	}
	if o.Kind == spec.Joined || o.Kind == spec.Removed {
		// A text history observes the coordinator when it lists any of its
		// membership changes.
		h.CoordinatorObserved = true
	}
	h.Observations = append(h.Observations, o)
	return nil
}

func parseObservation(line string) (spec.Observation, error) {
	o := spec.Observation{Generation: spec.NoGeneration}
	span, rest, ok := strings.Cut(strings.TrimPrefix(line, "["), "]")
	if !ok || !strings.HasPrefix(line, "[") {
		return o, fmt.Errorf("want [call] or [call..return] first")
	}
	call, ret, isSpan := strings.Cut(span, "..")
	if !isSpan {
		ret = call
	}
	c, err := strconv.ParseInt(call, 10, 64)
	if err != nil {
		return o, err
	}
	r, err := strconv.ParseInt(ret, 10, 64)
	if err != nil {
		return o, err
	}
	o.Call, o.Return = spec.Nanos(c), spec.Nanos(r)
	if i := strings.IndexByte(rest, '{'); i >= 0 {
		j := strings.IndexByte(rest, '}')
		if j < i {
			return o, fmt.Errorf("unclosed set")
		}
		if o.Resources, err = spec.ParseSet(rest[i : j+1]); err != nil {
			return o, err
		}
		rest = rest[:i] + rest[j+1:]
	}
	for _, f := range strings.Fields(rest) {
		switch {
		case strings.HasPrefix(f, "member="):
			o.Member = spec.MemberID(strings.TrimPrefix(f, "member="))
		case strings.HasPrefix(f, "gen="):
			g, err := strconv.ParseInt(strings.TrimPrefix(f, "gen="), 10, 32)
			if err != nil {
				return o, err
			}
			o.Generation = spec.Generation(g)
		case kindOf(f) != 0:
			o.Kind = kindOf(f)
		case o.Kind == 0 && o.Process == "":
			o.Process = f
		default:
			return o, fmt.Errorf("unexpected %q", f)
		}
	}
	if o.Kind == 0 {
		return o, fmt.Errorf("no observation kind")
	}
	return o, nil
}

func kindOf(name string) spec.ObservationKind {
	for k := spec.Assigned; k <= spec.Quiet; k++ {
		if k.String() == name {
			return k
		}
	}
	return 0
}

func mustHistory(t testing.TB, text string) spec.History {
	t.Helper()
	h, err := parseHistory(text)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestParseRoundTrip: the test form reads back what Observation.String
// prints, so histories in failure reports can be pasted into tests.
func TestParseRoundTrip(t *testing.T) {
	for _, line := range []string{
		"[1200..1350] A assigned {t-0 t-1} member=A-1 gen=2",
		"[5] joined member=A-1",
		"[7] A crashed",
		"[9] quiet",
		"[10..12] B lost {u-3} member=B-2",
	} {
		o, err := parseObservation(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if got := o.String(); got != line {
			t.Errorf("parse(%q).String() = %q", line, got)
		}
	}
}
