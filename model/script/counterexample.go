package script

import (
	"fmt"
	"regexp"
	"strings"
)

// Counterexample is what a counterexample file written by rebalance check
// says: the protocol checked, the law broken, and the commands that replay
// it (printouts left out).
type Counterexample struct {
	Protocol string
	Law      string
	Commands []string
}

var counterexampleHeader = regexp.MustCompile(`^# Counterexample found by rebalance check --protocol (\w+)`)

// ParseCounterexample reads a counterexample file: its first comment line
// names the protocol, its second starts with the law, and every line
// followed by "----" is a command. The printouts "ownership" and "check"
// are left out of Commands.
func ParseCounterexample(text string) (Counterexample, error) {
	lines := strings.Split(text, "\n")
	m := counterexampleHeader.FindStringSubmatch(lines[0])
	if m == nil || len(lines) < 2 || !strings.HasPrefix(lines[1], "# ") {
		return Counterexample{}, fmt.Errorf("not a counterexample file: want a first line %q and a second naming the law", "# Counterexample found by rebalance check --protocol P")
	}
	law, _, _ := strings.Cut(strings.TrimPrefix(lines[1], "# "), ":")
	ce := Counterexample{Protocol: m[1], Law: law}
	inOutput := false
	for i, l := range lines {
		switch {
		case inOutput:
			inOutput = l != ""
		case l == "----":
			inOutput = true
		case l != "" && !strings.HasPrefix(l, "#") && i+1 < len(lines) && lines[i+1] == "----":
			if l != "ownership" && l != "check" {
				ce.Commands = append(ce.Commands, l)
			}
		}
	}
	return ce, nil
}

var faultsArg = regexp.MustCompile(` (faults|before)=\([^)]*\)`)

// WithoutFaults returns the commands with every faults=(...) and
// before=(...) argument removed: the same scenario with every fault switch
// and every behaviour selector off (today's protocol).
func WithoutFaults(commands []string) []string {
	out := make([]string, len(commands))
	for i, l := range commands {
		out[i] = faultsArg.ReplaceAllString(l, "")
	}
	return out
}
