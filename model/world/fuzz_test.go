package world_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	classicworld "github.com/rebalance-ref/rebalance/model/classic/world"
	ngworld "github.com/rebalance-ref/rebalance/model/nextgen/world"
	"github.com/rebalance-ref/rebalance/model/script"
)

// Limits that keep one fuzzed scenario well under 100 ms: the input's
// size and number of commands, the time all its ticks advance, the
// partitions of a topic (or tasks of a connector), and the shortest
// timeout or interval a command may set (a 1 ms heartbeat over a long
// tick fires millions of timers).
const (
	fuzzMaxBytes      = 2048
	fuzzMaxLines      = 60
	fuzzMaxTicks      = 300000
	fuzzMaxPartitions = 16
	fuzzMinTimeout    = 500
)

// timing is the arguments of group, add-member and bounce that set a
// timeout, interval or delay in milliseconds.
var timing = map[string]bool{"session": true, "session-min": true, "session-max": true, "heartbeat": true,
	"rebalance": true, "request": true, "delay": true, "step-delay": true}

// scenarioCommands returns the commands of a scenario file: each line a
// "----" follows that is not a comment.
func scenarioCommands(text string) []string {
	lines := strings.Split(text, "\n")
	var out []string
	for i, l := range lines[:max(len(lines)-1, 0)] {
		if lines[i+1] == "----" && l != "" && l != "----" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// seedScenarios adds the commands of every scenario and counterexample
// file under dir, one per line, and writes the same as seeds.
func seedScenarios(f *testing.F, dir string) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.txt"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no scenario files in %s: %v", dir, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if cmds := scenarioCommands(string(b)); len(cmds) <= fuzzMaxLines {
			f.Add(strings.Join(cmds, "\n"))
		}
	}
}

// boundedScenario returns the command lines of in, and false when in is
// past the limits above, or holds a line no scenario file can hold as a
// command (a comment, the separator "----"). Lines that do not parse are
// kept: ScenarioFile must refuse them.
func boundedScenario(in string) ([]string, bool) {
	if len(in) > fuzzMaxBytes {
		return nil, false
	}
	lines := strings.Split(in, "\n")
	if len(lines) > fuzzMaxLines {
		return nil, false
	}
	var ticks int64
	for _, l := range lines {
		if strings.HasPrefix(l, "#") || l == "----" {
			return nil, false
		}
		cmd, args, err := script.ParseLine(l)
		if err != nil {
			continue
		}
		for i, a := range args {
			if cmd == "tick" && i == 0 && a.Vals == nil {
				if n, err := strconv.ParseInt(a.Key, 10, 64); err == nil {
					ticks += max(n, 0)
					if ticks > fuzzMaxTicks || n > fuzzMaxTicks {
						return nil, false
					}
				}
			}
			for _, v := range a.Vals {
				if a.Key == "topics" || a.Key == "connectors" {
					_, count, _ := strings.Cut(v, ":")
					if n, err := strconv.ParseInt(count, 10, 64); err == nil && n > fuzzMaxPartitions {
						return nil, false
					}
					continue
				}
				if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 && n < fuzzMinTimeout && timing[a.Key] {
					return nil, false
				}
			}
		}
	}
	return lines, true
}

// fuzzScenario is the property of the scenario-language targets: running
// the commands through the family's interpreter (ScenarioFile, what
// rebalance check writes counterexamples with) never panics; it fails,
// with an error, exactly when a line does not parse; it is deterministic;
// and the file it writes, under a counterexample header, reads back with
// script.ParseCounterexample (what rebalance replay reads) as the same
// commands, the printouts "ownership" and "check" left out.
func fuzzScenario(t *testing.T, protocol string, scenarioFile func(comment, lines []string) (string, error), in string) {
	lines, ok := boundedScenario(in)
	if !ok {
		t.Skip("past the fuzzing limits")
	}
	var parseErr error
	for _, l := range lines {
		if _, _, err := script.ParseLine(l); err != nil {
			parseErr = err
			break
		}
	}
	comment := []string{"Counterexample found by rebalance check --protocol " + protocol + ":", "FuzzLaw: fuzzed"}
	text, err := scenarioFile(comment, lines)
	switch {
	case parseErr != nil && err == nil:
		t.Fatalf("line does not parse (%v), but ScenarioFile took it:\n%s", parseErr, text)
	case parseErr == nil && err != nil:
		t.Fatalf("every line parses, but ScenarioFile failed: %v", err)
	case err != nil:
		if err.Error() != parseErr.Error() {
			t.Fatalf("ScenarioFile failed with %v, want the parse error %v", err, parseErr)
		}
		return
	}
	again, err := scenarioFile(comment, lines)
	if err != nil || again != text {
		t.Fatalf("a second run differs (error %v):\nfirst:\n%s\nsecond:\n%s", err, text, again)
	}
	ce, err := script.ParseCounterexample(text)
	if err != nil {
		t.Fatalf("the file does not read as a counterexample: %v\n%s", err, text)
	}
	want := slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return l == "ownership" || l == "check" })
	if ce.Protocol != protocol || ce.Law != "FuzzLaw" || !slices.Equal(ce.Commands, want) {
		t.Fatalf("the file reads back as %s %s %q, want %q\n%s", ce.Protocol, ce.Law, ce.Commands, want, text)
	}
}

// FuzzClassicScenario runs fuzzed command lines through the classic
// family's scenario interpreter; the property is fuzzScenario's.
func FuzzClassicScenario(f *testing.F) {
	seedScenarios(f, classicData)
	f.Add("group topics=(T:2) connectors=(C:2)\nadd-member A protocols=(incremental) topics=(T,C) delay=off\nstabilize\nbounce A protocols=(deferred)\ntick 3000\nownership\ncheck")
	f.Fuzz(func(t *testing.T, in string) {
		fuzzScenario(t, "eager", classicworld.ScenarioFile, in)
	})
}

// FuzzNextgenScenario runs fuzzed command lines through the next-gen
// family's scenario interpreter; the property is fuzzScenario's.
func FuzzNextgenScenario(f *testing.F) {
	seedScenarios(f, nextgenData)
	f.Add("group topics=(foo:3) before=(kafka-19233)\nadd-member A topics=(foo) slow\nadd-member B topics=(foo)\nstabilize\nadd-partition foo\nrevoked A\ntick 5000\ncheck")
	f.Fuzz(func(t *testing.T, in string) {
		fuzzScenario(t, "nextgen", ngworld.ScenarioFile, in)
	})
}
